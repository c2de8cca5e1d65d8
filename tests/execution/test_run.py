"""Running gold and predicted SQL: verdicts under every semantics, test-suite accuracy, errors,
metrics, one execution per query, the result cache, and the executor seam (same document
whatever runs the batches)."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sqlite3
import sys
from pathlib import Path

import duckdb
import pytest

from answerkey.execution.cache import ResultCache
from answerkey.execution.load import SqlInputs, SqlItem, load_inputs
from answerkey.execution.run import (
    Batch,
    BatchItem,
    LocalExecutor,
    SqlOptions,
    make_batches,
    run_batch,
    run_sql,
)
from answerkey.progress import PROGRESS_THRESHOLD

ALL = {"answerkey": True, "test-suite": True, "bird": True, "spider2": True}
NONE = dict.fromkeys(ALL, False)
ZEROS = {
    "cell_precision": 0.0,
    "cell_recall": 0.0,
    "tuple_cardinality": 0.0,
    "tuple_constraint": 0.0,
    "tuple_order": None,
    "execution_accuracy": 0.0,
    "soft_f1": 0.0,
}
ONES = {name: (None if name == "tuple_order" else 1.0) for name in ZEROS}
UNDEFINED = dict.fromkeys(ZEROS)


def items() -> list[SqlItem]:
    """One item of each kind: right, right under a set, right by chance, broken gold, failing
    and missing prediction, no database, wrong order."""
    return [
        SqlItem("same", "shop", "SELECT name FROM item WHERE qty > 3", "SELECT name FROM item WHERE qty > 3", difficulty="easy", tags=("a",)),
        SqlItem("distinct", "shop", "SELECT name FROM item WHERE qty > 3", "SELECT DISTINCT name FROM item WHERE qty > 3", difficulty="easy"),
        SqlItem("suite", "shop", "SELECT name FROM item WHERE price < 2", "SELECT name FROM item WHERE name = 'pen'", difficulty="hard", tags=("a", "b")),
        SqlItem("gold-fails", "shop", "SELECT x FROM nope", "SELECT 1", difficulty="hard"),
        SqlItem("pred-fails", "other", "SELECT n FROM t", "SELECT m FROM t"),
        SqlItem("none", "other", "SELECT n FROM t", None),
        SqlItem("nodb", "absent", "SELECT 1", "SELECT 1"),
        SqlItem("ordered", "other", "SELECT n FROM t ORDER BY n", "SELECT n FROM t ORDER BY n DESC"),
    ]  # fmt: skip


def run(databases, chosen=None, **options):
    """Run ``chosen`` (default: ``items()``) on ``databases`` with ``SqlOptions(**options)``."""
    inputs = SqlInputs("answerkey", "gold.jsonl", "predictions.jsonl", chosen if chosen is not None else items())
    return run_sql(inputs, SqlOptions(str(databases), **options))


def outcomes(result):
    """The outcomes of a run by item id."""
    return {r.item.id: r.outcome for r in result.results}


def test_verdicts_reasons_and_databases(databases):
    """Each item's headline verdict, reason, per-semantics verdicts and the database it failed on."""
    result = run(databases)
    found = {
        r.item.id: (r.verdict, r.outcome.reason, r.outcome.verdicts, r.outcome.database, r.outcome.databases)
        for r in result.results
    }
    assert found == {
        "same": ("correct", "the tuples match as sets (correct on each of the 2 databases)", ALL, None, 2),
        "distinct": (
            "correct",
            "the tuples match as sets (correct on each of the 2 databases)",
            {"answerkey": True, "test-suite": True, "bird": True, "spider2": False},
            None,
            2,
        ),
        "suite": (
            "incorrect",
            "on 'shop' (shop2.sqlite): no mapping of canonical columns onto system columns gives the canonical "
            "tuples as a set",
            NONE,
            "shop2.sqlite",
            2,
        ),
        "gold-fails": ("error", "the gold query failed on 'shop': no such table: nope", {}, "shop.sqlite", 2),
        "pred-fails": ("incorrect", "the predicted query failed: no such column: m", NONE, "other.sqlite", 1),
        "none": ("incorrect", "no prediction", NONE, None, 1),
        "nodb": (
            "error",
            f"no database 'absent' (expected '{databases}/absent/absent.sqlite' or '{databases}/absent.sqlite')",
            {},
            None,
            0,
        ),
        "ordered": (
            "incorrect",
            "no mapping of canonical columns onto system columns gives the canonical tuples in key order (BY 1)",
            {"answerkey": False, "test-suite": False, "bird": True, "spider2": False},
            "other.sqlite",
            1,
        ),
    }
    assert [r.item.id for r in result.failed] == ["gold-fails", "nodb"]
    assert result.disagreements == 2


