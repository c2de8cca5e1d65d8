"""answerkey.adapters.postgresql: queries on a real throwaway PostgreSQL server, read-only
transactions, refusals as a superuser and as a read-only role, limits, typed values,
fingerprints, passwords never shown; and the query checks and URL handling on their own."""

from __future__ import annotations

import datetime as dt
import os
import pickle
import threading
import time
from decimal import Decimal

import psycopg
import pytest

from answerkey.adapters.engines import Database, NoDatabase, PostgreSQLEngine, open_engine
from answerkey.adapters.postgresql import refusal, url_without_password
from answerkey.model import NIL, Boolean, Date, Number, String, value_of

SHOP = """
CREATE TABLE item (name text, price numeric(10, 2));
INSERT INTO item VALUES ('pen', 1.50), ('ink', 7.25);
CREATE SEQUENCE serial;
CREATE TYPE mood AS ENUM ('sad', 'ok');
CREATE PROCEDURE noop() LANGUAGE sql AS 'SELECT 1';
CREATE TABLE types (
    small int2, normal int4, big int8, exact numeric(10, 2), whole numeric(18, 0), wide numeric, double float8,
    single float4, yes bool, word text, short varchar(5), padded char(3), day date, moment timestamp,
    instant timestamptz, clock time, zoned timetz, span interval, document json, binary_document jsonb,
    id uuid, bytes bytea, numbers int4[], feeling mood, cash money, range int4range, nothing int4
);
INSERT INTO types VALUES (
    -7, 2147483647, 9007199254740993, 12.50, 15, 123456789012345678901234567890.000000001, 0.1,
    1.5, true, 'né', 'abc', 'ab', '2020-02-29', '2020-01-02 03:04:05.123', '2020-01-02 03:04:05+02', '10:30:00',
    '10:30:00+02', '1 month 2 days 3 hours', '{"b": 1,  "a": [2]}', '{"b": 1,  "a": [2]}',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff', '{1,NULL,3}', 'ok', 1.5, '[1,3)', NULL
);
"""
PASSWORD = "pw-s3cret"
MARKER = "/tmp/answerkey-postgresql-test-marker"


