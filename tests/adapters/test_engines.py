"""answerkey.adapters.engines: one interface over SQLite, DuckDB and PostgreSQL; the SQLite
engine, the listing of a db_id's databases, fingerprints, the value mapping, pickling."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import pickle
import sqlite3
import uuid
from decimal import Decimal

import pytest

from answerkey.adapters._engines import engine_row, engine_rows
from answerkey.adapters.engines import (
    Connections,
    Database,
    DuckDBEngine,
    Engine,
    NoDatabase,
    PostgreSQLEngine,
    QueryResult,
    SQLiteEngine,
    engine_value,
    interval_text,
    open_engine,
    value_bytes,
)
from answerkey.adapters.sql import stop_query_processes
from answerkey.limits import DUCKDB_MEMORY_LIMIT, DUCKDB_THREADS, LIMITS
from answerkey.model import NIL, Boolean, Date, Number, String

RUNAWAY = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"


def _sqlite(
    path, sql="CREATE TABLE item (name TEXT, price REAL); INSERT INTO item VALUES ('pen', 1.5), ('ink', 7.25);"
):
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    with connection:
        connection.executescript(sql)
    connection.close()
    return path


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def suite(tmp_path):
    """A Spider-layout root: `shop` with a distilled suite of four files, `world` with one."""
    root = tmp_path / "databases"
    for name in ("shop.sqlite", "shop2.sqlite", "shop10.sqlite", "shop1.sqlite"):
        _sqlite(root / "shop" / name)
    _sqlite(root / "world" / "world.sqlite", "CREATE TABLE country (name TEXT); INSERT INTO country VALUES ('Wales');")
    (root / "shop" / "schema.sql").write_text("CREATE TABLE item (name TEXT, price REAL);")
    return root


def test_open_engine_picks_sqlite_for_a_spider_directory(suite):
    """A directory whose db_id directories hold .sqlite files opens the SQLite engine with the limits given."""
    engine = open_engine(suite, timeout=5, max_rows=10, max_result_bytes=1000)
    assert isinstance(engine, SQLiteEngine) and isinstance(engine, Engine)
    assert (engine.name, engine.location, engine.timeout, engine.max_rows, engine.max_result_bytes) == (
        "sqlite",
        str(suite),
        5,
        10,
        1000,
    )


def test_open_engine_picks_duckdb_by_suffix_and_passes_its_limits(tmp_path):
    """A directory whose first database file is .duckdb opens the DuckDB engine, with memory and thread limits."""
    (tmp_path / "a_empty").mkdir()
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "shop.duckdb").write_bytes(b"")
    engine = open_engine(tmp_path, memory_limit=2**28, threads=2)
    assert isinstance(engine, DuckDBEngine)
    assert (engine.memory_limit, engine.threads) == (2**28, 2)
    default = open_engine(tmp_path)
    assert (default.memory_limit, default.threads) == (DUCKDB_MEMORY_LIMIT, DUCKDB_THREADS)


def test_open_engine_takes_sqlite_for_a_directory_without_databases_and_obeys_engine(tmp_path):
    """An empty directory is SQLite's; engine= names the engine whatever the files say."""
    assert isinstance(open_engine(tmp_path), SQLiteEngine)
    assert isinstance(open_engine(tmp_path, engine="duckdb"), DuckDBEngine)


def test_open_engine_takes_postgresql_urls_of_both_schemes():
    """postgresql:// and postgres:// URLs open the PostgreSQL engine (no connection is made yet)."""
    for url in ("postgresql://reader@db.example/", "postgres://reader@db.example/", "POSTGRESQL://db.example"):
        assert isinstance(open_engine(url), PostgreSQLEngine)


