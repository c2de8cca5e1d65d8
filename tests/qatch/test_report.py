"""answerkey.qatch.report: the JSON document, the summary table and the workbook of a run."""

from __future__ import annotations

import openpyxl
import pytest

from answerkey.cli.schema import json_schema
from answerkey.qatch.run import QatchOptions, QatchTest, run_qatch
from answerkey.report import ReportPaths, write_reports

MALFORMED = 'the prediction is not a table like [["wales", "scotland"], ["england"]]'


@pytest.fixture
def run():
    """A QA run over tables: one right, one half right (its one common row in order), one
    malformed prediction, one broken target."""
    tests = [
        QatchTest("=cmd()", 1, None, [["a"], ["b"]], [["a"], ["b"]]),
        QatchTest("half", 2, "uk", [["a"], ["b"]], '[["b"], ["c"]]'),
        QatchTest("malformed", 3, None, [["a"]], '=HYPERLINK("http://x", "y")'),
        QatchTest("broken", 4, None, "[1]", [["a"]]),
    ]
    return run_qatch(tests, QatchOptions(task="qa", metrics=("cell_recall", "tuple_order")))


def test_document(run):
    """The document holds the signature, the task, the metrics, the summary with means and
    the tests they are over, every test in file order, and the warnings."""
    document = run.document()
    assert document == {
        "signature": str(run.signature),
        "task": "qa",
        "metrics": ["cell_recall", "tuple_order"],
        "summary": {
            "tests": 4,
            "evaluated": 3,
            "errors": 1,
            "prediction_errors": 1,
            "means": {"cell_recall": 0.5, "tuple_order": 2 / 3},
            "counts": {"cell_recall": 3, "tuple_order": 3},
        },
        "tests": [
            {
                "id": "=cmd()",
                "line": 1,
                "db_id": None,
                "metrics": {"cell_recall": 1.0, "tuple_order": 1.0},
                "error": None,
                "prediction_error": None,
            },
            {
                "id": "half",
                "line": 2,
                "db_id": "uk",
                "metrics": {"cell_recall": 0.5, "tuple_order": 1.0},
                "error": None,
                "prediction_error": None,
            },
            {
                "id": "malformed",
                "line": 3,
                "db_id": None,
                "metrics": {"cell_recall": 0.0, "tuple_order": 0.0},
                "error": None,
                "prediction_error": MALFORMED,
            },
            {
                "id": "broken",
                "line": 4,
                "db_id": None,
                "metrics": {"cell_recall": None, "tuple_order": None},
                "error": "the target is not a table (a list of rows)",
                "prediction_error": None,
            },
        ],
        "warnings": [],
    }
    assert document["signature"].startswith(
        "task:qa|eps:0.0001|strings:exact|timeout:30|max_rows:1000000|max_result_bytes:67108864|v:"
    )


def test_document_validates_against_the_schema(run):
    """The report is what `answerkey schema qatch-report` describes."""
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(run.document(), json_schema("qatch-report"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**run.document(), "task": "xx"}, json_schema("qatch-report"))


def test_summary_table(run):
    """Each metric's mean over the tests it applies to, the counts, the signature."""
    assert run.summary_table() == "\n".join(
        [
            "metric         mean  tests",
            "cell_recall  0.5000      3",
            "tuple_order  0.6667      3",
            "",
            "4 tests: 3 evaluated, 1 prediction error (scored 0), 1 test error",
            f"signature: {run.signature}",
        ]
    )


def test_workbook_spec(run):
    """Overview has one row per test; Statistics the means and counts, the run's counts below."""
    book = run.workbook()
    assert book.overview.header == [
        "id",
        "line",
        "db_id",
        "cell_recall",
        "tuple_order",
        "prediction_error",
        "error",
        "target",
        "prediction",
    ]
    assert [column.format for column in book.overview.columns] == [
        "id",
        "integer",
        "text",
        "ratio",
        "ratio",
        "text",
        "text",
        "text",
        "text",
    ]
    assert book.overview.rows[1] == ["half", 2, "uk", 0.5, 1.0, None, None, '[["a"], ["b"]]', '[["b"], ["c"]]']
    assert book.statistics.header == ["metric", "mean", "tests"]
    assert book.statistics.rows == [["cell_recall", 0.5, 3], ["tuple_order", 2 / 3, 3]]
    assert list(book.statistics.notes) == [("tests", 4), ("evaluated", 3), ("prediction errors", 1), ("test errors", 1)]


def test_workbook_file(run, tmp_path):
    """The written workbook has Overview, Statistics and Warnings, each with a frozen header
    and a filter; ratios have three decimals; text that looks like a formula stays text."""
    path = tmp_path / "report.xlsx"
    write_reports(run, ReportPaths(xlsx=str(path)), quiet=True)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Overview", "Statistics", "Warnings"]
    for sheet in book.worksheets:
        assert sheet.freeze_panes == "A2"
    overview = book["Overview"]
    assert overview.auto_filter.ref == "A1:I5"
    assert overview["A2"].value == "=cmd()" and overview["A2"].data_type == "s"
    assert overview["I4"].value == '=HYPERLINK("http://x", "y")' and overview["I4"].data_type == "s"
    assert overview["F4"].value == MALFORMED
    assert [overview["D3"].value, overview["D3"].number_format] == [0.5, "0.0000"]
    assert overview["D5"].value is None and overview["G5"].value == "the target is not a table (a list of rows)"
    statistics = book["Statistics"]
    assert statistics.auto_filter.ref == "A1:C3"
    cells = [[cell.value for cell in row] for row in statistics.iter_rows()]
    assert cells[:3] == [["metric", "mean", "tests"], ["cell_recall", 0.5, 3], ["tuple_order", 2 / 3, 3]]
    assert [row[:2] for row in cells[4:]] == [
        ["tests", 4],
        ["evaluated", 3],
        ["prediction errors", 1],
        ["test errors", 1],
        ["signature", str(run.signature)],
    ]
    assert book["Warnings"]["A1"].value == "warning"
