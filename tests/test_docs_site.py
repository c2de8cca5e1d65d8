"""The README and the docs site describe only what exists: every `answerkey COMMAND --option`
they mention is an option of that command, every `--option` in their code is one of some
command's (or of a named other tool), every `answerkey.x.y` path imports, the command tables
list every command, and the Limits section lists every bound."""

import importlib
import importlib.util
import re
from pathlib import Path

import click
import pytest

from answerkey.cli import COMMANDS
from answerkey.cli.schema import SCHEMAS

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]

# Options the documents mention that belong to other tools, each named where it is used.
OTHER_TOOLS_OPTIONS = {
    "--hypothesis-profile",  # pytest's, from Hypothesis's plugin
    "--answerkey-fail-under",  # pytest's, from answerkey's plugin (answerkey.testing.pytest_plugin)
    "--check",  # ruff format (CI's guard)
    "--keep_distinct",  # test-suite-sql-eval's evaluation.py
    "--gold",  # test-suite-sql-eval's evaluation.py
    "--pred",  # test-suite-sql-eval's evaluation.py
    "--etype",  # test-suite-sql-eval's evaluation.py
    "--table",  # test-suite-sql-eval's evaluation.py
    "--plug_value",  # test-suite-sql-eval's evaluation.py
    "--progress_bar_for_each_datapoint",  # test-suite-sql-eval's evaluation.py
    "--mode",  # Spider 2.0-lite's evaluate.py
    "--result_dir",  # Spider 2.0-lite's evaluate.py
    "--gold_dir",  # Spider 2.0-lite's evaluate.py
    "--max_workers",  # Spider 2.0-lite's evaluate.py
    "--temp_dir",  # Spider 2.0-lite's evaluate.py
    "--nworkers",  # dask worker
    "--nthreads",  # dask worker
    "--quick",  # benchmarks/run.py
    "--others",  # benchmarks/run.py
    "--only",  # benchmarks/bench_sql.py
    "--strict",  # mkdocs build (also answerkey check's)
    "--site-dir",  # mkdocs build
}


def document_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def code_texts(text: str) -> list[str]:
    """The code of a Markdown text: each line of its fenced blocks and each inline code span."""
    codes: list[str] = []
    for match in re.finditer(r"^ *```[^\n]*\n(.*?)^ *```", text, re.MULTILINE | re.DOTALL):
        codes += match.group(1).splitlines()
    prose = re.sub(r"^ *```[^\n]*\n.*?^ *```", "", text, flags=re.MULTILINE | re.DOTALL)
    codes += re.findall(r"``?([^`\n]+?)``?", prose)
    return codes


def command_of(name: str) -> click.Command:
    module_name, attribute = COMMANDS[name][0].split(":")
    command: click.Command = getattr(importlib.import_module(module_name), attribute)
    return command


def options_of(command: click.Command) -> set[str]:
    """Every option spelling of a command (its subcommands' too when it is a group), help included."""
    context = click.Context(command, info_name=command.name, help_option_names=["-h", "--help"])
    options = {"-h", "--help"}
    for parameter in command.get_params(context):
        if isinstance(parameter, click.Option):
            options.update(parameter.opts, parameter.secondary_opts)
    if isinstance(command, click.Group):
        for subcommand in command.commands.values():
            options |= options_of(subcommand)
    return options


ALL_OPTIONS = set().union(*(options_of(command_of(name)) for name in COMMANDS))

INVOCATION = re.compile(r"(?<![\w.\-/])answerkey\s+([a-z]+)((?:\s+[a-z]+)?)(.*)")
FLAG = re.compile(r"(?<![\w-])(--[a-zA-Z][\w-]*|-[a-zA-Z])(?![\w-])")


def unquoted(text: str) -> str:
    """The text without its quoted strings (arguments given to other programs)."""
    return re.sub(r"'[^']*'|\"[^\"]*\"", "", text)


def invocations() -> list[tuple[str, str, str, str]]:
    """(document, command, subcommand or "", option) for every option written after
    `answerkey COMMAND` in one shell command of the documents' code."""
    found = []
    for document in DOCUMENTS:
        for code in code_texts(document.read_text(encoding="utf-8")):
            for match in INVOCATION.finditer(unquoted(code)):
                name, word, rest = match.group(1), match.group(2).strip(), match.group(3)
                if name not in COMMANDS:
                    continue
                command = command_of(name)
                subcommand = ""
                if isinstance(command, click.Group) and word in command.commands:
                    subcommand = word
                rest = re.split(r"\s(?:\||&&|;|\|\|)\s|`", rest, maxsplit=1)[0]
                found += [(document_id(document), name, subcommand, flag) for flag in FLAG.findall(rest)]
    return found


def test_the_documents_mention_commands_with_options():
    """The scan finds the invocations the documents are full of, so an empty scan cannot pass."""
    found = invocations()
    assert ("README.md", "judge", "", "--explain") in found
    assert any(item[1:] == ("steps", "evaluate", "--yaml") for item in found)
    assert len(found) > 50


