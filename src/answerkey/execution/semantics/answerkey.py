"""The ``answerkey`` semantics (the default): answerkey's comparator on the typed results.

The gold is a set of tuples, or, when its outer ``ORDER BY`` names result columns, ordered by
those columns with ties compared as sets; extra predicted columns are allowed, in any order;
reals match within the rule's epsilon. Its decision carries the comparator's verdict, whose
explanation the reports show where the semantics disagree.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from operator import itemgetter
from typing import Any

from answerkey.adapters.sql import ColumnFacts, QueryResult
from answerkey.comparator import KeyedColumn, MatchRule, judge, judge_keyed
from answerkey.execution.semantics._base import Decision, Item, Semantics
from answerkey.model import Boolean, Date, DateTime, Failure, Nil, Number, Relation, String, Time, Value

# The model's value types: a column of a relation holds one of them, and nils.
_VALUE_TYPES = frozenset({Boolean, Number, String, Date, DateTime, Time, Failure})


def _relation(
    rows: tuple[tuple[Value, ...], ...], *, ordered: bool = False, order_by: tuple[int, ...] | None = None
) -> Relation:
    """``Relation(rows, ordered=ordered, order_by=order_by)`` for the typed rows of a result,
    checked in a few C-level passes over each column instead of value by value (a million-row
    result has millions of values); rows these passes do not vouch for go to ``Relation()``,
    whose messages say what is wrong."""
    if rows and type(rows) is tuple and set(map(type, rows)) == {tuple}:
        widths = set(map(len, rows))
        arity = len(rows[0])
        if len(widths) == 1 and arity and all(_one_type(rows, column) for column in range(arity)):
            if order_by is not None:
                Relation(rows[:1], order_by=order_by)  # the sort keys checked against the arity, as Relation does
            return Relation.checked(rows, arity, ordered=ordered, order_by=order_by)
    return Relation(rows, ordered=ordered, order_by=order_by)


def _one_type(rows: tuple[tuple[Value, ...], ...], column: int) -> bool:
    """The column holds values of one of the model's types, and nils. (Read with itemgetter,
    not zip(*rows), which makes an iterator per row: a million objects for the collector.)"""
    kinds = set(map(type, map(itemgetter(column), rows)))
    kinds.discard(Nil)
    return len(kinds) <= 1 and kinds <= _VALUE_TYPES


class _RowsOnDemand(Sequence[tuple[Value, ...]]):
    """A result's typed rows, made when first read; their number known before."""

    def __init__(self, result: QueryResult) -> None:
        self._result = result

    def __len__(self) -> int:
        return self._result.row_count

    def __getitem__(self, index: Any) -> Any:
        return self._result.rows[index]

    def __iter__(self) -> Iterator[tuple[Value, ...]]:
        return iter(self._result.rows)


def _judged_plainly(item: Item) -> Decision | None:
    """The answerkey decision against a gold result compared as a set, from both results'
    driver values (``QueryResult.driver_columns``): typed values are made only where keys do
    not decide, or for an incorrect verdict to explain itself (see ``judge_keyed``). None
    when the values cannot decide it this way: typed rows decide then."""
    gold, predicted = item.gold, item.predicted
    plain = gold.driver_columns, predicted.driver_columns
    if not plain[0] or not plain[1] or not gold.row_count or not predicted.row_count or len(plain[0]) > len(plain[1]):
        return None
    if item.order_by is not None or item.gold_order is not None:
        return None
    rule = item.rule
    keyed_gold = _keyed_plainly(plain[0], gold.driver_facts, rule)
    keyed_predicted = _keyed_plainly(plain[1], predicted.driver_facts, rule)
    if keyed_gold is None or keyed_predicted is None:
        return None
    verdict = judge_keyed(
        _RowsOnDemand(gold),
        _RowsOnDemand(predicted),
        (keyed_gold, keyed_predicted),
        rule,
        lambda: (_relation(gold.rows), _relation(predicted.rows)),
    )
    return Decision("answerkey", verdict.correct, verdict.reason, verdict)


def _keyed_plainly(
    columns: Sequence[list[object]], facts: Sequence[ColumnFacts] | None, rule: MatchRule
) -> list[KeyedColumn] | None:
    """``rule.keyed_plain`` of each column (with what the reader found of it), or None if it
    refuses one."""
    keyed = []
    for index, values in enumerate(columns):
        if facts is None:
            column = rule.keyed_plain(values)
        else:
            column = rule.keyed_plain(values, facts[index].types, facts[index].bounds)
        if column is None:
            return None
        keyed.append(column)
    return keyed


def _decide(item: Item) -> Decision:
    decided = _judged_plainly(item)
    if decided is not None:
        return decided
    gold = item.gold
    try:
        if item.order_by is not None:
            keys = tuple(item.order_by)
            canonical = _relation(gold.rows, order_by=keys) if keys else _relation(gold.rows)
        elif (order := item.gold_order) is not None:
            canonical = _relation(gold.rows, order_by=order) if order else _relation(gold.rows, ordered=True)
        else:
            canonical = _relation(gold.rows)
    except (TypeError, ValueError) as problem:
        raise ValueError(f"the gold result cannot be compared: {problem}") from None
    try:
        system = _relation(item.predicted.rows)
    except (TypeError, ValueError) as problem:
        return Decision("answerkey", False, f"the predicted result cannot be compared: {problem}")
    rule = item.rule
    verdict = judge(
        canonical, system, epsilon=rule.exact_epsilon, strings=rule.strings, abs_epsilon=rule.exact_abs_epsilon
    )
    return Decision("answerkey", verdict.correct, verdict.reason, verdict)


class Answerkey(Semantics):
    """answerkey's own rule (``decide`` above: ``answerkey.execution.semantics.decide``)."""

    name = "answerkey"
    rule = (
        "answerkey's comparator: tuples as a set, extra columns in any order allowed, reals within "
        "epsilon; ordered by the gold's ORDER BY columns (ties as sets) when it has one"
    )

    def decide(self, item: Item) -> Decision:
        """answerkey's comparator on the typed results, ordered by the gold's ORDER BY keys."""
        return _decide(item)
