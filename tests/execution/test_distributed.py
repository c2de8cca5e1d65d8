"""The Dask executor on a real LocalCluster of two worker processes: the report of a local run,
batches back in order, paths the workers can use, and a clear ClusterError for every way a
cluster can fail (bad address, no workers, a worker that cannot see the databases or dies)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import sqlite3
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from distributed import Client, LocalCluster

import answerkey.progress
from answerkey.execution import distributed as dask_executor
from answerkey.execution.distributed import ClusterError, DaskExecutor, as_typed, for_workers, in_order
from answerkey.execution.load import SqlInputs, SqlItem, load_inputs
from answerkey.execution.run import BATCH_SIZE, Batch, BatchItem, SqlOptions, make_batches, run_batch, run_sql
from answerkey.progress import PROGRESS_THRESHOLD

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sql"
# About a second in SQLite (gold and prediction both run it): a batch that finishes last.
SLOW = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000000) SELECT count(*) FROM c"
# Several seconds: a batch still running when its worker is killed or retired.
SLOWER = SLOW.replace("3000000", "12000000")


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of two worker processes for the module (a worker that dies is restarted
    by its nanny; the scheduler gives up on a task at the first worker that dies running it),
    and a client of the test's own."""
    local = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
        scheduler_kwargs={"allowed_failures": 0},
    )
    client = Client(local)
    yield SimpleNamespace(address=local.scheduler_address, client=client)
    client.close()
    local.close()


@pytest.fixture
def scheduler(cluster):
    """The module's cluster with both workers up (a test may have killed one)."""
    cluster.client.wait_for_workers(2, timeout=120)
    return cluster


@pytest.fixture(scope="module")
def databases(tmp_path_factory):
    """ROOT/<db_id>/<db_id>.sqlite for db_ids slow, a, b, c (each a table t of 1 and 2)."""
    root = tmp_path_factory.mktemp("cluster") / "databases"
    for db_id in ("slow", "a", "b", "c"):
        (root / db_id).mkdir(parents=True)
        with sqlite3.connect(root / db_id / f"{db_id}.sqlite") as db:
            db.executescript("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2);")
        db.close()
    return root


@pytest.fixture(scope="module")
def spider(tmp_path_factory):
    """The Spider example's inputs and databases (a copy: tests must not touch the examples)."""
    root = tmp_path_factory.mktemp("examples") / "spider"
    shutil.copytree(EXAMPLES / "spider", root)
    return root


def free_port() -> int:
    """A TCP port nothing listens on (just now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def slow_first_batches() -> list[Batch]:
    """A slow batch, then three quick ones on other databases, items numbered in input order."""
    items = [
        SqlItem("slow", "slow", SLOW, SLOW),
        SqlItem("a", "a", "SELECT n FROM t", "SELECT n FROM t"),
        SqlItem("b", "b", "SELECT n FROM t", "SELECT n + 1 FROM t"),
        SqlItem("c", "c", "SELECT n FROM t", None),
    ]
    return make_batches(items)


# ---------------------------------------------------------------- pure parts


def test_in_order_holds_back_early_results():
    """Results that come before their turn wait; each is yielded once every earlier one has come."""
    seen = []
    for value in in_order([(2, "c"), (0, "a"), (3, "d"), (1, "b")]):
        seen.append(value)
    assert seen == ["a", "b", "c", "d"]
    with pytest.raises(RuntimeError, match=r"^no result for batch 1 \(results came for later batches\)$"):
        list(in_order([(0, "a"), (2, "c")]))


def test_paths_are_sent_absolute_and_shown_as_typed(monkeypatch, tmp_path):
    """The workers get absolute paths (a URL as it is), and reasons show the path as the user typed it."""
    monkeypatch.chdir(tmp_path)
    remote = for_workers(SqlOptions("dbs/", cache="cache"))
    assert (remote.location, remote.cache) == (str(tmp_path / "dbs"), str(tmp_path / "cache"))
    url = "postgresql://eval@db.example:5432/?sslmode=require"
    assert for_workers(SqlOptions(url)).location == url
    absolute = str(tmp_path / "dbs")
    assert as_typed(f"no database 'x' (expected '{absolute}/x/x.sqlite')", absolute, "dbs/") == (
        "no database 'x' (expected 'dbs/x/x.sqlite')"
    )
    assert as_typed(f"no directory '{absolute}'", absolute, "./dbs") == "no directory './dbs'"
    assert as_typed("nothing to change", absolute, absolute) == "nothing to change"


def test_a_local_cluster_needs_a_worker():
    """DaskExecutor refuses no workers and a time-out that is not positive."""
    with pytest.raises(ValueError, match=r"^a local Dask cluster has at least one worker$"):
        DaskExecutor(workers=0)
    with pytest.raises(ValueError, match=r"^the connect time-out is a positive number of seconds$"):
        DaskExecutor("tcp://127.0.0.1:8786", connect_timeout=0)


def test_without_dask_the_error_says_how_to_install_it(monkeypatch):
    """With distributed not importable, the executor says to install the extra."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(
        ClusterError, match=r"^running on a Dask cluster needs the optional extra: pip install 'answerkey\[dask\]' \("
    ):
        list(DaskExecutor("tcp://127.0.0.1:8786").map([Batch("a", ())], SqlOptions(".")))


