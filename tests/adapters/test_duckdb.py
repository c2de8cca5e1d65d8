"""answerkey.adapters.duckdb_engine: DuckDB files read-only, typed values, refusals that leave
files byte-identical, time, row, byte and memory limits, connection reuse."""

from __future__ import annotations

import datetime as dt
import hashlib
import pickle
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import duckdb
import pytest

from answerkey.adapters.engines import Database, DuckDBEngine, NoDatabase, open_engine
from answerkey.model import NIL, Boolean, Date, Number, String, value_of

SLOW = "SELECT sum(hash(a.range * b.range)) FROM range(100000000) a, range(100) b"


def _duckdb(path, sql):
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = duckdb.connect(str(path))
    try:
        connection.execute(sql)
    finally:
        connection.close()
    return path


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def root(tmp_path):
    """A Spider-layout root of DuckDB files: `shop` (two files, a table and a sequence), `world`."""
    base = tmp_path / "databases"
    shop = "CREATE TABLE item (name VARCHAR, price DECIMAL(10, 2)); INSERT INTO item VALUES ('pen', 1.50), ('ink', 7.25); CREATE SEQUENCE serial;"
    _duckdb(base / "shop" / "shop.duckdb", shop)
    _duckdb(base / "shop" / "shop2.duckdb", shop + "DELETE FROM item WHERE name = 'ink';")
    _duckdb(
        base / "world" / "world.duckdb", "CREATE TABLE country (name VARCHAR); INSERT INTO country VALUES ('Wales');"
    )
    return base


@pytest.fixture
def engines():
    """Open engines, closed after the test (DuckDB keeps one configuration per file and process)."""
    opened = []

    def make(*args, **options):
        engine = open_engine(*args, **options)
        opened.append(engine)
        return engine

    yield make
    for engine in opened:
        engine.close()


def test_databases_lists_the_suite_and_runs_on_each_file(root, engines):
    """A db_id's .duckdb files are listed <db_id>.duckdb first; each runs the query on its own file."""
    engine = engines(root)
    assert isinstance(engine, DuckDBEngine)
    databases = engine.databases("shop")
    assert [database.name for database in databases] == ["shop.duckdb", "shop2.duckdb"]
    assert all(database.engine == "duckdb" for database in databases)
    results = [engine.run(database, "SELECT name, price FROM item ORDER BY name") for database in databases]
    assert results[0].rows == (
        (String("ink"), Number(Decimal("7.25"), True, "7.25")),
        (String("pen"), Number(Decimal("1.50"), True, "1.50")),
    )
    assert results[0].columns == ("name", "price")
    assert results[1].rows == ((String("pen"), Number(Decimal("1.50"), True, "1.50")),)
    with pytest.raises(NoDatabase) as caught:
        engine.databases("nowhere")
    assert str(caught.value) == (
        f"no database 'nowhere' (expected {str(root / 'nowhere' / 'nowhere.duckdb')!r} "
        f"or {str(root / 'nowhere.duckdb')!r})"
    )


def test_a_root_of_flat_files_opens_duckdb_and_finds_each(tmp_path, engines):
    """No db_id directory: the flat ROOT/<db_id>.duckdb files name the engine and are found alone."""
    flat = tmp_path / "flat"
    _duckdb(flat / "shop.duckdb", "CREATE TABLE item (name VARCHAR); INSERT INTO item VALUES ('pen');")
    _duckdb(flat / "shop2.duckdb", "CREATE TABLE item (name VARCHAR);")
    engine = engines(flat)
    assert isinstance(engine, DuckDBEngine)
    databases = engine.databases("shop")
    assert [database.name for database in databases] == ["shop.duckdb"]
    assert engine.run(databases[0], "SELECT name FROM item").rows == ((String("pen"),),)


