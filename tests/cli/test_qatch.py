"""`answerkey qatch`: QA and SP runs over tests files, reports, errors and exit codes."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import jsonschema
import openpyxl
import pytest
import yaml
from click.testing import CliRunner

from answerkey.cli import cli
from answerkey.cli.schema import json_schema

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "qatch"
RUNAWAY = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
SIGNATURE = "task:sp|eps:0.0001|strings:exact|timeout:30|max_rows:1000000|max_result_bytes:67108864|v:"


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
    """The SP example: per-test scores, means, the signature, a report that fits its schema; a
    predicted DROP TABLE scores 0 and leaves the database byte-identical."""
    database = databases / "uk" / "uk.sqlite"
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    report = tmp_path / "report.json"
    result = run(EXAMPLES / "sp-tests.jsonl", "--task", "sp", "--db", databases, "--json", report)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:9] == [
        "metric                mean  tests",
        "cell_precision      0.6429      7",
        "cell_recall         0.6429      7",
        "tuple_cardinality   0.6429      7",
        "tuple_constraint    0.5000      7",
        "tuple_order         0.0000      1",
        "execution_accuracy  0.4286      7",
        "",
        "7 tests: 7 evaluated, 2 prediction errors (scored 0), 0 test errors",
    ]
    assert lines[9].startswith(f"signature: {SIGNATURE}")
    # Under the summary: each mean with its interval, then the tests below 1 and why.
    assert lines[10:13] == [
        "",
        "mean cell_precision 0.6429, 95% CI [0.2905, 0.9952] (standard error, 7 items)",
        "mean cell_recall 0.6429, 95% CI [0.2905, 0.9952] (standard error, 7 items)",
    ]
    assert lines[16:] == [
        "mean execution_accuracy 0.4286, 95% CI [0.0326, 0.8245] (standard error, 7 items)",
        "failing: 5 of 7 tests",
        "  largest-first    below 1: tuple_order 0.0000",
        "  scottish-cities  below 1: cell_precision 0.5000, tuple_constraint 0.0000, execution_accuracy 0.0000",
        # A line is cut at 120 characters.
        "  big-cities       below 1: cell_recall 0.5000, tuple_cardinality 0.5000, tuple_constraint 0.5000, "
        "execution_accuracy 0…",
        "  vandal           prediction: the prediction query failed: not authorized",
        "  typo             prediction: the prediction query failed: no such column: nme",
    ]
    assert result.stderr == ""
    document = json.loads(report.read_text())
    assert document["signature"].startswith(SIGNATURE)
    tests = {test["id"]: test for test in document["tests"]}
    assert tests["largest-first"]["metrics"]["tuple_order"] == 0.0
    assert tests["capitals"]["metrics"]["tuple_order"] is None
    assert tests["mean-population"]["metrics"]["cell_recall"] == 1.0  # within epsilon
    assert tests["scottish-cities"]["metrics"]["cell_precision"] == 0.5
    assert tests["vandal"]["prediction_error"] == "the prediction query failed: not authorized"
    assert tests["typo"]["prediction_error"] == "the prediction query failed: no such column: nme"
    assert tests["vandal"]["line"] == 6 and tests["vandal"]["db_id"] == "uk"
    assert document["summary"] == {
        "tests": 7,
        "evaluated": 7,
        "errors": 0,
        "prediction_errors": 2,
        "means": {
            "cell_precision": 4.5 / 7,
            "cell_recall": 4.5 / 7,
            "tuple_cardinality": 4.5 / 7,
            "tuple_constraint": 3.5 / 7,
            "tuple_order": 0.0,
            "execution_accuracy": 3 / 7,
        },
        "counts": {
            "cell_precision": 7,
            "cell_recall": 7,
            "tuple_cardinality": 7,
            "tuple_constraint": 7,
            "tuple_order": 1,
            "execution_accuracy": 7,
        },
    }
    assert document["warnings"] == []
    jsonschema.validate(document, json_schema("qatch-report"))
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
    assert result.stdout.splitlines()[:6] == [
        "metric            mean  tests",
        "cell_precision  0.6250      4",
        "cell_recall     0.7500      4",
        "tuple_order     0.4750      4",
        "",
        "4 tests: 4 evaluated, 1 prediction error (scored 0), 0 test errors",
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
    result = run(
        tests,
        "--task",
        "qa",
        "--db",
        databases,
        "--target-col",
        "gold",
        "--prediction-col",
        "answer",
        "--json",
        "-",
        "--metrics",
        "tuple_order,cell_recall",
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert [test["metrics"] for test in document["tests"]] == [
        {"tuple_order": 1.0, "cell_recall": 1.0},
        {"tuple_order": None, "cell_recall": 0.5},
    ]
    assert [test["id"] for test in document["tests"]] == ["1", "2"]
    assert [test["line"] for test in document["tests"]] == [1, 4]


def test_yaml_report_is_the_json_document(databases, tmp_path):
    """--yaml writes the same document as --json."""
    json_path, yaml_path = tmp_path / "r.json", tmp_path / "r.yaml"
    result = run(
        EXAMPLES / "sp-tests.jsonl", "--task", "sp", "--db", databases, "--json", json_path, "--yaml", yaml_path
    )
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(yaml_path.read_text()) == json.loads(json_path.read_text())


def test_bad_rows_are_listed_and_nothing_is_scored(tmp_path, databases):
    """Every bad row is reported as FILE:LINE:COL: message, exit 2, no report written."""
    tests = tmp_path / "tests.jsonl"
    tests.write_text(
        '{"id": "a", "db_id": "uk", "query": "SELECT 1", "prediction": "SELECT 1"}\n'
        '{"id": "a", "db_id": "uk", "query": "SELECT 1", "prediction": "SELECT 1"}\n'
        '{"id": "b", "db_id": "uk", "prediction": "SELECT 1"}\n'
        '{"id": "c", "query": "SELECT 1", "prediction": "SELECT 1"}\n'
        '{"id": "d", "db_id": "uk", "query": "SELECT 1"}\n'
        '{"id": "e", oops}\n'
        "[1, 2]\n",
        encoding="utf-8",
    )
    report = tmp_path / "report.json"
    result = run(tests, "--task", "sp", "--db", databases, "--json", report)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{tests}:2:2: duplicate id 'a' (first on line 1)",
        f"{tests}:3:1: missing target column 'query'",
        f"{tests}:4:1: missing db_id (the target is an SQL query)",
        f"{tests}:5:1: missing prediction column 'prediction'",
        f"{tests}:6:13: invalid JSON: Expecting property name enclosed in double quotes",
        f"{tests}:7:1: a test is a mapping of columns, not a list",
        "6 errors in input",
    ]
    assert not report.exists()


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("t.yaml", '- query: [[a]]\n  prediction: "\x01"\n', "2:16: character U+0001 is not allowed in YAML"),
        ("t.yaml", "query: [[a]]\n", "1:1: a tests file is a list of tests (mappings), not a mapping"),
        ("t.csv", 'query,prediction\n"[[1]]","[[1]]",extra\n', "2: the row has 3 cells but the header has 2 columns"),
        ("t.csv", 'id,query,prediction\nshort,"[[1]]"\n', "2: the row has 2 cells but the header has 3 columns"),
        ("t.jsonl", "", ": no tests in this file (an empty input is refused)"),
        ("t.csv", "id,query,prediction\n", ": no tests in this file (an empty input is refused)"),
    ],
)
def test_bad_files(tmp_path, name, content, message):
    """Unreadable files and rows are one located input error (exit 2, one line), not a
    traceback; a CSV row short of cells is an error at its line, not a scored test."""
    tests = tmp_path / name
    tests.write_text(content, encoding="utf-8")
    result = run(tests, "--task", "qa")
    assert result.exit_code == 2
    assert result.stderr == f"{tests}{'' if message.startswith(':') else ':'}{message}\n"
    assert result.stdout == ""


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("task", ["qa", "sp"])
@pytest.mark.parametrize("where", ["id", "query", "prediction"])
@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".yaml"])
def test_lone_surrogates_exit_2_with_one_located_line(tmp_path, databases, jobs, task, where, suffix):
    """A lone surrogate escaped in an id, a target or a prediction is refused at load: exit 2,
    one FILE:LINE:COL line, no traceback and no report (issue 19, item 1)."""
    rows = [
        {"id": "ok", "db_id": "uk", "query": "SELECT name FROM country", "prediction": "SELECT name FROM country"},
        {"id": "t2", "db_id": "uk", "query": "SELECT name FROM country", "prediction": "SELECT name FROM country"},
    ]
    rows[1][where] = "SELECT '\ud800'"
    texts = [json.dumps(row) for row in rows]
    if suffix == ".jsonl":
        text, line = "\n".join(texts) + "\n", 2
    elif suffix == ".json":
        text, line = "[\n" + ",\n".join(texts) + "\n]\n", 3
    else:
        text, line = (
            "".join("- " + "\n  ".join(f"{k}: {json.dumps(v)}" for k, v in row.items()) + "\n" for row in rows),
            5 + ["id", "db_id", "query", "prediction"].index(where),
        )
    tests = tmp_path / f"tests{suffix}"
    tests.write_text(text, encoding="utf-8")
    escape = text.splitlines()[line - 1].index("\\ud800") + 1
    report = tmp_path / "report.json"
    result = run(
        tests, "--task", task, "--db", databases, "--jobs", jobs, "--json", report, "--xlsx", tmp_path / "report.xlsx"
    )
    assert result.exit_code == 2
    [printed] = result.stderr.splitlines()
    location, message = printed.removeprefix(f"{tests}:").split(": ", 1)
    assert location.split(":")[0] == str(line)
    assert escape <= int(location.split(":")[1]) < escape + len("\\ud800")  # the YAML parser points into it
    assert "surrogate" in message
    assert not report.exists()


def test_sql_without_databases_is_trouble(tmp_path):
    """Tests that run SQL need --db."""
    tests = write_jsonl(tmp_path / "t.jsonl", [{"db_id": "uk", "query": "SELECT 1", "prediction": "[[1]]"}])
    result = run(tests, "--task", "qa")
    assert result.exit_code == 2
    assert result.stderr == "the tests run SQL: give the databases with --db ROOT (ROOT/<db_id>/<db_id>.sqlite)\n"


def test_failing_target_is_a_test_error(tmp_path, databases):
    """A target that fails is an error of the test: reported, left out of the means, exit 2,
    and the report is still written."""
    tests = write_jsonl(
        tmp_path / "t.jsonl",
        [
            {"id": "ok", "db_id": "uk", "query": "SELECT name FROM country", "prediction": "SELECT name FROM country"},
            {"id": "broken", "db_id": "uk", "query": "SELECT nope FROM country", "prediction": "SELECT 1"},
            {"id": "nowhere", "db_id": "mars", "query": "SELECT 1", "prediction": "SELECT 1"},
        ],
    )
    report = tmp_path / "report.json"
    result = run(tests, "--task", "sp", "--db", databases, "--json", report, "--metrics", "cell_recall")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{tests}:2: test broken: the target query failed: no such column: nope",
        f"{tests}:3: test nowhere: the target query failed: no database 'mars' "
        f"(expected {str(databases / 'mars' / 'mars.sqlite')!r} or {str(databases / 'mars.sqlite')!r})",
        "2 tests could not be evaluated (target failed)",
    ]
    assert "3 tests: 1 evaluated, 0 prediction errors (scored 0), 2 test errors" in result.stdout
    document = json.loads(report.read_text())
    assert document["summary"] == {
        "tests": 3,
        "evaluated": 1,
        "errors": 2,
        "prediction_errors": 0,
        "means": {"cell_recall": 1.0},
        "counts": {"cell_recall": 1},
    }
    assert document["tests"][1]["metrics"] == {"cell_recall": None}


def test_runaway_prediction_is_stopped(tmp_path, databases):
    """A predicted query without end is stopped at --timeout and scores 0 (the gold query,
    under the same limit, has a second to run on a loaded machine)."""
    tests = write_jsonl(tmp_path / "t.jsonl", [{"db_id": "uk", "query": "SELECT 1", "prediction": RUNAWAY}])
    result = run(tests, "--task", "sp", "--db", databases, "--timeout", "1", "--json", "-")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    test = document["tests"][0]
    assert test["prediction_error"] == "the prediction query failed: the query ran past the time limit of 1 s"
    assert set(test["metrics"].values()) == {0.0, None}
    assert "|timeout:1|" in document["signature"]


def test_limits_reach_the_signature(tmp_path, databases):
    """--max-rows and --max-result-bytes are in the signature; a result over --max-rows
    scores 0 with the reason."""
    tests = write_jsonl(
        tmp_path / "t.jsonl",
        [
            {"db_id": "uk", "query": "SELECT name FROM country", "prediction": "SELECT name FROM city"},
        ],
    )
    result = run(
        tests,
        "--task",
        "sp",
        "--db",
        databases,
        "--max-rows",
        "2",
        "--max-result-bytes",
        "5000",
        "--json",
        "-",
        "--metrics",
        "cell_recall",
    )
    assert result.exit_code == 2, result.output  # the target has 4 rows: over the limit too
    document = json.loads(result.stdout)
    assert "|max_rows:2|max_result_bytes:5000|" in document["signature"]
    assert document["tests"][0]["error"] == "the target query failed: the query returned more than 2 rows"


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "0", "-1", "soon"])
def test_timeout_must_be_a_finite_positive_number(tmp_path, value):
    """--timeout nan, inf or 0 is a usage error (exit 2), not a run without limit (issue 15, defect 1)."""
    tests = write_jsonl(tmp_path / "t.jsonl", [{"query": [["a"]], "prediction": [["a"]]}])
    result = run(tests, "--task", "qa", "--timeout", value)
    assert result.exit_code == 2
    assert "Invalid value for '--timeout'" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("option", ["--json", "--yaml", "--xlsx"])
def test_a_report_never_overwrites_the_tests(tmp_path, option):
    """A report path that is the TESTS file is refused before anything runs (issue 19, item 7)."""
    tests = write_jsonl(tmp_path / "t.jsonl", [{"query": [["a"]], "prediction": [["a"]]}])
    before = tests.read_bytes()
    result = run(tests, "--task", "qa", option, tests)
    assert result.exit_code == 2
    assert result.stderr == f"{option} {tests}: this is the input TESTS; refusing to overwrite it\n"
    assert tests.read_bytes() == before


def test_jobs_give_the_same_report(databases, tmp_path):
    """--jobs 2 writes the same report as one process."""
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    for path, jobs in ((one, "1"), (two, "2")):
        result = run(EXAMPLES / "sp-tests.jsonl", "--task", "sp", "--db", databases, "--json", path, "-j", jobs)
        assert result.exit_code == 0, result.output
    assert one.read_bytes() == two.read_bytes()


def test_workbook(tmp_path):
    """--xlsx writes Overview, Statistics and Warnings; ids and predictions that look like
    formulas stay text."""
    tests = write_jsonl(
        tmp_path / "t.jsonl",
        [
            {"id": "=1+1", "query": [["a"]], "prediction": '=HYPERLINK("http://x", "y")'},
            {"id": "two", "query": [["a"]], "prediction": [["a"], ["b"]]},
        ],
    )
    book_path = tmp_path / "report.xlsx"
    result = run(tests, "--task", "qa", "--xlsx", book_path, "--metrics", "cell_precision")
    assert result.exit_code == 0, result.output
    book = openpyxl.load_workbook(book_path)
    assert book.sheetnames == ["Overview", "Statistics", "Warnings"]
    sheet = book["Overview"]
    assert [cell.value for cell in sheet[1]] == [
        "id",
        "line",
        "db_id",
        "cell_precision",
        "prediction_error",
        "error",
        "target",
        "prediction",
    ]
    assert sheet["A2"].value == "=1+1" and sheet["A2"].data_type == "s"
    assert sheet["H2"].value == '=HYPERLINK("http://x", "y")' and sheet["H2"].data_type == "s"
    assert [sheet["D2"].value, sheet["D3"].value] == [0, 0.5]
    assert sheet["H3"].value == '[["a"], ["b"]]'
    assert [cell.value for cell in book["Statistics"][2]] == ["cell_precision", 0.25, 2]


def test_quiet_prints_nothing_on_success(databases):
    """-q: no summary on stdout, nothing on stderr, exit 0."""
    result = run(EXAMPLES / "sp-tests.jsonl", "--task", "sp", "--db", databases, "-q")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--metrics", "bleu"], "unknown metric 'bleu'; known: cell_precision, cell_recall"),
        (["--metrics", "none"], "unknown metric 'none'"),
        (["--xlsx", "-"], "--xlsx needs a file name: a workbook cannot go to standard output"),
        (["--json", "-", "--yaml", "-"], "only one of --json and --yaml can write to standard output ('-')"),
        (["--format", "xml"], "Invalid value for '--format'"),
        (["--max-rows", "0"], "Invalid value for '--max-rows'"),
        (["--max-result-bytes", "0"], "Invalid value for '--max-result-bytes'"),
        (["--ves-runs", "0"], "Invalid value for '--ves-runs'"),
        (
            ["--metrics", "cell_recall,valid_efficiency_score"],
            "valid_efficiency_score applies only to --task sp: it times the target and predicted SQL queries",
        ),
    ],
)
def test_bad_options(tmp_path, args, message):
    """Bad options are trouble (exit 2) with a message saying what is wrong."""
    tests = write_jsonl(tmp_path / "t.jsonl", [{"query": [["a"]], "prediction": [["a"]]}])
    result = run(tests, "--task", "qa", *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_help_teaches_with_examples():
    """--help describes the tests file and the metrics and shows runnable examples."""
    result = run("--help")
    assert result.exit_code == 0
    assert "answerkey qatch examples/qatch/sp-tests.jsonl --task sp --db examples/qatch/databases" in result.stdout
    for option in (
        "--target-col",
        "--prediction-col",
        "--max-result-bytes",
        "--yaml",
        "--jobs",
        "--format",
        "--ves-runs",
    ):
        assert option in result.stdout


def test_tests_from_standard_input():
    """TESTS '-' reads standard input (format sniffed, task case-insensitive); a test error
    is placed at <stdin>:LINE."""
    text = '{"query": [["a"]], "prediction": [["a"]]}\n{"query": "[1]", "prediction": [["a"]]}\n'
    result = CliRunner().invoke(cli, ["qatch", "-", "--task", "QA", "--metrics", "cell_recall"], input=text)
    assert result.exit_code == 2
    assert result.stdout.splitlines()[:2] == ["metric         mean  tests", "cell_recall  1.0000      1"]
    assert result.stderr.splitlines() == [
        "<stdin>:2: test 2: the target is not a table (a list of rows)",
        "1 test could not be evaluated (target failed)",
    ]


def test_result_byte_limit_scores_the_prediction_zero(tmp_path, databases):
    """A predicted result over --max-result-bytes is stopped and scores 0 with the reason (issue 19, item 4)."""
    tests = write_jsonl(
        tmp_path / "t.jsonl",
        [{"db_id": "uk", "query": "SELECT name FROM country", "prediction": "SELECT * FROM city"}],
    )
    result = run(tests, "--task", "sp", "--db", databases, "--max-result-bytes", "100", "--json", "-")
    assert result.exit_code == 0, result.output
    test = json.loads(result.stdout)["tests"][0]
    assert test["prediction_error"] == (
        "the prediction query failed: the query's result is larger than the limit of 100 bytes "
        "(--max-result-bytes raises it)"
    )
    assert set(test["metrics"].values()) == {0.0, None}


def test_a_long_db_id_is_a_test_error_not_a_traceback(tmp_path, databases):
    """A 300-character db_id fails its test with the reason (exit 2), not with OSError (issue 19, item 2)."""
    tests = write_jsonl(tmp_path / "t.jsonl", [{"db_id": "x" * 300, "query": "SELECT 1", "prediction": "SELECT 1"}])
    result = run(tests, "--task", "sp", "--db", databases, "-q")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{tests}:1: test 1: the target query failed: the db_id is longer than 128 characters (it has 300)",
        "1 test could not be evaluated (target failed)",
    ]


def test_valid_efficiency_score_on_the_sp_example(databases, tmp_path):
    """--metrics ...,valid_efficiency_score: wrong and failing predictions score exactly 0,
    correct ones a measured VES above 0; --ves-runs is in the signature; the report fits
    its schema although a VES may exceed 1. Times are real: only bounds are asserted."""
    report = tmp_path / "report.json"
    result = run(
        EXAMPLES / "sp-tests.jsonl",
        "--task",
        "sp",
        "--db",
        databases,
        "--metrics",
        "execution_accuracy,valid_efficiency_score",
        "--ves-runs",
        "5",
        "--json",
        report,
    )
    assert result.exit_code == 0, result.output
    document = json.loads(report.read_text())
    jsonschema.validate(document, json_schema("qatch-report"))
    assert document["metrics"] == ["execution_accuracy", "valid_efficiency_score"]
    assert document["signature"].startswith(SIGNATURE.replace("|v:", "|ves_runs:5|v:"))
    scores = {test["id"]: test["metrics"] for test in document["tests"]}
    correct = {name for name, metrics in scores.items() if metrics["execution_accuracy"] == 1.0}
    assert correct == {"capitals", "largest-first", "mean-population"}
    for name, metrics in scores.items():
        if name in correct:
            assert 0 < metrics["valid_efficiency_score"] < 1000
        else:
            assert metrics["valid_efficiency_score"] == 0.0
    assert document["summary"]["counts"] == {"execution_accuracy": 7, "valid_efficiency_score": 7}
    assert "valid_efficiency_score  " in result.stdout
    # A VES above 1 (a faster prediction) still fits the report's schema.
    document["tests"][0]["metrics"]["valid_efficiency_score"] = 1.7
    document["summary"]["means"]["valid_efficiency_score"] = 1.2
    jsonschema.validate(document, json_schema("qatch-report"))


def test_all_metrics_are_the_table_metrics(databases, tmp_path):
    """--metrics all (the default) computes the six table metrics: the VES, which times
    queries, is asked for by name."""
    report = tmp_path / "report.json"
    result = run(EXAMPLES / "sp-tests.jsonl", "--task", "sp", "--db", databases, "--metrics", "all", "--json", report)
    assert result.exit_code == 0, result.output
    document = json.loads(report.read_text())
    assert document["metrics"] == [
        "cell_precision",
        "cell_recall",
        "tuple_cardinality",
        "tuple_constraint",
        "tuple_order",
        "execution_accuracy",
    ]
    assert "ves_runs" not in document["signature"]