# ---------------------------------------------------------------- on the cluster


def test_the_spider_example_on_the_cluster_gives_the_local_report(scheduler, spider):
    """The Spider example run on two Dask workers writes the same report and table as one local process."""
    inputs = load_inputs(spider / "gold.sql", spider / "pred.sql")
    options = SqlOptions(str(spider / "database"))
    local = run_sql(inputs, options)
    remote = run_sql(inputs, options, executor=DaskExecutor(scheduler.address))
    assert json.dumps(remote.document()) == json.dumps(local.document())
    assert remote.summary_table() == local.summary_table()
    assert [result.item.id for result in remote.results] == [str(n) for n in range(12)]


def test_batches_come_back_in_batch_order_when_a_later_one_finishes_first(scheduler, databases):
    """The slow first batch's outcomes come first, then the quick ones', each as run_batch gives them."""
    batches = slow_first_batches()
    options = SqlOptions(str(databases), engine="sqlite")
    streamed = list(DaskExecutor(scheduler.address).map(batches, options))
    assert [[outcome.index for outcome in outcomes] for outcomes in streamed] == [[0], [1], [2], [3]]
    assert [[outcome.verdict for outcome in outcomes] for outcomes in streamed] == [
        ["correct"],
        ["correct"],
        ["incorrect"],
        ["incorrect"],
    ]
    assert streamed == [run_batch(batch, options) for batch in batches]


def test_the_progress_bar_counts_batches_as_they_come_back(scheduler, databases, monkeypatch, fake_terminal):
    """On a terminal, a long run on the cluster draws its bar from the first batch back to the last."""
    monkeypatch.setattr(sys, "stderr", fake_terminal)
    monkeypatch.setattr(answerkey.progress, "_REDRAW", 0.0)  # every batch back is drawn, however soon
    chosen = [SqlItem(str(n), "abc"[n % 3], "SELECT n FROM t", "SELECT n FROM t") for n in range(PROGRESS_THRESHOLD)]
    inputs = SqlInputs("answerkey", "g", "p", chosen)
    run_sql(inputs, SqlOptions(str(databases), metrics=()), executor=DaskExecutor(scheduler.address), quiet=False)
    first = f"sql [{'#' * (30 * BATCH_SIZE // PROGRESS_THRESHOLD)}"
    assert f"] {BATCH_SIZE}/{PROGRESS_THRESHOLD}" in fake_terminal.text
    assert fake_terminal.text.split("\r")[2].startswith(first)  # after the first drawing, 0/N
    assert f"sql [{'#' * 30}] {PROGRESS_THRESHOLD}/{PROGRESS_THRESHOLD}" in fake_terminal.text