def test_disagreements_say_which_rule_decided_what(databases):
    """Where the semantics disagree, the outcome names each rule's decision and answerkey's
    explanation, on the database where it was decided."""
    found = outcomes(run(databases))
    assert found["distinct"].disagreement == (
        "on 'shop': correct under answerkey, test-suite and bird; incorrect under spider2\n"
        "  answerkey: correct: the tuples match as sets\n"
        "  test-suite: correct: same bag of rows (queries run with DISTINCT removed, as test-suite-sql-eval's default)\n"
        "  bird: correct: same set of rows; duplicates ignored (the gold has 3 rows, the prediction 2)\n"
        "  spider2: incorrect: the gold has 3 rows, the prediction 2\n"
        "answerkey's explanation:\n"
        "  correct: the tuples match as sets\n"
        "  mapping: canonical column 1 -> system column 1"
    )
    assert found["ordered"].disagreement.splitlines()[0] == (
        "correct under bird; incorrect under answerkey, test-suite and spider2"
    )
    assert found["same"].disagreement is None and found["suite"].disagreement is None


def test_metrics_come_from_the_first_database(databases):
    """QATCH metrics and soft F1 on the first database; zeros for a failing or missing
    prediction; none for an error; tuple_order only for an ordered gold."""
    found = outcomes(run(databases))
    assert found["same"].metrics == ONES
    assert found["suite"].metrics == ONES  # right on shop.sqlite, wrong on shop2.sqlite
    assert found["distinct"].metrics == {
        **ONES,
        "tuple_cardinality": 2 / 3,
        "tuple_constraint": 0.5,
        "execution_accuracy": 0.0,
    }
    assert found["pred-fails"].metrics == ZEROS
    assert found["none"].metrics == ZEROS
    assert found["gold-fails"].metrics == UNDEFINED
    assert found["nodb"].metrics == UNDEFINED
    assert found["ordered"].metrics == {**ONES, "tuple_order": 0.0, "soft_f1": 0.0}


def test_summaries_leave_errors_out(databases):
    """Accuracy per semantics over the evaluated items; groups per difficulty (in the
    benchmarks' order) and per tag."""
    result = run(databases)
    summary = result.summary
    assert (summary.items, summary.evaluated, summary.correct, summary.incorrect, summary.errors) == (8, 6, 2, 4, 2)
    assert summary.accuracy_by_semantics == {"answerkey": 2 / 6, "test-suite": 2 / 6, "bird": 3 / 6, "spider2": 1 / 6}
    assert summary.accuracy == 2 / 6
    assert list(result.by_difficulty) == ["easy", "hard"]
    hard = result.by_difficulty["hard"]
    assert (hard.items, hard.evaluated, hard.errors, hard.accuracy) == (2, 1, 1, 0.0)
    assert {tag: (group.items, group.correct) for tag, group in result.by_tag.items()} == {"a": (2, 1), "b": (1, 0)}


def test_headline_semantics_changes_the_verdict_not_the_decisions(databases):
    """--semantics bird: the headline verdict follows BIRD's rule, a failing gold included; every semantics is
    still decided."""
    result = run(databases, semantics="bird")
    found = outcomes(result)
    assert found["ordered"].verdict == "correct"
    assert found["ordered"].reason == "same set of rows"
    assert found["distinct"].verdicts == {"answerkey": True, "test-suite": True, "bird": True, "spider2": False}
    # BIRD's script scores an item whose gold fails 0 and counts it (issue 26, D7): 3 of 7, not 3 of 6.
    assert (found["gold-fails"].verdict, found["gold-fails"].verdicts) == ("incorrect", NONE)
    assert result.summary.accuracy == 3 / 7
    assert str(result.signature).startswith("semantics:bird|eps:0.0001|strings:exact|engine:sqlite|timeout:30|")


def test_order_by_overrides_the_gold_sort_keys(databases):
    """An item's order_by orders a gold without ORDER BY: answerkey then compares the order
    (tuple_order applies); test-suite and BIRD do not see it (Spider 2.0 compares rows in order by default)."""
    item = SqlItem(
        "keys",
        "other",
        "SELECT n FROM t",
        "SELECT n FROM t ORDER BY n DESC",
        order_by=(1,),
    )
    outcome = outcomes(run(databases, [item]))["keys"]
    assert outcome.verdicts == {"answerkey": False, "test-suite": True, "bird": True, "spider2": False}
    assert outcome.reason.endswith("gives the canonical tuples in key order (BY 1)")
    assert outcome.metrics["tuple_order"] == 0.0