@pytest.fixture(scope="module")
def server(postgres_server):
    """The session's server with the database `shop`, a read-only role `reader` (password
    PASSWORD, member of pg_read_all_data) and a role `plain` that may only select from shop's tables."""
    postgres_server.create_database("shop", SHOP)
    postgres_server.execute(
        "postgres",
        f"""
        DROP ROLE IF EXISTS reader; DROP ROLE IF EXISTS plain;
        CREATE ROLE reader LOGIN PASSWORD '{PASSWORD}'; GRANT pg_read_all_data TO reader;
        CREATE ROLE plain LOGIN;
        """,
    )
    postgres_server.execute("shop", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO plain")
    return postgres_server


@pytest.fixture
def engines(server):
    """Open engines on the server (server URL, no database: each db_id a database), closed after the test."""
    opened = []

    def make(user="answerkey", *, password=None, database="", **options):
        engine = open_engine(server.url(database, user=user, password=password), **options)
        opened.append(engine)
        return engine

    yield make
    for engine in opened:
        engine.close()


def _state(server):
    """What mutation attempts must leave as it was: shop's rows, its tables, its roles' rights."""
    return (
        server.execute("shop", "SELECT name, price FROM item ORDER BY name"),
        server.execute(
            "shop", "SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY 1"
        ),
        server.execute("shop", "SELECT last_value, is_called FROM serial"),
        server.execute("postgres", "SELECT datname FROM pg_database ORDER BY 1"),
        server.execute(
            "postgres", "SELECT rolname, rolsuper FROM pg_roles WHERE rolname IN ('reader', 'plain') ORDER BY 1"
        ),
    )


def test_a_query_runs_on_the_database_named_by_the_db_id(engines):
    """A server URL without a database: the db_id names the database; rows are typed, columns named."""
    engine = engines()
    assert isinstance(engine, PostgreSQLEngine)
    (database,) = engine.databases("shop")
    assert (database.engine, database.db_id, database.name) == ("postgresql", "shop", "shop")
    assert "/shop?" in database.location
    result = engine.run(database, "SELECT name, price FROM item ORDER BY price")
    assert result.rows == (
        (String("pen"), Number(Decimal("1.50"), True, "1.50")),
        (String("ink"), Number(Decimal("7.25"), True, "7.25")),
    )
    assert result.columns == ("name", "price")
    assert result.seconds is not None and result.seconds >= 0


def test_each_type_maps_onto_the_model_exactly(engines):
    """Every PostgreSQL type of the table maps to its documented typed value, digits and all."""
    engine = engines()
    result = engine.run(engine.databases("shop")[0], "SELECT * FROM types")
    assert result.error is None
    try:
        clock, zoned = value_of(dt.time(10, 30)), value_of(dt.time(10, 30, tzinfo=dt.timezone(dt.timedelta(hours=2))))
    except TypeError:
        clock, zoned = String("10:30:00"), String("10:30:00+02:00")
    expected = (
        Number(-7, False, "-7"),
        Number(2147483647, False, "2147483647"),
        Number(9007199254740993, False, "9007199254740993"),
        Number(Decimal("12.50"), True, "12.50"),
        Number(Decimal("15"), True, "15."),
        Number(Decimal("123456789012345678901234567890.000000001"), True, "123456789012345678901234567890.000000001"),
        Number(Decimal("0.1"), True, "0.1"),
        Number(Decimal("1.5"), True, "1.5"),
        Boolean(True),
        String("né"),
        String("abc"),
        String("ab "),
        Date(dt.date(2020, 2, 29)),
        value_of(dt.datetime(2020, 1, 2, 3, 4, 5, 123000)),
        value_of(dt.datetime(2020, 1, 2, 1, 4, 5, tzinfo=dt.UTC)),
        clock,
        zoned,
        String("P1M2DT3H"),
        String('{"b": 1,  "a": [2]}'),
        String('{"a": [2], "b": 1}'),
        String("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        String("X'00FF'"),
        String("{1,NULL,3}"),
        String("ok"),
        String("$1.50"),
        String("[1,3)"),
        NIL,
    )
    (row,) = result.rows
    assert row == expected
    assert [type(value) for value in row] == [type(value) for value in expected]
    assert [value.text for value in row[:8]] == [value.text for value in expected[:8]]


def test_values_python_cannot_hold_are_the_servers_text(engines):
    """NaN is nil, infinities Inf/-Inf; dates and timestamps outside years 1-9999 (infinity included) are PostgreSQL's text."""
    engine = engines()
    result = engine.run(
        engine.databases("shop")[0],
        "SELECT 'NaN'::numeric, 'NaN'::float8, 'Infinity'::float8, '-Infinity'::numeric, 'infinity'::date, "
        "'-infinity'::timestamp, '10000-01-01'::date, '0044-03-15 BC'::date, 'infinity'::timestamptz",
    )
    assert result.rows == (
        (
            NIL,
            NIL,
            String("Inf"),
            String("-Inf"),
            String("infinity"),
            String("-infinity"),
            String("10000-01-01"),
            String("0044-03-15 BC"),
            String("infinity"),
        ),
    )


REFUSALS = [
    ("DROP TABLE item", "only a query that reads may run, not a DROP statement"),
    ("UPDATE item SET price = 0", "only a query that reads may run, not an UPDATE statement"),
    ("INSERT INTO item VALUES ('cap', 2)", "only a query that reads may run, not an INSERT statement"),
    ("TRUNCATE item", "only a query that reads may run, not a TRUNCATE statement"),
    ("CREATE TABLE copy (a int)", "only a query that reads may run, not a CREATE statement"),
    ("COPY item TO '/tmp/answerkey-item.csv'", "only a query that reads may run, not a COPY statement"),
    (f"COPY (SELECT 1) TO PROGRAM 'touch {MARKER}'", "only a query that reads may run, not a COPY statement"),
    ("COPY item TO STDOUT", "only a query that reads may run, not a COPY statement"),
    (
        f"DO $$ BEGIN PERFORM pg_catalog.pg_read_file('{MARKER}'); END $$",
        "only a query that reads may run, not a DO statement",
    ),
    ("CALL noop()", "only a query that reads may run, not a CALL statement"),
    ("SET work_mem = '1GB'", "only a query that reads may run, not a SET statement"),
    ("RESET ALL", "only a query that reads may run, not a RESET statement"),
    ("LISTEN channel", "only a query that reads may run, not a LISTEN statement"),
    ("NOTIFY channel", "only a query that reads may run, not a NOTIFY statement"),
    ("PREPARE p AS SELECT 1", "only a query that reads may run, not a PREPARE statement"),
    ("EXPLAIN ANALYZE DELETE FROM item", "only a query that reads may run, not an EXPLAIN statement"),
    ("VACUUM item", "only a query that reads may run, not a VACUUM statement"),
    ("/* SELECT */ -- SELECT\n DELETE FROM item", "only a query that reads may run, not a DELETE statement"),
    ("SELECT 1; DROP TABLE item", "one statement may run, and the query has several"),
    ("SELECT pg_read_file('/etc/hostname')", "permission denied for function pg_read_file"),
    ("SELECT * FROM pg_ls_dir('.')", "permission denied for function pg_ls_dir"),
    ("SELECT lo_import('/etc/hostname')", "permission denied for function lo_import"),
    ("SELECT pg_reload_conf()", "permission denied for function pg_reload_conf"),
    ("SELECT nextval('serial')", "permission denied for sequence serial"),
    ("SELECT * FROM item FOR UPDATE", "cannot execute SELECT FOR UPDATE in a read-only transaction"),
    ("SELECT * INTO copy FROM item", "cannot execute SELECT INTO in a read-only transaction"),
    (
        "WITH gone AS (DELETE FROM item RETURNING *) SELECT * FROM gone",
        "cannot execute SELECT in a read-only transaction",
    ),
    (
        "SELECT set_config('role', 'answerkey', true), pg_read_file('/etc/hostname')",
        "the function set_config may not run: it could change the session or run other SQL",
    ),
    (
        "SELECT \"set_config\"('role', 'answerkey', true)",
        "the function set_config may not run: it could change the session or run other SQL",
    ),
    (
        "SELECT U&\"set\\005Fconfig\" ('role', 'answerkey', true)",
        "the function set_config may not run: it could change the session or run other SQL",
    ),
    (
        "SELECT pg_catalog . set_config /* a comment */ ('role', 'answerkey', true)",
        "the function set_config may not run: it could change the session or run other SQL",
    ),
    (
        "SELECT pg_advisory_lock(1)",
        "the function pg_advisory_lock may not run: it could change the session or run other SQL",
    ),
    (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
        "the function pg_terminate_backend may not run: it could change the session or run other SQL",
    ),
    (
        "SELECT query_to_xml('SELECT pg_read_file(''/etc/hostname'')', true, false, '')",
        "the function query_to_xml may not run: it could change the session or run other SQL",
    ),
    # Catalogs that hold secrets: the cast would carry a password verifier into the error message.
    ("SELECT rolpassword::int FROM pg_authid", "pg_authid may not be read: it holds passwords or other secrets"),
    (
        'SELECT "rolpassword"::int FROM pg_catalog . "pg_authid"',
        "pg_authid may not be read: it holds passwords or other secrets",
    ),
    ('SELECT 1 FROM U&"pg_\\0061uthid"', "pg_authid may not be read: it holds passwords or other secrets"),
    ("SELECT passwd::int FROM pg_shadow", "pg_shadow may not be read: it holds passwords or other secrets"),
    ("SELECT umoptions FROM pg_user_mappings", "pg_user_mappings may not be read: it holds passwords or other secrets"),
    ("SELECT subconninfo FROM pg_subscription", "pg_subscription may not be read: it holds passwords or other secrets"),
    ("SELECT data FROM pg_largeobject", "pg_largeobject may not be read: it holds passwords or other secrets"),
    ("SELECT lo_get(1)", "lo_get may not be read: it holds passwords or other secrets"),
    ("SELECT * FROM pg_file_settings", "pg_file_settings may not be read: it holds passwords or other secrets"),
]


@pytest.mark.parametrize("user", ["answerkey", "reader"])
@pytest.mark.parametrize(("query", "error"), REFUSALS)
def test_refusals_hold_for_a_superuser_and_for_a_read_only_role(server, engines, user, query, error):
    """Writes, COPY, DO, CALL, SET, LISTEN, file functions and session-changing functions fail with their reason,
    as the superuser and as the read-only role, and change nothing on the server."""
    before = _state(server)
    engine = engines(user, password=PASSWORD)
    assert engine.run(engine.databases("shop")[0], query).error == error
    assert not os.path.exists(MARKER)
    assert _state(server) == before


@pytest.mark.parametrize("user", ["answerkey", "reader"])
def test_no_password_verifier_reaches_a_result_or_a_message(server, engines, user):
    """pg_read_all_data (as which the superuser's and the reader's queries run) may read pg_authid: a
    query that names it, in any spelling, is refused, and no verifier appears in a result or an error."""
    engine = engines(user, password=PASSWORD)
    database = engine.databases("shop")[0]
    for query in (
        "SELECT rolpassword::int FROM pg_authid",
        "SELECT rolpassword FROM pg_catalog.pg_authid WHERE rolpassword IS NOT NULL",
        'SELECT * FROM "pg_authid"',
        "SELECT passwd FROM pg_shadow",
    ):
        result = engine.run(database, query)
        assert result.error is not None and "may not be read" in result.error
        assert "SCRAM" not in repr(result) and "md5" not in repr(result)
    # The role the queries run as could read it: the refusal is what stands in the way.
    import psycopg

    with psycopg.connect(server.url("shop"), autocommit=True) as connection:
        connection.execute("SET ROLE pg_read_all_data")
        [(verifiers,)] = connection.execute(
            "SELECT count(*) FROM pg_authid WHERE rolpassword LIKE 'SCRAM-SHA-256$%'"
        ).fetchall()
    assert verifiers >= 1


def test_queries_run_as_pg_read_all_data_when_the_role_may(engines):
    """The superuser and a member of pg_read_all_data run each query as that role; a plain role as itself."""
    query = "SELECT current_user, session_user, current_setting('transaction_read_only')"
    for user, current in (("answerkey", "pg_read_all_data"), ("reader", "pg_read_all_data"), ("plain", "plain")):
        engine = engines(user, password=PASSWORD)
        assert engine.run(engine.databases("shop")[0], query).rows == ((String(current), String(user), String("on")),)


def test_a_plain_role_reads_what_it_was_granted_and_nothing_else(engines):
    """A role granted SELECT on shop's tables reads them; the refusals hold for it too."""
    engine = engines("plain")
    database = engine.databases("shop")[0]
    assert engine.run(database, "SELECT count(*) FROM item").rows == ((Number.of(2),),)
    assert engine.run(database, "SELECT pg_terminate_backend(1)").error == (
        "the function pg_terminate_backend may not run: it could change the session or run other SQL"
    )
    assert engine.run(database, "DROP TABLE item").error == "only a query that reads may run, not a DROP statement"


def test_settings_changed_inside_a_query_do_not_outlive_it(engines):
    """Each query's transaction is rolled back: the session keeps UTC, ISO dates and its time limit."""
    engine = engines()
    database = engine.databases("shop")[0]
    query = "SELECT current_setting('TimeZone'), current_setting('IntervalStyle'), current_setting('statement_timeout')"
    assert engine.run(database, query).rows == ((String("UTC"), String("iso_8601"), String("30s")),)


def test_a_slow_query_stops_at_the_time_limit_with_the_shared_message(engines):
    """pg_sleep and a long computation stop at the deadline with SQLite's message, long
    before they could have ended (minutes); the session serves the next query."""
    engine = engines(timeout=0.5)
    database = engine.databases("shop")[0]
    for query in ("SELECT pg_sleep(300)", "SELECT count(*) FROM generate_series(1, 10000000000)"):
        started = time.monotonic()
        assert engine.run(database, query).error == "the query ran past the time limit of 0.5 s"
        assert time.monotonic() - started < 60  # stopped, not refused once it had run to its end
    assert engine.run(database, "SELECT 1").rows == ((Number.of(1),),)


def test_a_query_waiting_for_a_lock_stops_at_the_time_limit(server, engines):
    """A table locked by another session makes the query wait only until the time limit
    (the lock is held until the test ends: without the limit the query would wait for ever)."""
    locker = psycopg.connect(server.url("shop"))
    try:
        locker.execute("LOCK TABLE item IN ACCESS EXCLUSIVE MODE")
        engine = engines(timeout=0.5)
        assert engine.run(engine.databases("shop")[0], "SELECT * FROM item").error == (
            "the query ran past the time limit of 0.5 s"
        )
    finally:
        locker.rollback()
        locker.close()


def test_row_and_byte_limits_stop_reading_with_the_shared_messages(engines):
    """More rows than max_rows, or more bytes than max_result_bytes, is an error; the session is reusable after."""
    engine = engines(max_rows=5)
    database = engine.databases("shop")[0]
    assert engine.run(database, "SELECT * FROM generate_series(1, 6)").error == "the query returned more than 5 rows"
    assert len(engine.run(database, "SELECT * FROM generate_series(1, 5)").rows) == 5
    engine = engines(max_result_bytes=100, max_rows=10**9)
    assert engine.run(database, "SELECT repeat('x', 60) FROM generate_series(1, 2)").error == (
        "the query's result is larger than the limit of 100 bytes (--max-result-bytes raises it)"
    )
    # Billions of rows (pg_class has hundreds): only a reader that stops at the limit ends
    # with this message; one that read them all would run into the session's 30 s time limit.
    assert engine.run(database, "SELECT a.oid FROM pg_class a, pg_class b, pg_class c, pg_class d").error == (
        "the query's result is larger than the limit of 100 bytes (--max-result-bytes raises it)"
    )
    assert engine.run(database, "SELECT 'ok'").rows == ((String("ok"),),)


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("SELEC 1", "only a query that reads may run, not a SELEC statement"),
        ("SELECT * FROM nowhere", 'relation "nowhere" does not exist'),
        ("SELECT 1/0", "division by zero"),
        ("", "the query is empty"),
        ("-- only a comment", "the query is empty"),
        ("SELECT '\0'", "the query holds a NUL character, which PostgreSQL does not take"),
        (["SELECT 1"], "the query is a list, not text"),
    ],
)
def test_bad_queries_are_errors_in_the_result(engines, query, error):
    """Errors of the server and of the checks are one-line messages in the result, never exceptions."""
    engine = engines()
    assert engine.run(engine.databases("shop")[0], query).error == error


