"""The fast paths of a correct prediction (issue 25): results holding the same driver values
(``same_driver_values``) are decided by test-suite's and Spider 2.0's rules, and scored by
QATCH's metrics and soft F1, exactly as the slow steps decide and score them.

The slow path is reached with the same values typed first: a result whose typed rows are made
keeps no driver values, so no fast path applies to it (``driver_rows`` gives back the same
values from the typed ones)."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, strategies as st

from answerkey.adapters.sql import QueryResult
from answerkey.execution.load import SqlInputs, SqlItem
from answerkey.execution.run import SqlOptions, run_sql
from answerkey.execution.semantics import decide_all, has_outer_order_by, soft_f1
from answerkey.execution.semantics.spider2 import _csv_round_trip, _csv_written, pandas_csv_column
from answerkey.metrics.driver_values import same_driver_values
from answerkey.metrics.table import TABLE_METRICS, table_scores


def fast(columns: list[list[object]]) -> QueryResult:
    """A result holding its driver values (as SQLite's do): the fast paths may apply."""
    return QueryResult.of_driver_columns(
        tuple(list(column) for column in columns), tuple(f"c{i}" for i in range(len(columns)))
    )


def slow(columns: list[list[object]]) -> QueryResult:
    """The same result with its typed rows made (its driver values dropped): no fast path."""
    made = fast(columns)
    made.rows  # noqa: B018
    assert made.driver_columns is None
    return made


def decisions(gold: QueryResult, predicted: QueryResult, gold_sql: str) -> dict[str, tuple[bool, str]] | str:
    """Every semantics' verdict and reason, or the error that makes the item an error of the test."""
    try:
        decided = decide_all(
            gold, predicted, gold_sql=gold_sql, semantics=["answerkey", "test-suite", "bird", "spider2"]
        )
    except ValueError as error:
        return f"error: {error}"
    return {name: (decision.correct, decision.reason) for name, decision in decided.items()}


def test_same_driver_values_needs_the_same_types_places_and_no_float_zero() -> None:
    """Equal values of two types, float zeros, rows in another order, no rows, or values that
    are not plain (booleans, infinities) are not the same."""
    assert same_driver_values(fast([[1, 2], ["a", None], [2.5, 3.5]]), fast([[1, 2], ["a", None], [2.5, 3.5]]))
    assert not same_driver_values(fast([[1, 2]]), fast([[1.0, 2]]))
    assert not same_driver_values(fast([[0.0, 1.5]]), fast([[-0.0, 1.5]]))
    assert not same_driver_values(fast([[0.0, 1.5]]), fast([[0.0, 1.5]]))  # a float zero: the slow steps
    assert not same_driver_values(fast([[1, 2]]), fast([[2, 1]]))
    assert not same_driver_values(fast([[]]), fast([[]]))
    assert not same_driver_values(fast([[True]]), fast([[True]]))
    assert not same_driver_values(fast([[float("inf")]]), fast([[float("inf")]]))
    assert not same_driver_values(slow([[1]]), slow([[1]]))


# Tricky pairs: (gold columns, predicted columns, gold SQL).
TRICKY = [
    ([[1, 2, 2], ["a", "b", "b"]], [[1, 2, 2], ["a", "b", "b"]], "SELECT n, s FROM t"),  # duplicates
    ([[1, None], [None, "x"]], [[1, None], [None, "x"]], "SELECT a, b FROM t ORDER BY a"),  # NULLs, ordered
    ([[3, 1, 2]], [[3, 1, 2]], "SELECT n FROM t ORDER BY n DESC"),  # ORDER BY, same order
    ([[3, 1, 2]], [[1, 2, 3]], "SELECT n FROM t ORDER BY n DESC"),  # ORDER BY, another order
    ([[1, 2], ["a", "b"]], [["a", "b"], [1, 2]], "SELECT n, s FROM t"),  # columns permuted
    ([[0.3, 1.25]], [[0.1 + 0.2, 1.25]], "SELECT x FROM t"),  # reals within epsilon
    ([[1, 2]], [[1.0, 2]], "SELECT n FROM t"),  # equal values of two types
    ([[1], ["1.5"]], [[1.0], ["1.5"]], "SELECT n, s FROM t"),  # ... which test-suite's first check sorts apart
    ([[0.0, 1.5], ["."] * 2], [[-0.0, 1.5], ["."] * 2], "SELECT x, s FROM t"),  # float zeros written apart
    ([[1, "a"]], [[1, "a"]], "SELECT v FROM t"),  # a column mixing types: an error under answerkey
    ([[10**18, 2]], [[10**18, 2]], "SELECT n FROM t order by n"),
]


@pytest.mark.parametrize(("gold", "predicted", "sql"), TRICKY)
def test_fast_paths_decide_as_the_slow_steps(gold: list[list[object]], predicted: list[list[object]], sql: str) -> None:
    """Each semantics gives the same verdict and reason with the driver values as with the typed rows."""
    assert decisions(fast(gold), fast(predicted), sql) == decisions(slow(gold), slow(predicted), sql)


def test_identical_results_decided_correct_by_each_semantics() -> None:
    """The fast paths' reasons are the slow steps' ones, word for word."""
    columns = [[1, 2, 2], ["a", "b", "b"]]
    assert decisions(fast(columns), fast(columns), "SELECT n, s FROM t ORDER BY n") == {
        "answerkey": (True, "the tuples match in key order (BY 1; ties as sets)"),
        "test-suite": (True, "same rows in the same order"),
        "bird": (True, "same set of rows"),
        "spider2": (True, "each gold column equals a predicted column, in row order, numbers within 0.01"),
    }


def reference_soft_f1(gold: list[tuple[object, ...]], predicted: list[tuple[object, ...]]) -> float:
    """BIRD mini-dev's soft F1 as its docstring states it, without the shortcut."""
    gold, predicted = list(dict.fromkeys(gold)), list(dict.fromkeys(predicted))
    if not gold and not predicted:
        return 1.0
    matched, extra, lacking = [], [], []
    for index, gold_row in enumerate(gold):
        if index >= len(predicted):
            matched.append(0)
            lacking.append(1)
            continue
        row = predicted[index]
        found = sum(1 for value in row if value in gold_row)
        matched.append(found / len(gold_row))
        extra.append((len(row) - found) / len(gold_row))
        lacking.append(sum(1 for value in gold_row if value not in row) / len(gold_row))
    for _ in range(len(predicted) - len(gold)):
        matched.append(0)
        extra.append(1)
        lacking.append(0)
    tp, fp, fn = sum(matched), sum(extra), sum(lacking)
    precision = tp / (tp + fp) if tp + fp > 0 else 0
    recall = tp / (tp + fn) if tp + fn > 0 else 0
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


PLAIN = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.5, 0.30000000000000004, 0.3, -1.5]),
    st.sampled_from(["", ".", "a", "1", "1.5", "0.0", "order by"]),
    st.none(),
)


