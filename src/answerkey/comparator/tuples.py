"""Set equivalence of tuple sets under a ``MatchRule``, without a pairwise scan.

Columns whose values match exactly are hashed; for columns holding reals compared with a
tolerance, candidates are found by binary search on the first such column inside the
tolerance window, then checked in full. Equivalence is mutual coverage: every canonical
tuple matches some system tuple and every system tuple matches some canonical tuple.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from decimal import Decimal

from answerkey.comparator.values import _EXACT, MatchRule
from answerkey.model import Number, Value

__all__ = ["TupleIndex", "tolerant_columns", "missing", "equivalent"]

Row = tuple[Value, ...]


def tolerant_columns(rule: MatchRule, *tables: Sequence[Row]) -> tuple[int, ...]:
    """Columns where some value, in any of ``tables``, is a real matched with tolerance."""
    if not rule.tolerant or not tables or not tables[0]:
        return ()
    arity = len(tables[0][0])
    found = []
    for column in range(arity):
        if any(rule.is_tolerant_value(row[column]) for table in tables for row in table):
            found.append(column)
    return tuple(found)


class TupleIndex:
    """Tuples of one side, indexed to answer "does any of them match this tuple?".

    ``side`` is ``"system"`` when the indexed tuples are the system's (needles are canonical)
    and ``"canonical"`` otherwise: the tolerance is relative to the canonical value.
    """

    def __init__(self, rows: Sequence[Row], rule: MatchRule, tolerant: tuple[int, ...], side: str) -> None:
        self.rule = rule
        self.tolerant = tolerant
        self.side = side
        arity = len(rows[0]) if rows else 0
        self.exact = tuple(c for c in range(arity) if c not in tolerant)
        key = rule.key
        exact = self.exact
        if not tolerant:
            self.keys = {tuple(key(row[c]) for c in exact) for row in rows}
            return
        first = tolerant[0]
        groups: dict[tuple, tuple[list, list, dict]] = {}
        for row in rows:
            group_key = tuple(key(row[c]) for c in exact)
            group = groups.get(group_key)
            if group is None:
                group = groups[group_key] = ([], [], {})
            value = row[first]
            if type(value) is Number:
                group[0].append((Decimal(value.value), row))
            else:
                group[2].setdefault(value, []).append(row)
        self.groups = {}
        for group_key, (numbers, _, others) in groups.items():
            numbers.sort(key=lambda pair: pair[0])
            self.groups[group_key] = ([pair[0] for pair in numbers], [pair[1] for pair in numbers], others)

    def _window(self, value: Decimal) -> tuple[Decimal, Decimal] | None:
        epsilon = self.rule._epsilon
        if self.side == "system":
            # needle is canonical c: system s within |c| * epsilon
            reach = _EXACT.multiply(value.copy_abs(), epsilon)
        else:
            # needle is system s: canonical c with |s - c| <= |c| eps, so |c| <= |s| / (1 - eps)
            if epsilon >= 1:
                return None
            reach = _EXACT.divide(_EXACT.multiply(value.copy_abs(), epsilon), 1 - epsilon)
        return _EXACT.subtract(value, reach), _EXACT.add(value, reach)

    def _matches(self, needle: Row, candidate: Row) -> bool:
        match = self.rule.match
        if self.side == "system":
            return all(match(needle[c], candidate[c]) for c in self.tolerant)
        return all(match(candidate[c], needle[c]) for c in self.tolerant)

    def contains_match(self, needle: Row) -> bool:
        """True iff some indexed tuple matches ``needle``."""
        key = self.rule.key
        group_key = tuple(key(needle[c]) for c in self.exact)
        if not self.tolerant:
            return group_key in self.keys
        group = self.groups.get(group_key)
        if group is None:
            return False
        values, rows, others = group
        value = needle[self.tolerant[0]]
        if type(value) is not Number:
            candidates = others.get(value, ())
        else:
            window = self._window(Decimal(value.value))
            if window is None:
                candidates = rows
            else:
                low, high = window
                candidates = rows[bisect_left(values, low) : bisect_right(values, high)]
        return any(self._matches(needle, candidate) for candidate in candidates)


def missing(needles: Sequence[Row], haystack: Sequence[Row], rule: MatchRule, side: str,
            tolerant: tuple[int, ...] | None = None) -> list[Row]:
    """The needles that match no tuple of ``haystack`` (``side`` names the haystack's side)."""
    if tolerant is None:
        tolerant = tolerant_columns(rule, needles, haystack)
    index = TupleIndex(haystack, rule, tolerant, side)
    return [row for row in needles if not index.contains_match(row)]


def equivalent(canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule) -> bool:
    """Mutual coverage of two tuple sets of the same arity."""
    if not canonical or not system:
        return not canonical and not system
    tolerant = tolerant_columns(rule, canonical, system)
    if not tolerant:
        key = rule.key
        return {tuple(map(key, row)) for row in canonical} == {tuple(map(key, row)) for row in system}
    system_index = TupleIndex(system, rule, tolerant, "system")
    if not all(system_index.contains_match(row) for row in canonical):
        return False
    canonical_index = TupleIndex(canonical, rule, tolerant, "canonical")
    return all(canonical_index.contains_match(row) for row in system)
