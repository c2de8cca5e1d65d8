"""``answerkey score`` on the personnel example (issue #3, "Command", "Tests", "Example")."""

import json
import re
import textwrap
from pathlib import Path

import openpyxl
import pytest
import yaml
from click.testing import CliRunner

from answerkey.cli import cli
from answerkey.limits import MAX_JOBS
from answerkey.score.schema import ScoreReport

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "personnel"
CORPUS = str(EXAMPLE / "corpus.yaml")
ANSWERS = str(EXAMPLE / "answers.jsonl")
SIGNATURE = re.compile(r"eps:0\.0001\|scalars:atis\|strings:exact\|v:\S+")


def score(*args):
    return CliRunner().invoke(cli, ["score", *args], catch_exceptions=False)


def test_example_summary_on_stdout():
    """stdout holds the summary table (worked out by hand from the example's comments); the
    unknown id is a warning on stderr; exit 0."""
    result = score(CORPUS, ANSWERS, "--metrics", "none")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "group",
        "items",
        "scored",
        "correct",
        "incorrect",
        "no_answer",
        "accuracy",
        "weighted_error",
        "score",
    ]
    # 23 scored: 15 correct, 6 incorrect, 2 no answer; 2 x 26.087 + 8.696 = 60.87
    assert lines[1].split() == ["all", "25", "23", "15", "6", "2", "0.6522", "60.87", "39.13"]
    assert lines[6].split() == ["category", "X", "2", "0", "0", "0", "0", "-", "-", "-"]
    assert SIGNATURE.fullmatch(lines[17].removeprefix("signature: "))
    # Under the summary: the accuracy's Wilson interval, then the first failing items and why.
    assert lines[18:22] == [
        "",
        "accuracy 0.6522, 95% CI [0.4489, 0.8119] (Wilson, 23 items)",
        "failing: 8 of 25 items",
        "  q06  incorrect: no mapping of canonical columns onto system columns gives the canonical tuples as a set",
    ]
    assert len(lines) == 29
    assert result.stderr == f"warning: {ANSWERS}:24: answer for id 'q99', which is not in the corpus\n"


def test_docs_show_the_real_output():
    """The docs' Scoring a corpus page shows what the command prints (version aside)."""
    page = (ROOT / "docs" / "score.md").read_text(encoding="utf-8")
    shown = page.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    command, printed = shown[0], shown[1:]
    assert command == "$ answerkey score examples/personnel/corpus.yaml examples/personnel/answers.jsonl"
    result = CliRunner().invoke(
        cli, ["score", "examples/personnel/corpus.yaml", "examples/personnel/answers.jsonl"], catch_exceptions=False
    )
    actual = (result.stderr + result.stdout).splitlines()
    strip_version = lambda lines: [re.sub(r"\|v:\S+", "|v:X", line) for line in lines]  # noqa: E731
    assert strip_version(printed) == strip_version(actual)


