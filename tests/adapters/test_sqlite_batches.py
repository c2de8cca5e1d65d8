"""Queries sent to the SQLite helper in one batch (``run_file_each``, ``SQLiteEngine.run_each``):
every query keeps its own limits, a helper that ends inside one leaves the next ones to
another, and a run's items are judged as when each query ran alone."""

from __future__ import annotations

import os
import select
import signal
import sqlite3
import sys
import time

import pytest

from answerkey.adapters.sql import run_file_each, stop_query_processes
from answerkey.execution.load import SqlInputs, SqlItem
from answerkey.execution.run import SqlOptions, run_sql
from answerkey.limits import MAX_QUERY_CHARS
from answerkey.model import Number
from child_processes import live_children as _children

RUNAWAY = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
# One function call that runs for tens of seconds, in which SQLite never looks at its interrupt flag.
LIKE_BOMB = "SELECT printf('%.*c', 2000000, 'a') LIKE ('%' || printf('%.*c', 20000, 'a') || 'b')"
LINUX = sys.platform.startswith("linux")


@pytest.fixture
def shop(tmp_path):
    """``ROOT/shop/shop.sqlite``: three items; its real path."""
    path = tmp_path / "shop" / "shop.sqlite"
    path.parent.mkdir()
    with sqlite3.connect(path) as connection:
        connection.executescript(
            "CREATE TABLE item (name TEXT, qty INTEGER); INSERT INTO item VALUES ('pen', 10), ('ink', 4), ('cap', 7);"
        )
    connection.close()
    return os.path.realpath(path)


def _rows(result):
    return None if result.error is not None else result.rows


def test_a_batch_answers_each_query_in_order_with_its_own_error(shop):
    """Results come in the order of the queries; a failing or refused query is an error in its place."""
    queries = ["SELECT count(*) FROM item", "SELECT nope FROM item", "x" * (MAX_QUERY_CHARS + 1), "SELECT 2"]
    results = list(run_file_each(shop, "'shop'", queries))
    assert [result.error for result in results] == [
        None,
        "no such column: nope",
        f"the query is longer than {MAX_QUERY_CHARS:,} characters (it has {MAX_QUERY_CHARS + 1:,})",
        None,
    ]
    assert [_rows(results[0]), _rows(results[3])] == [((Number.of(3),),), ((Number.of(2),),)]


def test_the_row_and_byte_limits_hold_for_each_query_of_a_batch(shop):
    """A query past a limit is that limit's error; the queries around it are whole."""
    queries = ["SELECT name FROM item WHERE qty > 5", "SELECT name FROM item", "SELECT 1"]
    assert [result.error for result in run_file_each(shop, "'shop'", queries, max_rows=2)] == [
        None,
        "the query returned more than 2 rows",
        None,
    ]
    queries = ["SELECT 1", "SELECT zeroblob(1000)", "SELECT 2"]
    errors = [result.error for result in run_file_each(shop, "'shop'", queries, max_result_bytes=100)]
    assert errors[0] is None and errors[2] is None
    assert errors[1].startswith("the query made or read a value or table row larger than the limit of 100 bytes")


def test_queries_past_the_time_limit_in_a_batch_leave_the_others_their_answers(shop):
    """A runaway the interrupt stops, and one stuck inside one function call (its helper ends
    itself), are each past the time limit; every other query of the batch is answered."""
    queries = ["SELECT 1", LIKE_BOMB, "SELECT 2", RUNAWAY, "SELECT count(*) FROM item"]
    results = list(run_file_each(shop, "'shop'", queries, timeout=0.5))
    late = "the query ran past the time limit of 0.5 s"
    assert [result.error for result in results] == [None, late, None, late, None]
    assert [_rows(results[i]) for i in (0, 2, 4)] == [((Number.of(1),),), ((Number.of(2),),), ((Number.of(3),),)]


@pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")
def test_a_helper_killed_inside_a_batch_costs_only_the_query_it_was_running(shop):
    """The helper killed from outside while it runs the second query: that query says so,
    the third runs in another helper."""
    stop_query_processes()
    others = _children()
    results = run_file_each(shop, "'shop'", ["SELECT 1", RUNAWAY, "SELECT 3"], timeout=60)
    assert _rows(next(results)) == ((Number.of(1),),)
    (helper,) = _children() - others  # answering the runaway now
    ended = os.pidfd_open(helper)
    try:
        os.kill(helper, signal.SIGKILL)
        assert select.select([ended], [], [], 120)[0], "the killed helper did not end"  # a guard
    finally:
        os.close(ended)
    assert next(results).error == "the process running the query ended unexpectedly (signal 9)"
    assert _rows(next(results)) == ((Number.of(3),),)


@pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")
def test_a_batch_closed_early_ends_its_helper(shop):
    """Results not taken: the helper still running them is ended, and the next query runs."""
    stop_query_processes()
    others = _children()
    results = run_file_each(shop, "'shop'", ["SELECT 1", RUNAWAY], timeout=60)
    assert _rows(next(results)) == ((Number.of(1),),)
    (helper,) = _children() - others
    results.close()  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60  # a guard, not a measure
    while helper in _children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert helper not in _children()
    assert _rows(next(run_file_each(shop, "'shop'", ["SELECT 4"]))) == ((Number.of(4),),)


def test_a_run_judges_the_items_of_a_batch_around_a_prediction_past_the_time_limit(shop):
    """One prediction stuck inside a function call is incorrect, past the time limit; the items
    before and after it in the same batch are judged on their own results."""
    items = [
        SqlItem("before", "shop", "SELECT name FROM item WHERE qty > 5", "SELECT name FROM item WHERE 5 < qty"),
        SqlItem("stuck", "shop", "SELECT count(*) FROM item", LIKE_BOMB),
        SqlItem("after", "shop", "SELECT max(qty) FROM item", "SELECT min(qty) FROM item"),
    ]
    inputs = SqlInputs("answerkey", "gold.jsonl", "predictions.jsonl", items)
    root = os.path.dirname(os.path.dirname(shop))
    found = {result.item.id: result.outcome for result in run_sql(inputs, SqlOptions(root, timeout=0.5)).results}
    assert [(name, found[name].verdict) for name in ("before", "stuck", "after")] == [
        ("before", "correct"),
        ("stuck", "incorrect"),
        ("after", "incorrect"),
    ]
    assert found["stuck"].reason == "the predicted query failed: the query ran past the time limit of 0.5 s"


@pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")
def test_a_batch_sent_to_a_helper_killed_while_idle_goes_to_another(shop):
    """The idle helper killed from outside before a batch: every query of the batch is answered."""
    stop_query_processes()
    others = _children()
    assert _rows(next(run_file_each(shop, "'shop'", ["SELECT 0"]))) == ((Number.of(0),),)
    (helper,) = _children() - others
    ended = os.pidfd_open(helper)
    try:
        os.kill(helper, signal.SIGKILL)
        assert select.select([ended], [], [], 120)[0], "the killed helper did not end"  # a guard
    finally:
        os.close(ended)
    results = list(run_file_each(shop, "'shop'", ["SELECT 1", "SELECT count(*) FROM item"]))
    assert [_rows(result) for result in results] == [((Number.of(1),),), ((Number.of(3),),)]
