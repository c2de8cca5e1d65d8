"""Reports of a QATCH run: JSON, an Excel workbook and a text summary.

The JSON document has the shape of ``QatchReport`` (printed by ``answerkey schema
qatch-report``):

    {"signature": str, "task": "qa" | "sp", "metrics": [str],
     "summary": {"tests", "evaluated", "errors", "prediction_errors", "means": {metric: float | null}},
     "tests": [{"id", "line", "db_id", "metrics": {metric: float | null}, "error", "prediction_error"}]}

A metric is ``null`` for a test where it does not apply (tuple order without ``ORDER BY``)
or whose target failed (``error``); means are over the tests where it has a value.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from answerkey.qatch.load import QatchRun

__all__ = ["QatchReport", "report_document", "to_json", "summary_table", "write_workbook"]

_STRICT = ConfigDict(extra="forbid")


class QatchSummary(BaseModel):
    """Counts and metric means of a run."""

    model_config = _STRICT
    tests: int = Field(ge=0)
    evaluated: int = Field(ge=0, description="Tests whose target could be evaluated.")
    errors: int = Field(ge=0, description="Tests whose target failed (errors of the test).")
    prediction_errors: int = Field(ge=0, description="Predictions malformed or failing (scored 0).")
    means: dict[str, float | None] = Field(description="Mean of each metric over the tests where it has a value.")


class QatchTestReport(BaseModel):
    """One test's scores."""

    model_config = _STRICT
    id: str
    line: int | None = Field(description="Line of the test in the tests file.")
    db_id: str | None
    metrics: dict[str, float | None]
    error: str | None = Field(description="Why the target could not be evaluated.")
    prediction_error: str | None = Field(description="Why the prediction scored zeros.")


class QatchReport(BaseModel):
    """The report of ``answerkey qatch`` (``--json``)."""

    model_config = _STRICT
    signature: str = Field(description="Options that change scores, and the version.")
    task: Literal["qa", "sp"]
    metrics: list[str]
    summary: QatchSummary
    tests: list[QatchTestReport]


def report_document(run: QatchRun) -> dict:
    """The report as plain JSON-ready values, in the ``QatchReport`` shape."""
    return {
        "signature": run.signature,
        "task": run.options.task,
        "metrics": list(run.options.metrics),
        "summary": {
            "tests": run.counts["tests"],
            "evaluated": run.counts["evaluated"],
            "errors": run.counts["errors"],
            "prediction_errors": run.counts["prediction_errors"],
            "means": dict(run.means),
        },
        "tests": [
            {
                "id": result.test.id,
                "line": result.test.line,
                "db_id": result.test.db_id,
                "metrics": dict(result.outcome.scores),
                "error": result.outcome.error,
                "prediction_error": result.outcome.prediction_error,
            }
            for result in run.results
        ],
    }


def to_json(run: QatchRun) -> str:
    """The report as JSON text."""
    return json.dumps(report_document(run), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def summary_table(run: QatchRun) -> str:
    """Each metric's mean and the number of tests it is over, the counts, the signature."""
    names = list(run.options.metrics)
    over = {
        name: sum(1 for r in run.results if r.outcome.error is None and r.outcome.scores.get(name) is not None)
        for name in names
    }
    width = max(len("metric"), *(len(name) for name in names))
    lines = [f"{'metric'.ljust(width)}    mean  tests"]
    lines.extend(f"{name.ljust(width)}  {_figure(run.means.get(name)):>6}  {over[name]:>5}" for name in names)
    counts = run.counts
    lines.append("")
    lines.append(
        f"{counts['tests']} test{'s' if counts['tests'] != 1 else ''}: {counts['evaluated']} evaluated, "
        f"{counts['prediction_errors']} "
        f"prediction error{'s' if counts['prediction_errors'] != 1 else ''} (scored 0), "
        f"{counts['errors']} test error{'s' if counts['errors'] != 1 else ''}"
    )
    lines.append(f"signature: {run.signature}")
    return "\n".join(lines)


def _text(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def write_workbook(run: QatchRun, path) -> None:
    """Write the workbook atomically: sheet ``Tests`` (one row per test) and ``Summary``
    (means, counts, signature). Text from the input is stored as text, never a formula."""
    from answerkey.report.excel import FILLS, add_table, new_workbook, save_workbook

    names = list(run.options.metrics)
    workbook = new_workbook()
    tests = workbook.create_sheet("Tests")
    headers = ["id", "line", "db_id", *names, "prediction_error", "error", "target", "prediction"]
    add_table(
        tests,
        headers,
        (
            [
                r.test.id, r.test.line, r.test.db_id, *(r.outcome.scores.get(name) for name in names),
                r.outcome.prediction_error, r.outcome.error, _text(r.test.target), _text(r.test.prediction),
            ]
            for r in run.results
        ),
        widths=[10, 6, 16, *([12] * len(names)), 30, 30, 50, 50],
    )
    for row, result in enumerate(run.results, start=2):
        if result.outcome.error is not None or result.outcome.prediction_error is not None:
            column = headers.index("error" if result.outcome.error is not None else "prediction_error") + 1
            tests.cell(row=row, column=column).fill = FILLS["incorrect"]

    summary = workbook.create_sheet("Summary")
    counts = run.counts
    add_table(
        summary,
        ["figure", "value"],
        [
            *([f"mean {name}", run.means.get(name)] for name in names),
            ["tests", counts["tests"]],
            ["evaluated", counts["evaluated"]],
            ["prediction errors", counts["prediction_errors"]],
            ["test errors", counts["errors"]],
            ["signature", run.signature],
        ],
        widths=[28, 60],
    )
    save_workbook(workbook, path)