def test_each_type_maps_onto_the_model_exactly(tmp_path, engines):
    """Integers, exact decimals, floats, booleans, text, dates, timestamps, times, NULL, blobs and the rest map as documented."""
    _duckdb(
        tmp_path / "types" / "types.duckdb",
        """
        CREATE TABLE t (i INTEGER, big BIGINT, huge HUGEINT, d DECIMAL(10, 2), d0 DECIMAL(18, 0), f DOUBLE, r REAL,
            yes BOOLEAN, s VARCHAR, day DATE, ts TIMESTAMP, tz TIMESTAMPTZ, tm TIME, iv INTERVAL, u UUID, bl BLOB,
            l INTEGER[], st STRUCT(a INTEGER, b VARCHAR), m MAP(VARCHAR, INTEGER), j JSON, nothing INTEGER);
        INSERT INTO t VALUES (-7, 9007199254740993, 170141183460469231731687303715884105727, 12.50, 15, 0.1, 1.5,
            true, 'né', DATE '2020-02-29', TIMESTAMP '2020-01-02 03:04:05.123', TIMESTAMPTZ '2020-01-02 03:04:05+02',
            TIME '10:30:00', INTERVAL '1 month 2 days 3 hours', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00\\xFF'::BLOB,
            [1, NULL, 3], {'a': 1, 'b': 'q'}, MAP {'k': 1}, '{"a": [1, 2]}', NULL);
        """,
    )
    engine = engines(tmp_path)
    result = engine.run(engine.databases("types")[0], "SELECT * FROM t")
    assert result.error is None
    expected = (
        Number(-7, False, "-7"),
        Number(9007199254740993, False, "9007199254740993"),
        Number(2**127 - 1, False, str(2**127 - 1)),
        Number(Decimal("12.50"), True, "12.50"),
        Number(Decimal("15"), True, "15."),
        Number(Decimal("0.1"), True, "0.1"),
        Number(Decimal("1.5"), True, "1.5"),
        Boolean(True),
        String("né"),
        Date(dt.date(2020, 2, 29)),
        value_of(dt.datetime(2020, 1, 2, 3, 4, 5, 123000)),
        value_of(dt.datetime(2020, 1, 2, 1, 4, 5, tzinfo=dt.UTC)),
        _time_value(dt.time(10, 30)),
        String("P32DT3H"),
        String("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        String("X'00FF'"),
        String("[1, null, 3]"),
        String('{"a": 1, "b": "q"}'),
        String('{"k": 1}'),
        String('{"a": [1, 2]}'),
        NIL,
    )
    (row,) = result.rows
    assert row == expected
    assert [type(value) for value in row] == [type(value) for value in expected]
    assert [value.text for value in row[:7]] == [value.text for value in expected[:7]]
    assert result.columns[:3] == ("i", "big", "huge")


def _time_value(moment):
    try:
        return value_of(moment)
    except TypeError:
        return String(moment.isoformat())


def test_values_python_cannot_hold_are_duckdb_text(tmp_path, engines):
    """NaN is nil, infinities Inf/-Inf, a date past 9999 DuckDB's text of it."""
    _duckdb(tmp_path / "odd" / "odd.duckdb", "CREATE TABLE t (a INTEGER)")
    engine = engines(tmp_path)
    result = engine.run(
        engine.databases("odd")[0], "SELECT 'nan'::DOUBLE, 'inf'::DOUBLE, '-inf'::DOUBLE, DATE '10000-01-01'"
    )
    assert result.rows == ((NIL, String("Inf"), String("-Inf"), String("10000-01-01")),)


MUTATIONS = [
    ("DROP TABLE item", "only a query that reads may run, not a DROP statement"),
    ("UPDATE item SET price = 0", "only a query that reads may run, not an UPDATE statement"),
    ("INSERT INTO item VALUES ('cap', 2)", "only a query that reads may run, not an INSERT statement"),
    ("DELETE FROM item", "only a query that reads may run, not a DELETE statement"),
    ("CREATE TABLE copy AS SELECT * FROM item", "only a query that reads may run, not a CREATE statement"),
    ("ALTER TABLE item ADD COLUMN x INTEGER", "only a query that reads may run, not an ALTER statement"),
    ("ATTACH 'other.duckdb' AS other", "only a query that reads may run, not an ATTACH statement"),
    ("DETACH shop", "only a query that reads may run, not a DETACH statement"),
    ("COPY item TO 'item.csv'", "only a query that reads may run, not a COPY statement"),
    ("VACUUM", "only a query that reads may run, not a VACUUM statement"),
    ("CHECKPOINT", "only a query that reads may run, not a CALL statement"),
    ("EXPORT DATABASE 'exported'", "only a query that reads may run, not an EXPORT statement"),
    ("INSTALL httpfs", "only a query that reads may run, not a LOAD statement"),
    ("LOAD httpfs", "only a query that reads may run, not a LOAD statement"),
    ("SET threads = 8", "only a query that reads may run, not a SET statement"),
    ("BEGIN TRANSACTION", "only a query that reads may run, not a TRANSACTION statement"),
    ("SELECT 1; DROP TABLE item", "one statement may run, and the query has 2"),
    (
        "SELECT nextval('serial')",
        'Invalid Input Error: Cannot execute statement of type "SELECT" on database "{stem}" which is attached in read-only mode!',
    ),
    (
        "SELECT * FROM read_csv('/etc/passwd')",
        'Permission Error: Cannot access file "/etc/passwd" - file system operations are disabled by configuration',
    ),
    (
        "SELECT * FROM 'other.duckdb'",
        'Permission Error: Cannot access file "other.duckdb" - file system operations are disabled by configuration',
    ),
    ("SELECT * FROM query('DROP TABLE item')", "Parser Error: Expected a single SELECT statement"),
]


@pytest.mark.parametrize(("query", "error"), MUTATIONS)
def test_mutation_attempts_leave_every_file_byte_identical(root, engines, query, error):
    """Each write, attach, copy, export, install, load or setting fails with its reason; no file of the root changes."""
    files = sorted(path for path in root.rglob("*") if path.is_file())
    before = {path: _digest(path) for path in files}
    engine = engines(root)
    for database in engine.databases("shop"):
        assert engine.run(database, query).error == error.replace("{stem}", database.name.removesuffix(".duckdb"))
    engine.close()
    assert sorted(path for path in root.rglob("*") if path.is_file()) == files
    assert {path: _digest(path) for path in files} == before


def test_reading_creates_no_file_and_changes_no_byte(root, engines):
    """Queries that read leave no .wal or temporary file beside a database, and change none of its bytes."""
    files = sorted(path for path in root.rglob("*"))
    before = {path: _digest(path) for path in files if path.is_file()}
    engine = engines(root)
    for database in engine.databases("shop"):
        assert engine.run(database, "SELECT name, count(*) FROM item GROUP BY name ORDER BY 2 DESC").error is None
    engine.close()
    assert sorted(path for path in root.rglob("*")) == files
    assert {path: _digest(path) for path in files if path.is_file()} == before


def test_the_settings_the_engine_was_opened_with_hold(root, engines):
    """The thread and memory limits are DuckDB's settings in the query's session, and external access is off."""
    engine = engines(root, memory_limit=64 * 2**20, threads=2)
    result = engine.run(
        engine.databases("world")[0],
        "SELECT current_setting('threads'), current_setting('memory_limit'), current_setting('enable_external_access')",
    )
    assert result.rows == ((Number.of(2), String("64.0 MiB"), Boolean(False)),)


def test_a_slow_query_stops_at_the_time_limit_with_the_shared_message(root, engines):
    """A long query is interrupted at the deadline: SQLite's message, well before it would have
    finished (SLOW runs for minutes on the engine's one thread)."""
    engine = engines(root, timeout=0.5)
    database = engine.databases("world")[0]
    started = time.monotonic()
    assert engine.run(database, SLOW).error == "the query ran past the time limit of 0.5 s"
    assert time.monotonic() - started < 30  # stopped, not refused once it had run to its end
    assert engine.run(database, "SELECT count(*) FROM country").rows == ((Number.of(1),),)


def test_row_and_byte_limits_stop_reading_with_the_shared_messages(root, engines):
    """More rows than max_rows, or more bytes than max_result_bytes, is an error with SQLite's messages."""
    database = engines(root).databases("world")[0]
    assert (
        engines(root, max_rows=5).run(database, "SELECT * FROM range(6)").error == "the query returned more than 5 rows"
    )
    assert engines(root, max_rows=5).run(database, "SELECT * FROM range(5)").error is None
    assert engines(root, max_result_bytes=100).run(database, "SELECT repeat('x', 60) FROM range(2)").error == (
        "the query's result is larger than the limit of 100 bytes (--max-result-bytes raises it)"
    )
    assert engines(root, max_rows=10**9, max_result_bytes=8 * 10**5).run(
        database, "SELECT * FROM range(1000000000)"
    ).error == ("the query's result is larger than the limit of 800,000 bytes (--max-result-bytes raises it)")


def test_a_query_needing_more_memory_than_the_limit_fails_with_the_limit(root, engines):
    """Past memory_limit the query fails (nothing spills to disk), saying which limit and which option raises it."""
    engine = engines(root, memory_limit=64 * 2**20)
    assert engine.run(engine.databases("world")[0], "SELECT list(range) FROM range(50000000)").error == (
        "the query needed more memory than the limit of 67,108,864 bytes (--memory-limit raises it)"
    )
    assert not list(root.rglob("*.tmp"))


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("SELEC 1", 'Parser Error: syntax error at or near "SELEC"'),
        ("", "the query is empty"),
        ("-- nothing", "the query is empty"),
        ("SELECT CAST('a' AS INTEGER)", "Conversion Error: Could not convert string 'a' to INT32"),
        (3, "the query is an integer, not text"),
    ],
)
def test_bad_queries_are_errors_in_the_result(root, engines, query, error):
    """Syntax errors, empty queries, unknown tables and non-text are one-line errors, never exceptions."""
    engine = engines(root)
    assert engine.run(engine.databases("world")[0], query).error == error


