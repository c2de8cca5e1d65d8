"""README.md opens with the two commands CI runs: set up + judge, and the test command; and
every example in README.md and docs/*.md runs and prints what it shows."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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


DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_python_examples_run(document):
    """Every `>>>` example in the document runs and prints what the document shows."""
    import doctest

    result = doctest.testfile(
        str(document),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.failed == 0
    if document.name == "README.md":
        assert result.attempted > 0


def console_blocks() -> list[str]:
    """The ```console blocks of README.md and docs/*.md: `$ command` lines, each followed by its output."""
    blocks = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        blocks += [part.split("```", 1)[0] for part in text.split("```console\n")[1:]]
    return blocks


def expected_pattern(lines: list[str]) -> "re.Pattern[str]":
    """A line `...` stands for any lines; `...` inside a line for any text."""
    parts = []
    for line in lines:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(map(re.escape, line.split("..."))) + r"\n")
    return re.compile("".join(parts))


@pytest.mark.parametrize("block", console_blocks(), ids=lambda block: block.split("\n", 1)[0][2:60])
def test_readme_console_examples_print_what_they_show(block, tmp_path):
    """Each `$ command` in the README, run in a scratch directory beside the examples, prints
    what the README shows under it (stdout and stderr, in order)."""
    for name in ("examples", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    environment = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    commands: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        else:
            commands[-1][1].append(line)
    for command, expected in commands:
        result = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=environment,
            capture_output=False,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        assert expected_pattern(expected).fullmatch(result.stdout), f"$ {command}\n{result.stdout}"
