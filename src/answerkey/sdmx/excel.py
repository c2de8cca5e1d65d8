"""The SDMX Excel report (methodology, "Excel Report"): an ``Overview`` sheet with one row per
case and a ``Statistics`` sheet with the "Data Query Metrics" block and a chart per tag.

Imports openpyxl, so import this module only when a workbook is wanted.
"""

from __future__ import annotations

import os

from openpyxl.chart import BarChart, Reference, Series
from openpyxl.styles import Font

from answerkey.report.excel import add_table, new_workbook, save_workbook, set_cell
from answerkey.sdmx.run import SuiteResult
from answerkey.sdmx.report import details_text, not_in_target_text

__all__ = ["OVERVIEW_HEADERS", "STATISTICS_HEADERS", "build_workbook", "write_workbook"]

OVERVIEW_HEADERS = (
    "id",
    "name",
    "query",
    "tags",
    "macro recall",
    "macro precision",
    "indicator selection details",
    "dimensions not in target",
)
_OVERVIEW_WIDTHS = (38, 32, 48, 16, 14, 16, 64, 44)
STATISTICS_HEADERS = ("tag", "cases", "mean macro recall", "mean macro precision")
_FIGURE_FORMAT = "0.00"


def build_workbook(suite: SuiteResult):
    """An openpyxl workbook holding the report of ``suite``."""
    workbook = new_workbook()
    overview = workbook.create_sheet("Overview")
    add_table(
        overview,
        OVERVIEW_HEADERS,
        (
            (
                case.id,
                case.name,
                case.query,
                ", ".join(case.tags),
                case.macro_recall,
                case.macro_precision,
                details_text(case),
                not_in_target_text(case),
            )
            for case in suite.cases
        ),
        widths=_OVERVIEW_WIDTHS,
        wrap=True,
    )
    for row in overview.iter_rows(min_row=2, min_col=5, max_col=6):
        for cell in row:
            cell.number_format = _FIGURE_FORMAT
    _statistics(workbook.create_sheet("Statistics"), suite)
    return workbook


def _statistics(sheet, suite: SuiteResult) -> None:
    bold = Font(bold=True)
    set_cell(sheet["A1"], "Data Query Metrics")
    sheet["A1"].font = Font(bold=True, size=13)
    for column, header in enumerate(STATISTICS_HEADERS, start=1):
        cell = sheet.cell(row=2, column=column)
        set_cell(cell, header)
        cell.font = bold
    rows = [("(all)", suite.summary), *suite.by_tag.items()]
    for index, (tag, summary) in enumerate(rows, start=3):
        values = (tag, summary.cases, summary.macro_recall, summary.macro_precision)
        for column, value in enumerate(values, start=1):
            cell = sheet.cell(row=index, column=column)
            set_cell(cell, value)
            if column > 2:
                cell.number_format = _FIGURE_FORMAT
    last = 2 + len(rows)
    set_cell(sheet.cell(row=last + 2, column=1), "signature")
    sheet.cell(row=last + 2, column=1).font = bold
    set_cell(sheet.cell(row=last + 2, column=2), suite.signature)
    for letter, width in zip("ABCD", (24, 8, 20, 22)):
        sheet.column_dimensions[letter].width = width

    # One pair of bars per tag; with no tags, the overall row alone.
    first = 4 if suite.by_tag else 3
    last_charted = last if suite.by_tag else 3
    chart = BarChart()
    chart.type = "col"
    chart.title = "Macro recall and precision per tag"
    chart.y_axis.title = "mean over cases"
    chart.y_axis.scaling.min = 0
    chart.y_axis.scaling.max = 1
    for column in (3, 4):
        values = Reference(sheet, min_col=column, min_row=first, max_row=last_charted)
        chart.series.append(Series(values, title=STATISTICS_HEADERS[column - 1]))
    chart.set_categories(Reference(sheet, min_col=1, min_row=first, max_row=last_charted))
    chart.width, chart.height = 18, 9
    sheet.add_chart(chart, "F2")


def write_workbook(suite: SuiteResult, path: str | os.PathLike) -> None:
    """Write the report of ``suite`` to ``path`` atomically."""
    save_workbook(build_workbook(suite), path)
