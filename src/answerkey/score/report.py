"""What the reports of a scoring run hold: the JSON/YAML document, the summary table and the
workbook's sheets (``answerkey.report`` writes them).

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

import math
from typing import TYPE_CHECKING, Any

from answerkey.report import figure, text_table
from answerkey.report.workbook import VERDICT_COLOURS, Chart, Column, Sheet, Workbook

if TYPE_CHECKING:
    from answerkey.score.run import GroupSummary, ItemResult, ScoreRun

__all__ = ["document", "summary_table", "workbook", "FIGURES"]

# The figures of a group, in the order tables show them.
FIGURES = ("items", "scored", "correct", "incorrect", "no_answer", "accuracy", "weighted_error", "score")


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def _numbers(metrics: dict[str, float | None]) -> dict[str, float | None]:
    return {name: _number(value) for name, value in metrics.items()}


def _figures(group: GroupSummary) -> dict[str, Any]:
    return {
        "items": group.items,
        "scored": group.scored,
        "correct": group.correct,
        "incorrect": group.incorrect,
        "no_answer": group.no_answer,
        "accuracy": group.accuracy,
        "weighted_error": group.weighted_error,
        "score": group.score,
        "metrics": _numbers(group.metrics),
    }


def _item(item: ItemResult) -> dict[str, Any]:
    return {
        "id": item.id,
        "verdict": item.verdict,
        "reason": item.reason,
        "category": item.category,
        "tags": list(item.tags),
        "metrics": _numbers(item.metrics),  # type: ignore[arg-type]
    }


def document(run: ScoreRun) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``ScoreReport`` shape."""
    summary = _figures(run.summary)
    summary["by_category"] = {name: _figures(group) for name, group in run.by_category.items()}
    summary["by_tag"] = {name: _figures(group) for name, group in run.by_tag.items()}
    return {
        "signature": str(run.signature),
        "summary": summary,
        "items": [_item(item) for item in run.items],
        "warnings": [str(warning) for warning in run.warnings],
    }


def _groups(run: ScoreRun) -> list[tuple[str, GroupSummary]]:
    rows = [("all", run.summary)]
    rows += [(f"category {name}", group) for name, group in run.by_category.items()]
    rows += [(f"tag {name}", group) for name, group in run.by_tag.items()]
    return rows


def summary_table(run: ScoreRun) -> str:
    """A readable table: all items, each category, each tag; then metric means and the signature.

    Accuracy is a fraction; weighted error and score are ATIS percentage points.
    """
    rows = [
        (
            name,
            group.items,
            group.scored,
            group.correct,
            group.incorrect,
            group.no_answer,
            figure(group.accuracy),
            figure(group.weighted_error, 1),
            figure(group.score, 1),
        )
        for name, group in _groups(run)
    ]
    parts = [text_table(("group", *FIGURES), rows)]
    if run.metric_names:
        parts.append(
            text_table(
                ("metric", "mean over scored items"),
                [(name, figure(run.summary.metrics.get(name))) for name in run.metric_names],
                "ll",
            )
        )
    parts.append(f"signature: {run.signature}")
    return "\n\n".join(parts)


def _canonical_cell(canonical: str | None, max_answer: str | None) -> str | None:
    if max_answer is None:
        return canonical
    return f"min: {canonical}\nmax: {max_answer}"


def workbook(run: ScoreRun) -> Workbook:
    """``Overview``: one row per item (verdicts coloured); ``Statistics``: all items, each
    category and each tag, with a chart of accuracy per tag."""
    names = list(run.metric_names)
    overview = Sheet(
        "Overview",
        [
            Column("id", 14, "text"),
            Column("query", 40, "text", wrap=True),
            Column("verdict", 11, "text", colours=VERDICT_COLOURS),
            Column("reason", 50, "text", wrap=True),
            Column("canonical", 30, "text", wrap=True),
            Column("system answer", 30, "text", wrap=True),
            Column("tags", 20, "text"),
            Column("category", 9, "text"),
            Column("context", 40, "text", wrap=True),
            *(Column(name, 12, "ratio") for name in names),
        ],
        [
            [
                item.id,
                item.query,
                item.verdict,
                item.reason,
                _canonical_cell(item.canonical, item.max_answer),
                item.system,
                ", ".join(item.tags),
                item.category,
                "\n".join(item.context) or None,
                *(item.metrics.get(name) for name in names),
            ]
            for item in run.items
        ],
    )
    groups = _groups(run)
    charts = []
    if run.by_tag:
        first = 1 + len(run.by_category)  # rows: all, the categories, then the tags
        charts.append(
            Chart(
                "Accuracy per tag",
                0,
                (FIGURES.index("accuracy") + 1,),
                first,
                first + len(run.by_tag) - 1,
                axis_title="accuracy",
            )
        )
    statistics = Sheet(
        "Statistics",
        [
            Column("group", 24, "text"),
            Column("items", 8, "integer"),
            Column("scored", 8, "integer"),
            Column("correct", 8, "integer"),
            Column("incorrect", 10, "integer"),
            Column("no_answer", 10, "integer"),
            Column("accuracy", 10, "ratio"),
            Column("weighted_error", 15, "points"),
            Column("score", 8, "points"),
            *(Column(name, 12, "ratio") for name in names),
        ],
        [
            [
                name,
                group.items,
                group.scored,
                group.correct,
                group.incorrect,
                group.no_answer,
                group.accuracy,
                group.weighted_error,
                group.score,
                *(group.metrics.get(n) for n in names),
            ]
            for name, group in groups
        ],
        charts=charts,
    )
    return Workbook(overview, statistics)
