"""Judging against a minimal and a maximal answer (ATIS 1991-92).

A system answer S is correct against minimal answer M and maximal answer X iff (1)
``judge(M, S)`` is correct: S holds columns mapping onto every column of M, and (2) when S
has tuples, some injective mapping g of S's columns onto X's columns makes X projected onto
g equivalent to S (X is the canonical side: reals within epsilon of X's values; in order when
X is ordered). (2) says every system column is a column of the maximal answer, with its values
tuple by tuple. A corpus checks that M is a projection of X when it is read.

Sort keys (``ORDERED BY``) name columns of the minimal answer and are judged there, in (1);
X is then compared as a set in (2). A maximal answer with sort keys is refused.

>>> from answerkey.grammar import parse
>>> minimal, maximal = parse('((4322) (5267))'), parse('((4322 "SMITH" 45) (5267 "JONES" 44))')
>>> judge_min_max(minimal, maximal, parse('((5267 "JONES") (4322 "SMITH"))')).correct
True
>>> judge_min_max(minimal, maximal, parse('((4322 "SMITH" 1) (5267 "JONES" 2))')).reason
'system column 3 matches no column of the maximal answer'
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from answerkey.comparator._judge import Verdict, judge
from answerkey.comparator.search import find_projection
from answerkey.comparator.values import DEFAULT_ABS_EPSILON, DEFAULT_EPSILON, MatchRule
from answerkey.model import Answer, NoAnswer, Relation


def _maximal_mapping(
    maximal: Sequence[tuple], system: Sequence[tuple], rule: MatchRule, ordered: bool
) -> tuple[tuple[int, ...] | None, str]:
    """An injective mapping g (system column j -> maximal column g[j]) with the maximal rows
    projected onto g equivalent to the system rows, or None and why not."""
    width, available = len(system[0]), len(maximal[0])
    if width > available:
        return None, f"the system answer has {width} columns; the maximal answer only {available}"
    # A system column may only go to a maximal column whose value set covers it both ways.
    options, mapping = find_projection(system, maximal, rule, ordered=ordered)
    for j, choices in enumerate(options):
        if not choices:
            return None, f"system column {j + 1} matches no column of the maximal answer"
    if mapping is not None:
        return mapping, ""
    return None, "no mapping of the system columns onto columns of the maximal answer gives the system tuples"


def judge_min_max(
    minimal: Relation,
    maximal: Relation,
    system: Answer,
    *,
    epsilon: float | str | Decimal = DEFAULT_EPSILON,
    scalars: str = "atis",
    strings: str = "exact",
    abs_epsilon: float | str | Decimal = DEFAULT_ABS_EPSILON,
) -> Verdict:
    """Judge ``system`` against a minimal and a maximal answer (ATIS 1991-92): it must hold
    every minimal column and no column outside the maximal answer (see the module docstring).
    ``Verdict.mapping`` maps the minimal answer's columns onto the system's. ``ValueError``
    for a maximal answer with sort keys (they go on the minimal answer)."""
    if maximal.order_by is not None:
        raise ValueError("sort keys (ORDERED BY) go on the minimal answer, whose columns they number")
    verdict = judge(minimal, system, epsilon=epsilon, scalars=scalars, strings=strings, abs_epsilon=abs_epsilon)
    if not verdict.correct:
        if isinstance(system, NoAnswer):
            return verdict
        return Verdict(
            False,
            f"the minimal answer does not match: {verdict.reason}",
            None,
            None,
            minimal,
            system,
            verdict.rule,
            scalars,
        )
    if not isinstance(system, Relation) or not system.rows:
        return verdict
    rule = verdict.rule or MatchRule(epsilon=epsilon, strings=strings, abs_epsilon=abs_epsilon)
    in_order = maximal.ordered and minimal.order_by is None  # sort keys: the minimal answer judged the order
    mapping, why = _maximal_mapping(maximal.rows, system.rows, rule, in_order)
    if mapping is None:
        return Verdict(False, why, None, None, minimal, system, rule, scalars)
    return Verdict(
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
        verdict.mapping,
        None,
        minimal,
        system,
        rule,
        scalars,
    )
