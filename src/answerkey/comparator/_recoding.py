"""When keys can decide matching under a tolerance (``answerkey.comparator.search``).

Where every number matches at most one number of the other answer, a system number's key
can become the key of the canonical number it matches; then the search compares keys only.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from decimal import Decimal
from itertools import chain

from answerkey.comparator.tuples import Row, column_has_reals
from answerkey.comparator.values import MatchRule
from answerkey.model import Number

_SAMPLE = 2000


def _matches_of(number: int | Decimal, others: list, rule: MatchRule) -> list:
    """The numbers of ``others`` (sorted) that match the reference ``number``."""
    window = rule.window(Decimal(number), canonical=True)
    assert window is not None  # canonical=True always bounds
    return [
        match
        for match in others[bisect_left(others, window[0]) : bisect_right(others, window[1])]
        if _numbers_match(number, match, rule)
    ]


def _some_match_twice(numbers: list, others: list, rule: MatchRule) -> bool:
    return any(len(_matches_of(number, others, rule)) > 1 for number in numbers)


def _number_keys(rule: MatchRule, column: Sequence) -> list:
    """The keys (values) of the numbers of a column."""
    kinds = set(map(type, column))
    if kinds == {Number}:
        return rule.keys(column)
    return [value.value for value in column if type(value) is Number] if Number in kinds else []


def _numbers_match(reference: int | Decimal, other: int | Decimal, rule: MatchRule) -> bool:
    """``MatchRule.match`` on two numbers given by their values (ints are integers)."""
    if type(reference) is int and type(other) is int:
        return reference == other
    return rule.numbers_close(reference, other)


def recoding(
    rule: MatchRule,
    canonical: Sequence[Row],
    system: Sequence[Row],
    reference: str,
    *,
    attempt: bool = True,
    has_reals: bool | None = None,
) -> dict | None:
    """When the keys can decide matching: {} without a tolerance to apply (no real, or epsilon
    0); with one, the system keys to replace by the canonical key of the number they match,
    when each number of either answer matches at most one number of the other (and no two
    numbers of one answer share a key, as 5 and 5.0 do). Then a value matches another
    exactly when their keys, so replaced, are equal, and the keyed search (classes, counting
    invariants) decides. None when some number matches several, or a tolerance applies and
    ``attempt`` is false: the tolerant search decides. ``reference`` names the side the
    tolerance is relative to; ``has_reals``, when the caller knows it, whether some column
    holds a real.
    """
    if has_reals is None:
        has_reals = rule.tolerant and any(map(column_has_reals, chain(zip(*canonical), zip(*system))))
    if not (rule.tolerant and has_reals):
        return {}
    if not attempt:
        return None
    sides = {"canonical": list(zip(*canonical)), "system": list(zip(*system))}
    # A number's key is its value: an int for an integer, a Decimal for a real.
    values = {side: [_number_keys(rule, column) for column in columns] for side, columns in sides.items()}
    other = "system" if reference == "canonical" else "canonical"
    # Dense numbers (a reference number matching two others) show in samples too: a cheap
    # way out before collecting and sorting them all.
    samples = {
        side: list(set(chain.from_iterable(keys[:: max(1, len(keys) * len(found) // _SAMPLE)] for keys in found)))
        for side, found in values.items()
    }
    if _some_match_twice(samples[reference], sorted(samples[other]), rule):
        return None
    numbers: dict[str, list] = {}
    for side, found in values.items():
        integers: set = set()
        reals: set = set()
        for keys in found:
            kinds = set(map(type, keys))
            if kinds == {int}:
                integers.update(keys)
            elif int not in kinds:
                reals.update(keys)
            else:
                integers.update(key for key in keys if type(key) is int)
                reals.update(key for key in keys if type(key) is not int)
        if not integers.isdisjoint(reals):  # 5 and 5.0: one key, two ways of matching
            return None
        numbers[side] = [*integers, *reals]
    others = sorted(numbers[other])
    partners: dict = {}  # a number of the other side -> the reference number it matches
    for number in numbers[reference]:
        found = _matches_of(number, others, rule)
        if len(found) > 1 or (found and found[0] in partners):
            return None
        if found:
            partners[found[0]] = number
    if reference == "canonical":
        return {match: number for match, number in partners.items()}
    return {number: match for match, number in partners.items()}
