"""The workflows ask the metrics registry: a metric registered by a module of its own is a
choice (and, when it says so, a default) of answerkey score, qatch and sql, computed the way
its kind says and undefined where it needs an order the gold lacks; nothing else changes."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from answerkey.adapters.sql import Databases
from answerkey.cli import cli
from answerkey.comparator import MatchRule
from answerkey.execution.load import SqlInputs, SqlItem
from answerkey.execution.run import SqlOptions, run_sql
from answerkey.grammar import parse
from answerkey.metrics.table import table_rows
from answerkey.qatch.run import QatchOptions, evaluate_test
from answerkey.score.run import ScoreOptions, item_metrics

TABLE_SIX = (
    "cell_precision",
    "cell_recall",
    "tuple_cardinality",
    "tuple_constraint",
    "tuple_order",
    "execution_accuracy",
)
ROOT = Path(__file__).resolve().parents[2]
CORPUS = "examples/personnel/corpus.yaml"
ANSWERS = "examples/personnel/answers.jsonl"


def rows_over(target, prediction, *, rule=None):
    """The prediction's rows over the target's, at most 1."""
    return min(1.0, len(table_rows(prediction)) / max(len(table_rows(target)), 1))


@pytest.fixture
def table_metric(restored):
    """rows_over registered as a table metric and a default of score only; in_order as one
    that needs an ordered gold."""
    restored.register("rows_over", default_in=("score",))(rows_over)
    restored.register("in_order", needs=("order",))(lambda target, prediction, *, rule=None: 0.75)
    return restored


@pytest.fixture
def database(tmp_path):
    """ROOT/db/db.sqlite with t(n) = 1, 2."""
    path = tmp_path / "db" / "db.sqlite"
    path.parent.mkdir()
    with sqlite3.connect(path) as db:
        db.executescript("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2);")
    db.close()
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(cli, list(args))


def test_score_computes_a_registered_metric_and_its_default(table_metric, monkeypatch):
    """score computes the new metric beside the built-in ones, leaves one needing order
    undefined on an unordered answer, and adds it to its defaults (--metrics all) as declared."""
    values = item_metrics(parse("((1) (2))"), parse("((1))"), MatchRule(), ["cell_recall", "rows_over", "in_order"])
    assert values["cell_recall"] == 0.5 and values["rows_over"] == 0.5 and math.isnan(values["in_order"])
    ordered = item_metrics(parse("(ordered (1) (2))"), parse("((1))"), MatchRule(), ["in_order"])
    assert ordered == {"in_order": 0.75}
    assert ScoreOptions(metrics=("rows_over",)).metrics == ("rows_over",)
    monkeypatch.chdir(ROOT)
    report = json.loads(invoke("score", CORPUS, ANSWERS, "--json", "-", "-q").stdout)
    assert list(report["summary"]["metrics"]) == [*TABLE_SIX, "rows_over"]
    named = json.loads(invoke("score", CORPUS, ANSWERS, "--json", "-", "-q", "--metrics", "in_order").stdout)
    assert named["summary"]["metrics"] == {"in_order": 0.75}  # the mean over the ordered items


def test_a_metric_defaults_only_where_it_says(table_metric):
    """Declared a default of score, rows_over stays out of the qatch and sql defaults."""
    assert QatchOptions(task="qa").metrics == TABLE_SIX
    assert SqlOptions("dbs").metrics == (*TABLE_SIX, "soft_f1")
    assert table_metric.defaults_for("score") == (*TABLE_SIX, "rows_over")


def test_qatch_computes_a_registered_metric(table_metric):
    """qatch computes the new metric from the two tables (a table target is ordered), and gives
    it no value on a test in error."""
    outcome = evaluate_test([["a"], ["b"]], [["a"]], task="qa", metrics=["rows_over", "in_order", "cell_recall"])
    assert outcome.scores == {"rows_over": 0.5, "in_order": 0.75, "cell_recall": 0.5}
    outcome = evaluate_test("SELECT 1", "SELECT 1", task="sp", metrics=["in_order"])
    assert outcome.scores == {"in_order": None}  # a test error: no databases


def test_qatch_cli_takes_the_new_metric(table_metric, tmp_path, database):
    """answerkey qatch --metrics rows_over reports it; tuple-order-like metrics are null without ORDER BY."""
    tests = tmp_path / "tests.jsonl"
    tests.write_text(json.dumps({"db_id": "db", "query": "SELECT n FROM t", "prediction": "SELECT 1"}) + "\n")
    result = invoke("qatch", str(tests), "--task", "sp", "--db", str(database), "--metrics", "rows_over,in_order")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:3] == [
        "metric       mean  tests",
        "rows_over  0.5000      1",
        "in_order        -      0",
    ]


def test_sql_computes_registered_metrics_of_each_kind(restored, database):
    """sql computes a table metric on the typed rows, a result metric on the two QueryResults,
    and an SQL metric from the two queries and a function running them, in the order named."""
    restored.register("rows_over")(rows_over)
    restored.register("result_rows", kind="result")(lambda gold, predicted: predicted.row_count / gold.row_count)

    @restored.register("query_rows", kind="sql")
    def query_rows(target_query, predicted_query, *, database, rule=None):
        return len(database(predicted_query).rows) / len(database(target_query).rows)

    names = ("query_rows", "soft_f1", "rows_over", "result_rows")
    item = SqlItem("one", "db", "SELECT n FROM t", "SELECT n FROM t WHERE n = 1")
    missing = SqlItem("two", "db", "SELECT n FROM t", None)
    run = run_sql(SqlInputs("answerkey", "g", "p", [item, missing]), SqlOptions(str(database), metrics=names))
    first, second = (result.outcome.metrics for result in run.results)
    assert first == {"query_rows": 0.5, "soft_f1": 2 / 3, "rows_over": 0.5, "result_rows": 0.5}
    assert second == dict.fromkeys(names, 0.0)


def test_qatch_computes_an_sql_metric_for_sp_tests_only(restored, database):
    """An SQL metric runs both queries on the test's database; a QA run refuses it."""

    @restored.register("query_rows", kind="sql")
    def query_rows(target_query, predicted_query, *, database, rule=None):
        return len(database(predicted_query).rows) / len(database(target_query).rows)

    outcome = evaluate_test(
        "SELECT n FROM t",
        "SELECT n FROM t WHERE n = 1",
        task="sp",
        db_id="db",
        databases=Databases(database),
        metrics=["query_rows", "cell_recall"],
    )
    assert outcome.scores == {"query_rows": 0.5, "cell_recall": 0.5}
    with pytest.raises(ValueError, match="query_rows applies only to task sp"):
        QatchOptions(task="qa", metrics=("query_rows",))


def test_an_unregistered_name_is_refused_with_the_registry_s_choices():
    """Each workflow names its own choices, from the registry, when a metric is unknown."""
    with pytest.raises(
        ValueError, match=r"unknown metric 'bleu'; known: cell_precision, .*, soft_f1, valid_efficiency_score$"
    ):
        SqlOptions("dbs", metrics=("bleu",))
    result = invoke("sql", "g.sql", "p.sql", "--db", "dbs", "--metrics", "bleu")
    assert result.exit_code == 2
    assert "unknown metric 'bleu'; known: cell_precision" in result.output
