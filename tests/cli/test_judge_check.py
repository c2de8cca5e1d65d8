"""`answerkey judge` and `answerkey check`: output, exit codes and compiler-style errors."""

import json

import pytest
from click.testing import CliRunner

from answerkey import __version__
from answerkey.cli import COMMANDS, cli


@pytest.fixture
def run():
    def invoke(*args, input=None):
        return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


@pytest.mark.parametrize("system, exit_code, label", [("((53198.8))", 0, "correct"), ("53190.9", 1, "incorrect")])
def test_judge_prints_verdict_and_exits_like_cmp(run, files, system, exit_code, label):
    """The paper's S-9 example from files: 0 and "correct", or 1 and "incorrect"."""
    result = run("judge", files("c.cas", "53200.0"), files("s.cas", system))
    assert (result.exit_code, result.stdout) == (exit_code, label + "\n")


def test_judge_reads_stdin(run, files):
    """- reads the system answer from standard input."""
    result = run("judge", files("c.cas", '((2341 "SMITH"))'), "-", input='(("SMITH" 2341 44))')
    assert (result.exit_code, result.stdout) == (0, "correct\n")


def test_judge_trouble_is_exit_2_with_file_line_col(run, files):
    """Bad CAS is trouble: exit 2 and FILE:LINE:COL: message with a caret on stderr."""
    canonical = files("c.cas", "((1)\n (2 3))")
    result = run("judge", canonical, files("s.cas", "1"))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"{canonical}:2:2: tuple 2 has 2 values; the relation's tuples have 1\n (2 3))\n ^\n"


def test_judge_missing_file_is_trouble(run, files, tmp_path):
    """A missing file is exit 2 (never 1, which would read as incorrect)."""
    result = run("judge", files("c.cas", "1"), str(tmp_path / "nope.cas"))
    assert result.exit_code == 2
    assert "nope.cas: no such file" in result.stderr


def test_judge_or_in_system_answer_is_trouble(run, files):
    """OR in the system answer is an error at its position."""
    system = files("s.cas", "(1 OR 2)")
    result = run("judge", files("c.cas", "1"), system)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{system}:1:4: OR alternatives are only allowed in canonical answers")


def test_judge_options(run, files):
    """--epsilon, --scalars and --strings change the verdict as documented."""
    canonical, system = files("c.cas", "1.0"), files("s.cas", "1.05")
    assert run("judge", canonical, system).exit_code == 1
    assert run("judge", "--epsilon", "0.1", canonical, system).exit_code == 0
    loophole = files("l.cas", "((true false))")
    assert run("judge", files("t.cas", "true"), loophole).exit_code == 1
    assert run("judge", "--scalars", "h89", files("t2.cas", "true"), loophole).exit_code == 0
    assert run("judge", "--strings", "fold", files("a.cas", '"ABC"'), files("b.cas", '"abc"')).exit_code == 0
    bad = run("judge", "--epsilon", "-1", canonical, system)
    assert bad.exit_code == 2 and "must be a finite number >= 0 and <= 1, not '-1'" in bad.stderr
    for value, why in (
        ("inf", "'inf' is not a number written in decimal digits (such as 0.001 or 1e-4)"),
        ("1e400", "must be a finite number >= 0 and <= 1, not '1e400'"),
        ("nan", "'nan' is not a number written in decimal digits (such as 0.001 or 1e-4)"),
    ):
        bad = run("judge", "--epsilon", value, canonical, system)
        assert bad.exit_code == 2 and bad.stderr == (
            f"cli judge: Invalid value for '--epsilon' / '-e': {why} (see 'cli judge --help')\n"
        )


def test_judge_json_and_explain(run, files):
    """--json prints the verdict with its signature; --explain says why."""
    result = run("judge", "--json", "-", files("c.cas", "53200.0"), files("s.cas", "53190.9"))
    document = json.loads(result.stdout)
    assert result.exit_code == 1
    assert document == {
        "verdict": "incorrect",
        "correct": False,
        "reason": "the scalar does not match",
        "mapping": None,
        "alternative": None,
        "signature": f"eps:0.0001|scalars:atis|strings:exact|v:{__version__}",
    }
    explained = json.loads(
        run(
            "judge", "--json", "-", "--explain", files("c3.cas", "((1 53200.0))"), files("s3.cas", "((53190.9 1))")
        ).stdout
    )
    assert explained["explanation"] == [
        {
            "alternative": None,
            "closest_mapping": [{"canonical": 1, "system": 2}, {"canonical": 2, "system": 1}],
            "missing": ["(1 53200.0)"],
            "extra": ["(1 53190.9)"],
            "out_of_tolerance": [{"canonical": "53200.0", "system": "53190.9", "difference": "9.1", "allowed": "5.32"}],
            "out_of_order": None,
        }
    ]
    correct = json.loads(run("judge", "--json", "-", files("c4.cas", "((1 2))"), files("s4.cas", "((2 1))")).stdout)
    assert correct["mapping"] == [{"canonical": 1, "system": 2}, {"canonical": 2, "system": 1}]
    explained = run("judge", "--explain", files("c2.cas", "53200.0"), files("s2.cas", "53190.9"))
    assert "53190.9 for 53200.0: off by 9.1, more than 5.32" in explained.stdout


