"""`answerkey judge` and `answerkey check` results are Results: the one writer writes them."""

import json

import jsonschema
import openpyxl

from answerkey.cli.schema import json_schema
from answerkey.comparator import judge
from answerkey.report import ReportPaths, Result, write_reports
from answerkey.report.cas import CheckResult, FileCheck, JudgeResult


def test_a_verdict_is_written_as_judge_writes_it(tmp_path):
    """The JSON of a JudgeResult is the verdict's document (with the explanation when asked),
    valid for `answerkey schema judge-report`; its table is the label or the explanation."""
    verdict = judge("53200.0", "((53190.9))")
    result = JudgeResult(verdict, explain=True)
    assert isinstance(result, Result)
    write_reports(result, ReportPaths(json=str(tmp_path / "v.json"), xlsx=str(tmp_path / "v.xlsx")), quiet=True)
    document = json.loads((tmp_path / "v.json").read_text())
    assert document == verdict.document(explain=True)
    assert document["explanation"][0]["out_of_tolerance"]
    jsonschema.validate(document, json_schema("judge-report"))
    assert result.summary_table() == verdict.explain()
    assert JudgeResult(verdict).summary_table() == "incorrect"
    assert "explanation" not in JudgeResult(verdict).document()
    book = openpyxl.load_workbook(tmp_path / "v.xlsx")
    assert [cell.value for cell in book["Overview"][2]] == ["incorrect", verdict.reason, verdict.explain()]
    assert book["Statistics"]["A2"].value == 0
    assert str(result.signature) == str(verdict.signature)


def test_files_checked_are_written_as_check_writes_them(tmp_path):
    """A CheckResult's document lists each file with ok or its error, then the counts, valid
    for `answerkey schema check-report`; its table and workbook have a row per file."""
    result = CheckResult([FileCheck("a.cas"), FileCheck("b.cas", 2, 7, "expected a value")], system=True)
    assert isinstance(result, Result)
    assert result.document() == {
        "files": [
            {"file": "a.cas", "ok": True, "line": None, "column": None, "message": None},
            {"file": "b.cas", "ok": False, "line": 2, "column": 7, "message": "expected a value"},
        ],
        "valid": 1,
        "invalid": 1,
    }
    jsonschema.validate(result.document(), json_schema("check-report"))
    assert result.summary_table().splitlines() == [
        "file   check    line  column  message",
        "a.cas  ok",
        "b.cas  invalid     2       7  expected a value",
    ]
    assert str(result.signature).startswith("answers:system|strict:no|v:")
    write_reports(result, ReportPaths(xlsx=str(tmp_path / "c.xlsx")), quiet=True)
    book = openpyxl.load_workbook(tmp_path / "c.xlsx")
    assert [[cell.value for cell in row] for row in book["Overview"].iter_rows(min_row=2)] == [
        ["a.cas", True, None, None, None],
        ["b.cas", False, 2, 7, "expected a value"],
    ]
    assert [cell.value for cell in book["Statistics"][2]] == [1, 1]
