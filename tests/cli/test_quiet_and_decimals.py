"""Rules shared by every command. `-q` means one thing on every command that has it: no progress and no summary on either
stream; standard output carries only a report sent there, standard error only warnings and
errors; the results, the files written and the exit status are those of the run without -q. Figures
show the decimals of one rule (``answerkey.report.figures``) in summaries and workbooks."""

import importlib.util
import re
import sys
from pathlib import Path

import click
import pytest

from answerkey.cli import cli
from answerkey.report.figures import POINTS_DECIMALS, RATIO_DECIMALS, excel_format

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _load_stub_server():
    path = ROOT / "tests" / "answers" / "stub_server.py"
    spec = importlib.util.spec_from_file_location("answers_stub_server", path)
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def judge_endpoint(monkeypatch):
    """A stub LLM judge endpoint in the environment, for `answers`."""
    server = _load_stub_server().StubServer()
    server.reply_to("capital of Australia", "1\t1\t0\tSydney is not Canberra.")
    monkeypatch.setenv("ANSWERKEY_JUDGE_URL", server.url)
    monkeypatch.setenv("ANSWERKEY_JUDGE_RETRIES", "0")
    monkeypatch.delenv("ANSWERKEY_JUDGE_CACHE", raising=False)
    yield server
    server.close()


def _steps_results(out: Path) -> str:
    results = out.parent / "steps-results.yaml"
    if not results.exists():
        cli.main(
            [
                "steps",
                "evaluate",
                str(EXAMPLES / "steps/reference.yaml"),
                str(EXAMPLES / "steps/responses.jsonl"),
                "-q",
                "--yaml",
                str(results),
            ],
            standalone_mode=False,
        )
    return str(results)


def _sql_run(out: Path) -> str:
    """The JSON report of `sql` on the Spider example, for `compare`: one file beside the
    directories of OUT's runs, as the comparison's report names it."""
    run = out.parent.parent / "sql-run.json"
    if not run.exists():
        spider = EXAMPLES / "sql" / "spider"
        arguments = ["sql", str(spider / "gold.sql"), str(spider / "pred.sql"), "--db", str(spider / "database")]
        cli.main([*arguments, "-q", "--json", str(run)], standalone_mode=False)
    return str(run)


# Command path -> the arguments of a run on the bundled examples, given OUT (a path the run
# writes its outcome to). Every command with -q has a case (test_every_quiet_command_has_a_case).
CASES = {
    "judge": lambda out: ["--json", out, EXAMPLES / "paper/salary.cas", EXAMPLES / "paper/salary-system.cas"],
    "check": lambda out: ["--json", out, EXAMPLES / "paper/salary.cas", EXAMPLES / "paper/employees.cas"],
    "score": lambda out: ["--json", out, EXAMPLES / "personnel/corpus.yaml", EXAMPLES / "personnel/answers.jsonl"],
    "qatch": lambda out: [
        "--json",
        out,
        EXAMPLES / "qatch/sp-tests.jsonl",
        "--task",
        "sp",
        "--db",
        EXAMPLES / "qatch/databases",
    ],
    "sql": lambda out: [
        "--json",
        out,
        EXAMPLES / "sql/spider/gold.sql",
        EXAMPLES / "sql/spider/pred.sql",
        "--db",
        EXAMPLES / "sql/spider/database",
        "--metrics",
        "none",
    ],
    "sdmx": lambda out: ["--json", out, EXAMPLES / "sdmx/cases", EXAMPLES / "sdmx/selections.jsonl"],
    "steps evaluate": lambda out: [
        "--json",
        out,
        EXAMPLES / "steps/reference.yaml",
        EXAMPLES / "steps/responses.jsonl",
    ],
    "steps aggregate": lambda out: ["--json", out, _steps_results(out)],
    "answers": lambda out: ["-i", EXAMPLES / "answers/questions.tsv", "-o", out],
    "compare": lambda out: ["--json", out, _sql_run(out), _sql_run(out)],
    "fuzz generate": lambda out: ["-n", "3", "-o", out.with_suffix(".jsonl")],
    "fuzz roundtrip": lambda out: ["--json", out, "--cmd", f"python {EXAMPLES / 'fuzz/rows_to_cas.py'}", "-n", "5"],
    "fuzz self": lambda out: ["--json", out, "-n", "3"],
}


def _quiet_commands(group: click.Group, ctx: click.Context, prefix: str = "") -> list[str]:
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        path = f"{prefix}{name}"
        if isinstance(command, click.Group):
            found += _quiet_commands(command, ctx, f"{path} ")
        elif any("--quiet" in getattr(option, "opts", ()) for option in command.params):
            found.append(path)
    return found


def test_every_quiet_command_has_a_case():
    """The table below covers each command that takes -q, and no other."""
    with click.Context(cli) as ctx:
        assert sorted(_quiet_commands(cli, ctx)) == sorted(CASES)