def test_a_gold_result_that_cannot_be_judged_is_an_error(databases):
    """Condition columns beyond the gold result, or a gold column mixing types, are errors of the test."""
    chosen = [
        SqlItem("cols", "other", "SELECT n FROM t", "SELECT n FROM t", condition_cols=(5,)),
        SqlItem("mixed", "other", "SELECT 1 UNION ALL SELECT 'a'", "SELECT 1"),
    ]
    found = outcomes(run(databases, chosen))
    assert found["cols"].verdict == found["mixed"].verdict == "error"
    assert found["cols"].reason == (
        "on 'other': condition column 5 is not a column of the gold result, which has 1 column "
        "(condition columns count from 0)"
    )
    assert found["mixed"].reason == (
        "on 'other': the gold result cannot be compared: tuple 2, column 1: a string in a column of numbers"
    )


def test_a_predicted_write_leaves_the_databases_unchanged(databases):
    """A DROP TABLE prediction is incorrect with the engine's reason; the file is byte-identical."""
    database = databases / "other" / "other.sqlite"
    before = database.read_bytes()
    item = SqlItem("drop", "other", "SELECT n FROM t", "DROP TABLE t")
    outcome = outcomes(run(databases, [item]))["drop"]
    assert (outcome.verdict, outcome.reason) == ("incorrect", "the predicted query failed: not authorized")
    assert database.read_bytes() == before


def test_valid_efficiency_score_when_asked(databases):
    """VES only when named: a correct prediction is timed (a positive score), a wrong one 0;
    ves_runs joins the signature."""
    chosen = [
        SqlItem("right", "other", "SELECT n FROM t", "SELECT n FROM t"),
        SqlItem("wrong", "other", "SELECT n FROM t", "SELECT 3"),
    ]
    result = run(databases, chosen, metrics=("execution_accuracy", "valid_efficiency_score"), ves_runs=3)
    found = outcomes(result)
    assert found["right"].metrics["valid_efficiency_score"] > 0
    assert found["wrong"].metrics == {"execution_accuracy": 0.0, "valid_efficiency_score": 0.0}
    assert "|ves_runs:3|" in str(result.signature)


# ---------------------------------------------------------------- batches and executors


def test_batches_group_items_per_database():
    """Batches hold one db_id's items in input order, at most `size` each, db_ids in order of first appearance."""
    chosen = [SqlItem(str(n), "xy"[n % 2], f"SELECT {n}", None) for n in range(5)]
    assert [(batch.db_id, [item.index for item in batch.items]) for batch in make_batches(chosen, size=2)] == [
        ("x", [0, 2]),
        ("x", [4]),
        ("y", [1, 3]),
    ]
    with pytest.raises(ValueError, match="a batch holds at least one item"):
        make_batches(chosen, size=0)


def test_run_batch_is_a_pure_picklable_function(databases):
    """A batch and its options survive pickling, and run_batch gives the same outcomes in item order."""
    batch = Batch("other", (BatchItem(3, "SELECT n FROM t", "SELECT n FROM t"), BatchItem(1, "SELECT n FROM t", None)))
    options = SqlOptions(str(databases), engine="sqlite")
    outcomes_here = run_batch(batch, options)
    outcomes_there = pickle.loads(pickle.dumps(run_batch(*pickle.loads(pickle.dumps((batch, options))))))
    assert outcomes_here == outcomes_there
    assert [(o.index, o.verdict) for o in outcomes_here] == [(3, "correct"), (1, "incorrect")]


def test_run_batch_where_the_databases_cannot_be_opened(tmp_path):
    """A worker that cannot open the databases makes every item of the batch an error, with the reason."""
    batch = Batch("other", (BatchItem(0, "SELECT 1", "SELECT 1"),))
    (outcome,) = run_batch(batch, SqlOptions(str(tmp_path / "gone"), metrics=("soft_f1",)))
    assert (outcome.verdict, outcome.metrics) == ("error", {"soft_f1": None})
    assert outcome.reason == (
        f"no directory '{tmp_path / 'gone'}' (--db names a directory of databases or a postgresql:// URL)"
    )


class ReversedExecutor:
    """Runs the batches last first, each after a pickle round trip (as a remote worker would),
    and yields the outcomes in batch order."""

    def map(self, batches, options):
        done = {}
        for index in reversed(range(len(batches))):
            batch, sent = pickle.loads(pickle.dumps((batches[index], options)))
            done[index] = run_batch(batch, sent)
        for index in range(len(batches)):
            yield done[index]


