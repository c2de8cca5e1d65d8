"""exact-bag: the worked example of docs/semantics.md, a semantics in one module.

The prediction is correct when its rows are the gold's as a multiset: each row as often as
in the gold, in any order, columns in the same order, values compared as the Python driver
gives them (``==``: 1 equals 1.0).
"""

from collections import Counter

from answerkey.execution.semantics import Decision, Item, Semantics, register


class ExactBag(Semantics):
    """The same bag of rows."""

    name = "exact-bag"
    rule = "the gold's rows as a bag: each as often, in any order, columns in the same order, values by Python =="
    default = False  # decided only when it is the headline: every other run's report stays the same

    def decide(self, item: Item) -> Decision:
        """Correct when both results hold the same rows, each as often."""
        gold, predicted = Counter(item.gold_rows), Counter(item.predicted_rows)
        if gold == predicted:
            return self.decision(True, "the same bag of rows")
        lacking, extra = (gold - predicted).total(), (predicted - gold).total()
        return self.decision(False, f"the prediction lacks {lacking} of the gold's rows and has {extra} rows not in it")


register(ExactBag())
