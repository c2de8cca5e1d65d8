"""answerkey.compat.qatch.MetricEvaluator behaves as QATCH 0.1-0.2.x's, on the typed model."""

from __future__ import annotations

import hashlib
import inspect
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from answerkey.adapters.sql import Databases
from answerkey.comparator import MatchRule
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


# ---------------------------------------------------------------- QATCH 0.2.3's own tests

# QATCH 0.2.3's tests/test_metric_evaluator.py builds three databases holding one table.
QATCH_TABLE = "test_table"
QATCH_ROWS = [(1, "Alice"), (2, "Bob"), (3, "Charlie")]


@pytest.fixture
def qatch_databases(tmp_path):
    """QATCH 0.2.3's metric evaluator fixture: test_database_1..3, each with test_table."""
    for number in (1, 2, 3):
        name = f"test_database_{number}"
        (tmp_path / name).mkdir()
        with sqlite3.connect(tmp_path / name / f"{name}.sqlite") as connection:
            connection.execute(f"CREATE TABLE {QATCH_TABLE} (id INTEGER, name TEXT)")
            connection.executemany(f"INSERT INTO {QATCH_TABLE} VALUES (?, ?)", QATCH_ROWS)
        connection.close()
    return tmp_path


def _qatch_frame(queries, predictions):
    return pd.DataFrame(
        {"db_id": [f"test_database_{number}" for number in (1, 2, 3)], "query": queries, "prediction": predictions}
    )


def test_qatch_0_2_3_identical_and_failing_sp_queries(qatch_databases):
    """QATCH 0.2.3 test_get_SP_query_results_from_db_equal / _error_query: the same query
    scores 1 everywhere (unrun: its table `table` does not exist); a failing one 0."""
    evaluator = MetricEvaluator(databases=qatch_databases)
    same = {
        "db_id": "test_database_1",
        "query": 'SELECT * FROM  table ORDER BY "name" ASC',
        "prediction": 'SELECT * FROM  table ORDER BY "name" ASC',
    }
    assert evaluator.evaluate_single_test_SP(same, "prediction", "query") == {f"{m}_prediction": 1.0 for m in FIVE}
    failing = dict(same, prediction='SELECT * FROM  wrong_table ORDER BY "name" ASC')
    assert evaluator.evaluate_single_test_SP(failing, "prediction", "query") == {f"{m}_prediction": 0.0 for m in FIVE}


@pytest.mark.parametrize(
    "target, prediction, identical",
    [
        ("Hello, World!", "Hello, World!", True),
        ("Hello World", "HELLO WORLD", True),
        ("Hello, World", "Hello World", False),
        ("Hello World", "Hello, World!", False),
        ("(A, B)", " ( A , B)", True),
        ("Hello", "Hello World", False),
        ("", "", True),
    ],
)
def test_qatch_0_2_3_create_mask_target_equal_prediction(target, prediction, identical):
    """QATCH 0.2.3 test_create_mask_target_equal_prediction: its seven cleaning cases."""
    assert MetricEvaluator.are_cleaned_sql_identical(target, prediction) is identical


@pytest.mark.parametrize(
    "prediction, expected",
    [
        # every prediction the same as its query: 1 everywhere, tuple order None (no ORDER BY)
        (f"SELECT * FROM {QATCH_TABLE}", [1.0, 1.0, 1.0, 1.0, None]),
        # QATCH asserts only that cell recall and tuple constraint are not 1
        (f'SELECT "name" FROM {QATCH_TABLE}', [1.0, 0.5, 1.0, 0.0, None]),
    ],
)
def test_qatch_0_2_3_evaluate_with_df_no_order(qatch_databases, prediction, expected):
    """QATCH 0.2.3 test_evaluate_with_df_no_order, with the exact values."""
    df = _qatch_frame([f"SELECT * FROM {QATCH_TABLE}"] * 3, [prediction] * 3)
    result = MetricEvaluator(qatch_databases).evaluate_with_df(df, "prediction", task="SP")
    assert [result[f"{metric}_prediction"].tolist() for metric in FIVE] == [[value] * 3 for value in expected]