def test_the_document_is_the_same_whatever_runs_the_batches(databases):
    """One process, two processes, and another executor give identical reports."""
    inputs = SqlInputs("answerkey", "gold.jsonl", "predictions.jsonl", items())
    options = SqlOptions(str(databases))
    one = run_sql(inputs, options).document()
    two = run_sql(inputs, options, jobs=2).document()
    other = run_sql(inputs, options, executor=ReversedExecutor()).document()
    assert json.dumps(one) == json.dumps(two) == json.dumps(other)
    assert LocalExecutor(2).jobs == 2


def test_an_executor_that_loses_outcomes_is_caught(databases):
    """An executor that yields no outcome for some item is a bug, not a silent gap in the report."""

    class Lossy:
        def map(self, batches, options):
            yield from ([] for _ in batches)

    with pytest.raises(RuntimeError, match="the executor gave no outcome for 2 items"):
        run_sql(SqlInputs("answerkey", "g", "p", items()[:2]), SqlOptions(str(databases)), executor=Lossy())


def test_bad_locations_and_options_are_refused(databases, tmp_path):
    """A missing directory stops the run before anything runs; bad options are ValueErrors."""
    with pytest.raises(ValueError, match="no directory"):
        run_sql(SqlInputs("answerkey", "g", "p", items()[:1]), SqlOptions(str(tmp_path / "nowhere")))
    with pytest.raises(ValueError, match="unknown semantics 'spider'; known: answerkey, test-suite, bird, spider2"):
        SqlOptions("x", semantics="spider")
    with pytest.raises(ValueError, match="unknown metric 'ex'"):
        SqlOptions("x", metrics=("ex",))
    with pytest.raises(ValueError, match="the time limit must be a number of seconds above 0, not 0"):
        SqlOptions("x", timeout=0)


# ---------------------------------------------------------------- the result cache

CACHED = [
    SqlItem("a", "shop", "SELECT name FROM item WHERE price < 2", "SELECT name FROM item WHERE price < 2"),
    SqlItem("b", "shop", "SELECT count(*) FROM item", "SELECT count(*) FROM item WHERE price > 1"),
]


def test_the_cache_serves_every_result_on_a_second_run(databases, tmp_path, ran):
    """First run: each distinct query runs once per database and is stored (a prediction written
    as its gold shares the gold's); second run: every result is read, nothing runs; same document."""
    cache = tmp_path / "cache"
    first = run(databases, CACHED, cache=str(cache))
    assert (first.cache_hits, first.cache_misses) == (0, 6)
    assert len(list(cache.glob("*/*.json"))) == 6
    assert len(ran) == 6
    ran.clear()
    second = run(databases, CACHED, cache=str(cache))
    assert (second.cache_hits, second.cache_misses) == (6, 0)
    assert ran == []
    assert second.document() == first.document() == run(databases, CACHED).document()


def test_a_failed_prediction_runs_again(databases, tmp_path, ran):
    """A predicted query that failed is not stored: it alone runs on the next run, with the same verdict."""
    chosen = [SqlItem("fails", "other", "SELECT n FROM t", "SELECT m FROM t"), *CACHED]
    cache = str(tmp_path / "cache")
    first = run(databases, chosen, cache=cache)
    ran.clear()
    second = run(databases, chosen, cache=cache)
    assert ran == [("other.sqlite", "SELECT m FROM t")]
    assert (second.cache_hits, second.cache_misses) == (7, 1)
    assert second.document() == first.document()
    assert outcomes(second)["fails"].reason == "the predicted query failed: no such column: m"


def test_valid_efficiency_score_runs_are_never_read_from_the_cache(databases, tmp_path, ran):
    """VES times real executions: on a second cached run only its timed runs execute (prediction, then gold, per round)."""
    chosen = [SqlItem("right", "other", "SELECT n FROM t", "SELECT n FROM t")]
    cache = str(tmp_path / "cache")
    options = {"metrics": ("execution_accuracy", "valid_efficiency_score"), "ves_runs": 2, "cache": cache}
    run(databases, chosen, **options)
    assert ran == [("other.sqlite", "SELECT n FROM t")] * 5  # once judged, then 2 rounds of 2 timed runs
    ran.clear()
    second = run(databases, chosen, **options)
    assert ran == [("other.sqlite", "SELECT n FROM t")] * 4
    assert (second.cache_hits, second.cache_misses) == (1, 0)
    assert outcomes(second)["right"].metrics["valid_efficiency_score"] > 0


