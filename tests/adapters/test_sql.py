"""answerkey.adapters.sql: read-only SQLite runs into typed rows, with limits, errors reported."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import select
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from answerkey.adapters import _sqlite_processes
from answerkey.adapters.sql import Databases, QueryResult, run_query, sql_value, stop_query_processes
from answerkey.limits import MAX_DB_ID_CHARS
from answerkey.model import NIL, Number, Relation, String
from child_processes import live_children as _children

RUNAWAY = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
# One function call that runs for tens of seconds (2e6 x 2e4 character comparisons), in which
# SQLite never looks at its interrupt flag or calls its progress handler.
LIKE_BOMB = "SELECT printf('%.*c', 2000000, 'a') LIKE ('%' || printf('%.*c', 20000, 'a') || 'b')"
INSTR_BOMB = "SELECT instr(printf('%.*c', 30000000, 'a'), printf('%.*c', 20000000, 'a') || 'b')"
# 60 rows of 60 MB each (3.6 GB in all), made by SQL from nothing.
SIXTY_BY_SIXTY_MB = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60) "
    "SELECT printf('%.*c', 60000000, 'a') FROM n"
)
# One row of ten 60 MB values: every value is under the length limit, the row is not.
WIDE_ROW = "SELECT " + ", ".join(f"printf('%.*c', 60000000, '{letter}')" for letter in "abcdefghij")
LINUX = sys.platform.startswith("linux")


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


def test_a_completed_query_carries_its_time(spider):
    """A query that ran to completion has .seconds (its run, as a valid efficiency score
    compares), positive and within its time limit; a failed one has None; equality of
    results ignores the measurement."""
    for result in (
        Databases(spider, timeout=60).run("world", "SELECT name FROM country"),
        run_query(spider / "world" / "world.sqlite", "SELECT count(*) FROM country", timeout=60),
    ):
        assert result.ok and isinstance(result.seconds, float) and 0 < result.seconds < 60
    assert Databases(spider).run("world", "SELECT nope FROM country").seconds is None
    assert Databases(spider).run("mars", "SELECT 1").seconds is None
    assert Databases(spider, timeout=0.2).run("world", RUNAWAY).seconds is None
    assert QueryResult((), ("a",), seconds=1.0) == QueryResult((), ("a",), seconds=2.0) == QueryResult((), ("a",))


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
        (42, "the query is an integer, not text"),
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


def _snapshot(root):
    """Every file under root with its bytes' digest."""
    return {str(path.relative_to(root)): _digest(path) for path in sorted(root.rglob("*")) if path.is_file()}


