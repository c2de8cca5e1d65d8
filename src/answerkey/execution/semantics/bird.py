"""The ``bird`` semantics: BIRD's EX (``evaluation_ex.calculate_ex``), the set of rows.

``set(predicted) == set(gold)`` over the rows as the Python driver gives them: duplicates
ignored, columns in the same order, values by Python ``==``. A gold query that fails scores
the item 0 (``Bird.failed_gold``), and text that is not UTF-8 makes the query that reads it
fail, as ``sqlite3``'s default decoder does (``Bird.text_decoding``).
"""

from __future__ import annotations

from answerkey.errors import plural
from answerkey.execution.semantics._base import Decision, Item, Semantics
from answerkey.execution.semantics._permutation import column_permutation


def _decide(item: Item) -> Decision:
    if item.identical:
        # Speed (most predictions are correct): the same rows, at least one, give the same set.
        return Decision("bird", True, "same set of rows")
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
    # Its execute_model scores 0 whatever fails in execute_sql, the gold query included
    # (DAMO-ConvAI bird/llm/src/evaluation.py:32-43 at 483554e; mini_dev's
    # evaluation_ex.py:25-43 at 4d970a9), and the item stays in the denominator.
    failed_gold = "BIRD's script scores an item whose gold query fails 0 and counts it"
    # Its connection keeps sqlite3's default text decoder: text that is not UTF-8 raises, and
    # the item scores 0 (evaluation.py:18-22 at 483554e).
    text_decoding = "strict"

    def decide(self, item: Item) -> Decision:
        """``set(predicted) == set(gold)``."""
        return _decide(item)
