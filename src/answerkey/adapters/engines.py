"""SQL engines behind one interface: SQLite, DuckDB and PostgreSQL databases, read-only, into typed rows.

``open_engine(location)`` opens the engine a location names: a directory of database files
in the Spider/BIRD layout (``DIR/<db_id>/<db_id>.sqlite``, or ``.duckdb``), or a PostgreSQL
URL (``postgresql://`` or ``postgres://``) whose server holds one database per db_id. An
``Engine`` lists the databases of a db_id (``databases``), runs a query on one of them
(``run``: a ``QueryResult``, never an exception for a bad query), and says what identifies
the content of a database (``fingerprint``, for caches). Engines are picklable
configurations; connections are opened when a query first needs one, one per database per
process (more when threads run queries side by side), and kept for reuse until ``close``
(at most ``MAX_IDLE_CONNECTIONS`` idle ones per engine and process, the least recently used
closed first).

What a query may do on every engine: read one statement's rows. Writing, changing the
schema, attaching or exporting files, installing extensions and changing settings fail with
the reason in ``QueryResult.error``, and leave every database as it was. The same limits
bound every engine, with the same messages: time (``timeout`` seconds: "the query ran past
the time limit of T s"), rows (``max_rows``: "the query returned more than N rows") and
bytes of result (``max_result_bytes``: every value 8 bytes, ``CELL_BYTES``, NULL and an
empty string included, and a string its UTF-8 length on top; checked batch by batch as the
rows arrive, in batches sized to what is left of the limit: "the query's result is larger
than the limit of N bytes ...").

Values map onto the model by ``engine_value``: integers, exact decimals (exact reals with
the engine's digits), floats (reals), booleans, text, dates, date-times and times (through
``model.value_of``), NULL (nil), bytes (``X'..'``), and the rest as documented text. A
result whose values are all plain (NULL, integers, finite floats, text; any value SQLite
returns) keeps the driver's values by column and makes its typed rows when first asked for
(``QueryResult.driver_columns``): judged from those values, a large result is never typed.

>>> import sqlite3, tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> (root / "shop").mkdir()
>>> with sqlite3.connect(root / "shop" / "shop.sqlite") as db:
...     _ = db.execute("CREATE TABLE item (name TEXT, price REAL)")
...     _ = db.execute("INSERT INTO item VALUES ('pen', 1.5)")
>>> db.close()
>>> engine = open_engine(str(root))
>>> engine.name, [database.name for database in engine.databases("shop")]
('sqlite', ['shop.sqlite'])
>>> engine.run(engine.databases("shop")[0], "SELECT name, price FROM item").rows
((String(text='pen'), Number(value=Decimal('1.5'), is_real=True, text='1.5')),)
>>> engine.databases("nowhere")
Traceback (most recent call last):
  ...
answerkey.adapters._engines.NoDatabase: no database 'nowhere' (expected '.../nowhere/nowhere.sqlite' or ...)
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Protocol, runtime_checkable

from answerkey.adapters._engines import (
    MAX_IDLE_CONNECTIONS as MAX_IDLE_CONNECTIONS,
    SUITE_FILES as SUITE_FILES,
    Connections as Connections,
    Database,
    NoDatabase as NoDatabase,
    checked_limits,
    engine_row as engine_row,
    engine_rows as engine_rows,
    engine_value as engine_value,
    file_databases,
    file_fingerprint,
    interval_text as interval_text,
    plain_values as plain_values,
    value_bytes as value_bytes,
)
from answerkey.adapters._sql_checks import db_id_problem
from answerkey.adapters._sqlite_read import (
    DEFAULT_TEXT_DECODING as DEFAULT_TEXT_DECODING,
    TEXT_DECODINGS as TEXT_DECODINGS,
)
from answerkey.adapters.duckdb_engine import NOT_INSTALLED as DUCKDB_NOT_INSTALLED, DuckDBEngine
from answerkey.adapters.postgresql import NOT_INSTALLED as PSYCOPG_NOT_INSTALLED, PostgreSQLEngine, is_postgresql_url
from answerkey.adapters.sql import Databases, QueryResult, run_file, run_file_each, run_query
from answerkey.errors import did_you_mean, plural
from answerkey.limits import DUCKDB_MEMORY_LIMIT, DUCKDB_THREADS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT

__all__ = [
    "Engine",
    "SQLiteEngine",
    "DuckDBEngine",
    "PostgreSQLEngine",
    "open_engine",
    "engine_of",
    "run_on",
    "check_databases",
    "run_query",
    "QueryResult",
]


@runtime_checkable
class Engine(Protocol):
    """What the SQL workflow needs of an engine. An engine is a picklable configuration
    (sent to worker processes and Dask workers); connections are opened lazily, kept per
    process for reuse, and closed by ``close``."""

    name: str
    location: str

    def databases(self, db_id: str) -> tuple[Database, ...]:
        """Every database of ``db_id``: one, or several (a test suite). ``NoDatabase`` says
        why there is none (a malformed db_id, no such database, a file outside the root)."""
        ...

    def run(self, database: Database, query: str) -> QueryResult:
        """Run ``query`` on ``database`` read-only within the engine's limits; never raises
        for a bad query or an unreachable database: see ``QueryResult.error``."""
        ...

    def fingerprint(self, database: Database) -> str:
        """Text that changes when the content of ``database`` changes (for caches of results)."""
        ...

    def close(self) -> None:
        """Close this process's open connections (the engine stays usable: a later query opens one)."""
        ...


