"""The fast paths of a correct prediction (issue 25): results holding the same driver values
(``same_driver_values``) are decided by test-suite's and Spider 2.0's rules, and scored by
QATCH's metrics and soft F1, exactly as the slow steps decide and score them.

The slow path is reached with the same values typed first: a result whose typed rows are made
keeps no driver values, so no fast path applies to it (``driver_rows`` gives back the same
values from the typed ones)."""

from __future__ import annotations

import math
import sqlite3
from collections import Counter

import pytest
from hypothesis import example, given, strategies as st

from answerkey.adapters.sql import QueryResult
from answerkey.errors import plural
from answerkey.execution.load import SqlInputs, SqlItem
from answerkey.execution.run import SqlOptions, run_sql
from answerkey.execution.semantics import Decision, decide_all, has_outer_order_by, soft_f1
from answerkey.execution.semantics._permutation import column_permutation
from answerkey.execution.semantics.spider2 import _csv_round_trip, _csv_written, pandas_csv_column
from answerkey.metrics.driver_values import driver_rows, equal_driver_rows, same_driver_values
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


def test_typed_rows_keep_each_float_zero_its_own_text() -> None:
    """0.0 and -0.0 are one dict key: the typed values a column shares are not shared across
    zeros, which are written apart ("0.0", "-0.0")."""
    assert [row[0].text for row in slow([[-0.0, 0.0, -0.0, 2.5], [1, 2, 3, 4]]).rows] == ["-0.0", "0.0", "-0.0", "2.5"]
    assert [row[0].text for row in slow([[0.0, -0.0]]).rows] == ["0.0", "-0.0"]


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
# Found by the fuzz profile: the typed rows made both zeros of a column the first one's text.
@example(([[0.0, 0.0], [None, -1]], [[-0.0, 0.0], [None, -1]]), "SELECT * FROM t")
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


def spider2_reference(
    gold: list[tuple[object, ...]], predicted: list[tuple[object, ...]], condition_cols: list[int], ignore_order: bool
) -> list[int]:
    """The gold columns (of ``condition_cols``, or all) that match no predicted column under
    Spider 2.0's rule, the plain way: each column's CSV texts read back, the frame made floats
    when all numbers and one real, and every pair of columns normalised and compared in turn."""

    def vectors(rows: list[tuple[object, ...]], chosen: list[int] | None = None) -> list[list[object]]:
        columns = list(zip(*rows))
        read = [pandas_csv_column(_csv_written(columns[index])) for index in chosen or range(len(columns))]
        kinds = {kind for kind, _ in read}
        as_floats = kinds <= {"int", "float"} and "float" in kinds
        return [[float(value) for value in values] if as_floats else values for _, values in read]  # type: ignore[arg-type]

    def normalized(values: list[object]) -> list[object]:
        return [0 if value is None or (isinstance(value, float) and value != value) else value for value in values]

    def key(value: object) -> tuple[bool, str, bool]:
        return value is None, str(value), isinstance(value, (int, float))

    def vectors_match(first: list[object], second: list[object]) -> bool:
        first, second = normalized(first), normalized(second)
        if ignore_order:
            first, second = sorted(first, key=key), sorted(second, key=key)
        if len(first) != len(second):
            return False
        for a, b in zip(first, second):
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                try:
                    if not math.isclose(float(a), float(b), abs_tol=0.01):
                        return False
                except OverflowError:
                    return False
            elif a != b:
                return False
        return True

    gold_vectors, predicted_vectors = vectors(gold, condition_cols), vectors(predicted)
    columns = condition_cols or range(len(gold_vectors))
    return [
        column
        for column, vector in zip(columns, gold_vectors)
        if not any(vectors_match(vector, other) for other in predicted_vectors)
    ]


SPIDER2_VALUES = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([2**62, 2**63 + 5, 2**1030, -(2**1030)]),
    st.sampled_from([0.0, -0.0, 0.5, 1.0, 0.004, 9.995, 10.0, float("inf"), float("nan")]),
    st.sampled_from(["", "a", "7", "007", "NA", "nan", "True", "1e3", "inf"]),
    st.none(),
)


@given(
    st.integers(1, 3).flatmap(
        lambda width: st.tuples(
            st.lists(st.tuples(*[SPIDER2_VALUES] * width), min_size=1, max_size=5),
            st.lists(st.tuples(*[SPIDER2_VALUES] * width), min_size=1, max_size=5),
        )
    ),
    st.sampled_from(["none", "copy", "permute", "shift"]),
    st.booleans(),
    st.booleans(),
)
@example(([(2**1030, "a")], [(2**1030, "a")]), "none", False, False)  # equal, but no float: the official failure
@example(([(2**1030, 0.5)], [(2**1030, 0.5)]), "none", True, False)  # ... an overflow in the CSV round trip
def test_spider2_decides_as_the_plain_rule(pair, derived: str, ignore_order: bool, first_column_only: bool) -> None:
    """Spider 2.0's rule with its shortcuts (each column read and normalised once, the predicted
    column at the gold column's place tried first, no float test of columns of 64-bit
    integers or of floats, the same pair of results) finds exactly the gold columns that the
    plain rule finds unmatched, so the same verdict and reason."""
    gold, predicted = pair
    if derived == "copy":
        predicted = list(gold)
    elif derived == "permute":
        predicted = [row[::-1] for row in gold]
    elif derived == "shift":
        predicted = [tuple(value + 0.005 if type(value) is float else value for value in row) for row in gold]
    condition_cols = [0] if first_column_only else []
    gold_result = fast([list(column) for column in zip(*gold)])
    predicted_result = fast([list(column) for column in zip(*predicted)])
    # The rows as the rule reads them (an infinity is typed as the text Inf).
    gold, predicted = driver_rows(gold_result), driver_rows(predicted_result)

    def decided() -> Decision:
        return decide_all(
            gold_result,
            predicted_result,
            gold_sql="x",
            condition_cols=condition_cols,
            ignore_order=ignore_order,
            semantics=["spider2"],
        )["spider2"]

    if len(gold) != len(predicted):
        counts = f"the gold has {plural(len(gold), 'row')}, the prediction {len(predicted)}"
        assert (decided().correct, decided().reason) == (False, counts)
        return
    try:
        unmatched = spider2_reference(gold, predicted, condition_cols, ignore_order)
    except OverflowError:  # an integer beyond floats in a column of reals: both fail alike
        with pytest.raises(OverflowError):
            decided()
        return
    decision = decided()
    if not unmatched:
        assert decision.correct
    else:
        shown = ", ".join(f"{column + 1} (c{column})" for column in unmatched)
        verb = "matches" if len(unmatched) == 1 else "match"
        assert (decision.correct, decision.reason) == (
            False,
            f"gold column{'s' if len(unmatched) > 1 else ''} {shown} {verb} no predicted column",
        )


