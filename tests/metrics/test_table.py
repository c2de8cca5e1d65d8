"""The QATCH table metrics: documented examples, edge cases, epsilon matching, properties."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from answerkey.comparator.values import MatchRule
from answerkey.metrics import METRICS, TABLE_METRICS, table_scores
from answerkey.metrics.table import (
    cell_precision,
    cell_recall,
    execution_accuracy,
    table_rows,
    tuple_cardinality,
    tuple_constraint,
    tuple_order,
)
from answerkey.model import Relation

AB_CD = [["a", "b"], ["c", "d"]]

# (metric, target, prediction, expected); each case cites where QATCH documents it.
DOCUMENTED = [
    # CellPrecisionTag docstring (QATCH evaluate API reference)
    (cell_precision, AB_CD, [["a", "b"], ["c", "d"]], 1.0),
    (cell_precision, AB_CD, [["a", "b"], ["c", "e"]], 0.75),
    (cell_precision, AB_CD, [["a"], ["b"], ["c"], ["d"]], 1.0),
    # CellRecallTag docstring
    (cell_recall, AB_CD, [["a", "b"], ["c", "d"]], 1.0),
    (cell_recall, AB_CD, [["a", "x"], ["y", "d"]], 0.5),
    (cell_recall, AB_CD, [["a", "a"], ["b", "b"], ["c", "d"]], 1.0),
    # TupleCardinalityTag docstring
    (tuple_cardinality, [["a", "b"], ["c", "d"], ["c", "d"], ["f", "g"]], [["a", "b"], [3, 2]], 0.5),
    (tuple_cardinality, [["a", "b"], [3, 2]], [["a", "b"], ["c", "d"], ["c", "d"], ["f", "g"]], 0.5),
    (tuple_cardinality, [["a", "b"], [3, 2]], [["a", "b"], ["c", "d"]], 1.0),
    # TupleConstraintTag docstring
    (tuple_constraint, AB_CD, [["a", "b"], ["c", "d"]], 1.0),
    (tuple_constraint, AB_CD, [["a", "b"], ["a", "b"], ["c", "d"]], 0.5),
    (tuple_constraint, AB_CD, [["a", "b"], ["a", "b"], ["c", "d"], ["c", "d"]], 0.0),
    # TupleOrderTag docstring
    (tuple_order, AB_CD, [["c", "d"], ["a", "b"]], 0.0),
    (tuple_order, [["apple", "orange"], ["pear"]], [["pear"], ["apple", "orange"]], 0.0),
    (tuple_order, [["apple", "orange"], ["pear"]], [["pear"]], 1.0),
    # TupleOrderTag source comment: target [a,a,a,b,c,d], pred [b,b,a,c,e] -> [a,b,c] vs
    # [b,a,c]: sum d^2 = 2, rho = 1 - 12/24 = 0.5, score 0.75
    (tuple_order, [["a"], ["a"], ["a"], ["b"], ["c"], ["d"]], [["b"], ["b"], ["a"], ["c"], ["e"]], 0.75),
    # MetricEvaluator.evaluate_single_test_QA docstring: same cells, columns swapped
    (cell_precision, [["scotland", "wales"], ["england"]], [["wales", "scotland"], ["england"]], 1.0),
    (cell_recall, [["scotland", "wales"], ["england"]], [["wales", "scotland"], ["england"]], 1.0),
]


@pytest.mark.parametrize("metric, target, prediction, expected", DOCUMENTED)
def test_documented_examples(metric, target, prediction, expected):
    """Each example of QATCH's documentation gives the documented score."""
    assert metric(target, prediction) == expected


@pytest.mark.parametrize("name", TABLE_METRICS)
def test_empty_tables(name):
    """Both tables empty score 1.0 and exactly one empty scores 0.0, for every metric."""
    metric = METRICS[name]
    assert metric([], []) == 1.0
    assert metric([], [["a"]]) == 0.0
    assert metric([["a"]], []) == 0.0
    assert metric(Relation(), Relation()) == 1.0


def test_registry_names():
    """The registry holds the six table metrics under QATCH's names."""
    assert TABLE_METRICS == (
        "cell_precision",
        "cell_recall",
        "tuple_cardinality",
        "tuple_constraint",
        "tuple_order",
        "execution_accuracy",
    )
    assert set(TABLE_METRICS) <= set(METRICS)