class SQLiteEngine:
    """SQLite files in a Spider/BIRD-layout directory, run as ``answerkey.adapters.sql`` runs
    them (read-only, immutable, an authorizer, helper processes, limits).

    A db_id's databases are ``DIR/<db_id>/<db_id>.sqlite`` and the other ``*.sqlite`` files
    beside it (test-suite-sql-eval's distilled suites), each a regular file inside the
    directory (links resolved); with ``suite_files="containing"``, every file whose name
    contains ``.sqlite`` (test-suite-sql-eval's rule, exec_eval.py:201 at e97acc5: a
    ``x.sqlite.bak`` counts). Without a ``DIR/<db_id>/`` directory, the flat file
    ``DIR/<db_id>.sqlite`` alone (Spider 2.0-lite's layout). ``text_decoding`` says how text that is not UTF-8 is read
    (``TEXT_DECODINGS``: replaced, ignored, or the query fails). The fingerprint of a file is
    its size, modification time and inode (and those of a ``-wal`` or ``-journal`` file beside it).
    """

    name = "sqlite"
    suffix = ".sqlite"

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        timeout: float = SQL_TIMEOUT,
        max_rows: int = SQL_MAX_ROWS,
        max_result_bytes: int = SQL_MAX_RESULT_BYTES,
        suite_files: str = "ending",
        text_decoding: str = DEFAULT_TEXT_DECODING,
    ) -> None:
        self.timeout, self.max_rows, self.max_result_bytes = checked_limits(timeout, max_rows, max_result_bytes)
        self.location = os.fspath(root)
        if suite_files not in SUITE_FILES:
            raise ValueError(
                f"unknown rule for a test suite's files {suite_files!r} (one of: {', '.join(SUITE_FILES)})"
            )
        if text_decoding not in TEXT_DECODINGS:
            raise ValueError(f"unknown text decoding {text_decoding!r} (one of: {', '.join(TEXT_DECODINGS)})")
        self.suite_files = suite_files
        self.text_decoding = text_decoding

    def databases(self, db_id: str) -> tuple[Database, ...]:
        """``DIR/<db_id>/<db_id>.sqlite``, then the other ``*.sqlite`` files beside it (or
        every file whose name contains ``.sqlite``: ``suite_files``); without that directory,
        the flat ``DIR/<db_id>.sqlite`` alone."""
        return file_databases(self.name, self.location, db_id, self.suffix, containing=self.suite_files == "containing")

    def run(self, database: Database, query: str) -> QueryResult:
        """Run ``query`` on the SQLite file of ``database``."""
        if database.engine != self.name:
            return QueryResult(error=f"the database {database.label} is not a SQLite database")
        return run_file(
            database.location,
            database.label,
            query,
            timeout=self.timeout,
            max_rows=self.max_rows,
            max_result_bytes=self.max_result_bytes,
            text_decoding=self.text_decoding,
        )

    def run_each(
        self, database: Database, queries: Sequence[str], read_orders: Collection[str] = ()
    ) -> Iterator[QueryResult]:
        """The results of ``queries`` on ``database``, in order, as ``run`` gives each: sent
        at once to one helper process, which runs them one after the other while this
        process takes the results in (``answerkey.adapters.sql.run_file_each``), and reads
        the outer ORDER BY of those among ``read_orders`` (``QueryResult.outer_order``)."""
        if database.engine != self.name:
            error = f"the database {database.label} is not a SQLite database"
            return iter([QueryResult(error=error) for _ in queries])
        return run_file_each(
            database.location,
            database.label,
            queries,
            timeout=self.timeout,
            max_rows=self.max_rows,
            max_result_bytes=self.max_result_bytes,
            text_decoding=self.text_decoding,
            read_orders=read_orders,
        )

    def fingerprint(self, database: Database) -> str:
        """Size, modification time and inode of the file (and of its ``-wal``/``-journal``)."""
        return file_fingerprint(database.location, ("-wal", "-journal"))

    def close(self) -> None:
        """Nothing to close: each query opens the file in a helper process."""

    def __repr__(self) -> str:
        return (
            f"SQLiteEngine({self.location!r}, timeout={self.timeout:g}, max_rows={self.max_rows}, "
            f"max_result_bytes={self.max_result_bytes})"
        )