def _database(path, script="CREATE TABLE t (x); INSERT INTO t VALUES (1), (2);", journal_mode=None):
    """Create a SQLite database at path (parents too) by running script."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    if journal_mode is not None:
        connection.execute(f"PRAGMA journal_mode = {journal_mode}")
    connection.executescript(script)
    connection.close()
    return path


def test_lone_surrogates_are_errors_not_exceptions(spider):
    """A lone surrogate in the query or the db_id is an error naming its character."""
    databases = Databases(spider)
    assert databases.run("world", "SELECT '\ud800'").error == (
        "the query is not valid text: it holds half of a UTF-16 surrogate pair at character 9"
    )
    assert run_query(spider / "world" / "world.sqlite", "SELECT 1 -- \udfff").error == (
        "the query is not valid text: it holds half of a UTF-16 surrogate pair at character 13"
    )
    assert databases.run("wor\udc00ld", "SELECT 1").error == (
        "the db_id is not valid text: it holds half of a UTF-16 surrogate pair at character 4"
    )
    assert databases.path("wor\udc00ld") is None
    # a pair is one character, and valid text
    assert databases.run("world", "SELECT '\U0001f600'").rows == ((String("\U0001f600"),),)


def test_long_db_id_is_refused(spider):
    """A db_id over MAX_DB_ID_CHARS is an error; one at the limit is looked up without OSError."""
    assert Databases(spider).run("a" * 300, "SELECT 1").error == (
        f"the db_id is longer than {MAX_DB_ID_CHARS} characters (it has 300)"
    )
    at_limit = "a" * MAX_DB_ID_CHARS
    expected = spider / at_limit / f"{at_limit}.sqlite"
    assert Databases(spider).run(at_limit, "SELECT 1").error == f"no database {at_limit!r} (expected {str(expected)!r})"


def test_path_errors_are_results(spider, tmp_path_factory):
    """An unreadable path (name too long, link loop, FIFO) is an error result, never an OSError or a hang."""
    long_root = tmp_path_factory.mktemp("roots") / ("r" * 300)
    expected = long_root / "world" / "world.sqlite"
    assert Databases(long_root).run("world", "SELECT 1").error == (
        f"cannot read the database 'world': File name too long ({str(expected)!r})"
    )
    long_file = spider / ("f" * 300 + ".sqlite")
    assert run_query(long_file, "SELECT 1").error == (
        f"cannot read the database file {str(long_file)!r}: File name too long"
    )
    (spider / "loop").mkdir()
    loop = spider / "loop" / "loop.sqlite"
    loop.symlink_to(loop)
    assert Databases(spider).run("loop", "SELECT 1").error == (
        f"cannot read the database 'loop': Too many levels of symbolic links ({str(loop)!r})"
    )
    (spider / "pipe").mkdir()
    os.mkfifo(spider / "pipe" / "pipe.sqlite")
    assert Databases(spider).run("pipe", "SELECT 1").error == (
        f"no database 'pipe' (expected {str(spider / 'pipe' / 'pipe.sqlite')!r})"
    )


def test_not_a_database_file(spider):
    """A file that is not SQLite is an error naming it."""
    (spider / "junk").mkdir()
    (spider / "junk" / "junk.sqlite").write_bytes(b"not a database at all\n" * 100)
    real = os.path.realpath(spider / "junk" / "junk.sqlite")
    assert Databases(spider).run("junk", "SELECT 1").error == f"cannot open {real!r}: file is not a database"


@pytest.mark.parametrize("query", [LIKE_BOMB, INSTR_BOMB], ids=["like", "instr"])
@pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")
def test_one_long_function_call_is_stopped_at_the_time_limit(spider, query):
    """A query stuck inside one SQLite function call is stopped at the time limit by ending
    its helper process (the call never looks at SQLite's interrupt flag), and the next query
    runs."""
    stop_query_processes()
    others = _children()  # processes earlier tests started (a multiprocessing forkserver, ...)
    assert Databases(spider).run("world", "SELECT 1").ok
    helpers = _children() - others
    assert helpers
    result = Databases(spider, timeout=1).run("world", query)
    assert (result.error, result.seconds) == ("the query ran past the time limit of 1 s", None)
    # The helper was ended: a query left to finish its call (tens of seconds) and then
    # refused as late would have left it running, to serve the next query.
    assert not helpers & _children()
    assert Databases(spider).run("world", "SELECT count(*) FROM country").rows == ((Number.of(5),),)


def test_byte_limit_counts_utf8_text_blobs_and_8_bytes_a_number(spider):
    """Every value counts 8 bytes, text its UTF-8 bytes on top, a blob its length; one byte over is an error."""
    names = "SELECT name FROM country"  # Wales, Scotland, England, Chile, Nowhere: 32 + 5 x 8 bytes
    populations = "SELECT population FROM country"  # four numbers and a NULL: 40 bytes
    # 25 rows of 'é' and a 2-byte blob: 25 x (8 + 2 + 8 + 2) bytes (SQLite's own length limit, which
    # counts literals and terminators, is loose by a few bytes: values well under it here)
    others = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 25) "
        "SELECT char(233), zeroblob(2) FROM n"
    )
    for query, size in ((names, 72), (populations, 40), (others, 500)):
        assert Databases(spider, max_result_bytes=size).run("world", query).ok
        assert Databases(spider, max_result_bytes=size - 1).run("world", query).error == (
            f"the query's result is larger than the limit of {size - 1} bytes (--max-result-bytes raises it)"
        )


def test_one_giant_value_fails_inside_sqlite(spider, tmp_path):
    """A string or blob over the byte limit fails as SQLite makes it, even if the result would be small."""
    databases = Databases(spider, max_result_bytes=1000)
    message = (
        "the query made or read a value or table row larger than the limit of 1,000 bytes "
        "(--max-result-bytes raises it)"
    )
    assert databases.run("world", "SELECT zeroblob(1001)").error == message
    assert databases.run("world", "SELECT length(hex(zeroblob(600)))").error == message
    assert databases.run("world", "SELECT length(hex(zeroblob(499)))").rows == ((Number.of(998),),)
    # The schema is not a result: a CREATE statement (1,240 characters) longer than the limit is still read.
    columns = ", ".join(f"{letter * 400} TEXT" for letter in "abc")
    _database(
        tmp_path / "long" / "long.sqlite", f"CREATE TABLE t ({columns}); INSERT INTO t ({'a' * 400}) VALUES ('x');"
    )
    assert Databases(tmp_path, max_result_bytes=500).run("long", f"SELECT {'a' * 400} FROM t").rows == ((String("x"),),)
    # A value stored in a table is refused as it is read.
    _database(tmp_path / "row" / "row.sqlite", "CREATE TABLE t (a, b); INSERT INTO t VALUES ('x', zeroblob(2000));")
    assert Databases(tmp_path, max_result_bytes=1000).run("row", "SELECT b FROM t").error == message
    assert Databases(tmp_path, max_result_bytes=1000).run("row", "SELECT a FROM t").rows == ((String("x"),),)


MEASURE = """
import json, resource, sys, time
def high_water_kib():
    # This process's own peak: ru_maxrss keeps, across exec, the peak of the process that
    # started it (a test suite grown past a bound made each child look that large).
    with open('/proc/self/status') as status:
        return int(next(line for line in status if line.startswith('VmHWM:')).split()[1])
from answerkey.adapters.sql import run_query, stop_query_processes
start = time.monotonic()
result = run_query(sys.argv[1], sys.argv[2])
seconds = time.monotonic() - start
stop_query_processes()
peak = max(high_water_kib(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({"error": result.error, "seconds": seconds, "peak_kib": peak}))
"""


@pytest.mark.parametrize(
    "query, error",
    [
        (
            SIXTY_BY_SIXTY_MB,
            "the query's result is larger than the limit of 67,108,864 bytes (--max-result-bytes raises it)",
        ),
        (WIDE_ROW, "the query needed more memory than the limit of 268,435,456 bytes (--max-result-bytes raises it)"),
    ],
    ids=["60-rows-of-60-MB", "a-row-of-ten-60-MB-values"],
)
@pytest.mark.skipif(not LINUX, reason="ru_maxrss is in KiB on Linux")
def test_huge_results_stop_at_the_byte_limit_in_bounded_memory(tmp_path, query, error):
    """A result of gigabytes stops at the default byte limit, quickly, in a few hundred MB
    (this process and its helper, measured in a subprocess)."""
    database = _database(tmp_path / "empty.sqlite", "CREATE TABLE t (x);")
    finished = subprocess.run(
        [sys.executable, "-c", MEASURE, str(database), query],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert finished.returncode == 0, finished.stderr
    measured = json.loads(finished.stdout)
    assert measured["error"] == error
    assert measured["seconds"] < 30  # a bound on a hang: unbounded, this takes minutes or fails
    assert measured["peak_kib"] < 600 * 1024


def test_links_out_of_the_root_are_refused(spider, tmp_path_factory):
    """A db_id whose directory or file is a link to outside the root is refused, naming where it leads."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    outside = _database(elsewhere / "evil" / "evil.sqlite")
    (spider / "evil").symlink_to(elsewhere / "evil")
    assert Databases(spider).run("evil", "SELECT * FROM t").error == (
        f"the database 'evil' is outside the root: {str(spider / 'evil' / 'evil.sqlite')!r} "
        f"leads to {os.path.realpath(outside)!r}"
    )
    (spider / "sly").mkdir()
    (spider / "sly" / "sly.sqlite").symlink_to(outside)
    assert Databases(spider).run("sly", "SELECT * FROM t").error == (
        f"the database 'sly' is outside the root: {str(spider / 'sly' / 'sly.sqlite')!r} "
        f"leads to {os.path.realpath(outside)!r}"
    )


def test_links_inside_the_root_are_followed(spider, tmp_path_factory):
    """A link inside the root to a database inside it is allowed, and so is a root that is a link."""
    (spider / "alias").mkdir()
    (spider / "alias" / "alias.sqlite").symlink_to(spider / "world" / "world.sqlite")
    assert Databases(spider).run("alias", "SELECT count(*) FROM country").rows == ((Number.of(5),),)
    linked_root = tmp_path_factory.mktemp("links") / "root"
    linked_root.symlink_to(spider)
    assert Databases(linked_root).run("world", "SELECT count(*) FROM country").rows == ((Number.of(5),),)


@pytest.mark.parametrize("journal_mode", ["wal", "delete", "truncate", "persist"])
def test_reads_leave_every_file_as_it_was(tmp_path, journal_mode):
    """Queries on a database in any journal mode create no file (no -wal, -shm, -journal)
    and leave every byte as it was."""
    root = tmp_path / "root"
    path = _database(root / "w" / "w.sqlite", journal_mode=journal_mode)
    assert (path.read_bytes()[18:20] == b"\x02\x02") == (journal_mode == "wal")  # the header's journal mode
    before = _snapshot(root)
    databases = Databases(root)
    assert databases.run("w", "SELECT sum(x) FROM t").rows == ((Number.of(3),),)
    for query in ("SELECT nope FROM t", "DROP TABLE t", "PRAGMA journal_mode = delete", RUNAWAY):
        assert not Databases(root, timeout=0.2).run("w", query).ok
    assert _snapshot(root) == before


def test_a_database_being_written_is_refused(tmp_path):
    """A database whose -wal file holds changes is refused (read immutable, they would be
    missed); once its writer closes it, it is read whole."""
    path = _database(tmp_path / "w" / "w.sqlite", journal_mode="wal")
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO t VALUES (3)")
    writer.commit()
    assert Databases(tmp_path).run("w", "SELECT sum(x) FROM t").error == (
        "the database 'w' is being written, or was not closed cleanly: its -wal file holds changes not in "
        "the database file (checkpoint it, or copy it, first)"
    )
    writer.close()  # the last connection checkpoints and removes the -wal file
    assert Databases(tmp_path).run("w", "SELECT sum(x) FROM t").rows == ((Number.of(6),),)


def test_a_hot_journal_is_refused(spider):
    """A database beside a hot rollback journal (a write interrupted mid-commit, as SQLite
    leaves it) is refused; a journal with a zeroed header (PERSIST mode) is not hot."""
    path = spider / "world" / "world.sqlite"
    journal = spider / "world" / "world.sqlite-journal"
    journal.write_bytes(bytes.fromhex("d9d505f920a163d7") + bytes(504))
    assert run_query(path, "SELECT 1").error == (
        f"the database file {str(path)!r} is being written, or a write was interrupted: it has a hot -journal "
        "file (open it once with sqlite3 to roll it back, or copy it, first)"
    )
    journal.write_bytes(bytes(512))
    assert run_query(path, "SELECT 1").ok


def test_queries_from_several_threads(spider):
    """Threads running queries at once each get their own answers."""
    databases = Databases(spider)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: databases.run("world", f"SELECT {i}, count(*) FROM country"), range(40)))
    assert [result.rows for result in results] == [((Number.of(i), Number.of(5)),) for i in range(40)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_runs_its_own_queries(spider):
    """A forked child runs queries with its own helper; the parent's keeps working."""
    databases = Databases(spider)
    query = "SELECT count(*) FROM country"
    assert databases.run("world", query).ok
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.write(write, repr(databases.run("world", query).rows).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        told = pipe.read()
    os.waitpid(pid, 0)
    assert told == repr(((Number.of(5),),)).encode()
    assert databases.run("world", query).rows == ((Number.of(5),),)


@pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")
def test_a_helper_killed_while_idle_is_replaced(spider):
    """If the idle helper process is killed from outside, the next query starts another."""
    stop_query_processes()
    others = _children()  # processes earlier tests started (a multiprocessing forkserver, ...)
    assert Databases(spider).run("world", "SELECT 1").ok
    (helper,) = _children() - others
    ended = os.pidfd_open(helper)  # readable once the helper has ended
    try:
        os.kill(helper, signal.SIGKILL)
        assert select.select([ended], [], [], 120)[0], "the killed helper did not end"  # 120 s: a guard
    finally:
        os.close(ended)
    result = Databases(spider).run("world", "SELECT count(*) FROM country")
    assert result.rows == ((Number.of(5),),), result.error  # the error says why, if it failed


@pytest.mark.parametrize(
    "limits, error",
    [
        ({"timeout": float("nan")}, "the time limit must be a number of seconds above 0, not nan"),
        ({"timeout": 0}, "the time limit must be a number of seconds above 0, not 0"),
        ({"max_rows": -1}, "the row limit must be a whole number, 0 or more, not -1"),
        ({"max_result_bytes": 0}, "the byte limit must be a whole number above 0, not 0"),
    ],
)
def test_limits_that_cannot_bound_a_query(spider, limits, error):
    """Limits that make no sense are an error result, not an exception or no limit."""
    assert Databases(spider, **limits).run("world", "SELECT 1").error == error
    assert run_query(spider / "world" / "world.sqlite", "SELECT 1", **limits).error == error


FALLBACK = """
import json, sys
sys.executable = ""  # no helper process can be started
from answerkey.adapters.sql import run_query
runaway = run_query(sys.argv[1], sys.argv[2], timeout=0.2)
count = run_query(sys.argv[1], "SELECT count(*) FROM t")
print(json.dumps([runaway.error, str(count.rows)]))
"""


def test_without_helper_processes_queries_run_here(tmp_path):
    """Where no helper can start, queries run in the process itself, still stopped at the time limit."""
    database = _database(tmp_path / "d.sqlite")
    finished = subprocess.run(
        [sys.executable, "-c", FALLBACK, str(database), RUNAWAY],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout) == ["the query ran past the time limit of 0.2 s", str(((Number.of(2),),))]


@pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")
def test_an_interrupted_query_keeps_its_helper(spider):
    """A runaway the interrupt can stop (a loop of SQLite steps) ends at the time limit
    without killing the helper process that ran it."""
    stop_query_processes()
    others = _children()  # processes earlier tests started (a multiprocessing forkserver, ...)
    assert Databases(spider).run("world", "SELECT 1").ok
    helpers = _children() - others
    assert Databases(spider, timeout=0.2).run("world", RUNAWAY).error == "the query ran past the time limit of 0.2 s"
    assert Databases(spider).run("world", "SELECT 2").ok
    assert _children() - others == helpers


def test_text_that_is_not_utf8_and_blobs(tmp_path):
    """Stored text that is not UTF-8 is decoded with replacement characters, a blob becomes its X'..' text."""
    _database(
        tmp_path / "raw" / "raw.sqlite", "CREATE TABLE t (x); INSERT INTO t VALUES (CAST(X'FF61' AS TEXT)), (X'00AB');"
    )
    assert Databases(tmp_path).run("raw", "SELECT x FROM t").rows == ((String("\ufffda"),), (String("X'00AB'"),))


FORKING = """
import json, os, sys
from answerkey.adapters.sql import Databases
from answerkey.parallel import ordered_map

def parent(_):
    return os.getppid()

if __name__ == "__main__":
    first = Databases(sys.argv[1]).run("world", "SELECT 1").ok
    parents = list(ordered_map(parent, [0, 1], jobs=2))
    rows = str(Databases(sys.argv[1]).run("world", "SELECT count(*) FROM country").rows)
    print(json.dumps([first, parents == [os.getpid()] * 2, rows]))
"""


def test_the_alarm_thread_lets_worker_pools_fork(spider, tmp_path):
    """After a query, its alarm thread (remade in a forked child) does not push ordered_map
    off fork onto the slower fork server: the workers are the process's own children. In a
    fresh process: threads other tests leave behind (a Dask cluster's) would push it there."""
    script = tmp_path / "forking.py"
    script.write_text(FORKING)
    finished = subprocess.run(
        [sys.executable, str(script), str(spider)], check=False, capture_output=True, text=True, timeout=60
    )
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout) == [True, True, str(((Number.of(5),),))]


def _large_database(path, rows):
    """A table of ``rows`` rows whose columns repeat their values or not, mix types, hold
    NULLs, zeros of both signs, an infinity and blobs: what the conversion treats apart."""
    _database(path, "CREATE TABLE t (id INTEGER, q INTEGER, r REAL, c TEXT, m, b BLOB, z REAL)")
    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    i,
                    None if i % 7 == 0 else i % 10,
                    (-0.0 if i % 2 else 0.0) if i % 1000 == 3 else (float("inf") if i == 15_000 else i / 8),
                    f"category {i % 5}",
                    i if i % 3 else f"text {i}",
                    bytes([i % 256]) if i % 4 == 0 else None,
                    (-0.0, 0.0, 2.5, None)[i % 4],
                )
                for i in range(rows)
            ),
        )
    connection.close()
    return path


