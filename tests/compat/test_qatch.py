"""answerkey.compat.qatch.MetricEvaluator behaves as QATCH 0.1-0.2.x's, on the typed model."""

from __future__ import annotations

import hashlib
import inspect
import sqlite3

import pandas as pd
import pytest

from answerkey.adapters.sql import Databases
from answerkey.compat.qatch import MetricEvaluator

FIVE = ["cell_precision", "cell_recall", "tuple_cardinality", "tuple_constraint", "tuple_order"]


@pytest.fixture
def spider(tmp_path):
    """A Spider-layout root with QATCH's `fraud` example table and a `uk` table."""
    (tmp_path / "bank").mkdir()
    with sqlite3.connect(tmp_path / "bank" / "bank.sqlite") as connection:
        connection.executescript(
            """
            CREATE TABLE fraud (emailisfree INTEGER, income REAL);
            INSERT INTO fraud VALUES (0, 0.3), (1, 0.9);
            CREATE TABLE uk (country TEXT, capital TEXT, population INTEGER);
            INSERT INTO uk VALUES ('wales', 'cardiff', 3), ('scotland', 'edinburgh', 5),
                                  ('england', 'london', 56);
            """
        )
    connection.close()
    return tmp_path


def test_defaults_and_signatures():
    """Constructor defaults and method signatures are QATCH's, so one import switches."""
    evaluator = MetricEvaluator()
    assert evaluator.metrics == FIVE and evaluator.databases is None
    assert MetricEvaluator(metrics="cell_recall").metrics == ["cell_recall"]
    assert list(inspect.signature(MetricEvaluator.evaluate_with_df).parameters) == [
        "self",
        "df",
        "prediction_col_name",
        "task",
        "target_col_name",
        "keep_target",
    ]
    assert inspect.signature(MetricEvaluator.evaluate_with_df).parameters["target_col_name"].default == "query"
    for method in (MetricEvaluator.evaluate_single_test_QA, MetricEvaluator.evaluate_single_test_SP):
        assert list(inspect.signature(method).parameters) == [
            "self",
            "test",
            "prediction_col_name",
            "target_col_name",
        ]
    assert isinstance(inspect.getattr_static(MetricEvaluator, "are_cleaned_sql_identical"), staticmethod)


def test_unknown_metric():
    """An unknown metric name is refused up front with the known names."""
    with pytest.raises(ValueError, match="unknown metric 'bleu'; known: cell_precision, cell_recall"):
        MetricEvaluator(metrics=["cell_precision", "bleu"])


def test_qa_documented_example():
    """QATCH's evaluate_single_test_QA example (reference document): rows of different length."""
    evaluator = MetricEvaluator(databases=None, metrics=["cell_precision", "cell_recall"])
    test = {
        "sql_tags": "SELECT",
        "prediction": [["wales", "scotland"], ["england"]],
        "target": [["scotland", "wales"], ["england"]],
    }
    assert evaluator.evaluate_single_test_QA(test, "prediction", "target") == {
        "cell_precision_prediction": 1.0,
        "cell_recall_prediction": 1.0,
    }


def test_qa_table_target_gets_tuple_order_and_all_five():
    """A target given as a table always gets tuple order (QATCH cannot see an ORDER BY)."""
    test = {"p": '[["a", "b"], ["c", "e"]]', "t": [["a", "b"], ["c", "d"]]}
    assert MetricEvaluator().evaluate_single_test_QA(test, "p", "t") == {
        "cell_precision_p": 0.75,
        "cell_recall_p": 0.75,
        "tuple_cardinality_p": 1.0,
        "tuple_constraint_p": 0.5,
        "tuple_order_p": 1.0,
    }


@pytest.mark.parametrize(
    "prediction",
    [None, [None], 5, "nonsense", "[1, 2]", [1, 2, 4], [[[1], [2]]], '[["x", Infinity]]', [[{"a": 1}]]],
)
def test_malformed_prediction_scores_zeros(prediction):
    """A prediction that is not a list of rows of values scores zeros on every metric."""
    test = {"prediction": prediction, "target": [["a"]]}
    assert MetricEvaluator().evaluate_single_test_QA(test, "prediction", "target") == {
        f"{metric}_prediction": 0.0 for metric in FIVE
    }


