"""The reports of an SQL run, kept as an import path: an ``SqlRun`` builds its ``SqlReport``
(``answerkey.execution.schema``), which holds the document, the summary table and the
workbook's sheets; ``answerkey.report`` writes them.

The document has the shape of ``SqlReport`` (``answerkey schema sql-report``); its keys are
part of the contract:

    {"signature": str, "layout": "spider" | "bird" | "answerkey",
     "summary": {"semantics", "items", "evaluated", "correct", "incorrect", "errors", "accuracy",
                 "accuracy_by_semantics", "metrics", "disagreements", "by_difficulty", "by_tag"},
     "items": [{"id", "db_id", "verdict", "reason", "database", "databases", "verdicts",
                "disagreement", "difficulty", "tags", "metrics"}],
     "warnings": [str]}

Items are in input order. Figures a group cannot have (accuracy with nothing evaluated, a
metric that applies to none of its items) are ``null``.
"""

from __future__ import annotations

from typing import Any

from answerkey.execution.schema import FIGURES as FIGURES, ITEM_COLOURS as ITEM_COLOURS
from answerkey.report import Result
from answerkey.report.workbook import Workbook


def document(run: Result) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``SqlReport`` shape."""
    return run.document()


def summary_table(run: Result) -> str:
    """All items, each difficulty, each tag under every semantics; metric means, the
    disagreements and the signature."""
    return run.summary_table()


def workbook(run: Result) -> Workbook:
    """``Overview``, ``Statistics`` and ``Disagreements``."""
    return run.workbook()