def test_table_scores_matches_single_metrics():
    """table_scores gives the same figures as the registered functions, in the order asked."""
    target = [[1, "x", 2.5], [2, "y", None], [1, "x", 2.5]]
    prediction = [[2, "y", None], ["x", 1, 2.50001], [3, "z", 0.0]]
    scores = table_scores(target, prediction, metrics=reversed(TABLE_METRICS))
    assert list(scores) == list(reversed(TABLE_METRICS))
    assert scores == {name: METRICS[name](target, prediction) for name in TABLE_METRICS}
    assert scores == {
        "execution_accuracy": 0.0,  # (3 z 0.0) is not in the target
        "tuple_order": 1.0,  # one common row: (x 1 2.50001) has its columns swapped
        "tuple_constraint": 0.5,  # (1 x 2.5) twice in the target, once in the prediction
        "tuple_cardinality": 1.0,
        "cell_recall": 1.0,
        "cell_precision": 6 / 9,  # 3, "z" and 0.0 are not target cells
    }


def test_unknown_metric_in_table_scores():
    """Asking table_scores for a metric it does not know is an error naming the known ones."""
    with pytest.raises(ValueError, match="unknown table metric 'bleu'; known: cell_precision"):
        table_scores([["a"]], [["a"]], metrics=["bleu"])


def test_execution_accuracy():
    """Execution accuracy needs as many rows and the same set of cell-sorted rows (Spider)."""
    assert execution_accuracy([["a", 1], ["b", 2]], [[2, "b"], [1, "a"]]) == 1.0
    assert execution_accuracy([["a", 1], ["a", 1]], [["a", 1]]) == 0.0
    assert execution_accuracy([["a", 1], ["a", 1]], [["a", 1], ["b", 2]]) == 0.0
    # QATCH compares sets once the counts agree: duplicates may be distributed differently.
    assert execution_accuracy([["a"], ["a"], ["b"]], [["a"], ["b"], ["b"]]) == 1.0


def test_cells_with_equal_hashes_still_sort_as_one_row():
    """Rows are compared with their cells sorted even when distinct cells share a hash
    (Python hashes -1 and -2 alike)."""
    assert hash(-1) == hash(-2)
    assert tuple_constraint([[-1, -2, "a"]], [["a", -2, -1]]) == 1.0
    assert execution_accuracy([[-1, -2], [-2, -2]], [[-2, -1], [-2, -2]]) == 1.0
    assert tuple_constraint([[-1, -2]], [[-2, -2]]) == 0.0


def test_tuple_constraint_ignores_extra_prediction_rows():
    """Prediction rows absent from the target cost nothing in tuple constraint."""
    assert tuple_constraint(AB_CD, AB_CD + [["e", "f"], ["g", "h"]]) == 1.0


def test_tuple_order_cases():
    """Tuple order: same order 1.0, reversed 0.0, no common row 0.5 (rho 0), unrounded."""
    rows = [[i] for i in range(5)]
    assert tuple_order(rows, rows) == 1.0
    assert tuple_order(rows, rows[::-1]) == 0.0
    assert tuple_order(rows, [["x"], ["y"]]) == 0.5
    # swap of the first two of three: sum d^2 = 2, rho = 1 - 12/24 = 0.5
    assert tuple_order([[1], [2], [3]], [[2], [1], [3]]) == 0.75
    # four rows, first two swapped: rho = 1 - 12/60 = 0.8, score 0.9 (QATCH would round rho)
    assert tuple_order([[1], [2], [3], [4]], [[2], [1], [3], [4]]) == pytest.approx(0.9, abs=1e-15)
    # Column order matters for tuple order, as in QATCH (rows compared as written).
    assert tuple_order([[1, "a"], [2, "b"]], [["b", 2], ["a", 1]]) == 0.5


def test_cells_are_typed_values():
    """Cells compare as typed values: no cross-type matches, integers exact, nil by value."""
    assert cell_precision([[1]], [["1"]]) == 0.0
    assert cell_precision([[1]], [[True]]) == 0.0
    assert cell_precision([[5]], [[5.0]]) == 1.0  # an integer against a real: the real rule
    assert cell_precision([[100000]], [[100001]]) == 0.0  # integers are exact
    assert cell_precision([[None, "x"]], [[None, "y"]]) == 0.5
    assert cell_precision([[float("nan")]], [[None]]) == 1.0  # NaN is read as nil, as in QATCH