def test_quiet_help_is_the_same_everywhere(run_cli):
    """Every command's --help says the same about -q, and none promises a 'progress bar'."""
    helps = set()
    for path in CASES:
        text = " ".join(run_cli(*path.split(), "--help").stdout.split())
        helps.add(text.split("-q, --quiet ")[1].split(" -h, --help")[0])
    assert helps == {
        "Quiet: no progress and no summary. Standard output carries only a report sent there with '-'; "
        "warnings and errors still go to standard error; results, files and exit status are unchanged."
    }


def _outcome(path: Path) -> bytes:
    if path.is_dir():
        return b"".join(child.read_bytes() for child in sorted(path.iterdir()))
    for candidate in (path, path.with_suffix(".jsonl")):
        if candidate.exists():
            return candidate.read_bytes()
    return b""


@pytest.mark.parametrize("path", sorted(CASES))
def test_quiet_prints_nothing_but_warnings_and_changes_nothing_else(path, tmp_path, run_cli, judge_endpoint):
    """With -q: no summary on stdout or stderr (only warning lines there); the same exit
    status and the same outcome file as without it, which prints a summary."""
    runs = {}
    for quiet in (False, True):
        out = tmp_path / ("quiet" if quiet else "loud") / "out.json"
        out.parent.mkdir()
        args = [*path.split(), *(["-q"] if quiet else []), *CASES[path](out)]
        result = run_cli(*args)
        runs[quiet] = (result, _outcome(out))
    (loud, loud_outcome), (quiet, quiet_outcome) = runs[False], runs[True]
    assert quiet.exit_code == loud.exit_code
    assert quiet.stdout == ""
    assert [line for line in quiet.stderr.splitlines() if not line.startswith("warning: ")] == []
    assert loud.stdout + loud.stderr.replace("warning: ", "") != ""  # without -q, something is shown
    assert quiet_outcome == loud_outcome != b""


# The commands whose summary shows figures, and the columns of figures in points (ATIS's).
SUMMARIES = ["score", "qatch", "sql", "sdmx", "steps evaluate", "steps aggregate", "answers", "compare"]
_FIGURE = re.compile(r"(?<![\w.:|])-?[0-9]+\.([0-9]+)(?![\w.])")


@pytest.mark.parametrize("path", SUMMARIES)
def test_summary_figures_have_the_decimals_of_the_one_rule(path, tmp_path, run_cli, judge_endpoint):
    """Every figure of a summary shows RATIO_DECIMALS decimals, but score's weighted_error and
    score columns (points), which show POINTS_DECIMALS; the signature line is not a figure."""
    out = tmp_path / "out.json"
    result = run_cli(*path.split(), *CASES[path](out))
    lines = [line for line in result.stdout.splitlines() if not line.startswith("signature:")]
    decimals = []
    for line in lines:
        figures = [len(match.group(1)) for match in _FIGURE.finditer(line)]
        if path == "score" and line.startswith(("all", "category", "tag")) and figures:
            assert figures[-2:] in ([POINTS_DECIMALS, POINTS_DECIMALS], [RATIO_DECIMALS, POINTS_DECIMALS]), line
            figures = figures[:-2]
        decimals += figures
    assert decimals and set(decimals) == {RATIO_DECIMALS}, result.stdout


@pytest.mark.parametrize("path", ["score", "qatch", "sql", "sdmx", "steps evaluate", "answers"])
def test_workbook_ratios_have_the_decimals_of_the_one_rule(path, tmp_path, run_cli, judge_endpoint):
    """Every number format in a command's workbook that shows decimals shows the rule's:
    RATIO_DECIMALS, or POINTS_DECIMALS; the cells hold the full values."""
    openpyxl = pytest.importorskip("openpyxl")
    workbook = tmp_path / "report.xlsx"
    assert run_cli(*path.split(), *CASES[path](tmp_path / "out.json"), "--xlsx", workbook).exit_code in (0, 1)
    formats = set()
    for sheet in openpyxl.load_workbook(workbook).worksheets:
        for row in sheet.iter_rows():
            formats.update(cell.number_format for cell in row if isinstance(cell.value, float))
    shown = {number_format for number_format in formats if number_format.startswith("0.")}
    assert shown and shown <= {excel_format(RATIO_DECIMALS), excel_format(POINTS_DECIMALS)}, formats


# The commands that list failing items under their summary: the first line of the notes (the
# headline figure with its 95% interval) and the count of failing entries.
NOTES = {
    "score": ("accuracy 0.6522, 95% CI [0.4489, 0.8119] (Wilson, 23 items)", "failing: 8 of 25 items"),
    "qatch": ("mean cell_precision 0.6429, 95% CI [0.2905, 0.9952] (standard error, 7 items)", "failing: 5 of 7 tests"),
    "sql": ("accuracy 0.5000, 95% CI [0.2538, 0.7462] (Wilson, 12 items)", "failing: 6 of 12 items"),
    "sdmx": ("mean macro recall 0.6788, 95% CI [0.4584, 0.8992] (standard error, 11 items)", "failing: 8 of 12 cases"),
    "steps evaluate": (
        "mean steps_score 0.5625, 95% CI [0.2191, 0.9059] (standard error, 8 items)",
        "failing: 5 of 9 questions",
    ),
    "answers": ("mean recall 0.7500, 95% CI [0.2600, 1.0000] (standard error, 4 items)", "failing: 1 of 4 rows"),
}