@pytest.mark.parametrize(
    ("location", "engine", "message"),
    [
        (
            "/nowhere/at/all",
            None,
            "no directory '/nowhere/at/all' (--db names a directory of databases or a postgresql:// URL)",
        ),
        ("/tmp", "sqlight", "unknown engine 'sqlight' (one of: sqlite, duckdb, postgresql) (did you mean 'sqlite'?)"),
        ("/tmp", "postgresql", "the PostgreSQL engine needs a postgresql:// URL, not the directory '/tmp'"),
        (
            "postgresql://u:pw@db.example/",
            "duckdb",
            "a PostgreSQL URL names a PostgreSQL server, not duckdb databases",
        ),
    ],
)
def test_open_engine_refuses_what_it_cannot_use(location, engine, message):
    """A missing directory, an unknown engine and a mismatch of engine and location are ValueErrors saying so."""
    with pytest.raises(ValueError) as caught:
        open_engine(location, engine=engine)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timeout": 0}, "the time limit must be a number of seconds above 0, not 0"),
        ({"max_rows": -1}, "the row limit must be a whole number, 0 or more, not -1"),
        ({"max_result_bytes": 0}, "the byte limit must be a whole number above 0, not 0"),
    ],
)
def test_open_engine_refuses_limits_that_cannot_bound_a_query(tmp_path, options, message):
    """Limits are checked when the engine opens, with the SQLite adapter's messages."""
    with pytest.raises(ValueError) as caught:
        open_engine(tmp_path, **options)
    assert str(caught.value) == message


def test_databases_lists_the_db_id_file_first_then_the_suite_in_natural_order(suite):
    """<db_id>.sqlite comes first, then the other .sqlite files (2 before 10); other files are ignored."""
    databases = open_engine(suite).databases("shop")
    assert [database.name for database in databases] == ["shop.sqlite", "shop1.sqlite", "shop2.sqlite", "shop10.sqlite"]
    assert databases[0] == Database("sqlite", "shop", "shop.sqlite", os.path.realpath(suite / "shop" / "shop.sqlite"))
    assert [database.label for database in databases[:2]] == ["'shop'", "'shop' (shop1.sqlite)"]


def test_databases_skips_hidden_files(suite):
    """A file whose name starts with a dot (an editor's or a copy's temporary) is not a database of the suite."""
    _sqlite(suite / "world" / ".world2.sqlite")
    assert [database.name for database in open_engine(suite).databases("world")] == ["world.sqlite"]


@pytest.mark.parametrize(
    ("db_id", "message"),
    [
        ("../world", "not a database name: '../world'"),
        (".hidden", "not a database name: '.hidden'"),
        ("a/b", "not a database name: 'a/b'"),
        ("x" * 129, "the db_id is longer than 128 characters (it has 129)"),
        ("bad\ud800", "the db_id is not valid text: it holds half of a UTF-16 surrogate pair at character 4"),
    ],
)
def test_databases_refuses_a_malformed_db_id(suite, db_id, message):
    """A db_id that cannot be a name inside the root raises NoDatabase with the reason."""
    with pytest.raises(NoDatabase) as caught:
        open_engine(suite).databases(db_id)
    assert str(caught.value) == message


def test_databases_says_where_an_absent_database_was_expected(suite):
    """No directory nor flat file names both paths looked at; a directory without <db_id>.sqlite its own."""
    engine = open_engine(suite)
    (suite / "empty").mkdir()
    _sqlite(suite / "other" / "other2.sqlite")
    with pytest.raises(NoDatabase) as caught:
        engine.databases("missing")
    assert str(caught.value) == (
        f"no database 'missing' (expected {str(suite / 'missing' / 'missing.sqlite')!r} "
        f"or {str(suite / 'missing.sqlite')!r})"
    )
    for db_id in ("empty", "other"):
        with pytest.raises(NoDatabase) as caught:
            engine.databases(db_id)
        assert str(caught.value) == f"no database {db_id!r} (expected {str(suite / db_id / (db_id + '.sqlite'))!r})"


def test_a_flat_file_is_found_when_there_is_no_directory(tmp_path):
    """Spider 2.0-lite's layout: ROOT/<db_id>.sqlite alone, a suite of one under either rule."""
    root = tmp_path / "localdb"
    _sqlite(root / "shop.sqlite")
    _sqlite(root / "shop2.sqlite")
    _sqlite(root / "shop.sqlite.bak")
    for suite_files in ("ending", "containing"):
        engine = open_engine(root, suite_files=suite_files)
        assert isinstance(engine, SQLiteEngine)
        databases = engine.databases("shop")
        assert [(d.db_id, d.name, d.location, d.label) for d in databases] == [
            ("shop", "shop.sqlite", os.path.realpath(root / "shop.sqlite"), "'shop'")
        ]
        assert [row[0].text for row in engine.run(databases[0], "SELECT name FROM item ORDER BY name").rows] == [
            "ink",
            "pen",
        ]


