"""`answerkey qatch`: QA and SP runs over tests files, reports, errors and exit codes."""

from __future__ import annotations

import doctest
import hashlib
import importlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from answerkey.cli import cli
from answerkey.qatch import evaluate_test
from answerkey.adapters.sql import Databases

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "qatch"
RUNAWAY = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"


@pytest.fixture
def databases(tmp_path):
    """A copy of the examples' Spider-layout root (tests must not touch the examples)."""
    root = tmp_path / "databases"
    shutil.copytree(EXAMPLES / "databases", root)
    return root


def run(*args):
    return CliRunner().invoke(cli, ["qatch", *map(str, args)])


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_sp_example_run(databases, tmp_path):
    """The SP example: per-test scores, means, the signature; a predicted DROP TABLE scores 0
    and leaves the database byte-identical."""
    database = databases / "uk" / "uk.sqlite"
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    report = tmp_path / "report.json"
    result = run(EXAMPLES / "sp-tests.jsonl", "--task", "sp", "--db", databases, "--json", report)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:8] == [
        "metric                mean  tests",
        "cell_precision      0.6429      7",
        "cell_recall         0.6429      7",
        "tuple_cardinality   0.6429      7",
        "tuple_constraint    0.5000      7",
        "tuple_order         0.0000      1",
        "execution_accuracy  0.4286      7",
        "",
    ]
    assert "7 tests: 7 evaluated, 2 prediction errors (scored 0), 0 test errors" in result.stdout
    document = json.loads(report.read_text())
    assert document["signature"].startswith("task:sp|eps:0.0001|strings:exact|timeout:30|max_rows:1000000|v:")
    tests = {test["id"]: test for test in document["tests"]}
    assert tests["largest-first"]["metrics"]["tuple_order"] == 0.0
    assert tests["capitals"]["metrics"]["tuple_order"] is None
    assert tests["mean-population"]["metrics"]["cell_recall"] == 1.0  # within epsilon
    assert tests["scottish-cities"]["metrics"]["cell_precision"] == 0.5
    assert tests["vandal"]["prediction_error"] == "the prediction query failed: not authorized"
    assert tests["typo"]["prediction_error"] == "the prediction query failed: no such column: nme"
    assert tests["vandal"]["line"] == 6 and tests["vandal"]["db_id"] == "uk"
    assert document["summary"] == {
        "tests": 7, "evaluated": 7, "errors": 0, "prediction_errors": 2,
        "means": {
            "cell_precision": 4.5 / 7, "cell_recall": 4.5 / 7, "tuple_cardinality": 4.5 / 7,
            "tuple_constraint": 3.5 / 7, "tuple_order": 0.0, "execution_accuracy": 3 / 7,
        },
    }
    assert hashlib.sha256(database.read_bytes()).hexdigest() == before


def test_epsilon_option_changes_scores_and_signature(databases):
    """--epsilon 0 makes the rounded mean population a miss, and says so in the signature."""
    result = run(EXAMPLES / "sp-tests.jsonl", "--task", "sp", "--db", databases, "-e", "0", "--json", "-")
    document = json.loads(result.stdout)
    assert document["signature"].startswith("task:sp|eps:0|")
    mean_population = next(t for t in document["tests"] if t["id"] == "mean-population")
    assert mean_population["metrics"]["cell_recall"] == 0.0


def test_qa_example_csv():
    """The QA example (CSV, tables as JSON text): means over four tests, one malformed."""
    result = run(EXAMPLES / "qa-tests.csv", "--task", "qa", "--metrics", "cell_precision,cell_recall,tuple_order")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:4] == [
        "metric            mean  tests",
        "cell_precision  0.6250      4",
        "cell_recall     0.7500      4",
        "tuple_order     0.4750      4",
    ]


def test_qa_yaml_with_sql_targets_and_custom_columns(databases, tmp_path):
    """YAML tests, SQL targets run on --db, predictions as lists; custom column names."""
    tests = tmp_path / "tests.yaml"
    tests.write_text(
        "- db_id: uk\n"
        "  gold: SELECT capital FROM country ORDER BY population DESC\n"
        "  answer: [[London], [Edinburgh], [Cardiff], [Belfast]]\n"
        "- db_id: uk\n"
        "  gold: SELECT name FROM city WHERE country = 'Wales'\n"
        "  answer: [[Cardiff]]\n",
        encoding="utf-8",
    )
    result = run(tests, "--task", "qa", "--db", databases, "--target-col", "gold", "--prediction-col", "answer",
                 "--json", "-", "--metrics", "tuple_order,cell_recall")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert [test["metrics"] for test in document["tests"]] == [
        {"tuple_order": 1.0, "cell_recall": 1.0},
        {"tuple_order": None, "cell_recall": 0.5},
    ]
    assert [test["id"] for test in document["tests"]] == ["1", "2"]
    assert [test["line"] for test in document["tests"]] == [1, 4]


