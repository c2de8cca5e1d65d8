"""QATCH's graded table metrics, with cells compared by answerkey's typed value equality.

Six metrics compare a *target* table (the reference) with a *prediction* table; each returns
a float in [0, 1], not rounded. A table is a ``Relation``, a list of rows (or ``df.values``,
``df.itertuples(index=False)``, a pandas DataFrame without its index) whose cells are typed
values or anything ``answerkey.model.value_of`` reads: None, bool, int, float, Decimal, str,
date, datetime, time, NumPy and pandas scalars; NaN, ``pd.NA`` and ``NaT`` are nil. Rows may differ in length,
as in QATCH's ``[["wales", "scotland"], ["england"]]``.

Semantics are QATCH 1.0's, except that two cells are equal when ``rule.match(target_cell,
prediction_cell)`` holds (reals within a relative epsilon, default ``DEFAULT_EPSILON`` =
1e-4 as in the comparator; integers exact; strings exact unless the rule says otherwise;
no cross-type matches) instead of Python ``==`` on QATCH's rounded lower-cased strings.

- Both tables without rows: 1.0 for every metric; exactly one without rows: 0.0.
- ``cell_precision``: share of the prediction's distinct cells matching some target cell.
- ``cell_recall``: share of the target's distinct cells matched by some prediction cell.
- ``tuple_cardinality``: fewer rows / more rows (duplicates counted).
- ``tuple_constraint``: rows with their cells sorted (column order inside a row does not
  matter), counted as multisets; the share of distinct target rows whose count in the
  prediction equals their count in the target. Extra prediction rows cost nothing.
- ``tuple_order``: the rows found in both tables, each kept once in first-occurrence order
  (cells in column order, as QATCH does); Spearman's rho of the prediction's order against
  the target's, as (rho + 1) / 2. No common row: rho = 0 (0.5); one common row: 1.0.
- ``execution_accuracy``: 1.0 iff same row count and the same set of cell-sorted rows.

Cells and rows are compared by exact keys (hashing), so every metric runs in O(n log n).
Equal numbers written differently (5 and 5.0) are one distinct cell, which matches when
either spelling does. For reals within epsilon, a prediction number is read as the closest
target number it matches (the nearest numbers in sorted order, checked with the rule);
cell precision and recall test "some cell matches" directly, in both directions.

>>> cell_precision([["a", "b"], ["c", "d"]], [["a", "b"], ["c", "e"]])
0.75
>>> tuple_order([["apple", "orange"], ["pear"]], [["pear"], ["apple", "orange"]])
0.0
>>> tuple_constraint([[1.0, "x"]], [["x", 1.00001]])  # within epsilon, column order free
1.0
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cached_property, partial
from itertools import compress, count
from operator import ne
from typing import Protocol

from answerkey.comparator.values import DEFAULT_EPSILON, MatchRule
from answerkey.metrics.cells import closest_matches, keyed_table
from answerkey.metrics.registry import METRIC_KINDS, METRICS, metrics_of_kind, register
from answerkey.model import Relation, Value, rows_of, value_of

# Lists of rows, NumPy arrays (`df.values`), row iterators (`df.itertuples(index=False)`), DataFrames.
Table = Relation | Iterable[Iterable[object]]

DEFAULT_RULE = MatchRule(epsilon=DEFAULT_EPSILON)

TABLE_METRICS = (
    "cell_precision",
    "cell_recall",
    "tuple_cardinality",
    "tuple_constraint",
    "tuple_order",
    "execution_accuracy",
)


class TableMetric(Protocol):
    """The signature shared by the table metrics."""

    def __call__(self, target: Table, prediction: Table, *, rule: MatchRule | None = None) -> float: ...


def table_rows(table: Table) -> tuple[tuple[Value, ...], ...]:
    """The rows of ``table`` as tuples of typed values, each cell read by ``value_of`` (rows
    may differ in length; NaN is nil, as QATCH reads it). Raises ``TypeError`` /
    ``ValueError`` for a non-table.

    >>> table_rows([[1, None], ["x", float("nan")]])
    ((Number(value=1, is_real=False, text='1'), Nil()), (String(text='x'), Nil()))
    """
    if isinstance(table, Relation):
        return table.rows
    return tuple(tuple(map(value_of, row)) for row in rows_of(table))


class _Comparison:
    """One target and one prediction, with the keys every metric needs computed once."""

    def __init__(self, target: Table, prediction: Table, rule: MatchRule | None) -> None:
        self.rule = rule or DEFAULT_RULE
        self.target_table = keyed_table(target, self.rule)
        self.prediction_table = keyed_table(prediction, self.rule)
        self.target = self.target_table.rows
        self.prediction = self.prediction_table.rows

    @property
    def special(self) -> float | None:
        """The score every metric gives when a table has no rows, else None."""
        if not self.target and not self.prediction:
            return 1.0
        if not self.target or not self.prediction:
            return 0.0
        return None

    @property
    def target_cells(self) -> set:
        return self.target_table.cells

    @property
    def prediction_cells(self) -> set:
        return self.prediction_table.cells

    @cached_property
    def snapped(self) -> dict:
        """Prediction number key -> key of the closest target number it matches (only for
        numbers whose own key is not a target key)."""
        loose = self.prediction_cells - self.target_cells
        return closest_matches(loose, self.prediction_table, self.target_table, self.rule, loose_are_canonical=False)

    @cached_property
    def snapped_prediction(self) -> list[tuple]:
        """The prediction's rows with each number replaced by the target number it matches."""
        snapped = self.snapped
        if not snapped:
            return self.prediction
        loose, get = snapped.keys(), snapped.get
        return [row if loose.isdisjoint(row) else tuple(get(key, key) for key in row) for row in self.prediction]

    @cached_property
    def sorted_row_counts(self) -> tuple[Counter, Counter]:
        """Each table's multiset of rows with their cells sorted."""
        return Counter(_cell_sorted(self.target)), Counter(_cell_sorted(self.snapped_prediction))

    def cell_precision(self) -> float:
        target_cells, prediction_cells = self.target_cells, self.prediction_cells
        if not prediction_cells:
            return 1.0 if not target_cells else 0.0
        # Snapped keys are exactly the prediction cells outside the target that match one.
        return (len(prediction_cells & target_cells) + len(self.snapped)) / len(prediction_cells)

    def cell_recall(self) -> float:
        target_cells, prediction_cells = self.target_cells, self.prediction_cells
        if not target_cells:
            return 1.0 if not prediction_cells else 0.0
        missing = target_cells - prediction_cells
        hits = len(target_cells) - len(missing)
        if missing:
            hits += len(
                closest_matches(missing, self.target_table, self.prediction_table, self.rule, loose_are_canonical=True)
            )
        return hits / len(target_cells)

    def tuple_cardinality(self) -> float:
        shorter, longer = sorted((len(self.target), len(self.prediction)))
        return shorter / longer

    def tuple_constraint(self) -> float:
        target_counts, prediction_counts = self.sorted_row_counts
        kept = sum(1 for row, count in target_counts.items() if prediction_counts[row] == count)
        return kept / len(target_counts)

    def tuple_order(self) -> float:
        target, prediction = dict.fromkeys(self.target), dict.fromkeys(self.snapped_prediction)
        ranks = {row: rank for rank, row in enumerate(row for row in target if row in prediction)}
        common = len(ranks)
        if common == 0:
            rho = 0.0
        elif common == 1:
            rho = 1.0
        else:
            order = (row for row in prediction if row in ranks)
            squares = sum((position - ranks[row]) ** 2 for position, row in enumerate(order))
            rho = 1 - 6 * squares / (common * (common * common - 1))
        return min(1.0, max(0.0, (rho + 1) / 2))

    def execution_accuracy(self) -> float:
        if len(self.target) != len(self.prediction):
            return 0.0
        target_counts, prediction_counts = self.sorted_row_counts
        return 1.0 if target_counts.keys() == prediction_counts.keys() else 0.0

    def score(self, name: str) -> float:
        special = self.special
        if special is not None:
            return special
        return float(getattr(self, name)())


