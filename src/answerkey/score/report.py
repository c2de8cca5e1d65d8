"""Reports of a scoring run: JSON, YAML, an Excel workbook and a text summary table.

The JSON/YAML document (``report_document``) has the shape of ``ScoreReport`` (printed by
``answerkey schema score-report``); its keys are part of the contract:

    {"signature": str,
     "summary": {"items", "scored", "correct", "incorrect", "no_answer", "accuracy",
                 "weighted_error", "score", "metrics", "by_category", "by_tag"},
     "items": [{"id", "verdict", "reason", "category", "tags", "metrics"}],
     "warnings": [str]}

Figures a group cannot have (accuracy with no scored item) are ``null``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from answerkey.gc_pause import gc_paused
from answerkey.score.run import GroupSummary, ItemResult, ScoreRun

__all__ = [
    "GroupFigures",
    "Summary",
    "ItemReport",
    "ScoreReport",
    "report_document",
    "to_json",
    "ItemLines",
    "to_yaml",
    "summary_table",
    "write_workbook",
]


def __getattr__(name: str) -> Any:
    # The report's pydantic models, imported only when asked for (pydantic costs ~0.1 s).
    if name in ("GroupFigures", "Summary", "ItemReport", "ScoreReport"):
        from answerkey.score import schema

        return getattr(schema, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def _numbers(metrics: dict[str, float]) -> dict[str, float | None]:
    # Most items have every metric defined: copy those whole (C level) rather than per value.
    try:
        if not any(map(math.isnan, metrics.values())):
            return dict(metrics)
    except TypeError:  # a None among them
        pass
    return {name: _number(value) for name, value in metrics.items()}


def _figures(group: GroupSummary) -> dict:
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


def _item_document(item: ItemResult) -> dict:
    return {
        "id": item.id,
        "verdict": item.verdict,
        "reason": item.reason,
        "category": item.category,
        "tags": list(item.tags),
        "metrics": _numbers(item.metrics),
    }


def _summary_document(run: ScoreRun) -> dict:
    summary = _figures(run.summary)
    summary["by_category"] = {name: _figures(group) for name, group in run.by_category.items()}
    summary["by_tag"] = {name: _figures(group) for name, group in run.by_tag.items()}
    return summary


def report_document(run: ScoreRun) -> dict:
    """The report as plain JSON-ready values, in the ``ScoreReport`` shape."""
    return {
        "signature": run.signature,
        "summary": _summary_document(run),
        "items": [_item_document(item) for item in run.items],
        "warnings": list(run.warnings),
    }


_compact = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": ")).encode

# What the compact encoder writes between two items (each starts with its id). A quote inside
# a JSON string is always escaped, so this text occurs nowhere else in the encoded list.
_NEXT_ITEM = '}, {"id": '


def _item_lines(items: list[ItemResult]) -> str:
    # One encoder call for many items (per item calls cost more than the encoding), then a
    # line break between items.
    return _compact([_item_document(item) for item in items])[1:-1].replace(_NEXT_ITEM, '},\n    {"id": ')


class ItemLines:
    """The JSON report's item lines, encoded while a run is still being scored.

    Give ``add`` to ``score_corpus`` (``each=``) and this to ``to_json``: with worker
    processes scoring, this process mostly waits, and would otherwise encode every item after
    they finish. The report is the same either way.
    """

    # Items encoded together: enough to amortise an encoder call, few enough to keep pace.
    CHUNK = 256

    def __init__(self) -> None:
        self._waiting: list[ItemResult] = []
        self._chunks: list[str] = []
        self.count = 0

    def add(self, item: ItemResult) -> None:
        """Take the next item's result (in report order)."""
        self._waiting.append(item)
        self.count += 1
        if len(self._waiting) == self.CHUNK:
            self._encode()

    def _encode(self) -> None:
        if self._waiting:
            with gc_paused():
                self._chunks.append(_item_lines(self._waiting))
            self._waiting = []

    def text(self) -> str:
        """Every item's line so far, joined as the report writes them."""
        self._encode()
        return ",\n    ".join(self._chunks)


def to_json(run: ScoreRun, lines: ItemLines | None = None) -> str:
    """The report as JSON text: indented, with one line per item and per warning. ``lines``
    holds the items already encoded (see ``ItemLines``), one per item of ``run``."""
    if lines is not None and lines.count != len(run.items):
        raise ValueError(f"ItemLines holds {lines.count} items; the run has {len(run.items)}")
    with gc_paused():  # see answerkey.gc_pause
        items = lines.text() if lines is not None else _item_lines(run.items)
        return _json_text(run, items)


def _json_text(run: ScoreRun, items: str) -> str:
    # json's indenting encoder is pure Python: only the small summary goes through it.
    def block(lines: str) -> str:
        return f"[\n    {lines}\n  ]" if lines else "[]"

    warnings = ",\n    ".join(map(_compact, run.warnings))
    summary = json.dumps(_summary_document(run), indent=2, ensure_ascii=False, allow_nan=False).replace("\n", "\n  ")
    return (
        "{\n"
        f'  "signature": {_compact(run.signature)},\n'
        f'  "summary": {summary},\n'
        f'  "items": {block(items)},\n'
        f'  "warnings": {block(warnings)}\n'
        "}\n"
    )


