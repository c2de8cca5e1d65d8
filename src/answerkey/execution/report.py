"""What the reports of an SQL run hold: the JSON/YAML document, the summary table and the
workbook's sheets (``answerkey.report`` writes them).

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

from typing import TYPE_CHECKING, Any

from answerkey.report import figure, text_table
from answerkey.report.workbook import VERDICT_COLOURS, Chart, Column, Sheet, Workbook

if TYPE_CHECKING:
    from answerkey.execution.run import GroupSummary, ItemResult, SqlRun

__all__ = ["document", "summary_table", "workbook", "FIGURES", "ITEM_COLOURS"]

# The counts of a group, in the order tables show them.
FIGURES = ("items", "evaluated", "correct", "incorrect", "errors")
# Verdict colours of the Overview, an error as a missing answer is shown elsewhere.
ITEM_COLOURS = {**VERDICT_COLOURS, "error": VERDICT_COLOURS["no_answer"]}


def _verdict(correct: bool) -> str:
    return "correct" if correct else "incorrect"


def _figures(group: GroupSummary) -> dict[str, Any]:
    return {
        "items": group.items,
        "evaluated": group.evaluated,
        "correct": group.correct,
        "incorrect": group.incorrect,
        "errors": group.errors,
        "accuracy": group.accuracy,
        "accuracy_by_semantics": dict(group.accuracy_by_semantics),
        "metrics": dict(group.metrics),
    }


def _item(result: ItemResult) -> dict[str, Any]:
    item, outcome = result.item, result.outcome
    return {
        "id": item.id,
        "db_id": item.db_id,
        "verdict": outcome.verdict,
        "reason": outcome.reason,
        "database": outcome.database,
        "databases": outcome.databases,
        "verdicts": {name: _verdict(correct) for name, correct in outcome.verdicts.items()},
        "disagreement": outcome.disagreement,
        "difficulty": item.difficulty,
        "tags": list(item.tags),
        "metrics": dict(outcome.metrics),
    }


def document(run: SqlRun) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``SqlReport`` shape."""
    summary = {"semantics": run.options.semantics, **_figures(run.summary), "disagreements": run.disagreements}
    summary["by_difficulty"] = {name: _figures(group) for name, group in run.by_difficulty.items()}
    summary["by_tag"] = {name: _figures(group) for name, group in run.by_tag.items()}
    return {
        "signature": str(run.signature),
        "layout": run.layout,
        "summary": summary,
        "items": [_item(result) for result in run.results],
        "warnings": [str(warning) for warning in run.warnings],
    }


def _groups(run: SqlRun) -> list[tuple[str, GroupSummary]]:
    rows = [("all", run.summary)]
    rows += [(f"difficulty {name}", group) for name, group in run.by_difficulty.items()]
    rows += [(f"tag {name}", group) for name, group in run.by_tag.items()]
    return rows


def summary_table(run: SqlRun) -> str:
    """A readable table: all items, each difficulty, each tag, with the accuracy under every
    semantics (the headline one marked ``*``); then metric means, the disagreements and the
    signature."""
    headline = run.options.semantics
    decided = run.options.decided_semantics
    names = [f"{name}*" if name == headline else name for name in decided]
    rows = [
        (
            name,
            *(getattr(group, count) for count in FIGURES),
            *(figure(group.accuracy_by_semantics[semantics], 4) for semantics in decided),
        )
        for name, group in _groups(run)
    ]
    parts = [text_table(("group", *FIGURES, *names), rows)]
    if run.metric_names:
        parts.append(
            text_table(
                ("metric", "mean"),
                [(name, figure(run.summary.metrics.get(name), 4)) for name in run.metric_names],
            )
        )
    lines = [f"* headline semantics: execution accuracy {figure(run.summary.accuracy, 4)} under {headline}"]
    if run.disagreements:
        lines.append(
            f"the semantics disagree on {run.disagreements:,} of {run.summary.items:,} items (the reports say why)"
        )
    lines.append(f"signature: {run.signature}")
    parts.append("\n".join(lines))
    return "\n\n".join(parts)


def workbook(run: SqlRun) -> Workbook:
    """``Overview``: one row per item (verdicts coloured); ``Statistics``: all items, each
    difficulty and each tag, with a chart of accuracy per difficulty; ``Disagreements``: the
    items the semantics disagree on, with the verdict under each and why."""
    names = list(run.metric_names)
    decided = run.options.decided_semantics
    overview = Sheet(
        "Overview",
        [
            Column("id", 10, "text"),
            Column("db_id", 18, "text"),
            Column("verdict", 11, "text", colours=ITEM_COLOURS),
            Column("reason", 50, "text", wrap=True),
            Column("database", 18, "text"),
            Column("question", 40, "text", wrap=True),
            Column("gold SQL", 50, "text", wrap=True),
            Column("predicted SQL", 50, "text", wrap=True),
            Column("difficulty", 11, "text"),
            Column("tags", 20, "text"),
            *(Column(name, 11, "text", colours=ITEM_COLOURS) for name in decided),
            Column("disagreement", 50, "text", wrap=True),
            *(Column(name, 12, "number" if name == "valid_efficiency_score" else "ratio") for name in names),
        ],
        [
            [
                result.item.id,
                result.item.db_id,
                result.verdict,
                result.outcome.reason,
                result.outcome.database,
                result.item.question or None,
                result.item.gold,
                result.item.predicted,
                result.item.difficulty,
                ", ".join(result.item.tags) or None,
                *(
                    _verdict(result.outcome.verdicts[name]) if name in result.outcome.verdicts else None
                    for name in decided
                ),
                result.outcome.disagreement,
                *(result.outcome.metrics.get(name) for name in names),
            ]
            for result in run.results
        ],
    )
    groups = _groups(run)
    charts = []
    if run.by_difficulty:
        charts.append(
            Chart(
                "Accuracy per difficulty",
                0,
                (len(FIGURES) + 1,),
                1,
                len(run.by_difficulty),
                axis_title="accuracy",
            )
        )
    statistics = Sheet(
        "Statistics",
        [
            Column("group", 24, "text"),
            *(Column(count, 10, "integer") for count in FIGURES),
            Column("accuracy", 10, "ratio"),
            *(Column(name, 11, "ratio") for name in decided),
            *(Column(name, 12, "number" if name == "valid_efficiency_score" else "ratio") for name in names),
        ],
        [
            [
                name,
                *(getattr(group, count) for count in FIGURES),
                group.accuracy,
                *(group.accuracy_by_semantics[semantics] for semantics in decided),
                *(group.metrics.get(metric) for metric in names),
            ]
            for name, group in groups
        ],
        charts=charts,
        notes=[("headline semantics", run.options.semantics), ("disagreements", run.disagreements)],
    )
    disagreements = Sheet(
        "Disagreements",
        [
            Column("id", 10, "text"),
            Column("db_id", 18, "text"),
            *(Column(name, 11, "text", colours=ITEM_COLOURS) for name in decided),
            Column("why", 80, "text", wrap=True),
        ],
        [
            [
                result.item.id,
                result.item.db_id,
                *(_verdict(result.outcome.verdicts[name]) for name in decided),
                result.outcome.disagreement,
            ]
            for result in run.results
            if result.outcome.disagreement is not None
        ],
    )
    return Workbook(overview, statistics, [disagreements])
