"""Every SQL-running entry of QATCH and VES runs its queries through ``answerkey.adapters.engines``:
the engines' read-only guarantee and limits hold for ``qatch --task sp``, the QATCH drop-ins and
VES's timed runs, and any engine (DuckDB too) can serve them."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from answerkey.adapters.engines import DuckDBEngine, SQLiteEngine, engine_of, run_on
from answerkey.adapters.sql import Databases
from answerkey.compat.qatch import MetricEvaluator, OrchestratorEvaluator
from answerkey.metrics.efficiency import measure_efficiency
from answerkey.qatch.run import QatchOptions, QatchTest, evaluate_test, run_qatch

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "qatch"
CITIES = "SELECT name FROM city WHERE country = 'Scotland'"


@pytest.fixture
def root(tmp_path):
    """A copy of the examples' Spider-layout root (tests must not touch the examples)."""
    copied = tmp_path / "databases"
    shutil.copytree(EXAMPLES / "databases", copied)
    return copied


class RecordingEngine(SQLiteEngine):
    """The SQLite engine, noting each query it is asked to run."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ran = []

    def run(self, database, query):
        self.ran.append(query)
        return super().run(database, query)


def _count(root):
    with sqlite3.connect(root / "uk" / "uk.sqlite") as connection:
        (count,) = connection.execute("SELECT count(*) FROM city").fetchone()
    connection.close()
    return count


def test_evaluate_test_runs_target_prediction_and_ves_through_the_engine(root):
    """The target, the prediction and each of VES's timed runs are queries of the engine given."""
    engine = RecordingEngine(root)
    outcome = evaluate_test(
        CITIES, CITIES + " ", task="sp", db_id="uk", databases=engine, metrics=["valid_efficiency_score"], ves_runs=3
    )
    assert outcome.scores["valid_efficiency_score"] > 0
    assert engine.ran == [CITIES, CITIES + " "] + [CITIES + " ", CITIES] * 3


def test_a_databases_root_runs_through_its_sqlite_engine(root):
    """An ``adapters.sql.Databases`` is turned into the SQLite engine of its root, limits kept."""
    engine = engine_of(Databases(root, timeout=7, max_rows=3, max_result_bytes=900))
    assert isinstance(engine, SQLiteEngine)
    assert (engine.location, engine.timeout, engine.max_rows, engine.max_result_bytes) == (str(root), 7, 3, 900)
    assert engine_of(engine) is engine
    assert run_on(engine, "mars", "SELECT 1").error == (
        f"no database 'mars' (expected '{root / 'mars' / 'mars.sqlite'}' or '{root / 'mars.sqlite'}')"
    )


def test_a_qatch_sp_run_is_read_only_and_bounded(root):
    """``qatch --task sp``: a predicted DROP TABLE is refused and changes nothing; the row limit holds."""
    before = _count(root)
    tests = [
        QatchTest("drop", 1, "uk", CITIES, "DROP TABLE city"),
        QatchTest("many", 2, "uk", CITIES, "SELECT name FROM city"),
    ]
    options = QatchOptions(task="sp", metrics=("cell_recall",), root=str(root), max_rows=before - 1)
    assert isinstance(options.databases(), SQLiteEngine)
    run = run_qatch(tests, options)
    assert [result.outcome.prediction_error for result in run.results] == [
        "the prediction query failed: not authorized",
        f"the prediction query failed: the query returned more than {before - 1} rows",
    ]
    assert _count(root) == before


def test_the_drop_ins_run_through_an_engine(root):
    """QATCH 0.2's MetricEvaluator takes an engine; a DROP TABLE scores 0 and changes nothing."""
    engine = RecordingEngine(root)
    evaluator = MetricEvaluator(engine, metrics=["cell_recall"])
    test = {"db_id": "uk", "query": CITIES, "prediction": "DROP TABLE city"}
    assert evaluator.evaluate_single_test_SP(test, "prediction", "query") == {"cell_recall_prediction": 0.0}
    assert engine.ran == [CITIES, "DROP TABLE city"]
    assert _count(root) > 0


def test_the_orchestrator_and_ves_keep_the_engines_limits(root):
    """QATCH 1.0's evaluator and ``measure_efficiency`` on a file path: read-only, row limit."""
    path = root / "uk" / "uk.sqlite"
    before = _count(root)
    evaluator = OrchestratorEvaluator(["cell_recall"], max_rows=1)
    with pytest.raises(ValueError, match=r"^Target gets an Error .*: the query returned more than 1 rows$"):
        evaluator.evaluate_single_test("SELECT name FROM city", CITIES, path)
    efficiency = measure_efficiency(CITIES, "DELETE FROM city", path, runs=2)
    assert (efficiency.score, efficiency.error) == (0.0, "the prediction query failed: not authorized")
    with pytest.raises(ValueError, match=r"^the target query failed: the query returned more than 1 rows$"):
        measure_efficiency("SELECT name FROM city", CITIES, path, runs=2, max_rows=1)
    assert _count(root) == before


def test_qatch_runs_on_a_duckdb_engine(tmp_path):
    """Through the engines, QATCH's SP tests run on DuckDB databases too."""
    duckdb = pytest.importorskip("duckdb")
    (tmp_path / "uk").mkdir()
    with duckdb.connect(str(tmp_path / "uk" / "uk.duckdb")) as connection:
        connection.execute("CREATE TABLE city (name TEXT, country TEXT)")
        connection.execute("INSERT INTO city VALUES ('Glasgow', 'Scotland'), ('Cardiff', 'Wales')")
    outcome = evaluate_test(
        CITIES,
        "SELECT name FROM city",
        task="sp",
        db_id="uk",
        databases=DuckDBEngine(tmp_path),
        metrics=["cell_precision", "cell_recall"],
    )
    assert outcome.scores == {"cell_precision": 0.5, "cell_recall": 1.0}
