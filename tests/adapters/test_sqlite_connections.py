"""The connections a SQLite helper keeps open between queries (``ReadOnlyConnections``): kept
from one message to the next and after a query SQLite refuses, never for a file that has
changed or been replaced, never after a query broken off, and at most ``size`` of them."""

from __future__ import annotations

import os
import sqlite3
import threading

import pytest

from answerkey.adapters._sqlite_read import DEFAULT_TEXT_DECODING, ReadOnlyConnections, execute_request
from answerkey.adapters.sql import run_file, run_file_each, stop_query_processes

RUNAWAY = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"


def _database(path, names):
    """A database at ``path`` whose table ``item`` holds ``names``; its real path."""
    path.parent.mkdir(exist_ok=True)
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE item (name TEXT)")
        connection.executemany("INSERT INTO item VALUES (?)", [(name,) for name in names])
    connection.close()
    return os.path.realpath(path)


def _names(result):
    assert result.error is None, result.error
    return sorted(row[0] for row in zip(*result.driver_columns))


@pytest.fixture(autouse=True)
def fresh_helpers():
    """Each test starts and ends with no idle helper (so none keeps a connection from another test)."""
    stop_query_processes()
    yield
    stop_query_processes()


def test_a_database_replaced_between_two_queries_is_read_anew(tmp_path):
    """The helper that read a file reads its replacement, not the pages it kept of the old one."""
    real = _database(tmp_path / "shop" / "shop.sqlite", ["pen", "ink"])
    assert _names(run_file(real, "'shop'", "SELECT name FROM item")) == ["ink", "pen"]
    other = _database(tmp_path / "new" / "shop.sqlite", ["cap"])
    os.replace(other, real)
    assert _names(run_file(real, "'shop'", "SELECT name FROM item")) == ["cap"]


def test_a_database_rewritten_in_place_between_two_queries_is_read_anew(tmp_path):
    """A file whose bytes changed (same path, same inode) is opened again too."""
    real = _database(tmp_path / "shop" / "shop.sqlite", ["pen", "ink"])
    assert _names(run_file(real, "'shop'", "SELECT name FROM item")) == ["ink", "pen"]
    with sqlite3.connect(real) as connection:
        connection.execute("DELETE FROM item WHERE name = 'ink'")
        connection.execute("INSERT INTO item VALUES ('cap'), ('lid')")
    connection.close()
    assert _names(run_file(real, "'shop'", "SELECT name FROM item")) == ["cap", "lid", "pen"]


def test_a_refused_query_leaves_the_next_ones_their_rows(tmp_path):
    """After a syntax error, a missing column and a write the authorizer denies, the queries
    after them on the same connection read what they read alone."""
    real = _database(tmp_path / "shop" / "shop.sqlite", ["pen", "ink"])
    queries = [
        "SELEC name FROM item",
        "SELECT name",
        "SELECT nam FROM item",
        "DELETE FROM item",
        "SELECT name FROM item",
    ]
    results = list(run_file_each(real, "'shop'", queries))
    assert [result.error for result in results[:4]] == [
        'near "SELEC": syntax error',
        "no such column: name",
        "no such column: nam",
        "not authorized",
    ]
    assert _names(results[4]) == ["ink", "pen"]
    assert _names(run_file(real, "'shop'", "SELECT name FROM item WHERE name < 'k'")) == ["ink"]


def test_connections_are_kept_after_refusals_and_dropped_after_a_time_out(tmp_path):
    """In this process (no helper): the connection of a query that read to the end, or that
    SQLite refused, is kept for the next; that of a query stopped at its time limit is closed."""
    real = _database(tmp_path / "shop" / "shop.sqlite", ["pen"])
    connections = ReadOnlyConnections(isolated=False)
    request = (real, "SELECT name FROM item", 30.0, 100, 1 << 20, DEFAULT_TEXT_DECODING)
    assert execute_request(request, isolated=False, connections=connections)[2] is None
    kept = connections.take(real, 1 << 20)
    connections.give_back(real, 1 << 20, kept)
    refused = (real, "SELECT nope FROM item", 30.0, 100, 1 << 20, DEFAULT_TEXT_DECODING)
    assert execute_request(refused, isolated=False, connections=connections)[2] == "no such column: nope"
    assert connections.take(real, 1 << 20) is kept
    connections.give_back(real, 1 << 20, kept)
    slow = (real, RUNAWAY, 0.2, 100, 1 << 20, DEFAULT_TEXT_DECODING)
    assert execute_request(slow, isolated=False, connections=connections)[2] == (
        "the query ran past the time limit of 0.2 s"
    )
    with pytest.raises(sqlite3.ProgrammingError):
        kept.execute("SELECT 1")  # closed
    assert connections.close_others() is False
    connections.close()


