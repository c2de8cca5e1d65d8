"""Writing a ``Workbook`` (``answerkey.report.workbook``) as an .xlsx file with openpyxl.

Text from the input stays text: openpyxl turns a string that starts with ``=`` into a
formula, and a spreadsheet program may treat ``+``, ``-`` and ``@`` the same way, so every
string is stored as a plain string cell. Characters XML cannot hold become U+FFFD; a carriage
return is written as a character reference so that it reads back as itself, not as a line
feed. An identifier column (format ``id``) holds a number where the id is written as one
(``id_value``). A row with wrapped text gets the height of its tallest cell (``row_height``):
openpyxl computes none, and LibreOffice shows a row without one a line high. Sheets are
written row by row (openpyxl's write-only mode), with a progress line on a terminal for large
workbooks. Import this module only when a workbook is wanted: openpyxl is slow to import.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import sys
import unicodedata
from collections.abc import Sequence
from typing import Any

from answerkey.files import output_stream
from answerkey.progress import progress
from answerkey.report.workbook import FORMATS, Chart, Column, Sheet, Workbook

# Characters XML 1.0 forbids (all C0 controls but tab, line feed and carriage return, and
# lone surrogates), replaced by U+FFFD.
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_MAX_CELL_CHARS = 32767
# An id written as a number: ASCII digits, no leading zero, below 2**53 (so a double holds it
# exactly and it reads back as the same digits).
_NUMBER_ID = re.compile(r"(?:0|[1-9][0-9]{0,15})\Z")
_LARGEST_ID = 2**53 - 1
# A line of the body font (Calibri 11) in points, and Excel's tallest row.
LINE_POINTS = 15.0
MAX_ROW_POINTS = 409.0


def id_value(value: object) -> object:
    """An identifier as a cell holds it: text of ASCII digits without a leading zero, below
    2**53, as that number; anything else unchanged (so ``007``, ``1e3`` and ``١٢`` stay text).

    >>> id_value("42"), id_value("007"), id_value("q1"), id_value(str(2**53)), id_value(7)
    (42, '007', 'q1', '9007199254740992', 7)
    """
    if isinstance(value, str) and _NUMBER_ID.match(value) and int(value) <= _LARGEST_ID:
        return int(value)
    return value


def _display_width(text: str) -> int:
    """Columns ``text`` takes: wide (East Asian) characters take two."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def wrapped_lines(text: str, width: int) -> int:
    """How many lines ``text`` takes in a wrapped cell ``width`` characters wide: each line
    broken at spaces, a word longer than the cell broken within.

    >>> wrapped_lines("short", 10), wrapped_lines("one two three four", 9), wrapped_lines("a\\nb\\r\\nc", 10)
    (1, 3, 3)
    >>> wrapped_lines("x" * 25, 10)
    3
    """
    width = max(1, width)
    count = 0
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        count += _line_count(line, width)
    return count


def _line_count(line: str, width: int) -> int:
    if _display_width(line) <= width:
        return 1
    count, used = 1, 0
    for word in line.split(" "):
        size = _display_width(word)
        needed = used + 1 + size if used else size
        if needed <= width:
            used = needed
            continue
        if used:
            count += 1
        full, rest = divmod(size, width)
        if rest:
            count, used = count + full, rest
        else:
            count, used = count + full - 1, width
    return count


def row_height(values: Sequence[object], widths: Sequence[int], wrapped: Sequence[bool]) -> float | None:
    """The height in points of a row of ``values`` whose columns are ``widths`` characters wide
    and wrap or not: a line per line of its tallest wrapped cell, at most Excel's 409 points;
    None for a row of one line (the default height).

    >>> row_height(["id", "a b c d"], [5, 1], [False, True]), row_height(["x"], [5], [True])
    (60.0, None)
    """
    lines = 1
    for value, width, wraps in zip(values, widths, wrapped, strict=False):
        if wraps and isinstance(value, str) and value:
            lines = max(lines, wrapped_lines(value, width))
    return None if lines == 1 else min(MAX_ROW_POINTS, LINE_POINTS * lines)


