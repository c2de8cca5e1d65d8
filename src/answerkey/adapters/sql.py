"""Running SQL queries on SQLite databases, safely, into typed rows.

Queries to evaluate (the SP task) are untrusted text. A database is opened read-only (URI
``mode=ro`` and ``PRAGMA query_only``), an authorizer allows nothing but reading (no
``ATTACH``, no writes, no pragmas), ``ATTACH`` is also limited to zero databases, a query
is stopped past a time limit and past a row limit, and every failure is reported in the
result instead of raised.

Databases are named by path, or by ``db_id`` in a Spider-layout root
(``ROOT/<db_id>/<db_id>.sqlite``).

>>> import sqlite3, tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> (root / "shop").mkdir()
>>> with sqlite3.connect(root / "shop" / "shop.sqlite") as db:
...     _ = db.execute("CREATE TABLE item (name TEXT, price REAL)")
...     _ = db.execute("INSERT INTO item VALUES ('pen', 1.5), ('ink', 7.25)")
>>> db.close()
>>> from answerkey.grammar.render import render
>>> result = Databases(root).run("shop", "SELECT name, price FROM item ORDER BY price")
>>> result.ok, result.columns, render(result.relation())
(True, ('name', 'price'), '(("pen" 1.5) ("ink" 7.25))')
>>> Databases(root).run("shop", "DROP TABLE item").error
'not authorized'
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from answerkey.limits import MAX_QUERY_CHARS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT
from answerkey.model import NIL, Number, Relation, String, Value

__all__ = [
    "DEFAULT_TIMEOUT",
    "DEFAULT_MAX_ROWS",
    "DEFAULT_MAX_RESULT_BYTES",
    "QueryResult",
    "run_query",
    "Databases",
    "sql_value",
]

DEFAULT_TIMEOUT = SQL_TIMEOUT
DEFAULT_MAX_ROWS = SQL_MAX_ROWS
DEFAULT_MAX_RESULT_BYTES = SQL_MAX_RESULT_BYTES
# A value (string or blob) or a row longer than this is an error rather than memory spent.
MAX_VALUE_BYTES = 64 * 1024 * 1024
# The progress handler runs every this many virtual-machine instructions.
_PROGRESS_STEPS = 10_000
_FETCH_BATCH = 1_000

# What a query may do: read tables, call functions, recurse in a CTE. Anything else (ATTACH,
# writes, DDL, pragmas, transactions) is denied by the authorizer.
_ALLOWED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)

# A db_id names one directory under the root: no separators, no "." or "..".
_DB_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\- ]*")


@dataclass(frozen=True)
class QueryResult:
    """The rows a query produced (typed values, as SQLite returned them) or its error."""

    rows: tuple[tuple[Value, ...], ...] = ()
    columns: tuple[str, ...] = ()
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the query ran to completion."""
        return self.error is None

    def relation(self) -> Relation:
        """The rows as a ``Relation`` (``ValueError`` if the query failed or a column mixes
        types, which SQLite allows)."""
        if self.error is not None:
            raise ValueError(f"the query failed: {self.error}")
        return Relation(self.rows)


def sql_value(value: object) -> Value:
    """The typed value of one SQLite value: NULL is nil, a blob its ``X'..'`` literal, and
    infinities (SQLite's ``Inf``) strings, as the typed model has no infinite numbers.

    >>> sql_value(None), sql_value(b"\\x01\\xff"), sql_value(3)
    (Nil(), String(text="X'01FF'"), Number(value=3, is_real=False, text='3'))
    """
    converter = _CONVERTERS.get(type(value))
    if converter is None:
        raise TypeError(f"not an SQLite value: {value!r}")
    return converter(value)


def _real(value: float) -> Value:
    if math.isfinite(value):
        return Number.of(value)
    if math.isnan(value):
        return NIL
    return String("Inf" if value > 0 else "-Inf")


_CONVERTERS: dict[type, Callable[[object], Value]] = {
    type(None): lambda value: NIL,
    int: lambda value: Number(value, False, str(value)),
    float: _real,
    str: String,
    bytes: lambda value: String(f"X'{value.hex().upper()}'"),
}