def test_a_result_of_many_chunks_is_typed_as_sql_value_types_each_value(tmp_path):
    """A result the helper sends in several chunks gives, value for value and text for text,
    what sql_value gives for each value sqlite3 reads (a column of one type is converted in
    bulk); equal values of a column whose values repeat are one shared object."""
    path = _large_database(tmp_path / "big" / "big.sqlite", 25_003)
    result = Databases(tmp_path).run("big", "SELECT * FROM t ORDER BY id")
    connection = sqlite3.connect(path)
    expected = tuple(tuple(map(sql_value, row)) for row in connection.execute("SELECT * FROM t ORDER BY id"))
    connection.close()
    assert result.ok and len(result.rows) == 25_003
    assert repr(result.rows) == repr(expected)  # a Number's repr shows its text: -0.0 stays -0.0
    assert result.rows[1][1] is result.rows[11][1] and result.rows[2][3] is result.rows[20_002][3]


def test_the_row_limit_holds_across_chunks(tmp_path):
    """The row limit counts the rows of every chunk sent: at the limit a result is whole,
    one row past it (in a later chunk) it is the error."""
    _large_database(tmp_path / "big" / "big.sqlite", 25_003)
    assert len(Databases(tmp_path, max_rows=25_003).run("big", "SELECT id FROM t").rows) == 25_003
    for limit in (25_002, 12_345, 10_000):
        assert Databases(tmp_path, max_rows=limit).run("big", "SELECT id FROM t").error == (
            f"the query returned more than {limit} rows"
        )