def test_absent_and_malformed_databases_raise_no_database_without_the_password(engines, server):
    """An unknown db_id or a malformed one raises NoDatabase; the message shows the URL without the password."""
    engine = engines("reader", password=PASSWORD)
    with pytest.raises(NoDatabase) as caught:
        engine.databases("nowhere")
    assert (
        str(caught.value)
        == f"no database 'nowhere' on the server {url_without_password(server.url('', user='reader'))!r}"
    )
    assert PASSWORD not in str(caught.value)
    with pytest.raises(NoDatabase) as caught:
        engine.databases("../shop")
    assert str(caught.value) == "not a database name: '../shop'"


def test_the_password_is_never_shown(engines):
    """The password connects but appears in no location, repr or error; it survives pickling for workers."""
    engine = engines("reader", password=PASSWORD)
    database = engine.databases("shop")[0]
    shown = [engine.location, repr(engine), database.location, repr(database), engine.run(database, "SELECT 1/0").error]
    assert all(PASSWORD not in text for text in shown)
    copy = pickle.loads(pickle.dumps(engine))
    assert PASSWORD not in repr(copy)
    assert copy.run(database, "SELECT current_user").rows == ((String("pg_read_all_data"),),)
    copy.close()


def test_a_wrong_password_is_a_connection_error_in_the_result(server):
    """A connection that fails is an error naming the database, never a traceback (trust auth ignores passwords, so a role that cannot log in)."""
    server.execute("postgres", "DROP ROLE IF EXISTS nologin; CREATE ROLE nologin NOLOGIN")
    engine = open_engine(server.url("", user="nologin", password="whatever"))
    with pytest.raises(NoDatabase) as caught:
        engine.databases("shop")
    assert str(caught.value) == (
        "cannot connect to the database 'shop': connection failed: "
        f'connection to server on socket "{server.socket}/.s.PGSQL.5432" failed: FATAL:  role "nologin" is not permitted to log in'
    )
    database = Database("postgresql", "shop", "shop", url_without_password(server.url("shop", user="nologin")))
    assert engine.run(database, "SELECT 1").error.startswith(
        "cannot connect to the database 'shop': connection failed:"
    )