def test_a_file_that_is_not_a_duckdb_database_is_an_error(tmp_path, engines):
    """A .duckdb file that DuckDB cannot open is an error naming the database."""
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "junk.duckdb").write_text("not a database")
    engine = engines(tmp_path)
    error = engine.run(engine.databases("junk")[0], "SELECT 1").error
    path = tmp_path / "junk" / "junk.duckdb"
    assert (
        error
        == f"cannot open the database 'junk': IO Error: The file \"{path}\" exists, but it is not a valid DuckDB database file!"
    )


def test_connections_are_kept_per_database_and_reopened_after_close(root, engines):
    """A second query reuses the kept connection; close() ends it and the next query opens another."""
    engine = engines(root)
    database = engine.databases("world")[0]
    engine.run(database, "SELECT 1")
    assert engine.connections.idle(database.location) == 1
    kept = engine.connections.take(database.location, lambda: pytest.fail("a new connection was opened"))
    engine.connections.give_back(database.location, kept)
    engine.run(database, "SELECT 1")
    assert engine.connections.idle(database.location) == 1
    engine.close()
    assert engine.connections.idle(database.location) == 0
    assert engine.run(database, "SELECT name FROM country").rows == ((String("Wales"),),)


def test_threads_run_queries_on_one_database_side_by_side(root, engines):
    """Threads sharing an engine each get a connection; every result is right."""
    engine = engines(root)
    database = engine.databases("shop")[0]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda n: engine.run(database, f"SELECT count(*) + {n} FROM item"), range(40)))
    assert [result.rows for result in results] == [((Number.of(2 + n),),) for n in range(40)]