JSON_USAGE = "--json OUT writes the JSON to OUT, --json - prints it"


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["judge", "C", "S", "--json"], f"cli judge: --json needs a path now: {JSON_USAGE} (see 'cli judge --help')"),
        (
            ["judge", "--json", "--explain", "C", "S"],
            f"cli judge: --json needs a path now: {JSON_USAGE} (see 'cli judge --help')",
        ),
        (
            ["judge", "--json", "C", "S"],
            f"cli judge: --json C: that is an answer file; {JSON_USAGE} (see 'cli judge --help')",
        ),
        (
            ["check", "--json", "C", "S"],
            f"cli check: --json C: that is an answer file; {JSON_USAGE} (see 'cli check --help')",
        ),
        (["check", "C", "--json"], f"cli check: --json needs a path now: {JSON_USAGE} (see 'cli check --help')"),
    ],
)
def test_json_without_a_path_is_a_usage_error_naming_the_new_form(run, files, arguments, message):
    """--json was a flag of judge and check: used so, it is one line of usage error (exit 2),
    and the answer file the old form would take for the JSON's path is left as it was."""
    paths = {"C": files("c.cas", "53200.0"), "S": files("s.cas", "53190.9")}
    result = run(*(paths.get(argument, argument) for argument in arguments))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == message.replace(" C:", f" {paths['C']}:") + "\n"
    with open(paths["C"], encoding="utf-8") as canonical:
        assert canonical.read() == "53200.0"


def test_judge_and_check_write_json_to_a_path(run, files, tmp_path):
    """--json OUT writes the document --json - prints to OUT; standard output shows what it
    shows without --json."""
    canonical, system = files("c.cas", "53200.0"), files("s.cas", "53190.9")
    verdict = tmp_path / "verdict.json"
    result = run("judge", "--json", str(verdict), canonical, system)
    assert (result.exit_code, result.stdout) == (1, "incorrect\n")
    assert verdict.read_text(encoding="utf-8") == run("judge", "--json", "-", canonical, system).stdout
    bad = files("bad.cas", "((1")
    checked = tmp_path / "checked.json"
    result = run("check", "--json", str(checked), canonical, bad)
    assert (result.exit_code, result.stdout) == (2, f"{canonical}: ok\n")
    assert result.stderr.startswith(f"{bad}:1:4: ")
    assert result.stderr.endswith("1 file of 2 invalid\n")
    assert json.loads(checked.read_text(encoding="utf-8"))["invalid"] == 1
    assert checked.read_text(encoding="utf-8") == run("check", "--json", "-", canonical, bad).stdout


def test_json_replaces_a_file_as_every_report_does(run, files, tmp_path):
    """--json OUT replaces an existing OUT by renaming a new file over it (a reader never sees
    half a document), refuses an input as OUT and a missing directory (exit 2)."""
    canonical, system = files("c.cas", "53200.0"), files("s.txt", "53200.0")
    out = tmp_path / "verdict.json"
    out.write_text("old", encoding="utf-8")
    before = out.stat().st_ino
    assert run("judge", "--json", str(out), canonical, system).exit_code == 0
    assert out.stat().st_ino != before
    assert json.loads(out.read_text(encoding="utf-8"))["verdict"] == "correct"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["c.cas", "s.txt", "verdict.json"]
    refused = run("judge", "--json", system, canonical, system)
    assert (refused.exit_code, refused.stderr) == (
        2,
        f"--json {system}: this is the input SYSTEM; refusing to overwrite it\n",
    )
    missing = run("check", "--json", str(tmp_path / "nope" / "r.json"), canonical)
    assert (missing.exit_code, missing.stderr) == (
        2,
        f"--json {tmp_path / 'nope' / 'r.json'}: no such directory {tmp_path / 'nope'}\n",
    )


def test_check_reports_each_bad_file(run, files):
    """check: "FILE: ok" for good files, FILE:LINE:COL per bad file, exit 2 if any is bad."""
    good, bad = files("good.cas", "((1) (2))"), files("bad.cas", '(("a") (1))')
    result = run("check", good, bad)
    assert result.exit_code == 2
    assert result.stdout == f"{good}: ok\n"
    assert result.stderr.startswith(f"{bad}:1:8: tuple 2, column 1: a number in a column of strings")
    assert run("check", good).exit_code == 0


def test_check_system_and_strict(run, files):
    """--system rejects OR; --strict rejects the .5 and exponent extensions."""
    alternatives = files("alt.cas", "(1 OR 2)")
    assert run("check", alternatives).exit_code == 0
    assert run("check", "--system", alternatives).exit_code == 2
    extension = files("ext.cas", "((1) (.5))")
    assert run("check", extension).exit_code == 0
    strict = run("check", "--strict", extension)
    assert strict.exit_code == 2
    assert strict.stderr.startswith(f"{extension}:1:7: .5 uses an extension")


