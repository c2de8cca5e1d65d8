"""The reports of an SQL run: the JSON document (against its schema), the summary table and the
workbook's sheets."""

from __future__ import annotations

import jsonschema
import openpyxl
import pytest

from answerkey.cli.schema import json_schema
from answerkey.execution.load import SqlInputs, SqlItem
from answerkey.execution.run import SqlOptions, run_sql
from answerkey.report import ReportPaths, json_text, write_reports, yaml_text

DISAGREEMENT = (
    "on 'shop': correct under answerkey and bird; incorrect under test-suite and spider2\n"
    "  answerkey: correct: the tuples match as sets\n"
    "  test-suite: incorrect: the gold has 3 rows, the prediction 2\n"
    "  bird: correct: same set of rows; duplicates ignored (the gold has 3 rows, the prediction 2)\n"
    "  spider2: incorrect: the gold has 3 rows, the prediction 2\n"
    "answerkey's explanation:\n"
    "  correct: the tuples match as sets\n"
    "  mapping: canonical column 1 -> system column 1"
)


@pytest.fixture
def result(databases):
    """A BIRD-layout run under the test-suite semantics with DISTINCT kept (so that the prediction
    adding DISTINCT keeps its duplicate-rows disagreement): correct, a disagreement, wrong, a broken gold."""
    items = [
        SqlItem("same", "shop", "SELECT name FROM item WHERE qty > 3", "SELECT name FROM item WHERE qty > 3", difficulty="simple", tags=("join",)),
        SqlItem("distinct", "shop", "SELECT name FROM item WHERE qty > 3", "SELECT DISTINCT name FROM item WHERE qty > 3", difficulty="simple", tags=("join", "agg")),
        SqlItem("wrong", "other", "SELECT n FROM t", "SELECT n + 1 FROM t", question="Which n?", difficulty="challenging"),
        SqlItem("broken", "other", "SELECT x FROM t", "SELECT n FROM t", difficulty="moderate"),
    ]  # fmt: skip
    options = SqlOptions(
        str(databases), semantics="test-suite", metrics=("cell_recall", "soft_f1"), test_suite_keep_distinct=True
    )
    return run_sql(SqlInputs("bird", "dev.json", "predict_dev.json", items), options)


def test_document_lists_items_in_input_order(result):
    """The document: signature, layout, summary with groups, every item with its verdicts."""
    document = result.document()
    assert document["signature"] == str(result.signature)
    assert document["layout"] == "bird"
    assert document["warnings"] == []
    assert [item["id"] for item in document["items"]] == ["same", "distinct", "wrong", "broken"]
    assert document["suites"] == {"shop": ["shop.sqlite", "shop2.sqlite"]}
    assert document["items"][1] == {
        "id": "distinct",
        "db_id": "shop",
        "verdict": "incorrect",
        "reason": "on 'shop': the gold has 3 rows, the prediction 2",
        "database": "shop.sqlite",
        "databases": 2,
        "verdicts": {"answerkey": "correct", "test-suite": "incorrect", "bird": "correct", "spider2": "incorrect"},
        "disagreement": DISAGREEMENT,
        "gold_matched": None,
        "difficulty": "simple",
        "tags": ["join", "agg"],
        "metrics": {"cell_recall": 1.0, "soft_f1": 1.0},
    }
    assert document["items"][3] == {
        "id": "broken",
        "db_id": "other",
        "verdict": "error",
        "reason": "the gold query failed on 'other': no such column: x",
        "database": "other.sqlite",
        "databases": 1,
        "verdicts": {},
        "disagreement": None,
        "gold_matched": None,
        "difficulty": "moderate",
        "tags": [],
        "metrics": {"cell_recall": None, "soft_f1": None},
    }
    summary = document["summary"]
    assert {key: summary[key] for key in ("semantics", "items", "evaluated", "correct", "incorrect", "errors")} == {
        "semantics": "test-suite",
        "items": 4,
        "evaluated": 3,
        "correct": 1,
        "incorrect": 2,
        "errors": 1,
    }
    assert summary["accuracy"] == 1 / 3
    assert summary["accuracy_by_semantics"] == {
        "answerkey": 2 / 3,
        "test-suite": 1 / 3,
        "bird": 2 / 3,
        "spider2": 1 / 3,
    }
    assert summary["metrics"] == {"cell_recall": 2.5 / 3, "soft_f1": 2 / 3}
    assert summary["disagreements"] == 1
    assert list(summary["by_difficulty"]) == ["simple", "moderate", "challenging"]
    assert summary["by_difficulty"]["moderate"] == {
        "items": 1,
        "evaluated": 0,
        "correct": 0,
        "incorrect": 0,
        "errors": 1,
        "accuracy": None,
        "accuracy_by_semantics": {"answerkey": None, "test-suite": None, "bird": None, "spider2": None},
        "metrics": {"cell_recall": None, "soft_f1": None},
    }
    assert list(summary["by_tag"]) == ["agg", "join"]


