"""Running SQL queries on SQLite databases, safely, into typed rows.

Queries to evaluate (the SP task) are untrusted text, and so are the ``db_id`` values that
name their databases. Databases are named by path (``run_query``), or by ``db_id`` in a
Spider-layout root (``Databases``: ``ROOT/<db_id>/<db_id>.sqlite``). Every failure is
reported in ``QueryResult.error``, never raised.

What a query may do: read. A database is opened read-only and immutable (URI ``mode=ro``
and ``immutable=1``) with ``PRAGMA query_only``; an authorizer allows nothing but reading
tables and calling functions (no ``ATTACH``, no writes, no DDL, no pragmas, no
transactions), ``ATTACH`` is also limited to zero databases, and only one statement runs.

Each limit, and what happens past it (the error text in ``QueryResult.error``):

- **query text**: at most ``MAX_QUERY_CHARS`` characters ("the query is longer than ...");
  text holding a lone UTF-16 surrogate is refused ("the query is not valid text: it holds
  half of a UTF-16 surrogate pair at character N"), and so is a query that is not text.
- **db_id**: at most ``MAX_DB_ID_CHARS`` characters, letters, digits, ``_``, ``.``, ``-``
  and spaces, not starting with a dot ("the db_id is longer than ...", "the db_id is not
  valid text: ...", "not a database name: ...").
- **time** (``timeout`` seconds, default ``SQL_TIMEOUT``; ``--timeout``; an infinite one is
  no limit): at the deadline one alarm thread (per process, not per query) interrupts the
  query ("the query ran past the time limit of T s"). SQLite notices an interrupt only
  between the steps of its virtual machine, not inside one long function call (``LIKE``
  with many ``%`` over a long string, ``instr``, ``replace``: measured, an interrupt at
  0.5 s took effect after 8 s), so queries run in helper processes (``serve_queries``):
  a thread running a query takes an idle helper or starts one (up to four idle ones are
  kept). Half a second past the deadline a helper still inside the query ends itself, a
  second past it this process kills it, and the next query starts another. A helper ends
  when this process ends (its requests pipe closes; if it is running a query then, or this
  process was killed, within half a second: it watches for it) and ignores Ctrl-C, which is
  this process's to handle. A helper sends the rows on as it reads them, in chunks, which this
  process takes in while the helper reads on; time the helper spends waiting for this
  process to take a chunk is not the query's: it moves the deadline and is not counted in
  ``QueryResult.seconds``. A result keeps the values as SQLite gave them, by column
  (``QueryResult.driver_columns``), and makes its typed rows when they are first asked for.
  Text is decoded by SQLite's driver, strictly, as UTF-8; a query with text that is not
  UTF-8 is read again from the start, that text decoded with replacement characters.
- **rows** (``max_rows``, default ``SQL_MAX_ROWS``; ``--max-rows``): reading stops at the
  first row past the limit ("the query returned more than N rows").
- **bytes** (``max_result_bytes``, default ``SQL_MAX_RESULT_BYTES``;
  ``--max-result-bytes``): rows are read one at a time and counted (text by its UTF-8
  length, a blob by its length, a number or NULL as 8 bytes); reading stops at the first
  row past the limit ("the query's result is larger than the limit of N bytes
  (--max-result-bytes raises it)"). SQLite's own ``SQLITE_LIMIT_LENGTH`` is set to the
  same number, so one giant string or blob, or a table row that large, fails inside SQLite
  ("the query made or read a value or table row larger than the limit of N bytes ...";
  SQLite applies it to names and literals in the query too, which matters only for limits
  of a few hundred bytes), and SQLite's heap in a helper is capped at ``HEAP_FACTOR`` times
  the limit, at least ``HEAP_FLOOR`` bytes ("the query needed more memory than the limit of
  N bytes ..."), which bounds a row of many giant values too.

Files. A ``db_id`` is a name inside the root, never a path: the real path of its database
file (symbolic links resolved) must lie inside the real path of the root, or the query is
refused ("the database 'x' is outside the root: ..."). A link inside the root to a file
inside the root is allowed (one file may serve under two names); the root itself may be a
link. ``run_query`` takes the path it is given, links and all. Because databases are
opened immutable, a read creates no file and changes no byte (no ``-wal``, ``-shm`` or
``-journal`` file appears beside a database, whatever its journal mode). The price: SQLite
takes no lock and does not look at a write-ahead log or a journal, so a database must be at
rest while it is read. One whose ``-wal`` file holds changes, or that has a hot
``-journal``, is refused ("... is being written, or was not closed cleanly: its -wal file
holds changes not in the database file"); and if another process writes a database while a
query reads it, the query may see a half-written file: wrong rows or "database disk image
is malformed". Evaluation databases are datasets at rest; checkpoint a live one (``PRAGMA
wal_checkpoint(TRUNCATE)``) or copy it first. The checks are made when a query starts: a
root that someone else changes meanwhile is not defended against.

Where no helper process can be started (a frozen application, a system out of
processes), queries run in this process: the time limit then holds except inside one
long function call, and SQLite's heap is not capped (its cap is process-wide).

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
>>> Databases(root, max_rows=1).run("shop", "SELECT name FROM item").error
'the query returned more than 1 rows'
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import marshal
import math
import os
import re
import signal
import sqlite3
import stat
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any

from answerkey.errors import kind_of

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
from answerkey.gc_pause import gc_paused
from answerkey.limits import (
    MAX_DB_ID_CHARS,
    MAX_QUERY_CHARS,
    SQL_HEAP_FACTOR,
    SQL_HEAP_FLOOR,
    SQL_MAX_RESULT_BYTES,
    SQL_MAX_ROWS,
    SQL_TIMEOUT,
)
from answerkey.model import NIL, Number, Relation, String, Value
from answerkey.parallel import mark_fork_safe

__all__ = [
    "DEFAULT_TIMEOUT",
    "DEFAULT_MAX_ROWS",
    "DEFAULT_MAX_RESULT_BYTES",
    "HEAP_FACTOR",
    "HEAP_FLOOR",
    "QueryResult",
    "ColumnFacts",
    "run_query",
    "Databases",
    "sql_value",
    "serve_queries",
    "stop_query_processes",
    "run_file",
    "db_id_problem",
    "query_problem",
    "limits_problem",
    "inside_root",
    "past_time_limit",
    "too_many_rows",
    "too_many_bytes",
    "SCALAR_BYTES",
    "arm_alarm",
    "disarm_alarm",
]

DEFAULT_TIMEOUT = SQL_TIMEOUT
DEFAULT_MAX_ROWS = SQL_MAX_ROWS
DEFAULT_MAX_RESULT_BYTES = SQL_MAX_RESULT_BYTES
# SQLite's heap in a helper process: SQL_HEAP_FACTOR times the byte limit, at least
# SQL_HEAP_FLOOR. A query holds one row and its working values at a time (the page cache is
# 2 MiB and sorts spill to temporary files), so this is room for a value of the limit's size.
HEAP_FACTOR = SQL_HEAP_FACTOR
HEAP_FLOOR = SQL_HEAP_FLOOR

# What a number or NULL counts towards the byte limit (the size of a 64-bit value), on every engine.
SCALAR_BYTES = _SCALAR_BYTES = 8
# A helper ends itself this long past the deadline if it is still inside one function call,
# and this process kills it a little later, should the helper itself be stuck.
_END_GRACE = 0.5
_KILL_GRACE = 1.0
# The exit status of a helper that ended itself past a deadline (as timeout(1) exits).
_EXIT_TIMEOUT = 124
# A helper looks this often whether the process that started it is still there, and ends
# itself with this status when it is not.
_ORPHAN_POLL = 0.5
_EXIT_ORPHANED = 125
# A helper that has not started within this many seconds is killed (and queries run here).
_START_WAIT = 30.0
# Idle helpers kept for reuse; the rest are ended when their query is answered.
_IDLE_PROCESSES = 4
# SQLite's limits are C ints.
_INT_MAX = 2**31 - 1
# The first 8 bytes of a rollback journal that is "hot" (holds a transaction to roll back).
_HOT_JOURNAL = bytes.fromhex("d9d505f920a163d7")

# What a query may do: read tables, call functions, recurse in a CTE. Anything else (ATTACH,
# writes, DDL, pragmas, transactions) is denied by the authorizer.
_ALLOWED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)

# A db_id names one directory under the root: no separators, no "." or "..".
_DB_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\- ]*")


class ColumnFacts:
    """The set of the types of a column's driver values, and its smallest and largest value
    while every chunk has held numbers only or texts only, no NULL (None otherwise), found
    chunk by chunk as the rows come in: while a helper reads the next chunk, this process
    would only wait, and the judgement needs them.

    >>> facts = ColumnFacts()
    >>> facts.add([3, 1.5]); facts.add([2]); sorted(kind.__name__ for kind in facts.types), facts.bounds
    (['float', 'int'], (1.5, 3))
    >>> facts.add(["a"]); facts.bounds is None
    True
    """

    __slots__ = ("types", "bounds", "_ordered")

    def __init__(self) -> None:
        self.types: set[type] = set()
        self.bounds: tuple[Any, Any] | None = None
        self._ordered: frozenset[type] | None = None  # the types the bounds are of, while kept

    def add(self, values: Sequence[object]) -> None:
        """Take in the next values of the column."""
        if not values:
            return
        kinds = set(map(type, values))
        first = not self.types
        self.types |= kinds
        ordered = _NUMBERS if kinds <= _NUMBERS else _TEXTS if kinds == _TEXTS else None
        if ordered is None or (not first and ordered is not self._ordered):
            self._ordered, self.bounds = None, None
            return
        low, high = min(values), max(values)  # type: ignore[type-var]
        if first:
            self._ordered, self.bounds = ordered, (low, high)
        elif self.bounds is not None:
            self.bounds = (min(self.bounds[0], low), max(self.bounds[1], high))


# The types a column's bounds are kept for: numbers (ints and floats compare exactly) or texts.
_NUMBERS = frozenset({int, float})
_TEXTS = frozenset({str})


class QueryResult:
    """The rows a query produced (typed values, as SQLite returned them) or its error.

    ``seconds`` is how long the query took, from executing it to reading its last row,
    measured in the process that ran it (opening the database and sending the rows back
    are not counted): what a valid efficiency score compares. None when the query did not
    run to completion. A measurement, not part of the result: equality ignores it.

    A result read from SQLite (or from DuckDB or PostgreSQL, when its values are all plain:
    NULL, integers, finite floats, text) keeps the values as the driver gave them, by column
    (``driver_columns``), and makes its typed ``rows`` from them when they are first asked
    for: a million-row result judged from its driver values never makes its millions of
    typed values (see ``answerkey.execution.semantics``). Immutable, as a frozen dataclass.

    >>> result = QueryResult.of_driver_columns(([1, 2], ["a", None]), ("n", "s"))
    >>> result.row_count, result.driver_columns
    (2, ([1, 2], ['a', None]))
    >>> result.rows[1], result.driver_columns
    ((Number(value=2, is_real=False, text='2'), Nil()), None)
    """

    __slots__ = ("_rows", "_driver", "_facts", "_count", "columns", "error", "seconds")

    _rows: tuple[tuple[Value, ...], ...] | None
    _driver: tuple[list[object], ...] | None
    _facts: tuple[ColumnFacts, ...] | None
    _count: int
    columns: tuple[str, ...]
    error: str | None
    seconds: float | None

    def __init__(
        self,
        rows: tuple[tuple[Value, ...], ...] = (),
        columns: tuple[str, ...] = (),
        error: str | None = None,
        seconds: float | None = None,
    ) -> None:
        for name, value in (
            ("_rows", rows),
            ("_driver", None),
            ("_facts", None),
            ("_count", len(rows)),
            ("columns", columns),
            ("error", error),
            ("seconds", seconds),
        ):
            object.__setattr__(self, name, value)

    @classmethod
    def of_driver_columns(
        cls,
        driver: tuple[list[object], ...],
        columns: tuple[str, ...],
        seconds: float | None = None,
        count: int = 0,
        facts: tuple[ColumnFacts, ...] | None = None,
    ) -> QueryResult:
        """A result of the values a driver returned, by column, typed as SQLite's are
        (``sql_value``: None, int, float, str, bytes; other engines give only the first four
        here, which they type alike); ``count`` rows when there are no columns; ``facts``,
        each column's, when the reader found them."""
        result = cls((), columns, None, seconds)
        object.__setattr__(result, "_rows", None)
        object.__setattr__(result, "_driver", driver)
        object.__setattr__(result, "_facts", facts)
        object.__setattr__(result, "_count", len(driver[0]) if driver else count)
        return result

    @property
    def rows(self) -> tuple[tuple[Value, ...], ...]:
        """The rows as typed values (made on first use from the driver's values, which
        are then dropped)."""
        rows = self._rows
        if rows is None:
            driver = self._driver
            if driver is None:  # another thread has just made them (it sets them first)
                return self._rows  # type: ignore[return-value]
            with gc_paused():
                typed = _TypedRows()
                typed.add_columns(self._count, driver)
                rows = typed.rows()
            object.__setattr__(self, "_rows", rows)
            object.__setattr__(self, "_driver", None)
            object.__setattr__(self, "_facts", None)
        return rows

    @property
    def driver_columns(self) -> tuple[list[object], ...] | None:
        """The values as the driver returned them, by column, while the typed rows have not
        been made (None after, and for results typed as they were read)."""
        return self._driver

    @property
    def driver_facts(self) -> tuple[ColumnFacts, ...] | None:
        """What the reader found of each driver column while the rows came in (None when it
        did not, or the driver values are gone)."""
        return self._facts

    @property
    def row_count(self) -> int:
        """The number of rows (without making the typed rows)."""
        return self._count

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

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a QueryResult is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a QueryResult is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not QueryResult:
            return NotImplemented
        return (self.rows, self.columns, self.error) == (other.rows, other.columns, other.error)

    def __hash__(self) -> int:
        return hash((self.rows, self.columns, self.error))

    def __repr__(self) -> str:
        return (
            f"QueryResult(rows={self.rows!r}, columns={self.columns!r}, error={self.error!r}, seconds={self.seconds!r})"
        )

    def __reduce__(self) -> tuple[type[QueryResult], tuple[object, ...]]:
        return QueryResult, (self.rows, self.columns, self.error, self.seconds)


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


