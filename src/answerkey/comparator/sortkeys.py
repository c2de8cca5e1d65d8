"""Answers ordered by sort keys (CAS ``(ORDERED BY 2 ...)``): tie groups and key order.

A canonical answer with sort keys falls into **tie groups**: the runs of consecutive tuples
whose key columns hold equal values (equal under the rule: strings after its normaliser,
numbers by value, exactly). System tuples, reduced to the canonical columns by a mapping,
are **in key order** when they split into consecutive segments, one per tie group and in
the groups' order, each set-equivalent to its group: every tuple of a segment matches a
tuple of its group, and every tuple of the group is matched by one of the segment
(duplicates carry no weight, as in a set). Where no two tuples tie, this is the walk of a
plain ORDERED answer; where all tie, it is set equivalence.

Each system tuple gets the groups it may belong to: those holding a tuple it matches, found
by hashing the columns compared exactly and, where a tolerance applies, in a window of the
first tolerant column. A tolerance can let a tuple match two neighbouring groups, so the
split is searched rather than guessed: for each group, the places where its segment may
start; from each, the shortest segment that covers the group and the longest whose tuples
all belong to it bound where the next segment may start (two pointers, both only moving
forward). Where every tuple belongs to one group, as without a tolerance, one pass.

>>> from answerkey.grammar import parse
>>> canonical = parse('(ORDERED BY 2 ("ADAMS" 40000) ("BAKER" 40000) ("CLARK" 52000))')
>>> order = KeyOrder(canonical.rows, canonical.order_by, MatchRule())
>>> order.holds(parse('(("BAKER" 40000) ("ADAMS" 40000) ("CLARK" 52000))').rows)
True
>>> print(order.first_break(parse('(("BAKER" 40000) ("CLARK" 52000) ("ADAMS" 40000))').rows))
system tuple 3 ("ADAMS" 40000) with key (40000) should come before system tuple 2 ("CLARK" 52000) with key (52000)
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import groupby

from answerkey.comparator.tuples import tolerant_columns
from answerkey.comparator.values import MatchRule
from answerkey.grammar.render import render_value
from answerkey.model import Number, Value

Row = tuple[Value, ...]
# A tuple of a tie group: (group number, its number in the group).
Unit = tuple[int, int]


def describe_sort_keys(keys: Sequence[int]) -> str:
    """Sort keys (0-based) as CAS writes them: ``BY 2 3``."""
    return "BY " + " ".join(str(column + 1) for column in keys)


def tie_groups(rows: Sequence[Row], keys: Sequence[int], rule: MatchRule) -> list[list[Row]]:
    """The runs of consecutive ``rows`` whose ``keys`` columns have equal match keys, each
    without duplicate tuples.

    >>> from answerkey.model import Relation
    >>> rows = Relation.from_rows([[1, "a"], [1, "b"], [2, "a"], [1, "c"]]).rows
    >>> [[row[1].text for row in group] for group in tie_groups(rows, (0,), MatchRule())]
    [['a', 'b'], ['a'], ['c']]
    """
    key = rule.key
    return [list(dict.fromkeys(run)) for _, run in groupby(rows, key=lambda row: tuple(key(row[c]) for c in keys))]


def _render_tuple(row: Sequence[Value]) -> str:
    return "(" + " ".join(map(render_value, row)) + ")"


@dataclass(frozen=True)
class OutOfOrder:
    """A system tuple out of key order: the tuple at ``position`` (0-based in the system
    answer; ``row`` reduced to the canonical columns, ``key`` its key values) belongs before
    the earlier tuple at ``before_position`` (``before_row``, ``before_key``)."""

    position: int
    row: Row
    key: Row
    before_position: int
    before_row: Row
    before_key: Row

    def __str__(self) -> str:
        return (
            f"system tuple {self.position + 1} {_render_tuple(self.row)} with key {_render_tuple(self.key)} "
            f"should come before system tuple {self.before_position + 1} {_render_tuple(self.before_row)} "
            f"with key {_render_tuple(self.before_key)}"
        )

    def document(self) -> dict[str, int | str]:
        """Plain values: tuples numbered from 1, tuples and keys as CAS text."""
        return {
            "system_tuple": self.position + 1,
            "tuple": _render_tuple(self.row),
            "key": _render_tuple(self.key),
            "before_system_tuple": self.before_position + 1,
            "before_tuple": _render_tuple(self.before_row),
            "before_key": _render_tuple(self.before_key),
        }


class _GroupIndex:
    """The tuples of the tie groups, indexed to answer "which of them does this system tuple
    match?": hashed on the columns compared exactly, and for the columns compared with a
    tolerance (``tolerant``), sorted by the first one's numbers."""

    def __init__(self, groups: list[list[Row]], rule: MatchRule, tolerant: tuple[int, ...]) -> None:
        self.rule = rule
        self.tolerant = tolerant
        arity = len(groups[0][0])
        self.exact = tuple(column for column in range(arity) if column not in tolerant)
        key = rule.key
        exact = self.exact
        buckets: dict[tuple, list[tuple[Row, Unit]]] = {}
        for number, group in enumerate(groups):
            for place, row in enumerate(group):
                buckets.setdefault(tuple(key(row[c]) for c in exact), []).append((row, (number, place)))
        self.units: dict[tuple, list[Unit]] = {}
        # For tolerant matching, per bucket: the first tolerant column's numbers in order, the
        # (row, unit) pairs in that order, and the pairs whose value there is no number (nil).
        self.sorted: dict[tuple, tuple[list[Decimal], list[tuple[Row, Unit]], list[tuple[Row, Unit]]]] = {}
        if not tolerant:
            self.units = {bucket: [unit for _, unit in pairs] for bucket, pairs in buckets.items()}
            return
        first = tolerant[0]
        for bucket, pairs in buckets.items():
            numbers: list[tuple[Decimal, tuple[Row, Unit]]] = []
            others: list[tuple[Row, Unit]] = []
            for pair in pairs:
                value = pair[0][first]
                if isinstance(value, Number):
                    numbers.append((Decimal(value.value), pair))
                else:
                    others.append(pair)
            numbers.sort(key=lambda item: item[0])
            self.sorted[bucket] = ([number for number, _ in numbers], [pair for _, pair in numbers], others)

    def matches(self, row: Row) -> list[Unit]:
        """The tuples of the groups that the system tuple ``row`` matches."""
        key = self.rule.key
        bucket = tuple(key(row[c]) for c in self.exact)
        if not self.tolerant:
            return self.units.get(bucket, [])
        found = self.sorted.get(bucket)
        if found is None:
            return []
        numbers, pairs, others = found
        value = row[self.tolerant[0]]
        if type(value) is not Number:
            candidates = others
        else:
            window = self.rule.window(Decimal(value.value), canonical=False)
            candidates = (
                pairs if window is None else pairs[bisect_left(numbers, window[0]) : bisect_right(numbers, window[1])]
            )
        match = self.rule.match
        return [unit for canonical, unit in candidates if all(match(canonical[c], row[c]) for c in self.tolerant)]


