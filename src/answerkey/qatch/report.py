"""The reports of a QATCH run, kept as an import path: a ``QatchRun`` builds its
``QatchReport`` (``answerkey.qatch.schema``), which holds the document, the summary table and
the workbook's sheets; ``answerkey.report`` writes them.

The document has the shape of ``QatchReport`` (``answerkey schema qatch-report``); its keys
are part of the contract:

    {"signature": str, "task": "qa" | "sp", "metrics": [str],
     "summary": {"tests", "evaluated", "errors", "prediction_errors",
                 "means": {metric: float | null}, "counts": {metric: int}},
     "tests": [{"id", "line", "db_id", "metrics": {metric: float | null}, "error", "prediction_error"}],
     "warnings": [str]}

A metric is ``null`` for a test where it does not apply (tuple order without ``ORDER BY``)
or whose target failed (``error``); means are over the tests where it has a value, and
``counts`` says how many those are.
"""

from __future__ import annotations

from typing import Any

from answerkey.qatch.schema import MEAN_DIGITS as MEAN_DIGITS
from answerkey.report import Result
from answerkey.report.workbook import Workbook


def document(run: Result) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``QatchReport`` shape."""
    return run.document()


def summary_table(run: Result) -> str:
    """Each metric's mean and the number of tests it is over; the counts; the signature."""
    return run.summary_table()


def workbook(run: Result) -> Workbook:
    """``Overview``: one row per test; ``Statistics``: each metric's mean, the counts below."""
    return run.workbook()
