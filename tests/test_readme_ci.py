"""README.md opens with the two commands CI runs: set up + judge, and the test command."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_starts_with_setup_and_test_commands():
    """The first code block holds exactly two commands: setup + main job, then the tests."""
    setup, tests = readme_commands()
    assert "pip install" in setup and "answerkey judge" in setup
    assert "pytest" in tests


def test_ci_runs_exactly_the_readme_commands():
    """.ci/run runs the README's setup command and exactly its test command."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    setup, tests = readme_commands()
    assert setup in ci
    assert tests in ci
    assert any("-eq 5" in line for line in ci), "pytest's exit 5 (no tests) must fail CI"


def test_readme_python_examples_run():
    """Every `>>>` example in README.md runs and prints what the README shows."""
    import doctest

    result = doctest.testfile(
        str(ROOT / "README.md"), module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0
    assert result.failed == 0