class KeyOrder:
    """A canonical answer's tie groups, to decide whether system tuples (reduced to the
    canonical columns) are in key order (see the module docstring).

    ``rows`` are the canonical tuples (at least one), ``keys`` the 0-based key columns.
    """

    def __init__(self, rows: Sequence[Row], keys: Sequence[int], rule: MatchRule) -> None:
        self.rows = rows
        self.keys = tuple(keys)
        self.rule = rule
        self.groups = tie_groups(rows, self.keys, rule)
        self.sizes = list(map(len, self.groups))
        self._indexes: dict[tuple[int, ...], _GroupIndex] = {}

    def _matches(self, system: Sequence[Row]) -> list[list[Unit]]:
        """For each system tuple, the group tuples it matches."""
        tolerant = tolerant_columns(self.rule, self.rows, system)
        index = self._indexes.get(tolerant)
        if index is None:
            index = self._indexes[tolerant] = _GroupIndex(self.groups, self.rule, tolerant)
        return list(map(index.matches, system))

    def holds(self, system: Sequence[Row]) -> bool:
        """True when the system tuples split into segments, one per tie group in order, each
        set-equivalent to its group."""
        if not system:
            return False
        matches = self._matches(system)
        count = len(matches)

        def belongs(position: int, group: int) -> bool:
            return any(number == group for number, _ in matches[position])

        starts = [0]  # where the segment of the current group may start, in order
        for group, size in enumerate(self.sizes):
            counts = [0] * size  # times each tuple of the group is matched in the window
            covered = 0  # tuples of the group matched at least once in the window
            left = right = stop = starts[0]  # window [left, right); rows [right, stop) belong
            following: list[int] = []
            for start in starts:
                while left < start:
                    if left < right:
                        for number, place in matches[left]:
                            if number == group:
                                counts[place] -= 1
                                covered -= not counts[place]
                    left += 1
                right = max(right, start)
                while covered < size and right < count and belongs(right, group):
                    for number, place in matches[right]:
                        if number == group:
                            counts[place] += 1
                            covered += counts[place] == 1
                    right += 1
                if covered < size:
                    continue
                # The segment [start, end) works for every end from right to the first tuple
                # after it that does not belong to the group.
                stop = max(stop, right)
                while stop < count and belongs(stop, group):
                    stop += 1
                first = max(right, following[-1] + 1) if following else right
                following.extend(range(first, stop + 1))
            if not following:
                return False
            starts = following
        return starts[-1] == count

    def first_break(self, system: Sequence[Row]) -> OutOfOrder | None:
        """The first system tuple that belongs to a tie group before that of an earlier
        system tuple (each tuple taken in the earliest group it may belong to, not before
        those of the tuples before it), with the first earlier tuple it should precede;
        None when there is none (the tuples may still not split into the groups: a tuple
        matching no group, or a group not covered)."""
        matches = self._matches(system)
        current = 0
        placed: list[int] = []  # the group of each tuple so far (-1: none)
        for position, found in enumerate(matches):
            groups = sorted({number for number, _ in found})
            if not groups:
                placed.append(-1)
                continue
            later = [number for number in groups if number >= current]
            if later:
                current = later[0]
                placed.append(current)
                continue
            group = groups[-1]
            before = next(index for index, number in enumerate(placed) if number > group)
            return OutOfOrder(
                position,
                system[position],
                self._key(system[position]),
                before,
                system[before],
                self._key(system[before]),
            )
        return None

    def _key(self, row: Row) -> Row:
        return tuple(row[column] for column in self.keys)
