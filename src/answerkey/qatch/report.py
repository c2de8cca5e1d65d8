"""What the reports of a QATCH run hold: the JSON/YAML document, the summary table and the
workbook's sheets (``answerkey.report`` writes them).

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

import json
from typing import TYPE_CHECKING, Any

from answerkey.errors import plural
from answerkey.report import figure, text_table
from answerkey.report.workbook import Column, Sheet, Workbook

if TYPE_CHECKING:
    from answerkey.qatch.run import QatchResult, QatchRun

__all__ = ["document", "summary_table", "workbook", "MEAN_DIGITS"]

# Decimals of the means in the summary table.
MEAN_DIGITS = 4


def _test(result: QatchResult) -> dict[str, Any]:
    return {
        "id": result.test.id,
        "line": result.test.line,
        "db_id": result.test.db_id,
        "metrics": dict(result.outcome.scores),
        "error": result.outcome.error,
        "prediction_error": result.outcome.prediction_error,
    }


def document(run: QatchRun) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``QatchReport`` shape."""
    return {
        "signature": str(run.signature),
        "task": run.options.task,
        "metrics": list(run.metric_names),
        "summary": {
            "tests": run.counts["tests"],
            "evaluated": run.counts["evaluated"],
            "errors": run.counts["errors"],
            "prediction_errors": run.counts["prediction_errors"],
            "means": dict(run.means),
            "counts": dict(run.metric_counts),
        },
        "tests": [_test(result) for result in run.results],
        "warnings": [str(warning) for warning in run.warnings],
    }


def _counts_line(run: QatchRun) -> str:
    counts = run.counts
    return (
        f"{plural(counts['tests'], 'test')}: {counts['evaluated']:,} evaluated, "
        f"{plural(counts['prediction_errors'], 'prediction error')} (scored 0), "
        f"{plural(counts['errors'], 'test error')}"
    )


def summary_table(run: QatchRun) -> str:
    """Each metric's mean and the number of tests it is over; the counts; the signature.

    A mean is ``-`` when the metric has a value for no test.
    """
    rows = [
        (name, figure(run.means.get(name), MEAN_DIGITS), run.metric_counts.get(name, 0)) for name in run.metric_names
    ]
    return "\n".join(
        [text_table(("metric", "mean", "tests"), rows), "", _counts_line(run), f"signature: {run.signature}"]
    )


def _text(value: object) -> str | None:
    """A target or prediction as the text of a cell: SQL and JSON text as given, a table
    read from JSON or YAML as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def workbook(run: QatchRun) -> Workbook:
    """``Overview``: one row per test (its metrics, errors, target and prediction as text);
    ``Statistics``: each metric's mean and the tests it is over, the counts below."""
    names = list(run.metric_names)
    overview = Sheet(
        "Overview",
        [
            Column("id", 14, "text"),
            Column("line", 7, "integer"),
            Column("db_id", 16, "text"),
            *(Column(name, 12, "ratio") for name in names),
            Column("prediction_error", 40, "text", wrap=True),
            Column("error", 40, "text", wrap=True),
            Column("target", 50, "text", wrap=True),
            Column("prediction", 50, "text", wrap=True),
        ],
        [
            [
                result.test.id,
                result.test.line,
                result.test.db_id,
                *(result.outcome.scores.get(name) for name in names),
                result.outcome.prediction_error,
                result.outcome.error,
                _text(result.test.target),
                _text(result.test.prediction),
            ]
            for result in run.results
        ],
    )
    counts = run.counts
    statistics = Sheet(
        "Statistics",
        [
            Column("metric", 22, "text"),
            Column("mean", 10, "ratio"),
            Column("tests", 8, "integer"),
        ],
        [[name, run.means.get(name), run.metric_counts.get(name, 0)] for name in names],
        notes=[
            ("tests", counts["tests"]),
            ("evaluated", counts["evaluated"]),
            ("prediction errors", counts["prediction_errors"]),
            ("test errors", counts["errors"]),
        ],
    )
    return Workbook(overview, statistics)
