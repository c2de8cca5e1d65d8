"""SDMX reports: the methodology's detail block, JSON/YAML documents and the Excel workbook
(issue #5, Reports; methodology "Excel Report")."""

import json
import math

import openpyxl
import yaml

from answerkey.sdmx import evaluate, evaluate_case, suite_document, to_json, to_yaml
from answerkey.sdmx.excel import OVERVIEW_HEADERS, write_workbook
from answerkey.sdmx.report import details_text, not_in_target_text

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


def small_suite():
    def dataset(*terms):
        return [{"dataset_id": KEY[0], "dimensions": [
            {"dimension_name": KEY[1], "values": [{"id": i, "name": n} for i, n in terms]}]}]

    cases = [
        {"id": "=HYPERLINK(\"http://x\")", "name": "+cmd", "tags": ["weo", "@risk"],
         "conversation": [{"role": "user", "content": "-2+3", "target": {"indicator_selection": dataset(GDP, GDPPC)}}]},
        {"id": "empty", "tags": ["weo"], "conversation": [{"role": "user", "content": "hi"}]},
    ]
    records = [{"id": cases[0]["id"], "indicator_selection": dataset(GDP, GDPPC, GDP_CONST)},
               {"id": "empty", "indicator_selection": [{"dataset_id": "ds2", "dimensions": [
                   {"dimension_name": "d", "values": [{"id": "=1+1", "name": "x"}]}]}]}]
    return evaluate(cases, records)


def test_json_document_shape_and_nan_as_null():
    """JSON has signature, summary (with by_tag) and per-case dimensions; NaN becomes null."""
    document = json.loads(to_json(small_suite()))
    assert list(document) == ["signature", "summary", "cases"]
    assert document["summary"] == {
        "cases": 2, "macro_recall": 1.0, "macro_precision": 2 / 3,
        "by_tag": {"@risk": {"cases": 1, "macro_recall": 1.0, "macro_precision": 2 / 3},
                   "weo": {"cases": 2, "macro_recall": 1.0, "macro_precision": 2 / 3}},
    }
    first, empty = document["cases"]
    assert first["dimensions"][0]["false_positives"] == [{"id": "GDP_CONST", "name": GDP_CONST[1]}]
    assert first["dimensions"][0]["recall"] == 1.0
    assert (empty["macro_recall"], empty["macro_precision"], empty["dimensions"]) == (None, None, [])
    assert empty["dimensions_not_in_target"] == [
        {"dataset_id": "ds2", "dimension_name": "d", "false_positives": [{"id": "=1+1", "name": "x"}]}]


def test_yaml_matches_json():
    """The YAML report holds the same document as the JSON one."""
    suite = small_suite()
    assert yaml.safe_load(to_yaml(suite)) == json.loads(to_json(suite)) == suite_document(suite)


def test_workbook_cells(tmp_path):
    """Reopened with openpyxl: Overview rows, text never formulas, NaN empty, Statistics block and chart."""
    path = tmp_path / "report.xlsx"
    write_workbook(small_suite(), path)
    workbook = openpyxl.load_workbook(path)
    assert workbook.sheetnames == ["Overview", "Statistics"]
    overview = workbook["Overview"]
    rows = list(overview.iter_rows(values_only=True))
    assert rows[0] == OVERVIEW_HEADERS
    assert rows[1][:6] == ('=HYPERLINK("http://x")', "+cmd", "-2+3", "weo, @risk", 1.0, 2 / 3)
    assert rows[1][6].startswith("IMF.RES:WEO / INDICATOR\n[recall: 1.00, precision: 0.67]\n")
    assert rows[2][4:8] == (None, None, None, "ds2 / d\nFalse Positives [1]\n  * =1+1: x")
    assert all(cell.data_type == "s" for cell in overview[2][:4])
    assert overview["A2"].alignment.wrap_text
    assert overview.freeze_panes == "A2"
    assert overview.auto_filter.ref == "A1:H3"
    assert overview.column_dimensions["G"].width >= 60
    assert overview["E2"].number_format == "0.00"

    statistics = workbook["Statistics"]
    block = [row for row in statistics.iter_rows(values_only=True) if any(v is not None for v in row)]
    assert block[0][0] == "Data Query Metrics"
    assert block[1] == ("tag", "cases", "mean macro recall", "mean macro precision")
    assert block[2] == ("(all)", 2, 1.0, 2 / 3)
    assert block[3] == ("@risk", 1, 1.0, 2 / 3)
    assert block[4] == ("weo", 2, 1.0, 2 / 3)
    assert block[5][0] == "signature" and block[5][1].startswith("match:id+name|v:")
    [chart] = statistics._charts
    assert [s.val.numRef.f for s in chart.series] == ["'Statistics'!$C$4:$C$5", "'Statistics'!$D$4:$D$5"]


def test_workbook_without_tags_charts_the_overall_row(tmp_path):
    """With no tags the chart shows the overall figures instead of nothing."""
    suite = evaluate([{"id": "a"}], [])
    assert math.isnan(suite.summary.macro_recall)
    path = tmp_path / "r.xlsx"
    write_workbook(suite, path)
    statistics = openpyxl.load_workbook(path)["Statistics"]
    assert statistics["C3"].value is None
    [chart] = statistics._charts
    assert chart.series[0].val.numRef.f == "'Statistics'!$C$3"