# The engines by name, and the file suffix that names an engine in a directory.
ENGINES: dict[str, type[SQLiteEngine] | type[DuckDBEngine] | type[PostgreSQLEngine]] = {
    "sqlite": SQLiteEngine,
    "duckdb": DuckDBEngine,
    "postgresql": PostgreSQLEngine,
}
FILE_SUFFIXES = {".sqlite": "sqlite", ".duckdb": "duckdb"}


def open_engine(
    location: str | os.PathLike[str],
    *,
    engine: str | None = None,
    timeout: float = SQL_TIMEOUT,
    max_rows: int = SQL_MAX_ROWS,
    max_result_bytes: int = SQL_MAX_RESULT_BYTES,
    memory_limit: int = DUCKDB_MEMORY_LIMIT,
    threads: int = DUCKDB_THREADS,
    suite_files: str = "ending",
    text_decoding: str = DEFAULT_TEXT_DECODING,
) -> Engine:
    """The engine of ``location``: a PostgreSQL URL (``postgresql://`` or ``postgres://``), or
    a directory of database files whose engine ``engine`` names or, when None, the suffix of
    its database files tells (``ROOT/<db_id>/*.sqlite`` or ``*.duckdb``: the first db_id
    directory, in name order, that holds one, else the first flat ``ROOT/*.sqlite`` or
    ``*.duckdb`` file; SQLite when none does). ``memory_limit`` (bytes)
    and ``threads`` bound DuckDB; ``suite_files`` and ``text_decoding`` are SQLite's
    (``SQLiteEngine``). ``ValueError`` for a location or option that cannot be used.

    >>> open_engine("/nowhere/at/all")
    Traceback (most recent call last):
      ...
    ValueError: no directory '/nowhere/at/all' (--db names a directory of databases or a postgresql:// URL)
    >>> open_engine("/tmp", engine="sqlight")
    Traceback (most recent call last):
      ...
    ValueError: unknown engine 'sqlight' (one of: sqlite, duckdb, postgresql) (did you mean 'sqlite'?)
    """
    if engine is not None and engine not in ENGINES:
        hint = did_you_mean(engine, list(ENGINES))
        raise ValueError(f"unknown engine {engine!r} (one of: {', '.join(ENGINES)}){hint}")
    text = os.fspath(location)
    if is_postgresql_url(text):
        if engine not in (None, "postgresql"):
            raise ValueError(f"a PostgreSQL URL names a PostgreSQL server, not {engine} databases")
        return PostgreSQLEngine(text, timeout=timeout, max_rows=max_rows, max_result_bytes=max_result_bytes)
    if not os.path.isdir(text):
        raise ValueError(f"no directory {text!r} (--db names a directory of databases or a postgresql:// URL)")
    if engine == "postgresql":
        raise ValueError(f"the PostgreSQL engine needs a postgresql:// URL, not the directory {text!r}")
    chosen = engine or _engine_of_directory(text)
    if chosen == "duckdb":
        return DuckDBEngine(
            text,
            timeout=timeout,
            max_rows=max_rows,
            max_result_bytes=max_result_bytes,
            memory_limit=memory_limit,
            threads=threads,
        )
    return SQLiteEngine(
        text,
        timeout=timeout,
        max_rows=max_rows,
        max_result_bytes=max_result_bytes,
        suite_files=suite_files,
        text_decoding=text_decoding,
    )


def engine_of(databases: Engine | Databases) -> Engine:
    """The engine that runs the queries of ``databases``: itself when it is an ``Engine``;
    for an ``answerkey.adapters.sql.Databases``, the SQLite engine of its root with its limits.

    >>> engine_of(Databases("/data", timeout=5))
    SQLiteEngine('/data', timeout=5, max_rows=1000000, max_result_bytes=67108864)
    """
    if isinstance(databases, Databases):
        return SQLiteEngine(
            databases.root,
            timeout=databases.timeout,
            max_rows=databases.max_rows,
            max_result_bytes=databases.max_result_bytes,
        )
    return databases


