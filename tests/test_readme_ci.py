"""README.md opens with the two commands CI runs: set up + judge, and the test command; it stays
short; and every example in README.md, CHANGELOG.md and the docs pages runs and prints what it
shows."""

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_MAX_BYTES = 8192


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_starts_with_setup_and_test_commands():
    """The first code block holds exactly two commands: setup + main job, then the tests."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.index("```sh\n") == text.index("```"), "the two commands must be the README's first code block"
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


def test_readme_names_what_else_ci_runs():
    """The README says what .ci/run runs besides its two commands: each guard's tool, and the
    PostgreSQL it installs."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    guards = re.findall(r"guard \.venv/bin/([\w-]+)(?: (--?[\w-]+))?", ci)
    assert [tool for tool, _ in guards] == ["ruff", "ruff", "mypy", "lint-imports", "mkdocs"]
    for tool, first in guards:
        named = f"`{tool} {first}" if first and not first.startswith("-") else f"`{tool}"
        assert named in readme, f"the README does not say that CI runs {tool} {first}"
    assert "mkdocs build --strict" in readme
    assert "apt-get install -y -qq postgresql" in ci and "installs it first (`apt-get install postgresql`)" in readme


def test_readme_is_at_most_8_kb():
    """The README (also the package's long description) stays within 8 KB; the rest is in docs/."""
    size = len((ROOT / "README.md").read_text(encoding="utf-8").encode())
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes; move text into docs/"


DOCUMENTS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]


def document_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_python_examples_run(document, monkeypatch):
    """Every `>>>` example in the document runs (from the repository's root, as the documents'
    paths assume) and prints what the document shows."""
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(
        str(document),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.failed == 0
    if document.name == "README.md":
        assert result.attempted > 0


def code_blocks(text: str) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown text, as (language, body), indented ones included."""
    blocks = []
    for match in re.finditer(r"^( *)```(\S*)[^\n]*\n(.*?)^\1```", text, re.MULTILINE | re.DOTALL):
        indent = len(match.group(1))
        body = "".join(line[indent:] for line in match.group(3).splitlines(keepends=True))
        blocks.append((match.group(2), body))
    return blocks


def test_python_blocks_are_doctests():
    """A ```python block either is a doctest (run above) or shows no output: nothing unexecuted
    claims what it prints."""
    for document in DOCUMENTS:
        for language, body in code_blocks(document.read_text(encoding="utf-8")):
            if language in ("python", "py", "pycon") and ">>>" not in body:
                assert not re.search(r"^#\s*(\{|\[|\(|\d|[A-Za-z_]+\s*=)", body, re.MULTILINE), (
                    f"{document_id(document)}: a python block shows output in comments without running it:\n{body}"
                )


def console_blocks() -> list[tuple[str, str]]:
    """The ```console blocks of README.md, CHANGELOG.md and docs/**/*.md: `$ command` lines,
    each followed by its output, with the document each comes from."""
    blocks = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        blocks += [(document_id(document), body) for language, body in code_blocks(text) if language == "console"]
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


@pytest.mark.parametrize(
    "document, block", console_blocks(), ids=[f"{name}:{block[2:50]}" for name, block in console_blocks()]
)
def test_console_examples_print_what_they_show(document, block, tmp_path):
    """Each `$ command` of a console block, run in a scratch directory beside the examples with
    answerkey on the PATH (an activated virtual environment), prints what the document shows
    under it (stdout and stderr, in order); what the commands write there is ignored by the
    checkout's .gitignore, so that running the examples in a checkout leaves `git status` clean."""
    for name in ("examples", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / ".gitignore").write_bytes((ROOT / ".gitignore").read_bytes())
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
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
            assert commands, f"{document}: a console block must start with a `$ command` line"
            commands[-1][1].append(line)
    for command, expected in commands:
        result = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        assert expected_pattern(expected).fullmatch(result.stdout), f"{document}: $ {command}\n{result.stdout}"
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=tmp_path, capture_output=True, text=True
    ).stdout.splitlines()
    left = [line for line in status if line[3:] not in ("examples", "tests", ".gitignore")]
    assert left == [], f"{document}: the examples leave files that .gitignore does not ignore: {left}"