def test_engine_pickles_without_its_connections(root, engines):
    """A pickled engine carries its configuration, not its connections, and runs queries after unpickling."""
    engine = engines(root, timeout=3, memory_limit=2**28, threads=1)
    database = engine.databases("world")[0]
    engine.run(database, "SELECT 1")
    copy = pickle.loads(pickle.dumps(engine))
    assert (copy.timeout, copy.memory_limit, copy.threads) == (3, 2**28, 1)
    assert copy.connections.idle(database.location) == 0
    assert copy.run(database, "SELECT name FROM country").rows == ((String("Wales"),),)
    copy.close()


def test_fingerprint_changes_when_the_file_is_written(root, engines):
    """The fingerprint is stable across reads and changes once the file is written."""
    engine = engines(root)
    database = engine.databases("world")[0]
    first = engine.fingerprint(database)
    engine.run(database, "SELECT * FROM country")
    assert engine.fingerprint(database) == first
    engine.close()
    _duckdb(root / "world" / "world.duckdb", "INSERT INTO country VALUES ('Chile'); CHECKPOINT;")
    assert engine.fingerprint(database) != first


def test_run_refuses_a_database_of_another_engine(root, engines):
    """A SQLite Database given to the DuckDB engine is an error in the result."""
    assert engines(root).run(Database("sqlite", "x", "x.sqlite", "/x/x.sqlite"), "SELECT 1").error == (
        "the database 'x' is not a DuckDB database"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"memory_limit": 0}, "the memory limit must be a whole number of bytes above 0, not 0"),
        ({"threads": 1.5}, "the thread limit must be a whole number above 0, not 1.5"),
        ({"timeout": -1}, "the time limit must be a number of seconds above 0, not -1"),
    ],
)
def test_limits_that_cannot_bound_a_query_are_refused(tmp_path, options, message):
    """Bad limits are ValueErrors when the engine is made."""
    with pytest.raises(ValueError) as caught:
        DuckDBEngine(tmp_path, **options)
    assert str(caught.value) == message


def _typed_rows(path, sql):
    """The rows of ``sql`` read with duckdb itself, each value typed as engine_value types it."""
    from answerkey.adapters.engines import engine_value

    connection = duckdb.connect(str(path), read_only=True)
    try:
        return tuple(tuple(map(engine_value, row)) for row in connection.execute(sql).fetchall())
    finally:
        connection.close()


PLAIN = (
    "SELECT range AS n, range / 4 AS r, 'v' || range AS t, CASE WHEN range % 3 = 0 THEN NULL END AS z FROM range(5000)"
)


