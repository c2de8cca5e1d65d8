"""answerkey.compat.qatch.OrchestratorEvaluator behaves as QATCH 1.0's, on read-only SQLite.

Expected values marked "QATCH 1.0.36" were taken from its tests (tests/test_metrics/*.py,
run_metric versions) or from running QATCH 1.0.36 on the bundled example; deliberate
differences are noted where they occur.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import math
import shutil
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from answerkey.compat.qatch import EVALUATOR_NAMES, OrchestratorEvaluator
from answerkey.metrics.table import tuple_order

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "qatch"
UK = EXAMPLES / "databases" / "uk" / "uk.sqlite"
SIX = ["cell_precision", "cell_recall", "tuple_cardinality", "tuple_order", "tuple_constraint", "execution_accuracy"]
SEVEN = [*SIX, "valid_efficiency_score"]


def _digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture
def uk(tmp_path):
    """A copy of the bundled uk.sqlite (for tests that try to change it)."""
    path = tmp_path / "uk.sqlite"
    shutil.copyfile(UK, path)
    return path


def _database(path, rows):
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (name TEXT, n INTEGER)")
        connection.executemany("INSERT INTO t VALUES (?, ?)", rows)
    connection.close()
    return path


def test_names_defaults_and_signatures():
    """QATCH 1.0's evaluator names, its default (all seven, also for an empty list) and its
    method signatures, so that one import switches."""
    assert list(EVALUATOR_NAMES) == [*SIX, "VES"]
    for names in (None, []):
        evaluator = OrchestratorEvaluator(names)
        assert evaluator.evaluator_names == [*SIX, "VES"]
        assert evaluator.metrics == SEVEN
    assert OrchestratorEvaluator("tuple_order").metrics == ["tuple_order"]
    # VES is reported as valid_efficiency_score, under which name it may also be asked for.
    assert OrchestratorEvaluator(["VES", "valid_efficiency_score", "cell_recall"]).metrics == [
        "valid_efficiency_score",
        "cell_recall",
    ]
    assert next(iter(inspect.signature(OrchestratorEvaluator).parameters)) == "evaluator_names"
    assert list(inspect.signature(OrchestratorEvaluator.evaluate_df).parameters) == [
        "self",
        "df",
        "target_col_name",
        "prediction_col_name",
        "db_path_name",
    ]
    assert list(inspect.signature(OrchestratorEvaluator.evaluate_single_test).parameters) == [
        "self",
        "target_query",
        "predicted_query",
        "connector",
    ]


def test_bad_names_and_options():
    """An unknown evaluator name is a ValueError naming the known ones (QATCH 1.0: KeyError);
    a bad run count and a bad connector are refused in words."""
    with pytest.raises(
        ValueError, match=r"unknown evaluator 'bleu'; known: cell_precision, .*, execution_accuracy, VES$"
    ):
        OrchestratorEvaluator(["cell_recall", "bleu"])
    with pytest.raises(ValueError, match="runs must be a whole number, 1 or more, not 0"):
        OrchestratorEvaluator(ves_runs=0)
    with pytest.raises(TypeError, match=r"connector must be .* or None, not an integer$"):
        OrchestratorEvaluator(SIX).evaluate_single_test("SELECT 1", "SELECT 2", 42)


# The bundled example (examples/qatch/sp-tests.jsonl) as QATCH 1.0.36 scores it, in the
# order cell_precision, cell_recall, tuple_cardinality, tuple_order, tuple_constraint,
# execution_accuracy (None: tuple order does not apply).
BUNDLED = {
    "capitals": [1.0, 1.0, 1.0, None, 1.0, 1.0],
    "largest-first": [1.0, 1.0, 1.0, 0.0, 1.0, 1.0],
    # QATCH 1.0.36: 0, 0, 1, -, 0, 0: it compares 16761925.0 with 16762000.0 exactly; answerkey
    # within the relative epsilon 1e-4 (a deliberate difference).
    "mean-population": [1.0, 1.0, 1.0, None, 1.0, 1.0],
    "scottish-cities": [0.5, 1.0, 1.0, None, 0.0, 0.0],
    "big-cities": [1.0, 0.5, 0.5, None, 0.5, 0.0],
    # QATCH 1.0.36 runs the DROP TABLE on the database: the table is gone for the tests after
    # it, and evaluate_df raises ResourceClosedError. answerkey refuses it: zeros.
    "vandal": [0.0, 0.0, 0.0, None, 0.0, 0.0],
    "typo": [0.0, 0.0, 0.0, None, 0.0, 0.0],
}


def test_evaluate_df_on_the_bundled_example():
    """evaluate_df on the bundled SQLite example gives QATCH 1.0.36's values (but for the
    documented differences above), as QATCH builds its DataFrame: the original rows in their
    order, a fresh index, the metric columns appended, tuple order NaN where it does not
    apply; the input frame and the database are left unchanged."""
    before = _digest(UK)
    df = pd.read_json(EXAMPLES / "sp-tests.jsonl", lines=True)
    df["db_path"] = str(UK)
    df.index = [f"row{number}" for number in range(len(df))]
    original = df.copy()
    result = OrchestratorEvaluator(SIX).evaluate_df(df, "query", "prediction", "db_path")
    assert list(result.columns) == [*original.columns, *SIX]
    assert list(result.index) == list(range(len(df)))
    assert result["id"].tolist() == list(BUNDLED)
    for metric in SIX:
        assert result[metric].dtype == "float64"
    for row, expected in zip(result.to_dict("records"), BUNDLED.values()):
        got = [None if math.isnan(row[metric]) else row[metric] for metric in SIX]
        assert got == expected, row["id"]
    pd.testing.assert_frame_equal(df, original)
    assert _digest(UK) == before


def test_evaluate_single_test_on_the_bundled_example():
    """evaluate_single_test gives the same values as a dict, tuple order None without ORDER BY."""
    df = pd.read_json(EXAMPLES / "sp-tests.jsonl", lines=True)
    evaluator = OrchestratorEvaluator(SIX)
    for test in df.to_dict("records"):
        assert evaluator.evaluate_single_test(test["query"], test["prediction"], str(UK)) == dict(
            zip(SIX, BUNDLED[test["id"]])
        )


def test_ves_on_the_bundled_example():
    """With all seven evaluators: VES is exactly 0 for a wrong or failing prediction, 1.0 for
    the same query (QATCH 1.0's shortcut, not run), and a measured value above 0 for a
    correct one. Times are real: only bounds are asserted."""
    df = pd.read_json(EXAMPLES / "sp-tests.jsonl", lines=True).assign(db_path=str(UK))
    result = OrchestratorEvaluator(ves_runs=3).evaluate_df(df, "query", "prediction", "db_path")
    assert list(result.columns[-7:]) == SEVEN
    ves = dict(zip(result["id"], result["valid_efficiency_score"]))
    assert ves["capitals"] == 1.0
    assert 0 < ves["largest-first"] < math.inf and 0 < ves["mean-population"] < math.inf
    assert [ves[name] for name in ("scottish-cities", "big-cities", "vandal", "typo")] == [0.0] * 4


def test_same_query_text_scores_one_without_running():
    """Target and prediction equal but for letter case score 1.0 everywhere, unrun (the
    database need not exist); tuple order only with ORDER BY (QATCH 1.0)."""
    evaluator = OrchestratorEvaluator()
    assert evaluator.evaluate_single_test("SELECT name FROM country", "select NAME from country", "nowhere.sqlite") == {
        **dict.fromkeys(SEVEN, 1.0),
        "tuple_order": None,
    }
    ordered = evaluator.evaluate_single_test("SELECT a FROM t ORDER BY a", "SELECT a FROM t order by a", None)
    assert ordered == dict.fromkeys(SEVEN, 1.0)


def test_failing_queries(uk, caplog):
    """A failing prediction scores 0.0 everywhere (tuple order 0.0 with ORDER BY, else None)
    and is logged; a failing target raises QATCH 1.0's ValueError, with SQLite's reason."""
    evaluator = OrchestratorEvaluator()
    with caplog.at_level(logging.WARNING, logger="answerkey.compat.qatch"):
        assert evaluator.evaluate_single_test("SELECT name FROM country", "SELECT nme FROM country", uk) == {
            **dict.fromkeys(SEVEN, 0.0),
            "tuple_order": None,
        }
    assert caplog.messages == ["the prediction scores 0: no such column: nme"]
    ordered = evaluator.evaluate_single_test("SELECT name FROM country ORDER BY name", "SELECT nme FROM country", uk)
    assert ordered == dict.fromkeys(SEVEN, 0.0)
    with pytest.raises(ValueError, match=r"^Target gets an Error `SELECT nope FROM country`: no such column: nope$"):
        evaluator.evaluate_single_test("SELECT nope FROM country", "SELECT name FROM country", uk)
    # A predicted write is refused and the file stays byte-identical.
    before = _digest(uk)
    assert evaluator.evaluate_single_test("SELECT count(*) FROM country", "DROP TABLE country", uk)["cell_recall"] == 0
    assert _digest(uk) == before


def test_tuple_order_needs_order_by_in_the_target(uk):
    """Tuple order is computed only for an SQL target with ORDER BY (in any case and spacing);
    a table target never gets it (QATCH 1.0, unlike 0.2)."""
    evaluator = OrchestratorEvaluator(["tuple_order", "cell_recall"])
    target = "SELECT name FROM country ORDER BY population DESC"
    assert evaluator.evaluate_single_test(target, "SELECT name FROM country ORDER BY population", uk) == {
        "tuple_order": 0.0,
        "cell_recall": 1.0,
    }
    spaced = "SELECT name FROM country order\n  by population DESC"  # QATCH 1.0 looks for "order by" only
    ascending = "SELECT name FROM country ORDER BY population"
    assert evaluator.evaluate_single_test(spaced, ascending, uk)["tuple_order"] == 0.0
    assert evaluator.evaluate_single_test("SELECT name FROM country", target, uk)["tuple_order"] is None
    assert evaluator.evaluate_single_test([["b"], ["a"]], [["a"], ["b"]], None) == {
        "tuple_order": None,
        "cell_recall": 1.0,
    }


def test_only_the_metrics_asked_for(uk):
    """A result holds the metrics asked for, in their order (QATCH 1.0 adds tuple_order as
    None, or raises KeyError when the target has ORDER BY)."""
    evaluator = OrchestratorEvaluator(["execution_accuracy", "cell_precision"])
    target = "SELECT name FROM country ORDER BY 1"
    assert evaluator.evaluate_single_test(target, "SELECT capital FROM country", uk) == {
        "execution_accuracy": 0.0,
        "cell_precision": 0.0,
    }


def test_tables_need_no_database():
    """Tables (lists of rows) are compared without a database (QATCH 1.0.36's values for this
    pair); VES is 0.0 where a side is a table; a prediction that is not a table scores 0."""
    evaluator = OrchestratorEvaluator()
    target, prediction = [["a", "b"], ["c", "d"]], [["a", "b"], ["c", "e"]]
    assert evaluator.evaluate_single_test(target, prediction, None) == {
        "cell_precision": 0.75,
        "cell_recall": 0.75,
        "tuple_cardinality": 1.0,
        "tuple_order": None,
        "tuple_constraint": 0.5,
        "execution_accuracy": 0.0,
        "valid_efficiency_score": 0.0,
    }
    assert evaluator.evaluate_single_test([["a"]], [["a"]], None)["valid_efficiency_score"] == 0.0
    for malformed in (None, [1, 2], [[["nested"]]], 5):
        assert evaluator.evaluate_single_test(target, malformed, None) == {
            **dict.fromkeys(SEVEN, 0.0),
            "tuple_order": None,
        }
    with pytest.raises(ValueError, match=r"^Target gets an Error `None`: it is neither SQL text nor a table"):
        evaluator.evaluate_single_test(None, prediction, None)


def test_sql_needs_a_database(uk):
    """SQL without a connector is a ValueError that says what to give; a table target with
    an SQL prediction runs the prediction on the database."""
    evaluator = OrchestratorEvaluator(["cell_recall"])
    with pytest.raises(ValueError, match="the prediction is SQL but there is no database: give connector"):
        evaluator.evaluate_single_test([["Cardiff"]], "SELECT capital FROM country", None)
    with pytest.raises(ValueError, match="the target is SQL but there is no database"):
        evaluator.evaluate_single_test("SELECT capital FROM country", [["Cardiff"]], None)
    assert evaluator.evaluate_single_test([["Cardiff"]], "SELECT capital FROM country", uk) == {"cell_recall": 1.0}


def test_connector_forms(uk):
    """The connector is a path (text or Path) or an object with a db_path, as QATCH 1.0's
    SqliteConnector (whose db_path is the file)."""

    class SqliteConnector:
        def __init__(self, relative_db_path, db_name):
            self.db_path = relative_db_path
            self.db_name = db_name

    evaluator = OrchestratorEvaluator(["tuple_cardinality"])
    target, prediction = "SELECT name FROM city", "SELECT name FROM city WHERE population > 500000"
    for connector in (uk, str(uk), SqliteConnector(str(uk), "_")):
        assert evaluator.evaluate_single_test(target, prediction, connector) == {"tuple_cardinality": 0.5}
    with pytest.raises(ValueError, match=r"^Target gets an Error `SELECT 1`: no database file"):
        evaluator.evaluate_single_test("SELECT 1", [["2"]], uk.parent / "missing.sqlite")


def test_evaluate_df_groups_rows_by_database(tmp_path):
    """Each row runs on the database of its own row, rows of one database together, and the
    rows come back in their original order; a row with no database may compare tables."""
    first = _database(tmp_path / "first.sqlite", [("a", 1), ("b", 2)])
    second = _database(tmp_path / "second.sqlite", [("a", 1)])
    df = pd.DataFrame(
        {
            "db": [str(first), str(second), str(first), None],
            "target": ["SELECT name FROM t", "SELECT name FROM t", "SELECT n FROM t", [["x"]]],
            "prediction": [
                "SELECT name FROM t WHERE n = 1",
                "SELECT name FROM t WHERE n = 1",
                "SELECT n FROM t",
                [["x"]],
            ],
        }
    )
    result = OrchestratorEvaluator(["tuple_cardinality", "execution_accuracy"]).evaluate_df(
        df, "target", "prediction", "db"
    )
    assert result["tuple_cardinality"].tolist() == [0.5, 1.0, 1.0, 1.0]
    assert result["execution_accuracy"].tolist() == [0.0, 1.0, 1.0, 1.0]
    assert result["db"].tolist()[:3] == df["db"].tolist()[:3]


def test_database_paths_must_be_paths(uk):
    """A database column holding something else than paths is a TypeError naming the row."""
    df = pd.DataFrame({"q": ["SELECT 1", "SELECT 1"], "p": ["SELECT 1", "SELECT 1"], "db": [str(uk), 7]})
    with pytest.raises(TypeError, match=r"^the column 'db' must hold paths of SQLite files, not an integer \(row 2\)$"):
        OrchestratorEvaluator(["cell_recall"]).evaluate_df(df, "q", "p", "db")


def test_a_target_that_fails_stops_evaluate_df(uk):
    """As in QATCH 1.0, one failing target raises ValueError for the whole frame."""
    df = pd.DataFrame({"q": ["SELECT name FROM country", "SELECT nope FROM country"], "p": ["SELECT 1"] * 2})
    df["db"] = str(uk)
    with pytest.raises(ValueError, match=r"^Target gets an Error `SELECT nope FROM country`"):
        OrchestratorEvaluator(["cell_recall"]).evaluate_df(df, "q", "p", "db")


def test_semicolons_at_the_end_are_dropped(uk):
    """Trailing semicolons are dropped before a query runs; one inside a string literal stays
    (QATCH 1.0 drops every semicolon); two statements remain an error of the prediction."""
    evaluator = OrchestratorEvaluator(["execution_accuracy"])
    assert evaluator.evaluate_single_test("SELECT name FROM country;", "SELECT name FROM country ; ;\n", uk) == {
        "execution_accuracy": 1.0
    }
    assert evaluator.evaluate_single_test("SELECT 'a;b'", [["a;b"]], uk) == {"execution_accuracy": 1.0}
    assert evaluator.evaluate_single_test("SELECT 1", "SELECT 1; SELECT 2", uk) == {"execution_accuracy": 0.0}
    assert evaluator.evaluate_single_test("SELECT 1", " ; ", uk) == {"execution_accuracy": 0.0}


def test_long_hostile_queries_take_linear_time(uk, within):
    """Queries of a million characters made of spaces, semicolons and ORDER words are
    stripped and scanned in linear time (a regular expression for trailing semicolons would
    be quadratic), and a query over the length limit is refused, not run."""
    evaluator = OrchestratorEvaluator(["cell_recall", "tuple_order"])
    with within(20):
        assert evaluator.evaluate_single_test("SELECT 1", "SELECT 1" + " ;" * 499_000 + "x", uk)["cell_recall"] == 0.0
        assert evaluator.evaluate_single_test("SELECT 1", "SELECT 1" + " " * 990_000 + ";", uk)["cell_recall"] == 1.0
        hostile = "SELECT 1 --" + " order" * 150_000 + " x"
        assert evaluator.evaluate_single_test(hostile, "SELECT 1", uk) == {"cell_recall": 1.0, "tuple_order": None}
        too_long = "SELECT 1" + " " * 1_000_000 + ";"
        assert evaluator.evaluate_single_test("SELECT 1", too_long, uk)["cell_recall"] == 0.0


# QATCH 1.0.36's metric tests (tests/test_metrics/test_<metric>.py, the run_metric
# versions): (source test, metric, target, prediction, QATCH's expected value). QATCH rounds
# to three decimals; answerkey does not, so the comparison rounds.
QATCH_1_0_CASES = [
    ("cell_precision::no_matching_cells", "cell_precision", [["a", "b"], ["c", "d"]], [["x", "y"], ["z", "w"]], 0.0),
    ("cell_precision::all_matching_cells", "cell_precision", [["a", "b"], ["c", "d"]], [["a", "b"], ["c", "d"]], 1.0),
    (
        "cell_precision::partial_matching_cells",
        "cell_precision",
        [[math.nan, "b"], ["c", "d"]],
        [[math.nan, "x"], ["y", "d"]],
        0.5,
    ),
    ("cell_precision::single_cell_table", "cell_precision", [[1.0, None]], [[None], [1.0]], 1.0),
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
    ("cell_recall::all_matching_cells", "cell_recall", [["a", "b"], ["c", "d"]], [["a", "b"], ["c", "d"]], 1.0),
    ("cell_recall::partial_matching_cells", "cell_recall", [["a", "b"], ["c", "d"]], [["a", "x"], ["y", "d"]], 0.5),
    ("cell_recall::empty_tables", "cell_recall", [], [], 1.0),
    ("cell_recall::single_cell_table", "cell_recall", [["a"]], [["a"]], 1.0),
    ("cell_recall::no_cells_in_prediction", "cell_recall", [["a", "b"], ["c", "d"]], [], 0.0),
    ("cell_recall::no_cells_in_target", "cell_recall", [], [["a", "b"], ["c", "d"]], 0.0),
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
        "cell_recall::special_chatgpt_case (2)",
        "cell_recall",
        [
            ["False", "BC", 18, 0.8, "AB", "CA", 99, 5.4796861662000005, "windows", "Paid"],
            ["True", "BC", 18, 0.8, "AB", "CA", 157, 9.7706304446, "linux", "Paid"],
        ],
        [[18], [18]],
        round(1 / 14, 3),  # 14 distinct cells in the target
    ),
    ("execution_accuracy::equal", "execution_accuracy", [["a", "b"], ["c", "d"]], [["a", "b"], ["c", "d"]], 1.0),
    ("execution_accuracy::different", "execution_accuracy", [["a", "b"], ["c", "d"]], [["c", "d"]], 0.0),
    (
        "execution_accuracy::equal_but_different_projection",
        "execution_accuracy",
        [["a", "b"], ["c", "d"]],
        [["b", "a"], ["d", "c"]],
        1.0,
    ),
    (
        "execution_accuracy::equal_but_different_tuple_order",
        "execution_accuracy",
        [["a", "b"], ["c", "d"]],
        [["d", "c"], ["b", "a"]],
        1.0,
    ),
    (
        "execution_accuracy::null_values",
        "execution_accuracy",
        [["a", None], ["c", "d"]],
        [["d", "c"], [None, "a"]],
        1.0,
    ),
    (
        "execution_accuracy::null_math_none",
        "execution_accuracy",
        [["a", math.nan], ["c", "d"]],
        [["d", "c"], [math.nan, "a"]],
        1.0,
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
        "tuple_cardinality::equal_target_and_prediction",
        "tuple_cardinality",
        [["a", "b"], ["c", "d"]],
        [["a", "b"], ["c", "d"]],
        1.0,
    ),
    ("tuple_cardinality::empty_target_and_prediction", "tuple_cardinality", [], [], 1.0),
    (
        "tuple_cardinality::empty_prediction_with_non_empty_target",
        "tuple_cardinality",
        [["a", "b"], ["c", "d"]],
        [],
        0.0,
    ),
    (
        "tuple_cardinality::non_empty_prediction_with_empty_target",
        "tuple_cardinality",
        [],
        [["a", "b"], ["c", "d"]],
        0.0,
    ),
    (
        "tuple_constraint::no_matching_tuples (1)",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["x", "y"], ["z", "w"]],
        0.0,
    ),
    (
        "tuple_constraint::no_matching_tuples (2)",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["a", "y"], ["c", "w"]],
        0.0,
    ),
    (
        "tuple_constraint::all_matching_tuples",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["a", "b"], ["c", "d"]],
        1.0,
    ),
    (
        "tuple_constraint::partial_matching_tuples",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["a", "b"], ["a", "b"], ["c", "d"]],
        0.5,
    ),
    ("tuple_constraint::empty_tables", "tuple_constraint", [], [], 1.0),
    ("tuple_constraint::single_tuple_table", "tuple_constraint", [["a", "b"]], [["a", "b"]], 1.0),
    ("tuple_constraint::no_tuples_in_prediction", "tuple_constraint", [["a", "b"], ["c", "d"]], [], 0.0),
    ("tuple_constraint::no_tuples_in_target", "tuple_constraint", [], [["a", "b"], ["c", "d"]], 0.0),
    (
        "tuple_constraint::duplicate_tuples_in_target",
        "tuple_constraint",
        [["a", "b"], ["a", "b"], ["c", "d"]],
        [["a", "b"], ["c", "d"]],
        0.5,
    ),
    (
        "tuple_constraint::all_matching_tuples_diff_order (1)",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["c", "d"], ["a", "b"]],
        1.0,
    ),
    (
        "tuple_constraint::all_matching_tuples_diff_order (2)",
        "tuple_constraint",
        [["a", "b"], ["c", "d"]],
        [["d", "c"], ["b", "a"]],
        1.0,
    ),
    ("tuple_constraint::special_case (1)", "tuple_constraint", [[1, 2], ["c", "d"]], [[1, 2], ["c", "d"]], 1.0),
    (
        "tuple_constraint::special_case (2)",
        "tuple_constraint",
        [[1, 2], ["c", "d"]],
        [[1, 2], ["c", "d"], ["a", "b"]],
        1.0,
    ),
    (
        "tuple_constraint::special_case (3)",
        "tuple_constraint",
        [[1, 2], ["c", None, math.nan]],
        [[1, 2], [None, math.nan, "c"], ["a", "b"]],
        1.0,
    ),
    (
        "tuple_constraint::special_case (4)",
        "tuple_constraint",
        [[1, 2], [1, "d"]],
        [[2, 1], ["d", 1], ["a", "b"]],
        1.0,
    ),
]


@pytest.mark.parametrize(
    "metric, target, prediction, expected",
    [case[1:] for case in QATCH_1_0_CASES],
    ids=[case[0] for case in QATCH_1_0_CASES],
)
def test_qatch_1_0_metric_tests(metric, target, prediction, expected):
    """Each QATCH 1.0.36 metric test case, through evaluate_single_test on tables, gives
    QATCH's value (to QATCH's three decimals)."""
    score = OrchestratorEvaluator([metric]).evaluate_single_test(target, prediction, None)[metric]
    assert round(score, 3) == expected


# QATCH 1.0.36's tuple order tests (tests/test_metrics/test_tuple_order.py). Its orchestrator
# computes tuple order only for an SQL target with ORDER BY, so tables are scored with the
# metric function both drop-ins use.
QATCH_1_0_ORDER_CASES = [
    ("evaluate_opposite_direction (1)", [["apple", "orange"], ["pear"]], [["pear"], ["apple", "orange"]], 0.0),
    ("evaluate_opposite_direction (2)", [["a"], ["b"], [None]], [[None], ["b"], ["a"]], 0.0),
    ("evaluate_empty_input", [], [], 1.0),
    ("evaluate_same_order", [["a"], ["b"], ["c"]], [["a"], ["b"], ["c"]], 1.0),
    ("evaluate_more_elements_pred", [["a"], ["b"], ["c"], ["d"]], [["c"], ["b"], ["e"], ["f"]], 0.0),
    (
        "evaluate_more_elements_target",
        [["a"], ["a"], ["a"], ["b"], ["c"], ["d"]],
        [["a"], ["b"], ["b"], ["c"], ["e"]],
        1.0,
    ),
    # QATCH asserts only "neither 0 nor 1": no common row is rho 0, scaled to 0.5.
    ("evaluate_no_correlation", [["a"], ["b"], ["c"]], [["d"], ["e"], ["f"]], 0.5),
]


@pytest.mark.parametrize(
    "target, prediction, expected",
    [case[1:] for case in QATCH_1_0_ORDER_CASES],
    ids=[case[0] for case in QATCH_1_0_ORDER_CASES],
)
def test_qatch_1_0_tuple_order_tests(target, prediction, expected):
    """Each QATCH 1.0.36 tuple order test case gives QATCH's value."""
    assert tuple_order(target, prediction) == expected