def to_yaml(run: ScoreRun) -> str:
    """The report as YAML text (the same document as the JSON)."""
    import yaml

    with gc_paused():
        return yaml.safe_dump(report_document(run), sort_keys=False, allow_unicode=True, width=100)


def _figure(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _rows(run: ScoreRun) -> list[tuple[str, GroupSummary]]:
    rows = [("all", run.summary)]
    rows += [(f"category {name}", group) for name, group in run.by_category.items()]
    rows += [(f"tag {name}", group) for name, group in run.by_tag.items()]
    return rows


_TABLE_COLUMNS = ("items", "scored", "correct", "incorrect", "no_answer", "accuracy", "weighted_error", "score")


def summary_table(run: ScoreRun) -> str:
    """A readable table: all items, each category, each tag; then metric means and the signature.

    Accuracy is a fraction; weighted error and score are ATIS percentage points.
    """
    body = [
        (
            name,
            str(group.items), str(group.scored), str(group.correct), str(group.incorrect), str(group.no_answer),
            _figure(group.accuracy, 3), _figure(group.weighted_error, 1), _figure(group.score, 1),
        )
        for name, group in _rows(run)
    ]
    header = ("group", *_TABLE_COLUMNS)
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    lines = []
    for row in [header, *body]:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    if run.metric_names:
        width = max(len(name) for name in run.metric_names)
        lines.append("")
        lines.append(f"{'metric'.ljust(width)}  mean over scored items")
        lines.extend(f"{name.ljust(width)}  {_figure(run.summary.metrics.get(name), 3)}" for name in run.metric_names)
        lines.append("")
    lines.append(f"signature: {run.signature}")
    return "\n".join(lines)


# ---------------------------------------------------------------- Excel


def _canonical_cell(canonical: str | None, max_answer: str | None) -> str | None:
    if max_answer is None:
        return canonical
    return f"min: {canonical}\nmax: {max_answer}"


def write_workbook(run: ScoreRun, path) -> None:
    """Write the workbook atomically: sheet ``Overview`` (one row per item, verdicts coloured)
    and sheet ``Statistics`` (all, per category, per tag, with a bar chart of accuracy per tag).
    Text from the input is always stored as text, never as a formula."""
    from openpyxl.chart import BarChart, Reference

    from answerkey.report.excel import FILLS, add_table, new_workbook, save_workbook, set_cell

    workbook = new_workbook()
    overview = workbook.create_sheet("Overview")
    names = list(run.metric_names)
    headers = ["id", "query", "verdict", "reason", "canonical", "system answer", "tags", "category", "context",
               *names]
    add_table(
        overview,
        headers,
        (
            [
                item.id, item.query, item.verdict, item.reason,
                _canonical_cell(item.canonical, item.max_answer), item.system, ", ".join(item.tags),
                item.category, "\n".join(item.context) or None, *(item.metrics.get(name) for name in names),
            ]
            for item in run.items
        ),
        widths=[14, 40, 11, 50, 30, 30, 20, 9, 40, *([12] * len(names))],
        wrap=True,
    )
    verdict_column = headers.index("verdict") + 1
    for row, item in enumerate(run.items, start=2):
        fill = FILLS.get(item.verdict)
        if fill is not None:
            overview.cell(row=row, column=verdict_column).fill = fill

    statistics = workbook.create_sheet("Statistics")
    stat_headers = ["group", *_TABLE_COLUMNS, *names]
    rows = [
        [
            name, group.items, group.scored, group.correct, group.incorrect, group.no_answer,
            group.accuracy, group.weighted_error, group.score, *(group.metrics.get(n) for n in names),
        ]
        for name, group in _rows(run)
    ]
    add_table(statistics, stat_headers, rows, widths=[24, 8, 8, 8, 10, 10, 10, 15, 8, *([12] * len(names))])
    after = len(rows) + 3
    set_cell(statistics.cell(row=after, column=1), "signature")
    set_cell(statistics.cell(row=after, column=2), run.signature)
    if run.by_tag:
        first_tag_row = 2 + 1 + len(run.by_category)  # header, "all", the categories
        last_tag_row = first_tag_row + len(run.by_tag) - 1
        accuracy_column = stat_headers.index("accuracy") + 1
        chart = BarChart()
        chart.type = "bar"
        chart.title = "Accuracy per tag"
        chart.y_axis.title = "accuracy"
        chart.y_axis.scaling.min = 0
        chart.y_axis.scaling.max = 1
        chart.legend = None
        chart.add_data(Reference(statistics, min_col=accuracy_column, min_row=first_tag_row,
                                 max_row=last_tag_row), titles_from_data=False)
        chart.set_categories(Reference(statistics, min_col=1, min_row=first_tag_row, max_row=last_tag_row))
        chart.height = max(7.5, 0.6 * len(run.by_tag) + 3)
        statistics.add_chart(chart, f"A{after + 2}")
    if run.warnings:
        warnings = workbook.create_sheet("Warnings")
        add_table(warnings, ["warning"], ([warning] for warning in run.warnings), widths=[100])
    save_workbook(workbook, path)
