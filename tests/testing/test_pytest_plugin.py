"""answerkey's pytest plugin, run in pytest's own sandbox (pytester): a failing answer shows
the `--explain` text, and --answerkey-fail-under fails a run whose recorded accuracy is low."""

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "answerkey.testing.pytest_plugin"


def _plugin_args() -> list[str]:
    """Load the plugin by name unless the installed entry point already does (twice is an error)."""
    installed = {entry.value for entry in importlib.metadata.entry_points(group="pytest11")}
    return [] if PLUGIN in installed else ["-p", PLUGIN]


def run(pytester, *args):
    return pytester.runpytest(*_plugin_args(), "-p", "no:cacheprovider", *args)


SALARY_TESTS = """
from answerkey.testing.assertions import assert_correct

def test_within_tolerance():
    assert_correct("53200.0", "53198.8")

def test_outside_tolerance():
    assert_correct("53200.0", "53190.9")
"""

LOGGED_TESTS = """
import pytest

CASES = [("q1", "((1))", "((1))"), ("q2", "((2))", "((2 9))"), ("q3", "3", "4"), ("q4", "((a) (b))", "((b) (a))")]

@pytest.mark.parametrize("name, canonical, system", CASES)
def test_answer(answerkey_verdicts, name, canonical, system):
    answerkey_verdicts.judge(canonical, system, name=name)
"""


def test_assert_correct_fails_with_the_explanation(pytester):
    """A correct answer passes; an incorrect one fails its test with judge --explain's text."""
    pytester.makepyfile(SALARY_TESTS)
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: incorrect: the scalar does not match",
            "*closest mapping: canonical column 1 -> system column 1",
            "*numbers outside tolerance:",
            "*53190.9 for 53200.0: off by 9.1, more than 5.32",
        ]
    )
    assert "assertions.py" not in result.stdout.str()  # the traceback ends in the test


def answerkey_section(result) -> list[str]:
    """The lines of the terminal summary's answerkey section (blank ones aside)."""
    lines = result.stdout.lines
    start = next(index for index, line in enumerate(lines) if line.startswith("=") and " answerkey " in line)
    section = []
    for line in lines[start + 1 :]:
        if line.startswith("="):
            break
        if line:
            section.append(line)
    return section


@pytest.mark.parametrize(
    ("threshold", "status", "shortfall"),
    [("0.75", 0, []), ("0.8", 1, ["answerkey accuracy 0.7500 is under 0.8 (--answerkey-fail-under)"])],
)
def test_fail_under_a_threshold(pytester, threshold, status, shortfall):
    """Tests record verdicts and pass; the run fails (exit 1) when their accuracy is below the
    threshold; the summary lists the incorrect answers."""
    pytester.makepyfile(LOGGED_TESTS)
    result = run(pytester, "--answerkey-fail-under", threshold)
    result.assert_outcomes(passed=4)
    assert result.ret == status
    assert answerkey_section(result) == [
        "3 of 4 answers correct, accuracy 0.7500",
        "q3: incorrect: the scalar does not match",
        *shortfall,
    ]


def test_the_threshold_from_the_ini_file(pytester):
    """`answerkey_fail_under` in the ini file sets the threshold; the option overrides it."""
    pytester.makepyfile(LOGGED_TESTS)
    pytester.makeini("[pytest]\nanswerkey_fail_under = 0.9\n")
    assert run(pytester).ret == 1
    assert run(pytester, "--answerkey-fail-under", "0.5").ret == 0


def test_a_threshold_with_nothing_recorded_fails(pytester):
    """Nothing judged is no accuracy: a run with a threshold and no verdict fails, saying why."""
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = run(pytester, "--answerkey-fail-under", "0.5")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*answerkey accuracy is undefined (nothing was scored), so not at least 0.5*"])


def test_a_bad_threshold_is_a_usage_error(pytester):
    """A threshold that is not a fraction from 0 to 1 stops the run before any test."""
    pytester.makepyfile(LOGGED_TESTS)
    result = run(pytester, "--answerkey-fail-under", "80")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--answerkey-fail-under must be a fraction from 0 to 1 (0.8 for 80%), not '80'*"])


def test_a_run_that_does_not_use_it_is_unchanged(pytester):
    """No verdict and no threshold: no answerkey section, the usual exit status."""
    pytester.makepyfile("def test_one():\n    assert 1 == 1\n")
    result = run(pytester)
    assert result.ret == 0
    # No section of its own (the run may still warn that the plugin's module was imported
    # before pytest could rewrite it, when the suite that runs this test imported it first).
    assert not re.search(r"=+ answerkey =+", result.stdout.str())


def test_assert_at_least_in_a_test(pytester):
    """assert_at_least fails a test whose figure is under the threshold, naming both."""
    pytester.makepyfile(
        "from answerkey.testing.assertions import assert_at_least\n"
        "def test_score():\n    assert_at_least(0.6522, 0.7, what='accuracy')\n"
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AssertionError: accuracy 0.6522 is under 0.7"])


def test_registered_as_a_pytest11_entry_point():
    """pyproject.toml registers the plugin, so installing answerkey enables it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"answerkey": PLUGIN}


def test_the_plugin_imports_no_optional_package():
    """Loaded by every pytest run once installed, the plugin imports none of the heavy optional packages."""
    heavy = ("openpyxl", "pandas", "hypothesis", "duckdb", "psycopg", "dask", "sqlglot")
    code = f"import sys, {PLUGIN}; print([name for name in {heavy!r} if name in sys.modules])"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout == "[]\n"
