"""The TSV file of questions and answers that ``answerkey answers`` judges, read as
graphrag-eval's ``answer-correctness`` reads it, with every problem located.

The file is UTF-8 text (a leading byte-order mark is dropped), tab-separated, quoted as
Python's ``csv`` module quotes (a cell with a tab, a line break or a leading quote is written
in double quotes, its quotes doubled: how graphrag-eval and spreadsheets write TSV). The first
non-blank line is the header; it must name the columns ``Question``, ``Reference answer`` and
``Actual answer`` exactly (other columns are allowed and copied to the output). Blank lines
are skipped, as graphrag-eval's reader skips them.

Refused, each as ``FILE:LINE:COL: message`` (all of them at once for rows): a header without
one of the three columns (with "did you mean"), a column named twice, a header that already
has the output's columns, a row with more or fewer cells than the header, a stray quote (a
quoted cell that goes on after its closing quote) and a quote left open at the end of the file;
an empty file, or a header without rows ("an empty input is refused").

>>> table = read_table("Question\\tReference answer\\tActual answer\\nQ1\\tParis\\tParis, France\\n", "in.tsv")
>>> [(row.line, row.question, row.actual_answer) for row in table.rows]
[(2, 'Q1', 'Paris, France')]
>>> read_table("Question\\tReference Answer\\tActual answer\\nQ\\tR\\tA\\n", "in.tsv")
Traceback (most recent call last):
...
answerkey.errors.InputErrors: in.tsv:1:10: the header has no column 'Reference answer' (did you mean ...?)
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from answerkey.answers.schema import ACTUAL_ANSWER, INPUT_COLUMNS, QUESTION, REFERENCE_ANSWER, output_header
from answerkey.errors import InputError, InputErrors, did_you_mean, plural
from answerkey.files import read_text, source_name
from answerkey.limits import MAX_INPUT_BYTES

# What Python's csv module says, in answerkey's words (the rest is shown as it says it).
_CSV_PROBLEMS = {
    "expected after '\"'": "a quoted cell goes on after its closing quote: a cell that starts with a quote must be "
    'quoted as a whole, with its quotes doubled ("Paris" is -> """Paris"" is")',
    "unexpected end of data": "a quoted cell is not closed before the end of the file",
}


@dataclass(frozen=True)
class AnswerRow:
    """One row: the line it starts on, and its cells in the header's order."""

    line: int
    cells: tuple[str, ...]
    question: str
    reference_answer: str
    actual_answer: str


@dataclass
class AnswerTable:
    """The rows of a questions-and-answers TSV file, under its header."""

    source: str
    header: list[str]
    rows: list[AnswerRow] = field(default_factory=list)


def _csv_problem(problem: csv.Error) -> str:
    text = str(problem)
    for known, words in _CSV_PROBLEMS.items():
        if known in text:
            return words
    return f"invalid TSV: {text}"


def _records(text: str, source: str, problems: list[InputError]) -> Iterator[tuple[int, list[str]]]:
    """(first line, cells) of each non-blank record; unreadable records go to ``problems``."""
    # A cell is at most as long as the file: the file's own limit bounds it.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_INPUT_BYTES))
    # strict: a stray quote is an error at its line, not a cell that silently loses its quotes.
    reader = csv.reader(io.StringIO(text, newline=""), dialect="excel-tab", strict=True)
    previous = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as problem:
            problems.append(InputError(_csv_problem(problem), source=source, line=previous + 1))
            previous = reader.line_num
            continue
        line, previous = previous + 1, reader.line_num
        if cells:  # a blank line reads as no cells
            yield line, cells


def _header_columns(text: str, line: int, header: Sequence[str]) -> list[int | None]:
    """The character column where each header cell starts, when the header is one unquoted line."""
    lines = io.StringIO(text, newline="")  # split into lines as the csv reader splits them
    raw = ""
    for _ in range(line):
        raw = lines.readline()
    if raw.rstrip("\r\n").split("\t") != list(header):
        return [None] * len(header)
    columns: list[int | None] = []
    column = 1
    for name in header:
        columns.append(column)
        column += len(name) + 1
    return columns


