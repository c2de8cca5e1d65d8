"""answerkey.adapters.sql: read-only SQLite runs into typed rows, with limits, errors reported."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from answerkey.model import NIL, Number, Relation, String
from answerkey.adapters.sql import Databases, QueryResult, run_query, sql_value

RUNAWAY = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"


@pytest.fixture
def spider(tmp_path):
    """A Spider-layout root with one database, `world`."""
    (tmp_path / "world").mkdir()
    path = tmp_path / "world" / "world.sqlite"
    with sqlite3.connect(path) as connection:
        connection.executescript(
            """
            CREATE TABLE country (name TEXT, continent TEXT, population INTEGER, area REAL);
            INSERT INTO country VALUES
                ('Wales', 'Europe', 3100000, 20779.0),
                ('Scotland', 'Europe', 5400000, 77910.0),
                ('England', 'Europe', 56000000, 130279.0),
                ('Chile', 'America', 19500000, 756102.4),
                ('Nowhere', NULL, NULL, NULL);
            """
        )
    connection.close()
    return tmp_path


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_runs_a_query_into_typed_rows(spider):
    """A query on a db_id gives its column names and typed rows in SQLite's order."""
    result = Databases(spider).run("world", "SELECT name, population, area FROM country ORDER BY area DESC")
    assert result.ok and result.error is None
    assert result.columns == ("name", "population", "area")
    assert result.rows[0] == (String("Chile"), Number.of(19500000), Number.of(756102.4))
    assert result.rows[-1] == (String("Nowhere"), NIL, NIL)
    assert len(result.relation()) == 5


def test_run_query_by_path(spider):
    """run_query takes a database file path."""
    result = run_query(spider / "world" / "world.sqlite", "SELECT count(*) FROM country")
    assert result == QueryResult(((Number.of(5),),), ("count(*)",))


@pytest.mark.parametrize(
    "query, error",
    [
        ("DROP TABLE country", "not authorized"),
        ("INSERT INTO country VALUES ('Mars', NULL, 0, 0.0)", "not authorized"),
        ("UPDATE country SET population = 0", "not authorized"),
        ("DELETE FROM country", "not authorized"),
        ("CREATE TABLE moon (x)", "not authorized"),
        ("CREATE TEMP TABLE moon (x)", "not authorized"),
        ("ATTACH DATABASE '{root}/other.sqlite' AS other", "not authorized"),
        ("VACUUM INTO '{root}/copy.sqlite'", "authorization denied"),
        ("PRAGMA journal_mode = WAL", "not authorized"),
        ("SELECT 1; DROP TABLE country", "You can only execute one statement at a time."),
    ],
)
def test_predicted_writes_leave_the_file_unchanged(spider, query, error):
    """A write, ATTACH or pragma is refused with an error and the database file stays
    byte-identical, with no new file beside it."""
    path = spider / "world" / "world.sqlite"
    before = _digest(path)
    result = Databases(spider).run("world", query.format(root=spider))
    assert result.error == error
    assert result.rows == ()
    assert _digest(path) == before
    assert sorted(p.name for p in spider.rglob("*")) == ["world", "world.sqlite"]
    # the database is still there and whole
    assert Databases(spider).run("world", "SELECT count(*) FROM country").rows == ((Number.of(5),),)


def test_runaway_query_is_stopped_by_the_time_limit(spider):
    """A recursive CTE without end is interrupted at the time limit and reported."""
    result = Databases(spider, timeout=0.2).run("world", RUNAWAY)
    assert result.error == "the query ran past the time limit of 0.2 s"
    assert not result.ok


def test_row_limit(spider):
    """A query returning more rows than the limit is an error, not a huge result."""
    databases = Databases(spider, max_rows=4)
    assert databases.run("world", "SELECT name FROM country").error == "the query returned more than 4 rows"
    assert len(databases.run("world", "SELECT name FROM country LIMIT 4").rows) == 4


@pytest.mark.parametrize(
    "db_id, error",
    [
        ("../world", "not a database name: '../world'"),
        ("world/world", "not a database name: 'world/world'"),
        ("..", "not a database name: '..'"),
        ("", "not a database name: ''"),
        (None, "not a database name: None"),
    ],
)
def test_bad_db_ids(spider, db_id, error):
    """A db_id that could leave the root is refused."""
    assert Databases(spider).run(db_id, "SELECT 1").error == error


def test_missing_database(spider):
    """An unknown db_id names the file it expected."""
    result = Databases(spider).run("mars", "SELECT 1")
    assert result.error == f"no database 'mars' (expected {str(spider / 'mars' / 'mars.sqlite')!r})"
    assert run_query(spider / "none.sqlite", "SELECT 1").error == f"no database file {str(spider / 'none.sqlite')!r}"


@pytest.mark.parametrize(
    "query, error",
    [
        ("SELECT nope FROM country", "no such column: nope"),
        ("SELEC 1", 'near "SELEC": syntax error'),
        (42, "the query is a int, not text"),
    ],
)
def test_failing_queries_report_errors(spider, query, error):
    """A failing query is reported in the result, never raised."""
    assert Databases(spider).run("world", query).error == error


def test_sql_values():
    """SQLite values map to typed values: NULL nil, blob X'..' text, Inf text, reals real."""
    assert sql_value(None) is NIL
    assert sql_value(2.0) == Number.parse("2.0")
    assert sql_value(float("inf")) == String("Inf")
    assert sql_value(b"\x00\xab") == String("X'00AB'")
    with pytest.raises(TypeError):
        sql_value([1])


def test_mixed_column_types_are_rows_not_a_relation(spider):
    """SQLite lets a column mix types: the rows are kept, relation() says why it cannot be one."""
    result = Databases(spider).run("world", "SELECT 1 UNION ALL SELECT 'one'")
    assert result.rows == ((Number.of(1),), (String("one"),))
    with pytest.raises(ValueError, match="a string in a column of numbers"):
        result.relation()
    assert Relation(result.rows[:1]) == Relation.from_rows([[1]])
