"""What the reports of ``steps evaluate`` and ``steps aggregate`` hold: the JSON/YAML
documents, the summary table and the workbook's sheets (``answerkey.report`` writes them).

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
from typing import TYPE_CHECKING, Any

from answerkey.report import figure, text_table
from answerkey.report.workbook import VERDICT_COLOURS, Column, Sheet, Workbook
from answerkey.signature import Signature
from answerkey.steps.schema import METRICS

if TYPE_CHECKING:
    from answerkey.steps.run import StepsAggregationRun, StepsRun

__all__ = [
    "results_document",
    "aggregates_document",
    "summary_table",
    "workbook",
    "OVERVIEW_COLUMNS",
    "STATUS_COLOURS",
]

# A question's status, coloured as verdicts are.
STATUS_COLOURS = {"success": VERDICT_COLOURS["correct"], "error": VERDICT_COLOURS["incorrect"]}
_RATIOS = ("answer_recall", "answer_precision", "answer_f1", "answer_relevance")
_COUNTS = ("input_tokens", "output_tokens", "total_tokens")
# The Overview's columns; `matches` lists the matched actual steps of the last group and
# `mismatches` why the other reference steps did not match.
OVERVIEW_COLUMNS = (
    Column("template_id", 30, "text"),
    Column("question_id", 24, "text"),
    Column("question_text", 50, "text", wrap=True),
    Column("status", 9, "text", colours=STATUS_COLOURS),
    Column("error", 40, "text", wrap=True),
    Column("steps_score", 11, "ratio"),
    Column("matches", 30, "text"),
    Column("mismatches", 50, "text", wrap=True),
    *(Column(name, 12, "ratio") for name in _RATIOS),
    *(Column(name, 12, "integer") for name in _COUNTS),
    Column("elapsed_sec", 12, "number"),
)
_STATISTICS = ("sum", "mean", "median", "min", "max")
_COUNT_KEYS = ("number_of_error_samples", "number_of_success_samples")


def results_document(run: StepsRun) -> dict[str, Any]:
    """The report of ``steps evaluate``, in the ``ResultsReport`` shape."""
    return {
        "signature": str(run.signature),
        "summary": {
            "questions": len(run.results),
            "success": len(run.results) - run.errors,
            "error": run.errors,
            "mean_steps_score": run.mean_steps_score,
        },
        "results": run.results,
        "warnings": [str(warning) for warning in run.warnings],
    }


def aggregates_document(run: StepsAggregationRun) -> dict[str, Any]:
    """The report of ``steps aggregate``, in the ``AggregatesReport`` shape."""
    return {"signature": str(run.signature), **run.aggregates, "warnings": [str(warning) for warning in run.warnings]}


def summary_table(aggregates: Mapping[str, Any], signature: Signature) -> str:
    """Per template, then over all questions (micro) and over the templates (macro): the
    success and error samples and the mean steps score; then the signature."""
    rows: list[tuple[object, ...]] = []
    for template_id, block in aggregates["per_template"].items():
        rows.append(
            (
                template_id,
                block["number_of_success_samples"],
                block["number_of_error_samples"],
                figure(block.get("steps_score", {}).get("mean"), 4),
            )
        )
    micro = aggregates["micro"]
    rows.append(
        (
            "micro (all questions)",
            micro["number_of_success_samples"],
            micro["number_of_error_samples"],
            figure(micro.get("steps_score", {}).get("mean"), 4),
        )
    )
    rows.append(
        ("macro (mean of templates)", "", "", figure(aggregates["macro"].get("steps_score", {}).get("mean"), 4))
    )
    return "\n\n".join(
        [
            text_table(("template", "success", "error", "mean steps_score"), rows),
            f"signature: {signature}",
        ]
    )


def _last_group(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    groups = result.get("reference_steps")
    if isinstance(groups, list) and groups and isinstance(groups[-1], list):
        return [step for step in groups[-1] if isinstance(step, Mapping)]
    return []


def _cell(value: object) -> object:
    return value if value is None or isinstance(value, (int, float, str)) else str(value)


def _overview_row(result: Mapping[str, Any]) -> list[object]:
    group = _last_group(result)
    derived = {
        "matches": ", ".join(str(step["matches"]) for step in group if "matches" in step) or None,
        "mismatches": "\n".join(f"{step.get('name')}: {step['mismatch']}" for step in group if "mismatch" in step)
        or None,
    }
    return [
        _cell(derived[column.header] if column.header in derived else result.get(column.header))
        for column in OVERVIEW_COLUMNS
    ]


def _statistics_rows(aggregates: Mapping[str, Any]) -> list[list[object]]:
    scopes = [("per_template", template_id, block) for template_id, block in aggregates["per_template"].items()]
    scopes += [("micro", None, aggregates["micro"]), ("macro", None, aggregates["macro"])]
    rows: list[list[object]] = []
    for scope, template_id, block in scopes:
        for count in _COUNT_KEYS:
            if count in block:
                rows.append([scope, template_id, count, block[count], None, None, None, None])
        for metric in METRICS:
            if metric in block:
                rows.append([scope, template_id, metric, *(block[metric].get(name) for name in _STATISTICS)])
    return rows


def _step_rows(aggregates: Mapping[str, Any]) -> list[list[object]]:
    rows: list[list[object]] = []
    for template_id, block in aggregates["per_template"].items():
        for count, by_name in block.get("steps", {}).items():
            rows.extend([template_id, count, name, value] for name, value in by_name.items())
    return rows


def workbook(results: Sequence[Mapping[str, Any]], aggregates: Mapping[str, Any]) -> Workbook:
    """``Overview``: one row per question; ``Statistics``: the aggregates, one row per scope
    (a template, micro, macro) and metric (the sample counts in the ``sum`` column);
    ``Step counts``: the executed steps per template."""
    overview = Sheet("Overview", OVERVIEW_COLUMNS, [_overview_row(result) for result in results])
    statistics = Sheet(
        "Statistics",
        [
            Column("scope", 13, "text"),
            Column("template_id", 30, "text"),
            Column("metric", 26, "text"),
            *(Column(name, 14, "number") for name in _STATISTICS),
        ],
        _statistics_rows(aggregates),
    )
    step_counts = Sheet(
        "Step counts",
        [
            Column("template_id", 30, "text"),
            Column("count", 16, "text"),
            Column("step", 24, "text"),
            Column("value", 8, "integer"),
        ],
        _step_rows(aggregates),
    )
    return Workbook(overview, statistics, [step_counts])