def retyped(value: object) -> object:
    """An equal value that some rule tells apart: an int as a float, a float as an int or as
    the other zero."""
    if type(value) is int:
        return float(value)
    if type(value) is float:
        return -value if value == 0 else int(value) if value.is_integer() else value
    return value


@st.composite
def result_pairs(draw: st.DrawFn) -> tuple[list[list[object]], list[list[object]]]:
    """A gold result and a prediction: the same values, or the same with a change that some
    rule sees (rows reordered or dropped, a value of another type or sign, columns swapped)."""
    width = draw(st.integers(1, 3))
    rows = draw(st.lists(st.tuples(*[PLAIN] * width), min_size=1, max_size=6))
    gold = [list(column) for column in zip(*rows)]
    change = draw(st.sampled_from(["none", "none", "reorder", "drop", "retype", "swap"]))
    predicted_rows = list(rows)
    if change == "reorder":
        predicted_rows = draw(st.permutations(rows))
    elif change == "drop" and len(rows) > 1:
        predicted_rows = rows[:-1]
    elif change == "retype":
        row, column = draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, width - 1))
        other = retyped(rows[row][column])
        changed = list(rows[row])
        changed[column] = other
        predicted_rows = [*rows[:row], tuple(changed), *rows[row + 1 :]]
    elif change == "swap" and width > 1:
        predicted_rows = [(row[1], row[0], *row[2:]) for row in rows]
    predicted = [list(column) for column in zip(*predicted_rows)]
    return gold, predicted


