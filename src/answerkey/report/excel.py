"""Writing Excel workbooks where text from input stays text.

openpyxl turns any string that starts with ``=`` into a formula; a spreadsheet program may
treat ``+``, ``-`` and ``@`` the same way. Every string goes through ``set_cell`` and is
stored as a plain string cell. Import this module only when a workbook is wanted: openpyxl
is slow to import.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence

from openpyxl import Workbook
from openpyxl.cell.cell import Cell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from answerkey.files import atomic_path

__all__ = ["set_cell", "add_table", "new_workbook", "save_workbook", "FILLS"]

# Characters Excel rejects in a cell (XML 1.0 forbids them); replaced by U+FFFD.
_ILLEGAL = {c: "\ufffd" for c in range(32) if c not in (9, 10, 13)}
_MAX_CELL_CHARS = 32767

FILLS = {
    "correct": PatternFill("solid", fgColor="C6EFCE"),
    "incorrect": PatternFill("solid", fgColor="FFC7CE"),
    "no_answer": PatternFill("solid", fgColor="FFEB9C"),
}
_HEADER_FONT = Font(bold=True)
_WRAP = Alignment(wrap_text=True, vertical="top")


def set_cell(cell: Cell, value: object) -> None:
    """Put ``value`` in ``cell``: numbers as numbers, None and NaN as empty, anything else as
    text that is never read as a formula."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        cell.value = None
        return
    if isinstance(value, (bool, int, float)):
        cell.value = value
        return
    text = str(value).translate(_ILLEGAL)
    if len(text) > _MAX_CELL_CHARS:
        text = text[: _MAX_CELL_CHARS - 1] + "…"
    cell.value = text
    cell.data_type = "s"  # after assignment: openpyxl has just guessed "f" for "=..."


def add_table(
    sheet: Worksheet,
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    widths: Sequence[int] | None = None,
    wrap: bool = False,
) -> None:
    """Fill ``sheet`` with a header row (bold, frozen, with an autofilter) and ``rows``."""
    for column, header in enumerate(headers, start=1):
        cell = sheet.cell(row=1, column=column)
        set_cell(cell, header)
        cell.font = _HEADER_FONT
    row_count = 1
    for row_count, row in enumerate(rows, start=2):
        for column, value in enumerate(row, start=1):
            cell = sheet.cell(row=row_count, column=column)
            set_cell(cell, value)
            if wrap:
                cell.alignment = _WRAP
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(headers))}{max(row_count, 1)}"
    for column, width in enumerate(widths or [], start=1):
        sheet.column_dimensions[get_column_letter(column)].width = width


def new_workbook() -> Workbook:
    """An empty workbook (its default sheet removed)."""
    workbook = Workbook()
    workbook.remove(workbook.active)
    return workbook


def save_workbook(workbook: Workbook, path: str | os.PathLike) -> None:
    """Save atomically: the old file stays until the new one is complete."""
    with atomic_path(path) as temporary:
        workbook.save(temporary)