def test_plain_values_are_kept_as_the_driver_gives_them(tmp_path, engines):
    """A result of integers, finite doubles, text and NULLs keeps the driver's values by column,
    typed when asked for, as engine_value types them; another type (a decimal, a boolean, a
    date) has the rows typed as they are read."""
    path = _duckdb(tmp_path / "p" / "p" / "p.duckdb", "CREATE TABLE t (x INTEGER)")
    engine = engines(tmp_path / "p")
    database = engine.databases("p")[0]
    result = engine.run(database, PLAIN)
    assert result.error is None and result.row_count == 5000
    assert result.driver_columns[0][:3] == [0, 1, 2] and result.driver_columns[1][1] == 0.25
    engine.close()
    expected = _typed_rows(path, PLAIN)
    assert result.rows == expected and result.driver_columns is None
    for typed in ("1.50::DECIMAL(5, 2)", "true", "DATE '2024-01-02'"):
        result = engines(tmp_path / "p").run(database, f"SELECT range, {typed} FROM range(3)")
        assert result.driver_columns is None and result.rows[0][1] != NIL


def test_a_value_that_is_not_plain_after_plain_batches_has_every_row_typed(tmp_path, engines):
    """An infinity in the third batch of a double column: the rows kept before it are typed
    too, and every value is what engine_value makes of it ('Inf' among the numbers)."""
    path = _duckdb(tmp_path / "q" / "q" / "q.duckdb", "CREATE TABLE t (x INTEGER)")
    sql = "SELECT range, CASE WHEN range = 5000 THEN 'inf'::DOUBLE ELSE range / 2 END, 'é' || range FROM range(6000)"
    engine = engines(tmp_path / "q")
    result = engine.run(engine.databases("q")[0], sql)
    assert result.error is None and result.driver_columns is None
    engine.close()
    assert result.rows == _typed_rows(path, sql)
    assert result.rows[5000][1] == String("Inf")


@pytest.mark.parametrize(
    "sql", [PLAIN, PLAIN.replace("'v' || range", "'é' || range"), "SELECT range, 1.5::DECIMAL(3, 1) FROM range(5000)"]
)
def test_the_byte_limit_is_the_same_on_plain_and_typed_rows(tmp_path, engines, sql):
    """At exactly the result's size in bytes (text by UTF-8 length, anything else 8) the result
    is whole; one byte less, it is the error."""
    path = _duckdb(tmp_path / "b" / "b" / "b.duckdb", "CREATE TABLE t (x INTEGER)")
    from answerkey.adapters.engines import value_bytes

    size = sum(value_bytes(value) for row in _typed_rows(path, sql) for value in row)
    database = engines(tmp_path / "b").databases("b")[0]
    assert engines(tmp_path / "b", max_result_bytes=size).run(database, sql).error is None
    assert engines(tmp_path / "b", max_result_bytes=size - 1).run(database, sql).error == (
        f"the query's result is larger than the limit of {size - 1:,} bytes (--max-result-bytes raises it)"
    )
    assert engines(tmp_path / "b", max_rows=4999).run(database, sql).error == "the query returned more than 4999 rows"


def test_every_value_counts_towards_the_byte_limit_empty_texts_and_nulls_alike(root, engines):
    """Every value counts 8 bytes and a text its length on top: many empty texts are refused as many NULLs are."""
    engine = engines(root, max_result_bytes=1000, max_rows=10**9)
    database = engine.databases("world")[0]
    message = "the query's result is larger than the limit of 1,000 bytes (--max-result-bytes raises it)"
    for value in ("''", "''::BLOB", "NULL", "0"):
        assert engine.run(database, f"SELECT {value}, {value} FROM range(200)").error == message
    assert len(engine.run(database, "SELECT '', NULL FROM range(62)").rows) == 62
    assert engine.run(database, "SELECT 'ab', NULL FROM range(62)").error == message


def test_large_values_are_refused_after_about_the_byte_limit(root, engines):
    """Rows are fetched in batches sized to what is left of the limit: ten 20 MB texts under a 4 MB limit are
    refused after the first, not after the ten are made (200 MB)."""
    import tracemalloc

    engine = engines(root, max_result_bytes=4 * 2**20)
    database = engine.databases("world")[0]
    tracemalloc.start()
    try:
        result = engine.run(database, "SELECT repeat('x', 20000000) FROM range(10)")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (
        result.error == "the query's result is larger than the limit of 4,194,304 bytes (--max-result-bytes raises it)"
    )
    assert peak < 80 * 10**6