@pytest.mark.parametrize(
    "query, prediction, expected",
    [
        (
            f'SELECT * FROM {QATCH_TABLE} ORDER BY "name" ASC',
            f'SELECT * FROM {QATCH_TABLE} ORDER BY "name" ASC',
            [1.0] * 5,
        ),
        # only tuple order differs (QATCH: "not 1")
        (
            f'SELECT * FROM {QATCH_TABLE} ORDER BY "name" DESC',
            f'SELECT * FROM {QATCH_TABLE} ORDER BY "name" ASC',
            [1.0, 1.0, 1.0, 1.0, 0.0],
        ),
        # a prediction that fails: every metric 0
        (f'SELECT * FROM {QATCH_TABLE} ORDER BY "name" DESC', f"SELECT * FROM {QATCH_TABLE} ORDER BY ASC", [0.0] * 5),
    ],
)
def test_qatch_0_2_3_evaluate_with_df_with_order(qatch_databases, query, prediction, expected):
    """QATCH 0.2.3 test_evaluate_with_df_with_order, with the exact values."""
    df = _qatch_frame([query] * 3, [prediction] * 3)
    result = MetricEvaluator(qatch_databases).evaluate_with_df(df, "prediction", task="SP")
    assert [result[f"{metric}_prediction"].tolist() for metric in FIVE] == [[value] * 3 for value in expected]