def test_epsilon_for_reals():
    """Reals match within the rule's relative epsilon (default 1e-4), as the comparator."""
    # DESIGN.md: 53200.0 allows 5.32, so 53198.8 matches and 53190.9 does not.
    assert cell_precision([[53200.0]], [[53198.8]]) == 1.0
    assert cell_precision([[53200.0]], [[53190.9]]) == 0.0
    assert cell_recall([[53200.0]], [[53198.8]]) == 1.0
    assert cell_precision([[100000]], [[100000.5]]) == 1.0
    exact = MatchRule(epsilon=0)
    assert cell_precision([[53200.0]], [[53198.8]], rule=exact) == 0.0
    assert tuple_constraint([[1.0, "x"], [2.0, "y"]], [["y", 2.0001], [1.00001, "x"]]) == 1.0
    assert execution_accuracy([[1.0, "x"], [2.0, "y"]], [["y", 2.0001], [1.00001, "x"]]) == 1.0
    assert tuple_order([[1.0], [2.0]], [[1.00001], [2.0001]]) == 1.0
    assert tuple_order([[1.0], [2.0]], [[2.0001], [1.00001]]) == 0.0


def test_numbers_beyond_floats():
    """Numbers too large or too small for floats are still matched exactly by the rule."""
    assert table_scores([[10**400, 1]], [[Decimal("1.00001e400"), 1.0]])["tuple_constraint"] == 1.0
    assert cell_precision([[Decimal("1e-400")]], [[Decimal("1.00001e-400")], [Decimal("2e-400")]]) == 0.5
    assert cell_precision([[-(10**400)]], [[10**400]]) == 0.0


def test_epsilon_is_relative_to_the_target():
    """The allowance is |target| * epsilon: the rule is not symmetric, and neither are the
    metrics (precision asks which prediction cells a target cell allows)."""
    rule = MatchRule(epsilon=0.1)
    # target 100 allows 90..110; target 110 allows 99..121.
    assert cell_precision([[100.0]], [[110.0]], rule=rule) == 1.0
    assert cell_precision([[100.0]], [[110.5]], rule=rule) == 0.0
    assert cell_precision([[110.5]], [[100.0]], rule=rule) == 1.0
    assert cell_recall([[100.0]], [[110.5]], rule=rule) == 0.0
    assert cell_recall([[110.5]], [[100.0]], rule=rule) == 1.0


def test_snapping_picks_the_closest_target_number():
    """A prediction real is read as the closest target number it matches."""
    rule = MatchRule(epsilon=0.1)
    target = [[1.0, "a"], [1.05, "b"]]
    assert tuple_constraint(target, [[1.04, "b"], [0.99, "a"]], rule=rule) == 1.0


def test_string_rule():
    """The rule's string mode applies to cells (fold: trimmed, case-folded, NFC)."""
    assert cell_precision([["Wales"]], [[" wales"]]) == 0.0
    assert cell_precision([["Wales"]], [[" wales"]], rule=MatchRule(strings="fold")) == 1.0


def test_relations_and_rows_agree():
    """A Relation and the same rows as Python lists give the same scores."""
    target = [[1, "a", 2.5], [2, "b", None]]
    prediction = [[2, "b", None], [3, "c", 1.5]]
    from_relations = table_scores(Relation.from_rows(target), Relation.from_rows(prediction))
    assert from_relations == table_scores(target, prediction)


def test_ragged_rows_and_mixed_columns():
    """Rows may differ in length and columns may mix types, as QATCH's tables do."""
    assert table_scores([["wales", "scotland"], ["england"]], [[1, "england"], ["wales"]]) == {
        "cell_precision": 2 / 3,
        "cell_recall": 2 / 3,
        "tuple_cardinality": 1.0,
        "tuple_constraint": 0.0,
        "tuple_order": 0.5,
        "execution_accuracy": 0.0,
    }


@pytest.mark.parametrize(
    "table, error",
    [
        ("abc", TypeError),
        (5, TypeError),
        ([1, 2], TypeError),
        (["ab"], TypeError),
        ([[[1]]], TypeError),
        ([[{"a": 1}]], TypeError),
        ([[float("inf")]], ValueError),
    ],
)
def test_not_a_table(table, error):
    """Something that is not a table of values is a TypeError / ValueError, not a score."""
    with pytest.raises(error):
        cell_precision([["a"]], table)
    with pytest.raises(error):
        table_rows(table)


# ---- properties --------------------------------------------------------------------------

cells = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from([0.5, 1.0, 1.00001, 2.5, 2.50002, -3.25, 1e20, 1.00001e20]),
    st.sampled_from(["a", "b", "c", "A"]),
)
rows = st.lists(cells, min_size=1, max_size=4)
tables = st.lists(rows, max_size=6)


@given(tables, tables)
def test_scores_are_in_unit_interval(target, prediction):
    """Every metric returns a float in [0, 1]."""
    for name, score in table_scores(target, prediction).items():
        assert isinstance(score, float) and 0.0 <= score <= 1.0, name