def test_the_cache_is_invalidated_when_a_database_changes(databases, tmp_path):
    """A changed database's gold results run again (and see the new rows); the others are read."""
    cache = str(tmp_path / "cache")
    assert [r.verdict for r in run(databases, CACHED, cache=cache).results] == ["correct", "correct"]
    with sqlite3.connect(databases / "shop" / "shop2.sqlite") as db:
        db.execute("INSERT INTO item VALUES ('nib', 0.5, 1)")
    db.close()
    again = run(databases, CACHED, cache=cache)
    assert (again.cache_hits, again.cache_misses) == (3, 3)  # a's gold, b's gold and prediction on shop2
    assert [(r.verdict, r.outcome.database) for r in again.results] == [
        ("correct", None),
        ("incorrect", "shop2.sqlite"),
    ]
    assert outcomes(again)["b"].reason == (
        "on 'shop' (shop2.sqlite): no mapping of canonical columns onto system columns gives the canonical "
        "tuples as a set"
    )


def test_a_corrupt_cache_entry_is_ignored_with_a_warning(databases, tmp_path):
    """An entry that cannot be read back is run again (same verdicts), rewritten, and warned about."""
    cache = tmp_path / "cache"
    first = run(databases, [SqlItem("b", "other", "SELECT n FROM t", "SELECT n FROM t")], cache=str(cache))
    (entry,) = cache.glob("*/*.json")
    entry.write_text('{"format": 1, "key": ', encoding="utf-8")
    second = run(databases, [SqlItem("b", "other", "SELECT n FROM t", "SELECT n FROM t")], cache=str(cache))
    assert (second.cache_hits, second.cache_misses) == (0, 1)
    assert [w.kind for w in second.warnings] == ["cache"]
    assert str(second.warnings[0]).startswith(f"item b: the cache entry {entry} cannot be read back (")
    assert str(second.warnings[0]).endswith("); the query ran again")
    assert second.document()["items"] == first.document()["items"]
    third = run(databases, [SqlItem("b", "other", "SELECT n FROM t", "SELECT n FROM t")], cache=str(cache))
    assert (third.cache_hits, third.warnings) == (1, [])


def test_an_unwritable_cache_directory_is_refused(databases, tmp_path):
    """A cache path that cannot be a directory stops the run with the reason."""
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=f"cannot create the cache directory '{blocker}/cache': "):
        run(databases, CACHED, cache=str(blocker / "cache"))


def test_a_failed_gold_is_not_cached(databases, tmp_path):
    """Only results that ran to completion are stored (a failed gold: nothing at all)."""
    cache = tmp_path / "cache"
    run(databases, [SqlItem("x", "other", "SELECT nope FROM t", "SELECT 1")], cache=str(cache))
    assert list(cache.glob("*/*.json")) == []
    assert ResultCache(cache).stored == 0
    assert os.path.isdir(cache)


# ---------------------------------------------------------------- other engines, end to end

ENGINE_ITEMS = [
    SqlItem("right", "shop", "SELECT name FROM item WHERE qty > 3", "SELECT DISTINCT name FROM item WHERE qty > 3"),
    SqlItem("ordered", "shop", "SELECT name, price FROM item ORDER BY price", "SELECT name, price FROM item ORDER BY price DESC"),
    SqlItem("drop", "shop", "SELECT count(*) FROM item", "DROP TABLE item"),
    SqlItem("gold-fails", "shop", "SELECT x FROM nope", "SELECT 1"),
]  # fmt: skip
ENGINE_VERDICTS = [
    ("right", "correct", {"answerkey": True, "test-suite": True, "bird": True, "spider2": False}),
    ("ordered", "incorrect", {"answerkey": False, "test-suite": False, "bird": True, "spider2": False}),
    ("drop", "incorrect", NONE),
    ("gold-fails", "error", {}),
]


def test_duckdb_end_to_end(tmp_path):
    """A directory of DuckDB files: the same verdicts as SQLite, a DROP refused with the file
    byte-identical, and results served from the cache on a second run."""
    path = tmp_path / "databases" / "shop" / "shop.duckdb"
    path.parent.mkdir(parents=True)
    with duckdb.connect(str(path)) as db:
        db.execute("CREATE TABLE item (name TEXT, price DOUBLE, qty INTEGER)")
        db.execute("INSERT INTO item VALUES ('pen', 1.5, 10), ('ink', 7.25, 3), ('pad', 2.0, 10), ('pen', 1.5, 4)")
    before = path.read_bytes()
    cache = str(tmp_path / "cache")
    result = run(tmp_path / "databases", ENGINE_ITEMS, cache=cache)
    assert "|engine:duckdb|" in str(result.signature)
    assert [(r.item.id, r.verdict, r.outcome.verdicts) for r in result.results] == ENGINE_VERDICTS
    drop = outcomes(result)["drop"]
    assert drop.reason.startswith("the predicted query failed: ")
    assert outcomes(result)["gold-fails"].reason.startswith("the gold query failed on 'shop': ")
    assert path.read_bytes() == before
    again = run(tmp_path / "databases", ENGINE_ITEMS, cache=cache)
    # Read: right's gold, prediction and prediction without DISTINCT (test-suite), ordered's
    # two, drop's gold; run again: the refused DROP and the failed gold.
    assert (again.cache_hits, again.cache_misses) == (6, 2)
    assert again.document() == result.document()