def test_qa_with_sql_target(spider):
    """A QA target given as SQL runs on db_id; without ORDER BY tuple order is None."""
    evaluator = MetricEvaluator(databases=spider)
    test = {
        "db_id": "bank",
        "query": "SELECT country, capital FROM uk",
        "answer": [["cardiff", "wales"], ["edinburgh", "scotland"]],
    }
    assert evaluator.evaluate_single_test_QA(test, "answer", "query") == {
        "cell_precision_answer": 1.0,
        "cell_recall_answer": 4 / 6,
        "tuple_cardinality_answer": 2 / 3,
        "tuple_constraint_answer": 2 / 3,
        "tuple_order_answer": None,
    }
    ordered = dict(test, query="SELECT country, capital FROM uk ORDER BY population")
    assert evaluator.evaluate_single_test_QA(ordered, "answer", "query")["tuple_order_answer"] == 0.5


def test_qa_sql_target_without_databases_is_an_error():
    """As in QATCH, a query target with no databases raises ValueError."""
    with pytest.raises(ValueError, match="no database is specified"):
        MetricEvaluator().evaluate_single_test_QA({"p": [["a"]], "q": "SELECT 1"}, "p", "q")


def test_sp_documented_example(spider):
    """QATCH's evaluate_single_test_SP example: precision 0.5, recall 1.0 (the extra income
    column brings two cells that are not in the target)."""
    evaluator = MetricEvaluator(spider, metrics=["cell_precision", "cell_recall"])
    test = {
        "db_id": "bank",
        "target": "SELECT DISTINCT emailisfree FROM fraud",
        "prediction": "SELECT emailisfree, income FROM fraud",
    }
    assert evaluator.evaluate_single_test_SP(test, "prediction", "target") == {
        "cell_precision_prediction": 0.5,
        "cell_recall_prediction": 1.0,
    }
    # The example as printed misspells the column: the query fails, so zeros.
    misspelt = dict(test, prediction="SELECT emailsisfree, income FROM fraud")
    assert evaluator.evaluate_single_test_SP(misspelt, "prediction", "target") == {
        "cell_precision_prediction": 0.0,
        "cell_recall_prediction": 0.0,
    }


def test_sp_identical_queries_score_one_without_running(spider):
    """Queries equal after QATCH's cleaning score 1 (tuple order only with ORDER BY)."""
    evaluator = MetricEvaluator(spider)
    test = {"db_id": "nowhere", "t": "SELECT a , b FROM x", "p": 'select "a", b from x'}
    assert evaluator.evaluate_single_test_SP(test, "p", "t") == {
        "cell_precision_p": 1.0,
        "cell_recall_p": 1.0,
        "tuple_cardinality_p": 1.0,
        "tuple_constraint_p": 1.0,
        "tuple_order_p": None,
    }
    ordered = {"db_id": "nowhere", "t": "SELECT a FROM x ORDER BY a", "p": "select a from x order by a"}
    assert evaluator.evaluate_single_test_SP(ordered, "p", "t")["tuple_order_p"] == 1.0


def test_sp_failures_score_zeros_and_leave_the_database_alone(spider):
    """A failing target or prediction gives zeros; a predicted DROP TABLE changes nothing."""
    path = spider / "bank" / "bank.sqlite"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    evaluator = MetricEvaluator(Databases(spider), metrics=["cell_recall", "execution_accuracy"])
    zeros = {"cell_recall_p": 0.0, "execution_accuracy_p": 0.0}
    target = "SELECT country FROM uk"
    for prediction in ["DROP TABLE uk", "INSERT INTO uk VALUES ('x', 'y', 1)", "ATTACH 'x.sqlite' AS x"]:
        assert evaluator.evaluate_single_test_SP({"db_id": "bank", "t": target, "p": prediction}, "p", "t") == zeros
    assert evaluator.evaluate_single_test_SP({"db_id": "bank", "t": "SELECT nope", "p": target}, "p", "t") == zeros
    assert evaluator.evaluate_single_test_SP({"db_id": "mars", "t": target, "p": target + " "}, "p", "t") == {
        "cell_recall_p": 1.0,
        "execution_accuracy_p": 1.0,
    }  # identical after cleaning: not run (QATCH's shortcut)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    good = {"db_id": "bank", "t": target, "p": "SELECT country FROM uk WHERE population > 4"}
    assert evaluator.evaluate_single_test_SP(good, "p", "t") == {"cell_recall_p": 2 / 3, "execution_accuracy_p": 0.0}