def test_the_time_this_process_takes_over_chunks_is_not_the_querys(tmp_path, monkeypatch):
    """Time this process spends taking chunks in, while the helper waits to send the next,
    counts neither towards the query's time limit nor in its seconds: a quick query whose
    first chunk this process holds on to past the time limit and the graces after it
    (the helper's 0.5 s, this process's 1 s) is not stopped, and its seconds are its own."""
    _large_database(tmp_path / "big" / "big.sqlite", 50_001)
    timeout = 2
    ask = _sqlite_processes.QueryProcess.ask
    taken = []
    held = []

    def slow_ask(self, request, wait, receive):
        def slow_receive(chunk):
            if not taken:  # the rows fill the pipe meanwhile: the helper waits to send more
                began = time.monotonic()
                time.sleep(timeout + 2)
                held.append(time.monotonic() - began)
            taken.append(chunk[1])
            receive(chunk)

        return ask(self, request, wait, slow_receive)

    monkeypatch.setattr(_sqlite_processes.QueryProcess, "ask", slow_ask)
    result = Databases(tmp_path, timeout=timeout).run("big", "SELECT * FROM t")
    assert (result.error, result.row_count) == (None, 50_001)
    assert taken == [10_000] * 5 + [1]
    # Not stopped, so the query itself took less than its limit: the time held is not in it.
    assert result.seconds is not None and result.seconds < timeout < held[0]