# QATCH 0.2.3's metric tests (tests/test_metrics/test_<metric>.py, the *Tag classes):
# (source test, metric, target, prediction, QATCH's expected value), run through
# evaluate_single_test_QA (a table target gets every metric, tuple order too). QATCH rounds to
# three decimals; answerkey does not, so the comparison rounds.
QATCH_0_2_CASES = [
    ("cell_precision::no_matching_cells", "cell_precision", [["a", "b"], ["c", "d"]], [["x", "y"], ["z", "w"]], 0.0),
    ("cell_precision::all_matching_cells", "cell_precision", [["a", "b"], ["c", "d"]], [["a", "b"], ["c", "d"]], 1.0),
    (
        "cell_precision::partial_matching_cells",
        "cell_precision",
        [["a", "b"], ["c", "d"]],
        [["a", "x"], ["y", "d"]],
        0.5,
    ),
    ("cell_precision::empty_values (1)", "cell_precision", [], [], 1.0),
    ("cell_precision::empty_values (2)", "cell_precision", "[]", "[]", 1.0),
    ("cell_precision::single_cell_table", "cell_precision", [["a"]], [["a"]], 1.0),
    ("cell_precision::no_cells_in_prediction", "cell_precision", [["a", "b"], ["c", "d"]], [], 0.0),
    ("cell_precision::no_cells_in_target", "cell_precision", [], [["a", "b"], ["c", "d"]], 0.0),
    (
        "cell_precision::duplicate_cells_in_prediction",
        "cell_precision",
        [["a", "b"], ["c", "d"]],
        [["a", "a"], ["b", "b"], ["c", "d"]],
        1.0,
    ),
    (
        "cell_precision::special_chatgpt_case",
        "cell_precision",
        [["573585", "10/31/2019", "22282", "12-Egg-House-Painted-Wood", 35.83, 2, 14585.0, "United-Kingdom"]],
        [["573585"]],
        1.0,
    ),
    ("cell_recall::no_matching_cells", "cell_recall", [["a", "b"], ["c", "d"]], [["x", "y"], ["z", "w"]], 0.0),
    ("cell_recall::partial_matching_cells", "cell_recall", [["a", "b"], ["c", "d"]], [["a", "x"], ["y", "d"]], 0.5),
    ("cell_recall::empty_tables", "cell_recall", "[]", "[]", 1.0),
    (
        "cell_recall::duplicate_cells_in_prediction",
        "cell_recall",
        [["a", "b"], ["c", "d"]],
        [["a", "a"], ["b", "b"], ["c", "d"]],
        1.0,
    ),
    (
        "cell_recall::special_chatgpt_case (1)",
        "cell_recall",
        [["573585", "10/31/2019", "22282", "12-Egg-House-Painted-Wood", 35.83, 2, 14585.0, "United-Kingdom"]],
        [["573585"]],
        round(1 / 8, 3),
    ),
    (
        "tuple_cardinality::target_greater_than_prediction",
        "tuple_cardinality",
        [["a", "b"], ["c", "d"], ["e", "f"]],
        [["a", "b"]],
        round(1 / 3, 3),
    ),
    (
        "tuple_cardinality::prediction_greater_than_target",
        "tuple_cardinality",
        [["a", "b"]],
        [["a", "b"], ["c", "d"], ["e", "f"]],
        round(1 / 3, 3),
    ),
    (
        "tuple_cardinality::empty_prediction_with_non_empty_target",
        "tuple_cardinality",
        [["a", "b"], ["c", "d"]],
        [],
        0.0,
    ),
    (
        "tuple_constraint::no_matching_tuples",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["a", "y"], ["c", "w"]],
        0.0,
    ),
    (
        "tuple_constraint::partial_matching_tuples",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["a", "b"], ["a", "b"], ["c", "d"]],
        0.5,
    ),
    (
        "tuple_constraint::duplicate_tuples_in_target",
        "tuple_constraint",
        [["a", "b"], ["a", "b"], ["c", "d"]],
        [["a", "b"], ["c", "d"]],
        0.5,
    ),
    (
        "tuple_constraint::all_matching_tuples_diff_order",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["d", "c"], ["b", "a"]],
        1.0,
    ),
    (
        "tuple_constraint::special_case (3)",
        "tuple_constraint",
        [[1, 2], ["c", "d"]],
        [[1, 2], ["d", "c"], ["a", "b"]],
        1.0,
    ),
    (
        "tuple_constraint::special_case (4)",
        "tuple_constraint",
        [[1, 2], [1, "d"]],
        [[1, 2], ["d", 1], ["a", "b"]],
        1.0,
    ),
    (
        "tuple_constraint::four_rows_for_two",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["a", "b"], ["a", "b"], ["c", "d"], ["c", "d"]],
        0.0,
    ),
    (
        "tuple_order::opposite_direction (1)",
        "tuple_order",
        [["apple", "orange"], ["pear"]],
        [["pear"], ["apple", "orange"]],
        0.0,
    ),
    ("tuple_order::opposite_direction (2)", "tuple_order", [["a"], ["b"], ["c"]], [["c"], ["b"], ["a"]], 0.0),
    ("tuple_order::empty_input", "tuple_order", [], [], 1.0),
    ("tuple_order::same_order", "tuple_order", [["a"], ["b"], ["c"]], [["a"], ["b"], ["c"]], 1.0),
    ("tuple_order::more_elements_pred", "tuple_order", [["a"], ["b"], ["c"], ["d"]], [["c"], ["b"], ["e"], ["f"]], 0.0),
    (
        "tuple_order::more_elements_target",
        "tuple_order",
        [["a"], ["a"], ["a"], ["b"], ["c"], ["d"]],
        [["a"], ["b"], ["b"], ["c"], ["e"]],
        1.0,
    ),
    # QATCH asserts only "neither 0 nor 1": no common row is rho 0, scaled to 0.5.
    ("tuple_order::no_correlation", "tuple_order", [["a"], ["b"], ["c"]], [["d"], ["e"], ["f"]], 0.5),
    # the tuple order docstring's third example
    ("tuple_order::docstring", "tuple_order", [["apple", "orange"], ["pear"]], [["pear"]], 1.0),
]


@pytest.mark.parametrize(
    "metric, target, prediction, expected",
    [case[1:] for case in QATCH_0_2_CASES],
    ids=[case[0] for case in QATCH_0_2_CASES],
)
def test_qatch_0_2_3_metric_tests(metric, target, prediction, expected):
    """Each QATCH 0.2.3 metric test case, through evaluate_single_test_QA, gives QATCH's value
    (to QATCH's three decimals)."""
    scores = MetricEvaluator(metrics=[metric]).evaluate_single_test_QA({"t": target, "p": prediction}, "p", "t")
    assert round(scores[f"{metric}_p"], 3) == expected


