"""Reading one query on a SQLite file, in whichever process runs it (``answerkey.adapters.sql``).

The database is opened read-only and immutable, with an authorizer that allows reading
only; the rows are read one at a time within the time, row and byte limits, and handed on
in chunks. A request and its reply are plain values, so that a helper process
(``answerkey.adapters._sqlite_processes``) can receive and send them.
"""

from __future__ import annotations

import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from answerkey.adapters._sql_alarms import arm_alarm, disarm_alarm
from answerkey.adapters._sql_checks import byte_limit, past_time_limit, too_many_bytes, too_many_rows
from answerkey.adapters._sql_result import CELL_BYTES, CHUNK_ROWS
from answerkey.limits import MAX_QUERY_CHARS, SQL_HEAP_FACTOR, SQL_HEAP_FLOOR

# A helper ends itself this long past the deadline if it is still inside one function call,
# and this process kills it a little later, should the helper itself be stuck.
_END_GRACE = 0.5
KILL_GRACE = 1.0
# The exit status of a helper that ended itself past a deadline (as timeout(1) exits).
EXIT_TIMEOUT = 124

# SQLite's limits are C ints.
_INT_MAX = 2**31 - 1


# What a query may do: read tables, call functions, recurse in a CTE. Anything else (ATTACH,
# writes, DDL, pragmas, transactions) is denied by the authorizer.
_ALLOWED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)


# A request to a helper, and its reply: plain values, sent with marshal.
# real path, query, timeout, max_rows, max_result_bytes, text decoding (TEXT_DECODINGS)
Request = tuple[str, str, float, int, int, str]
# columns, the rows not sent on (as SQLite gave them), error, seconds the query took (None
# unless it ran to completion)
Reply = tuple[tuple[str, ...], list[tuple[object, ...]], str | None, float | None]
# What reading a query gives: columns, the rows not sent on, error.
_Read = tuple[tuple[str, ...], list[tuple[object, ...]], str | None]
# Where rows go as they are read (a helper sends them on, in chunks of CHUNK_ROWS rows);
# None says to drop those sent so far: the query is read again from the start.
Sink = Callable[[list[tuple[object, ...]] | None], object]
# A chunk of rows as a helper sends it: their columns (the values of one column made one
# after the other by this process, so close together in memory, which makes walking a
# column, as judging does, faster), and their number (a query may have no columns).
Chunk = tuple[list[tuple[object, ...]], int]


def execute_request(
    request: Request,
    *,
    isolated: bool,
    send: Sink | None = None,
    connections: ReadOnlyConnections | None = None,
    reverse_unordered: bool = False,
) -> Reply:
    """Run a request in this process: the rows (as SQLite gives them) or the error.

    ``isolated`` when this process is a helper: SQLite's heap is then capped (a cap is
    process-wide) and the process ends itself if the query is still running just past its
    deadline. ``send``, when given, takes the rows as they are read, in chunks of
    ``CHUNK_ROWS`` (the reply then holds the last ones); the time it takes (waiting for
    the process that asked to take a chunk) is not the query's: it moves the deadline and
    is not counted in the seconds. ``connections``, when given, keeps the connection open
    for the next query on the same database while queries succeed. ``reverse_unordered``: the
    tables are read in reverse wherever the query leaves the order free (SQLite's ``PRAGMA
    reverse_unordered_selects``), to see whether its result depends on the rows' storage order
    (on a connection of its own, never kept).
    """
    path, query, timeout, max_rows, max_result_bytes, decoding = request
    try:
        if connections is not None and not reverse_unordered:
            connection = connections.take(path, max_result_bytes)
        else:
            connection = _open_read_only(path, max_result_bytes, isolated, reverse_unordered)
    except (sqlite3.Error, MemoryError) as error:
        return (), [], f"cannot open {path!r}: {str(error) or 'out of memory'}", None
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        connection.interrupt()

    clock = _QueryClock(timeout, expire, isolated)
    problem: str | None = "unfinished"
    try:
        sink = None if send is None else partial(clock.outside, send)
        limits = _Limits(max_rows, max_result_bytes, isolated, expired, timeout)
        read = _read(connection, query, limits, sink, fallback=TEXT_DECODINGS.get(decoding))
        if read is None:  # text that is not UTF-8: read again (see _read)
            if sink is not None:
                sink(None)
            read = _read(connection, query, limits, sink, decode=TEXT_DECODINGS[decoding])
        assert read is not None  # only a strict read gives up
        columns, rows, problem = read
        return columns, rows, problem, (None if problem is not None else clock.seconds())
    finally:
        # Disarmed first: an interrupt must never reach a closed connection.
        clock.stop()
        if connections is not None and problem is None and not reverse_unordered:
            connections.give_back(path, max_result_bytes, connection)
        else:  # a connection a query failed on (or reads in reverse) is not kept for the next one
            connection.close()


