"""Relations as JSON rows, CSV and SPARQL results JSON, and the registry of answer formats.

``FORMATS`` names every way an answer can be written as text — ``cas``, ``jsonrows``,
``sparql-json``, ``csv`` — with a reader and a writer each, so the CLI and the docs list them
from one place. Writers never fail for a relation; readers raise ``InputError``.

- **jsonrows**: a JSON array of rows, each an array of cells (or an object, keys in the first
  row's order): ``null`` is NIL, ``true``/``false`` booleans, numbers without a fraction or
  exponent integers, other numbers reals (kept exactly), strings strings.
- **csv**: a header line naming the columns, then one line per tuple; an empty cell is NIL.
  Each column is typed from all its non-empty cells: integers, numbers, ``true``/``false``,
  ISO dates, date-times or times (below), or strings.
- In both, a column whose non-null cells are all ISO dates (``1989-07-04``) is a date column;
  all ISO date-times in CAS spelling (``1989-07-04T10:30:00``, ``...Z``, ``...+02:00``), a
  date-time column; all times (``10:30:00``, ``10:30:00.5Z``), a time column.

>>> rel = read_jsonrows('[[1, "SMITH", 2.50], [2, null, 3.0]]')
>>> rel.rows[0][2]
Number(value=Decimal('2.50'), is_real=True, text='2.50')
>>> print(write_csv(rel), end="")
column1,column2,column3
1,SMITH,2.50
2,,3.0
>>> read_csv(write_csv(rel)) == rel
True
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from answerkey.adapters.sparql import relation_from_sparql_results, sparql_results_from_relation
from answerkey.errors import InputError
from answerkey.grammar import parse
from answerkey.grammar.atoms import DATETIME_SHAPE, NUMBER_SHAPE, TIME_SHAPE, BadAtom, number_value
from answerkey.grammar.render import render, render_value
from answerkey.model import (
    NIL,
    Answer,
    Boolean,
    Date,
    DateTime,
    Nil,
    Number,
    Relation,
    String,
    Time,
    Value,
    type_name,
    value_of,
)

_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


class _CellError(ValueError):
    """A bad cell; the reader adds where it is."""


def _number(text: str) -> Number:
    # The same bounds as CAS numbers: longer texts and wilder exponents are errors.
    try:
        return number_value(text)
    except BadAtom as error:
        raise _CellError(error.message) from None


def _iso_date(text: str) -> _dt.date | None:
    if not _ISO_DATE.fullmatch(text):
        return None
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        return None


def _iso_day(text: str) -> Date | None:
    day = _iso_date(text)
    return None if day is None else Date(day)


def _iso_date_time(text: str) -> DateTime | None:
    if not DATETIME_SHAPE.fullmatch(text):
        return None
    try:
        return DateTime.parse(text)
    except ValueError:
        return None


def _iso_time(text: str) -> Time | None:
    if not TIME_SHAPE.fullmatch(text):
        return None
    try:
        return Time.parse(text)
    except ValueError:
        return None


# The ISO texts a column of text cells may hold all of, and then holds as typed values.
_ISO_READERS: tuple[Callable[[str], Value | None], ...] = (_iso_day, _iso_date_time, _iso_time)


def _iso_reader(texts: list[str]) -> Callable[[str], Value | None] | None:
    """The reader of ``_ISO_READERS`` that reads every one of ``texts`` (at least one), or None."""
    if not texts:
        return None
    for read in _ISO_READERS:
        if all(read(text) is not None for text in texts):
            return read
    return None


def _date_columns(rows: list[list[Value]], arity: int) -> list[list[Value]]:
    """Turn every column whose non-NIL values are all ISO-date strings into dates, and so
    for date-times and times."""
    for column in range(arity):
        cells = [row[column] for row in rows if type(row[column]) is not Nil]
        if not all(isinstance(cell, String) for cell in cells):
            continue
        read = _iso_reader([cell.text for cell in cells])  # type: ignore[union-attr]  # all strings
        if read is not None:
            for row in rows:
                cell = row[column]
                if isinstance(cell, String):
                    row[column] = read(cell.text)  # type: ignore[assignment]  # read reads every cell
    return rows


def _relation(rows: list[list[Value]], source: str | None, where: Callable[[int], dict]) -> Relation:
    """A relation from typed rows, with a located error for a column of mixed types."""
    arity = len(rows[0]) if rows else 0
    rows = _date_columns(rows, arity)
    column_types: list[str | None] = [None] * arity
    for index, row in enumerate(rows):
        for column, value in enumerate(row):
            kind = type_name(value)
            if kind is None:
                continue
            if column_types[column] is None:
                column_types[column] = kind
            elif column_types[column] != kind:
                raise InputError(
                    f"row {index + 1}, column {column + 1}: a {kind} in a column of {column_types[column]}s",
                    source=source,
                    **where(index),
                )
    return Relation.checked(tuple(tuple(row) for row in rows), arity)


# --------------------------------------------------------------------------- JSON rows


def _json_number(text: str) -> Number:
    try:
        return _number(text)
    except ValueError as error:
        raise _CellError(str(error)) from None


def _json_constant(name: str):
    raise _CellError(f"{name} is not a number CAS can hold")


def _json_cell(cell: object) -> Value:
    # null, booleans, strings, and numbers already typed by the JSON parser: value_of's.
    if isinstance(cell, (list, dict)):
        raise _CellError(f"{'an array' if isinstance(cell, list) else 'an object'} is not a CAS value")
    return value_of(cell)


def read_jsonrows(text: str, *, source: str | None = None) -> Relation:
    """A relation from a JSON array of rows (arrays, or objects with the same keys).

    >>> read_jsonrows('[{"id": 2341, "name": "SMITH"}]').rows
    ((Number(value=2341, is_real=False, text='2341'), String(text='SMITH')),)
    """
    try:
        document = json.loads(text, parse_int=_json_number, parse_float=_json_number, parse_constant=_json_constant)
    except json.JSONDecodeError as error:
        raise InputError(f"invalid JSON: {error.msg}", source=source, line=error.lineno, column=error.colno) from None
    except _CellError as error:
        raise InputError(str(error), source=source) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", source=source) from None
    if not isinstance(document, list):
        raise InputError(f"JSON rows must be an array of rows, not {_json_kind(document)}", source=source)
    rows: list[list[Value]] = []
    keys: list[str] | None = None
    for index, row in enumerate(document):
        where = f"row {index + 1}"
        if isinstance(row, dict):
            if keys is None:
                keys = list(row)
            if set(row) != set(keys):
                raise InputError(
                    f"{where}: keys {sorted(row)} differ from the first row's {sorted(keys)}", source=source
                )
            row = [row[key] for key in keys]
        elif not isinstance(row, list):
            raise InputError(f"{where}: a row must be an array or an object, not {_json_kind(row)}", source=source)
        if not row:
            raise InputError(f"{where}: an empty row (a tuple has at least one value)", source=source)
        if rows and len(row) != len(rows[0]):
            raise InputError(f"{where} has {len(row)} values; row 1 has {len(rows[0])}", source=source)
        cells = []
        for column, cell in enumerate(row):
            try:
                cells.append(_json_cell(cell))
            except _CellError as error:
                raise InputError(f"{where}, column {column + 1}: {error}", source=source) from None
        rows.append(cells)
    return _relation(rows, source, lambda index: {})


def _json_kind(obj: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(obj), "null" if obj is None else "a number"
    )


def _json_real(number: Number) -> str:
    if _JSON_NUMBER.fullmatch(number.text) and any(c in number.text for c in ".eE"):
        return number.text
    text = str(number.value)
    return text if any(c in text for c in ".eE") else text + ".0"


def _json_value(value: Value) -> str:
    if isinstance(value, Number):
        return _json_real(value) if value.is_real else str(value.value)
    if isinstance(value, String):
        return json.dumps(value.text, ensure_ascii=False)
    if isinstance(value, Boolean):
        return "true" if value.value else "false"
    if isinstance(value, Date):
        return f'"{value.value.isoformat()}"'
    if isinstance(value, (DateTime, Time)):
        return f'"{value.isoformat()}"'
    if isinstance(value, Nil):
        return "null"
    raise ValueError(f"no JSON rows value for {value!r}")


def write_jsonrows(relation: Relation) -> str:
    """A relation as a JSON array of rows, one row per line (reals keep their digits).

    >>> print(write_jsonrows(Relation.from_rows([[1, "a"], [2.5, None]])), end="")
    [
      [1, "a"],
      [2.5, null]
    ]
    """
    if not relation.rows:
        return "[]\n"
    lines = ("  [" + ", ".join(map(_json_value, row)) + "]" for row in relation.rows)
    return "[\n" + ",\n".join(lines) + "\n]\n"


# --------------------------------------------------------------------------- CSV

_BOOLEANS = {"true": True, "false": False}


def _csv_column(cells: list[str]) -> Callable[[str], Value]:
    """How the non-empty cells of one CSV column are read: the narrowest type that fits all."""
    filled = [cell for cell in cells if cell]
    if filled and all(NUMBER_SHAPE.fullmatch(cell) for cell in filled):
        return _number
    if filled and all(cell.lower() in _BOOLEANS for cell in filled):
        return lambda cell: Boolean(_BOOLEANS[cell.lower()])
    read = _iso_reader(filled)
    if read is not None:
        return read  # type: ignore[return-value]  # it reads every cell
    return String


def read_csv(text: str, *, source: str | None = None) -> Relation:
    """A relation from CSV with a header line; columns typed from their cells.

    >>> read_csv("id,born\\n2341,1950-04-01\\n5573,\\n").rows[0]
    (Number(value=2341, is_real=False, text='2341'), Date(value=datetime.date(1950, 4, 1)))
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    records: list[tuple[int, list[str]]] = []
    try:
        for record in reader:
            if record:  # skip blank lines; a row of one empty cell is written as ""
                records.append((reader.line_num, record))
    except csv.Error as error:
        raise InputError(f"invalid CSV: {error}", source=source, line=reader.line_num) from None
    if len(records) < 2:
        return Relation(())
    (_, header), records = records[0], records[1:]
    arity = len(header)
    for line, record in records:
        if len(record) != arity:
            raise InputError(
                f"{len(record)} field{'s' if len(record) != 1 else ''}; the header has {arity}",
                source=source,
                line=line,
            )
    readers = [_csv_column([record[i] for _, record in records]) for i in range(arity)]
    rows = []
    for line, record in records:
        cells = []
        for column, (cell, read) in enumerate(zip(record, readers)):
            try:
                cells.append(read(cell) if cell else NIL)
            except ValueError as error:
                raise InputError(str(error), source=source, line=line, column=column + 1) from None
        rows.append(cells)
    return _relation(rows, source, lambda index: {"line": records[index][0]})


