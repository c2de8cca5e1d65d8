"""A SQLite helper started ahead of the first query (``start_query_process``): it starts while
this process does other work, the first query waits for it, and one that never starts is
killed after ``_START_WAIT`` and the queries run in this process."""

from __future__ import annotations

import os
import sqlite3
import sys
import time

import pytest

from answerkey.adapters import _sqlite_processes
from answerkey.adapters.sql import run_file_each, start_query_process, stop_query_processes
from answerkey.model import Number
from child_processes import live_children as _children

LINUX = sys.platform.startswith("linux")
pytestmark = pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")


@pytest.fixture
def shop(tmp_path):
    """``ROOT/shop/shop.sqlite``: three items; its real path."""
    path = tmp_path / "shop" / "shop.sqlite"
    path.parent.mkdir()
    with sqlite3.connect(path) as connection:
        connection.executescript("CREATE TABLE item (qty INTEGER); INSERT INTO item VALUES (10), (4), (7);")
    connection.close()
    return os.path.realpath(path)


def _values(results):
    return [None if result.error is not None else result.rows for result in results]


def test_the_helper_started_ahead_answers_the_first_queries(shop):
    """The helper started ahead is the one the first batch goes to: no other is started."""
    stop_query_processes()
    others = _children()
    start_query_process()
    (helper,) = _children() - others
    start_query_process()  # one is idle already: nothing more starts
    assert _children() - others == {helper}
    results = list(run_file_each(shop, "'shop'", ["SELECT count(*) FROM item", "SELECT max(qty) FROM item"]))
    assert _values(results) == [((Number.of(3),),), ((Number.of(10),),)]
    assert _children() - others == {helper}


def test_a_helper_started_ahead_and_never_asked_ends_at_once_when_stopped():
    """Stopping the helpers does not wait for one that was never asked anything: it is ended."""
    stop_query_processes()
    others = _children()
    start_query_process()
    (helper,) = _children() - others
    began = time.monotonic()
    stop_query_processes()
    assert helper not in _children()
    assert time.monotonic() - began < 30  # a guard against a hang, not a measure


def test_a_helper_that_does_not_start_is_killed_and_the_queries_run_here(shop, tmp_path, monkeypatch):
    """A helper that never sends its ready message is killed after ``_START_WAIT`` seconds of
    waiting for it; the queries run in this process, with the same results, and no other
    helper is started."""
    silent = tmp_path / "silent-python"
    silent.write_text("#!/bin/sh\nexec sleep 600\n")
    silent.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(silent))
    monkeypatch.setattr(_sqlite_processes, "_START_WAIT", 1.0)
    monkeypatch.setattr(_sqlite_processes.STATE, "processes", _sqlite_processes.QueryProcesses())
    others = _children()
    start_query_process()
    (helper,) = _children() - others
    began = time.monotonic()
    results = list(run_file_each(shop, "'shop'", ["SELECT count(*) FROM item", "SELECT min(qty) FROM item"]))
    waited = time.monotonic() - began
    assert _values(results) == [((Number.of(3),),), ((Number.of(4),),)]
    assert helper not in _children()
    assert _children() - others == set()
    assert 1.0 <= waited < 30  # killed once the wait was over, not before (the upper bound: a guard)