@given(tables)
def test_identical_tables_score_one(table):
    """A table compared with itself scores 1.0 on every metric."""
    assert set(table_scores(table, table).values()) == {1.0}


@given(tables, tables, st.randoms(use_true_random=False))
def test_cell_metrics_ignore_row_and_column_order(target, prediction, shuffler):
    """Cell precision and recall do not change when rows are shuffled and columns permuted,
    in either table."""
    names = ["cell_precision", "cell_recall"]

    def shuffled(table):
        rows = [shuffler.sample(row, len(row)) for row in table]
        shuffler.shuffle(rows)
        return rows

    before = table_scores(target, prediction, metrics=names)
    assert table_scores(target, shuffled(prediction), metrics=names) == before
    assert table_scores(shuffled(target), prediction, metrics=names) == before


def _brute_cells(target, prediction, rule):
    """QATCH's cell precision / recall by definition, quadratically, with rule.match. A
    distinct cell is a set of equal values (5 and 5.0); it matches if one of them does."""
    from answerkey.metrics.cells import keyed_table

    def distinct(table):
        found = {}
        for keys, row in zip(keyed_table(table, rule).rows, table_rows(table)):
            for key, value in zip(keys, row):
                found.setdefault(key, []).append(value)
        return list(found.values())

    def matches(canonical_values, system_values):
        return any(rule.match(t, p) for t in canonical_values for p in system_values)

    target_cells, prediction_cells = distinct(target), distinct(prediction)
    precision = sum(any(matches(t, p) for t in target_cells) for p in prediction_cells)
    recall = sum(any(matches(t, p) for p in prediction_cells) for t in target_cells)
    return precision / len(prediction_cells), recall / len(target_cells)


numbers = st.one_of(
    st.integers(-50, 50),
    st.decimals(min_value=-60, max_value=60, places=3).map(Decimal),
    st.floats(min_value=-60, max_value=60, allow_nan=False),
)


@given(
    st.lists(st.lists(numbers, min_size=1, max_size=3), min_size=1, max_size=5),
    st.lists(st.lists(numbers, min_size=1, max_size=3), min_size=1, max_size=5),
    st.sampled_from([0, 1e-4, 0.01, 0.3, 0.99, 1, 2.5]),
)
def test_cell_metrics_match_the_definition_within_epsilon(target, prediction, epsilon):
    """With reals, cell precision and recall equal the quadratic definition with rule.match."""
    rule = MatchRule(epsilon=epsilon)
    expected = _brute_cells(target, prediction, rule)
    scores = table_scores(target, prediction, rule=rule, metrics=["cell_precision", "cell_recall"])
    assert (scores["cell_precision"], scores["cell_recall"]) == pytest.approx(expected, abs=1e-12)


def _quadratic_tuple_order(target, prediction):
    """QATCH's tuple order algorithm (lists and index()), without its rounding of rho."""
    new_prediction = []
    for row in prediction:
        if row in target and row not in new_prediction:
            new_prediction.append(row)
    new_target = []
    for row in target:
        if row in prediction and row not in new_target:
            new_target.append(row)
    if not new_target:
        rho = 0.0
    else:
        squares = sum((i - new_target.index(row)) ** 2 for i, row in enumerate(new_prediction))
        n = max(len(new_target), 2)
        rho = 1 - 6 * squares / (n * (n**2 - 1))
    return (rho + 1) / 2


@given(
    st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=2), min_size=1, max_size=12),
    st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "f"]), min_size=1, max_size=2), min_size=1, max_size=12),
)
def test_tuple_order_matches_qatch_algorithm(target, prediction):
    """The O(n) tuple order equals QATCH's quadratic algorithm (before its rounding)."""
    assert tuple_order(target, prediction) == pytest.approx(_quadratic_tuple_order(target, prediction), abs=1e-12)


def test_tuple_order_large_shuffle_matches_qatch_algorithm():
    """On a few hundred shuffled rows, the fast tuple order equals the quadratic one."""
    chooser = random.Random(7)
    target = [[chooser.randrange(300), "x"] for _ in range(400)]
    prediction = [row for row in target if chooser.random() < 0.8]
    for _ in range(60):  # move some rows far from their place
        index = chooser.randrange(len(prediction))
        prediction.insert(chooser.randrange(len(prediction)), prediction.pop(index))
    prediction.append(["new", "x"])
    expected = _quadratic_tuple_order(target, prediction)
    assert 0.6 < expected < 0.99  # a partly kept order, not a degenerate case
    assert tuple_order(target, prediction) == pytest.approx(expected, abs=1e-12)