def _missing_columns(header: list[str], error: Callable[[str, int | None], InputError]) -> list[InputError]:
    """An error for each input column the header lacks, at the header cell it may be misspelt as."""
    missing = [name for name in INPUT_COLUMNS if name not in header]
    if len(missing) == len(INPUT_COLUMNS) and not any(did_you_mean(name, header) for name in missing):
        hint = (
            ": this looks like comma-separated values, and answerkey answers reads tab-separated ones"
            if len(header) == 1 and "," in header[0]
            else " (the first non-blank line is the header, with tab-separated column names)"
        )
        names = ", ".join(repr(name) for name in INPUT_COLUMNS)
        return [error(f"the header has none of the columns {names}{hint}", None)]
    problems = []
    for name in missing:
        hint = did_you_mean(name, header)
        close = next((index for index, cell in enumerate(header) if hint == f" (did you mean {cell!r}?)"), None)
        problems.append(error(f"the header has no column {name!r}{hint}", close))
    return problems


def _check_header(
    text: str, source: str, line: int, header: list[str], output_layout: str | None
) -> tuple[int, int, int]:
    """The positions of the three input columns; ``InputErrors`` for a header without one of
    them, with one twice, or (when the output copies the input's columns) with an output column."""
    columns = _header_columns(text, line, header)

    def error(message: str, index: int | None) -> InputError:
        return InputError(message, source=source, line=line, column=1 if index is None else columns[index])

    problems: list[InputError] = []
    first: dict[str, int] = {}
    for index, name in enumerate(header):
        if name in first and name in INPUT_COLUMNS:
            where = f"column {columns[first[name]]}" if columns[first[name]] else f"cell {first[name] + 1}"
            problems.append(error(f"the column {name!r} is given twice in the header (first at {where})", index))
        first.setdefault(name, index)
    problems.extend(_missing_columns(header, error))
    if output_layout == "all":
        added = output_header([], output_layout)
        for index, name in enumerate(header):
            if name in added:
                problems.append(
                    error(
                        f"the header already has the output column {name!r}: is this the output of an earlier run? "
                        "Judge the original file, or write only graphrag-eval's columns (--columns graphrag-eval)",
                        index,
                    )
                )
                break
    if problems:
        raise InputErrors(problems)
    return first[QUESTION], first[REFERENCE_ANSWER], first[ACTUAL_ANSWER]


def read_table(text: str, source: str = "<input>", *, output_layout: str | None = "all") -> AnswerTable:
    """The rows of TSV ``text`` (see the module's docstring for what is refused, as
    ``InputError`` or ``InputErrors``). ``output_layout`` is the ``--columns`` layout the
    output will have; with ``"all"`` the output copies the input's columns, so a header that
    already has the output's columns is refused."""
    if output_layout is not None:
        output_header([], output_layout)  # an unknown layout is refused before reading
    problems: list[InputError] = []
    records = _records(text, source, problems)
    first = next(records, None)
    if first is None:
        if problems:
            raise InputErrors(problems)
        raise InputError("no header and no rows (an empty input is refused)", source=source)
    header_line, header = first
    positions = _check_header(text, source, header_line, header, output_layout)
    table = AnswerTable(source, header)
    for line, cells in records:
        if len(cells) != len(header):
            problems.append(
                InputError(
                    f"the row has {plural(len(cells), 'cell')} but the header has {plural(len(header), 'column')}",
                    source=source,
                    line=line,
                )
            )
            continue
        question, reference, actual = (cells[position] for position in positions)
        table.rows.append(AnswerRow(line, tuple(cells), question, reference, actual))
    if problems:
        raise InputErrors(problems)
    if not table.rows:
        raise InputError("no rows under the header (an empty input is refused)", source=source)
    return table


def load_table(path: str | os.PathLike[str], *, output_layout: str | None = "all") -> AnswerTable:
    """Read a questions-and-answers TSV file (``-``: standard input); see ``read_table``."""
    return read_table(read_text(path), source_name(path), output_layout=output_layout)