def cell_text(value: object) -> str:
    """``value`` as the text of a cell: characters XML cannot hold replaced, cut to Excel's
    32,767 characters.

    >>> cell_text("a\\x00b"), len(cell_text("x" * 40000))
    ('a\\ufffdb', 32767)
    """
    text = _ILLEGAL.sub("\ufffd", str(value))
    if len(text) > _MAX_CELL_CHARS:
        text = text[: _MAX_CELL_CHARS - 1] + "…"
    return text


class _Writer:
    """Sheets written row by row into an openpyxl write-only workbook (openpyxl is imported
    here, when a workbook is written, not with this module)."""

    def __init__(self, *, quiet: bool, label: str) -> None:
        import openpyxl
        from openpyxl.cell import WriteOnlyCell
        from openpyxl.styles import Alignment, Font, PatternFill

        self.book = openpyxl.Workbook(write_only=True)
        self.new_cell = WriteOnlyCell
        self.new_fill = PatternFill
        # Named as the body font: a nameless bold font shows in a serif face in LibreOffice.
        self.header_font = Font(name="Calibri", size=11, bold=True)
        self.wrap = Alignment(wrap_text=True, vertical="top")
        # Every cell at the top, so a row's short values line up with its wrapped text.
        self.top = Alignment(vertical="top")
        self.quiet = quiet
        self.label = label
        self.carriage_returns = False
        self.fills: dict[str, Any] = {}

    def cell(
        self, sheet: Any, value: object, number_format: str | None = None, wrap: bool = False, colour: str | None = None
    ) -> Any:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            cell = self.new_cell(sheet, value=None)
        elif isinstance(value, (bool, int, float)):
            cell = self.new_cell(sheet, value=value)
            if number_format is not None and number_format != "@":
                cell.number_format = number_format
        else:
            text = cell_text(value)
            if "\r" in text:
                self.carriage_returns = True
            cell = self.new_cell(sheet, value=text)
            cell.data_type = "s"  # after the value: openpyxl has just guessed "f" for "=..."
        cell.alignment = self.wrap if wrap else self.top
        if colour is not None:
            fill = self.fills.get(colour)
            if fill is None:
                fill = self.fills[colour] = self.new_fill("solid", fgColor=colour)
            cell.fill = fill
        return cell

    def table(self, spec: Sheet, notes: Sequence[tuple[str, object]] = ()) -> None:
        from openpyxl.utils import get_column_letter

        sheet = self.book.create_sheet(spec.name)
        # Never narrower than its header, which would be cut.
        widths = [max(column.width, len(column.header) + 2) for column in spec.columns]
        for index, width in enumerate(widths, start=1):
            sheet.column_dimensions[get_column_letter(index)].width = width
        wrapped = [column.wrap for column in spec.columns]
        ids = [column.format == "id" for column in spec.columns]
        sheet.freeze_panes = "A2"
        header = []
        for column in spec.columns:
            cell = self.cell(sheet, column.header)
            cell.font = self.header_font
            header.append(cell)
        sheet.append(header)
        formats = [FORMATS[column.format] for column in spec.columns]
        rows = spec.rows
        shown = progress(rows, total=len(rows), label=f"writing {self.label}: {spec.name}", quiet=self.quiet)
        for number, row in enumerate(shown, start=2):
            if any(ids):
                row = [id_value(value) if index < len(ids) and ids[index] else value for index, value in enumerate(row)]
            height = row_height(row, widths, wrapped)
            if height is not None:
                # Set before the row is appended: a write-only sheet writes it then.
                sheet.row_dimensions[number].height = height
            sheet.append(
                [
                    self.cell(
                        sheet,
                        value,
                        formats[index] if index < len(formats) else None,
                        spec.columns[index].wrap if index < len(spec.columns) else False,
                        _colour(spec, index, value),
                    )
                    for index, value in enumerate(row)
                ]
            )
        last_row = len(rows) + 1
        sheet.auto_filter.ref = f"A1:{get_column_letter(max(1, len(spec.columns)))}{last_row}"
        all_notes = [*spec.notes, *notes]
        if all_notes:
            sheet.append([])
            for label, value in all_notes:
                label_cell = self.cell(sheet, label)
                label_cell.font = self.header_font
                sheet.append([label_cell, self.cell(sheet, value)])
        anchor_row = last_row + len(all_notes) + 3
        for chart_spec in spec.charts:
            sheet.add_chart(_chart(sheet, chart_spec, spec.header), f"A{anchor_row}")
            anchor_row += max(16, 2 * (chart_spec.last - chart_spec.first + 1) + 4)

    def save(self, path: str | os.PathLike[str]) -> None:
        buffer = io.BytesIO()
        self.book.save(buffer)
        data = buffer.getvalue()
        if self.carriage_returns:
            data = _keep_carriage_returns(data)
        with output_stream(path) as stream:
            stream.write(data)