def test_bad_rows_are_listed_and_nothing_is_scored(tmp_path, databases):
    """Every bad row is reported as FILE:LINE: message, exit 2, no report written."""
    tests = tmp_path / "tests.jsonl"
    tests.write_text(
        '{"id": "a", "db_id": "uk", "query": "SELECT 1", "prediction": "SELECT 1"}\n'
        '{"id": "a", "db_id": "uk", "query": "SELECT 1", "prediction": "SELECT 1"}\n'
        '{"id": "b", "db_id": "uk", "prediction": "SELECT 1"}\n'
        '{"id": "c", "query": "SELECT 1", "prediction": "SELECT 1"}\n'
        '{"id": "d", "db_id": "uk", "query": "SELECT 1"}\n'
        '{"id": "e", oops}\n'
        '[1, 2]\n',
        encoding="utf-8",
    )
    report = tmp_path / "report.json"
    result = run(tests, "--task", "sp", "--db", databases, "--json", report)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{tests}:2: duplicate id 'a' (first on line 1)",
        f"{tests}:3: missing target column 'query'",
        f"{tests}:4: missing db_id (the target is an SQL query)",
        f"{tests}:5: missing prediction column 'prediction'",
        f"{tests}:6:13: invalid JSON: Expecting property name enclosed in double quotes",
        f"{tests}:7: a test is a mapping of columns, not list",
        "6 errors in input; nothing scored",
    ]
    assert not report.exists()


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("t.yaml", '- query: [[a]]\n  prediction: "\x01"\n', "2:16: character U+0001 is not allowed in YAML"),
        ("t.yaml", "query: [[a]]\n", "1:1: a tests file in YAML is a list of tests (mappings)"),
        ("t.csv", 'query,prediction\n"[[1]]","[[1]]",extra\n', "2: more cells than header columns"),
    ],
)
def test_bad_files(tmp_path, name, content, message):
    """Unreadable YAML and CSV rows are located input errors (exit 2), not tracebacks."""
    tests = tmp_path / name
    tests.write_text(content, encoding="utf-8")
    result = run(tests, "--task", "qa")
    assert result.exit_code == 2
    assert f"{tests}:{message}" in result.stderr


def test_sql_without_databases_is_trouble(tmp_path):
    """Tests that run SQL need --db."""
    tests = write_jsonl(tmp_path / "t.jsonl", [{"db_id": "uk", "query": "SELECT 1", "prediction": "[[1]]"}])
    result = run(tests, "--task", "qa")
    assert result.exit_code == 2
    assert "the tests run SQL: give the databases with --db ROOT" in result.stderr


def test_failing_target_is_a_test_error(tmp_path, databases):
    """A target that fails is an error of the test: reported, left out of the means, exit 2,
    and the report is still written."""
    tests = write_jsonl(tmp_path / "t.jsonl", [
        {"id": "ok", "db_id": "uk", "query": "SELECT name FROM country", "prediction": "SELECT name FROM country"},
        {"id": "broken", "db_id": "uk", "query": "SELECT nope FROM country", "prediction": "SELECT 1"},
        {"id": "nowhere", "db_id": "mars", "query": "SELECT 1", "prediction": "SELECT 1"},
    ])
    report = tmp_path / "report.json"
    result = run(tests, "--task", "sp", "--db", databases, "--json", report, "--metrics", "cell_recall")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{tests}:2: test broken: the target query failed: no such column: nope",
        f"{tests}:3: test nowhere: the target query failed: no database 'mars' "
        f"(expected {str(databases / 'mars' / 'mars.sqlite')!r})",
        "2 tests could not be evaluated (target failed)",
    ]
    document = json.loads(report.read_text())
    assert document["summary"] == {
        "tests": 3, "evaluated": 1, "errors": 2, "prediction_errors": 0, "means": {"cell_recall": 1.0},
    }
    assert document["tests"][1]["metrics"] == {"cell_recall": None}


