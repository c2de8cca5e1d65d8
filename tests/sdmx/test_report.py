"""SDMX reports: the methodology's detail block, the JSON/YAML document (valid against
`answerkey schema sdmx-report`), the summary table and the workbook spec as written by the
one Excel writer (issue #5, Reports; methodology "Excel Report"; issue 15 defects 9 and 12)."""

import json
import math

import openpyxl
import pytest
import yaml

from answerkey.cli.schema import json_schema
from answerkey.errors import RunWarning
from answerkey.report import ReportPaths, write_reports
from answerkey.sdmx import NOT_IN_TARGET, SdmxReport, evaluate_case, run_sdmx, suite_document, to_json, to_yaml
from answerkey.sdmx.report import OVERVIEW_HEADERS, STATISTICS_HEADERS, details_text, not_in_target_text

KEY = ("IMF.RES:WEO", "INDICATOR")
GDP = ("GDP", "gross domestic product")
GDPPC = ("GDPPC", "GDP per capita")
GDP_CONST = ("GDP_CONST", "gross domestic product constant prices")


def test_details_cell_follows_the_methodology_block():
    """The methodology example, with a DATASET / DIMENSION header line above each block."""
    result = evaluate_case({KEY: [GDP, GDPPC]}, {KEY: [GDP, GDPPC, GDP_CONST]})
    assert details_text(result) == (
        "IMF.RES:WEO / INDICATOR\n"
        "[recall: 1.00, precision: 0.67]\n"
        "True Positives [2]\n"
        "  * GDP: gross domestic product\n"
        "  * GDPPC: GDP per capita\n"
        "False Negatives [0]\n"
        "False Positives [1]\n"
        "  * GDP_CONST: gross domestic product constant prices"
    )


def test_blocks_are_separated_and_nan_is_written_na():
    """Several dimensions give blank-line separated blocks; an undefined figure reads n/a."""
    country = ("IMF.RES:WEO", "COUNTRY")
    result = evaluate_case({KEY: [GDP], country: [("MEX", "Mexico")]}, {KEY: [GDP], ("X", "FREQ"): [("A", "Annual")]})
    assert details_text(result).split("\n\n")[1] == (
        "IMF.RES:WEO / COUNTRY\n[recall: 0.00, precision: n/a]\nTrue Positives [0]\n"
        "False Negatives [1]\n  * MEX: Mexico\nFalse Positives [0]"
    )
    assert not_in_target_text(result) == "X / FREQ\nFalse Positives [1]\n  * A: Annual"


def small_suite(not_in_target="listed"):
    def dataset(*terms):
        return [
            {
                "dataset_id": KEY[0],
                "dimensions": [{"dimension_name": KEY[1], "values": [{"id": i, "name": n} for i, n in terms]}],
            }
        ]

    cases = [
        {
            "id": '=HYPERLINK("http://x")',
            "name": "+cmd",
            "tags": ["weo", "@risk"],
            "conversation": [
                {"role": "user", "content": "-2+3", "target": {"indicator_selection": dataset(GDP, GDPPC)}}
            ],
        },
        {"id": "empty", "tags": ["weo"], "conversation": [{"role": "user", "content": "hi"}]},
    ]
    records = [
        {"id": cases[0]["id"], "indicator_selection": dataset(GDP, GDPPC, GDP_CONST)},
        {
            "id": "empty",
            "indicator_selection": [
                {"dataset_id": "ds2", "dimensions": [{"dimension_name": "d", "values": [{"id": "=1+1", "name": "x"}]}]}
            ],
        },
        {"id": "unknown", "indicator_selection": []},
    ]
    return run_sdmx(cases, records, not_in_target=not_in_target)


def test_json_document_shape_and_nan_as_null():
    """The document has signature, summary (with by_tag), per-case dimensions and warnings; NaN becomes null."""
    document = json.loads(to_json(small_suite()))
    assert list(document) == ["signature", "summary", "cases", "warnings"]
    assert document["signature"].startswith("match:id+name|not_in_target:listed|v:")
    assert document["summary"] == {
        "cases": 2,
        "macro_recall": 1.0,
        "macro_precision": 2 / 3,
        "by_tag": {
            "@risk": {"cases": 1, "macro_recall": 1.0, "macro_precision": 2 / 3},
            "weo": {"cases": 2, "macro_recall": 1.0, "macro_precision": 2 / 3},
        },
    }
    first, empty = document["cases"]
    assert list(first) == [
        "id",
        "name",
        "query",
        "tags",
        "macro_recall",
        "macro_precision",
        "dimensions",
        "dimensions_not_in_target",
    ]
    assert (first["id"], first["name"], first["query"], first["tags"]) == (
        '=HYPERLINK("http://x")',
        "+cmd",
        "-2+3",
        ["weo", "@risk"],
    )
    assert first["dimensions"] == [
        {
            "dataset_id": "IMF.RES:WEO",
            "dimension_name": "INDICATOR",
            "recall": 1.0,
            "precision": 2 / 3,
            "true_positives": [{"id": "GDP", "name": GDP[1]}, {"id": "GDPPC", "name": GDPPC[1]}],
            "false_negatives": [],
            "false_positives": [{"id": "GDP_CONST", "name": GDP_CONST[1]}],
        }
    ]
    assert (empty["macro_recall"], empty["macro_precision"], empty["dimensions"]) == (None, None, [])
    assert empty["dimensions_not_in_target"] == [
        {
            "dataset_id": "ds2",
            "dimension_name": "d",
            "precision": None,
            "false_positives": [{"id": "=1+1", "name": "x"}],
        }
    ]
    assert document["warnings"] == ["selection for unknown case 'unknown'"]