_BY_HASH = partial(sorted, key=hash)


def _total_order(key: object) -> tuple:
    return (hash(key), type(key).__name__, repr(key))


def _cell_sorted(rows: list[tuple]) -> list[tuple]:
    """Each row with its cells in one canonical order, so that rows holding the same
    multiset of cells become equal tuples. Keys of different types do not compare, so cells
    are sorted by hash (C-level, fast); a row where distinct cells share a hash (the ints -1
    and -2 do) is sorted by hash, type and repr instead."""
    if max(map(len, rows), default=0) < 2:
        return list(map(tuple, rows))  # Speed: a row of one cell is in order already
    ordered = list(map(tuple, map(_BY_HASH, rows)))
    # Only a row with fewer distinct hashes than cells can hold a collision.
    distinct_hashes = map(len, map(set, map(partial(map, hash), rows)))
    for index in compress(count(), map(ne, distinct_hashes, map(len, rows))):
        row = rows[index]
        if len(set(row)) != len(set(map(hash, row))):
            ordered[index] = tuple(sorted(row, key=_total_order))
    return ordered


def table_scores(
    target: Table,
    prediction: Table,
    *,
    rule: MatchRule | None = None,
    metrics: Iterable[str] = TABLE_METRICS,
) -> dict[str, float]:
    """Several table metrics at once, sharing the work: ``{name: score}`` in the order given.
    Any metric registered as a ``table`` metric may be named: those of this module share
    the work, any other is called as ``metric(target, prediction, rule=rule)``.

    >>> table_scores([[1], [2]], [[2], [1]], metrics=["tuple_order", "tuple_constraint"])
    {'tuple_order': 0.0, 'tuple_constraint': 1.0}
    """
    comparison = _Comparison(target, prediction, rule)
    scores = {}
    for name in metrics:
        if name in TABLE_METRICS:
            scores[name] = comparison.score(name)
        elif METRIC_KINDS.get(name) == "table":
            scores[name] = float(METRICS[name](target, prediction, rule=rule))
        else:
            raise ValueError(f"unknown table metric {name!r}; known: {', '.join(metrics_of_kind('table'))}")
    return scores