def test_a_result_keeps_the_driver_values_until_its_rows_are_asked_for(tmp_path):
    """The values as SQLite gave them, by column; the typed rows made from them on first use
    (then the driver values are dropped); equality, hashing, pickling and repr are those of
    the typed rows."""
    _database(
        tmp_path / "v" / "v.sqlite",
        "CREATE TABLE t (n, r, s); INSERT INTO t VALUES (1, 2.5, 'a'), (NULL, -0.0, X'01');",
    )
    result = Databases(tmp_path).run("v", "SELECT n, r, s FROM t")
    assert result.driver_columns == ([1, None], [2.5, -0.0], ["a", b"\x01"])
    assert result.row_count == 2 and result.seconds is not None
    same = QueryResult(
        rows=tuple(tuple(map(sql_value, row)) for row in [(1, 2.5, "a"), (None, -0.0, b"\x01")]),
        columns=("n", "r", "s"),
    )
    assert result == same and hash(result) == hash(same)
    assert result.driver_columns is None  # comparing made the typed rows
    assert result.rows[1] == (NIL, Number.of(-0.0), String("X'01'"))
    assert pickle.loads(pickle.dumps(result)) == result
    assert repr(result).startswith("QueryResult(rows=((Number(value=1, is_real=False, text='1'), ")
    with pytest.raises(AttributeError, match="a QueryResult is immutable"):
        result.error = "no"  # type: ignore[misc]