def test_a_directory_is_preferred_to_a_flat_file(suite):
    """Both ROOT/shop/ and ROOT/shop.sqlite: the directory's suite, the flat file unused."""
    _sqlite(suite / "shop.sqlite", "CREATE TABLE other (x INT);")
    assert [d.name for d in open_engine(suite).databases("shop")] == [
        "shop.sqlite",
        "shop1.sqlite",
        "shop2.sqlite",
        "shop10.sqlite",
    ]
    assert all(d.location.startswith(os.path.realpath(suite / "shop")) for d in open_engine(suite).databases("shop"))


def test_a_flat_link_that_leads_outside_the_root_is_refused(tmp_path):
    """A flat ROOT/<db_id>.sqlite linking outside the root is refused, naming both paths; a link
    to a directory is not a regular file; a dangling link names the path looked at."""
    root = tmp_path / "localdb"
    root.mkdir()
    outside = _sqlite(tmp_path / "outside.sqlite")
    (root / "shop.sqlite").symlink_to(outside)
    (tmp_path / "folder").mkdir()
    (root / "dir.sqlite").symlink_to(tmp_path / "folder")
    (root / "gone.sqlite").symlink_to(tmp_path / "gone")
    engine = open_engine(root)
    with pytest.raises(NoDatabase) as caught:
        engine.databases("shop")
    assert str(caught.value) == (
        f"the database 'shop' is outside the root: {str(root / 'shop.sqlite')!r} leads to {str(outside)!r}"
    )
    with pytest.raises(NoDatabase) as caught:
        engine.databases("dir")
    assert str(caught.value) == f"the database 'dir' is not a regular file: {str(root / 'dir.sqlite')!r}"
    with pytest.raises(NoDatabase) as caught:
        engine.databases("gone")
    assert str(caught.value) == f"no database 'gone' (expected {str(root / 'gone.sqlite')!r})"


def test_databases_refuses_a_suite_file_that_leads_outside_the_root(suite, tmp_path):
    """A link in a db_id's directory to a file outside the root is refused, naming both paths."""
    outside = _sqlite(tmp_path / "outside.sqlite")
    link = suite / "shop" / "shop3.sqlite"
    link.symlink_to(outside)
    with pytest.raises(NoDatabase) as caught:
        open_engine(suite).databases("shop")
    assert (
        str(caught.value)
        == f"the database 'shop' (shop3.sqlite) is outside the root: {str(link)!r} leads to {str(outside)!r}"
    )


def test_databases_allows_a_link_inside_the_root_and_gives_its_real_path(suite):
    """A link to a file inside the root serves under a second name; location is the file's real path."""
    (suite / "alias").mkdir()
    (suite / "alias" / "alias.sqlite").symlink_to(suite / "world" / "world.sqlite")
    (database,) = open_engine(suite).databases("alias")
    assert database.location == os.path.realpath(suite / "world" / "world.sqlite")
    assert open_engine(suite).run(database, "SELECT name FROM country").rows == ((String("Wales"),),)


def test_databases_refuses_a_suite_entry_that_is_not_a_regular_file(suite):
    """A directory or a FIFO named like a database is refused (never opened)."""
    (suite / "shop" / "shop5.sqlite").mkdir()
    with pytest.raises(NoDatabase) as caught:
        open_engine(suite).databases("shop")
    assert (
        str(caught.value)
        == f"the database 'shop' (shop5.sqlite) is not a regular file: {str(suite / 'shop' / 'shop5.sqlite')!r}"
    )
    (suite / "shop" / "shop5.sqlite").rmdir()
    os.mkfifo(suite / "world" / "world9.sqlite")
    with pytest.raises(NoDatabase, match="is not a regular file"):
        open_engine(suite).databases("world")


def test_run_gives_typed_rows_and_columns_from_each_file_of_a_suite(suite):
    """Each database of a suite runs the query on its own file; rows are typed values."""
    engine = open_engine(suite)
    _sqlite(suite / "shop" / "shop2.sqlite", "DELETE FROM item WHERE name = 'ink';")
    results = [
        engine.run(database, "SELECT name, price FROM item ORDER BY name") for database in engine.databases("shop")
    ]
    assert results[0] == QueryResult(
        ((String("ink"), Number.of(7.25)), (String("pen"), Number.of(1.5))), ("name", "price")
    )
    assert results[2].rows == ((String("pen"), Number.of(1.5)),)
    assert all(result.seconds is not None and result.seconds >= 0 for result in results)