def test_a_url_naming_a_database_makes_each_db_id_a_schema(server, engines):
    """With a database in the URL, each db_id is a schema of it and queries find its tables unqualified."""
    server.create_database(
        "suite",
        """
        CREATE SCHEMA concert; CREATE TABLE concert.singer (name text); INSERT INTO concert.singer VALUES ('Joe');
        CREATE SCHEMA "odd name"; CREATE TABLE "odd name".singer (name text); INSERT INTO "odd name".singer VALUES ('Ann');
        """,
    )
    engine = engines(database="suite")
    assert engine.database == "suite"
    for db_id, name in (("concert", "Joe"), ("odd name", "Ann")):
        (database,) = engine.databases(db_id)
        assert engine.run(database, "SELECT name FROM singer").rows == ((String(name),),)
    with pytest.raises(NoDatabase) as caught:
        engine.databases("nowhere")
    assert str(caught.value) == f"no schema 'nowhere' in the database 'suite' of {engine.location!r}"


def test_fingerprint_changes_with_writes_schema_and_truncate_and_only_then(server, engines):
    """Reads keep the fingerprint; an insert, an update of the same size, a new column and a truncate each change it."""
    server.create_database("ledger", "CREATE TABLE entry (amount int); INSERT INTO entry VALUES (1), (2);")
    engine = engines()
    database = engine.databases("ledger")[0]
    seen = [engine.fingerprint(database)]
    engine.run(database, "SELECT * FROM entry")
    assert engine.fingerprint(database) == seen[0]
    for change in (
        "INSERT INTO entry VALUES (3)",
        "UPDATE entry SET amount = 4 WHERE amount = 3",
        "ALTER TABLE entry ADD COLUMN note text",
        "TRUNCATE entry",
    ):
        server.execute("ledger", change)
        seen.append(engine.fingerprint(database))
    assert len(set(seen)) == 5
    assert all(fingerprint.startswith("postgresql:") for fingerprint in seen)


