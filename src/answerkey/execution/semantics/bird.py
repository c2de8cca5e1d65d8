"""The ``bird`` semantics: BIRD's EX (``evaluation_ex.calculate_ex``), the set of rows.

``set(predicted) == set(gold)`` over the rows as the Python driver gives them: duplicates
ignored, columns in the same order, values by Python ``==``.
"""

from __future__ import annotations

from answerkey.errors import plural
from answerkey.execution.semantics._base import Decision, Item, Semantics
from answerkey.execution.semantics._permutation import column_permutation


def _decide(item: Item) -> Decision:
    gold, predicted = item.gold_rows, item.predicted_rows
    gold_set, predicted_set = set(gold), set(predicted)
    if gold_set == predicted_set:
        if not gold:
            return Decision("bird", True, "both results are empty")
        if len(gold) != len(predicted):
            counts = f"the gold has {plural(len(gold), 'row')}, the prediction {len(predicted):,}"
            return Decision("bird", True, f"same set of rows; duplicates ignored ({counts})")
        return Decision("bird", True, "same set of rows")
    gold_width = len(gold[0]) if gold else item.gold_width
    predicted_width = len(predicted[0]) if predicted else item.predicted_width
    if gold and predicted and gold_width != predicted_width:
        return Decision(
            "bird",
            False,
            f"the gold has {plural(gold_width, 'column')}, the prediction {predicted_width:,}",
        )
    # Permuting columns keeps distinct rows distinct: sets of other sizes need no search.
    permutable = gold and predicted and len(gold_set) == len(predicted_set)
    if permutable and column_permutation(gold, predicted, set) is not None:
        return Decision("bird", False, "the rows match only with columns permuted, which bird does not allow")
    lacking = len(gold_set - predicted_set)
    extra = len(predicted_set - gold_set)
    parts = []
    if lacking:
        parts.append(f"lacks {lacking:,} of the gold's rows")
    if extra:
        parts.append(f"has {plural(extra, 'row')} not in the gold")
    reason = "the sets of rows differ: the prediction " + " and ".join(parts)
    return Decision("bird", False, reason)


class Bird(Semantics):
    """BIRD's execution accuracy."""

    name = "bird"
    rule = "BIRD's EX: the set of rows, columns in the same order, values by Python =="
    official = "BIRD's evaluation_ex.calculate_ex"

    def decide(self, item: Item) -> Decision:
        """``set(predicted) == set(gold)``."""
        return _decide(item)
