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
- **time** (``timeout`` seconds, default ``SQL_TIMEOUT``; ``--timeout``; an infinite one is no
  limit): at the deadline one alarm thread (per process, not per query) interrupts the query
  ("the query ran past the time limit of T s"). SQLite notices an interrupt only between the
  steps of its virtual machine, not inside one long function call (``LIKE`` with many ``%``
  over a long string, ``instr``, ``replace``: measured, an interrupt at 0.5 s took effect
  after 8 s), so queries run in helper processes (``serve_queries``): a thread running a query
  takes an idle helper or starts one (up to four idle ones are kept; ``start_query_process``
  starts one ahead, without waiting for it: ``answerkey sql -j 1`` does as it begins, so that
  the helper starts while the inputs load, and the first query waits for it, killing it if it
  has not started within 30 seconds). Half a second past the deadline a helper still inside
  the query ends itself, a second past it this process kills it, and the next query starts
  another. A helper ends when this process ends (its requests pipe closes; if it is running a
  query then, or this process was killed, within half a second: it watches for it) and ignores
  Ctrl-C, which is this process's to handle. A helper sends the rows on as it reads them, in
  chunks, which this process takes in while the helper reads on; time the helper spends
  waiting for this process to take a chunk is not the query's: it moves the deadline and is
  not counted in ``QueryResult.seconds``. Several queries on one database go to a helper in
  one message (``run_file_each``; ``answerkey sql`` sends a batch's queries this way): it runs
  them one after the other, sending each result as soon as it is read (no round trip between
  them), on connections it keeps open for the next queries and messages
  (``ReadOnlyConnections``: a database's until its file changes, not after a query broken
  off); each query keeps its own time, row and byte limits, and a helper that ends inside
  one (past its time limit, killed) costs only that query: the ones after it go to another
  helper. A result keeps the values as SQLite gave them, by column
  (``QueryResult.driver_columns``), and makes its typed rows when they are first asked for.
  Text is decoded by SQLite's driver, strictly, as UTF-8; a query with text that is not UTF-8
  is read again from the start, that text decoded as the request's ``text_decoding`` says
  (``TEXT_DECODINGS``: replacement characters by default), or fails (``strict``).
- **rows** (``max_rows``, default ``SQL_MAX_ROWS``; ``--max-rows``): reading stops at the
  first row past the limit ("the query returned more than N rows").
- **bytes** (``max_result_bytes``, default ``SQL_MAX_RESULT_BYTES``;
  ``--max-result-bytes``): rows are read one at a time and counted (every value 8 bytes,
  ``CELL_BYTES``, NULL and an empty text included, and a text its UTF-8 length on top, a
  blob its length); reading stops at the first
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

This module holds the entry points (``run_query``, ``run_file``, ``run_file_each``,
``Databases``); beside it
are what a query returns (``_sql_result``), the checks and error words every engine shares
(``_sql_checks``), the alarm thread (``_sql_alarms``), reading a query on SQLite
(``_sqlite_read``) and the helper processes with their pipe protocol (``_sqlite_processes``).

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

import os
import stat
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path

from answerkey.adapters._sql_alarms import arm_alarm as arm_alarm, disarm_alarm as disarm_alarm
from answerkey.adapters._sql_checks import (
    being_written,
    db_id_problem,
    inside_root,
    limits_problem,
    os_reason,
    past_time_limit as past_time_limit,
    query_problem,
    too_many_bytes as too_many_bytes,
    too_many_rows as too_many_rows,
)
from answerkey.adapters._sql_result import (
    CELL_BYTES as CELL_BYTES,
    SCALAR_BYTES as SCALAR_BYTES,
    ColumnFacts,
    QueryResult,
    sql_value as sql_value,
)
from answerkey.adapters._sqlite_processes import (
    STATE,
    chunk_of,
    serve_queries as serve_queries,
    start_query_process as start_query_process,
    stop_query_processes as stop_query_processes,
)
from answerkey.adapters._sqlite_read import DEFAULT_TEXT_DECODING, Chunk, Reply, Request, execute_request
from answerkey.gc_pause import gc_paused
from answerkey.limits import (
    SQL_HEAP_FACTOR,
    SQL_HEAP_FLOOR,
    SQL_MAX_RESULT_BYTES,
    SQL_MAX_ROWS,
    SQL_TIMEOUT,
)

DEFAULT_TIMEOUT = SQL_TIMEOUT
DEFAULT_MAX_ROWS = SQL_MAX_ROWS
DEFAULT_MAX_RESULT_BYTES = SQL_MAX_RESULT_BYTES
# SQLite's heap in a helper process: SQL_HEAP_FACTOR times the byte limit, at least
# SQL_HEAP_FLOOR. A query holds one row and its working values at a time (the page cache is
# 2 MiB and sorts spill to temporary files), so this is room for a value of the limit's size.
HEAP_FACTOR = SQL_HEAP_FACTOR
HEAP_FLOOR = SQL_HEAP_FLOOR


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
    problem = limits_problem(timeout, max_rows, max_result_bytes) or query_problem(query)
    if problem is not None:
        return QueryResult(error=problem)
    path = str(database) if isinstance(database, (str, os.PathLike)) else repr(database)
    try:
        real = os.path.realpath(database, strict=True)
        regular = stat.S_ISREG(os.stat(real).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        regular = False
    except (OSError, TypeError, ValueError) as error:
        return QueryResult(error=f"cannot read the database file {path!r}: {os_reason(error)}")
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
    reverse_unordered: bool = False,
    text_decoding: str = DEFAULT_TEXT_DECODING,
) -> QueryResult:
    """Run ``query`` on the SQLite file at the real path ``real`` (links resolved by the
    caller, who has checked where it lies), as ``run_query`` does; messages call the
    database ``label``. Never raises for a bad query or database: see ``.error``.
    ``text_decoding`` says how text that is not UTF-8 is read (``TEXT_DECODINGS``: with
    replacement characters by default).

    ``reverse_unordered`` reads the tables in reverse wherever the query leaves the order
    free (SQLite's ``PRAGMA reverse_unordered_selects``, set on a connection opened for this
    query alone, read-only and immutable as every other), in this process, within the same
    limits: ``answerkey sql --probe-gold`` runs a gold so to see whether its result depends
    on the rows' storage order.

    >>> run_file("/nowhere/at/all.sqlite", "'all'", "SELECT 1").error
    "no database 'all' ('/nowhere/at/all.sqlite')"
    """
    problem = limits_problem(timeout, max_rows, max_result_bytes) or query_problem(query)
    if problem is not None:
        return QueryResult(error=problem)
    try:
        regular = stat.S_ISREG(os.stat(real).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        regular = False
    except (OSError, TypeError, ValueError) as error:
        return QueryResult(error=f"cannot read the database {label}: {os_reason(error)} ({real!r})")
    if not regular:
        return QueryResult(error=f"no database {label} ({real!r})")
    return _run_file(real, label, query, timeout, max_rows, max_result_bytes, reverse_unordered, text_decoding)


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
        if db_id_problem(db_id) is not None:
            return None
        return self.root / db_id / f"{db_id}.sqlite"

    def run(self, db_id: str, query: str) -> QueryResult:
        """Run ``query`` on the database ``db_id`` (read-only, time, row and byte limits)."""
        problem = db_id_problem(db_id) or limits_problem(self.timeout, self.max_rows, self.max_result_bytes)
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
            return QueryResult(error=f"cannot read the database {db_id!r}: {os_reason(error)} ({str(path)!r})")
        if not regular:
            return QueryResult(error=f"no database {db_id!r} (expected {str(path)!r})")
        if not inside_root(root, real):
            return QueryResult(error=f"the database {db_id!r} is outside the root: {str(path)!r} leads to {real!r}")
        problem = query_problem(query)
        if problem is not None:
            return QueryResult(error=problem)
        return _run_file(real, repr(db_id), query, self.timeout, self.max_rows, self.max_result_bytes)

    def __repr__(self) -> str:
        return (
            f"Databases({str(self.root)!r}, timeout={self.timeout:g}, max_rows={self.max_rows}, "
            f"max_result_bytes={self.max_result_bytes})"
        )


def run_file_each(
    real: str,
    label: str,
    queries: Sequence[str],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
    max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
    text_decoding: str = DEFAULT_TEXT_DECODING,
) -> Iterator[QueryResult]:
    """The results of ``queries`` on the SQLite file at the real path ``real``, in order, as
    ``run_file`` gives each: all are sent at once to one helper process, which runs them one
    after the other while this process takes in the results (one message each, no round trip
    between them). Each query has its own time, row and byte limits; one stopped past its
    time limit (its helper ended) leaves the next ones to another helper. Closing the
    iterator early ends the helper if it is still running them.

    >>> [result.error for result in run_file_each("/nowhere/at/all.sqlite", "'all'", ["SELECT 1"])]
    ["no database 'all' ('/nowhere/at/all.sqlite')"]
    """
    problem = limits_problem(timeout, max_rows, max_result_bytes)
    if problem is None:
        try:
            if not stat.S_ISREG(os.stat(real).st_mode):
                problem = f"no database {label} ({real!r})"
        except (FileNotFoundError, NotADirectoryError):
            problem = f"no database {label} ({real!r})"
        except (OSError, TypeError, ValueError) as error:
            problem = f"cannot read the database {label}: {os_reason(error)} ({real!r})"
    problem = problem or being_written(real, label)
    if problem is not None:
        for _query in queries:
            yield QueryResult(error=problem)
        return
    refused = [query_problem(query) for query in queries]
    requests: list[Request] = [
        (real, query, float(timeout), max_rows, max_result_bytes, text_decoding)
        for query, why in zip(queries, refused)
        if why is None
    ]
    columns = _Columns()
    replies: Generator[Reply | None, None, None] | None = STATE.processes.run_each(requests, columns.receive)
    sent = iter(requests)
    try:
        for why in refused:
            if why is not None:
                yield QueryResult(error=why)
                continue
            request = next(sent)
            if replies is None:  # a result did not fit in memory: the others one at a time
                yield _run_file(real, label, request[1], timeout, max_rows, max_result_bytes, False, text_decoding)
                continue
            try:
                # The rows arrive as millions of tuples, none of them garbage: the cyclic
                # collector would walk those received so far, and the growing columns, again and again.
                with gc_paused():
                    reply = next(replies)
                    if reply is None:
                        reply = execute_request(request, isolated=False)
            except MemoryError:
                replies = None  # it ended the helper
                columns = _Columns()
                yield QueryResult(error="the query's result does not fit in memory")
                continue
            yield columns.result(reply)
    finally:
        if replies is not None:
            replies.close()


def _run_file(
    real: str,
    label: str,
    query: str,
    timeout: float,
    max_rows: int,
    max_result_bytes: int,
    reverse_unordered: bool = False,
    text_decoding: str = DEFAULT_TEXT_DECODING,
) -> QueryResult:
    """Run a checked query on the regular file ``real``, in a helper process if one can run."""
    problem = being_written(real, label)
    if problem is not None:
        return QueryResult(error=problem)
    request: Request = (real, query, float(timeout), max_rows, max_result_bytes, text_decoding)
    columns = _Columns()
    try:
        # The rows arrive as millions of tuples, none of them garbage: the cyclic collector
        # would walk those received so far, and the growing columns, again and again.
        with gc_paused():
            # A reversed run is rare (a probe of a gold): it runs here, not in a helper.
            reply = None if reverse_unordered else STATE.processes.run(request, columns.receive)
            if reply is None:
                reply = execute_request(request, isolated=False, reverse_unordered=reverse_unordered)
            return columns.result(reply)
    except MemoryError:
        return QueryResult(error="the query's result does not fit in memory")


class _Columns:
    """The values of one result by column, as a helper sends them in chunks (then the next
    result's, once ``result`` has made this one)."""

    def __init__(self) -> None:
        self.driver: list[list[object]] = []
        self.facts: list[ColumnFacts] = []
        self.count = 0

    def receive(self, chunk: Chunk | None) -> None:
        """Take in a chunk of rows; None: the helper reads the query again from the start."""
        if chunk is None:
            self.driver, self.facts, self.count = [], [], 0
            return
        values, size = chunk
        if not self.driver:
            self.driver = [[] for _ in values]
            self.facts = [ColumnFacts() for _ in values]
        for column, found, more in zip(self.driver, self.facts, values):
            column.extend(more)
            found.add(more)
        self.count += size

    def result(self, reply: Reply) -> QueryResult:
        """The result of ``reply`` with the rows taken in (and those it holds itself)."""
        try:
            names, rows, error, seconds = reply
            if error is not None:
                return QueryResult(error=error)
            if rows:
                self.receive(chunk_of(rows))
            if not self.driver:
                self.driver = [[] for _ in names]
                self.facts = [ColumnFacts() for _ in names]
            # The values stay as SQLite gave them (numbers and strings, which the cyclic
            # collector does not track); the typed rows are made if and when asked for.
            return QueryResult.of_driver_columns(
                tuple(self.driver), tuple(names), seconds, self.count, tuple(self.facts)
            )
        except MemoryError:
            return QueryResult(error="the query's result does not fit in memory")
        finally:
            self.driver, self.facts, self.count = [], [], 0