@given(
    result_pairs(),
    st.sampled_from(["SELECT * FROM t", "SELECT * FROM t ORDER BY 1", "SELECT * FROM t order by c0 DESC"]),
)
def test_fast_and_slow_paths_agree(pair: tuple[list[list[object]], list[list[object]]], sql: str) -> None:
    """On any plain results, the fast paths give every semantics' verdict and reason, QATCH's
    metrics and soft F1 exactly as the slow steps do."""
    gold, predicted = pair
    assert decisions(fast(gold), fast(predicted), sql) == decisions(slow(gold), slow(predicted), sql)
    gold_rows, predicted_rows = list(zip(*gold)), list(zip(*predicted))
    assert soft_f1(fast(gold), fast(predicted)) == reference_soft_f1(gold_rows, predicted_rows)
    if same_driver_values(fast(gold), fast(predicted)):
        # What sql's metrics take for 1.0 without computing them (execution/_batches.py).
        assert table_scores(slow(gold).rows, slow(predicted).rows) == dict.fromkeys(TABLE_METRICS, 1.0)


# Items whose results are identical (the fast paths) or nearly (the slow steps), on one database.
RUN_ITEMS = [
    ("same", "SELECT name, price, qty FROM item", "SELECT name, price, qty FROM item"),
    ("ordered", "SELECT qty, name FROM item ORDER BY qty", "SELECT qty, name FROM item ORDER BY qty"),
    ("duplicates", "SELECT price FROM item", "SELECT price FROM item"),
    ("zeros", "SELECT 0.0, '.' UNION ALL SELECT 2.5, 'x'", "SELECT -0.0, '.' UNION ALL SELECT 2.5, 'x'"),
    ("types", "SELECT 1, '1.5'", "SELECT 1.0, '1.5'"),
    ("order", "SELECT name FROM item ORDER BY name", "SELECT name FROM item ORDER BY name DESC"),
]


def test_a_run_scores_identical_results_as_the_slow_steps(tmp_path) -> None:
    """``answerkey sql``'s verdicts and metrics of each item are those of the slow steps on the
    same results, read with sqlite3 and typed before anything reads them."""
    database = tmp_path / "shop" / "shop.sqlite"
    database.parent.mkdir()
    with sqlite3.connect(database) as connection:
        connection.executescript(
            "CREATE TABLE item (name TEXT, price REAL, qty INTEGER);"
            "INSERT INTO item VALUES ('pen', 1.5, 10), ('ink', 7.25, 3), ('pad', 0.5, 10), ('pen', 1.5, 4);"
        )
    connection.close()
    chosen = [SqlItem(name, "shop", gold, predicted) for name, gold, predicted in RUN_ITEMS]
    options = SqlOptions(str(tmp_path))
    found = {
        result.item.id: result.outcome for result in run_sql(SqlInputs("answerkey", "g", "p", chosen), options).results
    }
    reader = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    for name, gold_sql, predicted_sql in RUN_ITEMS:
        gold, predicted = (
            slow([list(column) for column in zip(*reader.execute(sql))]) for sql in (gold_sql, predicted_sql)
        )
        verdicts = {
            semantics: decision.correct
            for semantics, decision in decide_all(gold, predicted, gold_sql=gold_sql).items()
        }
        ordered = has_outer_order_by(gold_sql)
        wanted = [metric for metric in TABLE_METRICS if ordered or metric != "tuple_order"]
        metrics = {**table_scores(gold.rows, predicted.rows, metrics=wanted), "soft_f1": soft_f1(gold, predicted)}
        expected = {metric: metrics.get(metric) for metric in options.metrics}
        assert (found[name].verdicts, found[name].metrics) == (verdicts, expected), name
    reader.close()


@given(
    st.one_of(
        st.lists(st.integers(), min_size=1),
        st.lists(st.integers(-(2**64), 2**65), min_size=1),
        st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1),
        st.lists(st.one_of(st.integers(), st.floats(), st.none(), st.sampled_from(["1", "nan", "x"])), min_size=1),
    )
)
def test_spider2_round_trip_of_numbers_as_through_text(values: list[object]) -> None:
    """Spider 2.0's CSV round trip of a column of numbers skips the texts and reads what they
    would read back as: the same kind and the same values (by bits for floats: -0.0 stays)."""
    quick, through_text = _csv_round_trip(values), pandas_csv_column(_csv_written(values))
    assert quick[0] == through_text[0]
    assert list(map(repr, quick[1])) == list(map(repr, through_text[1]))