def test_qatch_0_2_3_counts_duplicate_cells():
    """QATCH 0.2.3's cell recall counts every target cell, duplicates included (its test
    special_chatgpt_case: 2 of 20 cells, 0.1); answerkey counts distinct cells, as QATCH 1.0
    does (1 of 14, 0.071): a documented difference."""
    target = [
        ["False", "BC", 18, 0.8, "AB", "CA", 99, 5.4796861662000005, "windows", "Paid"],
        ["True", "BC", 18, 0.8, "AB", "CA", 157, 9.7706304446, "linux", "Paid"],
    ]
    scores = MetricEvaluator(metrics=["cell_recall"]).evaluate_single_test_QA(
        {"t": target, "p": [[18], [18]]}, "p", "t"
    )
    assert scores == {"cell_recall_p": 1 / 14}


def test_qatch_0_2_3_cells_are_typed_not_normalised():
    """QATCH 0.2.3 lower-cases cells and rounds reals to two decimals (its normalize_cell
    test: 'HELLO\\n ' is 'hello', 3.14159 is '3.14'); answerkey compares typed values, so those
    differ unless a rule says otherwise (a documented difference)."""
    evaluator = MetricEvaluator(metrics=["cell_recall"])
    assert evaluator.evaluate_single_test_QA({"t": [["HELLO\n "]], "p": [["hello"]]}, "p", "t") == {
        "cell_recall_p": 0.0
    }
    assert evaluator.evaluate_single_test_QA({"t": [[3.14159]], "p": [[3.14]]}, "p", "t") == {"cell_recall_p": 0.0}
    folded = MetricEvaluator(metrics=["cell_recall"], rule=MatchRule(strings="fold"))
    assert folded.evaluate_single_test_QA({"t": [["HELLO\n "]], "p": [["hello"]]}, "p", "t") == {"cell_recall_p": 1.0}


# ---------------------------------------------------------------- the bundled example

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "qatch"


def test_bundled_sp_example_with_metric_evaluator():
    """evaluate_with_df on the bundled SQLite example (sp-tests.jsonl): QATCH 0.2.3's values
    but for mean-population (QATCH 0.2.3: 0, 0, 1, 0: it compares 16761925.0 with 16762000.0
    rounded to two decimals; answerkey within epsilon 1e-4) and vandal (QATCH 0.2.3 runs the
    DROP TABLE); the database is left byte-identical."""
    database = EXAMPLES / "databases" / "uk" / "uk.sqlite"
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    df = pd.read_json(EXAMPLES / "sp-tests.jsonl", lines=True)
    result = MetricEvaluator(str(EXAMPLES / "databases")).evaluate_with_df(df, "prediction", "SP")
    scores = {row["id"]: [row[f"{metric}_prediction"] for metric in FIVE] for row in result.to_dict("records")}
    assert scores == {
        "capitals": [1.0, 1.0, 1.0, 1.0, None],
        "largest-first": [1.0, 1.0, 1.0, 1.0, 0.0],
        "mean-population": [1.0, 1.0, 1.0, 1.0, None],
        "scottish-cities": [0.5, 1.0, 1.0, 0.0, None],
        "big-cities": [1.0, 0.5, 0.5, 0.5, None],
        "vandal": [0.0] * 5,
        "typo": [0.0] * 5,  # a failing prediction: zeros, tuple order too (as QATCH 0.2.3)
    }
    assert hashlib.sha256(database.read_bytes()).hexdigest() == before


def test_bundled_qa_example_with_metric_evaluator():
    """evaluate_with_df on the bundled QA example (qa-tests.csv, tables as JSON text, which
    QATCH 0.2.3 does not read: it scores every row 0). Given the same tables as lists, QATCH
    0.2.3 agrees but for areas, where it reads 20779 and 20779.0 as different strings (0.75,
    0.75, 1, 0.5, 1); answerkey's typed numbers are equal."""
    df = pd.read_csv(EXAMPLES / "qa-tests.csv")
    result = MetricEvaluator().evaluate_with_df(df, "prediction", "QA")
    scores = {row["id"]: [row[f"{metric}_prediction"] for metric in FIVE] for row in result.to_dict("records")}
    assert scores == {
        "capitals": [1.0, 1.0, 1.0, 1.0, 0.9],
        "areas": [1.0, 1.0, 1.0, 1.0, 0.0],
        "islands": [0.5, 1.0, 0.5, 1.0, 1.0],
        "rambling": [0.0] * 5,
    }
