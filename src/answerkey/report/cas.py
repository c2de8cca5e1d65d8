"""The results of ``answerkey judge`` and ``answerkey check`` as ``answerkey.report.Result``:
one verdict, or the files checked, written by the same writer as every run's reports.

Their documents are ``answerkey schema judge-report`` and ``check-report``; they are plain
values, built without pydantic, so that ``judge`` and ``check`` start fast.

>>> from answerkey.comparator import judge
>>> result = JudgeResult(judge("((1 2))", "((2 1))"))
>>> result.summary_table(), result.document()["mapping"]
('correct', [{'canonical': 1, 'system': 2}, {'canonical': 2, 'system': 1}])
>>> checked = CheckResult([FileCheck("a.cas"), FileCheck("b.cas", 1, 4, "expected a value")])
>>> checked.document()["invalid"], checked.valid
(1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from answerkey.comparator import Verdict
from answerkey.errors import RunWarning
from answerkey.report import text_table
from answerkey.report.alignment import ALIGNED_LINES, aligned_verdict
from answerkey.report.workbook import VERDICT_COLOURS, Column, Sheet, Workbook
from answerkey.signature import Signature


@dataclass(frozen=True)
class JudgeResult:
    """One verdict (``answerkey judge``); ``explain`` adds the explanation to its reports."""

    verdict: Verdict
    explain: bool = False
    warnings: Sequence[RunWarning] = ()

    @property
    def signature(self) -> Signature:
        """The options the verdict was made with, and the version."""
        return self.verdict.signature

    def document(self) -> dict[str, Any]:
        """``answerkey schema judge-report``: columns and alternatives numbered from 1."""
        return self.verdict.document(explain=self.explain)

    def summary_table(self) -> str:
        """``correct`` or ``incorrect``; with ``explain``, the explanation."""
        return self.verdict.explain() if self.explain else self.verdict.label

    def workbook(self) -> Workbook:
        """``Overview``: the verdict, its reason and explanation; ``Statistics``: correct 1 or 0."""
        overview = Sheet(
            "Overview",
            [
                Column("verdict", 11, "text", colours=VERDICT_COLOURS),
                Column("reason", 50, "text", wrap=True),
                Column("explanation", 80, "text", wrap=True),
            ],
            [[self.verdict.label, self.verdict.reason, self.verdict.explain()]],
        )
        statistics = Sheet("Statistics", [Column("correct", 8, "integer")], [[int(self.verdict.correct)]])
        return Workbook(overview, statistics, details=[aligned_verdict(self.verdict, ALIGNED_LINES)])


@dataclass(frozen=True)
class FileCheck:
    """One file checked: valid (no ``message``), or where its first error is and what it says."""

    file: str
    line: int | None = None
    column: int | None = None
    message: str | None = None

    @property
    def ok(self) -> bool:
        """True when the file is valid."""
        return self.message is None


@dataclass(frozen=True)
class CheckResult:
    """The files ``answerkey check`` read, in the order given, checked as system answers
    (``system``: OR alternatives are errors) or canonical ones, ``strict`` or not."""

    files: Sequence[FileCheck]
    system: bool = False
    strict: bool = False
    warnings: Sequence[RunWarning] = ()

    @property
    def signature(self) -> Signature:
        """``answers:canonical|strict:no|v:...``: the rules the files were checked by."""
        return Signature.of(answers="system" if self.system else "canonical", strict="yes" if self.strict else "no")

    @property
    def valid(self) -> int:
        """Valid files."""
        return sum(checked.ok for checked in self.files)

    def document(self) -> dict[str, Any]:
        """``answerkey schema check-report``: each file with ok, or its error's place and message."""
        files = [
            {
                "file": checked.file,
                "ok": checked.ok,
                "line": checked.line,
                "column": checked.column,
                "message": checked.message,
            }
            for checked in self.files
        ]
        return {"files": files, "valid": self.valid, "invalid": len(self.files) - self.valid}

    def summary_table(self) -> str:
        """One line per file: ``ok``, or its error's line, column and message."""
        rows = [
            (
                checked.file,
                "ok" if checked.ok else "invalid",
                checked.line or "",
                checked.column or "",
                checked.message or "",
            )
            for checked in self.files
        ]
        return text_table(("file", "check", "line", "column", "message"), rows, "llrrl")

    def workbook(self) -> Workbook:
        """``Overview``: one row per file; ``Statistics``: how many are valid and invalid."""
        overview = Sheet(
            "Overview",
            [
                Column("file", 40, "text"),
                Column("ok", 6),
                Column("line", 7, "integer"),
                Column("column", 7, "integer"),
                Column("message", 60, "text", wrap=True),
            ],
            [[checked.file, checked.ok, checked.line, checked.column, checked.message] for checked in self.files],
        )
        statistics = Sheet(
            "Statistics",
            [Column("valid", 8, "integer"), Column("invalid", 8, "integer")],
            [[self.valid, len(self.files) - self.valid]],
        )
        return Workbook(overview, statistics)
