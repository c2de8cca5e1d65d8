"""Tests files of ``answerkey qatch``: a loader with every problem at ``FILE:LINE:COL``.

A tests file holds one test per row (``QatchTestRow``, ``answerkey schema qatch-tests``):
JSON Lines, a JSON or YAML list of mappings, or CSV (or TSV) with a header row. A test has a
``db_id``, a target column (default ``query``) and a prediction column (default
``prediction``), and optionally an ``id`` (default: its position in the file, from 1). The
format is chosen by the file name's suffix (``.csv``, ``.tsv``, ``.jsonl``/``.ndjson``, ``.json``,
``.yaml``/``.yml``; other names and standard input are sniffed) or named explicitly (``FORMATS``).

Every bad row is reported, located, and nothing is returned: a row that is not a mapping, a
missing column, an empty or mistyped target, a missing ``db_id`` where the target is SQL, an
id given twice, a CSV row with fewer or more cells than the header. The shared readers
(``answerkey.files``) refuse what is not text or not JSON (a lone surrogate escape
``"\\ud800"``, ``NaN``, a key given twice, ...) before any test runs. An empty file is an
error, as for every input. A prediction of any shape is accepted: a malformed one scores 0.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp(), "tests.jsonl")
>>> _ = path.write_text('{"id": "a", "query": [["x"]], "prediction": [["x"]]}\\n'
...                     '{"id": "a", "db_id": "uk", "query": "SELECT 1"}\\n')
>>> try:
...     load_tests(path, task="qa")
... except InputErrors as errors:
...     for error in errors.errors:
...         print(error.line, error.column, error.message)
2 1 missing prediction column 'prediction'
2 2 duplicate id 'a' (first on line 1)
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from answerkey.errors import InputError, InputErrors, did_you_mean, kind_of, plural
from answerkey.files import Document, id_text, load_document, read_text, source_name
from answerkey.limits import MAX_TABLE_CHARS
from answerkey.qatch.run import TASKS, QatchTest, is_table

# Format names --format takes; each is read as this document format, or "csv".
FORMATS = {"jsonl": "jsonl", "json": "json", "yaml": "yaml", "csv": "csv", "tsv": "tsv"}
CSV_SUFFIXES = (".csv",)
TSV_SUFFIXES = (".tsv",)


class _Row(NamedTuple):
    """One row as read: its value, its line and a way to locate errors at its keys."""

    value: Any
    line: int | None
    error: Callable[[str, str | None], InputError]


def _document_rows(document: Document) -> Iterator[_Row]:
    for index, value in enumerate(document.data):

        def error(message: str, key: str | None = None, index: int = index) -> InputError:
            return document.error(message, (index,) if key is None else (index, key))

        yield _Row(value, document.locate((index,))[0], error)


def _csv_rows(
    text: str, source: str, columns: Mapping[str, str], delimiter: str = ","
) -> tuple[list[_Row], list[InputError]]:
    """The rows of CSV text (TSV with ``delimiter`` a tab) under its header, and the errors
    of the rows that cannot be read.

    ``columns`` names the columns every row needs (what -> name): a header without one of
    them is one error, not one per row."""
    # A table given as JSON text may be long; longer than MAX_TABLE_CHARS it is malformed.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_TABLE_CHARS + 1))
    # strict: a stray quote is an error at its line, not a cell that silently differs.
    reader = csv.reader(io.StringIO(text, newline=""), strict=True, delimiter=delimiter)
    header: list[str] | None = None
    rows: list[_Row] = []
    errors: list[InputError] = []
    previous = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as problem:
            errors.append(InputError(f"invalid CSV: {problem}", source=source, line=previous + 1))
            previous = reader.line_num
            continue
        line = previous + 1
        previous = reader.line_num
        if not cells:
            continue  # a blank line

        def error(message: str, key: str | None = None, line: int = line) -> InputError:
            return InputError(message, source=source, line=line)

        if header is None:
            header = cells
            seen: set[str] = set()
            for name in header:
                if name in seen:
                    errors.append(error(f"the column {name!r} is given twice in the header"))
                seen.add(name)
            for what, name in columns.items():
                if name not in seen:
                    errors.append(error(f"the header has no {what} column {name!r}{did_you_mean(name, header)}"))
            if errors:
                return [], errors
            continue
        if len(cells) != len(header):
            errors.append(
                error(f"the row has {plural(len(cells), 'cell')} but the header has {plural(len(header), 'column')}")
            )
            continue
        rows.append(_Row(dict(zip(header, cells)), line, error))
    return rows, errors


class _Checker:
    """Checks rows one by one into tests, collecting the errors."""

    def __init__(self, task: str, target_col: str, prediction_col: str) -> None:
        self.task = task
        self.target_col = target_col
        self.prediction_col = prediction_col
        self.errors: list[InputError] = []
        self.first_line: dict[str, int | None] = {}

    def test(self, position: int, row: _Row) -> QatchTest | None:
        """The test of ``row`` (``position`` from 1), or None after recording its errors."""
        value = row.value
        if not isinstance(value, dict):
            self.errors.append(row.error(f"a test is a mapping of columns, not {kind_of(value)}", None))
            return None
        found = len(self.errors)
        target = self._column(row, self.target_col, "target")
        prediction = self._column(row, self.prediction_col, "prediction")
        identifier = self._identifier(row, position)
        if target is not None:
            if self.task == "sp" and not isinstance(target, str):
                self.errors.append(
                    row.error(f"the target of an SP test is SQL text, not {kind_of(target)}", self.target_col)
                )
                target = None
            elif self.task == "qa" and not isinstance(target, (str, list)):
                self.errors.append(
                    row.error(f"the target of a QA test is SQL text or a table, not {kind_of(target)}", self.target_col)
                )
                target = None
        db_id = value.get("db_id")
        if db_id is not None and db_id != "" and id_text(db_id) is None:
            self.errors.append(row.error(f"db_id: a db_id is a string or an integer, not {kind_of(db_id)}", "db_id"))
        elif (db_id is None or db_id == "") and target is not None and (self.task == "sp" or not is_table(target)):
            self.errors.append(row.error("missing db_id (the target is an SQL query)", None))
        if len(self.errors) > found or identifier is None:
            return None
        return QatchTest(identifier, row.line, id_text(db_id) or None, target, prediction)

    def _column(self, row: _Row, name: str, what: str) -> Any:
        """The value of column ``name``; None, with an error, when it is missing (or, for the
        target, empty)."""
        value = row.value
        if name not in value:
            self.errors.append(row.error(f"missing {what} column {name!r}{did_you_mean(name, list(value))}", None))
            return None
        given = value[name]
        if what == "target" and (given is None or (isinstance(given, str) and not given.strip())):
            self.errors.append(row.error(f"the target column {name!r} is empty", name))
            return None
        return given

    def _identifier(self, row: _Row, position: int) -> str | None:
        given = row.value.get("id")
        if given is None or given == "":
            identifier = str(position)
        else:
            found = id_text(given)
            if found is None:
                self.errors.append(row.error(f"id: an id is a string or an integer, not {kind_of(given)}", "id"))
                return None
            identifier = found
        if identifier in self.first_line:
            self.errors.append(
                row.error(
                    f"duplicate id {identifier!r} (first on line {self.first_line[identifier]})",
                    "id" if "id" in row.value else None,
                )
            )
            return None
        self.first_line[identifier] = row.line
        return identifier


def load_tests(
    path: str | os.PathLike[str],
    *,
    task: str,
    target_col: str = "query",
    prediction_col: str = "prediction",
    format: str | None = None,
) -> list[QatchTest]:
    """The tests of ``path`` (``-``: standard input) for ``task`` ``"qa"`` or ``"sp"``, in
    file order.

    ``format`` is a ``FORMATS`` name; by default it is chosen by the file name's suffix.
    Raises ``InputError`` for a file that cannot be read or holds no tests, and for a bad
    row; ``InputErrors`` listing every one, in file order, when there are several.
    """
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; known: {', '.join(TASKS)}")
    name = os.fspath(path)
    source = source_name(name)
    if format is not None and format not in FORMATS:
        raise InputError(f"unknown tests format {format!r}; known: {', '.join(FORMATS)}", source=source)
    if format is None and name.lower().endswith(CSV_SUFFIXES):
        format = "csv"
    if format is None and name.lower().endswith(TSV_SUFFIXES):
        format = "tsv"
    text = read_text(path)
    empty = InputError("no tests in this file (an empty input is refused)", source=source)
    if not text.strip():
        raise empty
    errors: list[InputError]
    if format in ("csv", "tsv"):
        columns = {"target": target_col, "prediction": prediction_col}
        rows, errors = _csv_rows(text, source, columns, delimiter="\t" if format == "tsv" else ",")
    else:
        document = load_document(path, format=FORMATS.get(format or ""), text=text)
        errors = list(document.problems)
        if document.format != "jsonl" and document.data is not None and not isinstance(document.data, list):
            raise document.error(f"a tests file is a list of tests (mappings), not {kind_of(document.data)}")
        rows = list(_document_rows(document)) if document.data else []
    if not rows and not errors:
        raise empty
    checker = _Checker(task, target_col, prediction_col)
    tests = [test for position, row in enumerate(rows, start=1) if (test := checker.test(position, row))]
    errors.extend(checker.errors)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise InputErrors(errors)
    return tests