@pytest.mark.parametrize("threshold, code", [("0.65", 0), ("0.652", 0), ("0.66", 1), ("1", 1)])
def test_fail_under(threshold, code):
    """Exit 1 when accuracy (15/23 = 0.6522) is below --fail-under."""
    result = score(CORPUS, ANSWERS, "--metrics", "none", "--fail-under", threshold)
    assert result.exit_code == code
    if code:
        assert result.stderr.endswith(f"accuracy 0.6522 is under --fail-under {float(threshold):g}\n")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--fail-under", "80"], "must be a finite number >= 0 and <= 1, not '80'"),
        (["--epsilon", "inf"], "'inf' is not a number written in decimal digits"),
        (["--epsilon", "1e400"], "must be a finite number >= 0 and <= 1, not '1e400'"),
        (["--epsilon", "nan"], "'nan' is not a number written in decimal digits"),
        (["--metrics", "bleu"], "unknown metric 'bleu'"),
        (["--jobs", "0"], f"0 is not in the range 1<=x<={MAX_JOBS}"),
        (["--json", "-", "--yaml", "-"], "only one of --json and --yaml can write to standard output"),
        (["--xlsx", "-"], "--xlsx needs a file name: a workbook cannot go to standard output"),
        (["--json", "examples/personnel/answers.jsonl"], "this is the input ANSWERS; refusing to overwrite it"),
    ],
)
def test_usage_trouble(args, message):
    """Bad options exit 2 with a message."""
    result = score(CORPUS, ANSWERS, *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_json_report_shape_and_schema(tmp_path):
    """The JSON report has the contract's keys and validates against the report schema."""
    out = tmp_path / "report.json"
    assert score(CORPUS, ANSWERS, "--json", str(out)).exit_code == 0
    document = json.loads(out.read_text())
    assert list(document) == ["signature", "summary", "items", "warnings"]
    assert {
        "items",
        "scored",
        "correct",
        "incorrect",
        "no_answer",
        "accuracy",
        "weighted_error",
        "score",
        "by_category",
        "by_tag",
    } <= set(document["summary"])
    assert {"id", "verdict", "reason", "category", "tags"} <= set(document["items"][0])
    assert SIGNATURE.fullmatch(document["signature"])
    ScoreReport.model_validate(document)
    by_id = {item["id"]: item for item in document["items"]}
    assert by_id["q15"]["verdict"] == "correct"  # min/max: minimal columns plus a maximal one
    assert by_id["q16"]["reason"] == "system column 3 matches no column of the maximal answer"
    assert by_id["q21"] == {
        "id": "q21",
        "verdict": "excluded",
        "category": "X",
        "tags": ["excluded"],
        "metrics": {},
        "reason": "category X: listed, not scored (H89-2019 section 5)",
    }
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(document, ScoreReport.model_json_schema())


def test_yaml_report_is_the_same_document(tmp_path):
    """--yaml writes the same document as --json."""
    assert score(CORPUS, ANSWERS, "--json", str(tmp_path / "r.json"), "--yaml", str(tmp_path / "r.yaml")).exit_code == 0
    assert yaml.safe_load((tmp_path / "r.yaml").read_text()) == json.loads((tmp_path / "r.json").read_text())


def test_json_to_stdout_replaces_the_table():
    """--json - prints the report alone on stdout."""
    result = score(CORPUS, ANSWERS, "--json", "-", "--metrics", "cell_recall")
    document = json.loads(result.stdout)
    assert set(document["summary"]["metrics"]) == {"cell_recall"}


def test_metrics_option():
    """--metrics none skips graded metrics; the default computes every registered one."""
    from answerkey.score.run import relation_metrics

    none = json.loads(score(CORPUS, ANSWERS, "--json", "-", "--metrics", "none").stdout)
    assert none["summary"]["metrics"] == {} and all(item["metrics"] == {} for item in none["items"])
    default = json.loads(score(CORPUS, ANSWERS, "--json", "-").stdout)
    assert list(default["summary"]["metrics"]) == list(relation_metrics())


def test_jobs_two_equals_jobs_one():
    """--jobs 2 gives the same report as --jobs 1."""
    one = score(CORPUS, ANSWERS, "--json", "-", "--jobs", "1").stdout
    two = score(CORPUS, ANSWERS, "--json", "-", "--jobs", "2").stdout
    assert one == two


def injection_files(tmp_path):
    corpus = tmp_path / "corpus.yaml"
    corpus.write_text(
        textwrap.dedent("""\
        - id: "=cmd()"
          query: "=cmd()"
          answer: '"+1"'
          tags: ["@risk", "-x"]
        - id: plain
          query: How many?
          context: ["=first", second]
          answer: 2
        - id: gone
          category: X
        """)
    )
    answers = tmp_path / "answers.yaml"
    answers.write_text("'=cmd()': -1+2\nplain: 2\n")
    return str(corpus), str(answers)


def test_excel_workbook_cell_by_cell(tmp_path):
    """Overview: one row per item, text never a formula, verdicts coloured, header frozen,
    autofilter; Statistics: the summary, per category and per tag, and a chart per tag."""
    corpus, answers = injection_files(tmp_path)
    out = tmp_path / "report.xlsx"
    assert score(corpus, answers, "--xlsx", str(out), "--metrics", "none").exit_code == 0
    workbook = openpyxl.load_workbook(out)
    assert workbook.sheetnames == ["Overview", "Statistics", "Warnings"]
    overview = workbook["Overview"]
    rows = [[cell.value for cell in row] for row in overview.iter_rows()]
    assert rows == [
        ["id", "query", "verdict", "reason", "canonical", "system answer", "tags", "category", "context"],
        ["=cmd()", "=cmd()", "incorrect", "the scalar does not match", '"+1"', "-1+2", "@risk, -x", "0", None],
        ["plain", "How many?", "correct", "the scalar matches", "2", "2", None, "0", "=first\nsecond"],
        ["gone", None, "excluded", "category X: listed, not scored (H89-2019 section 5)", None, None, None, "X", None],
    ]
    for cell in (overview["A2"], overview["B2"], overview["F2"], overview["G2"]):
        assert cell.data_type == "s"
    assert overview.freeze_panes == "A2"
    assert overview.auto_filter.ref == "A1:I4"
    assert overview["I3"].data_type == "s"
    assert overview["C2"].fill.fgColor.rgb == "00FFC7CE"
    assert overview["C3"].fill.fgColor.rgb == "00C6EFCE"
    assert overview["C4"].fill.fill_type is None
    statistics = workbook["Statistics"]
    table = [[cell.value for cell in row] for row in statistics.iter_rows(max_row=6)]
    assert table == [
        ["group", "items", "scored", "correct", "incorrect", "no_answer", "accuracy", "weighted_error", "score"],
        ["all", 3, 2, 1, 1, 0, 0.5, 100, 0],
        ["category 0", 2, 2, 1, 1, 0, 0.5, 100, 0],
        ["category X", 1, 0, 0, 0, 0, None, None, None],
        ["tag -x", 1, 1, 0, 1, 0, 0, 200, -100],
        ["tag @risk", 1, 1, 0, 1, 0, 0, 200, -100],
    ]
    assert statistics["A5"].data_type == "s"
    assert statistics["A8"].value == "signature" and SIGNATURE.fullmatch(statistics["B8"].value)
    assert len(statistics._charts) == 1


def test_excel_metric_columns_and_warnings_sheet(tmp_path):
    """Metric columns follow the registry; unknown ids get a Warnings sheet."""
    out = tmp_path / "report.xlsx"
    assert score(CORPUS, ANSWERS, "--xlsx", str(out), "--metrics", "cell_precision,cell_recall").exit_code == 0
    workbook = openpyxl.load_workbook(out)
    assert [cell.value for cell in workbook["Overview"][1]][-2:] == ["cell_precision", "cell_recall"]
    assert workbook["Warnings"]["A2"].value == f"{ANSWERS}:24: answer for id 'q99', which is not in the corpus"


def test_bad_corpus_lists_every_item_and_writes_nothing(tmp_path):
    """A broken corpus stops the run: every bad item on stderr as FILE:LINE:COL, exit 2, and
    an existing report is left as it was."""
    corpus = tmp_path / "c.yaml"
    corpus.write_text("- {id: a, answer: ((1}\n- {id: b}\n- {id: c, answer: 1}\n")
    out = tmp_path / "report.json"
    out.write_text("good")
    result = score(str(corpus), ANSWERS, "--json", str(out))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{corpus}:1:19: item 'a': answer: unexpected end of input; expected ')' or a value (at 1:4 of the answer text)",
        f"{corpus}:2:3: answer: required unless the item is in category X (excluded from scoring)",
        "2 errors in input",
    ]
    assert out.read_text() == "good"