def test_postgresql_end_to_end(postgres_server):
    """A PostgreSQL server with one database per db_id: the same verdicts as SQLite, a DROP
    refused with the table still there, and the cache keyed by the server's fingerprint."""
    postgres_server.create_database(
        "shop",
        "CREATE TABLE item (name TEXT, price DOUBLE PRECISION, qty INTEGER);"
        "INSERT INTO item VALUES ('pen', 1.5, 10), ('ink', 7.25, 3), ('pad', 2.0, 10), ('pen', 1.5, 4);",
    )
    location = postgres_server.url("")
    inputs = SqlInputs("answerkey", "gold.jsonl", "predictions.jsonl", ENGINE_ITEMS)
    result = run_sql(inputs, SqlOptions(location))
    assert "|engine:postgresql|" in str(result.signature)
    assert [(r.item.id, r.verdict, r.outcome.verdicts) for r in result.results] == ENGINE_VERDICTS
    assert outcomes(result)["drop"].reason.startswith("the predicted query failed: ")
    assert postgres_server.execute("shop", "SELECT count(*) FROM item") == [(4,)]
    two = run_sql(inputs, SqlOptions(location), jobs=2)
    assert two.document() == result.document()


@pytest.mark.parametrize(("quiet", "drawn"), [(False, True), (True, False)])
def test_progress_bar_on_a_terminal(databases, monkeypatch, fake_terminal, quiet, drawn):
    """A long run draws a progress bar on a terminal, counted in items, unless quiet."""
    monkeypatch.setattr(sys, "stderr", fake_terminal)
    chosen = [SqlItem(str(n), "other", "SELECT n FROM t", "SELECT n FROM t") for n in range(PROGRESS_THRESHOLD)]
    inputs = SqlInputs("answerkey", "g", "p", chosen)
    run_sql(inputs, SqlOptions(str(databases), metrics=()), quiet=quiet)
    assert (f"sql [{'#' * 30}] {PROGRESS_THRESHOLD}/{PROGRESS_THRESHOLD}" in fake_terminal.text) is drawn


# ---------------------------------------------------------------- the queries test-suite-sql-eval runs

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sql"
SUITE_DEFAULT = "as test-suite-sql-eval's default"


class CountingEngine:
    """The real engine of a run, recording each query it runs as (database file, SQL)."""

    def __init__(self, engine, ran):
        self.engine = engine
        self.ran = ran

    def __getattr__(self, name):
        return getattr(self.engine, name)

    def run(self, database, query):
        """Record the query, then run it on the real engine."""
        self.ran.append((database.name, query))
        return self.engine.run(database, query)

    @property
    def run_each(self):
        """The real engine's run_each, recording the queries (AttributeError where it has none)."""
        real = self.engine.run_each

        def recorded(database, queries, read_orders=()):
            self.ran.extend((database.name, query) for query in queries)
            return real(database, queries, read_orders)

        return recorded


@pytest.fixture
def ran(monkeypatch):
    """The queries the engines of runs in this process run, in order (the engines are real ones)."""
    queries = []
    real = SqlOptions.open_engine
    monkeypatch.setattr(SqlOptions, "open_engine", lambda options: CountingEngine(real(options), queries))
    return queries


@pytest.fixture
def shop(tmp_path):
    """``ROOT/shop/shop.sqlite``: a pen twice (quantities 10 and 4) and an ink."""
    root = tmp_path / "suite"
    (root / "shop").mkdir(parents=True)
    with sqlite3.connect(root / "shop" / "shop.sqlite") as db:
        db.executescript(
            "CREATE TABLE item (name TEXT, qty INTEGER); INSERT INTO item VALUES ('pen', 10), ('pen', 4), ('ink', 5);"
        )
    db.close()
    return root


DISTINCT_ITEMS = [
    SqlItem("adds", "shop", "SELECT name FROM item WHERE qty > 3", "SELECT DISTINCT name FROM item WHERE qty > 3"),
    SqlItem("count", "shop", "SELECT COUNT(DISTINCT name) FROM item", "SELECT COUNT(name) FROM item"),
]  # fmt: skip