def test_relative_paths_work_on_workers_elsewhere(scheduler, databases, monkeypatch, tmp_path):
    """A relative --db and --cache (the workers started in another directory) give the local
    report, reasons with the path as typed, and gold results cached where the user said."""
    shutil.copytree(databases, tmp_path / "dbs")
    monkeypatch.chdir(tmp_path)
    inputs = SqlInputs(
        "answerkey",
        "gold.jsonl",
        "predictions.jsonl",
        [SqlItem("a", "a", "SELECT n FROM t", "SELECT n FROM t"), SqlItem("gone", "absent", "SELECT 1", "SELECT 1")],
    )
    remote = run_sql(inputs, SqlOptions("dbs", cache="cache"), executor=DaskExecutor(scheduler.address))
    local = run_sql(inputs, SqlOptions("dbs"))
    assert json.dumps(remote.document()) == json.dumps(local.document())
    assert remote.results[1].outcome.reason == (
        "no database 'absent' (expected 'dbs/absent/absent.sqlite' or 'dbs/absent.sqlite')"
    )
    assert (remote.cache_hits, remote.cache_misses) == (0, 1)
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 1


def test_a_worker_that_cannot_see_the_databases_stops_the_run(scheduler, tmp_path):
    """Databases or a cache directory a worker cannot use: a ClusterError naming the worker, before any item."""
    batches = [Batch("a", (BatchItem(0, "SELECT 1", "SELECT 1"),))]
    with pytest.raises(ClusterError) as caught:
        list(DaskExecutor(scheduler.address).map(batches, SqlOptions(str(tmp_path / "elsewhere"), engine="sqlite")))
    message = str(caught.value)
    assert message.startswith("the Dask worker tcp://127.0.0.1:")
    assert message.endswith(
        f" cannot open the databases: no directory '{tmp_path / 'elsewhere'}' (--db names a directory of databases "
        "or a postgresql:// URL); every worker must see the databases at the same absolute path as this machine "
        "(a shared filesystem) or reach their URL"
    )
    (tmp_path / "dbs").mkdir()
    (tmp_path / "taken").write_text("a file, not a directory", encoding="utf-8")
    options = SqlOptions(str(tmp_path / "dbs"), engine="sqlite", cache=str(tmp_path / "taken"))
    with pytest.raises(
        ClusterError,
        match=r"^the Dask worker tcp://127\.0\.0\.1:\d+ cannot create the cache directory '.*taken': File exists; every worker",
    ):
        list(DaskExecutor(scheduler.address).map(batches, options))


def test_workers_with_another_answerkey_are_refused(scheduler, databases, monkeypatch):
    """A worker whose answerkey is not this one's version: a ClusterError naming it and the install command."""
    monkeypatch.setattr(dask_executor, "__version__", "9.9.9")
    with pytest.raises(
        ClusterError,
        match=r"^the Dask worker tcp://127\.0\.0\.1:\d+ has answerkey \S+; every worker needs answerkey 9\.9\.9 \(pip install 'answerkey\[dask\]==9\.9\.9'\)$",
    ):
        list(DaskExecutor(scheduler.address).map(slow_first_batches()[1:], SqlOptions(str(databases))))


def test_stopping_the_stream_cancels_the_work_and_closes_the_client(scheduler, databases, within):
    """Ctrl-C in the middle of a run (or a consumer that stops): the tasks not done are cancelled
    and the executor's client leaves the scheduler."""
    client = scheduler.client

    def state(dask_scheduler):
        return len(dask_scheduler.tasks), len(dask_scheduler.clients)

    idle = client.run_on_scheduler(state)
    batches = [*slow_first_batches()[1:], *slow_first_batches()[:1] * 3]
    stream = DaskExecutor(scheduler.address).map(batches, SqlOptions(str(databases), engine="sqlite"))
    assert [outcome.index for outcome in next(stream)] == [1]
    with pytest.raises(KeyboardInterrupt):
        stream.throw(KeyboardInterrupt())
    with within(60):
        while client.run_on_scheduler(state) != idle:
            time.sleep(0.05)