class ReadOnlyConnections:
    """In a helper answering several requests: the connection of the last database, kept
    open for the next query on it (opening one reads the schema again)."""

    def __init__(self, *, isolated: bool) -> None:
        self._isolated = isolated
        self._kept: tuple[str, int, sqlite3.Connection] | None = None

    def take(self, path: str, max_result_bytes: int) -> sqlite3.Connection:
        """The connection kept for ``path`` with that byte limit, else a new one."""
        kept, self._kept = self._kept, None
        if kept is not None:
            if kept[:2] == (path, max_result_bytes):
                return kept[2]
            kept[2].close()
        return _open_read_only(path, max_result_bytes, self._isolated)

    def give_back(self, path: str, max_result_bytes: int, connection: sqlite3.Connection) -> None:
        """Keep ``connection`` for the next query (closing the one kept before, if any)."""
        self.close()
        self._kept = (path, max_result_bytes, connection)

    def close(self) -> None:
        """Close the connection kept."""
        kept, self._kept = self._kept, None
        if kept is not None:
            kept[2].close()


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
            self._alarms = [arm_alarm(self._deadline, self._expire)]
            if self._isolated:
                self._alarms.append(arm_alarm(self._deadline + _END_GRACE, _end_past_deadline))

    def stop(self) -> None:
        """Disarm the alarms (once this returns, they never go off)."""
        for alarm in self._alarms:
            disarm_alarm(alarm)
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
    os._exit(EXIT_TIMEOUT)


def _open_read_only(
    path: str, max_result_bytes: int, isolated: bool, reverse_unordered: bool = False
) -> sqlite3.Connection:
    uri = Path(path).as_uri() + "?mode=ro&immutable=1"
    connection = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    try:
        if isolated:
            heap = max(SQL_HEAP_FACTOR * max_result_bytes, SQL_HEAP_FLOOR)
            connection.execute(f"PRAGMA hard_heap_limit = {heap:d}")
        connection.execute("PRAGMA query_only = ON")
        if reverse_unordered:
            # Set here, before the authorizer that denies every pragma to the query.
            connection.execute("PRAGMA reverse_unordered_selects = ON")
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
    connection: sqlite3.Connection,
    query: str,
    limits: _Limits,
    send: Sink | None,
    *,
    fallback: Callable[[bytes], str] | None = None,
    decode: Callable[[bytes], str] | None = None,
) -> _Read | None:
    """Read a query's rows within the limits: the columns, the rows not sent on, or the
    error. Rows are read one at a time and counted (``CELL_BYTES`` a value, whatever it is,
    and a text its UTF-8 length on top, a blob its length) before the next is read, so the limit is
    overshot by one row at most (and SQLite's heap cap bounds a row).

    Without ``decode`` (tried first) text is decoded by SQLite's driver itself, in C, and must
    be UTF-8. Text that is not makes the query fail, as in ``sqlite3``'s default (BIRD's
    script), unless there is a ``fallback``: then None, and the query is read again from the
    start with ``decode`` set to it.
    """
    max_rows, max_result_bytes = limits.max_rows, limits.max_result_bytes
    strict = decode is None
    connection.text_factory = str if decode is None else decode
    rows: list[tuple[object, ...]] = []
    used = 0
    sent = 0  # rows given to send
    try:
        cursor = connection.execute(query)
        # The cursor steps in C, as fast as fetchmany; the loop is written out, as it runs
        # for every row of a large result.
        for row in cursor:
            if len(rows) == CHUNK_ROWS and send is not None:
                send(rows)
                sent += len(rows)
                rows = []
            if sent + len(rows) == max_rows:
                return (), [], too_many_rows(max_rows)
            used += CELL_BYTES * len(row)
            for value in row:
                kind = type(value)
                if kind is str:
                    used += len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))
                elif kind is bytes:
                    used += len(value)
            if used > max_result_bytes:
                return (), [], too_many_bytes(max_result_bytes)
            rows.append(row)
        columns = tuple(column[0] for column in cursor.description or ())
    except (sqlite3.Error, sqlite3.Warning) as error:
        if limits.expired.is_set():
            return (), [], past_time_limit(limits.timeout)
        if strict and fallback is not None and str(error).startswith(_NOT_UTF8):
            return None
        if getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_TOOBIG:
            return (), [], f"the query made or read a value or table row larger than {byte_limit(max_result_bytes)}"
        return (), [], str(error) or type(error).__name__
    except MemoryError:
        if limits.expired.is_set():
            return (), [], past_time_limit(limits.timeout)
        if limits.isolated:
            heap = max(SQL_HEAP_FACTOR * max_result_bytes, SQL_HEAP_FLOOR)
            return (), [], f"the query needed more memory than {byte_limit(heap)}"
        return (), [], "the query's result does not fit in memory"
    except (ValueError, OverflowError) as error:
        # A column name that is not UTF-8, say: still the query's failure, not ours.
        return (), [], str(error) or type(error).__name__
    return columns, rows, None


# How Python's sqlite3 says that text is not UTF-8 (text_factory = str).
_NOT_UTF8 = "Could not decode to UTF-8"


def _decode_replacing(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _decode_ignoring(raw: bytes) -> str:
    return raw.decode("utf-8", "ignore")


TEXT_DECODINGS: dict[str, Callable[[bytes], str] | None] = {
    "replace": _decode_replacing,
    "ignore": _decode_ignoring,
    "strict": None,
}
"""How text that is not UTF-8 is read, by name: ``replace``, with replacement characters
(answerkey's own); ``ignore``, the bytes that are not UTF-8 dropped (test-suite-sql-eval's
connection, exec_eval.py:140 at e97acc5: ``'Joe \xffSharp'`` reads ``'Joe Sharp'``);
``strict``, the query fails, as with ``sqlite3``'s default decoder (BIRD's script)."""

DEFAULT_TEXT_DECODING = "replace"
