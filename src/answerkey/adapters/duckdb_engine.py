"""DuckDB database files, read-only, into typed rows (the optional ``answerkey[duckdb]``).

A directory in the Spider/BIRD layout holds one DuckDB file per db_id,
``DIR/<db_id>/<db_id>.duckdb`` (and, for a test suite, other ``*.duckdb`` files beside it),
or, without that directory, the flat ``DIR/<db_id>.duckdb``.

What a query may do: read. A file is opened with ``read_only=True`` and
``enable_external_access=false`` (no file is read or written: no ``ATTACH``, ``COPY``,
``EXPORT``, ``read_csv``, no extension installed or loaded, no Python variable scanned), no
temporary directory (nothing spills to disk: a query that needs more than the memory limit
fails), extensions never installed or loaded automatically, and the configuration locked
(``SET`` cannot undo any of it). Only one statement runs, and only one that reads (DuckDB's
own parser says what the query is): anything else fails before it runs ("only a query that
reads may run, not a DROP statement").

Limits: time (``timeout`` s: a timer interrupts the query, "the query ran past the time limit
of T s"), rows and bytes (counted while reading the result a batch at a time), memory
(``memory_limit`` bytes, DuckDB's ``memory_limit``: "the query needed more memory than the
limit of N bytes (--memory-limit raises it)") and ``threads``.

Values: as ``engine_value`` maps DuckDB's Python values. HUGEINT and DECIMAL stay exact;
an INTERVAL is ISO 8601 text of the duration DuckDB's Python client gives (a month counted
as 30 days); lists, arrays, structs and maps are JSON text; a DATE or TIMESTAMP outside
Python's years (1 to 9999) is DuckDB's text of it ("10000-01-01"), and DuckDB's Python client
gives ``infinity`` as 9999-12-31 (and ``-infinity`` as 0001-01-01).

Connections: one per database per process (more when threads run queries side by side),
opened at the first query and kept until ``close``. DuckDB refuses a second configuration for
a file a process has open: two engines with different limits cannot read the same file in
one process.
"""

from __future__ import annotations

import math
import os
import threading
import time
from typing import Any

from answerkey.adapters._engines import (
    Connections,
    Database,
    LimitedRows,
    checked_limits,
    file_databases,
    file_fingerprint,
)
from answerkey.adapters.sql import (
    QueryResult,
    arm_alarm,
    disarm_alarm,
    past_time_limit,
    query_problem,
)
from answerkey.gc_pause import gc_paused
from answerkey.limits import DUCKDB_MEMORY_LIMIT, DUCKDB_THREADS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT

NOT_INSTALLED = "DuckDB is not installed (pip install 'answerkey[duckdb]')"

# Most rows read from DuckDB at a time (its vector size); fewer while values are large
# (LimitedRows.batch_size).
_BATCH = 2048


