"""An Excel workbook of evaluation results: one row per question, the aggregates, the step
counts, and the signature. Imports openpyxl only when called."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from answerkey.steps.aggregates import METRICS

__all__ = ["write_workbook", "QUESTION_COLUMNS"]

# Per-question columns, in order; `matches` lists the matched actual step ids of the last group.
QUESTION_COLUMNS = (
    "template_id",
    "question_id",
    "question_text",
    "status",
    "error",
    "steps_score",
    "matches",
    "mismatches",
    "answer_recall",
    "answer_precision",
    "answer_f1",
    "answer_relevance",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "elapsed_sec",
)
_STATISTICS = ("sum", "mean", "median", "min", "max")


def _last_group(result: Mapping) -> list:
    groups = result.get("reference_steps")
    if isinstance(groups, list) and groups and isinstance(groups[-1], list):
        return [step for step in groups[-1] if isinstance(step, Mapping)]
    return []


def _question_row(result: Mapping) -> list[Any]:
    group = _last_group(result)
    derived = {
        "matches": ", ".join(str(step["matches"]) for step in group if "matches" in step),
        "mismatches": "\n".join(f"{step.get('name')}: {step['mismatch']}" for step in group if "mismatch" in step),
    }
    row = []
    for column in QUESTION_COLUMNS:
        value = derived[column] if column in derived else result.get(column)
        row.append(value if isinstance(value, (int, float, str)) or value is None else str(value))
    return row


def _aggregate_rows(aggregates: Mapping) -> list[list[Any]]:
    rows = []
    scopes = [("per_template", template, block) for template, block in aggregates.get("per_template", {}).items()]
    scopes.append(("micro", "", aggregates.get("micro", {})))
    scopes.append(("macro", "", aggregates.get("macro", {})))
    for scope, template, block in scopes:
        for count in ("number_of_error_samples", "number_of_success_samples"):
            if count in block:
                rows.append([scope, template, count, block[count]] + [None] * (len(_STATISTICS) - 1))
        for metric in METRICS:
            if metric in block:
                rows.append([scope, template, metric] + [block[metric].get(name) for name in _STATISTICS])
    return rows


def _step_rows(aggregates: Mapping) -> list[list[Any]]:
    rows = []
    for template, block in aggregates.get("per_template", {}).items():
        for kind, counts in block.get("steps", {}).items():
            for name, count in counts.items():
                rows.append([template, kind, name, count])
    return rows


def write_workbook(
    path: str | os.PathLike, results: Sequence[Mapping], aggregates: Mapping, *, signature: str = ""
) -> None:
    """Write ``results`` and ``aggregates`` to an .xlsx file atomically (text stays text)."""
    from answerkey.report.excel import add_table, new_workbook, save_workbook, set_cell

    workbook = new_workbook()
    add_table(
        workbook.create_sheet("questions"),
        QUESTION_COLUMNS,
        (_question_row(result) for result in results),
        widths=[30, 24, 50, 9, 40, 11, 30, 50] + [12] * 8,
    )
    add_table(
        workbook.create_sheet("aggregates"),
        ("scope", "template_id", "metric", *_STATISTICS),
        _aggregate_rows(aggregates),
        widths=[13, 30, 26] + [14] * len(_STATISTICS),
    )
    add_table(
        workbook.create_sheet("steps"),
        ("template_id", "count", "step", "value"),
        _step_rows(aggregates),
        widths=[30, 16, 24, 8],
    )
    about = workbook.create_sheet("signature")
    set_cell(about.cell(row=1, column=1), "signature")
    set_cell(about.cell(row=1, column=2), signature)
    save_workbook(workbook, path)
