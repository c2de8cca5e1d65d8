"""The Comparator: is a system answer correct against the canonical answer?

``judge`` gives a ``Verdict`` (correct or incorrect, the column mapping or the reason, an
explanation, the signature of its options); ``judge_min_max`` judges against a minimal and a
maximal answer (ATIS 1991-92). ``MatchRule`` compares single values.

>>> bool(judge("53200.0", "53198.8")), bool(judge("53200.0", "53190.9"))
(True, False)
>>> verdict = judge('((2341 "SMITH"))', '(("TAI" 2341 "SMITH" 45))')
>>> verdict.correct, verdict.mapping
(True, (1, 2))
"""

from answerkey.comparator._judge import (
    SCALAR_RULES as SCALAR_RULES,
    Explanation,
    Verdict,
    judge,
    judge_keyed,
    judge_signature,
)
from answerkey.comparator.minmax import judge_min_max
from answerkey.comparator.sortkeys import OutOfOrder
from answerkey.comparator.values import (
    DEFAULT_ABS_EPSILON as DEFAULT_ABS_EPSILON,
    DEFAULT_EPSILON,
    STRING_MODES as STRING_MODES,
    KeyedColumn,
    MatchRule,
)

__all__ = [
    "judge",
    "judge_keyed",
    "judge_min_max",
    "Verdict",
    "Explanation",
    "OutOfOrder",
    "MatchRule",
    "KeyedColumn",
    "DEFAULT_EPSILON",
    "judge_signature",
]
