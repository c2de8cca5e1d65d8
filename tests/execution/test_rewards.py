"""``ExecutionJudge``: the verdicts of ``answerkey sql``, one prediction at a time, within its
limits and guarantees (read-only, a time limit that holds, helpers that die or are killed),
from threads and processes, with the gold results kept."""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from answerkey.adapters.sql import stop_query_processes
from answerkey.execution import ExecutionJudge, Judgement
from answerkey.execution.semantics import SEMANTICS
from child_processes import live_children as children

REPO = Path(__file__).resolve().parents[2]
SPIDER = REPO / "examples" / "sql" / "spider"
EXAMPLE = REPO / "examples" / "rewards" / "grpo_loop.py"
LINUX = sys.platform.startswith("linux")
# A loop of SQLite steps that never ends (the interrupt stops it), and one function call that
# runs for tens of seconds without looking at the interrupt (only killing its helper stops it).
RUNAWAY = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
LIKE_BOMB = "SELECT printf('%.*c', 2000000, 'a') LIKE ('%' || printf('%.*c', 20000, 'a') || 'b')"


@pytest.fixture
def shop(tmp_path):
    """A Spider-layout root with one database, ``shop``: three items."""
    root = tmp_path / "databases"
    (root / "shop").mkdir(parents=True)
    connection = sqlite3.connect(root / "shop" / "shop.sqlite")
    connection.executescript(
        "CREATE TABLE item (name TEXT, price REAL, qty INTEGER);"
        "INSERT INTO item VALUES ('pen', 1.5, 10), ('ink', 7.25, 2), ('cap', 2.0, 10);"
    )
    connection.close()
    return root


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` with the SHA-256 of its bytes."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def has_open(pid: int, path: str) -> bool:
    """Whether the process ``pid`` has the file ``path`` open."""
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") == path for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:  # a descriptor closed while looked at, or the process ended
        return False


def kill_and_wait(pid: int) -> None:
    """Kill ``pid`` with SIGKILL and wait until it has ended."""
    ended = os.pidfd_open(pid)
    try:
        os.kill(pid, signal.SIGKILL)
        assert select.select([ended], [], [], 120)[0], "the killed helper did not end"  # a guard, not a measure
    finally:
        os.close(ended)


# ------------------------------------------------------------------ the verdicts of answerkey sql


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_verdicts_and_reasons_are_those_of_answerkey_sql(run_cli, tmp_path, semantics):
    """On the Spider example (a db_id with three test-suite databases, DISTINCT that
    test-suite removes, a DROP, a misspelt column), each judgement is the verdict and reason
    ``answerkey sql --semantics S`` reports for the item."""
    root = tmp_path / "spider"
    shutil.copytree(SPIDER, root)
    report = tmp_path / "report.json"
    result = run_cli(
        "sql", root / "gold.sql", root / "pred.sql", "--db", root / "database", "--semantics", semantics,
        "--metrics", "none", "--json", report, "-q",
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    items = json.loads(report.read_text(encoding="utf-8"))["items"]
    golds = (root / "gold.sql").read_text(encoding="utf-8").splitlines()
    predictions = (root / "pred.sql").read_text(encoding="utf-8").splitlines()
    assert len(items) == len(golds) == len(predictions) == 12
    with ExecutionJudge(root / "database", semantics=semantics) as judge:
        judged = [
            judge.judge(db_id, gold, predicted)
            for (gold, db_id), predicted in zip((line.split("\t") for line in golds), predictions)
        ]
    assert [(j.verdict, j.reason) for j in judged] == [(item["verdict"], item["reason"]) for item in items]
    assert {j.verdict for j in judged} == {"correct", "incorrect"}
    assert [j.database for j in judged] == [item["database"] for item in items]


def test_a_judgement_says_how_test_suite_ran_the_queries(shop):
    """test-suite runs the queries as its script rewrites them (DISTINCT removed), and says so."""
    with ExecutionJudge(shop, semantics="test-suite") as judge:
        judged = judge.judge("shop", "SELECT qty FROM item", "SELECT DISTINCT qty FROM item")
    assert judged == Judgement(
        True,
        "same bag of rows (queries run with DISTINCT removed, as test-suite-sql-eval's default)",
        "test-suite",
    )


def test_an_item_that_cannot_be_judged_is_an_error_not_an_exception(shop):
    """A failing gold, a db_id naming no database or a malformed one: ``error``, reward 0."""
    with ExecutionJudge(shop) as judge:
        failing = judge.judge("shop", "SELECT nope FROM item", "SELECT 1")
        missing = judge.judge("nowhere", "SELECT 1", "SELECT 1")
        malformed = judge.judge("../shop", "SELECT 1", "SELECT 1")
    assert (failing.verdict, failing.reason, failing.database, failing.reward) == (
        "error",
        "the gold query failed on 'shop': no such column: nope",
        "shop.sqlite",
        0.0,
    )
    assert (missing.verdict, missing.reason) == (
        "error",
        f"no database 'nowhere' (expected {str(shop / 'nowhere' / 'nowhere.sqlite')!r} "
        f"or {str(shop / 'nowhere.sqlite')!r})",
    )
    assert (malformed.verdict, malformed.reason) == ("error", "not a database name: '../shop'")


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_a_prediction_that_is_not_text_is_incorrect_under_every_semantics(shop, semantics):
    """Nothing generated (None) is "no prediction", as in a corpus; a value that is not text
    is refused with the reason (test-suite's rewrites, text operations, are not tried on it)."""
    with ExecutionJudge(shop, semantics=semantics) as judge:
        assert judge.judge_many("shop", "SELECT 1", [None, 3]) == [
            Judgement(False, "no prediction", semantics),
            Judgement(
                False,
                "the predicted query failed: the query is an integer, not text",
                semantics,
                database="shop.sqlite",
            ),
        ]


def test_options_that_cannot_be_used_are_refused_when_the_judge_is_made(shop, tmp_path):
    """An unknown semantics or option, a limit that bounds nothing, a location that is none:
    ``ValueError`` at once, not a wrong judgement later."""
    with pytest.raises(ValueError, match="unknown semantics 'brid'"):
        ExecutionJudge(shop, semantics="brid")
    with pytest.raises(ValueError, match="the bird semantics has no option 'fast'"):
        ExecutionJudge(shop, semantics_options=["bird:fast"])
    with pytest.raises(ValueError, match="the time limit must be a number of seconds above 0, not 0"):
        ExecutionJudge(shop, timeout=0)
    with pytest.raises(ValueError, match="no directory"):
        ExecutionJudge(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="max_gold_results must be a whole number"):
        ExecutionJudge(shop, max_gold_results=-1)


def test_the_signature_is_that_of_answerkey_sql(shop):
    """The signature names the semantics, matching and limits as ``answerkey sql``'s reports do."""
    with ExecutionJudge(shop, semantics="bird", timeout=5, max_rows=100) as judge:
        signature = str(judge.signature)
    assert signature.startswith("semantics:bird|eps:0.0001|strings:exact|engine:auto|timeout:5|max_rows:100|")


def test_judgements_and_rewards_of_many_samples(shop):
    """``judge_many`` keeps the order and runs a text given twice once; ``rewards`` is 1.0 or 0.0."""
    samples = ["SELECT count(*) FROM item", "SELECT 3", "SELECT count(*) FROM item", "SELECT 4", "SELECT nope"]
    with ExecutionJudge(shop, semantics="bird") as judge:
        judged = judge.judge_many("shop", "SELECT count(name) FROM item", samples)
        assert judge.predicted_runs == 4
        assert [j.correct for j in judged] == [True, True, True, False, False]
        assert judged[4].reason == "the predicted query failed: no such column: nope"
        assert judge.rewards("shop", "SELECT count(name) FROM item", iter(samples)) == [1.0, 1.0, 1.0, 0.0, 0.0]


def test_a_failing_gold_runs_once_for_all_the_samples_of_a_call(shop):
    """A gold that fails is not kept, but the samples of one ``judge_many`` share its one run."""
    with ExecutionJudge(shop, semantics="bird") as judge:
        judged = judge.judge_many("shop", "SELECT nope FROM item", ["SELECT 1", "SELECT 2", "SELECT 3"])
        assert {j.reason for j in judged} == {"the gold query failed on 'shop': no such column: nope"}
        assert (judge.gold_runs, judge.predicted_runs) == (1, 0)
        judge.judge_many("shop", "SELECT nope FROM item", ["SELECT 1"])
        assert judge.gold_runs == 2


def test_a_prediction_that_is_the_gold_text_is_not_run_again(shop):
    """As in ``answerkey sql``, a prediction with the gold's text has the gold's result."""
    with ExecutionJudge(shop, semantics="bird") as judge:
        assert judge.judge("shop", "SELECT name FROM item", "SELECT name FROM item").correct
        assert (judge.gold_runs, judge.predicted_runs) == (1, 0)


# ------------------------------------------------------------------ limits


def test_a_runaway_prediction_stops_at_the_time_limit(shop, within):
    """A recursive CTE without end is incorrect at the time limit, and the next query runs."""
    with within(60), ExecutionJudge(shop, timeout=0.5) as judge:
        judged = judge.judge("shop", "SELECT 1", RUNAWAY)
        assert (judged.verdict, judged.reason) == (
            "incorrect",
            "the predicted query failed: the query ran past the time limit of 0.5 s",
        )
        assert judge.judge("shop", "SELECT count(*) FROM item", "SELECT 3").correct


def test_the_time_limit_holds_inside_one_long_function_call(shop, within):
    """A LIKE that runs for tens of seconds in one SQLite call (deaf to interrupts) is stopped
    at the time limit: its helper process is killed."""
    with within(30), ExecutionJudge(shop, timeout=1) as judge:
        judged = judge.judge("shop", "SELECT 1", LIKE_BOMB)
        assert judged.reason == "the predicted query failed: the query ran past the time limit of 1 s"
        assert judge.judge("shop", "SELECT count(*) FROM item", "SELECT 3").correct


def test_row_and_byte_limits_give_a_reason(shop):
    """A prediction past the row or byte limit is incorrect with the limit's words; a gold past
    them makes the item an error."""
    with ExecutionJudge(shop, max_rows=2) as judge:
        assert judge.judge("shop", "SELECT 1", "SELECT name FROM item").reason == (
            "the predicted query failed: the query returned more than 2 rows"
        )
        gold = judge.judge("shop", "SELECT name FROM item", "SELECT 1")
        assert (gold.verdict, gold.reason) == (
            "error",
            "the gold query failed on 'shop': the query returned more than 2 rows",
        )
    with ExecutionJudge(shop, max_result_bytes=40) as judge:
        assert judge.judge("shop", "SELECT 1", "SELECT name, qty FROM item").reason == (
            "the predicted query failed: the query's result is larger than the limit of 40 bytes "
            "(--max-result-bytes raises it)"
        )


# ------------------------------------------------------------------ read-only


@pytest.mark.parametrize(
    "predicted, reason",
    [
        ("DROP TABLE item", "not authorized"),
        ("INSERT INTO item VALUES ('nib', 0.5, 1)", "not authorized"),
        ("UPDATE item SET price = 0", "not authorized"),
        ("DELETE FROM item", "not authorized"),
        ("CREATE TABLE stolen (x)", "not authorized"),
        ("ATTACH DATABASE 'elsewhere.sqlite' AS elsewhere", "not authorized"),
        ("PRAGMA journal_mode = WAL", "not authorized"),
        ("VACUUM", "authorization denied"),
        ("SELECT 1; DROP TABLE item", "You can only execute one statement at a time."),
    ],
)
def test_a_prediction_cannot_change_the_database(shop, predicted, reason):
    """A write, DDL, ATTACH, pragma or second statement is refused with the reason, and every
    byte of every file under the root is as it was (no file added either)."""
    before = snapshot(shop)
    with ExecutionJudge(shop, semantics="bird") as judge:
        judged = judge.judge("shop", "SELECT count(*) FROM item", predicted)
        assert (judged.verdict, judged.reason) == ("incorrect", f"the predicted query failed: {reason}")
        assert judge.judge("shop", "SELECT count(*) FROM item", "SELECT 3").correct
    assert snapshot(shop) == before


# ------------------------------------------------------------------ helper processes


@pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")
def test_a_helper_killed_while_idle_is_replaced(shop, within):
    """The helper process killed (SIGKILL) between judgements: the next judgement starts another."""
    stop_query_processes()
    others = children()
    with within(60), ExecutionJudge(shop, semantics="bird") as judge:
        assert judge.judge("shop", "SELECT count(*) FROM item", "SELECT 3").correct
        (helper,) = children() - others
        kill_and_wait(helper)
        assert judge.judge("shop", "SELECT count(*) FROM item", "SELECT count(qty) FROM item").correct


@pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")
def test_a_helper_killed_inside_a_query_is_reported(shop, within):
    """The helper killed (SIGKILL) while it runs a prediction, again and again: that
    prediction is incorrect, saying so (never a hang), and the judge goes on. (A helper
    killed before it sent anything may have been killed while idle: the query is sent to a
    new one once, which is killed too.)"""
    stop_query_processes()
    others = children()
    database = os.path.realpath(shop / "shop" / "shop.sqlite")
    with within(60), ExecutionJudge(shop, semantics="bird", timeout=120) as judge:
        judge.gold_results("shop", "SELECT 1")
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(judge.judge, "shop", "SELECT 1", RUNAWAY)
            while not running.done():
                time.sleep(0.05)
                # Only a helper inside the query (it has the database open): one killed while
                # it starts would make this process give up helpers and run queries itself.
                for helper in children() - others:
                    if has_open(helper, database):
                        kill_and_wait(helper)
            judged = running.result()
        assert (judged.verdict, judged.reason) == (
            "incorrect",
            "the predicted query failed: the process running the query ended unexpectedly (signal 9)",
        )
        assert judge.judge("shop", "SELECT count(*) FROM item", "SELECT 3").correct


# A trainer judging a runaway prediction without a time limit; it prints the pid of the
# helper process running it (the one with the database open), then waits to be killed.
OWNER = r"""
import os, sys, threading, time
from answerkey.execution import ExecutionJudge

root, database, query = sys.argv[1:4]

def helper_pid():
    while True:
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{entry}/stat") as file:
                    if int(file.read().rsplit(")", 1)[1].split()[1]) != os.getpid():
                        continue
                if any(os.readlink(f"/proc/{entry}/fd/{fd}") == database for fd in os.listdir(f"/proc/{entry}/fd")):
                    print(entry, flush=True)
                    return
            except (OSError, ValueError, IndexError):
                pass
        time.sleep(0.02)

threading.Thread(target=helper_pid, daemon=True).start()
ExecutionJudge(root, timeout=float("inf")).judge("shop", "SELECT 1", query)
"""


def ended(pid: int) -> bool:
    """Whether ``pid`` has ended: gone, or a zombie nobody has reaped yet."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_the_helper_ends_when_the_trainer_is_killed(shop, within):
    """A trainer killed (SIGKILL) while its judge runs a prediction without a time limit:
    the helper process running it ends itself soon after, rather than run on."""
    database = os.path.realpath(shop / "shop" / "shop.sqlite")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    with within(120):
        owner = subprocess.Popen(
            [sys.executable, "-c", OWNER, str(shop), database, RUNAWAY],
            stdout=subprocess.PIPE,
            text=True,
            env=environment,
        )
        try:
            helper = int(owner.stdout.readline())
        finally:
            owner.kill()
            owner.wait()
            owner.stdout.close()
        try:
            while not ended(helper):
                time.sleep(0.05)
        finally:
            if not ended(helper):  # never leave it running, whatever failed
                os.kill(helper, signal.SIGKILL)


@pytest.mark.skipif(not LINUX, reason="lists child processes in /proc")
def test_close_ends_the_helpers_and_the_judge(shop):
    """Leaving the ``with`` block ends the idle helper processes; the closed judge refuses to judge."""
    stop_query_processes()
    others = children()
    with ExecutionJudge(shop) as judge:
        assert judge.judge("shop", "SELECT 1", "SELECT 1.0").correct
        assert children() - others
    assert children() - others == set()
    with pytest.raises(ValueError, match="the judge is closed"):
        judge.judge("shop", "SELECT 1", "SELECT 1")
    with pytest.raises(ValueError, match="the judge is closed"):
        judge.gold_results("shop", "SELECT 1")


# ------------------------------------------------------------------ threads and processes


def test_threads_share_one_judge(shop):
    """Eight threads judging at once through one judge decide what one thread decides, and
    each gold query runs once however many threads want it at the same moment."""
    golds = ["SELECT name FROM item WHERE qty > 5", "SELECT max(price) FROM item", "SELECT count(*) FROM item"]
    samples = [
        "SELECT name FROM item WHERE qty >= 10",
        "SELECT 7.25",
        "SELECT 3",
        "SELECT name FROM item",
        "SELECT nope FROM item",
        "SELECT count(*) FROM item WHERE qty > 5",
    ]
    tasks = [(gold, sample) for gold in golds for sample in samples] * 8
    with ExecutionJudge(shop, semantics="answerkey") as alone:
        expected = [alone.judge("shop", gold, sample) for gold, sample in tasks]
    assert sum(j.correct for j in expected) == 3 * 8
    with ExecutionJudge(shop, semantics="answerkey") as shared, ThreadPoolExecutor(8) as pool:
        judged = list(pool.map(lambda task: shared.judge("shop", *task), tasks))
        assert judged == expected
        assert (shared.gold_runs, shared.gold_hits) == (3, len(tasks) - 3)


def test_threads_share_one_judge_through_judge_many(shop):
    """Eight threads each sending a question's samples at once (one message to the SQLite
    helper each) decide what one thread deciding them one by one decides."""
    golds = ["SELECT name FROM item WHERE qty > 5", "SELECT max(price) FROM item", "SELECT count(*) FROM item"]
    samples = ["SELECT name FROM item WHERE qty >= 10", "SELECT 7.25", "SELECT 3", "SELECT nope FROM item", "SELECT 1"]
    with ExecutionJudge(shop, semantics="bird") as alone:
        expected = [[alone.judge("shop", gold, sample) for sample in samples] for gold in golds] * 8
    with ExecutionJudge(shop, semantics="bird") as shared, ThreadPoolExecutor(8) as pool:
        judged = list(pool.map(lambda gold: shared.judge_many("shop", gold, samples), golds * 8))
    assert judged == expected
    assert sum(j.correct for row in expected for j in row) == 3 * 8


def test_the_documented_loop_runs_in_threads_and_processes(tmp_path):
    """The example of docs/rewards.md, run as the page says: its rewards, advantages and
    judgements; threads sharing a judge and a ProcessPoolExecutor of judges agree with it."""
    databases = tmp_path / "database"
    shutil.copytree(SPIDER / "database", databases)
    before = snapshot(databases)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    finished = subprocess.run(
        [sys.executable, str(EXAMPLE), str(databases)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=environment,
    )
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.splitlines() == [
        "step 0: rewards [[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]]",
        "  advantages [[1.0, 1.0, -1.0, -1.0], [0.577, 0.577, 0.577, -1.732], [1.0, -1.0, 1.0, -1.0]]",
        "step 1: rewards [[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]]",
        "  advantages [[1.0, 1.0, -1.0, -1.0], [0.577, 0.577, 0.577, -1.732], [1.0, -1.0, 1.0, -1.0]]",
        "incorrect: on 'concert_singer': the predicted query failed: not authorized",
        "incorrect: the predicted query failed: the query ran past the time limit of 0.5 s",
        "gold queries run 7, found in memory 9",
        "threads and processes agree",
    ]
    assert snapshot(databases) == before


# ------------------------------------------------------------------ the gold results


def test_a_gold_result_is_kept_not_run_again(shop):
    """A gold query whose result changes at each run (random()) keeps its first result: a
    prediction of that value is correct every time after, and the gold ran once."""
    with ExecutionJudge(shop, semantics="bird") as judge:
        (first,) = judge.gold_results("shop", "SELECT random()")
        value = first.rows[0][0].value
        for _ in range(3):
            assert judge.judge("shop", "SELECT random()", f"SELECT {value}").correct
        assert (judge.gold_runs, judge.gold_hits, judge.predicted_runs) == (1, 3, 3)


def test_the_disk_cache_keeps_gold_results_for_the_next_judge(shop, tmp_path):
    """With ``cache``, a new judge (or process) reads a gold result where the last stored it:
    random()'s first value again, and no gold run."""
    cache = tmp_path / "cache"
    with ExecutionJudge(shop, semantics="bird", cache=cache) as judge:
        (first,) = judge.gold_results("shop", "SELECT abs(random())")
        assert (judge.gold_runs, judge.gold_hits) == (1, 0)
    with ExecutionJudge(shop, semantics="bird", cache=cache) as judge:
        (again,) = judge.gold_results("shop", "SELECT abs(random())")
        assert (judge.gold_runs, judge.gold_hits) == (0, 1)
        assert judge.judge("shop", "SELECT abs(random())", f"SELECT {first.rows[0][0].value}").correct
    assert again.rows == first.rows
    assert list(cache.rglob("*.json"))


def test_the_memory_keeps_the_last_gold_results_only(shop):
    """``max_gold_results`` bounds the gold results kept: the least recently used runs again;
    a failed gold query is not kept (it runs again next time)."""
    with ExecutionJudge(shop, semantics="bird", max_gold_results=2) as judge:
        for gold in ("SELECT 1", "SELECT 2", "SELECT 1", "SELECT 3", "SELECT 1", "SELECT 2"):
            judge.gold_results("shop", gold)
        assert (judge.gold_runs, judge.gold_hits) == (4, 2)  # SELECT 2 was dropped for SELECT 3
        judge.judge("shop", "SELECT nope", "SELECT 1")
        judge.judge("shop", "SELECT nope", "SELECT 1")
        assert judge.gold_runs == 6


# ------------------------------------------------------------------ other engines


def test_a_postgresql_server_judged_as_sqlite_is(postgres_server, shop):
    """The same judgements on a PostgreSQL server (one database per db_id) as on the SQLite
    file holding the same rows; a DROP is refused and the table keeps its rows."""
    postgres_server.create_database(
        "shop",
        "CREATE TABLE item (name TEXT, price DOUBLE PRECISION, qty INTEGER);"
        "INSERT INTO item VALUES ('pen', 1.5, 10), ('ink', 7.25, 2), ('cap', 2.0, 10);",
    )
    pairs = [
        ("SELECT name FROM item WHERE qty > 5", "SELECT name FROM item WHERE qty >= 10"),
        ("SELECT name FROM item WHERE qty > 5", "SELECT name FROM item"),
        ("SELECT max(price) FROM item", "SELECT 7.25"),
        ("SELECT name, price FROM item ORDER BY price", "SELECT name, price FROM item ORDER BY name"),
    ]
    verdicts = {
        "answerkey": ["correct", "incorrect", "correct", "incorrect"],
        "bird": ["correct", "incorrect", "correct", "correct"],  # bird ignores the order
    }
    for semantics, verdicts_there in verdicts.items():
        with ExecutionJudge(shop, semantics=semantics) as on_sqlite:
            expected = [(j.verdict, j.reason) for j in (on_sqlite.judge("shop", *pair) for pair in pairs)]
        with ExecutionJudge(postgres_server.url(""), semantics=semantics) as on_postgresql:
            assert [(j.verdict, j.reason) for j in (on_postgresql.judge("shop", *pair) for pair in pairs)] == expected
            dropped = on_postgresql.judge("shop", "SELECT count(*) FROM item", "DROP TABLE item")
            assert (dropped.verdict, dropped.reason.startswith("the predicted query failed: ")) == ("incorrect", True)
        assert [verdict for verdict, _ in expected] == verdicts_there
    assert postgres_server.execute("shop", "SELECT count(*) FROM item") == [(3,)]


# ------------------------------------------------------------------ a batch of several questions


def test_a_batch_is_judged_question_by_question_in_its_own_order(shop):
    """``judge_all`` gives each item the judgement ``judge`` gives it, in the batch's order,
    and judges each question's predictions together (each distinct text runs once)."""
    count, names = "SELECT count(*) FROM item", "SELECT name FROM item"
    items = [
        ("shop", count, "SELECT 3"),
        ("shop", names, "SELECT name FROM item ORDER BY price"),
        ("shop", count, "SELECT 4"),
        ("shop", count, "SELECT 3"),
        ("nowhere", count, "SELECT 3"),
        ("shop", names, None),
        ("shop", names, ["SELECT", "name"]),
        ("shop", count, "DROP TABLE item"),
    ]
    with ExecutionJudge(shop, semantics="bird") as judge:
        judged = judge.judge_all(iter(items))
        assert judge.predicted_runs == 5  # SELECT 3, SELECT 4, DROP, ORDER BY, and the list refused
        with ExecutionJudge(shop, semantics="bird") as alone:
            assert judged == [alone.judge(*item) for item in items]
    assert [judgement.verdict for judgement in judged] == [
        "correct",
        "correct",
        "incorrect",
        "correct",
        "error",
        "incorrect",
        "incorrect",
        "incorrect",
    ]
    assert judged[7].reason == "the predicted query failed: not authorized"
    assert judge_all_of_nothing(shop) == []


def judge_all_of_nothing(root: Path) -> list:
    with ExecutionJudge(root, semantics="bird") as judge:
        return judge.judge_all([])