_CONVERTERS: dict[type, Callable[[Any], Value]] = {
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
    or database: see ``.error``.

    >>> run_query("/nowhere/at/all.sqlite", "SELECT 1").error
    "no database file '/nowhere/at/all.sqlite'"
    """
    problem = _limits_problem(timeout, max_rows, max_result_bytes) or _query_problem(query)
    if problem is not None:
        return QueryResult(error=problem)
    path = str(database) if isinstance(database, (str, os.PathLike)) else repr(database)
    try:
        real = os.path.realpath(database, strict=True)
        regular = stat.S_ISREG(os.stat(real).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        regular = False
    except (OSError, TypeError, ValueError) as error:
        return QueryResult(error=f"cannot read the database file {path!r}: {_why(error)}")
    if not regular:
        return QueryResult(error=f"no database file {path!r}")
    return _run_file(real, f"file {path!r}", query, timeout, max_rows, max_result_bytes)


def run_file(
    real: str,
    label: str,
    query: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
    max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
) -> QueryResult:
    """Run ``query`` on the SQLite file at the real path ``real`` (links resolved by the
    caller, who has checked where it lies), as ``run_query`` does; messages call the
    database ``label``. Never raises for a bad query or database: see ``.error``.

    >>> run_file("/nowhere/at/all.sqlite", "'all'", "SELECT 1").error
    "no database 'all' ('/nowhere/at/all.sqlite')"
    """
    problem = _limits_problem(timeout, max_rows, max_result_bytes) or _query_problem(query)
    if problem is not None:
        return QueryResult(error=problem)
    try:
        regular = stat.S_ISREG(os.stat(real).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        regular = False
    except (OSError, TypeError, ValueError) as error:
        return QueryResult(error=f"cannot read the database {label}: {_why(error)} ({real!r})")
    if not regular:
        return QueryResult(error=f"no database {label} ({real!r})")
    return _run_file(real, label, query, timeout, max_rows, max_result_bytes)


def db_id_problem(db_id: object) -> str | None:
    """Why ``db_id`` cannot name a database (a directory under a root, a database on a
    server), or None: at most ``MAX_DB_ID_CHARS`` characters, letters, digits, ``_``, ``.``,
    ``-`` and spaces, not starting with a dot.

    >>> db_id_problem("concert_singer") is None, db_id_problem("../etc")
    (True, "not a database name: '../etc'")
    """
    return _db_id_problem(db_id)


def query_problem(query: object) -> str | None:
    """Why ``query`` cannot be run (not text, too long, a lone surrogate), or None.

    >>> query_problem(3)
    'the query is an integer, not text'
    """
    return _query_problem(query)


def limits_problem(timeout: object, max_rows: object, max_result_bytes: object) -> str | None:
    """Why the limits cannot bound a query, or None (an infinite timeout is no time limit).

    >>> limits_problem(0, 10, 10)
    'the time limit must be a number of seconds above 0, not 0'
    """
    return _limits_problem(timeout, max_rows, max_result_bytes)


def inside_root(root: str, real: str) -> bool:
    """Whether the real path ``real`` lies inside the real directory ``root``.

    >>> inside_root("/data", "/data/x/x.sqlite"), inside_root("/data", "/database/x.sqlite")
    (True, False)
    """
    return _inside(root, real)


def past_time_limit(timeout: float) -> str:
    """The error of a query stopped at its time limit, the same for every engine.

    >>> past_time_limit(2.5)
    'the query ran past the time limit of 2.5 s'
    """
    return _past_time_limit(timeout)


def too_many_rows(max_rows: int) -> str:
    """The error of a query that returned more rows than ``max_rows``, the same for every engine.

    >>> too_many_rows(10)
    'the query returned more than 10 rows'
    """
    return f"the query returned more than {max_rows} rows"


def too_many_bytes(max_result_bytes: int) -> str:
    """The error of a result larger than ``max_result_bytes``, the same for every engine.

    >>> too_many_bytes(1000)
    "the query's result is larger than the limit of 1,000 bytes (--max-result-bytes raises it)"
    """
    return f"the query's result is larger than {_byte_limit(max_result_bytes)}"


def arm_alarm(when: float, action: Callable[[], object]) -> int:
    """Run ``action`` at ``when`` (``time.monotonic()``) on this process's one alarm thread,
    unless disarmed first; the key to disarm it. The action must be quick (interrupt a
    connection, cancel a query): it runs while the alarms are locked, so once
    ``disarm_alarm`` returns it is not running and never will."""
    return _STATE.alarms.arm(when, action)


def disarm_alarm(key: int) -> None:
    """Cancel an alarm armed with ``arm_alarm`` (nothing if it has gone off)."""
    _STATE.alarms.disarm(key)


class Databases:
    """SQLite databases in a Spider-layout root: ``ROOT/<db_id>/<db_id>.sqlite``.

    ``run(db_id, query)`` runs a query as ``run_query`` does; an unknown or malformed
    ``db_id`` is an error in the result, and so is one whose file (symbolic links resolved)
    lies outside the root: never a path outside the root.
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
        """The database file of ``db_id`` (links not resolved), or None if the name cannot be one."""
        if _db_id_problem(db_id) is not None:
            return None
        return self.root / db_id / f"{db_id}.sqlite"

    def run(self, db_id: str, query: str) -> QueryResult:
        """Run ``query`` on the database ``db_id`` (read-only, time, row and byte limits)."""
        problem = _db_id_problem(db_id) or _limits_problem(self.timeout, self.max_rows, self.max_result_bytes)
        if problem is not None:
            return QueryResult(error=problem)
        path = self.root / db_id / f"{db_id}.sqlite"
        try:
            real = os.path.realpath(path, strict=True)
            regular = stat.S_ISREG(os.stat(real).st_mode)
            root = os.path.realpath(self.root, strict=True)
        except (FileNotFoundError, NotADirectoryError):
            regular = False
        except (OSError, ValueError) as error:
            return QueryResult(error=f"cannot read the database {db_id!r}: {_why(error)} ({str(path)!r})")
        if not regular:
            return QueryResult(error=f"no database {db_id!r} (expected {str(path)!r})")
        if not _inside(root, real):
            return QueryResult(error=f"the database {db_id!r} is outside the root: {str(path)!r} leads to {real!r}")
        problem = _query_problem(query)
        if problem is not None:
            return QueryResult(error=problem)
        return _run_file(real, repr(db_id), query, self.timeout, self.max_rows, self.max_result_bytes)

    def __repr__(self) -> str:
        return (
            f"Databases({str(self.root)!r}, timeout={self.timeout:g}, max_rows={self.max_rows}, "
            f"max_result_bytes={self.max_result_bytes})"
        )


def _inside(root: str, real: str) -> bool:
    """Whether the real path ``real`` lies inside the real directory ``root``."""
    try:
        return os.path.commonpath([root, real]) == root
    except ValueError:  # on different drives (Windows)
        return False


def _db_id_problem(db_id: object) -> str | None:
    """Why ``db_id`` cannot name a database under a root, or None."""
    if not isinstance(db_id, str):
        return f"not a database name: {db_id!r}"
    problem = _not_text(db_id, "the db_id")
    if problem is not None:
        return problem
    if len(db_id) > MAX_DB_ID_CHARS:
        return f"the db_id is longer than {MAX_DB_ID_CHARS:,} characters (it has {len(db_id):,})"
    if not _DB_ID.fullmatch(db_id):
        return f"not a database name: {db_id!r}"
    return None


def _query_problem(query: object) -> str | None:
    """Why ``query`` cannot be given to SQLite, or None."""
    if not isinstance(query, str):
        return f"the query is {kind_of(query)}, not text"
    if len(query) > MAX_QUERY_CHARS:
        return f"the query is longer than {MAX_QUERY_CHARS:,} characters (it has {len(query):,})"
    return _not_text(query, "the query")


def _not_text(text: str, what: str) -> str | None:
    """Why ``text`` cannot be encoded as UTF-8 (a lone surrogate, which is not a character), or None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"{what} is not valid text: it holds half of a UTF-16 surrogate pair at character {error.start + 1:,}"
    return None


def _limits_problem(timeout: object, max_rows: object, max_result_bytes: object) -> str | None:
    """Why the limits cannot bound a query, or None (an infinite timeout is no time limit)."""
    if not isinstance(timeout, (int, float)) or not timeout > 0:
        return f"the time limit must be a number of seconds above 0, not {timeout!r}"
    if not isinstance(max_rows, int) or max_rows < 0:
        return f"the row limit must be a whole number, 0 or more, not {max_rows!r}"
    if not isinstance(max_result_bytes, int) or max_result_bytes < 1:
        return f"the byte limit must be a whole number above 0, not {max_result_bytes!r}"
    return None


def _why(error: Exception) -> str:
    """An OS error's reason without Python's decoration."""
    return getattr(error, "strerror", None) or str(error) or "unreadable"


def _being_written(real: str, label: str) -> str | None:
    """Why the database file ``real`` is not at rest (a -wal file with changes, a hot
    -journal), or None. Opened immutable, SQLite would not look at either."""
    try:
        wal = os.stat(real + "-wal")
        if stat.S_ISREG(wal.st_mode) and wal.st_size > 0:
            return (
                f"the database {label} is being written, or was not closed cleanly: its -wal file holds "
                "changes not in the database file (checkpoint it, or copy it, first)"
            )
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as error:
        return f"cannot check the -wal file of the database {label}: {_why(error)}"
    try:
        journal = os.stat(real + "-journal")
        if stat.S_ISREG(journal.st_mode) and journal.st_size >= len(_HOT_JOURNAL):
            with open(real + "-journal", "rb") as file:
                if file.read(len(_HOT_JOURNAL)) == _HOT_JOURNAL:
                    return (
                        f"the database {label} is being written, or a write was interrupted: it has a hot "
                        "-journal file (open it once with sqlite3 to roll it back, or copy it, first)"
                    )
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as error:
        return f"cannot check the -journal file of the database {label}: {_why(error)}"
    return None


# A request to a helper, and its reply: plain values, sent with marshal.
_Request = tuple[str, str, float, int, int]  # real path, query, timeout, max_rows, max_result_bytes
# columns, the rows not sent on (as SQLite gave them), error, seconds the query took (None
# unless it ran to completion)
_Reply = tuple[tuple[str, ...], list[tuple[object, ...]], str | None, float | None]
# What reading a query gives: columns, the rows not sent on, error.
_Read = tuple[tuple[str, ...], list[tuple[object, ...]], str | None]
# Where rows go as they are read (a helper sends them on, in chunks of _CHUNK_ROWS rows);
# None says to drop those sent so far: the query is read again from the start.
_Sink = Callable[[list[tuple[object, ...]] | None], object]
# A chunk of rows as a helper sends it: their columns (the values of one column made one
# after the other by this process, so close together in memory, which makes walking a
# column, as judging does, faster), and their number (a query may have no columns).
_Chunk = tuple[list[tuple[object, ...]], int]

# A helper sends the rows it reads in chunks of this many, each in a message of its own (a
# _Chunk, a 2-tuple), before its reply (a 4-tuple, without rows): this process takes one
# chunk while the helper reads the next. Marshal's version 2 (no shared references) writes
# them faster, which is what the helper, the slower side, does.
_MARSHAL_VERSION = 2
_CHUNK_ROWS = 10_000


def _run_file(real: str, label: str, query: str, timeout: float, max_rows: int, max_result_bytes: int) -> QueryResult:
    """Run a checked query on the regular file ``real``, in a helper process if one can run."""
    problem = _being_written(real, label)
    if problem is not None:
        return QueryResult(error=problem)
    request: _Request = (real, query, float(timeout), max_rows, max_result_bytes)
    driver: list[list[object]] = []  # the values by column
    facts: list[ColumnFacts] = []
    count = 0

    def receive(chunk: _Chunk | None) -> None:
        nonlocal driver, facts, count
        if chunk is None:  # the helper reads the query again from the start
            driver, facts, count = [], [], 0
            return
        values, size = chunk
        if not driver:
            driver = [[] for _ in values]
            facts = [ColumnFacts() for _ in values]
        for column, found, more in zip(driver, facts, values):
            column.extend(more)
            found.add(more)
        count += size

    try:
        # The rows arrive as millions of tuples, none of them garbage: the cyclic collector
        # would walk those received so far, and the growing columns, again and again.
        with gc_paused():
            reply = _STATE.processes.run(request, receive)
            if reply is None:
                reply = _execute(request, isolated=False)
        columns, rows, error, seconds = reply
        if error is not None:
            return QueryResult(error=error)
        if rows:
            receive(_chunk(rows))
        if not driver:
            driver = [[] for _ in columns]
            facts = [ColumnFacts() for _ in columns]
        # The values stay as SQLite gave them (numbers and strings, which the cyclic
        # collector does not track); the typed rows are made if and when asked for.
        return QueryResult.of_driver_columns(tuple(driver), tuple(columns), seconds, count, tuple(facts))
    except MemoryError:
        return QueryResult(error="the query's result does not fit in memory")


# Bulk conversions of a column holding values of one type (and NULLs).
_BULK: dict[type, Callable[[Any], Sequence[Value]]] = {
    int: Number.of_ints,
    float: Number.of_floats,
    str: String.of_texts,
}


class _TypedRows:
    """SQLite's values as typed rows (``sql_value`` of each), converted ``_CHUNK_ROWS`` rows
    at a time, column by column.

    A column whose values (NULLs aside) have one type is converted in bulk (``Number.of_ints``
    and the like, several times faster than one value at a time), and its values are shared:
    each distinct value is made once, for every row that holds it (a category, a date, a
    quantity: faster again, and much smaller). A column whose chunks, after its first, bring
    mostly values not seen before is not shared any more: its values do not repeat. Other
    columns (SQLite lets a column mix types) are converted one value at a time.

    >>> rows = _TypedRows()
    >>> rows.add_columns(2, [(1, 2), ("a", None)])
    >>> rows.rows()
    ((Number(value=1, is_real=False, text='1'), String(text='a')), (Number(value=2, is_real=False, text='2'), Nil()))
    """

    def __init__(self) -> None:
        self._rows: list[tuple[Value, ...]] = []
        # By column and bulk conversion: the values made so far by raw value (None once the
        # column's values are seen not to repeat). By conversion, that is by type, as 1 and
        # 1.0 are one key but two values.
        self._shared: dict[tuple[int, Callable[[Any], Sequence[Value]]], dict[object, Value] | None] = {}

    def add_columns(self, count: int, columns: Sequence[list[object]]) -> None:
        """Convert the next ``count`` rows, given by column, ``_CHUNK_ROWS`` at a time."""
        if not columns:
            self._rows.extend(() for _ in range(count))
        for start in range(0, count if columns else 0, _CHUNK_ROWS):
            chunk = [self._column(i, values[start : start + _CHUNK_ROWS]) for i, values in enumerate(columns)]
            self._rows.extend(zip(*chunk))

    def rows(self) -> tuple[tuple[Value, ...], ...]:
        """The rows converted so far."""
        return tuple(self._rows)

    def _column(self, index: int, values: Sequence[object]) -> Sequence[Value]:
        kinds = set(map(type, values))
        kinds.discard(type(None))
        if len(kinds) == 1:
            kind = kinds.pop()
            bulk = _BULK.get(kind)
            if bulk is not None:
                try:
                    return self._bulk(index, bulk, values)
                except ValueError:
                    pass  # an infinity among the reals: it becomes a string, one value at a time
        convert = _CONVERTERS
        return [convert[type(value)](value) for value in values]

    def _bulk(self, index: int, bulk: Callable[[Any], Sequence[Value]], values: Sequence[object]) -> Sequence[Value]:
        made = self._shared.setdefault((index, bulk), {None: NIL})
        # 0.0 and -0.0 are one key, but two texts: a chunk holding a zero is not shared.
        if made is not None and not (bulk is Number.of_floats and 0.0 in values):
            new = list(dict.fromkeys(values).keys() - made.keys())
            if len(made) == 1 or len(new) * 2 <= len(values):
                if new:
                    made.update(zip(new, bulk(new)))
                return list(map(made.__getitem__, values))
            self._shared[index, bulk] = None
        if None not in values:
            return bulk(values)
        present = iter(bulk([value for value in values if value is not None]))
        return [NIL if value is None else next(present) for value in values]


def _execute(request: _Request, *, isolated: bool, send: _Sink | None = None) -> _Reply:
    """Run a request in this process: the rows (as SQLite gives them) or the error.

    ``isolated`` when this process is a helper: SQLite's heap is then capped (a cap is
    process-wide) and the process ends itself if the query is still running just past its
    deadline. ``send``, when given, takes the rows as they are read, in chunks of
    ``_CHUNK_ROWS`` (the reply then holds the last ones); the time it takes (waiting for
    the process that asked to take a chunk) is not the query's: it moves the deadline and
    is not counted in the seconds.
    """
    path, query, timeout, max_rows, max_result_bytes = request
    try:
        connection = _open_read_only(path, max_result_bytes, isolated)
    except (sqlite3.Error, MemoryError) as error:
        return (), [], f"cannot open {path!r}: {str(error) or 'out of memory'}", None
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        connection.interrupt()

    clock = _QueryClock(timeout, expire, isolated)
    try:
        sink = None if send is None else partial(clock.outside, send)
        limits = _Limits(max_rows, max_result_bytes, isolated, expired, timeout)
        read = _read(connection, query, limits, sink, strict=True)
        if read is None:  # text that is not UTF-8: read again (see _read)
            if sink is not None:
                sink(None)
            read = _read(connection, query, limits, sink, strict=False)
        assert read is not None  # only a strict read gives up
        columns, rows, problem = read
        return columns, rows, problem, (None if problem is not None else clock.seconds())
    finally:
        # Disarmed first: an interrupt must never reach a closed connection.
        clock.stop()
        connection.close()


class _QueryClock:
    """The time limit of one query, and the time it took: at its deadline ``expire`` runs
    (it interrupts SQLite) and, in a helper (``isolated``), the process ends itself half a
    second later. Time spent ``outside`` the query (sending rows on) stops the clock."""

    def __init__(self, timeout: float, expire: Callable[[], object], isolated: bool) -> None:
        self._expire = expire
        self._isolated = isolated
        self._started = time.perf_counter()
        self._outside = 0.0
        self._alarms: list[int] = []
        self._deadline = time.monotonic() + timeout if math.isfinite(timeout) else math.inf
        self._arm()

    def _arm(self) -> None:
        if math.isfinite(self._deadline):
            self._alarms = [_STATE.alarms.arm(self._deadline, self._expire)]
            if self._isolated:
                self._alarms.append(_STATE.alarms.arm(self._deadline + _END_GRACE, _end_past_deadline))

    def stop(self) -> None:
        """Disarm the alarms (once this returns, they never go off)."""
        for alarm in self._alarms:
            _STATE.alarms.disarm(alarm)
        self._alarms = []

    def outside(self, action: Callable[[Any], object], argument: Any) -> None:
        """``action(argument)`` with the clock stopped: the deadline moves by the time it takes."""
        self.stop()
        began = time.monotonic()
        try:
            action(argument)
        finally:
            spent = time.monotonic() - began
            self._outside += spent
            self._deadline += spent
            self._arm()

    def seconds(self) -> float:
        """The seconds the query has taken, time outside it not counted."""
        return time.perf_counter() - self._started - self._outside


def _end_past_deadline() -> None:
    os._exit(_EXIT_TIMEOUT)


def _open_read_only(path: str, max_result_bytes: int, isolated: bool) -> sqlite3.Connection:
    uri = Path(path).as_uri() + "?mode=ro&immutable=1"
    connection = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    try:
        if isolated:
            heap = max(HEAP_FACTOR * max_result_bytes, HEAP_FLOOR)
            connection.execute(f"PRAGMA hard_heap_limit = {heap:d}")
        connection.execute("PRAGMA query_only = ON")
        # The schema is read now, before the length limit: a long CREATE statement is not a result.
        connection.execute("SELECT 1 FROM sqlite_schema LIMIT 0").fetchall()
        connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, min(max_result_bytes, _INT_MAX))
        connection.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, min(MAX_QUERY_CHARS * 4, _INT_MAX))
        connection.set_authorizer(_authorize)
    except BaseException:
        connection.close()
        raise
    return connection


def _authorize(action: int, *_details: object) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED_ACTIONS else sqlite3.SQLITE_DENY


@dataclass(frozen=True)
class _Limits:
    """What bounds reading one query, and what to say past its time limit."""

    max_rows: int
    max_result_bytes: int
    isolated: bool
    expired: threading.Event
    timeout: float


def _read(
    connection: sqlite3.Connection, query: str, limits: _Limits, send: _Sink | None, *, strict: bool
) -> _Read | None:
    """Read a query's rows within the limits: the columns, the rows not sent on, or the
    error. Rows are read one at a time and counted (text by its UTF-8 length, a blob by its
    length, anything else as ``SCALAR_BYTES``) before the next is read, so the limit is
    overshot by one row at most (and SQLite's heap cap bounds a row).

    ``strict`` (tried first): text is decoded by SQLite's driver itself, in C, and must be
    UTF-8; None when some is not: the query is then read again from the start (not
    ``strict``), its text decoded with replacement characters.
    """
    max_rows, max_result_bytes = limits.max_rows, limits.max_result_bytes
    connection.text_factory = str if strict else _decode_replacing
    rows: list[tuple[object, ...]] = []
    used = 0
    sent = 0  # rows given to send
    try:
        cursor = connection.execute(query)
        # The cursor steps in C, as fast as fetchmany; the loop is written out, as it runs
        # for every row of a large result.
        for row in cursor:
            if len(rows) == _CHUNK_ROWS and send is not None:
                send(rows)
                sent += len(rows)
                rows = []
            if sent + len(rows) == max_rows:
                return (), [], too_many_rows(max_rows)
            for value in row:
                kind = type(value)
                if kind is str:
                    used += len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))
                elif kind is bytes:
                    used += len(value)
                else:
                    used += _SCALAR_BYTES
            if used > max_result_bytes:
                return (), [], too_many_bytes(max_result_bytes)
            rows.append(row)
        columns = tuple(column[0] for column in cursor.description or ())
    except (sqlite3.Error, sqlite3.Warning) as error:
        if limits.expired.is_set():
            return (), [], _past_time_limit(limits.timeout)
        if strict and str(error).startswith(_NOT_UTF8):
            return None
        if getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_TOOBIG:
            return (), [], f"the query made or read a value or table row larger than {_byte_limit(max_result_bytes)}"
        return (), [], str(error) or type(error).__name__
    except MemoryError:
        if limits.expired.is_set():
            return (), [], _past_time_limit(limits.timeout)
        if limits.isolated:
            heap = max(HEAP_FACTOR * max_result_bytes, HEAP_FLOOR)
            return (), [], f"the query needed more memory than {_byte_limit(heap)}"
        return (), [], "the query's result does not fit in memory"
    except (ValueError, OverflowError) as error:
        # A column name that is not UTF-8, say: still the query's failure, not ours.
        return (), [], str(error) or type(error).__name__
    return columns, rows, None


# How Python's sqlite3 says that text is not UTF-8 (text_factory = str).
_NOT_UTF8 = "Could not decode to UTF-8"


def _decode_replacing(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _byte_limit(limit: int) -> str:
    return f"the limit of {limit:,} bytes (--max-result-bytes raises it)"


def _past_time_limit(timeout: float) -> str:
    return f"the query ran past the time limit of {timeout:g} s"


class _Alarms:
    """One daemon thread that runs each armed action at its time, unless disarmed first.

    Actions run while the lock is held, so once ``disarm`` returns its action is not running
    and never will: they must be quick (interrupt a connection, kill or end a process).
    """

    def __init__(self) -> None:
        self._condition = threading.Condition(threading.Lock())
        self._pending: dict[int, tuple[float, Callable[[], object]]] = {}
        self._keys = itertools.count()
        self._thread: threading.Thread | None = None
        # When the thread wakes next: an alarm due later needs no wake-up call.
        self._wake_at = math.inf

    def arm(self, when: float, action: Callable[[], object]) -> int:
        """Run ``action`` at ``when`` (``time.monotonic()``); the key to disarm it."""
        with self._condition:
            key = next(self._keys)
            self._pending[key] = (when, action)
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="answerkey-sql-alarms", daemon=True)
                self._thread.start()
                mark_fork_safe(self._thread)  # a forked child makes its own (_ProcessState)
            elif when < self._wake_at:
                self._condition.notify()
        return key

    def disarm(self, key: int) -> None:
        """Cancel an alarm (nothing if it has gone off)."""
        with self._condition:
            self._pending.pop(key, None)

    def _watch(self) -> None:
        with self._condition:
            while True:
                now = time.monotonic()
                for key, (when, action) in list(self._pending.items()):
                    if when <= now:
                        del self._pending[key]
                        with contextlib.suppress(Exception):
                            action()
                self._wake_at = min((when for when, _ in self._pending.values()), default=math.inf)
                self._condition.wait(min(self._wake_at - now, 3600.0))


class _QueryProcess:
    """A helper process running queries (``serve_queries``), which can be killed when a
    query is stuck inside one SQLite function call."""

    def __init__(self) -> None:
        # The directory holding this package goes first on the helper's path, so that it
        # imports this same answerkey; -P keeps the current directory off that path.
        source = str(Path(__file__).resolve().parents[2])
        boot = "import sys; sys.path.insert(0, sys.argv.pop(1)); import answerkey.adapters.sql as s; s.serve_queries()"
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-c", boot, source],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        if self.process.stdin is None or self.process.stdout is None:  # never: both are pipes
            raise OSError("the query process has no pipes")
        self.requests: IO[bytes] = self.process.stdin
        self.replies: IO[bytes] = self.process.stdout
        _widen(self.replies)
        self.killed = False
        alarm = _STATE.alarms.arm(time.monotonic() + _START_WAIT, self.kill)
        try:
            ready = _receive(self.replies)
        finally:
            _STATE.alarms.disarm(alarm)
        if ready != b"":
            self.end()
            raise OSError("the query process did not start")

    def kill(self) -> None:
        """Kill the process now (from the alarm thread, past a deadline)."""
        self.killed = True
        with contextlib.suppress(OSError):
            self.process.kill()

    def ask(self, request: bytes, wait: float, receive: Callable[[_Chunk | None], object]) -> _Reply | None:
        """The reply to ``request``, its chunks of rows given to ``receive`` as they come;
        None if the process ended (or was killed after waiting ``wait`` seconds in all for
        its messages: the time ``receive`` takes is not counted) before replying.
        ``BrokenPipeError`` if it had ended before."""
        try:
            _send(self.requests, request)
        except (OSError, ValueError) as error:
            raise BrokenPipeError("the query process has ended") from error
        while True:
            began = time.monotonic()
            alarm = _STATE.alarms.arm(began + wait, self.kill) if math.isfinite(wait) else None
            try:
                body = _receive(self.replies)
            except (OSError, ValueError):
                body = None
            finally:
                if alarm is not None:
                    _STATE.alarms.disarm(alarm)
            wait -= time.monotonic() - began
            if body is None:
                return None
            message = marshal.loads(body)
            if message is not None and len(message) == 4:
                return message
            receive(message)

    def end(self) -> int:
        """Wait for the process to end (it ends when its requests pipe closes): its exit status."""
        for pipe in (self.requests, self.replies):
            with contextlib.suppress(OSError):
                pipe.close()
        try:
            return self.process.wait(timeout=_KILL_GRACE)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.process.wait()


class _QueryProcesses:
    """The idle helper processes of this process; a thread running a query takes one."""

    def __init__(self) -> None:
        self._idle: list[_QueryProcess] = []
        self._lock = threading.Lock()
        self._unavailable = bool(getattr(sys, "frozen", False)) or not sys.executable

    def run(self, request: _Request, receive: Callable[[_Chunk | None], object]) -> _Reply | None:
        """The reply of a helper to ``request`` (without rows: its chunks of rows are given
        to ``receive`` as they come), or None if no helper can run."""
        timeout = request[2]
        received = 0

        def counted(chunk: _Chunk | None) -> None:
            nonlocal received
            received += 1
            receive(chunk)

        for _attempt in range(2):
            process = self._take()
            if process is None:
                return None
            try:
                reply = process.ask(marshal.dumps(request), timeout + _KILL_GRACE, counted)
            except BrokenPipeError:
                process.end()  # it had ended while idle (killed from outside): start another
                continue
            except BaseException:
                process.kill()
                process.end()
                raise
            if reply is None:
                status = process.end()
                if process.killed or status == _EXIT_TIMEOUT:
                    return (), [], _past_time_limit(timeout), None
                if _attempt == 0 and status == -signal.SIGKILL and not received:
                    # Killed from outside while idle, before it saw the request: the pipe took
                    # the request all the same, so no BrokenPipeError said so. Start another.
                    continue
                how = f"signal {-status}" if status < 0 else f"exit status {status}"
                return (), [], f"the process running the query ended unexpectedly ({how})", None
            self._give_back(process)
            columns, rows, error, seconds = reply
            return columns, rows, error, seconds
        return None

    def _take(self) -> _QueryProcess | None:
        with self._lock:
            while self._idle:
                process = self._idle.pop()
                if process.process.poll() is None:
                    return process
                process.end()  # it ended while idle (killed from outside)
            if self._unavailable:
                return None
        try:
            return _QueryProcess()
        except (OSError, ValueError, subprocess.SubprocessError):
            self._unavailable = True
            return None

    def _give_back(self, process: _QueryProcess) -> None:
        with self._lock:
            if len(self._idle) < _IDLE_PROCESSES:
                self._idle.append(process)
                return
        process.end()

    def stop(self) -> None:
        """End the idle helpers."""
        with self._lock:
            idle, self._idle = self._idle, []
        for process in idle:
            process.end()

    def forget(self) -> None:
        """In a forked child: close the pipes to the parent's helpers, leave them to the parent."""
        for process in self._idle:
            for pipe in (process.requests, process.replies):
                with contextlib.suppress(OSError):
                    pipe.close()


# A pipe that holds a whole chunk of rows (about 0.5 MB for 10,000 rows of five values) lets
# a helper go on reading while this process takes the chunk in, rather than wait for it.
_PIPE_BYTES = 1 << 20


def _widen(pipe: IO[bytes]) -> None:
    """Make ``pipe`` hold ``_PIPE_BYTES`` where the system allows it (Linux); else leave it."""
    setting = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if setting is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe.fileno(), setting, _PIPE_BYTES)