def _notes(stdout: str) -> list[str]:
    """The lines under the summary: from the headline interval to the end."""
    lines = stdout.splitlines()
    start = next(index for index, line in enumerate(lines) if ", 95% CI [" in line)
    return lines[start:]


@pytest.mark.parametrize("path", sorted(NOTES))
def test_the_summary_ends_with_the_interval_and_the_failing_items(path, tmp_path, run_cli, judge_endpoint):
    """Under every summary: the headline figure with its 95% interval, how many entries fail,
    and the first 10 of them (--show-failures N: the first N, `all`: every one, 0: none), each
    `id  reason` on one line; with -q, none of it."""
    interval, count = NOTES[path]
    listed = {}
    for shown in ("10", "1", "all", "0"):
        result = run_cli(*path.split(), *CASES[path](tmp_path / f"out-{shown}.json"), "--show-failures", shown)
        notes = _notes(result.stdout)
        assert notes[0] == interval
        head = next(line for line in notes if line.startswith("failing: "))
        entries = notes[notes.index(head) + 1 :]
        assert all(line.startswith("  ") and len(line.split()) >= 2 for line in entries)
        assert all(len(line) <= 120 for line in entries)
        # The ids (padded to the longest listed, so a line's cut moves with them).
        listed[shown] = [line[2:].split("  ", 1)[0] for line in entries]
        failing = int(count.split()[1])
        expected_head = count
        if shown == "0" and failing:
            expected_head += " (--show-failures N lists them)"
        elif shown != "all" and failing > int(shown):
            expected_head += f" (the first {shown}; --show-failures all lists them all)"
        assert head == expected_head
    failing = int(count.split()[1])
    assert len(listed["all"]) == failing
    assert listed["10"] == listed["all"][:10]
    assert listed["1"] == listed["all"][:1]
    assert listed["0"] == []
    quiet = run_cli(*path.split(), *CASES[path](tmp_path / "quiet.json"), "-q")
    assert quiet.stdout == ""


@pytest.mark.parametrize("value", ["-1", "some", "1.5"])
def test_show_failures_takes_a_count_or_all(value, run_cli):
    """Anything but a count from 0 or `all` is a usage error (exit 2) naming the value."""
    result = run_cli("score", "--show-failures", value, "corpus.yaml", "answers.jsonl")
    assert result.exit_code == 2
    assert f"'{value}' is neither a count from 0 nor 'all'" in result.stderr


# The commands that write a workbook (--xlsx), and the header of their Overview's id column.
WORKBOOK_IDS = {
    "score": "id",
    "qatch": "id",
    "sql": "id",
    "sdmx": None,
    "steps evaluate": "question_id",
    "steps aggregate": None,
    "answers": None,
    "compare": "id",
}


# The commands whose example workbook has cells wrapped on several lines.
WRAPPED_LINES = ("answers", "score", "qatch", "sql", "sdmx", "steps evaluate", "steps aggregate")


@pytest.mark.parametrize("path", sorted(WORKBOOK_IDS))
def test_workbooks_read_the_same_in_libreoffice_as_in_excel(path, tmp_path, run_cli, judge_endpoint):
    """Every command's workbook: a chart on its Statistics sheet; each row with wrapped text a
    line (15 points) per line of its longest wrapped cell, no height on other rows; ids of ASCII
    digits (no leading zero) are numbers, other ids text."""
    openpyxl = pytest.importorskip("openpyxl")
    workbook = tmp_path / "report.xlsx"
    assert run_cli(*path.split(), *CASES[path](tmp_path / "out.json"), "--xlsx", workbook).exit_code in (0, 1)
    book = openpyxl.load_workbook(workbook)
    assert len(book["Statistics"]._charts) >= 1
    for sheet in book.worksheets:
        for row in sheet.iter_rows(min_row=2):
            texts = [cell.value for cell in row if cell.alignment.wrap_text and isinstance(cell.value, str)]
            lines = max((text.count("\n") + 1 for text in texts), default=1)
            height = sheet.row_dimensions[row[0].row].height
            if lines > 1:
                assert height is not None and height >= min(409, 15 * lines), (sheet.title, row[0].row, height)
            if not texts:
                assert height is None, (sheet.title, row[0].row)
    tall = [row for sheet in book.worksheets for row, size in sheet.row_dimensions.items() if size.height]
    assert bool(tall) == (path in WRAPPED_LINES), tall
    header = WORKBOOK_IDS[path]
    if header is not None:
        overview = book["Overview"]
        column = [cell.value for cell in overview[1]].index(header) + 1
        ids = [overview.cell(row, column) for row in range(2, overview.max_row + 1)]
        ids = [cell for cell in ids if cell.value is not None]
        assert ids
        for cell in ids:
            if re.fullmatch(r"0|[1-9][0-9]*", str(cell.value)):
                assert cell.data_type == "n" and isinstance(cell.value, int), cell.value
            else:
                assert cell.data_type == "s", cell.value
        assert any(cell.data_type == "n" for cell in ids) == (path in ("sql", "compare"))
