"""Cells as exact keys, and the epsilon match of numbers, for the table metrics.

A cell's key is hashable, equal for two cells exactly when ``MatchRule.key`` is (numbers by
value, strings after the rule's normaliser, everything else by value) and ordered, so the
cells of a row can be sorted: it starts with a rank per type. Keys are computed straight
from Python values too, reading them as ``value_of`` would, and a column of one type is
keyed with C-level maps: that keeps the metrics fast on plain lists of rows.

>>> from answerkey.comparator.values import MatchRule
>>> keyed_rows([[1, "x"], [2.5, None]], MatchRule())
[((0, 1), (1, 'x')), ((0, Decimal('2.5')), (4, 0))]
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from itertools import repeat
from operator import attrgetter

from answerkey.comparator.values import STRING_MODES, MatchRule
from answerkey.model import Boolean, Date, Failure, Nil, Number, Relation, String, value_of

__all__ = ["NUMBER", "keyed_rows", "real_keys", "closest_matches"]

NUMBER, _STRING, _BOOLEAN, _DATE, _NIL, _FAILURE = range(6)
_NIL_KEY = (_NIL, 0)

Key = tuple
Row = Sequence[object]


def _checked_rows(table: object) -> Sequence[Row]:
    if isinstance(table, Relation):
        return table.rows
    if isinstance(table, (str, bytes)) or not isinstance(table, Iterable):
        raise TypeError(f"a table is a list of rows, not {type(table).__name__}")
    rows = list(table)
    for row in rows:
        if type(row) is not list and type(row) is not tuple and (
            isinstance(row, (str, bytes)) or not isinstance(row, Iterable)
        ):
            raise TypeError(f"a row is a list of cells, not {type(row).__name__}")
    return rows


def _float_key(value: float) -> Key:
    if math.isnan(value):
        return _NIL_KEY  # QATCH reads NaN (pandas' missing value) as a null cell
    return (NUMBER, Number.of(value).value)


def _cell_keyers(rule: MatchRule) -> dict[type, Callable[[object], Key]]:
    normalise = STRING_MODES[rule.strings]
    exact = rule.strings == "exact"
    return {
        Number: lambda v: (NUMBER, v.value),
        String: (lambda v: (_STRING, v.text)) if exact else (lambda v: (_STRING, normalise(v.text))),
        Boolean: lambda v: (_BOOLEAN, v.value),
        Date: lambda v: (_DATE, v.value),
        Nil: lambda v: _NIL_KEY,
        Failure: lambda v: (_FAILURE, v.kind.value),
        str: (lambda v: (_STRING, v)) if exact else (lambda v: (_STRING, normalise(v))),
        int: lambda v: (NUMBER, v),
        float: _float_key,
        bool: lambda v: (_BOOLEAN, v),
        type(None): lambda v: _NIL_KEY,
    }


def _column_keyers(rule: MatchRule) -> dict[type, Callable[[Sequence], Iterable[Key] | None]]:
    """Per type, a function keying a whole column of that type (None: use the cell keyer)."""
    normalise = STRING_MODES[rule.strings]
    exact = rule.strings == "exact"
    value, text = attrgetter("value"), attrgetter("text")

    def strings(texts: Iterable[str]) -> Iterable[Key]:
        return zip(repeat(_STRING), texts if exact else map(normalise, texts))

    def floats(column: Sequence[float]) -> Iterable[Key] | None:
        if not all(map(math.isfinite, column)):
            return None
        return zip(repeat(NUMBER), map(Decimal, map(repr, column)))

    return {
        Number: lambda column: zip(repeat(NUMBER), map(value, column)),
        String: lambda column: strings(map(text, column)),
        Boolean: lambda column: zip(repeat(_BOOLEAN), map(value, column)),
        Date: lambda column: zip(repeat(_DATE), map(value, column)),
        str: strings,
        int: lambda column: zip(repeat(NUMBER), column),
        float: floats,
        bool: lambda column: zip(repeat(_BOOLEAN), column),
        type(None): lambda column: repeat(_NIL_KEY, len(column)),
    }


def keyed_rows(table: object, rule: MatchRule) -> list[tuple[Key, ...]]:
    """The rows of ``table`` (a ``Relation`` or a list of rows) as tuples of cell keys.

    Raises ``TypeError`` / ``ValueError`` for something that is not a table of values.
    """
    rows = _checked_rows(table)
    if not rows:
        return []
    cell_keyers = _cell_keyers(rule)

    def key(cell: object) -> Key:
        keyer = cell_keyers.get(type(cell))
        if keyer is None:
            typed = value_of(cell)  # Decimal, date, datetime, ...; TypeError for non-values
            return cell_keyers[type(typed)](typed)
        return keyer(cell)

    width = len(rows[0])
    if width == 0 or any(len(row) != width for row in rows):
        return [tuple(map(key, row)) for row in rows]
    column_keyers = _column_keyers(rule)
    columns = []
    for column in zip(*rows):
        kinds = set(map(type, column))
        keyed = None
        if len(kinds) == 1:
            column_keyer = column_keyers.get(kinds.pop())
            keyed = column_keyer(column) if column_keyer is not None else None
        columns.append(keyed if keyed is not None else map(key, column))
    return list(zip(*columns))


def _real(key: Key) -> Number:
    # The rule applies the real rule as soon as one side is a real: reading both as reals
    # gives the same answer.
    return Number(Decimal(key[1]), True, str(key[1]))


def _as_float(number: int | Decimal) -> float:
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def real_keys(rows: Iterable[tuple[Key, ...]]) -> set[Key]:
    """The keys of the reals among ``rows`` (a key is shared by 5 and 5.0, which match
    other numbers differently: an integer matches an integer exactly)."""
    return {key for row in rows for key in row if key[0] == NUMBER and type(key[1]) is Decimal}


def closest_matches(
    loose: Iterable[Key],
    others: Iterable[Key],
    rule: MatchRule,
    *,
    loose_are_canonical: bool,
    loose_rows: Sequence[tuple[Key, ...]],
    other_rows: Sequence[tuple[Key, ...]],
) -> dict[Key, Key]:
    """For each number key in ``loose``, the closest number key in ``others`` it matches
    under ``rule`` within epsilon (keys without a match are left out).

    ``loose_are_canonical`` says which side is the canonical one of ``rule.match``;
    ``loose_rows`` and ``other_rows`` are the keyed tables the keys come from. For
    epsilon < 1 the numbers matching a given one form an interval around it (among the
    reals, for an integer), so only the nearest number on each side in sorted order can be
    the closest match: O(log n) each.
    Floats decide the clear-cut cases; the rest are checked exactly with ``rule.match``.

    >>> from answerkey.comparator.values import MatchRule
    >>> two, near_two = (0, Decimal("2.0")), (0, Decimal("2.0001"))
    >>> closest_matches([near_two], [two, (0, 3)], MatchRule(), loose_are_canonical=False,
    ...                 loose_rows=[(near_two,)], other_rows=[(two,), ((0, 3),)])
    {(0, Decimal('2.0001')): (0, Decimal('2.0'))}
    """
    loose = [key for key in loose if key[0] == NUMBER]
    if not loose or not rule.tolerant:
        return {}
    loose_reals, other_reals = real_keys(loose_rows), real_keys(other_rows)
    entries = sorted(
        (_as_float(key[1]), key, type(key[1]) is int and key not in other_reals)
        for key in others
        if key[0] == NUMBER
    )
    # An integer only matches a real within epsilon (against an integer it is exact, and
    # equal keys never get here), so integers search among the reals alone.
    reals = [entry for entry in entries if not entry[2]]
    indexes = {
        False: (entries, [entry[0] for entry in entries]),
        True: (reals, [entry[0] for entry in reals]),
    }
    epsilon = float(rule.epsilon)
    match = rule.match

    def close(canonical: Key, canonical_point: float, system: Key, system_point: float) -> bool:
        # Only called with an integer on at most one side (integers search among reals).
        allowed = abs(canonical_point) * epsilon
        difference = abs(system_point - canonical_point)
        # Each float is within a relative 1e-16 of its exact value: only a difference this
        # close to the allowance needs exact arithmetic.
        margin = (abs(canonical_point) + abs(system_point)) * 1e-12
        if margin > 0 and math.isfinite(margin):
            if difference + margin < allowed:
                return True
            if difference - margin > allowed:
                return False
        return match(_real(canonical), _real(system))

    found = {}
    for key in loose:
        point = _as_float(key[1])
        entries, points = indexes[type(key[1]) is int and key not in loose_reals]
        size = len(points)
        if epsilon >= 1:
            candidates = range(size)  # the matches are no longer an interval: try them all
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
            other_point, other, _ = entries[index]
            matched = (
                close(key, point, other, other_point)
                if loose_are_canonical
                else close(other, other_point, key, point)
            )
            if matched:
                distance = abs(other_point - point)
                if best is None or distance < best[0]:
                    best = (distance, other)
        if best is not None:
            found[key] = best[1]
    return found
