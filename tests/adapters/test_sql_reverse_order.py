"""`run_file(..., reverse_unordered=True)`, the run `sql --probe-gold` makes to see whether a gold
depends on the rows' storage order: tables read in reverse where the order is free, on a
connection of its own, read-only and within the limits like every run."""

import hashlib
import sqlite3
from pathlib import Path

import pytest

from answerkey.adapters.sql import run_file

RUNAWAY = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"


@pytest.fixture
def database(tmp_path):
    """A SQLite file with scores(name, points): a, b, c in that storage order."""
    path = tmp_path / "league.sqlite"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE scores (name TEXT, points INTEGER)")
    connection.executemany("INSERT INTO scores VALUES (?, ?)", [("a", 3), ("b", 2), ("c", 1)])
    connection.commit()
    connection.close()
    return str(path)


def names(result):
    assert result.error is None, result.error
    return [row[0].text for row in result.rows]


def test_unordered_rows_come_in_reverse_and_ordered_ones_do_not(database):
    """Reversed: an unordered scan comes back last row first, an ORDER BY keeps its order; the
    next plain run reads in storage order again (the pragma stays on its own connection)."""
    query = "SELECT name FROM scores"
    assert names(run_file(database, "'league'", query, reverse_unordered=True)) == ["c", "b", "a"]
    ordered = "SELECT name FROM scores ORDER BY points DESC"
    assert names(run_file(database, "'league'", ordered, reverse_unordered=True)) == ["a", "b", "c"]
    assert names(run_file(database, "'league'", query)) == ["a", "b", "c"]


@pytest.mark.parametrize(
    "query",
    ["DELETE FROM scores", "PRAGMA reverse_unordered_selects = OFF", "ATTACH 'x.sqlite' AS x", "CREATE TABLE t (a)"],
)
def test_a_reversed_run_still_only_reads(database, query):
    """Writes, DDL, ATTACH and pragmas are refused on the reversed run too; the file's bytes
    do not change."""
    before = hashlib.sha256(Path(database).read_bytes()).hexdigest()
    assert run_file(database, "'league'", query, reverse_unordered=True).error is not None
    assert hashlib.sha256(Path(database).read_bytes()).hexdigest() == before


def test_a_reversed_run_keeps_the_limits(database):
    """The time and row limits hold as for any run."""
    assert (
        run_file(database, "'league'", RUNAWAY, timeout=0.5, reverse_unordered=True).error
        == "the query ran past the time limit of 0.5 s"
    )
    assert (
        run_file(database, "'league'", "SELECT name FROM scores", max_rows=2, reverse_unordered=True).error
        == "the query returned more than 2 rows"
    )