def test_run_refuses_a_database_of_another_engine(suite):
    """A Database of another engine is an error in the result, not a crash."""
    result = open_engine(suite).run(Database("duckdb", "shop", "shop.duckdb", "/x/shop.duckdb"), "SELECT 1")
    assert result.error == "the database 'shop' is not a SQLite database"


def test_run_reports_a_file_that_has_gone(suite):
    """A database whose file was removed after listing is an error naming it and its path."""
    engine = open_engine(suite)
    database = engine.databases("world")[0]
    os.remove(database.location)
    assert engine.run(database, "SELECT 1").error == f"no database 'world' ({database.location!r})"


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("DROP TABLE item", "not authorized"),
        ("UPDATE item SET price = 0", "not authorized"),
        ("INSERT INTO item VALUES ('cap', 2)", "not authorized"),
        ("ATTACH DATABASE 'other.sqlite' AS other", "not authorized"),
        ("VACUUM INTO 'copy.sqlite'", "authorization denied"),
        ("PRAGMA journal_mode = WAL", "not authorized"),
        ("SELECT 1; DROP TABLE item", "You can only execute one statement at a time."),
    ],
)
def test_mutation_attempts_leave_every_file_byte_identical(suite, query, error):
    """A write, an ATTACH, a VACUUM INTO, a pragma: each fails with its reason and no file of the root changes."""
    engine = open_engine(suite)
    files = sorted(path for path in suite.rglob("*") if path.is_file())
    before = {path: _digest(path) for path in files}
    for database in engine.databases("shop"):
        assert engine.run(database, query).error == error
    assert sorted(path for path in suite.rglob("*") if path.is_file()) == files
    assert {path: _digest(path) for path in files} == before


def test_limits_stop_a_query_with_the_messages_every_engine_shares(suite):
    """Time, row and byte limits stop a query with the shared messages."""
    database = open_engine(suite).databases("world")[0]
    assert open_engine(suite, timeout=0.5).run(database, RUNAWAY).error == "the query ran past the time limit of 0.5 s"
    assert (
        open_engine(suite, max_rows=2).run(database, "VALUES (1), (2), (3)").error
        == "the query returned more than 2 rows"
    )
    big = "SELECT printf('%.*c', 60, 'a') UNION ALL SELECT printf('%.*c', 60, 'b')"
    assert open_engine(suite, max_result_bytes=100).run(database, big).error == (
        "the query's result is larger than the limit of 100 bytes (--max-result-bytes raises it)"
    )


def test_fingerprint_changes_when_a_file_changes_and_only_then(suite):
    """The fingerprint is stable while a file rests, changes when it is written, and is 'absent' once it is gone."""
    engine = open_engine(suite)
    database = engine.databases("world")[0]
    first = engine.fingerprint(database)
    engine.run(database, "SELECT * FROM country")
    assert engine.fingerprint(database) == first
    _sqlite(suite / "world" / "world.sqlite", "UPDATE country SET name = 'Cymru';")
    assert engine.fingerprint(database) != first
    os.remove(database.location)
    assert engine.fingerprint(database) == "absent"


def test_fingerprint_changes_when_a_file_is_replaced_by_a_copy_with_the_same_size_and_time(suite, tmp_path):
    """A file swapped for another of the same size and modification time still changes the fingerprint (its inode)."""
    engine = open_engine(suite)
    database = engine.databases("world")[0]
    first = engine.fingerprint(database)
    replacement = _sqlite(
        tmp_path / "new.sqlite", "CREATE TABLE country (name TEXT); INSERT INTO country VALUES ('Wales');"
    )
    status = os.stat(database.location)
    os.utime(replacement, ns=(status.st_atime_ns, status.st_mtime_ns))
    os.replace(replacement, database.location)
    assert os.stat(database.location).st_size == status.st_size
    assert engine.fingerprint(database) != first