def _colour(spec: Sheet, index: int, value: object) -> str | None:
    if index >= len(spec.columns):
        return None
    colours = spec.columns[index].colours
    return colours.get(value) if colours and isinstance(value, str) else None


def _chart(sheet: Any, spec: Chart, titles: Sequence[str]) -> Any:
    """A bar chart of ``spec``; each series is named by its column's header (``titles``)."""
    from openpyxl.chart import BarChart, Reference, Series

    chart = BarChart()
    chart.type = "bar" if spec.horizontal else "col"
    chart.title = spec.title
    chart.y_axis.title = spec.axis_title
    if spec.scale is not None:
        chart.y_axis.scaling.min, chart.y_axis.scaling.max = spec.scale
    first, last = spec.first + 2, spec.last + 2  # the header is row 1
    for column in spec.values:
        values = Reference(sheet, min_col=column + 1, min_row=first, max_row=last)
        chart.series.append(Series(values, title=titles[column] if column < len(titles) else None))
    if spec.labels is not None:
        chart.set_categories(Reference(sheet, min_col=spec.labels + 1, min_row=first, max_row=last))
    if len(spec.values) == 1:
        chart.legend = None
    chart.height = max(7.5, 0.6 * (spec.last - spec.first + 1) + 3)
    chart.width = 18
    return chart


def _keep_carriage_returns(data: bytes) -> bytes:
    """The workbook with each raw carriage return in sheet text as ``&#13;``: XML readers turn
    a raw one into a line feed, a character reference they keep."""
    import zipfile

    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            content = source.read(info)
            if info.filename.startswith("xl/worksheets/") or info.filename == "xl/sharedStrings.xml":
                content = content.replace(b"\r", b"&#13;")
            target.writestr(info, content)
    return out.getvalue()


def write_workbook(
    workbook: Workbook,
    path: str | os.PathLike[str],
    *,
    warnings: Sequence[object] = (),
    signature: str = "",
    quiet: bool = False,
) -> None:
    """Write ``workbook`` to ``path`` (atomically, see ``answerkey.files.output_stream``):
    ``Overview``, ``Statistics`` (the signature below its table), ``Warnings``, then the task
    sheets."""
    writer = _Writer(quiet=quiet, label=os.fspath(path))
    try:
        writer.table(workbook.overview)
        writer.table(workbook.statistics, notes=[("signature", signature)] if signature else [])
        writer.table(Sheet("Warnings", [Column("warning", 120, "text")], [[str(warning)] for warning in warnings]))
        for sheet in workbook.task_sheets:
            writer.table(sheet)
        writer.save(path)
    except BaseException:
        _abandon(writer.book)
        raise


def _abandon(book: Any) -> None:
    """Close, quietly, what openpyxl leaves open when writing stops half-way (Ctrl-C): each
    write-only sheet writes its rows through a generator over a temporary file, and one left
    to be finalized at exit, after its file, printed "Exception ignored ... I/O operation on
    closed file"."""
    hook = sys.unraisablehook
    sys.unraisablehook = _ignore
    try:
        for sheet in book.worksheets:
            rows = getattr(sheet, "_rows", None)
            if rows is not None:
                with contextlib.suppress(Exception):
                    rows.close()
    finally:
        sys.unraisablehook = hook


def _ignore(unraisable: Any) -> None:
    """An unraisable-exception hook that shows nothing."""