def test_a_prediction_adding_distinct_is_right_under_test_suite_by_default(shop):
    """test-suite-sql-eval removes DISTINCT from both queries by default: a prediction that adds
    it is correct, and so is COUNT(name) for COUNT(DISTINCT name) (the official rule is wrong there)."""
    result = run(shop, DISTINCT_ITEMS, semantics="test-suite")
    found = outcomes(result)
    assert [(item, found[item].verdict, found[item].reason) for item in ("adds", "count")] == [
        ("adds", "correct", f"same bag of rows (queries run with DISTINCT removed, {SUITE_DEFAULT})"),
        ("count", "correct", f"same bag of rows (queries run with DISTINCT removed, {SUITE_DEFAULT})"),
    ]
    assert found["adds"].verdicts == {"answerkey": True, "test-suite": True, "bird": True, "spider2": False}
    assert found["count"].verdicts == {"answerkey": False, "test-suite": True, "bird": False, "spider2": False}
    assert str(result.signature).startswith("semantics:test-suite|eps:")


def test_keep_distinct_runs_the_queries_as_written(shop):
    """With test_suite_keep_distinct (--keep_distinct) both predictions are incorrect, and the signature says so."""
    result = run(shop, DISTINCT_ITEMS, semantics="test-suite", test_suite_keep_distinct=True)
    found = outcomes(result)
    assert [(item, found[item].verdict, found[item].reason) for item in ("adds", "count")] == [
        ("adds", "incorrect", "the gold has 3 rows, the prediction 2"),
        ("count", "incorrect", "no permutation of the prediction's columns gives the gold's bag of rows"),
    ]
    assert str(result.signature).startswith("semantics:test-suite|test_suite:keep_distinct|eps:")


def test_a_prediction_that_fails_as_written_can_run_as_the_official_script_rewrites_it(shop):
    """'> =' closed up and a second statement dropped: the prediction fails as written (incorrect
    under the other semantics) but is correct under test-suite, which says which rule decided what."""
    chosen = [
        SqlItem("spaced", "shop", "SELECT name FROM item WHERE qty >= 5", "SELECT name FROM item WHERE qty > = 5"),
        SqlItem("two", "shop", "SELECT name FROM item", "SELECT name FROM item; SELECT 1"),
    ]
    found = outcomes(run(shop, chosen))
    assert found["spaced"].verdicts == found["two"].verdicts == {**NONE, "test-suite": True}
    assert found["spaced"].reason == 'the predicted query failed: near "=": syntax error'
    assert found["two"].disagreement == (
        "correct under test-suite; incorrect under answerkey, bird and spider2\n"
        "  answerkey: incorrect: the predicted query failed: You can only execute one statement at a time.\n"
        "  test-suite: correct: same bag of rows (queries run with only the first statement kept, "
        f"{SUITE_DEFAULT})\n"
        "  bird: incorrect: the predicted query failed: You can only execute one statement at a time.\n"
        "  spider2: incorrect: the predicted query failed: You can only execute one statement at a time."
    )
    assert found["spaced"].metrics == ZEROS


def test_each_query_runs_once_per_database(databases, ran):
    """Queries test-suite-sql-eval runs as written run once, on each database of the suite (a
    prediction written as its gold not at all: the gold's result is reused); a prediction it
    rewrites runs once more there, rewritten (the gold's result is reused)."""
    chosen = [
        SqlItem("same", "shop", "SELECT name FROM item WHERE qty > 3", "SELECT name FROM item WHERE qty > 3"),
        SqlItem("wrong", "other", "SELECT n FROM t", "SELECT n + 1 FROM t"),
        SqlItem("fails", "other", "SELECT n FROM t", "SELECT m FROM t"),
    ]
    run(databases, chosen)
    assert ran == [
        ("shop.sqlite", "SELECT name FROM item WHERE qty > 3"),
        ("shop2.sqlite", "SELECT name FROM item WHERE qty > 3"),
        ("other.sqlite", "SELECT n FROM t"),
        ("other.sqlite", "SELECT n + 1 FROM t"),
        ("other.sqlite", "SELECT n FROM t"),
        ("other.sqlite", "SELECT m FROM t"),
    ]
    ran.clear()
    run(databases, [SqlItem("adds", "shop", "SELECT name FROM item", "SELECT DISTINCT name FROM item")])
    assert ran == [
        ("shop.sqlite", "SELECT name FROM item"),
        ("shop.sqlite", "SELECT DISTINCT name FROM item"),
        ("shop.sqlite", "SELECT  name FROM item"),
        ("shop2.sqlite", "SELECT name FROM item"),
        ("shop2.sqlite", "SELECT DISTINCT name FROM item"),
        ("shop2.sqlite", "SELECT  name FROM item"),
    ]