def suite_reference(gold: list[tuple[object, ...]], predicted: list[tuple[object, ...]], sql: str) -> tuple[bool, str]:
    """test-suite-sql-eval's result_eq with answerkey's reasons, in the official order: the
    shape, the first check (each row's values sorted by text and type), then a permutation."""
    ordered = "order by" in sql.lower()
    if not gold and not predicted:
        return True, "both results are empty"
    if len(gold) != len(predicted):
        return False, f"the gold has {plural(len(gold), 'row')}, the prediction {len(predicted)}"
    if len(gold[0]) != len(predicted[0]):
        return False, f"the gold has {plural(len(gold[0]), 'column')}, the prediction {len(predicted[0])}"

    def unordered(row: tuple[object, ...]) -> tuple[object, ...]:
        return tuple(sorted(row, key=lambda value: str(value) + str(type(value))))

    first, second = [unordered(row) for row in gold], [unordered(row) for row in predicted]
    quick = first == second if ordered else set(first) == set(second)
    collect = list if ordered else Counter
    permutation = column_permutation(gold, predicted, collect)
    if quick and permutation is not None:
        same = "same rows in the same order" if ordered else "same bag of rows"
        return True, same + ("" if permutation == tuple(range(len(permutation))) else " with columns permuted")
    if not quick and permutation is not None:
        return False, (
            "the rows match, but test-suite's first check rejects them: it sorts each row's values by "
            "their text and type, and equal values written differently (1 and 1.0) sort apart"
        )
    if ordered and column_permutation(gold, predicted, Counter) is not None:
        return False, "same bag of rows in another order (the gold's text has 'order by')"
    which = "rows in order" if ordered else "bag of rows"
    return False, f"no permutation of the prediction's columns gives the gold's {which}"


@given(result_pairs(), st.sampled_from(["SELECT * FROM t", "SELECT * FROM t ORDER BY 1"]))
@example(([[1], ["1.5"]], [[1.0], ["1.5"]]), "SELECT * FROM t")  # rejected by the first check
@example(([[1, 2], ["1.5", "x"]], [["1.5", "x"], [1.0, 2]]), "SELECT * FROM t ORDER BY 1")  # ... permuted
@example(([[1, 2], ["a", "b"]], [["a", "b"], [1, 2]]), "SELECT * FROM t")  # permuted
@example(([[1, 2.0], ["1.5", "y"]], [[1.0, 2], ["1.5", "y"]]), "SELECT * FROM t")  # ints and floats in a column
@example(([[0.0, 1.5], [".", "."]], [[-0.0, 1.5], [".", "."]]), "SELECT * FROM t")  # float zeros written apart
def test_test_suite_looks_for_a_permutation_first_as_the_official_order_decides(
    pair: tuple[list[list[object]], list[list[object]]], sql: str
) -> None:
    """test-suite's rule, looking for a permutation before its first check (which it makes only
    when one works), gives the verdict and reason of the official order."""
    gold, predicted = pair
    decision = decide_all(slow(gold), slow(predicted), gold_sql=sql, semantics=["test-suite"])["test-suite"]
    # The rows as the rule reads them: typing shares equal values, -0.0 for 0.0 among them.
    reference = suite_reference(driver_rows(slow(gold)), driver_rows(slow(predicted)), sql)
    assert (decision.correct, decision.reason) == reference


@pytest.mark.parametrize(
    ("gold", "predicted", "equal"),
    [
        ([[1, 2, 2], ["a", None, None]], [[1.0, 2, 2.0], ["a", None, None]], True),  # equal values of two types
        ([[0.0, 1.5]], [[-0.0, 1.5]], True),
        ([[]], [[]], True),  # no rows
        ([[1, 2]], [[2, 1]], False),
        ([[float("inf")]], [[float("inf")]], False),  # not plain: the slow steps
        ([[b"x"]], [[b"x"]], False),
    ],
)
def test_soft_f1_of_equal_driver_values_is_the_slow_steps_score(
    gold: list[list[object]], predicted: list[list[object]], equal: bool
) -> None:
    """Results holding equal plain driver values (types may differ) score soft F1 without their
    rows being made, as the slow steps score them."""
    assert equal_driver_rows(fast(gold), fast(predicted)) is equal
    assert soft_f1(fast(gold), fast(predicted)) == soft_f1(slow(gold), slow(predicted))
    assert soft_f1(fast(gold), fast(predicted)) == reference_soft_f1(list(zip(*gold)), list(zip(*predicted)))