def test_text_that_is_not_utf8_after_sent_chunks_is_read_again_whole(tmp_path):
    """SQLite's driver decodes text strictly first; text that is not UTF-8 after chunks have
    been sent has the query read again from the start: every row once, decoded with
    replacement characters, in the helper and where queries run in this process."""
    path = tmp_path / "mixed" / "mixed.sqlite"
    _database(path, "CREATE TABLE t (id INTEGER, x TEXT)")
    with sqlite3.connect(path) as connection:
        connection.executemany("INSERT INTO t VALUES (?, ?)", ((i, f"row {i}") for i in range(25_000)))
        connection.execute("UPDATE t SET x = CAST(X'FF62' AS TEXT) WHERE id = 24000")
    connection.close()
    for run in (Databases(tmp_path).run, _in_this_process(Databases(tmp_path).run)):
        result = run("mixed", "SELECT id, x FROM t ORDER BY id")
        assert result.error is None and result.row_count == 25_000
        assert result.driver_columns[0] == list(range(25_000))
        assert result.driver_columns[1][24_000] == "\ufffdb" and result.driver_columns[1][23_999] == "row 23999"


def _in_this_process(run):
    """``run``, with no helper process to run queries in."""

    def without_helpers(*arguments):
        processes = _sqlite_processes.STATE.processes
        unavailable, idle = processes._unavailable, processes._idle
        processes._unavailable, processes._idle = True, []
        try:
            return run(*arguments)
        finally:
            processes._unavailable, processes._idle = unavailable, idle

    return without_helpers


