"""Invariant 3 of the mapping search (``answerkey.comparator.search``): colours of columns.

With exact matching and every system column mapped, a correct mapping keeps each column's
multiset of values and each column pair's multiset of value pairs: columns are coloured by
those counts, refined until stable, and a canonical column may only go to a system column of
its colour.
"""

from __future__ import annotations

from collections import Counter

# Pair counts cost (ambiguous columns) x (columns) x (distinct tuples + a pair's overhead, in
# tuples); past this the refinement stops and the depth-first search does the rest.
PAIR_COUNT_BUDGET = 4_000_000
_PAIR_OVERHEAD = 32


class ColumnColours:
    """Colours of the columns of two sets of distinct key tuples of one arity (invariant 3).

    Colours are small ints from one palette shared by both sides, so equal colours mean equal
    signatures (or, rarely, signatures of equal hash: colours then only tell apart fewer
    columns, which stays sound). A valid mapping maps every canonical column to a system column
    of its colour. ``sizes``, when the columns stand for classes of identical columns, are the
    classes' sizes, part of the first colour.
    """

    def __init__(
        self,
        canonical_columns: list[tuple],
        system_columns: list[tuple],
        canonical_sizes: list[int] | None = None,
        system_sizes: list[int] | None = None,
    ) -> None:
        self.columns = {"canonical": canonical_columns, "system": system_columns}
        self.palette: dict = {}
        self.pairs: dict = {}
        self.canonical = [
            self._paint(("counts", size, hash(_counts(column))))
            for column, size in zip(canonical_columns, canonical_sizes or [1] * len(canonical_columns))
        ]
        self.system = [
            self._paint(("counts", size, hash(_counts(column))))
            for column, size in zip(system_columns, system_sizes or [1] * len(system_columns))
        ]

    def _paint(self, signature) -> int:
        return self.palette.setdefault(signature, len(self.palette))

    def _pair(self, side: str, i: int, j: int) -> int:
        colour = self.pairs.get((side, i, j))
        if colour is None:
            columns = self.columns[side]
            colour = self.pairs[side, i, j] = self._paint(("pairs", hash(_counts(zip(columns[i], columns[j])))))
        return colour

    def _refined(self, side: str, colours: list[int], ambiguous: set[int]) -> list[int]:
        others = range(len(colours))
        return [
            self._paint(
                (
                    "refined",
                    colour,
                    hash(tuple(sorted((colours[j], self._pair(side, i, j)) for j in others if j != i))),
                )
            )
            if colour in ambiguous
            else colour
            for i, colour in enumerate(colours)
        ]

    def refine(self) -> bool:
        """Refine until the colour classes stop splitting; False when the two sides' colour
        multisets differ (no mapping exists)."""
        rows = len(self.columns["canonical"][0])
        while True:
            if sorted(self.canonical) != sorted(self.system):
                return False
            sizes = Counter(self.canonical)
            ambiguous = {colour for colour, size in sizes.items() if size > 1}
            columns = sum(sizes[colour] for colour in ambiguous)
            if not ambiguous or columns * len(self.canonical) * (rows + _PAIR_OVERHEAD) > PAIR_COUNT_BUDGET:
                return True
            canonical = self._refined("canonical", self.canonical, ambiguous)
            system = self._refined("system", self.system, ambiguous)
            split = len(set(canonical)) > len(sizes)
            self.canonical, self.system = canonical, system
            if not split:
                return sorted(self.canonical) == sorted(self.system)


def _counts(values) -> tuple:
    """A multiset as a hashable value: its (element, count) pairs in sorted order."""
    return tuple(sorted(Counter(values).items()))
