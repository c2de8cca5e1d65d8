"""Results given as CSV files rather than as SQL (an answerkey corpus item's ``gold_results``,
Spider 2.0-lite's gold and predicted result files), read as Spider 2.0's evaluator reads them.

A file is read with the standard ``csv`` module (comma, double quotes, strict quoting): its
first non-blank row is the header (the column names), blank lines (and lines of spaces and
tabs) are skipped, as pandas' ``read_csv`` skips them; a row shorter than the header ends in
missing values, as ``read_csv`` fills it, and a longer one is an error. Each
column is then typed as ``read_csv`` types it with its defaults (``pandas_csv_column``): all
integers are integers, all numbers reals, ``True``/``False`` booleans, the texts pandas reads
as missing (the empty text, ``NA``, ``null``, ``NaN``...) NULL, anything else text. A file is
bounded as a query result is: ``SQL_MAX_RESULT_BYTES`` bytes, ``SQL_MAX_ROWS`` rows,
``MAX_COLUMNS`` columns. Every problem is an ``InputError`` at ``FILE:LINE:COL``.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp(), "q1.csv")
>>> _ = path.write_text("name,total\\nAnn,3\\nBob,\\n")
>>> result = read_result_csv(path)
>>> from answerkey.grammar.render import render_value
>>> result.columns, [[render_value(value) for value in row] for row in result.rows]
(('name', 'total'), [['"Ann"', '3.0'], ['"Bob"', 'NIL']])
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass

from answerkey.adapters.engines import engine_value
from answerkey.adapters.sql import QueryResult
from answerkey.errors import InputError, plural
from answerkey.execution.semantics.spider2 import pandas_csv_column
from answerkey.files import read_text, source_name
from answerkey.limits import MAX_COLUMNS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS
from answerkey.model import Value


@dataclass(frozen=True)
class ResultFile:
    """A result read from a CSV file: where it is, its column names and its values by column,
    as pandas reads them (``int``, ``float``, ``bool``, ``str``; None where missing).

    ``condition_cols`` are this gold's own Spider 2.0 condition columns (Spider 2.0-lite
    gives one list per gold file); None: the item's."""

    source: str
    columns: tuple[str, ...]
    values: tuple[tuple[object, ...], ...]
    condition_cols: tuple[int, ...] | None = None

    @property
    def rows(self) -> tuple[tuple[Value, ...], ...]:
        """The rows as typed values (``answerkey.model``)."""
        return tuple(zip(*([engine_value(value) for value in column] for column in self.values)))

    def query_result(self) -> QueryResult:
        """The rows as a ``QueryResult``, which the semantics decide as a query's: the values
        as a driver's (typed when first asked for), or typed at once when a column holds
        booleans (which no SQL driver gives)."""
        if any(type(value) is bool for column in self.values for value in column):
            return QueryResult(self.rows, self.columns)
        count = len(self.values[0]) if self.values else 0
        return QueryResult.of_driver_columns(tuple(map(list, self.values)), self.columns, count=count)


def _cells(text: str, source: str) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of CSV ``text``: blank lines skipped, every row as wide as the header."""
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows: list[list[str]] = []
    previous = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as problem:
            raise InputError(f"invalid CSV: {problem}", source=source, line=previous + 1, column=1) from None
        line, previous = previous + 1, reader.line_num
        if not cells or (len(cells) == 1 and cells[0] and not cells[0].strip(" \t")):
            continue  # a blank line, or one of spaces and tabs, which read_csv skips too
        if header is None:
            if len(cells) > MAX_COLUMNS:
                message = f"{plural(len(cells), 'column')}, more than the limit of {MAX_COLUMNS:,}"
                raise InputError(message, source=source, line=line, column=1)
            header = cells
            continue
        if len(cells) > len(header):
            counts = f"the row has {plural(len(cells), 'cell')} but the header has {plural(len(header), 'column')}"
            raise InputError(counts, source=source, line=line, column=1)
        # A short row ends in missing values, as read_csv fills it (Spider 2.0's golds have some).
        cells += [""] * (len(header) - len(cells))
        if len(rows) == SQL_MAX_ROWS:
            raise InputError(f"more than the limit of {SQL_MAX_ROWS:,} rows", source=source, line=line, column=1)
        rows.append(cells)
    if header is None:
        raise InputError("no header row: a result file starts with its column names", source=source, line=1, column=1)
    return header, rows


def read_result_csv(path: str | os.PathLike[str], *, source: str | None = None) -> ResultFile:
    """The result in the CSV file at ``path``, typed as pandas' ``read_csv`` types it (see the
    module); ``source`` names it in errors (default: the path). ``InputError`` at
    ``FILE:LINE:COL`` for a file that cannot be read, is not CSV, or is beyond the limits."""
    name = source or source_name(path)
    try:
        text = read_text(path, max_bytes=SQL_MAX_RESULT_BYTES)
    except InputError as error:
        raise InputError(error.message, source=name, line=error.line, column=error.column) from None
    header, cells = _cells(text, name)
    columns = [pandas_csv_column(column)[1] for column in zip(*cells)] if cells else [[] for _ in header]
    # pandas' NaN is a missing value: None, as a driver gives NULL.
    values = tuple(tuple(None if value != value else value for value in column) for column in columns)
    return ResultFile(name, tuple(header), values)