def test_qatch_1_0_tuple_order_through_sql(tmp_path):
    """Tuple order through evaluate_single_test: the rows of an ORDER BY target reversed score 0."""
    database = _database(tmp_path / "abc.sqlite", [("a", 1), ("b", 2), ("c", 3)])
    evaluator = OrchestratorEvaluator(["tuple_order"])
    assert evaluator.evaluate_single_test(
        "SELECT name FROM t ORDER BY n", "SELECT name FROM t ORDER BY n DESC", database
    ) == {"tuple_order": 0.0}
    assert evaluator.evaluate_single_test("SELECT name FROM t ORDER BY n", "SELECT name FROM t", database) == {
        "tuple_order": 1.0
    }


def test_qatch_1_0_valid_efficiency_score_tests(tmp_path):
    """QATCH 1.0.36's VES tests (test_valid_efficiency_score.py) on its olympic_games table:
    the same query scores above 0, the wrong one exactly 0."""
    path = tmp_path / "olympic.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE olympic_games (id INTEGER, year INTEGER, city TEXT)")
        connection.executemany(
            "INSERT INTO olympic_games VALUES (?, ?, ?)",
            [
                (0, 1896, "athens"),
                (1, 1900, "paris"),
                (2, 1904, "st. louis"),
                (3, 2004, "athens"),
                (4, 2008, "beijing"),
                (5, 2012, "london"),
            ],
        )
    connection.close()
    evaluator = OrchestratorEvaluator(["VES"], ves_runs=5)
    same = evaluator.evaluate_single_test("SELECT * FROM olympic_games", "SELECT  * FROM olympic_games", path)
    assert 0 < same["valid_efficiency_score"] < math.inf
    wrong = evaluator.evaluate_single_test(
        "SELECT * FROM olympic_games", "SELECT id from olympic_games WHERE year = 1896", path
    )
    assert wrong == {"valid_efficiency_score": 0.0}
