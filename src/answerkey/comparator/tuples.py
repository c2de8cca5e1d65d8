"""Set equivalence of tuple sets under a ``MatchRule``, without a pairwise scan.

Columns whose values match exactly are hashed; for columns holding reals compared with a
tolerance, candidates are found by binary search on the first such column inside the
tolerance window, then checked in full. Equivalence is mutual coverage: every canonical
tuple matches some system tuple and every system tuple matches some canonical tuple.

Large tolerant comparisons first pair tuples in bulk (``_aligned_cover``): each tuple gets a
key (its exact keys and the grid cells of its two most varied tolerant values) and is paired
with a tuple of the other side that has the same key, or a neighbouring cell's; tuples left
(keys shared, values crowded) are paired with the tuples nearest in their most varied value.
Pairs are checked with C-level ``map`` over whole columns: exact keys must be equal, and each
tolerant pair is proven within epsilon with floats, with a margin far above their rounding,
so a pair called matching surely matches by the rule's exact arithmetic (``_proven_close``).
A matching pair covers both its tuples (matching is one relation, read from either side);
only the tuples left uncovered are looked up in the windowed index, which decides exactly.
No O(n^2) scan either way.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Sequence, Set
from decimal import Decimal
from itertools import compress, count, repeat
from math import ceil, inf, isfinite, log2, nan
from operator import add, and_, attrgetter, eq, gt, le, lshift, mul, not_, or_, rshift, sub

from answerkey.comparator.values import MatchRule
from answerkey.gc_pause import PAUSE_FROM_CELLS, gc_paused
from answerkey.model import Number, Value

Row = tuple[Value, ...]


def column_has_reals(column: Sequence[Value], kinds: Set[type] | None = None) -> bool:
    """True when some value of ``column`` is a real (C-level for a column of numbers;
    ``kinds``, when the caller has it, is the set of the values' types)."""
    if kinds is None:
        kinds = set(map(type, column))
    if kinds == {Number}:
        return any(map(_is_real, column))
    return Number in kinds and any(type(value) is Number and value.is_real for value in column)


def tolerant_columns(rule: MatchRule, *tables: Sequence[Row]) -> tuple[int, ...]:
    """Columns where some value, in any of ``tables``, is a real matched with tolerance."""
    if not rule.tolerant or not tables or not tables[0]:
        return ()
    return _tolerant_of_columns(rule, *(list(zip(*table)) for table in tables if table))


def _tolerant_of_columns(rule: MatchRule, *tables_columns: list[tuple]) -> tuple[int, ...]:
    """``tolerant_columns`` of tables given as their columns."""
    if not rule.tolerant:
        return ()
    return tuple(
        index
        for index in range(len(tables_columns[0]))
        if any(column_has_reals(columns[index]) for columns in tables_columns)
    )


def coded(keys: Sequence, ids: dict) -> list[int]:
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
        # The needle is canonical when the indexed tuples are the system's.
        return self.rule.window(value, canonical=self.side == "system")

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


def missing(
    needles: Sequence[Row], haystack: Sequence[Row], rule: MatchRule, side: str, tolerant: tuple[int, ...] | None = None
) -> list[Row]:
    """The needles that match no tuple of ``haystack`` (``side`` names the haystack's side)."""
    if tolerant is None:
        tolerant = tolerant_columns(rule, needles, haystack)
    index = TupleIndex(haystack, rule, tolerant, side)
    return [row for row in needles if not index.contains_match(row)]


def equivalent(
    canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule, tolerant: tuple[int, ...] | None = None
) -> bool:
    """Mutual coverage of two tuple sets of the same arity. ``tolerant``, when the caller
    knows it, is ``tolerant_columns(rule, canonical, system)``."""
    if not canonical or not system:
        return not canonical and not system
    with gc_paused((len(canonical) + len(system)) * len(canonical[0]) >= PAUSE_FROM_CELLS):
        columns = list(zip(*canonical)), list(zip(*system))
        if tolerant is None:
            tolerant = _tolerant_of_columns(rule, *columns)
        if not tolerant:
            return set(zip(*map(rule.keys, columns[0]))) == set(zip(*map(rule.keys, columns[1])))
        tolerant = _most_distinct_first(tolerant, columns[0])
        uncovered_canonical, uncovered_system = canonical, system
        if len(canonical) + len(system) >= _ALIGN_FROM:
            uncovered_canonical, uncovered_system = _aligned_cover(canonical, system, rule, tolerant, columns)
        if uncovered_canonical:
            reachable = _reachable(system, columns[1], uncovered_canonical, rule, tolerant)
            system_index = TupleIndex(reachable, rule, tolerant, "system")
            if not all(map(system_index.contains_match, uncovered_canonical)):
                return False
        if uncovered_system:
            reachable = _reachable(canonical, columns[0], uncovered_system, rule, tolerant)
            canonical_index = TupleIndex(reachable, rule, tolerant, "canonical")
            return all(map(canonical_index.contains_match, uncovered_system))
        return True


# Needles fewer than this fraction of the haystack have it cut to the tuples they can reach.
_FEW_NEEDLES = 8


def _reachable(
    haystack: Sequence[Row], columns: list[tuple], needles: Sequence[Row], rule: MatchRule, tolerant: tuple[int, ...]
) -> Sequence[Row]:
    """The tuples of ``haystack`` (whose ``columns`` these are) that some needle could match:
    those with a needle's keys in every column without tolerance (there, matching is
    equality of keys), found a column at a time; all of them when the needles are many or
    every column is tolerant. An index of a few tuples takes no time; of a million, seconds."""
    exact = [column for column in range(len(columns)) if column not in tolerant]
    if not exact or len(needles) * _FEW_NEEDLES > len(haystack):
        return haystack
    key = rule.key
    wanted = {tuple(key(row[column]) for column in exact) for row in needles}
    keys = zip(*[rule.keys(columns[column]) for column in exact])
    return list(compress(haystack, map(wanted.__contains__, keys)))


def _most_distinct_first(tolerant: tuple[int, ...], columns: list[tuple]) -> tuple[int, ...]:
    """The tolerant columns, those with more distinct values (in a sample of about 1,000
    rows) first: the windowed index searches the first, and alignment keys come from the
    first two, so a column of few values (all zeros, a small grid) there would pair nothing."""
    if len(tolerant) < 2:
        return tolerant
    step = max(1, len(columns[0]) // 1000)
    distinct = {column: len(set(columns[column][::step])) for column in tolerant}
    return tuple(sorted(tolerant, key=lambda column: -distinct[column]))


# Below this many tuples (both sides) the exact index alone is fast enough.
_ALIGN_FROM = 2000
# Alignment keys put the values of the first two tolerant columns (the most varied, see
# ``_most_distinct_first``) on a grid of cells a relative 4 to 16 epsilons wide: the bits of
# a float, read as an integer, grow with its magnitude (and mantissa) in order, so dropping
# the low bits leaves a cell number (``_cells``). The two cells are packed into one int. A
# value's match lies in its own cell or a neighbouring one, so a tuple not paired in its own
# cell is looked up again one cell over, diagonals last.

# A float proves |s - c| <= |c| * epsilon only with this much to spare, relative to
# (2 + epsilon) * |c|: some 200 times the worst rounding of the conversions and the three
# float operations, for values of at least _TINY in magnitude, or exactly zero.
_SLACK = 1e-13
_TINY = 1e-280


_is_real = attrgetter("is_real")
_value = attrgetter("value")


def _proof_floats(values: list) -> list[float]:
    """Each value as a float for ``_proven_close``, NaN (which proves nothing) where the
    float is not within a tiny relative error of the value: beyond the float range, or
    non-zero and below _TINY in magnitude."""
    try:
        floats = list(map(float, values))
    except OverflowError:  # an integer beyond the float range
        floats = [float(value) if -1e308 < value < 1e308 else inf if value > 0 else -inf for value in values]
    if min(map(abs, floats)) < _TINY:
        for index in compress(range(len(floats)), map(gt, repeat(_TINY), map(abs, floats))):
            floats[index] = 0.0 if values[index] == 0 else nan
    if not isfinite(sum(floats)):  # some value is beyond the float range (or near it)
        floats = [number if isfinite(number) else nan for number in floats]
    return floats


def _proof_reach(epsilon: Decimal) -> float | None:
    """The float bound ``_proven_close`` tests against: epsilon less a margin far above the
    rounding of the test. None when epsilon leaves no margin (below about 2e-13) or is 1 or
    more (then |c| * epsilon may overflow to inf where |s - c| does not)."""
    bound = float(epsilon)
    reach = bound - (2 + bound) * _SLACK
    return reach if reach > 0 and bound < 1 else None


def _proven_close(canonical: list[float], system: list[float], reach: float) -> list[bool]:
    """For each pair (``canonical[k]``, ``system[k]``) of ``_proof_floats``: True only when
    the exact values surely satisfy ``|s - c| <= |c| * epsilon`` (``reach`` is
    ``_proof_reach(epsilon)``); False may still be a match, for the exact test to settle
    (100.01 against 100 is one, exactly on the boundary). Over whole lists with C-level maps.

    >>> _proven_close([100.0, 100.0, 100.0], [100.009, 100.02, 0.0], _proof_reach(Decimal("0.0001")))
    [True, False, False]
    """
    return list(map(le, map(abs, map(sub, system, canonical)), map(mul, map(abs, canonical), repeat(reach))))


class _Side:
    """One side's tuples as columns: exact columns as small ints (equal iff the values
    match), tolerant columns as ``_proof_floats``, with their values and real flags where
    some value is an integer (integer against integer is exact)."""

    def __init__(self, floats: list[list[float]], values: list, reals: list, ids: list[list[int]]) -> None:
        self.floats = floats
        self.values = values
        self.reals = reals
        self.ids = ids

    @classmethod
    def build(cls, columns: list[tuple], tolerant, exact, rule: MatchRule, palette: dict) -> _Side | None:
        """None when a tolerant column holds anything but numbers (the exact index decides)."""
        floats, values, reals = [], [], []
        for column in tolerant:
            try:  # only a Number has is_real
                flags = list(map(_is_real, columns[column]))
            except AttributeError:
                return None
            numbers = list(map(_value, columns[column]))
            floats.append(_proof_floats(numbers))
            integers = not all(flags)
            values.append(numbers if integers else None)
            reals.append(flags if integers else None)
        ids = [coded(rule.keys(columns[column]), palette) for column in exact]
        return cls(floats, values, reals, ids)

    def keys(self, bits: int) -> list:
        """Keys that a tuple and its match on the other side usually share: the exact keys,
        then the packed grid cells of the first two tolerant values (a value and its match
        share a cell or are in neighbouring cells; ``bits`` is ``_cell_bits(epsilon)``). Only
        the pairing depends on them; every pair tried is checked."""
        cells = [_cells(column, bits) for column in self.floats[:2]]
        packed = list(map(add, map(lshift, cells[0], repeat(64 - bits)), cells[1])) if len(cells) == 2 else cells[0]
        return list(zip(*self.ids, packed)) if self.ids else packed

    def nearness(self, rows: list[int]) -> list:
        """Sort keys for ``rows`` (indices) that put a tuple next to its nearest candidates:
        the exact keys, then the first tolerant value (NaN only spoils its own neighbourhood)."""
        first = list(map(self.floats[0].__getitem__, rows))
        return list(zip(*(map(ids.__getitem__, rows) for ids in self.ids), first)) if self.ids else first


def _cell_bits(epsilon: float) -> int:
    """How many low bits of a float's bit pattern a grid cell spans: cells are 2^(bits-53)
    to 2^(bits-52) of the value wide, relatively: 4 to 16 epsilons."""
    return min(max(55 + ceil(log2(epsilon)), 0), 63)


def _cells(floats: list[float], bits: int) -> list[int]:
    """Each float's grid cell, ``bits`` being ``_cell_bits(epsilon)`` (NaN and inf get cells
    too, that pair with nothing useful)."""
    return list(map(rshift, array("q", array("d", floats).tobytes()), repeat(bits)))


def _aligned_cover(
    canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule, tolerant, columns: tuple[list, list] | None = None
):
    """The canonical and system tuples not covered by a proven match with a tuple of the
    other side found by key (same or neighbouring cells) or by nearness; the exact index
    decides those. ``columns``, when the caller has them, are the two sides transposed."""
    c_columns, s_columns = columns or (list(zip(*canonical)), list(zip(*system)))
    exact = [c for c in range(len(c_columns)) if c not in tolerant]
    reach = _proof_reach(rule.exact_epsilon)
    palette: dict = {}
    c_side = _Side.build(c_columns, tolerant, exact, rule, palette) if reach else None
    s_side = _Side.build(s_columns, tolerant, exact, rule, palette) if c_side else None
    if reach is None or c_side is None or s_side is None:
        return canonical, system
    cover = _Cover(c_side, s_side, reach, len(canonical), len(system))
    cover.by_key(float(rule.exact_epsilon), len(tolerant) > 1)
    # Tuples that shared a key with others, or whose values crowd one cell, are tried against
    # the tuples of the other side nearest in their first tolerant value: the uncovered ones,
    # then (crowded values match several, maybe covered, tuples) all of them.
    cover.by_nearness(among_all=False)
    cover.by_nearness(among_all=True)
    c_pending, s_pending = cover.pending
    return list(map(canonical.__getitem__, c_pending)), list(map(system.__getitem__, s_pending))


class _Cover:
    """Which tuples of each side are covered by a proven match so far, and which are pending."""

    def __init__(self, c_side: _Side, s_side: _Side, reach: float, c_count: int, s_count: int) -> None:
        self.sides = (c_side, s_side)
        self.reach = reach
        self.covered = (bytearray(c_count), bytearray(s_count))
        self.pending = (list(range(c_count)), list(range(s_count)))

    def done(self) -> bool:
        return not self.pending[0] and not self.pending[1]

    def pair(self, side: int, needles: list[int], partners: list[int]) -> None:
        """Try each needle (a tuple of ``side``, 0 canonical or 1 system) with its partner
        on the other side; a matching pair covers both."""
        left, right = (needles, partners) if side == 0 else (partners, needles)
        left, right = _matching_pairs(*self.sides, left, right, self.reach)
        deque(map(self.covered[0].__setitem__, left, repeat(1)), maxlen=0)
        deque(map(self.covered[1].__setitem__, right, repeat(1)), maxlen=0)
        self.pending = (_uncovered(self.covered[0], self.pending[0]), _uncovered(self.covered[1], self.pending[1]))

    def by_key(self, epsilon: float, two_cells: bool) -> None:
        """Pair each pending tuple with the tuple of the other side that has its key, then
        with those one cell over (the second value's neighbours, the first's, diagonals).
        Where several tuples share a key, the last stands for them; a partner of -1 (no
        tuple has that key) is a pair that fails: a pair is a proof however it was chosen."""
        bits = _cell_bits(epsilon)
        keys = [side.keys(bits) for side in self.sides]
        at = [dict(zip(side_keys, count())) for side_keys in keys]
        row = 1 << (64 - bits)
        for move in (0, 1, -1) + ((row, -row, row + 1, row - 1, -row + 1, -row - 1) if two_cells else ()):
            for side, sign in ((0, 1), (1, -1)):
                if self.done():
                    return
                needles = self.pending[side]
                moved = _moved(map(keys[side].__getitem__, needles), sign * move)
                self.pair(side, needles, list(map(at[1 - side].get, moved, repeat(-1))))

    def by_nearness(self, among_all: bool) -> None:
        """Pair each pending tuple with the tuples of the other side (pending ones, or all)
        up to two places from where it sorts by ``_Side.nearness``."""
        for side in (0, 1):
            if self.done():
                return
            others = list(range(len(self.covered[1 - side]))) if among_all else self.pending[1 - side]
            others_near = self.sides[1 - side].nearness(others)
            order = sorted(range(len(others)), key=others_near.__getitem__)
            # Padded so that every place two off is an index (the pads are -1, pairs that fail).
            partners_at = list(map(others.__getitem__, order)) + [-1] * 3
            needles = self.pending[side]
            places = list(
                map(bisect_left, repeat(list(map(others_near.__getitem__, order))), self.sides[side].nearness(needles))
            )
            for offset in (0, -1, 1, -2, 2):
                still = list(map(not_, map(self.covered[side].__getitem__, needles)))
                needles, places = list(compress(needles, still)), list(compress(places, still))
                self.pair(side, needles, list(map(partners_at.__getitem__, map(add, places, repeat(offset)))))


def _moved(keys, move: int):
    if not move:
        return keys
    return (key[:-1] + (key[-1] + move,) if type(key) is tuple else key + move for key in keys)


def _uncovered(covered: bytearray, pending: list[int]) -> list[int]:
    return list(compress(pending, map(not_, map(covered.__getitem__, pending))))


def _matching_pairs(c_side: _Side, s_side: _Side, left: list[int], right: list[int], reach: float):
    """Of the pairs (canonical tuple ``left[k]``, system tuple ``right[k]``), those proven to
    match, as two lists: exact keys equal, each tolerant pair ``_proven_close`` (or, integer
    against integer, equal). Column by column with C-level maps, no Python call per pair,
    keeping only the pairs still matching."""
    for c_ids, s_ids in zip(c_side.ids, s_side.ids):
        left, right = _kept(left, right, map(eq, map(c_ids.__getitem__, left), map(s_ids.__getitem__, right)))
    for column, (c_floats, s_floats) in enumerate(zip(c_side.floats, s_side.floats)):
        close = _proven_close(list(map(c_floats.__getitem__, left)), list(map(s_floats.__getitem__, right)), reach)
        c_reals, s_reals = c_side.reals[column], s_side.reals[column]
        if c_reals is not None and s_reals is not None:
            some_real = map(or_, map(c_reals.__getitem__, left), map(s_reals.__getitem__, right))
            equal = map(eq, map(c_side.values[column].__getitem__, left), map(s_side.values[column].__getitem__, right))
            left, right = _kept(left, right, map(or_, map(and_, some_real, close), equal))
        else:
            left, right = _kept(left, right, close)
    return left, right


def _kept(left: list[int], right: list[int], keep) -> tuple[list[int], list[int]]:
    keep = list(keep)
    return list(compress(left, keep)), list(compress(right, keep))