def test_fingerprint_of_an_unreachable_database_is_absent(server):
    """A database that cannot be reached has the fingerprint 'absent' (never an exception)."""
    engine = PostgreSQLEngine(server.url(""))
    assert engine.fingerprint(Database("postgresql", "gone", "gone", server.url("gone"))) == "absent"


def test_a_session_ended_by_the_server_is_replaced(server, engines):
    """When the server ends a kept session (a restart, an administrator), the next query opens a new one."""
    engine = engines()
    database = engine.databases("shop")[0]
    first = engine.run(database, "SELECT pg_backend_pid()").rows[0][0].value
    server.execute("postgres", f"SELECT pg_terminate_backend({first})")
    deadline = time.monotonic() + 120  # a guard against a hang, not a measure
    while server.execute("postgres", f"SELECT count(*) FROM pg_stat_activity WHERE pid = {first}") != [(0,)]:
        assert time.monotonic() < deadline, "the server never ended the session"
        time.sleep(0.05)
    result = engine.run(database, "SELECT pg_backend_pid()")
    assert result.error is None and result.rows[0][0].value != first


def test_threads_share_an_engine(engines):
    """Threads running queries on one database at once each get a session and the right answer."""
    engine = engines()
    database = engine.databases("shop")[0]
    results = {}

    def run(n):
        results[n] = engine.run(database, f"SELECT count(*) + {n} FROM item").rows

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: ((Number.of(2 + n),),) for n in range(8)}