def test_document_fits_its_schema_as_json_and_yaml(result):
    """The report validates against `answerkey schema sql-report`, and writes as JSON and YAML."""
    document = result.document()
    jsonschema.validate(document, json_schema("sql-report"))
    assert '"layout": "bird"' in json_text(document)
    assert "layout: bird\n" in yaml_text(document)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**document, "layout": "sparc"}, json_schema("sql-report"))


def test_summary_table(result):
    """Groups with the accuracy under every semantics (headline starred), metric means, the signature, and
    under test-suite the files of each test suite."""
    assert result.summary_table() == (
        "group                   items  evaluated  correct  incorrect  errors  answerkey  test-suite*    bird  spider2\n"
        "all                         4          3        1          2       1     0.6667       0.3333  0.6667   0.3333\n"
        "difficulty simple           2          2        1          1       0     1.0000       0.5000  1.0000   0.5000\n"
        "difficulty moderate         1          0        0          0       1          -            -       -        -\n"
        "difficulty challenging      1          1        0          1       0     0.0000       0.0000  0.0000   0.0000\n"
        "tag agg                     1          1        0          1       0     1.0000       0.0000  1.0000   0.0000\n"
        "tag join                    2          2        1          1       0     1.0000       0.5000  1.0000   0.5000\n"
        "\n"
        "metric         mean\n"
        "cell_recall  0.8333\n"
        "soft_f1      0.6667\n"
        "\n"
        "* headline semantics: execution accuracy 0.3333 under test-suite\n"
        "the semantics disagree on 1 of 4 items (the reports say why)\n"
        f"signature: {result.signature}\n"
        # Under test-suite the files of each suite are named (issue 26, D6).
        "test suite shop: 2 databases: shop.sqlite, shop2.sqlite"
    )


def test_workbook_sheets(result):
    """Overview (one row per item, every semantics' verdict), Statistics (groups, a chart per
    difficulty, notes), Disagreements (the items the semantics disagree on)."""
    workbook = result.workbook()
    overview = workbook.overview
    assert overview.header == [
        "id", "db_id", "verdict", "reason", "database", "question", "gold SQL", "predicted SQL", "difficulty",
        "tags", "answerkey", "test-suite", "bird", "spider2", "disagreement", "cell_recall", "soft_f1",
    ]  # fmt: skip
    assert overview.rows[2] == [
        "wrong", "other", "incorrect", "no permutation of the prediction's columns gives the gold's bag of rows",
        "other.sqlite", "Which n?", "SELECT n FROM t", "SELECT n + 1 FROM t", "challenging", None,
        "incorrect", "incorrect", "incorrect", "incorrect", None, 0.5, 0.0,
    ]  # fmt: skip
    assert overview.rows[3][10:15] == [None] * 5
    assert overview.columns[2].colours["error"] == "FFEB9C"
    statistics = workbook.statistics
    assert statistics.header == [
        "group", "items", "evaluated", "correct", "incorrect", "errors", "accuracy",
        "answerkey", "test-suite", "bird", "spider2", "cell_recall", "soft_f1",
    ]  # fmt: skip
    assert [row[0] for row in statistics.rows] == [
        "all",
        "difficulty simple",
        "difficulty moderate",
        "difficulty challenging",
        "tag agg",
        "tag join",
    ]
    assert statistics.rows[1] == ["difficulty simple", 2, 2, 1, 1, 0, 0.5, 1.0, 0.5, 1.0, 0.5, 1.0, 1.0]
    (chart,) = statistics.charts
    assert (chart.title, chart.values, chart.first, chart.last) == ("Accuracy per difficulty", (6,), 1, 3)
    assert statistics.notes == [("headline semantics", "test-suite"), ("disagreements", 1)]
    (disagreements,) = workbook.task_sheets
    assert disagreements.name == "Disagreements"
    assert disagreements.rows == [["distinct", "shop", "correct", "incorrect", "correct", "incorrect", DISAGREEMENT]]


def test_workbook_renders(result, tmp_path):
    """The spec renders to an .xlsx with the run's sheets (openpyxl reads it back)."""
    path = tmp_path / "report.xlsx"
    write_reports(result, ReportPaths(xlsx=str(path)), quiet=True)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Overview", "Statistics", "Warnings", "Disagreements"]
    assert book["Overview"]["A3"].value == "distinct"
