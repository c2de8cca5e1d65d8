"""Cells as exact keys, and the epsilon match of numbers, for the table metrics.

A cell's key is hashable and equal for two cells exactly when ``MatchRule.key`` is: a
number is its value (``int`` or ``Decimal``, so 5 and 5.0 share a key), a string its
text after the rule's normaliser, a date its ``datetime.date``, nil ``None``, a boolean, a
failure token, a date-time or a time a tagged tuple (so ``True`` is not the number 1; a
date-time's holds its ``moment``, so one instant written with two offsets is one key, with
one printed form). Every cell is read by
``value_of`` (so NumPy and pandas values, and NaN as nil, mean here what they mean
everywhere); a column of exactly ``str``, ``int``, ``float``, ``bool`` or ``None`` values is
keyed straight away with C-level maps, to the same keys (a property test checks it): that
keeps the metrics fast on large tables.

>>> from answerkey.comparator.values import MatchRule
>>> keyed_table([[1, "x"], [2.5, None]], MatchRule()).rows
[(1, 'x'), (Decimal('2.5'), None)]
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from itertools import chain, compress, repeat
from operator import attrgetter, not_
from typing import Any, TypeAlias, cast

from answerkey.comparator.values import STRING_MODES, MatchRule
from answerkey.model import Boolean, Date, DateTime, Failure, Nil, Number, String, Time, rows_of, value_of

_BOOLEAN, _FAILURE, _DATETIME, _TIME = "boolean", "failure", "datetime", "time"

# A cell's key: int, Decimal, str, date, None, or a tagged tuple (booleans, failures,
# date-times, times).
Key: TypeAlias = Any


def is_number(key: Key) -> bool:
    """True when ``key`` is the key of a number."""
    kind = type(key)
    return kind is int or kind is Decimal


@dataclass
class KeyedTable:
    """A table's rows as tuples of keys, and the numbers in it, integers and reals apart
    (a number written both ways, like 5 and 5.0, is in both)."""

    rows: list[tuple[Key, ...]]
    integers: set[int] = field(default_factory=set)
    reals: set[Decimal] = field(default_factory=set)

    @cached_property
    def cells(self) -> set[Key]:
        """The distinct cell keys."""
        return set(chain.from_iterable(self.rows))

    def is_integer(self, number: int | Decimal) -> bool:
        """True when ``number`` is only ever written as an integer in this table."""
        return type(number) is int and number not in self.reals

    @cached_property
    def number_index(self) -> tuple[list[int | Decimal], list[float]]:
        """All numbers sorted by value, and their floats (for bisecting)."""
        return _sorted_numbers(self.integers | self.reals)

    @cached_property
    def real_index(self) -> tuple[list[int | Decimal], list[float]]:
        """The reals alone, as ``number_index``."""
        return _sorted_numbers(self.reals)


def _sorted_numbers(numbers: set) -> tuple[list, list[float]]:
    try:
        ordered = sorted(numbers, key=float)
        return ordered, list(map(float, ordered))
    except OverflowError:  # an integer beyond floats: the slow way
        ordered = sorted(numbers, key=_as_float)
        return ordered, list(map(_as_float, ordered))


def keyed_table(table: object, rule: MatchRule) -> KeyedTable:
    """The rows of ``table`` (a ``Relation`` or a list of rows) as tuples of cell keys.

    Raises ``TypeError`` / ``ValueError`` for something that is not a table of values.
    """
    rows = rows_of(table)
    keyed = KeyedTable([])
    if not rows:
        return keyed
    integers, reals = keyed.integers, keyed.reals
    normalise = STRING_MODES[rule.strings]
    exact = rule.strings == "exact"

    def number(value: int | Decimal, real: bool) -> int | Decimal:
        if real:
            reals.add(cast(Decimal, value))
        else:
            integers.add(cast(int, value))
        return value

    cell_keyers: dict[type, Callable[[Any], Key]] = {
        Number: lambda v: number(v.value, v.is_real),
        String: (lambda v: v.text) if exact else (lambda v: normalise(v.text)),
        Boolean: lambda v: (_BOOLEAN, v.value),
        Date: lambda v: v.value,
        DateTime: lambda v: (_DATETIME, v.moment),
        Time: lambda v: (_TIME, v.moment),
        Nil: lambda v: None,
        Failure: lambda v: (_FAILURE, v.kind.value),
        # Shortcuts giving the keys of value_of's values (floats go through it: NaN is nil).
        str: (lambda v: v) if exact else normalise,
        int: lambda v: number(v, False),
        bool: lambda v: (_BOOLEAN, v),
        type(None): lambda v: None,
    }

    def key(cell: object) -> Key:
        keyer = cell_keyers.get(type(cell))
        if keyer is None:
            typed = value_of(cell)  # floats, Decimal, dates, NumPy, pandas, ...; TypeError for non-values
            return cell_keyers[type(typed)](typed)
        return keyer(cell)

    width = len(rows[0])
    if width == 0 or any(len(row) != width for row in rows):
        keyed.rows = [tuple(map(key, row)) for row in rows]
        return keyed

    value, text, moment = attrgetter("value"), attrgetter("text"), attrgetter("moment")

    def numbers(column: Sequence[Number]) -> list:
        values = list(map(value, column))
        flags = list(map(attrgetter("is_real"), column))
        reals.update(compress(values, flags))
        integers.update(compress(values, map(not_, flags)))
        return values

    def floats(column: Sequence[float]) -> list | None:
        if not all(map(math.isfinite, column)):
            return None  # NaN or infinity: cell by cell (nil, or an error)
        values = list(map(Decimal, map(repr, column)))  # the value of Number.of(cell)
        reals.update(values)
        return values

    def ints(column: Sequence[int]) -> Sequence[int]:
        integers.update(column)
        return column

    column_keyers: dict[type, Callable[[Sequence], Iterable[Key] | None]] = {
        Number: numbers,
        String: (lambda column: map(text, column)) if exact else (lambda column: map(normalise, map(text, column))),
        Boolean: lambda column: zip(repeat(_BOOLEAN), map(value, column)),
        Date: lambda column: map(value, column),
        DateTime: lambda column: zip(repeat(_DATETIME), map(moment, column)),
        Time: lambda column: zip(repeat(_TIME), map(moment, column)),
        str: (lambda column: column) if exact else (lambda column: map(normalise, column)),
        int: ints,
        float: floats,
        bool: lambda column: zip(repeat(_BOOLEAN), column),
        type(None): lambda column: repeat(None, len(column)),
    }
    columns = []
    for column in zip(*rows):
        kinds = set(map(type, column))
        keys = None
        if len(kinds) == 1:
            column_keyer = column_keyers.get(kinds.pop())
            keys = column_keyer(column) if column_keyer is not None else None
        columns.append(keys if keys is not None else map(key, column))
    keyed.rows = list(zip(*columns))
    return keyed


def _as_float(number: int | Decimal) -> float:
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def _real(number: int | Decimal) -> Number:
    # The rule applies the real rule as soon as one side is a real: reading both as reals
    # gives the same answer.
    return Number(Decimal(number), True, str(number))


def closest_matches(
    loose: Iterable[Key],
    loose_table: KeyedTable,
    other_table: KeyedTable,
    rule: MatchRule,
    *,
    loose_are_canonical: bool,
) -> dict[Key, Key]:
    """For each number in ``loose`` (keys from ``loose_table``), the closest number of
    ``other_table`` it matches under ``rule`` within epsilon; numbers without a match are
    left out. ``loose_are_canonical`` says which side is canonical in ``rule.match``.

    For epsilon < 1 the numbers matching a given one form an interval around it (among the
    reals, for an integer: integers match integers exactly, and equal keys never get here),
    so only the nearest number on each side in sorted order can be the closest match:
    O(log n) each. Floats decide the clear-cut cases; the rest are checked exactly with
    ``rule.match``.

    >>> from answerkey.comparator.values import MatchRule
    >>> target = keyed_table([[2.0], [3]], MatchRule())
    >>> prediction = keyed_table([[2.0001]], MatchRule())
    >>> closest_matches([Decimal("2.0001")], prediction, target, MatchRule(), loose_are_canonical=False)
    {Decimal('2.0001'): Decimal('2.0')}
    """
    loose = [key for key in loose if is_number(key)]
    if not loose or not rule.tolerant:
        return {}
    epsilon = float(rule.epsilon)
    floor = float(rule.exact_abs_epsilon)  # the absolute floor: max(|c| * epsilon, floor)
    match = rule.match

    def close(canonical: Key, canonical_point: float, system: Key, system_point: float) -> bool:
        allowed = max(abs(canonical_point) * epsilon, floor)
        difference = abs(system_point - canonical_point)
        # Each float is within a relative 1e-16 of its exact value: only a difference this
        # close to the allowance needs exact arithmetic.
        margin = (abs(canonical_point) + abs(system_point) + floor) * 1e-12
        if margin > 0 and math.isfinite(margin):
            if difference + margin < allowed:
                return True
            if difference - margin > allowed:
                return False
        return match(_real(canonical), _real(system))

    found: dict[Key, Key] = {}
    for key in loose:
        point = _as_float(key)
        entries, points = other_table.real_index if loose_table.is_integer(key) else other_table.number_index
        size = len(points)
        if epsilon >= 1:
            candidates: Iterable[int] = range(size)  # matches are no longer an interval
        else:
            above = bisect_left(points, point)
            candidates = []
            # The nearest float on each side, and any entries sharing it.
            index = above
            while index < size and points[index] == points[above]:
                candidates.append(index)
                index += 1
            index = above - 1
            while index >= 0 and points[index] == points[above - 1]:
                candidates.append(index)
                index -= 1
        best = None
        for index in candidates:
            other, other_point = entries[index], points[index]
            if loose_table.is_integer(key) and other_table.is_integer(other):
                continue  # integers match integers exactly (only reachable with epsilon >= 1)
            matched = (
                close(key, point, other, other_point) if loose_are_canonical else close(other, other_point, key, point)
            )
            if matched:
                distance = abs(other_point - point)
                if best is None or distance < best[0]:
                    best = (distance, other)
        if best is not None:
            found[key] = best[1]
    return found