def test_a_prediction_the_script_rewrites_into_its_gold_is_not_run_again(shop, ran):
    """'> =' closed up gives the gold's text: the rewritten prediction reuses the gold's result."""
    chosen = [
        SqlItem("spaced", "shop", "SELECT name FROM item WHERE qty >= 5", "SELECT name FROM item WHERE qty > = 5")
    ]
    found = outcomes(run(shop, chosen))
    assert ran == [
        ("shop.sqlite", "SELECT name FROM item WHERE qty >= 5"),
        ("shop.sqlite", "SELECT name FROM item WHERE qty > = 5"),
    ]
    assert found["spaced"].verdicts == {**NONE, "test-suite": True}


def test_a_prediction_written_as_its_gold_runs_once_with_or_without_the_cache(databases, tmp_path, ran):
    """The gold's result is the prediction's: one execution per database, the same verdicts and document."""
    chosen = [SqlItem("same", "shop", "SELECT name FROM item WHERE qty > 3", "SELECT name FROM item WHERE qty > 3")]
    plain = run(databases, chosen)
    cached = run(databases, chosen, cache=str(tmp_path / "cache"))
    assert (
        ran
        == [
            ("shop.sqlite", "SELECT name FROM item WHERE qty > 3"),
            ("shop2.sqlite", "SELECT name FROM item WHERE qty > 3"),
        ]
        * 2
    )
    assert (cached.cache_hits, cached.cache_misses) == (0, 2)
    assert plain.document() == cached.document()
    assert outcomes(plain)["same"].verdicts == ALL


def test_a_rewritten_gold_is_served_by_the_cache(databases, tmp_path):
    """The gold as written and as test-suite-sql-eval rewrites it, and the prediction, are cached on each database."""
    chosen = [SqlItem("gold", "shop", "SELECT DISTINCT name FROM item", "SELECT name FROM item")]
    cache = str(tmp_path / "cache")
    first = run(databases, chosen, cache=cache)
    second = run(databases, chosen, cache=cache)
    assert (first.cache_hits, first.cache_misses, second.cache_hits, second.cache_misses) == (0, 6, 6, 0)
    # The gold's DISTINCT removed, it is the prediction: the same bag of rows.
    assert outcomes(first)["gold"].verdicts == {"answerkey": True, "test-suite": True, "bird": True, "spider2": False}
    assert second.document() == first.document()


def test_a_gold_that_fails_only_as_rewritten(databases):
    """IS DISTINCT FROM loses its DISTINCT and fails: under the test-suite headline the item is an
    error of the test (the official script stops there); under another, incorrect under test-suite
    with a warning; with keep-distinct, decided as written."""
    chosen = [SqlItem("is", "other", "SELECT n FROM t WHERE n IS DISTINCT FROM 1", "SELECT n FROM t WHERE n <> 1")]
    why = (
        "the gold query as test-suite-sql-eval runs it (DISTINCT removed) failed on 'other': "
        'near "FROM": syntax error'
    )
    headline = run(databases, chosen, semantics="test-suite")
    assert (headline.results[0].verdict, headline.results[0].outcome.reason) == ("error", why)
    other = run(databases, chosen)
    outcome = outcomes(other)["is"]
    assert (outcome.verdict, outcome.verdicts) == ("correct", {**ALL, "test-suite": False})
    assert f"  test-suite: incorrect: {why}" in outcome.disagreement.splitlines()
    assert [str(warning) for warning in other.warnings] == [f"item is: {why}; the item is incorrect under test-suite"]
    kept = run(databases, chosen, semantics="test-suite", test_suite_keep_distinct=True)
    assert (kept.results[0].verdict, kept.results[0].outcome.reason) == ("correct", "same bag of rows")


@pytest.mark.parametrize(("keep_distinct", "correct", "accuracy"), [(False, True, 3 / 12), (True, False, 2 / 12)])
def test_the_spider_example_gets_the_official_verdicts(tmp_path, keep_distinct, correct, accuracy):
    """The Spider example's prediction adding DISTINCT (item 1): correct under test-suite as the
    official script decides by default, incorrect with --keep_distinct; test-suite accuracy as the script's."""
    root = tmp_path / "spider"
    shutil.copytree(EXAMPLES / "spider", root)
    inputs = load_inputs(str(root / "gold.sql"), str(root / "pred.sql"))
    result = run_sql(inputs, SqlOptions(str(root / "database"), test_suite_keep_distinct=keep_distinct))
    assert result.results[1].item.predicted == "SELECT DISTINCT country FROM singer WHERE age > 30"
    assert result.results[1].outcome.verdicts["test-suite"] is correct
    assert result.summary.accuracy_by_semantics["test-suite"] == accuracy