def test_failed_write_keeps_the_old_report(tmp_path):
    """Outputs are atomic: a failing output leaves earlier reports whole and no temporary files."""
    out = tmp_path / "report.json"
    out.write_text("good")
    result = score(CORPUS, ANSWERS, "--xlsx", str(tmp_path / "missing" / "r.xlsx"), "--json", str(out))
    assert result.exit_code == 2
    assert result.stderr == f"--xlsx {tmp_path / 'missing' / 'r.xlsx'}: no such directory {tmp_path / 'missing'}\n"
    assert out.read_text() == "good"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.json"]


def test_answers_directory_and_format_option(tmp_path):
    """A directory of <id>.cas files; --answers-format names a format explicitly."""
    directory = tmp_path / "answers"
    directory.mkdir()
    (directory / "q01.cas").write_text("3\n")
    (directory / "q02.cas").write_text("((true")
    result = score(CORPUS, str(directory), "--json", "-", "--metrics", "none")
    by_id = {item["id"]: item for item in json.loads(result.stdout)["items"]}
    assert by_id["q01"]["verdict"] == "correct"
    assert by_id["q02"]["reason"] == (
        f"unparseable system answer: {directory / 'q02.cas'}:1:7: unexpected end of input; expected ')' or a value"
    )
    answers = tmp_path / "answers.txt"
    answers.write_text("q01: 3\n")
    result = score(CORPUS, str(answers), "--answers-format", "yaml", "--json", "-", "--metrics", "none")
    assert json.loads(result.stdout)["summary"]["correct"] == 1