def test_a_worker_that_dies_is_a_cluster_error(scheduler, databases, within):
    """A worker killed while it runs a batch (and the scheduler retries no more): a ClusterError
    naming the batch and the worker, not a hang."""
    client = scheduler.client
    killed = []

    def kill_the_busy_worker():
        while not killed:
            busy = [worker for worker, keys in client.processing().items() if keys]
            if busy:
                pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
                os.kill(pid, signal.SIGKILL)
                killed.append(busy[0])
            time.sleep(0.05)

    batch = Batch("slow", (BatchItem(0, SLOWER, SLOWER),))
    killer = threading.Thread(target=kill_the_busy_worker, daemon=True)
    killer.start()
    with within(120), pytest.raises(ClusterError) as caught:
        list(DaskExecutor(scheduler.address).map([batch], SqlOptions(str(databases), engine="sqlite", timeout=120)))
    killer.join(timeout=10)
    assert str(caught.value) == (
        "a Dask worker died running the batch of 1 item of db_id 'slow', as often as the scheduler retries it "
        f"(1 time; the last was {killed[0]})"
    )


def test_a_cluster_that_loses_every_worker_is_a_cluster_error(databases, within):
    """Every worker retired while a batch runs, none coming back (the scheduler would wait for
    one to run the batch again): a ClusterError after the connect time-out, not a hang."""
    shrinking = LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
    )
    client = Client(shrinking)

    def retire_every_worker():
        while not any(client.processing().values()):
            time.sleep(0.05)
        shrinking.scale(0)

    batch = Batch("slow", (BatchItem(0, SLOWER, SLOWER),))
    threading.Thread(target=retire_every_worker, daemon=True).start()
    try:
        with within(120), pytest.raises(ClusterError) as caught:
            list(DaskExecutor(shrinking.scheduler_address, connect_timeout=1).map([batch], SqlOptions(str(databases))))
    finally:
        client.close()
        shrinking.close()
    assert (
        str(caught.value) == f"the Dask cluster at {shrinking.scheduler_address} has lost every worker (none for 1 s)"
    )


# ---------------------------------------------------------------- addresses that are no cluster


def silent_server():
    """A TCP server that accepts and never says a word; its address."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    return server, f"tcp://127.0.0.1:{server.getsockname()[1]}"


def chatty_server():
    """A TCP server that answers every connection as an HTTP server would; its address."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def answer():
        while True:
            connection, _ = server.accept()
            with connection:
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=answer, daemon=True).start()
    return f"tcp://127.0.0.1:{server.getsockname()[1]}"


def test_addresses_where_no_scheduler_answers(scheduler, databases, within):
    """A refused port, a malformed address, a worker, a server that says nothing or speaks HTTP:
    each a ClusterError in one line, within the connect time-out."""
    options = SqlOptions(str(databases))
    batches = slow_first_batches()[1:]

    def failure(address):
        with within(30), pytest.raises(ClusterError) as caught:
            list(DaskExecutor(address, connect_timeout=2).map(batches, options))
        return str(caught.value)

    port = free_port()
    assert (
        failure(f"tcp://127.0.0.1:{port}")
        == f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: Connection refused"
    )
    assert (
        failure("bogus::")
        == "bad Dask scheduler address 'bogus::': invalid address 'bogus::'; maybe: ipv6 needs brackets like [::1]"
    )
    worker = next(iter(scheduler.client.scheduler_info()["workers"]))
    assert failure(worker) == f"{worker} is a Dask worker, not a scheduler"
    server, silent = silent_server()
    with server:
        assert failure(silent) == f"no Dask scheduler answered at {silent} within 2 s"
    chatty = chatty_server()
    assert failure(chatty) == f"no Dask scheduler answers at {chatty}: it does not speak Dask's protocol"


def test_a_cluster_without_workers_is_a_cluster_error(databases, within):
    """A scheduler with no workers: a ClusterError after the connect time-out, not a hang."""
    empty = LocalCluster(n_workers=0, processes=False, dashboard_address=":0", silence_logs=logging.ERROR)
    executor = DaskExecutor(empty.scheduler_address, connect_timeout=1)
    try:
        with within(30), pytest.raises(ClusterError) as caught:
            list(executor.map(slow_first_batches(), SqlOptions(str(databases))))
    finally:
        empty.close()
    assert str(caught.value) == f"the Dask cluster at {empty.scheduler_address} has no workers (waited 1 s)"