def run_query(
    database: str | os.PathLike,
    query: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
    max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
) -> QueryResult:
    """Run ``query`` on the SQLite file ``database``, read-only, within ``timeout`` seconds,
    ``max_rows`` rows and ``max_result_bytes`` bytes of result. Never raises for a bad query
    or database: see ``.error``."""
    if not isinstance(query, str):
        return QueryResult(error=f"the query is a {type(query).__name__}, not text")
    if len(query) > MAX_QUERY_CHARS:
        return QueryResult(error=f"the query is longer than {MAX_QUERY_CHARS} characters")
    path = Path(database)
    if not path.is_file():
        return QueryResult(error=f"no database file {str(path)!r}")
    try:
        connection = _open_read_only(path)
    except sqlite3.Error as error:
        return QueryResult(error=f"cannot open {str(path)!r}: {error}")
    try:
        return _execute(connection, query, timeout, max_rows)
    finally:
        connection.close()


def _open_read_only(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri() + "?mode=ro"
    connection = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        connection.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_QUERY_CHARS * 4)
        connection.set_authorizer(_authorize)
        # Text that is not UTF-8 is still text: decode it with replacement characters.
        connection.text_factory = lambda raw: raw.decode("utf-8", "replace")
    except BaseException:
        connection.close()
        raise
    return connection


def _authorize(action: int, *_details: object) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED_ACTIONS else sqlite3.SQLITE_DENY


def _execute(connection: sqlite3.Connection, query: str, timeout: float, max_rows: int) -> QueryResult:
    deadline = time.monotonic() + timeout
    connection.set_progress_handler(lambda: time.monotonic() > deadline, _PROGRESS_STEPS)
    rows: list[tuple[Value, ...]] = []
    try:
        cursor = connection.execute(query)
        while batch := cursor.fetchmany(_FETCH_BATCH):
            if len(rows) + len(batch) > max_rows:
                return QueryResult(error=f"the query returned more than {max_rows} rows")
            rows.extend(tuple(map(sql_value, row)) for row in batch)
        columns = tuple(column[0] for column in cursor.description or ())
    except (sqlite3.Error, sqlite3.Warning) as error:
        if time.monotonic() > deadline and "interrupt" in str(error):
            return QueryResult(error=f"the query ran past the time limit of {timeout:g} s")
        return QueryResult(error=str(error) or type(error).__name__)
    except MemoryError:
        return QueryResult(error="the query's result does not fit in memory")
    return QueryResult(tuple(rows), columns)


class Databases:
    """SQLite databases in a Spider-layout root: ``ROOT/<db_id>/<db_id>.sqlite``.

    ``run(db_id, query)`` runs a query as ``run_query`` does; an unknown or malformed
    ``db_id`` is an error in the result, never a path outside the root.
    """

    def __init__(
        self,
        root: str | os.PathLike,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_rows: int = DEFAULT_MAX_ROWS,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
    ) -> None:
        self.root = Path(root)
        self.timeout = timeout
        self.max_rows = max_rows
        self.max_result_bytes = max_result_bytes

    def path(self, db_id: str) -> Path | None:
        """The database file of ``db_id``, or None if the name cannot be one."""
        if not isinstance(db_id, str) or not _DB_ID.fullmatch(db_id) or db_id.strip(".") == "":
            return None
        return self.root / db_id / f"{db_id}.sqlite"

    def run(self, db_id: str, query: str) -> QueryResult:
        """Run ``query`` on the database ``db_id`` (read-only, time and row limits)."""
        path = self.path(db_id)
        if path is None:
            return QueryResult(error=f"not a database name: {db_id!r}")
        if not path.is_file():
            return QueryResult(error=f"no database {db_id!r} (expected {str(path)!r})")
        return run_query(path, query, timeout=self.timeout, max_rows=self.max_rows,
                         max_result_bytes=self.max_result_bytes)

    def __repr__(self) -> str:
        return f"Databases({str(self.root)!r}, timeout={self.timeout:g}, max_rows={self.max_rows})"
