"""The reports of ``steps evaluate`` and ``steps aggregate``, kept as an import path: an
``StepsRun`` or ``StepsAggregationRun`` builds its ``ResultsReport`` or ``AggregatesReport``
(``answerkey.steps.schema``), which holds the document, the summary table and the workbook's
sheets; ``answerkey.report`` writes them.

The documents have the shapes of ``ResultsReport`` and ``AggregatesReport`` (``answerkey
schema steps-results``, ``steps-aggregates``); graphrag-eval's keys are kept inside them:

    {"signature": str,
     "summary": {"questions", "success", "error", "mean_steps_score"},
     "results": [{"template_id", "question_id", ..., "steps_score", ...}],
     "warnings": [str]}

    {"signature": str, "per_template": {...}, "micro": {...}, "macro": {...}, "warnings": [str]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from answerkey.report import Result
from answerkey.report.workbook import Workbook
from answerkey.signature import Signature
from answerkey.steps.schema import (
    OVERVIEW_COLUMNS as OVERVIEW_COLUMNS,
    STATUS_COLOURS as STATUS_COLOURS,
    aggregates_table,
    steps_workbook,
)


def results_document(run: Result) -> dict[str, Any]:
    """The report of ``steps evaluate``, in the ``ResultsReport`` shape."""
    return run.document()


def aggregates_document(run: Result) -> dict[str, Any]:
    """The report of ``steps aggregate``, in the ``AggregatesReport`` shape."""
    return run.document()


def summary_table(aggregates: Mapping[str, Any], signature: Signature | str) -> str:
    """Per template, then over all questions (micro) and over the templates (macro): the
    success and error samples and the mean steps score; then the signature."""
    return aggregates_table(aggregates, signature)


def workbook(results: Sequence[Mapping[str, Any]], aggregates: Mapping[str, Any]) -> Workbook:
    """``Overview``: one row per question; ``Statistics``: the aggregates; ``Step counts``."""
    return steps_workbook(results, aggregates)