def run_on(engine: Engine, db_id: str, query: str) -> QueryResult:
    """Run ``query`` on the database of ``db_id`` (its first: ``DIR/<db_id>/<db_id>.sqlite``
    in a directory, the database of that name on a server) within the engine's limits; a
    db_id that names no database is an error in the result, never raised.

    >>> run_on(SQLiteEngine("/nowhere"), "shop", "SELECT 1").error
    "no database 'shop' (expected '/nowhere/shop/shop.sqlite' or '/nowhere/shop.sqlite')"
    """
    try:
        database = engine.databases(db_id)[0]
    except NoDatabase as error:
        return QueryResult(error=str(error))
    return engine.run(database, query)


def _engine_of_directory(root: str) -> str:
    """The engine the first database file under ``root`` names by its suffix (SQLite if none)."""
    try:
        with os.scandir(root) as entries:
            directories = sorted(entry.name for entry in entries if entry.is_dir() and entry.name[0] != ".")
    except OSError:
        return "sqlite"
    for name in directories:
        for suffix, chosen in FILE_SUFFIXES.items():
            if os.path.isfile(os.path.join(root, name, f"{name}{suffix}")):
                return chosen
    # No db_id directory: the flat files (Spider 2.0-lite's ROOT/<db>.sqlite), in name order.
    for name in sorted(os.listdir(root)) if os.path.isdir(root) else ():
        for suffix, chosen in FILE_SUFFIXES.items():
            if name.endswith(suffix) and name[0] != "." and os.path.isfile(os.path.join(root, name)):
                return chosen
    return "sqlite"


def check_databases(engine: Engine, db_ids: Iterable[str]) -> None:
    """Check once, before a run, that ``engine`` can serve ``db_ids``: its driver is installed
    and some db_id has a database (so a server is reached, a directory is the right one).
    ``ValueError`` with one line saying why not, where every item would otherwise fail the
    same way; when only some db_ids have no database, their items are errors of the test.

    >>> import tempfile
    >>> root = tempfile.mkdtemp()
    >>> check_databases(SQLiteEngine(root), ["shop", "shop", "pets"])
    Traceback (most recent call last):
      ...
    ValueError: none of the 2 db_ids has a database: no database 'shop' (expected '.../shop/shop.sqlite' or ...)
    """
    if engine.name == "duckdb":
        try:
            import duckdb  # noqa: F401 - only whether it is there
        except ImportError:
            raise ValueError(DUCKDB_NOT_INSTALLED) from None
    if engine.name == "postgresql":
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise ValueError(PSYCOPG_NOT_INSTALLED) from None
    # A malformed db_id is its item's problem (an error of the test), not the databases'.
    distinct = [db_id for db_id in dict.fromkeys(db_ids) if db_id_problem(db_id) is None]
    first: str | None = None
    own = None  # the db_id whose own folder --db is (its flat file found), when others are missing
    for db_id in distinct:
        try:
            engine.databases(db_id)
        except NoDatabase as error:
            first = first or str(error)
            if str(error).startswith("cannot connect"):
                raise ValueError(str(error)) from None  # the server, not this database: the same for all
            continue
        if _own_folder(engine, db_id):
            # Found by the flat rule in the db_id's own folder: --db is one level too low (a
            # run there would take that one file, not the test suite beside it).
            own = db_id
            continue
        return
    if own is not None:
        why = first or f"this is the folder of the database {own!r}, not the folder of the databases"
        raise ValueError(why + _elsewhere(engine, own))
    if first is None:
        return
    what = first if len(distinct) == 1 else f"none of the {plural(len(distinct), 'db_id')} has a database: {first}"
    raise ValueError(what + _elsewhere(engine, distinct[0]))


def _own_folder(engine: Engine, db_id: str) -> bool:
    """Whether the directory of a file engine is ``db_id``'s own (Spider's ``DIR/<db_id>/``):
    named ``db_id`` and holding ``<db_id>SUFFIX``, which the flat rule then finds."""
    suffix = getattr(engine, "suffix", None)
    if suffix is None:
        return False
    root = os.path.normpath(engine.location)
    return os.path.basename(root) == db_id and os.path.isfile(os.path.join(root, f"{db_id}{suffix}"))


def _elsewhere(engine: Engine, db_id: str) -> str:
    """A hint when the directory of a file engine is one level off: ``db_id``'s database is
    in a directory below it, or the directory is ``db_id``'s own."""
    suffix = getattr(engine, "suffix", None)
    if suffix is None:
        return ""
    root = engine.location
    if _own_folder(engine, db_id):
        return f"; did you mean --db {os.path.dirname(os.path.normpath(root)) or os.curdir}?"
    try:
        with os.scandir(root) as entries:
            below = sorted(entry.path for entry in entries if entry.is_dir() and entry.name[0] != ".")
    except OSError:
        return ""
    for directory in below:
        if os.path.isfile(os.path.join(directory, db_id, f"{db_id}{suffix}")):
            return f"; did you mean --db {directory}?"
    return ""