@pytest.mark.parametrize("document, name, subcommand, option", sorted(set(invocations())))
def test_each_option_written_after_a_command_is_one_of_its_options(document, name, subcommand, option):
    """`answerkey NAME [SUB] ... OPTION` in the documents names an option that `--help` lists."""
    command = command_of(name)
    if subcommand:
        assert isinstance(command, click.Group)
        command = command.commands[subcommand]
    assert option in options_of(command), f"{document}: answerkey {name} {subcommand} has no option {option}"


def test_every_option_in_the_documents_code_exists():
    """An option in code anywhere in the documents is an option of some answerkey command (or of
    another tool named in OTHER_TOOLS_OPTIONS): a renamed option leaves no stale mention."""
    unknown = set()
    for document in DOCUMENTS:
        for code in code_texts(document.read_text(encoding="utf-8")):
            for flag in re.findall(r"(?<![\w-])(--[a-zA-Z][\w-]*)", unquoted(code)):
                if flag not in ALL_OPTIONS and flag not in OTHER_TOOLS_OPTIONS:
                    unknown.add((document_id(document), flag))
    assert not unknown


MODULE_PATH = re.compile(r"(?<![\w./\-])answerkey(?:\.[A-Za-z_]\w*)+")
FILE_SUFFIXES = {"md", "py", "cas", "lark", "json", "jsonl", "yaml", "yml", "toml", "xlsx", "sqlite"}


def module_paths() -> list[tuple[str, str]]:
    found = set()
    for document in DOCUMENTS:
        for path in MODULE_PATH.findall(document.read_text(encoding="utf-8")):
            if path.rsplit(".", 1)[1] not in FILE_SUFFIXES:  # answerkey.md is a page, not a module
                found.add((document_id(document), path))
    return sorted(found)


def resolve(path: str) -> object:
    """The module or attribute a dotted path names: the longest importable prefix, then attributes."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:end]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[end:]:
            target = getattr(target, attribute)
        return target
    raise ModuleNotFoundError(path)


def test_the_documents_name_module_paths():
    """The scan finds the documented paths (the API reference's among them)."""
    paths = {path for _, path in module_paths()}
    assert {"answerkey.comparator", "answerkey.compat.qatch", "answerkey.strategies"} <= paths


@pytest.mark.parametrize("document, path", module_paths())
def test_each_module_path_resolves(document, path):
    """Every `answerkey.x.y` path the documents mention imports (or is an attribute of a module)."""
    try:
        resolve(path)
    except (ImportError, AttributeError) as error:
        pytest.fail(f"{document}: {path} does not exist ({error})")


def test_each_schema_named_exists():
    """Every `answerkey schema NAME` in the documents names a registered schema."""
    named = set()
    for document in DOCUMENTS:
        for code in code_texts(document.read_text(encoding="utf-8")):
            named.update(
                (document_id(document), name) for name in re.findall(r"answerkey schema ([a-z][a-z0-9-]*)", code)
            )
    assert len(named) > 10
    assert {(document, name) for document, name in named if name not in SCHEMAS} == set()


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_command_tables_list_every_command(page):
    """The command table of the README and of Getting started has one row per command of
    answerkey.cli.COMMANDS, in that order, and no other."""
    text = (ROOT / page).read_text(encoding="utf-8")
    listed = re.findall(r"^\| `answerkey ([a-z]+)", text, re.MULTILINE)
    assert listed == list(COMMANDS)


def test_every_page_is_in_the_navigation():
    """mkdocs.yml's nav names every page under docs/ (mkdocs --strict fails on a page left out,
    but only where the site is built)."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r":\s*(\S+\.md)\s*$", nav, re.MULTILINE))
    pages = {path.relative_to(ROOT / "docs").as_posix() for path in (ROOT / "docs").rglob("*.md")}
    assert listed == pages


def test_api_reference_fences_docstring_examples():
    """The API reference's griffe extension puts each `>>>` example of a docstring, with its
    output, in a pycon fence, and leaves fenced code and prose alone."""
    pytest.importorskip("griffe")
    spec = importlib.util.spec_from_file_location("doctest_fences", ROOT / "docs" / "_ext" / "doctest_fences.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = "Judge.\n\n    >>> judge('1', '1.0').correct\n    True\n\nMore.\n\n```sh\n>>> not an example\n```"
    assert module.fence_examples(text) == (
        "Judge.\n\n    ```pycon\n    >>> judge('1', '1.0').correct\n    True\n    ```\n\nMore.\n\n"
        "```sh\n>>> not an example\n```"
    )


def test_readme_links_reach_files():
    """Every relative link and picture of the README names a file of the repository (mkdocs
    checks the docs pages' links; the README is outside the site)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [target.split("#", 1)[0] for target in re.findall(r"\]\(([^)\s]+)\)", text)]
    relative = [target for target in targets if target and "://" not in target]
    assert len(relative) >= 10
    assert [target for target in relative if not (ROOT / target).is_file()] == []