def _send(stream: IO[bytes], body: bytes) -> None:
    stream.write(struct.pack("<Q", len(body)))
    stream.write(body)
    stream.flush()


def _receive(stream: IO[bytes]) -> bytes | None:
    header = stream.read(8)
    if len(header) < 8:
        return None
    (size,) = struct.unpack("<Q", header)
    body = stream.read(size)
    return body if len(body) == size else None


def serve_queries() -> None:
    """The main loop of a helper process: answer the query requests on stdin, one at a time,
    on stdout, until stdin ends. Started by this module (``python -c``); not for other use."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_end_when_orphaned, args=(os.getppid(),), name="answerkey-orphan-watch", daemon=True
    ).start()
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the replies
    try:
        _send(replies, b"")
        while (request := _receive(requests)) is not None:
            path, query, timeout, max_rows, max_result_bytes = marshal.loads(request)
            # A query's rows are acyclic and freed as they are sent: the cyclic collector
            # would walk the chunk being read again and again (a third of the time).
            with gc_paused():
                columns, rows, error, seconds = _execute(
                    (path, query, timeout, max_rows, max_result_bytes),
                    isolated=True,
                    send=lambda rows: _send(replies, _message(rows)),
                )
            if rows:
                _send(replies, _message(rows))
            _send(replies, marshal.dumps((columns, [], error, seconds), _MARSHAL_VERSION))
    except BrokenPipeError:
        pass  # the process that started this one has ended


def _end_when_orphaned(parent: int) -> None:
    """In a helper: end it once the process that started it has ended (killed, say, where it
    could not close the requests pipe), even inside a query without a time limit."""
    while os.getppid() == parent:
        time.sleep(_ORPHAN_POLL)
    os._exit(_EXIT_ORPHANED)


def _message(rows: list[tuple[object, ...]] | None) -> bytes:
    """What a helper sends for rows given to its sink: their chunk, or None (drop them all)."""
    return marshal.dumps(None if rows is None else _chunk(rows), _MARSHAL_VERSION)


def _chunk(rows: list[tuple[object, ...]]) -> _Chunk:
    """Rows as a helper sends them."""
    return list(zip(*rows)), len(rows)


def stop_query_processes() -> None:
    """End this process's idle helper processes (the next query starts one again). Called
    at exit; useful before measuring, or before forking many workers."""
    _STATE.processes.stop()


class _ProcessState:
    """This process's alarm thread and helper processes: a forked child makes its own."""

    def __init__(self) -> None:
        self.alarms = _Alarms()
        self.processes = _QueryProcesses()
        # The parent's helpers, seen from a forked child: kept, so that their Popen objects
        # are never collected (and warned about) here.
        self.inherited: list[_QueryProcesses] = []

    def after_fork_in_child(self) -> None:
        self.processes.forget()
        self.inherited.append(self.processes)
        self.alarms = _Alarms()
        self.processes = _QueryProcesses()


_STATE = _ProcessState()
if hasattr(os, "register_at_fork"):  # not on Windows, which cannot fork
    os.register_at_fork(after_in_child=_STATE.after_fork_in_child)
atexit.register(stop_query_processes)