def test_run_refuses_a_database_of_another_engine(engines):
    """A DuckDB Database given to the PostgreSQL engine is an error in the result."""
    assert engines().run(Database("duckdb", "x", "x.duckdb", "/x/x.duckdb"), "SELECT 1").error == (
        "the database 'x' is not a PostgreSQL database"
    )


# The checks and the URL handling, without a server.


@pytest.mark.parametrize(
    "query",
    [
        "SELECT 'set_config(' AS x",
        "SELECT 1 -- set_config(",
        "SELECT $$set_config($$",
        "SELECT $tag$ pg_advisory_lock( $tag$",
        'SELECT "set_config" FROM (SELECT 1 AS "set_config") AS t',
        "SELECT 1 /* nested /* set_config( */ still a comment */",
        "WITH t AS (SELECT 1) SELECT * FROM t",
        "VALUES (1)",
        "TABLE item",
        "(SELECT 1)",
        "  \n\tselect 1",
        "SELECT E'\\' set_config('",
    ],
)
def test_refusal_reads_comments_strings_and_quoted_names_as_postgresql_does(query):
    """Words inside literals, comments and column names are not calls: these queries may run."""
    assert refusal(query) is None


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("  /* x */ DROP TABLE t", "only a query that reads may run, not a DROP statement"),
        ("explain select 1", "only a query that reads may run, not an EXPLAIN statement"),
        ("(DELETE FROM t)", "only a query that reads may run, not a DELETE statement"),
        ('"select" 1', "only a query that reads may run, not a 'select' statement"),
        (
            "SELECT DBLINK_EXEC('x', 'DROP TABLE t')",
            "the function dblink_exec may not run: it could change the session or run other SQL",
        ),
        (
            "SELECT * FROM crosstab('SELECT 1')",
            "the function crosstab may not run: it could change the session or run other SQL",
        ),
        (
            "SELECT U&\"!0073et_config\" UESCAPE '!' ('a', 'b', true)",
            "the function set_config may not run: it could change the session or run other SQL",
        ),
        (
            "SELECT ts_stat('SELECT 1')",
            "the function ts_stat may not run: it could change the session or run other SQL",
        ),
        ("", "the query is empty"),
    ],
)
def test_refusal_names_the_statement_or_function_refused(query, error):
    """A statement that is not a read, or a refused function however it is spelled, gives the reason."""
    assert refusal(query) == error


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://reader:pw@db.example:5432/spider", "postgresql://reader@db.example:5432/spider"),
        ("postgres://reader:p%40ss@db.example/", "postgres://reader@db.example/"),
        (
            "postgresql://reader@db.example/?password=pw&sslmode=require",
            "postgresql://reader@db.example/?sslmode=require",
        ),
        ("postgresql:///spider?host=%2Frun%2Fpostgresql", "postgresql:///spider?host=%2Frun%2Fpostgresql"),
    ],
)
def test_url_without_password_removes_it_wherever_it_is(url, shown):
    """A password in the user part or in a parameter is removed; the rest of the URL is kept."""
    assert url_without_password(url) == shown
    assert PostgreSQLEngine(url).location == shown