def test_runaway_prediction_is_stopped(tmp_path, databases):
    """A predicted query without end is stopped at --timeout and scores 0."""
    tests = write_jsonl(tmp_path / "t.jsonl", [{"db_id": "uk", "query": "SELECT 1", "prediction": RUNAWAY}])
    result = run(tests, "--task", "sp", "--db", databases, "--timeout", "0.2", "--json", "-")
    assert result.exit_code == 0, result.output
    test = json.loads(result.stdout)["tests"][0]
    assert test["prediction_error"] == "the prediction query failed: the query ran past the time limit of 0.2 s"
    assert set(test["metrics"].values()) == {0.0, None}


def test_jobs_give_the_same_report(databases, tmp_path):
    """--jobs 2 writes the same report as one process."""
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    for path, jobs in ((one, "1"), (two, "2")):
        result = run(EXAMPLES / "sp-tests.jsonl", "--task", "sp", "--db", databases, "--json", path, "-j", jobs)
        assert result.exit_code == 0, result.output
    assert one.read_bytes() == two.read_bytes()


def test_workbook_keeps_text_as_text(tmp_path):
    """The Excel report stores ids and predictions that look like formulas as text."""
    import openpyxl

    tests = write_jsonl(tmp_path / "t.jsonl", [
        {"id": "=1+1", "query": [["a"]], "prediction": '=HYPERLINK("http://x", "y")'},
        {"id": "two", "query": [["a"]], "prediction": [["a"], ["b"]]},
    ])
    book_path = tmp_path / "report.xlsx"
    result = run(tests, "--task", "qa", "--xlsx", book_path, "--metrics", "cell_precision")
    assert result.exit_code == 0, result.output
    book = openpyxl.load_workbook(book_path)
    sheet = book["Tests"]
    assert [cell.value for cell in sheet[1]] == [
        "id", "line", "db_id", "cell_precision", "prediction_error", "error", "target", "prediction",
    ]
    assert sheet["A2"].value == "=1+1" and sheet["A2"].data_type == "s"
    assert sheet["H2"].value == '=HYPERLINK("http://x", "y")' and sheet["H2"].data_type == "s"
    assert [sheet["D2"].value, sheet["D3"].value] == [0, 0.5]
    assert sheet["H3"].value == '[["a"], ["b"]]'
    summary = {row[0].value: row[1].value for row in book["Summary"].iter_rows(min_row=2)}
    assert summary["mean cell_precision"] == 0.25 and summary["tests"] == 2
    assert summary["signature"].startswith("task:qa|")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--metrics", "bleu"], "unknown metric 'bleu'"),
        (["--xlsx", "-"], "--xlsx needs a file name"),
    ],
)
def test_bad_options(tmp_path, args, message):
    """Bad options are trouble (exit 2) with a message saying what is wrong."""
    tests = write_jsonl(tmp_path / "t.jsonl", [{"query": [["a"]], "prediction": [["a"]]}])
    result = run(tests, "--task", "qa", *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_evaluate_test_errors(databases):
    """evaluate_test separates errors of the test from failing predictions."""
    dbs = Databases(databases)
    outcome = evaluate_test("[1, 2]", [["a"]], task="qa", metrics=["cell_recall"])
    assert outcome.error == "the target is not a table (a list of rows)"
    outcome = evaluate_test("SELECT 1", [["a"]], task="qa", metrics=["cell_recall"])
    assert outcome.error == "the target is a query, but no databases are given"
    outcome = evaluate_test("SELECT 1", "SELECT 1", task="sp", databases=dbs, metrics=["cell_recall"])
    assert outcome.error == "the target is a query, but the test has no db_id"
    outcome = evaluate_test("SELECT 1", None, task="sp", db_id="uk", databases=dbs, metrics=["cell_recall"])
    assert outcome.prediction_error == "the prediction query is missing (not SQL text)"
    assert outcome.scores == {"cell_recall": 0.0}
    with pytest.raises(ValueError, match="unknown task 'xx'"):
        evaluate_test("SELECT 1", "SELECT 1", task="xx")


@pytest.mark.parametrize(
    "module",
    ["answerkey.metrics", "answerkey.metrics.table", "answerkey.metrics.cells", "answerkey.adapters.sql",
     "answerkey.qatch.run", "answerkey.compat.qatch"],
)
def test_docstring_examples(module):
    """The examples in the docstrings of the QATCH modules run as shown."""
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
