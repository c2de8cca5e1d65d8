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
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from answerkey.adapters._sql_alarms import arm_alarm, disarm_alarm
from answerkey.adapters._sql_checks import byte_limit, past_time_limit, too_many_bytes, too_many_rows
from answerkey.adapters._sql_result import CELL_BYTES, CHUNK_ROWS
from answerkey.adapters.sqltext import outer_order
from answerkey.limits import MAX_QUERY_CHARS, SQL_HEAP_FACTOR, SQL_HEAP_FLOOR

# A helper ends itself this long past the deadline if it is still inside one function call,
# and this process kills it a little later, should the helper itself be stuck.
_END_GRACE = 0.5
KILL_GRACE = 1.0
# The exit status of a helper that ended itself past a deadline (as timeout(1) exits).
EXIT_TIMEOUT = 124

# SQLite's limits are C ints.
_INT_MAX = 2**31 - 1
# How many databases' connections a helper keeps open (ReadOnlyConnections): a page cache
# holds at most about 2 MB (SQLite's default), so these hold a small part of the capped heap.
KEPT_CONNECTIONS = 32


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
# A request that asks a helper to read its query's outer ORDER BY too, in the dialect it
# names (``read_order``): a Request and that dialect.
OrderedRequest = tuple[str, str, float, int, int, str, str]
# A query's outer ORDER BY as a helper read it: ``outer_order``'s answer in a 1-tuple (it may
# be None); None where it was not asked for or not read (the query failed, or the reading
# did), so that the process judging reads it itself.
OrderRead = tuple[tuple[int, ...] | None] | None
# What reading a query gives: columns, the rows not sent on, error, and how it ended (_READ,
# _REFUSED, _OUT_OF_MEMORY or _BROKEN_OFF).
_Read = tuple[tuple[str, ...], list[tuple[object, ...]], str | None, object]
# How reading a query ended: read to the end; refused by SQLite for what the query says (a
# syntax error, a name that does not exist, an action the authorizer denies), which leaves the
# connection as it was; out of SQLite's capped heap; broken off otherwise (time, rows, bytes).
_READ, _REFUSED, _OUT_OF_MEMORY, _BROKEN_OFF = object(), object(), object(), object()
_QUERY_ERRORS = frozenset({sqlite3.SQLITE_ERROR, sqlite3.SQLITE_AUTH})
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
    for the next query on the same database (``ReadOnlyConnections`` says when); a query out
    of SQLite's capped heap while it keeps other databases' connections is read again without
    them, within the same time limit. ``reverse_unordered``: the
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
    expired = _Expiry()

    def expire() -> None:
        expired.past = True
        connection.interrupt()

    clock = _QueryClock(timeout, expire, isolated)
    keep = False
    try:
        sink = None if send is None else partial(clock.outside, send)
        limits = _Limits(max_rows, max_result_bytes, isolated, expired, timeout)
        decode, retried = None, False
        while True:
            read = _read(connection, query, limits, sink, fallback=TEXT_DECODINGS.get(decoding), decode=decode)
            if read is None:  # text that is not UTF-8: read again (see _read)
                decode = TEXT_DECODINGS[decoding]
            elif read[3] is _OUT_OF_MEMORY and not retried and connections is not None and connections.close_others():
                # The connections kept for other databases held part of the capped heap:
                # read again with the room the query has alone.
                retried = True
            else:
                break
            if sink is not None:
                sink(None)
        columns, rows, problem, ending = read
        # Not one the deadline's interrupt reached as the query ended: it is not trusted.
        keep = (ending is _READ or ending is _REFUSED) and not expired.past
        return columns, rows, problem, (None if problem is not None else clock.seconds())
    finally:
        # Disarmed first: an interrupt must never reach a closed connection.
        clock.stop()
        if connections is None or reverse_unordered:
            connection.close()
        elif keep:
            connections.give_back(path, max_result_bytes, connection)
        else:  # a connection a query broke off on (time, memory, size) is not kept for the next one
            connections.forget(connection)


def read_order(query: str, columns: tuple[str, ...], dialect: str) -> OrderRead:
    """In a helper, once a query asked for it has run (its clock stopped: the reading is
    neither in its time limit nor in its seconds): its outer ORDER BY for a result with
    ``columns`` (``outer_order``), bounded as sqlglot's work always is
    (``MAX_PARSED_CHARS``, ``MAX_PARSED_DEPTH``); None if the reading fails."""
    try:
        return (outer_order(query, columns, len(columns), dialect),)
    except Exception:  # noqa: BLE001 - sqlglot missing, say: the process judging reads it, as it always could
        return None