def _csv_cell(value: Value) -> str:
    # Numbers, booleans, dates, date-times and times are spelled as in CAS; strings go raw,
    # nil is an empty cell.
    if isinstance(value, String):
        return value.text
    if isinstance(value, Nil):
        return ""
    if isinstance(value, (Number, Boolean, Date, DateTime, Time)):
        return render_value(value)
    raise ValueError(f"no CSV cell for {value!r}")


def _csv_field(text: str) -> str:
    # The csv module leaves a lone \r unquoted when lines end in \n; quote it like the rest.
    if any(char in text for char in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _csv_line(fields: list[str]) -> str:
    # A line holding one empty field is written "" so that it is not a blank line.
    return ",".join(map(_csv_field, fields)) + "\n" if fields != [""] else '""\n'


def write_csv(relation: Relation, columns: Sequence[str] | None = None) -> str:
    """A relation as CSV: a header (``column1``, ... unless ``columns`` names them), then rows.

    The empty relation is the empty text.
    """
    if not relation.rows:
        return ""
    header = _csv_line(list(columns or [f"column{i + 1}" for i in range(relation.arity)]))
    return header + "".join(_csv_line([_csv_cell(value) for value in row]) for row in relation.rows)


# --------------------------------------------------------------------------- the registry


def _read_cas(text: str, *, source: str | None = None) -> Answer:
    return parse(text, source=source)


def _write_cas(answer: Answer) -> str:
    return render(answer) + "\n"


def _read_sparql(text: str, *, source: str | None = None) -> Relation:
    result = relation_from_sparql_results(text, source=source)
    if isinstance(result, bool):
        return Relation([[Boolean(result)]], scalar=True)
    return result


def _write_sparql(relation: Relation) -> str:
    return json.dumps(sparql_results_from_relation(relation), ensure_ascii=False, indent=1) + "\n"


@dataclass(frozen=True)
class AnswerFormat:
    """A way to write answers as text: ``read(text, source=)`` and ``write(answer)``.

    ``relations_only`` formats hold relations (not alternatives or ``NO_ANSWER``).
    """

    name: str
    suffix: str
    description: str
    read: Callable[..., Answer]
    write: Callable[..., str]
    relations_only: bool = True


FORMATS: dict[str, AnswerFormat] = {
    answer_format.name: answer_format
    for answer_format in (
        AnswerFormat("cas", ".cas", "CAS text (any answer)", _read_cas, _write_cas, relations_only=False),
        AnswerFormat("jsonrows", ".json", "a JSON array of rows", read_jsonrows, write_jsonrows),
        AnswerFormat("sparql-json", ".srj", "SPARQL 1.1 query results JSON", _read_sparql, _write_sparql),
        AnswerFormat("csv", ".csv", "CSV with a header line", read_csv, write_csv),
    )
}
RELATION_FORMATS = tuple(name for name, answer_format in FORMATS.items() if answer_format.relations_only)


def _format(name: str) -> AnswerFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown answer format {name!r} (known: {', '.join(FORMATS)})") from None


def read_answer(text: str, format: str = "cas", *, source: str | None = None) -> Answer:
    """Read an answer written in ``format`` (a name in ``FORMATS``).

    >>> read_answer('[["SMITH"]]', "jsonrows") == read_answer('(("SMITH"))')
    True
    """
    return _format(format).read(text, source=source)


def write_answer(answer: Answer, format: str = "cas") -> str:
    """Write ``answer`` in ``format``; formats that hold only relations raise ``ValueError``
    for alternatives and ``NO_ANSWER``."""
    answer_format = _format(format)
    if answer_format.relations_only and not isinstance(answer, Relation):
        raise ValueError(f"{format} holds relations only, not {type(answer).__name__}")
    return answer_format.write(answer)