def test_the_url_database_decides_databases_or_schemas():
    """A URL without a database serves databases per db_id; one with a database serves schemas of it."""
    assert PostgreSQLEngine("postgresql://db.example").database is None
    assert PostgreSQLEngine("postgresql://db.example/").database is None
    assert PostgreSQLEngine("postgresql://db.example/spider%20dev").database == "spider dev"


def test_plain_values_are_kept_as_the_driver_gives_them(engines):
    """Integers, doubles, text and NULLs keep psycopg's values by column, typed when asked for
    as every engine types them; a numeric column is typed as it is read; the byte limit is the
    same either way."""
    engine = engines()
    database = engine.databases("shop")[0]
    sql = "SELECT g, g / 4.0::float8, 'é' || g, NULLIF(g % 3, 0) FROM generate_series(1, 3000) g"
    result = engine.run(database, sql)
    assert result.error is None and result.driver_columns[0][:2] == [1, 2] and result.driver_columns[2][0] == "é1"
    assert result.rows[0] == (Number.of(1), Number.of(0.25), String("é1"), Number.of(1))
    assert result.rows[2][3] == NIL and result.driver_columns is None
    assert engine.run(database, "SELECT name, price FROM item").driver_columns is None  # price is NUMERIC
    size = 3000 * 8 * 4 + sum(len(f"é{g}".encode()) for g in range(1, 3001))
    assert engines(max_result_bytes=size).run(database, sql).error is None
    assert engines(max_result_bytes=size - 1).run(database, sql).error == (
        f"the query's result is larger than the limit of {size - 1:,} bytes (--max-result-bytes raises it)"
    )


def test_every_value_counts_towards_the_byte_limit_empty_texts_and_nulls_alike(engines):
    """Every value counts 8 bytes and a text its length on top: many empty texts are refused as many NULLs are."""
    engine = engines(max_result_bytes=1000, max_rows=10**9)
    database = engine.databases("shop")[0]
    message = "the query's result is larger than the limit of 1,000 bytes (--max-result-bytes raises it)"
    for value in ("''", "''::bytea", "NULL", "0"):
        assert engine.run(database, f"SELECT {value}, {value} FROM generate_series(1, 200)").error == message
    assert len(engine.run(database, "SELECT '', NULL FROM generate_series(1, 62)").rows) == 62
    assert engine.run(database, "SELECT 'ab', NULL FROM generate_series(1, 62)").error == message


def test_large_values_are_refused_after_about_the_byte_limit(engines):
    """Rows are taken in batches sized to what is left of the limit: ten 20 MB texts under a 4 MB limit are
    refused after the first is made in Python, not after the ten (200 MB)."""
    import tracemalloc

    engine = engines(max_result_bytes=4 * 2**20)
    database = engine.databases("shop")[0]
    tracemalloc.start()
    try:
        result = engine.run(database, "SELECT repeat('x', 20000000) FROM generate_series(1, 10)")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (
        result.error == "the query's result is larger than the limit of 4,194,304 bytes (--max-result-bytes raises it)"
    )
    assert peak < 80 * 10**6