def test_engines_and_databases_survive_pickling(suite):
    """An engine and its databases pickle (to workers) and run the same query to the same result."""
    engine = open_engine(suite, timeout=7)
    database = engine.databases("world")[0]
    copy, copied = pickle.loads(pickle.dumps((engine, database)))
    assert (copy.location, copy.timeout, copied) == (engine.location, 7, database)
    assert copy.run(copied, "SELECT name FROM country") == engine.run(database, "SELECT name FROM country")
    copy.close()


def test_close_leaves_the_engine_usable(suite):
    """close() ends nothing the next query needs."""
    engine = open_engine(suite)
    database = engine.databases("world")[0]
    engine.close()
    stop_query_processes()
    assert engine.run(database, "SELECT count(*) FROM country").rows == ((Number.of(1),),)


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        (None, NIL),
        (True, Boolean(True)),
        (7, Number(7, False, "7")),
        (2**70, Number(2**70, False, str(2**70))),
        (1.5, Number(Decimal("1.5"), True, "1.5")),
        (float("nan"), NIL),
        (float("inf"), String("Inf")),
        (float("-inf"), String("-Inf")),
        (Decimal("12.50"), Number(Decimal("12.50"), True, "12.50")),
        (Decimal("15"), Number(Decimal("15"), True, "15.")),
        (Decimal("NaN"), NIL),
        (Decimal("Infinity"), String("Inf")),
        (Decimal("-Infinity"), String("-Inf")),
        ("text", String("text")),
        (dt.date(2020, 2, 29), Date(dt.date(2020, 2, 29))),
        (b"\x00\xff", String("X'00FF'")),
        (bytearray(b"\x01"), String("X'01'")),
        (memoryview(b"\x02"), String("X'02'")),
        (dt.timedelta(days=32, hours=3), String("P32DT3H")),
        (uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), String("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
        ([1, None, "a", [2.5]], String('[1, null, "a", [2.5]]')),
        ({"a": 1, "b": "é"}, String('{"a": 1, "b": "é"}')),
        ({1: dt.date(2020, 1, 2)}, String('{"1": "2020-01-02"}')),
        ((1, 2), String("[1, 2]")),
    ],
)
def test_engine_value_maps_each_driver_value(raw, value):
    """Each Python value a driver gives has one documented typed value (kind and printed text included)."""
    converted = engine_value(raw)
    assert converted == value
    assert type(converted) is type(value)
    if isinstance(value, Number):
        assert (converted.is_real, converted.text) == (value.is_real, value.text)


