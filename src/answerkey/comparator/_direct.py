"""The direct mapping search, for answers with few columns (``answerkey.comparator.search``).

Every pair of columns is tested once for invariant 1 (value sets), then the few candidate
mappings are tried by comparing projections; no classes, colours or hashes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from operator import itemgetter

from answerkey.comparator._assignment import Accept, ordered_equivalent, row_getter, search_injective, walks
from answerkey.comparator.tuples import Row, equivalent
from answerkey.comparator.values import KeyedColumn, MatchRule
from answerkey.model import Date, Number, String, Value

# Answers of fewer values (both sides) skip the cheap test of options(): on them the bounds
# of every column cost more than the sets of keys they save (measured: k = 8 columns x 50
# rows of 0 and 1, whose bounds are all equal, took a fifth longer with it).
_CHEAP_FROM_CELLS = 10_000
# Columns of these types have keys that can be ordered (numbers, strings, dates).
_ORDERED_KINDS = (frozenset({Number}), frozenset({String}), frozenset({Date}))


# The keys of numbers: an integer's int, a real's Decimal (or float: MatchRule.keyed_plain).
_NUMBER_KEYS = frozenset({int, Decimal, float})


def _exact(key: int | Decimal | float) -> Decimal:
    """A number's key as the exact decimal of its value (a float's: the decimal it prints as)."""
    return Decimal(repr(key)) if type(key) is float else Decimal(key)


def _single(value: Value) -> Row:
    """A value as a tuple of one (a column's values as one-column rows)."""
    return (value,)


class DirectSides:
    """Answers with few columns, searched directly: every pair of columns tested for
    invariant 1, then the projections themselves compared (invariant 4), columns with reals
    last. No classes, colours or hashes: ``find_mapping`` sends here only answers whose column
    pairs and candidate mappings are few (see ``_DIRECT_PAIRS``).

    Each column's values are keyed once. Equal sets of keys prove a column pair compatible,
    and equal sets of key tuples a projection equivalent (each value matches its equal); keys
    decide where no real is compared with tolerance, and elsewhere the tolerance is applied
    only when keys differ.
    """

    def __init__(
        self,
        canonical: Sequence[Row],
        system: Sequence[Row],
        rule: MatchRule,
        ordered: bool,
        keyed: tuple[Sequence[KeyedColumn], Sequence[KeyedColumn]] | None = None,
    ) -> None:
        self.rule = rule
        self.ordered = ordered
        self.rows = (canonical, system)
        if keyed is None:
            # One column at a time, dropped once keyed: a large answer's values are not held
            # twice more (_column makes one again where a rare case needs it).
            keyed = (
                [rule.keyed(column) for column in zip(*canonical)],
                [rule.keyed(column) for column in zip(*system)],
            )
        self.widths = (len(keyed[0]), len(keyed[1]))
        tolerant = rule.tolerant
        self.types: tuple[list[frozenset], list[frozenset]] = ([c.kinds for c in keyed[0]], [c.kinds for c in keyed[1]])
        self.tolerant: tuple[list[bool], list[bool]] = (
            [tolerant and c.reals for c in keyed[0]],
            [tolerant and c.reals for c in keyed[1]],
        )
        self.keys: tuple[list[Sequence], list[Sequence]] = ([c.keys for c in keyed[0]], [c.keys for c in keyed[1]])
        self.equal: set[tuple[int, int]] = set()  # column pairs with equal sets of keys
        # Options not proven column by column (see options): the complete projection decides.
        self.unproven = False
        self._key_sets: tuple[list[set | None], list[set | None]] = ([None] * self.widths[0], [None] * self.widths[1])
        # The bounds of keys known already (see _key_bounds); the others are found when needed.
        self._bounds: tuple[dict[int, tuple | None], dict[int, tuple | None]] = tuple(  # type: ignore[assignment]
            {i: c.bounds for i, c in enumerate(side) if c.bounds is not None and c.kinds in _ORDERED_KINDS}
            for side in keyed
        )
        self._canonical_keys: dict[tuple[int, ...], dict[tuple, tuple]] = {}
        self._ranges: tuple[dict[int, tuple[Decimal, Decimal]], dict[int, tuple[Decimal, Decimal]]] = ({}, {})
        self._windows: dict[int, tuple] = {}

    def _column(self, side: int, index: int) -> tuple[Value, ...]:
        """A column's values, in row order."""
        return tuple(map(itemgetter(index), self.rows[side]))

    def options(self, most: int, *, cheap: bool | None = None) -> list[list[int]] | None:
        """For each canonical column, the system columns whose values cover it both ways; None
        as soon as they allow more than ``most`` mappings (the general search does better).

        On large answers (``cheap``; None: from ``_CHEAP_FROM_CELLS`` values), a cheap
        necessary test (``_possible``) is made first. When it leaves each canonical column
        one system column, those are the options, ``unproven``: whether they cover each
        other is not checked, as only one mapping is left and ``find`` checks its complete
        projection, which an incompatible pair fails (invariant 1 is sound). The search finds
        the same mapping as with proven options, or none as they would, without a set of keys
        per column (on large answers, most of the time of the search)."""
        if cheap is None:
            cheap = len(self.rows[0]) * self.widths[0] + len(self.rows[1]) * self.widths[1] >= _CHEAP_FROM_CELLS
        targets = range(self.widths[1])
        if cheap:
            possible = [[j for j in targets if self._possible(i, j)] for i in range(self.widths[0])]
        else:
            possible = [list(targets)] * self.widths[0]
        self.unproven = cheap and all(len(choices) == 1 for choices in possible)
        if self.unproven:
            return possible
        options = []
        mappings = 1
        for i, choices in enumerate(possible):
            compatible = [j for j in choices if self._compatible(i, j)]
            mappings *= len(compatible)
            if mappings > most:
                return None
            options.append(compatible)
        return options

    def _possible(self, i: int, j: int) -> bool:
        """A necessary condition for ``_compatible(i, j)``, cheap: equal sets of value types,
        and the same smallest and largest key (equal sets of keys have them) or, where reals
        are compared with a tolerance, ranges close enough."""
        if self.types[0][i] != self.types[1][j]:
            return False
        if self.tolerant[0][i] or self.tolerant[1][j]:
            return self._ranges_close(i, j)
        bounds = self._key_bounds(0, i)
        return bounds is None or bounds == self._key_bounds(1, j)

    def _key_bounds(self, side: int, column: int) -> tuple | None:
        """The smallest and the largest key of a column of numbers, strings or dates (None
        for others: their keys need not be ordered)."""
        if column not in self._bounds[side]:
            keys = self.keys[side][column]
            ordered = self.types[side][column] in _ORDERED_KINDS
            self._bounds[side][column] = (min(keys), max(keys)) if ordered else None
        return self._bounds[side][column]

    def _key_set(self, side: int, column: int) -> set:
        """The set of a column's keys, made when first needed (kept: the search compares it
        with several columns)."""
        found = self._key_sets[side][column]
        if found is None:
            found = self._key_sets[side][column] = set(self.keys[side][column])
        return found

    def _compatible(self, i: int, j: int) -> bool:
        """Canonical column ``i`` and system column ``j`` cover each other (invariant 1); a
        pair with equal sets of keys is noted in ``equal``."""
        # Values of different types never match, so the sets of types must be equal.
        if self.types[0][i] != self.types[1][j]:
            return False
        sets = self._key_sets  # a column's set of keys is never empty: `or` makes it once
        if (sets[0][i] or self._key_set(0, i)) == (sets[1][j] or self._key_set(1, j)):
            self.equal.add((i, j))
            return True
        if not (self.tolerant[0][i] or self.tolerant[1][j]) or not self._ranges_close(i, j):
            return False
        canonical = list(map(_single, dict.fromkeys(self._column(0, i))))
        system = list(map(_single, dict.fromkeys(self._column(1, j))))
        return equivalent(canonical, system, self.rule, (0,))

    def _ranges_close(self, i: int, j: int) -> bool:
        """A necessary condition for columns with numbers, cheap (as in ``_TolerantSides``):
        with M the largest |canonical number|, mutual coverage puts the smallest numbers within
        M * epsilon of each other, and the largest too."""
        windows = self._windows.get(i)
        if windows is None:
            low, high = self._range(0, i)
            magnitude = max(low.copy_abs(), high.copy_abs())
            windows = self._windows[i] = (
                self.rule.window(low, canonical=True, magnitude=magnitude),
                self.rule.window(high, canonical=True, magnitude=magnitude),
            )
        low, high = self._range(1, j)
        (lowest, highest), (lower, higher) = windows  # canonical=True always bounds
        return lowest <= low <= highest and lower <= high <= higher

    def _range(self, side: int, column: int) -> tuple[Decimal, Decimal]:
        """The smallest and the largest number of a column holding numbers."""
        found = self._ranges[side].get(column)
        if found is None:
            if self.types[side][column] == {Number}:
                bounds = self._bounds[side].get(column)  # as _key_bounds: a number's key is its value
                if bounds is None:
                    keys = self.keys[side][column]
                    bounds = self._bounds[side][column] = (min(keys), max(keys))
            else:  # numbers and nils: the numbers' keys
                numbers = [key for key in self.keys[side][column] if type(key) in _NUMBER_KEYS]
                bounds = min(numbers), max(numbers)
            found = self._ranges[side][column] = (_exact(bounds[0]), _exact(bounds[1]))
        return found

    def fits(self, columns: list[int], targets: list[int]) -> bool:
        """The projections onto ``columns`` and ``targets`` are equivalent (in order, if ordered)."""
        pairs = list(zip(columns, targets))
        tolerant = tuple(
            position for position, (i, j) in enumerate(pairs) if self.tolerant[0][i] or self.tolerant[1][j]
        )
        if self.unproven or self.equal.issuperset(pairs):
            keys = [self.keys[1][j] for j in targets]
            if self.ordered:
                same = walks(map(row_getter(columns), self.rows[0]), self._canonical_key_tuples(columns), zip(*keys))
            else:
                # Equal sets: every system key tuple is canonical, and they hit every canonical
                # one. Probing with tuples fresh from zip, in order, and keeping only the
                # canonical ones hit, is faster on large answers than comparing two sets (which
                # walks one set's scattered tuples), and holds no second set of tuples.
                known = self._canonical_key_set(columns)
                try:
                    same = len(set(map(known.__getitem__, zip(*keys)))) == len(known)
                except KeyError:
                    same = False
            if same or not tolerant:
                return same
        canonical, system = list(map(row_getter(columns), self.rows[0])), list(map(row_getter(targets), self.rows[1]))
        if self.ordered:
            return ordered_equivalent(canonical, system, self.rule)
        return equivalent(canonical, system, self.rule, tolerant)

    def _canonical_key_set(self, columns: list[int]) -> dict[tuple, tuple]:
        """The canonical key tuples of ``columns``, each mapped to itself (kept: the search
        asks again for other targets)."""
        found = self._canonical_keys.get(tuple(columns))
        if found is None:
            found = self._canonical_keys[tuple(columns)] = {keys: keys for keys in self._canonical_key_tuples(columns)}
        return found

    def _canonical_key_tuples(self, columns: list[int]) -> Iterator[tuple]:
        """The canonical rows' keys on ``columns``, row by row."""
        return zip(*[self.keys[0][i] for i in columns])

    def find(self, options: list[list[int]], accept: Accept | None = None) -> tuple[int, ...] | None:
        """The mapping of canonical columns onto system columns, or None (``options``: those
        of ``options()``; ``accept``: see ``find_mapping``)."""
        if not all(options):
            return None
        if all(len(choices) == 1 for choices in options):
            # One mapping at most: only the complete projection needs checking.
            mapping = [choices[0] for choices in options]
            single = len(mapping) == 1 and not self.ordered and not self.unproven  # its options checked it
            if (
                len(set(mapping)) == len(mapping)
                and (single or self.fits(list(range(len(mapping))), mapping))
                and (accept is None or accept(tuple(mapping)))
            ):
                return tuple(mapping)
            return None
        tolerant = self.tolerant[0]
        order = sorted(range(len(options)), key=lambda i: (tolerant[i], len(options[i]), i))
        return search_injective(options, self.fits, check_first=self.ordered, order=order, accept=accept)