def test_qatch_multiple_databases_object(spider):
    """An object with a db_path (QATCH's MultipleDatabases) is read as the Spider root."""

    class MultipleDatabases:
        def __init__(self, db_path):
            self.db_path = db_path

    evaluator = MetricEvaluator(MultipleDatabases(str(spider)), metrics="tuple_cardinality")
    test = {"db_id": "bank", "q": "SELECT * FROM uk", "p": "SELECT * FROM uk LIMIT 1"}
    assert evaluator.evaluate_single_test_SP(test, "p", "q") == {"tuple_cardinality_p": 1 / 3}
    with pytest.raises(TypeError, match=r"databases must be None.* not an integer$"):
        MetricEvaluator(databases=42)


@pytest.mark.parametrize(
    "field, value",
    [
        ("t", "SELECT country FROM uk WHERE capital = '\ud800'"),
        ("p", "SELECT country FROM uk WHERE capital = '\udc00'"),
        ("db_id", "bank\ud800"),
    ],
)
def test_sp_lone_surrogates_score_zeros(spider, field, value):
    """A lone surrogate in the SQL or the db_id is not text SQLite can run: zeros, no exception
    (issue 19, item 1)."""
    evaluator = MetricEvaluator(spider)
    test = {"db_id": "bank", "t": "SELECT country FROM uk", "p": "SELECT capital FROM uk", field: value}
    assert evaluator.evaluate_single_test_SP(test, "p", "t") == {f"{metric}_p": 0.0 for metric in FIVE}


def test_result_size_limit_is_passed_on(spider):
    """max_result_bytes reaches the databases made from a path, with the other limits."""
    evaluator = MetricEvaluator(spider, timeout=2.5, max_rows=10, max_result_bytes=1000)
    databases = evaluator.databases
    assert (databases.timeout, databases.max_rows, databases.max_result_bytes) == (2.5, 10, 1000)


def test_evaluate_with_df_qa():
    """evaluate_with_df appends one column per metric to the frame, in row order."""
    df = pd.DataFrame(
        {
            "prediction": [[["wales", "scotland"], ["england"]], "oops"],
            "target": [[["scotland", "wales"], ["england"]], [["x"]]],
        }
    )
    evaluator = MetricEvaluator(databases=None, metrics=["cell_precision", "cell_recall"])
    result = evaluator.evaluate_with_df(df, "prediction", "QA", "target")
    assert list(result.columns) == ["prediction", "target", "cell_precision_prediction", "cell_recall_prediction"]
    assert result["cell_precision_prediction"].tolist() == [1.0, 0.0]
    assert result["cell_recall_prediction"].tolist() == [1.0, 0.0]


def test_evaluate_with_df_sp_keeps_none(spider):
    """For SP, tuple order stays None (not NaN) where the target has no ORDER BY."""
    df = pd.DataFrame(
        {
            "db_id": ["bank", "bank"],
            "query": ["SELECT country FROM uk ORDER BY population", "SELECT country FROM uk"],
            "prediction": ["SELECT country FROM uk ORDER BY population DESC", "SELECT capital FROM uk"],
        }
    )
    result = MetricEvaluator(spider, metrics=["tuple_order", "cell_recall"]).evaluate_with_df(df, "prediction", "sp")
    assert result["tuple_order_prediction"].tolist() == [0.0, None]
    assert result["cell_recall_prediction"].tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="task must be 'QA' or 'SP', not 'XX'"):
        MetricEvaluator(spider).evaluate_with_df(df, "prediction", "XX")


@pytest.mark.parametrize(
    "target, prediction, identical",
    [
        ("SELECT a FROM t", "select a from t", True),
        ("SELECT a , b FROM t", "SELECT a, b FROM t", True),
        ("SELECT 'x' FROM t", 'SELECT "x" FROM t', True),
        ("SELECT count(a) FROM t", "SELECT count( a ) FROM t", False),
        ("SELECT count(a) FROM t", "SELECT count ( a ) FROM t", True),
        ("SELECT a FROM t", "SELECT b FROM t", False),
    ],
)
def test_are_cleaned_sql_identical(target, prediction, identical):
    """QATCH's cleaning: case, ' ,', double spaces, quotes; ' ( ' and ' )' in the prediction."""
    assert MetricEvaluator.are_cleaned_sql_identical(target, prediction) is identical