class ReadOnlyConnections:
    """In a helper: the connections of the databases queried last, kept open for the next
    queries on them, in this message and the next ones (opening one reads the schema again and
    starts with an empty page cache, which costs a small query more than running it): at most
    ``size``, the least recently used closed first. One is used again only while its file is
    the file it opened (same device, inode, size and modification time, looked at by the first
    query on it of each message: a database replaced between two messages is opened again),
    and only after queries that ended as a query may:
    read to the end, or refused by SQLite for what the query says (a syntax error, a name
    that does not exist, an action the authorizer denies)."""

    def __init__(self, *, isolated: bool, size: int = KEPT_CONNECTIONS) -> None:
        self._isolated = isolated
        self._size = size
        # (path, byte limit) -> (the file's identity when opened, connection), least recent first
        self._kept: OrderedDict[tuple[str, int], tuple[tuple[int, ...] | None, sqlite3.Connection]] = OrderedDict()
        self._identities: dict[int, tuple[int, ...] | None] = {}  # of the connections taken, by id
        # The databases whose files were looked at in this message: as within one query, a
        # database must be at rest while a message's queries read it.
        self._looked_at: set[tuple[str, int]] = set()

    def new_message(self) -> None:
        """Look at each file again before its next query: a new message has come."""
        self._looked_at.clear()

    def take(self, path: str, max_result_bytes: int) -> sqlite3.Connection:
        """The connection kept for ``path`` with that byte limit while its file is unchanged
        (looked at once a message: see ``new_message``), else a new one."""
        key = (path, max_result_bytes)
        kept = self._kept.pop(key, None)
        if kept is not None and key in self._looked_at:
            self._identities[id(kept[1])] = kept[0]
            return kept[1]
        identity = _identity(path)
        self._looked_at.add(key)
        if kept is not None:
            if identity is not None and kept[0] == identity:
                self._identities[id(kept[1])] = identity
                return kept[1]
            kept[1].close()
        connection = _open_read_only(path, max_result_bytes, self._isolated)
        self._identities[id(connection)] = identity
        return connection

    def give_back(self, path: str, max_result_bytes: int, connection: sqlite3.Connection) -> None:
        """Keep ``connection`` (taken from ``take``) for the next queries on its database."""
        identity = self._identities.pop(id(connection), None)
        self._kept[path, max_result_bytes] = (identity, connection)
        while len(self._kept) > self._size:
            oldest = self._kept.popitem(last=False)[1]
            oldest[1].close()

    def forget(self, connection: sqlite3.Connection) -> None:
        """Close ``connection`` (taken from ``take``) rather than keep it."""
        self._identities.pop(id(connection), None)
        connection.close()

    def close_others(self) -> bool:
        """Close the connections kept (not those taken): whether there were any."""
        kept, self._kept = self._kept, OrderedDict()
        for _identity, connection in kept.values():
            connection.close()
        return bool(kept)

    def close(self) -> None:
        """Close the connections kept."""
        self.close_others()


def _identity(path: str) -> tuple[int, ...] | None:
    """What tells a file from the same file changed or replaced (None if it cannot be read)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns


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


class _Expiry:
    """Whether a query's deadline has passed: set by the alarm thread before it interrupts
    SQLite, read by the reader once SQLite stops (a plain flag: a ``threading.Event`` costs
    more to make than a small query to read)."""

    __slots__ = ("past",)

    def __init__(self) -> None:
        self.past = False


@dataclass(frozen=True)
class _Limits:
    """What bounds reading one query, and what to say past its time limit."""

    max_rows: int
    max_result_bytes: int
    isolated: bool
    expired: _Expiry
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
    cells = 0  # what a row's cells count, text aside
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
                return (), [], too_many_rows(max_rows), _BROKEN_OFF
            if not rows:  # every row of a query has its width
                cells = CELL_BYTES * len(row)
            used += cells
            for value in row:
                kind = type(value)
                if kind is str:
                    used += len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))
                elif kind is bytes:
                    used += len(value)
            if used > max_result_bytes:
                return (), [], too_many_bytes(max_result_bytes), _BROKEN_OFF
            rows.append(row)
        columns = tuple(column[0] for column in cursor.description or ())
    except (sqlite3.Error, sqlite3.Warning) as error:
        if limits.expired.past:
            return (), [], past_time_limit(limits.timeout), _BROKEN_OFF
        if strict and fallback is not None and str(error).startswith(_NOT_UTF8):
            return None
        code = getattr(error, "sqlite_errorcode", None)
        if code == sqlite3.SQLITE_TOOBIG:
            too_big = f"the query made or read a value or table row larger than {byte_limit(max_result_bytes)}"
            return (), [], too_big, _BROKEN_OFF
        return (), [], str(error) or type(error).__name__, (_REFUSED if code in _QUERY_ERRORS else _BROKEN_OFF)
    except MemoryError:
        if limits.expired.past:
            return (), [], past_time_limit(limits.timeout), _BROKEN_OFF
        if limits.isolated:
            heap = max(SQL_HEAP_FACTOR * max_result_bytes, SQL_HEAP_FLOOR)
            return (), [], f"the query needed more memory than {byte_limit(heap)}", _OUT_OF_MEMORY
        return (), [], "the query's result does not fit in memory", _OUT_OF_MEMORY
    except (ValueError, OverflowError) as error:
        # A column name that is not UTF-8, say: still the query's failure, not ours.
        return (), [], str(error) or type(error).__name__, _BROKEN_OFF
    return columns, rows, None, _READ


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