ORPHANING = """
import sys
from answerkey.adapters.sql import run_query
run_query(sys.argv[1], sys.argv[2], timeout=float("inf"))
"""


# Starts the owner (ORPHANING), waits until its helper has the database open (it is inside
# the query), kills the owner and prints the helper's exit status. It is a subreaper: the
# orphaned helper becomes its child, so it can wait for it and see how it ended.
ORPHAN_WATCH = r"""
import ctypes, os, signal, subprocess, sys, time
database, query, owner_script = sys.argv[1:4]
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
    sys.exit("cannot become a subreaper")
owner = subprocess.Popen([sys.executable, "-c", owner_script, database, query])

def children(parent):
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as file:
                if int(file.read().rsplit(")", 1)[1].split()[1]) == parent:
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            pass
    return found

def has_open(pid, path):
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") == path for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:  # a descriptor closed while looked at: look again
        return False

deadline = time.monotonic() + 120  # a guard against a hang, not a measure
helper = None
while helper is None and owner.poll() is None and time.monotonic() < deadline:
    helper = next((pid for pid in children(owner.pid) if has_open(pid, database)), None)
    time.sleep(0.01)
owner.kill()
owner.wait()  # its helper is this process's child from now on
if helper is None:
    sys.exit("no helper of the owner opened the database")
signal.signal(signal.SIGALRM, lambda *_: os.kill(helper, signal.SIGKILL))  # never leave it running
signal.alarm(120)
_, status = os.waitpid(helper, 0)
print(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not LINUX, reason="a subreaper and /proc are Linux's")
def test_a_helper_ends_itself_after_its_process_is_killed(tmp_path):
    """A helper running a query without a time limit ends itself, with the status of an
    orphaned helper (125), once the process that started it is killed (which cannot close
    the requests pipe first): it does not run on until someone kills it."""
    database = os.path.realpath(_database(tmp_path / "d.sqlite"))
    finished = subprocess.run(
        [sys.executable, "-c", ORPHAN_WATCH, database, RUNAWAY, ORPHANING],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert (finished.returncode, finished.stdout) == (0, "125\n"), finished.stderr


def test_the_facts_of_each_column_are_found_as_the_chunks_come_in(tmp_path):
    """Across three chunks: each column's types, and its bounds while every value is a number
    or every value a text (no NULL); the typed rows, once made, drop them with the driver values."""
    path = _large_database(tmp_path / "big" / "big.sqlite", 25_003)
    result = Databases(tmp_path).run("big", "SELECT * FROM t ORDER BY id")
    connection = sqlite3.connect(path)
    columns = list(zip(*connection.execute("SELECT * FROM t ORDER BY id")))
    connection.close()
    facts = result.driver_facts
    assert [found.types for found in facts] == [set(map(type, column)) for column in columns]
    expected = [
        (min(column), max(column)) if type(None) not in kinds and (kinds <= {int, float} or kinds == {str}) else None
        for column, kinds in ((column, set(map(type, column))) for column in columns)
    ]
    assert [found.bounds for found in facts] == expected
    assert [bounds is not None for bounds in expected] == [True, False, True, True, False, False, False]
    assert result.rows and result.driver_facts is None


def test_every_value_counts_towards_the_byte_limit_empty_texts_and_nulls_alike(tmp_path):
    """Every value counts 8 bytes (CELL_BYTES) and a text its length on top: many empty texts or blobs are refused as many NULLs are."""
    _database(tmp_path / "e" / "e.sqlite", "CREATE TABLE t (a);")
    databases = Databases(tmp_path, max_result_bytes=1000)
    message = "the query's result is larger than the limit of 1,000 bytes (--max-result-bytes raises it)"
    numbers = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows}) "
    for value in ("''", "x''", "NULL", "0"):
        query = numbers.format(rows=200) + f"SELECT {value}, {value} FROM n"
        assert databases.run("e", query).error == message
    # 62 rows of two values: 992 bytes; 'ab' 2 bytes more a row.
    assert len(databases.run("e", numbers.format(rows=62) + "SELECT '', NULL FROM n").rows) == 62
    assert databases.run("e", numbers.format(rows=62) + "SELECT 'ab', NULL FROM n").error == message
