"""Set equivalence of tuple sets under a ``MatchRule``, without a pairwise scan.

Columns whose values match exactly are hashed; for columns holding reals compared with a
tolerance, candidates are found by binary search on the first such column inside the
tolerance window, then checked in full. Equivalence is mutual coverage: every canonical
tuple matches some system tuple and every system tuple matches some canonical tuple.

Large tolerant comparisons first pair tuples in bulk (``_aligned_cover``): both sides are
sorted by the same key (exact keys, then the first tolerant value), each tuple is tried
against the few tuples of the other side around the place where it would sort, and the pairs
are checked with C-level ``map`` over whole columns using the rule's own exact arithmetic.
A matching pair covers both its tuples (matching is one relation, read from either side);
only the tuples left uncovered are looked up in the windowed index. No O(n^2) scan either way.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from decimal import Decimal
from itertools import chain, compress, count, repeat
from math import copysign, floor, isfinite, log2
from operator import add, and_, attrgetter, eq, itemgetter, le, mul, not_, or_, sub

from answerkey.comparator.values import _EXACT, MatchRule
from answerkey.model import Number, Value

__all__ = ["TupleIndex", "coded", "column_has_reals", "tolerant_columns", "missing", "equivalent"]

Row = tuple[Value, ...]


def column_has_reals(column: Sequence[Value]) -> bool:
    """True when some value of ``column`` is a real (C-level for a column of numbers)."""
    kinds = set(map(type, column))
    if kinds == {Number}:
        return any(map(_is_real, column))
    return Number in kinds and any(type(value) is Number and value.is_real for value in column)


def tolerant_columns(rule: MatchRule, *tables: Sequence[Row]) -> tuple[int, ...]:
    """Columns where some value, in any of ``tables``, is a real matched with tolerance."""
    if not rule.tolerant or not tables or not tables[0]:
        return ()
    columns = [list(zip(*table)) for table in tables if table]
    return tuple(index for index in range(len(tables[0][0]))
                 if any(column_has_reals(table_columns[index]) for table_columns in columns))


def coded(keys: list, ids: dict) -> list[int]:
    """Each key replaced by its small int in ``ids`` (shared by both sides of a comparison,
    extended with new keys in first-seen order), with C-level maps: later hashing and
    comparing is of ints.

    >>> ids = {}
    >>> coded(["a", "b", "a"], ids), coded(["b", "c"], ids)
    ([0, 1, 0], [1, 2])
    """
    ids.update(zip([key for key in dict.fromkeys(keys) if key not in ids], count(len(ids))))
    return list(map(ids.__getitem__, keys))


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


def equivalent(canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule,
               tolerant: tuple[int, ...] | None = None) -> bool:
    """Mutual coverage of two tuple sets of the same arity. ``tolerant``, when the caller
    knows it, is ``tolerant_columns(rule, canonical, system)``."""
    if not canonical or not system:
        return not canonical and not system
    if tolerant is None:
        tolerant = tolerant_columns(rule, canonical, system)
    if not tolerant:
        return set(zip(*map(rule.keys, zip(*canonical)))) == set(zip(*map(rule.keys, zip(*system))))
    uncovered_canonical, uncovered_system = canonical, system
    if len(canonical) + len(system) >= _ALIGN_FROM:
        uncovered_canonical, uncovered_system = _aligned_cover(canonical, system, rule, tolerant)
    if uncovered_canonical:
        system_index = TupleIndex(system, rule, tolerant, "system")
        if not all(map(system_index.contains_match, uncovered_canonical)):
            return False
    if uncovered_system:
        canonical_index = TupleIndex(canonical, rule, tolerant, "canonical")
        return all(map(canonical_index.contains_match, uncovered_system))
    return True


# Below this many tuples (both sides) the exact index alone is fast enough.
_ALIGN_FROM = 2000
# Alignment keys put the first two tolerant values on a logarithmic grid four epsilons wide
# and pack the two cells into one float (first cell times _PACK plus second cell); a tuple
# whose match fell into a neighbouring cell is looked up again one cell over.
_PACK = 2.0**22
_NEIGHBOUR_CELLS = (0.0, 1.0, -1.0, _PACK, -_PACK)
# Each tuple is tried against the tuples of the other side at these offsets from the place
# where it would sort (bisect gives the first tuple not below it; its match is often just before).
_SHIFTS = (0, -1, 1)


_is_real = attrgetter("is_real")
_value = attrgetter("value")


class _Side:
    """One side's tuples as columns: exact columns as small ints (equal iff the values
    match), tolerant columns as numeric values (int or Decimal) with their real flags, and
    the first two tolerant columns as floats (empty when a value is beyond the float range)."""

    def __init__(self, rows: list[Row], values: list[list], reals: list, ids: list[list[int]]) -> None:
        self.rows = rows
        self.values = values
        self.reals = reals
        self.ids = ids
        try:
            self.floats = [list(map(float, column)) for column in values[:2]]
        except OverflowError:  # an integer beyond the float range: align on exact keys only
            self.floats = []
        if not all(map(isfinite, chain.from_iterable(self.floats))):
            self.floats = []

    @classmethod
    def build(cls, rows: Sequence[Row], tolerant, exact, rule: MatchRule, palette: dict) -> _Side | None:
        """None when a tolerant column holds anything but numbers (the exact index decides)."""
        rows = list(rows)
        values, reals = [], []
        for column in tolerant:
            numbers = list(map(itemgetter(column), rows))
            try:  # only a Number has is_real
                flags = list(map(_is_real, numbers))
            except AttributeError:
                return None
            values.append(list(map(_value, numbers)))
            # Integer against integer is exact: pairs need the flags unless all are reals.
            reals.append(None if all(flags) else flags)
        ids = [coded(rule.keys(map(itemgetter(column), rows)), palette) for column in exact]
        return cls(rows, values, reals, ids)

    def keys(self, epsilon: float) -> list:
        """Sort keys that put matching tuples of the two sides at nearly the same place: the
        exact keys, then the packed grid cells of the first two tolerant values (a value and
        its match usually share a cell). Only the alignment depends on them; any pair tried
        is checked exactly."""
        if not self.floats:
            return list(zip(*self.ids))
        scale = 1 / log2(1 + 4 * epsilon)
        cells = [
            map(copysign, map(floor, map(mul, map(log2, map(add, map(abs, column), repeat(1e-300))), repeat(scale))),
                column)
            for column in self.floats
        ]
        packed = list(map(add, map(mul, cells[0], repeat(_PACK)), cells[1])) if len(cells) == 2 else list(cells[0])
        return list(zip(*self.ids, packed)) if self.ids else packed


def _aligned_cover(canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule, tolerant):
    """The canonical and system tuples not covered by a match with a tuple near their sorted
    position on the other side; the exact index decides those."""
    exact = [c for c in range(len(canonical[0])) if c not in tolerant]
    palette: dict = {}
    c_side = _Side.build(canonical, tolerant, exact, rule, palette)
    s_side = _Side.build(system, tolerant, exact, rule, palette) if c_side else None
    if s_side is None or not (c_side.floats and s_side.floats or exact):
        return canonical, system
    epsilon = float(rule._epsilon)
    c_keys, s_keys = c_side.keys(epsilon), s_side.keys(epsilon)
    c_order = sorted(range(len(c_keys)), key=c_keys.__getitem__)
    s_order = sorted(range(len(s_keys)), key=s_keys.__getitem__)
    c_sorted, s_sorted = list(map(c_keys.__getitem__, c_order)), list(map(s_keys.__getitem__, s_order))
    # Partners are looked up in the order padded at the end, so every shifted place is a
    # valid index (a partner from the far end just fails to match: a pair that matches is a
    # proof however it was chosen).
    c_partners, s_partners = s_order + s_order[:1] * 2, c_order + c_order[:1] * 2
    covered_c, covered_s = [False] * len(c_keys), [False] * len(s_keys)
    pending_c, pending_s = list(range(len(c_keys))), list(range(len(s_keys)))
    packed = bool(c_side.floats and s_side.floats)
    for neighbour in _NEIGHBOUR_CELLS if packed else (0.0,):
        # Where each pending tuple (its key moved to a neighbouring cell) would sort.
        c_places = list(map(bisect_left, repeat(s_sorted), _moved(map(c_keys.__getitem__, pending_c), neighbour)))
        s_places = list(map(bisect_left, repeat(c_sorted), _moved(map(s_keys.__getitem__, pending_s), neighbour)))
        for shift in _SHIFTS:
            right = list(map(c_partners.__getitem__, map(add, c_places, repeat(shift))))
            for i, j in _matching_pairs(c_side, s_side, pending_c, right, rule._epsilon):
                covered_c[i] = covered_s[j] = True
            pending_s, s_places = _uncovered(covered_s, pending_s, s_places)
            left = list(map(s_partners.__getitem__, map(add, s_places, repeat(shift))))
            for i, j in _matching_pairs(c_side, s_side, left, pending_s, rule._epsilon):
                covered_c[i] = covered_s[j] = True
            pending_c, c_places = _uncovered(covered_c, pending_c, c_places)
            pending_s, s_places = _uncovered(covered_s, pending_s, s_places)
        if not pending_c and not pending_s:
            break
    return [c_side.rows[i] for i in pending_c], [s_side.rows[j] for j in pending_s]


def _moved(keys, neighbour: float):
    if not neighbour:
        return keys
    return (key[:-1] + (key[-1] + neighbour,) if type(key) is tuple else key + neighbour for key in keys)


def _uncovered(covered: list[bool], pending: list[int], places: list[int]) -> tuple[list[int], list[int]]:
    still = list(map(not_, map(covered.__getitem__, pending)))
    return list(compress(pending, still)), list(compress(places, still))


def _matching_pairs(c_side: _Side, s_side: _Side, left: list[int], right: list[int], epsilon: Decimal):
    """The pairs (canonical tuple ``left[k]``, system tuple ``right[k]``) that match: exact
    keys equal, and each tolerant pair within epsilon by the very arithmetic of
    ``MatchRule.numbers_close`` (an integer against an integer: equal). Column by column
    with C-level maps (no Python call per pair), keeping only the pairs still matching."""
    for c_ids, s_ids in zip(c_side.ids, s_side.ids):
        keep = map(eq, map(c_ids.__getitem__, left), map(s_ids.__getitem__, right))
        left, right = _kept(left, right, keep)
    # Floats first, to drop most non-matching pairs cheaply: the slack (a relative 1e-12 plus
    # 1e-290, far beyond float rounding) keeps every pair that may match; the exact test follows.
    reach = float(epsilon) * (1 + 1e-6) + 1e-12
    for c_floats, s_floats in zip(c_side.floats, s_side.floats):
        fc = list(map(c_floats.__getitem__, left))
        allowed = map(add, map(mul, map(abs, fc), repeat(reach)), repeat(1e-290))
        keep = map(le, map(abs, map(sub, map(s_floats.__getitem__, right), fc)), allowed)
        left, right = _kept(left, right, keep)
    for c_values, s_values, c_reals, s_reals in zip(c_side.values, s_side.values, c_side.reals, s_side.reals):
        canonical = list(map(c_values.__getitem__, left))
        system = list(map(s_values.__getitem__, right))
        allowed = map(_EXACT.multiply, map(_EXACT.abs, canonical), repeat(epsilon))
        close = map(le, map(_EXACT.abs, map(_EXACT.subtract, system, canonical)), allowed)
        if c_reals is not None and s_reals is not None:
            some_real = map(or_, map(c_reals.__getitem__, left), map(s_reals.__getitem__, right))
            close = map(or_, map(and_, some_real, close), map(eq, canonical, system))
        left, right = _kept(left, right, close)
    return zip(left, right)


def _kept(left: list[int], right: list[int], keep) -> tuple[list[int], list[int]]:
    keep = list(keep)
    return list(compress(left, keep)), list(compress(right, keep))
