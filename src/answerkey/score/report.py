"""The reports of a scoring run, kept as an import path: a ``ScoreRun`` builds its
``ScoreReport`` (``answerkey.score.schema``), which holds the document, the summary table and
the workbook's sheets; ``answerkey.report`` writes them.

The document has the shape of ``ScoreReport`` (``answerkey schema score-report``); its keys
are part of the contract:

    {"signature": str,
     "summary": {"items", "scored", "correct", "incorrect", "no_answer", "accuracy",
                 "weighted_error", "score", "metrics", "by_category", "by_tag"},
     "items": [{"id", "verdict", "reason", "category", "tags", "metrics"}],
     "warnings": [str]}

Figures a group cannot have (accuracy with no scored item, a metric defined for none of its
items) are ``null``.
"""

from __future__ import annotations

from typing import Any

from answerkey.report import Result
from answerkey.report.workbook import Workbook
from answerkey.score.schema import FIGURES as FIGURES


def document(run: Result) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``ScoreReport`` shape."""
    return run.document()


def summary_table(run: Result) -> str:
    """All items, each category, each tag; then metric means and the signature."""
    return run.summary_table()


def workbook(run: Result) -> Workbook:
    """``Overview``: one row per item; ``Statistics``: per group, with a chart of accuracy per tag."""
    return run.workbook()