def test_at_most_size_connections_are_kept_the_least_recently_used_closed_first(tmp_path):
    """A third database's connection closes the one used longest ago; ``close_others`` closes the rest."""
    paths = [_database(tmp_path / name / f"{name}.sqlite", [name]) for name in ("a", "b", "c")]
    connections = ReadOnlyConnections(isolated=False, size=2)
    opened = {}
    for path in paths[:2]:
        opened[path] = connections.take(path, 1000)
        connections.give_back(path, 1000, opened[path])
    again = connections.take(paths[0], 1000)  # a is now the most recently used
    assert again is opened[paths[0]]
    connections.give_back(paths[0], 1000, again)
    opened[paths[2]] = connections.take(paths[2], 1000)
    connections.give_back(paths[2], 1000, opened[paths[2]])
    with pytest.raises(sqlite3.ProgrammingError):
        opened[paths[1]].execute("SELECT 1")
    assert opened[paths[0]].execute("SELECT name FROM item").fetchall() == [("a",)]
    assert connections.take(paths[1], 1000) is not opened[paths[1]]
    assert connections.close_others() is True
    for path in (paths[0], paths[2]):
        with pytest.raises(sqlite3.ProgrammingError):
            opened[path].execute("SELECT 1")


def test_a_byte_limit_of_its_own_takes_a_connection_of_its_own(tmp_path):
    """Connections are kept by database and byte limit: SQLite's length limit is set per connection."""
    real = _database(tmp_path / "shop" / "shop.sqlite", ["pen"])
    connections = ReadOnlyConnections(isolated=False)
    small = connections.take(real, 1000)
    connections.give_back(real, 1000, small)
    assert connections.take(real, 2000) is not small
    assert connections.take(real, 1000) is small
    connections.close()


def test_threads_each_get_their_rows_from_kept_connections(tmp_path):
    """Threads running queries side by side (each in a helper of its own) read the right rows."""
    reals = [_database(tmp_path / name / f"{name}.sqlite", [name, name + "2"]) for name in ("a", "b", "c")]
    wrong = []

    def run(path: str) -> None:
        for _ in range(20):
            result = run_file(path, "'x'", "SELECT name FROM item")
            name = os.path.basename(path).split(".")[0]
            if _names(result) != [name, name + "2"]:
                wrong.append(path)

    threads = [threading.Thread(target=run, args=(path,)) for path in reals * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_a_file_is_looked_at_by_the_first_query_on_it_of_each_message(tmp_path):
    """Within a message a kept connection is taken again as it is (the database is at rest
    while a message reads it); the next message's first query looks at the file again."""
    real = _database(tmp_path / "shop" / "shop.sqlite", ["pen"])
    connections = ReadOnlyConnections(isolated=False)
    connections.new_message()
    first = connections.take(real, 1000)
    connections.give_back(real, 1000, first)
    os.replace(_database(tmp_path / "new" / "shop.sqlite", ["cap"]), real)
    assert connections.take(real, 1000) is first
    connections.give_back(real, 1000, first)
    connections.new_message()
    again = connections.take(real, 1000)
    assert again is not first
    assert again.execute("SELECT name FROM item").fetchall() == [("cap",)]
    connections.give_back(real, 1000, again)
    connections.close()


def test_a_kept_connection_reads_text_as_each_request_says(tmp_path):
    """One connection kept across requests of different text decodings (the presets' D4):
    each request's text that is not UTF-8 is read its own way, whatever the one before did."""
    real = _database(tmp_path / "shop" / "shop.sqlite", [])
    with sqlite3.connect(real) as connection:
        connection.execute("INSERT INTO item VALUES (CAST(X'4a6f6520ff5368617270' AS TEXT))")
    connection.close()
    connections = ReadOnlyConnections(isolated=False)
    query = "SELECT name FROM item"
    answers = []
    for decoding in ("ignore", "strict", "replace", "ignore"):
        _, rows, error, _ = execute_request(
            (real, query, 30.0, 100, 1 << 20, decoding), isolated=False, connections=connections
        )
        answers.append(error if error is not None else rows[0][0])
    assert answers[0] == "Joe Sharp"
    assert answers[1].startswith("Could not decode to UTF-8 column 'name'")
    assert answers[2] == "Joe \ufffdSharp"
    assert answers[3] == "Joe Sharp"
