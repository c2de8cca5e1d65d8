"""A SQLite helper whose requests pipe closes ends at once, cleanly (status 0), after
answering every query sent to it: the replies it sent are all there, and it does not linger
(issue 25: it skips the interpreter's teardown, which its owner waited for at every exit)."""

from __future__ import annotations

import marshal
import os
import sqlite3
import time

from answerkey.adapters._sqlite_processes import _MARSHAL_VERSION, QueryProcess


def test_a_helper_ends_with_status_0_once_its_requests_pipe_closes(tmp_path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as connection:
        connection.executescript("CREATE TABLE item (qty INTEGER); INSERT INTO item VALUES (10), (4), (7);")
    connection.close()
    request = (os.path.realpath(path), "SELECT sum(qty) FROM item", 30.0, 100, 1 << 20, "replace")
    process = QueryProcess()
    process.wait_ready()
    process.send(marshal.dumps([request, request], _MARSHAL_VERSION))
    chunks: list[object] = []
    answers = [process.reply(60.0, chunks.append) for _ in range(2)]
    assert None not in answers  # the helper answered both
    assert [order for _, order in answers] == [None, None]  # no outer ORDER BY asked for
    replies = [reply for reply, _ in answers]
    assert [reply[0] for reply in replies] == [("sum(qty)",), ("sum(qty)",)]
    assert [reply[2] for reply in replies] == [None, None]
    assert chunks == [([(21,)], 1), ([(21,)], 1)]
    began = time.monotonic()
    assert process.end() == 0
    assert process.process.returncode == 0
    assert time.monotonic() - began < 30  # a guard against a hang, not a measure
