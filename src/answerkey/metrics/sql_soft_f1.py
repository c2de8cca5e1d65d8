"""BIRD mini-dev's soft F1 of two query results (``soft_f1``), registered as a ``result``
metric: it reads the values the database driver gave, as the official script does."""

from __future__ import annotations

from answerkey.adapters.sql import QueryResult

# Named as in answerkey.execution.semantics, where soft_f1 came from word for word.
from answerkey.metrics.driver_values import driver_rows as _driver_rows, equal_driver_rows
from answerkey.metrics.registry import register


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _row_match(predicted: tuple[object, ...], gold: tuple[object, ...]) -> tuple[float, float, float]:
    """For one pair of rows: the share of predicted values found in the gold row, of those
    not found, and of gold values not in the predicted row, each over the gold row's width."""
    # Membership counted in C (tuple.__contains__ is what ``in`` calls): wrong results hold many rows.
    found = sum(map(gold.__contains__, predicted))
    only_predicted = len(predicted) - found
    only_gold = len(gold) - sum(map(predicted.__contains__, gold))
    width = len(gold)
    return found / width, only_predicted / width, only_gold / width


@register("soft_f1", kind="result", needs=("driver_values",), default_in=("sql",))
def soft_f1(gold: QueryResult, predicted: QueryResult) -> float:
    """BIRD mini-dev's soft F1 of a predicted result against the gold result: duplicate rows
    dropped (first occurrences kept, in order), then the i-th predicted row paired with the
    i-th gold row (by position: the same rows in another order score less); within a pair,
    values are found by membership (Python ``==``, any position); unpaired rows count wholly
    against. 1.0 when both are empty, 0.0 when the predicted query failed; ``ValueError``
    when the gold query failed.

    >>> from answerkey.model import Relation
    >>> def result(rows):
    ...     return QueryResult(rows=Relation.from_rows(rows).rows)
    >>> soft_f1(result([[1, "a"], [2, "b"]]), result([[1, "a"], [2, "c"]]))
    0.75
    >>> soft_f1(result([[1, "a"], [2, "b"]]), result([[2, "b"], [1, "a"]]))
    0.0
    """
    if gold.error is not None:
        raise ValueError(f"the gold query failed: {_one_line(gold.error)}")
    if predicted.error is not None:
        return 0.0
    if equal_driver_rows(gold, predicted):
        # Speed (a correct prediction): the same rows on both sides, as below, without making
        # them. (Equal row counts: 1.0 for no rows too, as below.)
        return 1.0
    predicted_rows = _driver_rows(predicted)
    gold_rows = _driver_rows(gold)
    if not predicted_rows and not gold_rows:
        return 1.0
    predicted_rows = list(dict.fromkeys(predicted_rows))
    gold_rows = list(dict.fromkeys(gold_rows))
    if predicted_rows == gold_rows and all(gold_rows):
        # Speed (a correct prediction): every pair of rows is equal, each scoring (1.0, 0.0,
        # 0.0) below, so precision and recall are 1.0 and so is their F1. (Rows without a
        # value divide by zero below: they go there.)
        return 1.0
    # The same lists, summed with sum() in the same order, as the official script: the same float.
    matched: list[float] = []
    only_predicted: list[float] = []
    only_gold: list[float] = []
    for index, gold_row in enumerate(gold_rows):
        if index >= len(predicted_rows):
            matched.append(0)
            only_gold.append(1)
            continue
        found, extra, lacking = _row_match(predicted_rows[index], gold_row)
        matched.append(found)
        only_predicted.append(extra)
        only_gold.append(lacking)
    for _ in range(len(predicted_rows) - len(gold_rows)):
        matched.append(0)
        only_predicted.append(1)
        only_gold.append(0)
    true_positive = sum(matched)
    false_positive = sum(only_predicted)
    false_negative = sum(only_gold)
    precision = true_positive / (true_positive + false_positive) if true_positive + false_positive > 0 else 0
    recall = true_positive / (true_positive + false_negative) if true_positive + false_negative > 0 else 0
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0