@register("cell_precision", default_in=("score", "qatch", "sql", "qatch-evaluator"))
def cell_precision(target: Table, prediction: Table, *, rule: MatchRule | None = None) -> float:
    """Share of the prediction's distinct cells that match a target cell (QATCH).

    >>> cell_precision([["a", "b"], ["c", "d"]], [["a"], ["b"], ["c"], ["d"]])
    1.0
    """
    return _Comparison(target, prediction, rule).score("cell_precision")


@register("cell_recall", default_in=("score", "qatch", "sql", "qatch-evaluator"))
def cell_recall(target: Table, prediction: Table, *, rule: MatchRule | None = None) -> float:
    """Share of the target's distinct cells matched by a prediction cell (QATCH).

    >>> cell_recall([["a", "b"], ["c", "d"]], [["a", "x"], ["y", "d"]])
    0.5
    """
    return _Comparison(target, prediction, rule).score("cell_recall")


@register("tuple_cardinality", default_in=("score", "qatch", "sql", "qatch-evaluator"))
def tuple_cardinality(target: Table, prediction: Table, *, rule: MatchRule | None = None) -> float:
    """Fewer rows over more rows, duplicates counted (QATCH).

    >>> tuple_cardinality([["a", "b"], ["c", "d"], ["c", "d"], ["f", "g"]], [["a", "b"], [3, 2]])
    0.5
    """
    return _Comparison(target, prediction, rule).score("tuple_cardinality")


@register("tuple_constraint", default_in=("score", "qatch", "sql", "qatch-evaluator"))
def tuple_constraint(target: Table, prediction: Table, *, rule: MatchRule | None = None) -> float:
    """Share of distinct target rows (cells sorted) found exactly as often in the prediction.

    >>> tuple_constraint([["a", "b"], ["c", "d"]], [["a", "b"], ["a", "b"], ["c", "d"]])
    0.5
    """
    return _Comparison(target, prediction, rule).score("tuple_constraint")


@register("tuple_order", needs=("order",), default_in=("score", "qatch", "sql", "qatch-evaluator"))
def tuple_order(target: Table, prediction: Table, *, rule: MatchRule | None = None) -> float:
    """Spearman's rho of the order of the common rows, scaled to [0, 1] (QATCH).

    >>> tuple_order([["apple", "orange"], ["pear"]], [["pear"]])
    1.0
    """
    return _Comparison(target, prediction, rule).score("tuple_order")


# QATCH's own MetricEvaluator leaves execution accuracy out: it is opt-in there.
@register("execution_accuracy", default_in=("score", "qatch", "sql"))
def execution_accuracy(target: Table, prediction: Table, *, rule: MatchRule | None = None) -> float:
    """1.0 iff both tables have as many rows and the same set of cell-sorted rows (Spider).

    >>> execution_accuracy([["a", 1]], [[1, "a"]])
    1.0
    """
    return _Comparison(target, prediction, rule).score("execution_accuracy")