def test_engine_value_passes_date_times_and_times_to_the_model():
    """Date-times and times are the model's values for them: value_of decides, so a change there applies to every engine."""
    from answerkey.model import value_of

    moment = dt.datetime(2020, 1, 1, 10, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert engine_value(moment) == value_of(moment)
    assert engine_value(dt.datetime(2020, 1, 1, 10, 30)) == value_of(dt.datetime(2020, 1, 1, 10, 30))
    try:
        expected = value_of(dt.time(10, 30))
    except TypeError:
        expected = String("10:30:00")
    assert engine_value(dt.time(10, 30)) == expected


@pytest.mark.parametrize(
    ("duration", "text"),
    [
        (dt.timedelta(0), "PT0S"),
        (dt.timedelta(days=2), "P2D"),
        (dt.timedelta(hours=1, seconds=1), "PT1H1S"),
        (dt.timedelta(minutes=90), "PT1H30M"),
        (dt.timedelta(microseconds=1500), "PT0.0015S"),
        (-dt.timedelta(days=1, seconds=1), "-P1DT1S"),
    ],
)
def test_interval_text_is_iso_8601(duration, text):
    """A duration prints as ISO 8601 (days, then hours, minutes, seconds; a leading minus when negative)."""
    assert interval_text(duration) == text


# Columns of a batch: of one type with NULLs (each converted in bulk or shared), with values
# that leave the bulk path (NaN, infinities), of mixed types, of types converted one by one.
BATCH_COLUMNS = [
    [1, None, 2**70, -3, 1, 0],
    [1.5, -0.0, 0.0, None, 1e16, 0.1],
    [1.5, float("nan"), float("inf"), float("-inf"), None, 2.0],
    ["abc", "né€", None, "", "abc", "x" * 40],
    [dt.date(2020, 2, 29), None, dt.date(2020, 2, 29), dt.date(1999, 1, 1), None, dt.date(1, 1, 1)],
    [True, False, None, True, True, False],
    [Decimal("1.0"), Decimal("1.00"), Decimal("NaN"), None, Decimal("15"), Decimal("-Infinity")],
    [1, "one", 1.0, None, b"\x00", True],
    [dt.datetime(2020, 1, 1, 10, 30), None, dt.timedelta(days=1), uuid.UUID(int=7), [1, "a"], dt.time(10, 30)],
]


def test_engine_rows_of_a_batch_are_engine_row_of_each_row():
    """A batch converted column by column gives, row by row, engine_row's typed values (kinds
    and texts: -0.0 and 0.0, 1.0 and 1.00 stay apart) and byte counts; equal dates are one
    shared value; batches of a few rows and of empty rows too."""
    batch = list(zip(*BATCH_COLUMNS)) * 3
    converted = list(engine_rows(batch))
    expected = [engine_row(raw) for raw in batch]
    assert repr(converted) == repr(expected)
    assert converted[0][0][4] is converted[8][0][4]
    for columns in ([column[:1] for column in BATCH_COLUMNS], [BATCH_COLUMNS[0] * 2], [BATCH_COLUMNS[3] * 2]):
        rows = list(zip(*columns))
        assert repr(list(engine_rows(rows))) == repr([engine_row(raw) for raw in rows])
    assert list(engine_rows([])) == [] and list(engine_rows([()] * 9)) == [((), 0)] * 9


def test_engine_rows_raise_where_engine_row_would():
    """A batch holding a value with no typed reading (a date-time whose UTC time falls before
    the year 1) gives the rows before it, then raises as engine_row does on that row."""
    odd = dt.timezone(dt.timedelta(seconds=30))
    batch = [(1, dt.datetime(2020, 1, 1)), (2, dt.datetime(1, 1, 1, tzinfo=odd))] + [(3, None)] * 8
    rows = iter(engine_rows(batch))
    assert next(rows) == engine_row(batch[0])
    with pytest.raises(ValueError, match="outside the years 1 to 9999"):
        next(rows)
    with pytest.raises(ValueError, match="outside the years 1 to 9999"):
        engine_row(batch[1])


def test_value_bytes_counts_strings_by_utf8_and_other_values_as_eight():
    """The byte count of a value: 8 for any value, and the UTF-8 length of a string on top."""
    assert [value_bytes(value) for value in (String("abc"), String("né€"), NIL, Number.of(1), Boolean(False))] == [
        11,
        14,
        8,
        8,
        8,
    ]


def test_new_limits_are_registered_with_their_options():
    """DuckDB's memory and thread limits are documented limits with the options that set them."""
    assert LIMITS["duckdb_memory"].describe() == (
        "DuckDB memory while one query runs: 1,073,741,824 bytes (stopped, scored 0, beyond; --memory-limit)"
    )
    assert LIMITS["duckdb_threads"].describe() == "DuckDB threads per query: 1 (at most; --threads)"


def test_connections_keep_the_most_recently_used_and_close_the_rest():
    """Past max_idle idle connections, the least recently used one is closed; take() reuses before opening."""
    closed = []
    pool = Connections(closed.append, max_idle=2)
    for location in ("a", "b", "c"):
        pool.give_back(location, f"{location}1")
    assert closed == ["a1"]
    assert [pool.idle(location) for location in ("a", "b", "c")] == [0, 1, 1]
    assert pool.take("b", lambda: "new") == "b1"
    assert pool.take("b", lambda: "new") == "new"
    pool.close()
    assert closed == ["a1", "c1"]


def test_connections_are_not_shared_with_a_forked_child_nor_pickled():
    """A forked child starts with no idle connection (the parent's stay the parent's); a pickled pool is empty."""
    pool = Connections(len)  # any picklable function closes these string "connections"
    pool.give_back("a", "parent's")
    copy = pickle.loads(pickle.dumps(pool))
    assert copy.idle("a") == 0
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what it would reuse, then leave at once
        os.write(writer, pool.take("a", lambda: "child's").encode())
        os._exit(0)
    os.close(writer)
    os.waitpid(pid, 0)
    assert os.read(reader, 100) == b"child's"
    os.close(reader)
    assert pool.idle("a") == 1