def test_document_validates_against_the_report_schema():
    """The document is valid for `answerkey schema sdmx-report` and for the SdmxReport model."""
    jsonschema = pytest.importorskip("jsonschema")
    document = suite_document(small_suite())
    jsonschema.validate(document, json_schema("sdmx-report"))
    assert SdmxReport.model_validate(document).summary.by_tag["weo"].cases == 2
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**document, "extra": 1}, json_schema("sdmx-report"))


def test_scored_reading_in_the_document():
    """Under "scored" a dimension not in the target reports precision 0 and counts in the case's and
    the suite's macro precision; the signature names the reading; the document is still valid."""
    document = to_json(small_suite("scored"))
    parsed = json.loads(document)
    assert parsed["signature"].startswith("match:id+name|not_in_target:scored|v:")
    assert parsed["summary"] == {
        "cases": 2,
        "macro_recall": 1.0,
        "macro_precision": 1 / 3,
        "by_tag": {
            "@risk": {"cases": 1, "macro_recall": 1.0, "macro_precision": 2 / 3},
            "weo": {"cases": 2, "macro_recall": 1.0, "macro_precision": 1 / 3},
        },
    }
    first, empty = parsed["cases"]
    assert (first["macro_recall"], first["macro_precision"]) == (1.0, 2 / 3)
    assert (empty["macro_recall"], empty["macro_precision"], empty["dimensions"]) == (None, 0.0, [])
    assert empty["dimensions_not_in_target"] == [
        {"dataset_id": "ds2", "dimension_name": "d", "precision": 0.0, "false_positives": [{"id": "=1+1", "name": "x"}]}
    ]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(parsed, json_schema("sdmx-report"))


def test_scored_reading_in_the_table_and_the_workbook():
    """Under "scored" the table and Statistics show the lower precision and the signature; the
    not-in-target cell holds the whole block with precision 0.00; a note states each reading."""
    suite = small_suite("scored")
    lines = suite.summary_table().splitlines()
    assert lines[1] == "(all)      2        1.0000           0.3333"
    assert lines[4].startswith("signature: match:id+name|not_in_target:scored|v:")
    book = suite.workbook()
    assert book.overview.rows[1][4:8] == [
        None,
        0.0,
        None,
        "ds2 / d\n[recall: n/a, precision: 0.00]\nTrue Positives [0]\nFalse Negatives [0]\n"
        "False Positives [1]\n  * =1+1: x",
    ]
    assert book.statistics.rows[0] == ["(all)", 2, 1.0, 1 / 3]
    assert book.statistics.notes[1] == ("Dimensions not in target", NOT_IN_TARGET["scored"])
    assert small_suite().workbook().statistics.notes[1] == ("Dimensions not in target", NOT_IN_TARGET["listed"])
    assert NOT_IN_TARGET["scored"].startswith("scored: precision 0 each (all their terms are false positives)")
    assert NOT_IN_TARGET["listed"].startswith("listed: listed apart with their false positives, left out of")


def test_yaml_matches_json():
    """The YAML report holds the same document as the JSON one."""
    suite = small_suite()
    assert yaml.safe_load(to_yaml(suite)) == json.loads(to_json(suite)) == suite_document(suite) == suite.document()


def test_summary_table_with_signature():
    """The table lists all cases then each tag with two decimals, "-" for undefined, then the signature."""
    lines = small_suite().summary_table().splitlines()
    assert lines[:4] == [
        "tag    cases  macro recall  macro precision",
        "(all)      2        1.0000           0.6667",
        "@risk      1        1.0000           0.6667",
        "weo        2        1.0000           0.6667",
    ]
    assert lines[4].startswith("signature: match:id+name|not_in_target:listed|v:")
    empty = run_sdmx([{"id": "a"}], []).summary_table().splitlines()
    assert empty[1] == "(all)      1             -                -"


