"""The one report writer (answerkey.report): JSON/YAML text, and workbooks rendered from the
sheet spec with the same layout for every command."""

import json
from dataclasses import dataclass, field

import openpyxl
import pytest
import yaml

from answerkey.errors import RunWarning
from answerkey.report import ReportPaths, Result, json_text, text_table, write_reports, yaml_text
from answerkey.report.workbook import VERDICT_COLOURS, Chart, Column, Sheet, Workbook
from answerkey.signature import Signature


@dataclass
class ToyResult:
    """The smallest Result: two items, a figure per group, one task sheet."""

    items: list = field(
        default_factory=lambda: [
            {"id": "=cmd()", "verdict": "correct", "query": "line one\r\nline two\rend", "ratio": 2 / 3},
            {"id": "bad\x00byte", "verdict": "incorrect", "query": "\ud800 lone", "ratio": None},
        ]
    )
    signature: Signature = field(default_factory=lambda: Signature.of(epsilon="0.0001"))
    warnings: list = field(default_factory=lambda: [RunWarning("a.jsonl:3: an odd line", "odd")])

    def document(self):
        return {"signature": str(self.signature), "items": self.items, "warnings": [str(w) for w in self.warnings]}

    def summary_table(self):
        return "toy"

    def workbook(self):
        overview = Sheet(
            "Overview",
            [
                Column("id", 10, "text"),
                Column("verdict", 10, "text", colours=VERDICT_COLOURS),
                Column("query", 30, "text", wrap=True),
                Column("ratio", 8, "ratio"),
            ],
            [[item["id"], item["verdict"], item["query"], item["ratio"]] for item in self.items],
        )
        statistics = Sheet(
            "Statistics",
            [Column("group", 10, "text"), Column("accuracy", 10, "ratio")],
            [["all", 0.5], ["tag a", 1.0]],
            charts=[Chart("Accuracy per tag", 0, (1,), 1, 1, axis_title="accuracy")],
        )
        return Workbook(overview, statistics, [Sheet("Extra", [Column("n", 5, "integer")], [[1], [2]])])


def test_a_toy_result_is_a_result():
    """The protocol is structural: anything with these members is a Result."""
    assert isinstance(ToyResult(), Result)


def test_json_text_puts_each_list_element_on_one_line():
    """Objects are indented, list elements one per line; the text is the document's JSON."""
    document = {
        "summary": {"items": 2, "by_tag": {"a": {"items": 1}}},
        "items": [{"id": "q1", "reason": 'a "quoted"\nline'}, {"id": "q2"}],
        "warnings": [],
    }
    text = json_text(document)
    assert json.loads(text) == document
    assert text.splitlines() == [
        "{",
        '  "summary": {',
        '    "items": 2,',
        '    "by_tag": {',
        '      "a": {',
        '        "items": 1',
        "      }",
        "    }",
        "  },",
        '  "items": [',
        '    {"id": "q1", "reason": "a \\"quoted\\"\\nline"},',
        '    {"id": "q2"}',
        "  ],",
        '  "warnings": []',
        "}",
    ]


def test_json_text_refuses_nan():
    """A NaN never reaches a report as invalid JSON: documents carry null for undefined figures."""
    with pytest.raises(ValueError):
        json_text({"figure": float("nan")})


def test_yaml_text_reads_back_and_keeps_multiline_text_as_blocks():
    """YAML reports read back to the document; text with line breaks is a literal block."""
    document = {"query": "SELECT ?x\nWHERE {}", "n": 1}
    text = yaml_text(document, comment="answerkey | eps:0")
    assert text.startswith("# answerkey | eps:0\n")
    assert "query: |-\n  SELECT ?x\n  WHERE {}" in text
    assert yaml.safe_load(text) == document


def test_text_table_aligns_columns():
    """The first column left, the others right, unless told."""
    assert text_table(["a", "bb"], [["xxx", 1], ["y", 22]]).splitlines() == ["a    bb", "xxx   1", "y    22"]
    assert text_table(["a", "bb"], [["xxx", 1]], "ll").splitlines() == ["a    bb", "xxx  1"]


def test_every_report_of_a_result_is_written(tmp_path):
    """JSON, YAML and the workbook from one call, each a whole document."""
    paths = ReportPaths(str(tmp_path / "r.json"), str(tmp_path / "r.yaml"), str(tmp_path / "r.xlsx"))
    result = ToyResult()
    result.items[1]["query"] = "fine"  # a lone surrogate cannot be JSON or YAML: loaders refuse it
    write_reports(result, paths, quiet=True)
    # Written piece by piece, the file is exactly the text json_text gives.
    assert (tmp_path / "r.json").read_text() == json_text(result.document())
    assert json.loads((tmp_path / "r.json").read_text()) == result.document()
    assert yaml.safe_load((tmp_path / "r.yaml").read_text()) == result.document()
    assert openpyxl.load_workbook(tmp_path / "r.xlsx").sheetnames == ["Overview", "Statistics", "Warnings", "Extra"]


def test_workbook_layout_is_the_same_for_every_result(tmp_path):
    """Overview, Statistics (signature below), Warnings, task sheets; frozen bold headers,
    filters, ratio formats, verdict colours, text never a formula, control characters and lone
    surrogates replaced, carriage returns kept."""
    path = tmp_path / "r.xlsx"
    write_reports(ToyResult(), ReportPaths(xlsx=str(path)), quiet=True)
    book = openpyxl.load_workbook(path)
    for sheet in book.worksheets:
        assert sheet.freeze_panes == "A2"
        assert sheet["A1"].font.bold
        assert sheet.auto_filter.ref.startswith("A1:")
    overview = book["Overview"]
    assert [[cell.value for cell in row] for row in overview.iter_rows()] == [
        ["id", "verdict", "query", "ratio"],
        ["=cmd()", "correct", "line one\r\nline two\rend", 2 / 3],
        ["bad\ufffdbyte", "incorrect", "\ufffd lone", None],
    ]
    assert overview["A2"].data_type == "s"
    assert overview["D2"].number_format == "0.0000"
    assert overview["B2"].fill.fgColor.rgb == "00C6EFCE"
    assert overview["B3"].fill.fgColor.rgb == "00FFC7CE"
    assert overview.auto_filter.ref == "A1:D3"
    statistics = book["Statistics"]
    assert [cell.value for cell in statistics["A"] if cell.value] == ["group", "all", "tag a", "signature"]
    assert statistics["B5"].value == str(ToyResult().signature)
    assert len(statistics._charts) == 1
    warnings = book["Warnings"]
    assert [[cell.value for cell in row] for row in warnings.iter_rows()] == [["warning"], ["a.jsonl:3: an odd line"]]
    assert [[cell.value for cell in row] for row in book["Extra"].iter_rows()] == [["n"], [1], [2]]


def test_a_workbook_without_warnings_still_has_the_sheet(tmp_path):
    """Scripts can rely on the Warnings sheet: it is there, with its header, when empty."""
    result = ToyResult()
    result.warnings = []
    path = tmp_path / "r.xlsx"
    write_reports(result, ReportPaths(xlsx=str(path)), quiet=True)
    assert [[cell.value for cell in row] for row in openpyxl.load_workbook(path)["Warnings"].iter_rows()] == [
        ["warning"]
    ]


def test_workbook_sheet_names_are_fixed():
    """The first two sheets are Overview and Statistics, for every command."""
    with pytest.raises(ValueError, match="Overview and Statistics"):
        Workbook(Sheet("Tests", [], []), Sheet("Summary", [], []))