def test_version_and_help(run):
    """--version prints the version; -h lists every registered command."""
    assert run("--version").stdout == f"answerkey, version {__version__}\n"
    help_text = run("-h").stdout
    for name in COMMANDS:
        assert name in help_text
    assert "Exit status: 0 correct" in run("judge", "-h").stdout


def test_usage_error_is_exit_2(run):
    """Bad usage is trouble too."""
    assert run("judge", "only-one-argument").exit_code == 2


def test_numbers_at_the_documented_bounds_are_judged_and_explained(run, files):
    """1e1000000 against 1e999999 (exponents at the grammar's bound) is a verdict, not a
    decimal.Overflow, with --explain and --json --explain too (issue 19, item 8)."""
    canonical, system = files("c.cas", "((1e1000000))"), files("s.cas", "((1e999999))")
    assert run("judge", canonical, system).stdout == "incorrect\n"
    explained = run("judge", "--explain", canonical, system)
    assert explained.exit_code == 1
    assert "1e999999 for 1e1000000: off by 9E+999999, more than 1E+999996" in explained.stdout
    document = json.loads(run("judge", "--json", "-", "--explain", canonical, system).stdout)
    assert document["verdict"] == "incorrect" and document["explanation"][0]["out_of_tolerance"]
    assert run("judge", files("w.cas", "((1e1000000 1))"), files("v.cas", "((1e1000000 1))")).exit_code == 0


def test_an_answer_wider_than_the_column_limit_is_refused_at_once(run, files):
    """10,000 columns: exit 2 at the first value past the limit, without reading on (issue 19, item 5)."""
    wide = files("w.cas", "((" + " ".join(["1"] * 10_000) + "))")
    result = run("judge", wide, wide)
    assert result.exit_code == 2
    assert (
        result.stderr.splitlines()[0] == f"{wide}:1:4003: more than 2,000 values in a tuple; the limit is 2,000 columns"
    )


def test_max_chars_refuses_a_long_answer_before_parsing_it(run, files):
    """--max-chars bounds the size of an answer file judge and check read."""
    long = files("l.cas", "((" + "1 " * 600 + "))")
    result = run("check", "--max-chars", "1000", long)
    assert result.exit_code == 2
    assert "the limit is 1000" in result.stderr


BY_SALARY = '(ORDERED BY 2 ("JONES" 30000) ("SMITH" 40000)\n  ("TAI" 40000) ("ADAMS" 52000))\n'


@pytest.mark.parametrize(
    "system, exit_code, label",
    [
        ('(("JONES" 30000) ("TAI" 40000) ("SMITH" 40000) ("ADAMS" 52000))', 0, "correct"),
        ('(("JONES" 30000) ("TAI" 40000) ("ADAMS" 52000) ("SMITH" 40000))', 1, "incorrect"),
    ],
)
def test_judge_with_sort_keys(run, files, system, exit_code, label):
    """Two CAS files, the canonical one ORDERED BY salary: ties in another order exit 0, a
    tuple out of key order exits 1."""
    result = run("judge", files("c.cas", BY_SALARY), files("s.cas", system))
    assert (result.exit_code, result.stdout) == (exit_code, label + "\n")


def test_judge_explains_a_tuple_out_of_key_order(run, files):
    """--explain and --json --explain name the first tuple out of key order."""
    canonical = files("c.cas", BY_SALARY)
    system = files("s.cas", '(("JONES" 30000) ("TAI" 40000) ("ADAMS" 52000) ("SMITH" 40000))')
    explained = run("judge", "--explain", canonical, system)
    assert explained.exit_code == 1
    assert explained.stdout.splitlines()[-2:] == [
        "out of key order (BY 2):",
        '  system tuple 4 ("SMITH" 40000) with key (40000) should come before system tuple 3 ("ADAMS" 52000) '
        "with key (52000)",
    ]
    document = json.loads(run("judge", "--json", "-", "--explain", canonical, system).stdout)
    assert document["explanation"][0]["out_of_order"] == {
        "system_tuple": 4,
        "tuple": '("SMITH" 40000)',
        "key": "(40000)",
        "before_system_tuple": 3,
        "before_tuple": '("ADAMS" 52000)',
        "before_key": "(52000)",
    }


def test_judge_bad_sort_key_is_trouble_at_its_place(run, files):
    """A sort key beyond the canonical answer's columns is exit 2 with FILE:LINE:COL."""
    canonical = files("c.cas", '(ORDERED BY 2\n 5 (1 "a"))')
    result = run("judge", canonical, files("s.cas", '((1 "a"))'))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == f"{canonical}:2:2: sort key 5 is beyond the relation's 2 columns"