def test_workbook_spec():
    """Overview: one row per case in the methodology's columns; Statistics: the Data Query Metrics rows."""
    book = small_suite().workbook()
    assert book.overview.header == list(OVERVIEW_HEADERS)
    assert [column.format for column in book.overview.columns] == ["text"] * 4 + ["ratio"] * 2 + ["text"] * 2
    assert book.overview.rows[1] == [
        "empty",
        None,
        "hi",
        "weo",
        None,
        None,
        None,
        "ds2 / d\nFalse Positives [1]\n  * =1+1: x",
    ]
    assert book.statistics.header == list(STATISTICS_HEADERS)
    assert book.statistics.rows == [["(all)", 2, 1.0, 2 / 3], ["@risk", 1, 1.0, 2 / 3], ["weo", 2, 1.0, 2 / 3]]
    [chart] = book.statistics.charts
    assert (chart.values, chart.first, chart.last) == ((2, 3), 1, 2)
    assert book.statistics.notes[0][0] == "Data Query Metrics"
    assert book.task_sheets == []


def test_workbook_cells(tmp_path):
    """Reopened with openpyxl: Overview, Statistics and Warnings; text never a formula; NaN empty;
    frozen header, filter and ratio formats; the chart of recall and precision per tag."""
    path = tmp_path / "report.xlsx"
    suite = small_suite()
    write_reports(suite, ReportPaths(xlsx=str(path)), quiet=True)
    workbook = openpyxl.load_workbook(path)
    assert workbook.sheetnames == ["Overview", "Statistics", "Warnings"]
    overview = workbook["Overview"]
    rows = list(overview.iter_rows(values_only=True))
    assert rows[0] == OVERVIEW_HEADERS
    assert rows[1][:6] == ('=HYPERLINK("http://x")', "+cmd", "-2+3", "weo, @risk", 1.0, 2 / 3)
    assert rows[1][6].startswith("IMF.RES:WEO / INDICATOR\n[recall: 1.00, precision: 0.67]\n")
    assert rows[2][4:8] == (None, None, None, "ds2 / d\nFalse Positives [1]\n  * =1+1: x")
    assert all(cell.data_type == "s" for cell in overview[2][:4])
    assert overview["G2"].alignment.wrap_text
    assert overview.freeze_panes == "A2"
    assert overview.auto_filter.ref == "A1:H3"
    assert overview.column_dimensions["G"].width >= 60
    assert overview["E2"].number_format == overview["F2"].number_format == "0.0000"

    statistics = workbook["Statistics"]
    table = list(statistics.iter_rows(values_only=True))
    assert table[:4] == [STATISTICS_HEADERS, ("(all)", 2, 1.0, 2 / 3), ("@risk", 1, 1.0, 2 / 3), ("weo", 2, 1.0, 2 / 3)]
    notes = {row[0]: row[1] for row in table[4:] if row[0] is not None}
    assert "Data Query Metrics" in notes
    assert notes["signature"] == str(suite.signature)
    assert statistics.freeze_panes == "A2" and statistics.auto_filter.ref == "A1:D4"
    assert statistics["C2"].number_format == "0.0000"
    [chart] = statistics._charts
    assert [s.val.numRef.f for s in chart.series] == ["'Statistics'!$C$3:$C$4", "'Statistics'!$D$3:$D$4"]

    warnings = list(workbook["Warnings"].iter_rows(values_only=True))
    assert warnings == [("warning",), ("selection for unknown case 'unknown'",)]


def test_workbook_without_tags_charts_the_overall_row(tmp_path):
    """With no tags the chart shows the overall figures instead of nothing; undefined figures are empty."""
    suite = run_sdmx([{"id": "a"}], [])
    assert math.isnan(suite.summary.macro_recall)
    path = tmp_path / "r.xlsx"
    write_reports(suite, ReportPaths(xlsx=str(path)), quiet=True)
    statistics = openpyxl.load_workbook(path)["Statistics"]
    assert statistics["A2"].value == "(all)" and statistics["C2"].value is None
    [chart] = statistics._charts
    assert chart.series[0].val.numRef.f == "'Statistics'!$C$2"


def test_warnings_reach_json_and_workbook(tmp_path):
    """Every warning of the run is in the JSON report and on the Warnings sheet."""
    suite = small_suite()
    extra = RunWarning("cases/pipe.yaml: skipped, not a regular file (a FIFO)", "skipped-file")
    suite = type(suite)(suite.cases, suite.summary, suite.by_tag, suite.signature, (extra, *suite.warnings))
    paths = ReportPaths(json=str(tmp_path / "r.json"), xlsx=str(tmp_path / "r.xlsx"))
    write_reports(suite, paths, quiet=True)
    expected = [str(extra), "selection for unknown case 'unknown'"]
    assert json.loads((tmp_path / "r.json").read_text())["warnings"] == expected
    sheet = openpyxl.load_workbook(tmp_path / "r.xlsx")["Warnings"]
    assert [row[0] for row in sheet.iter_rows(min_row=2, values_only=True)] == expected