def test_bad_answers_file_is_trouble(tmp_path):
    """An answers file with a bad line exits 2 with the line's place."""
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "q01", "answer": "3"}\n{"id": \n')
    result = score(CORPUS, str(answers))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == f"{answers}:2:8: invalid JSON: Expecting value"


@pytest.mark.parametrize("name, key", [("corpus", "max_answer"), ("answers", "answer"), ("score-report", "summary")])
def test_schema_command(name, key):
    """`answerkey schema corpus|answers|score-report` print JSON Schemas."""
    result = CliRunner().invoke(cli, ["schema", name], catch_exceptions=False)
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["$id"] == f"urn:answerkey:schema:{name}"
    described = schema["$defs"][schema["items"]["$ref"].split("/")[-1]] if "items" in schema else schema
    assert key in described["properties"]


def test_corpus_from_stdin():
    """CORPUS may be '-' (standard input)."""
    result = CliRunner().invoke(
        cli,
        ["score", "-", ANSWERS, "--metrics", "none", "--json", "-"],
        input='{"id": "q01", "answer": "3"}\n',
        catch_exceptions=False,
    )
    document = json.loads(result.stdout)
    assert (document["summary"]["items"], document["summary"]["correct"]) == (1, 1)


@pytest.mark.parametrize("quiet, drawn", [(False, True), (True, False)])
def test_progress_bar_on_a_terminal(monkeypatch, quiet, drawn, fake_terminal):
    """A large run draws a progress bar on a terminal's stderr unless quiet."""
    import sys

    from answerkey.score.load import load_answers, load_corpus
    from answerkey.score.run import run_score

    terminal = fake_terminal
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr("answerkey.progress.PROGRESS_THRESHOLD", 10)
    run_score(load_corpus(CORPUS), load_answers(ANSWERS), quiet=quiet)
    assert ("score [" in terminal.text and "25/25" in terminal.text) is drawn


def test_json_report_without_warnings(tmp_path):
    """A report with no warnings is valid JSON too, one line per item."""
    corpus, answers = injection_files(tmp_path)
    text = score(corpus, answers, "--json", "-", "--metrics", "none").stdout
    document = json.loads(text)
    assert document["warnings"] == [] and '  "warnings": []\n}\n' in text
    assert f"    {json.dumps(document['items'][1], ensure_ascii=False)},\n" in text


def test_corpus_and_answers_problems_in_one_run(tmp_path):
    """Problems of both files are listed together."""
    corpus = tmp_path / "c.yaml"
    corpus.write_text("- {id: a}\n- {id: b, answer: 1}\n")
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "b"}\n')
    result = score(str(corpus), str(answers))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{corpus}:1:3: answer: required unless the item is in category X (excluded from scoring)",
        f"{answers}:1:1: answer: missing; this field is required",
        "2 errors in input",
    ]


@pytest.mark.parametrize("name, text", [("a.jsonl", ""), ("a.yaml", "# nothing\n"), ("a.json", "[]")])
def test_an_empty_answers_file_is_refused(tmp_path, name, text):
    """An empty answers file is an error (exit 2), not every item scored no_answer in silence."""
    answers = tmp_path / name
    answers.write_text(text)
    result = score(CORPUS, str(answers))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"{answers}: no answers in this file (an empty input is refused)\n"


def test_a_json_answers_file_is_read_as_json(tmp_path):
    """A .json answers file is JSON: a mapping of id to CAS text, and its errors are JSON's."""
    answers = tmp_path / "a.json"
    answers.write_text('{"q01": "3",\n "q02": }')
    result = score(CORPUS, str(answers))
    assert result.stderr == f"{answers}:2:9: invalid JSON: Expecting value\n"
    answers.write_text('{"q01": "3"}')
    document = json.loads(score(CORPUS, str(answers), "--json", "-", "--metrics", "none").stdout)
    assert document["summary"]["correct"] == 1


def test_an_item_with_a_misspelt_field_gets_a_suggestion(tmp_path):
    """`anwser:` is an unknown field with a hint, in answerkey's words, not pydantic's."""
    corpus = tmp_path / "c.yaml"
    corpus.write_text("- id: q1\n  anwser: 5\n")
    result = score(str(corpus), ANSWERS)
    assert result.stderr == f"{corpus}:2:11: anwser: unknown field (did you mean 'answer'?)\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_system_answer_at_the_number_bounds_is_scored(tmp_path, jobs):
    """A system answer ((1e1000000 1)) is judged incorrect, not a crash (issue 19, item 8), in
    one process or two, with and without the graded metrics."""
    corpus = tmp_path / "c.yaml"
    corpus.write_text("".join(f"- {{id: q{index}, answer: '((1.5 2))'}}\n" for index in range(3)))
    answers = tmp_path / "a.jsonl"
    answers.write_text("".join(f'{{"id": "q{index}", "answer": "((1e1000000 1))"}}\n' for index in range(3)))
    for metrics in ("none", "all"):
        result = score(str(corpus), str(answers), "--jobs", jobs, "--metrics", metrics, "--json", "-")
        assert result.exit_code == 0
        assert json.loads(result.stdout)["summary"]["incorrect"] == 3