class DuckDBEngine:
    """DuckDB files in a Spider/BIRD-layout directory, opened read-only.

    >>> DuckDBEngine("/data", threads=0)
    Traceback (most recent call last):
      ...
    ValueError: the thread limit must be a whole number above 0, not 0
    """

    name = "duckdb"
    suffix = ".duckdb"

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        timeout: float = SQL_TIMEOUT,
        max_rows: int = SQL_MAX_ROWS,
        max_result_bytes: int = SQL_MAX_RESULT_BYTES,
        memory_limit: int = DUCKDB_MEMORY_LIMIT,
        threads: int = DUCKDB_THREADS,
    ) -> None:
        self.timeout, self.max_rows, self.max_result_bytes = checked_limits(timeout, max_rows, max_result_bytes)
        if not isinstance(memory_limit, int) or isinstance(memory_limit, bool) or memory_limit < 1:
            raise ValueError(f"the memory limit must be a whole number of bytes above 0, not {memory_limit!r}")
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
            raise ValueError(f"the thread limit must be a whole number above 0, not {threads!r}")
        self.location = os.fspath(root)
        self.memory_limit = memory_limit
        self.threads = threads
        self.connections: Connections[Any] = Connections(_close)

    def databases(self, db_id: str) -> tuple[Database, ...]:
        """``DIR/<db_id>/<db_id>.duckdb``, then the other ``*.duckdb`` files beside it; without
        that directory, the flat ``DIR/<db_id>.duckdb`` alone."""
        return file_databases(self.name, self.location, db_id, self.suffix)

    def run(self, database: Database, query: str) -> QueryResult:
        """Run ``query`` on the DuckDB file of ``database``, read-only, within the limits."""
        if database.engine != self.name:
            return QueryResult(error=f"the database {database.label} is not a DuckDB database")
        problem = query_problem(query)
        if problem is not None:
            return QueryResult(error=problem)
        try:
            import duckdb
        except ImportError:
            return QueryResult(error=NOT_INSTALLED)
        try:
            connection = self.connections.take(database.location, lambda: self._connect(duckdb, database.location))
        except (duckdb.Error, OSError, ValueError, RuntimeError) as error:
            return QueryResult(error=f"cannot open the database {database.label}: {_message(error)}")
        try:
            result = self._run(duckdb, connection, query)
        except BaseException:
            self.connections.discard(connection)
            raise
        self.connections.give_back(database.location, connection)
        return result

    def fingerprint(self, database: Database) -> str:
        """Size, modification time and inode of the file (and of its ``.wal``)."""
        return file_fingerprint(database.location, (".wal",))

    def close(self) -> None:
        """Close this process's open connections."""
        self.connections.close()

    def _connect(self, duckdb: Any, path: str) -> Any:
        config: dict[str, object] = {
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "memory_limit": f"{self.memory_limit}B",
            "threads": self.threads,
            "temp_directory": "",
            "python_enable_replacements": False,
            "lock_configuration": True,
        }
        return duckdb.connect(path, read_only=True, config=config)

    def _run(self, duckdb: Any, connection: Any, query: str) -> QueryResult:
        try:
            statements = connection.extract_statements(query)
        except duckdb.Error as error:
            return QueryResult(error=_message(error))
        if not statements:
            return QueryResult(error="the query is empty")
        if len(statements) != 1:
            return QueryResult(error=f"one statement may run, and the query has {len(statements)}")
        kind = statements[0].type.name
        if kind != "SELECT":
            return QueryResult(error=f"only a query that reads may run, not {_article(kind)} statement")
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            connection.interrupt()

        alarm = arm_alarm(time.monotonic() + self.timeout, expire) if math.isfinite(self.timeout) else None
        try:
            started = time.perf_counter()
            connection.execute(query)
            columns = tuple(column[0] for column in connection.description or ())
            kept = LimitedRows(self.max_rows, self.max_result_bytes)
            # Millions of values, none garbage: the cyclic collector would walk all kept so
            # far again and again (for a 1,000,000-row result, most of the time).
            with gc_paused():
                # Batches sized to what is left of the byte limit: DuckDB's memory limit does
                # not cover the values made on this side.
                while batch := connection.fetchmany(kept.batch_size(_BATCH)):
                    problem = kept.add(batch)
                    if problem is not None:
                        return QueryResult(error=problem)
            seconds = time.perf_counter() - started - kept.converting
        except duckdb.Error as error:
            if expired.is_set():
                return QueryResult(error=past_time_limit(self.timeout))
            if isinstance(error, duckdb.OutOfMemoryException):
                return QueryResult(
                    error=f"the query needed more memory than the limit of {self.memory_limit:,} bytes "
                    "(--memory-limit raises it)"
                )
            return QueryResult(error=_message(error))
        except MemoryError:
            return QueryResult(error="the query's result does not fit in memory")
        except (ValueError, OverflowError, TypeError) as error:
            # A value DuckDB's Python client cannot convert: the query's failure, not ours.
            return QueryResult(error=str(error) or "a value of the result cannot be read")
        finally:
            if alarm is not None:
                disarm_alarm(alarm)
        return kept.result(columns, seconds)

    def __repr__(self) -> str:
        return (
            f"DuckDBEngine({self.location!r}, timeout={self.timeout:g}, max_rows={self.max_rows}, "
            f"max_result_bytes={self.max_result_bytes}, memory_limit={self.memory_limit}, threads={self.threads})"
        )


def _close(connection: Any) -> None:
    connection.close()


def _message(error: BaseException) -> str:
    """DuckDB's message on one line, without the query excerpt that follows it."""
    text = str(error).strip() or type(error).__name__
    return " ".join(text.split("\n\n", 1)[0].split())


def _article(kind: str) -> str:
    """``a DROP``, ``an UPDATE``: a statement kind as DuckDB names it, with its article."""
    words = kind.replace("_", " ")
    return f"an {words}" if words[0] in "AEIOU" else f"a {words}"
