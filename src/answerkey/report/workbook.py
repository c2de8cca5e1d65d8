"""What a workbook holds, independent of how it is written (``answerkey.report.excel``).

Every run's workbook has the same sheets in the same order: ``Overview`` (one row per item,
test, case or question), ``Statistics`` (the figures, with the signature below them),
``Warnings`` (always present, so scripts can rely on it), then the sheets of its task. Every
table sheet has a bold frozen header with a filter; ratios and points are shown with the
decimals of ``answerkey.report.figures``, the same as in the terminal; cells hold full values.
Results describe their sheets with these classes, so no workflow imports openpyxl.

>>> sheet = Sheet("Overview", [Column("id", 10), Column("accuracy", 10, "ratio")], [["q1", 0.5]])
>>> sheet.header
['id', 'accuracy']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from answerkey.report.figures import POINTS_DECIMALS, RATIO_DECIMALS, excel_format

# Column format name -> Excel number format.
FORMATS = {
    "text": "@",
    "integer": "0",
    "ratio": excel_format(RATIO_DECIMALS),
    "points": excel_format(POINTS_DECIMALS),
    "number": "General",
    # An identifier: a number when it is written as one (``answerkey.report.excel.id_value``),
    # text otherwise.
    "id": "0",
}
# The sheets every workbook starts with, in this order.
SHEET_NAMES = ("Overview", "Statistics", "Warnings")
VERDICT_COLOURS = {"correct": "C6EFCE", "incorrect": "FFC7CE", "no_answer": "FFEB9C"}


@dataclass(frozen=True)
class Column:
    """A column of a table sheet: its header, width (characters), format (a ``FORMATS`` name),
    whether text wraps, and background colours by cell value (for verdicts)."""

    header: str
    width: int = 12
    format: str = "number"
    wrap: bool = False
    colours: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown column format {self.format!r}; known: {', '.join(FORMATS)}")


@dataclass(frozen=True)
class Chart:
    """A bar chart of some columns of a sheet's rows ``first`` to ``last`` (0-based, inclusive)
    against the labels in column ``labels`` (None: no labels, for a single row); its value
    axis runs over ``scale`` (None: chosen by the spreadsheet program)."""

    title: str
    labels: int | None
    values: tuple[int, ...]
    first: int
    last: int
    axis_title: str = ""
    horizontal: bool = True
    scale: tuple[float, float] | None = (0.0, 1.0)


@dataclass(frozen=True)
class CountChart:
    """A chart of counts that only the HTML page draws (inline SVG; the workbook has no
    place for it): ``groups`` of bars, each ``(group title, [(bar label, count), ...])``,
    every bar out of ``total``. ``name`` identifies it in the page (``<figure id=...>``)."""

    name: str
    title: str
    description: str
    groups: Sequence[tuple[str, Sequence[tuple[str, int]]]]
    total: int


@dataclass
class Sheet:
    """A table sheet: columns, rows of values (text, numbers, None for empty), charts, and
    ``notes``: (label, value) lines written below the table."""

    name: str
    columns: Sequence[Column]
    rows: Sequence[Sequence[object]]
    charts: Sequence[Chart] = ()
    notes: Sequence[tuple[str, object]] = ()

    @property
    def header(self) -> list[str]:
        """The column headers."""
        return [column.header for column in self.columns]


@dataclass
class Workbook:
    """A run's workbook: its ``Overview`` and ``Statistics`` sheets and its task sheets (the
    writer adds ``Warnings`` and the signature)."""

    overview: Sheet
    statistics: Sheet
    task_sheets: Sequence[Sheet] = field(default_factory=list)
    # For the HTML page only (the workbook leaves them out): per Overview row, the two results
    # aligned (``answerkey.report.alignment.aligned_document``, None for none), and the
    # charts of counts the overview draws.
    details: Sequence[dict[str, Any] | None] = ()
    count_charts: Sequence[CountChart] = ()

    def __post_init__(self) -> None:
        if (self.overview.name, self.statistics.name) != SHEET_NAMES[:2]:
            raise ValueError(f"the first two sheets are named {SHEET_NAMES[0]} and {SHEET_NAMES[1]}")
