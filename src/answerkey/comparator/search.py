"""Finding an injective mapping of canonical columns onto system columns.

For a mapping, the system answer is reduced to the mapped columns (duplicates dropped) and
must be set-equivalent to the canonical answer (H89-2019 section 4). The search never gives
up and never enumerates all m!/(m-k)! mappings when columns can be told apart. It keeps only
candidates that every correct mapping must use, by invariants that are sound (a mapping that
fails one cannot be correct), then searches depth first:

1. **Value sets** (every case): a canonical column may only go to a system column whose
   values cover it both ways. Sound because the projection of equivalent relations onto one
   column pair is equivalent.
2. **Distinct-row count** (exact matching, no tolerance): with values replaced by match keys,
   equivalence is equality of sets of key tuples. The reduced system answer has at most as
   many distinct tuples as the system answer, so a canonical answer with more distinct tuples
   has no mapping.
3. **Value counts and column-pair counts, refined** (exact matching, and the mapping covers
   every system column, k = m): then the reduced system answer is the system answer with its
   columns permuted, and a column permutation keeps distinct tuples distinct, so the two
   *sets* of distinct tuples are equal, not only mutually covering. Counted over distinct
   tuples, every column's multiset of values, and every column pair's multiset of value
   pairs, must then be equal under the mapping. Columns are coloured by their value counts
   and the colours refined by the colours of and pair counts with the other columns (the
   Weisfeiler-Leman refinement of graph isomorphism); a canonical column may only go to a
   system column of its colour, and different colour multisets prove there is no mapping.
   Not used with extra system columns (reducing can merge tuples, so counts change) nor with
   a tolerance (one tuple may cover several, so counts are not preserved).
4. **Partial projections**: columns are assigned most-constrained first, and after each
   assignment the projections of both sides onto the assigned columns must already be
   equivalent (a projection of equivalent relations is equivalent), so dead branches die
   early.

When no real is compared with a tolerance, values are replaced once by hashable keys and
every check is a set comparison of key tuples. ``tests/comparator/test_judge_properties.py``
checks the search against an exhaustive enumeration of mappings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain
from operator import itemgetter

from answerkey.gc_pause import PAUSE_FROM_CELLS, gc_paused
from answerkey.comparator.tuples import Row, coded, column_has_reals, equivalent, missing
from answerkey.comparator.values import MatchRule
from answerkey.model import Number

__all__ = ["find_mapping", "search_injective", "project", "ordered_equivalent", "closest_mapping"]


def project(rows: Sequence[Row], columns: Sequence[int]) -> list[Row]:
    """The rows reduced to ``columns`` (in that order), duplicates dropped, order kept."""
    return list(dict.fromkeys(tuple(row[c] for c in columns) for row in rows))


def _collapse_runs(rows: Sequence[Row]) -> list[Row]:
    collapsed: list[Row] = []
    for row in rows:
        if not collapsed or collapsed[-1] != row:
            collapsed.append(row)
    return collapsed


def ordered_equivalent(canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule) -> bool:
    """The system sequence walks the canonical one in order: each system tuple matches the
    current canonical tuple or the next one, the first matches the first and the last the last.

    Runs of identical canonical tuples count once (duplicates carry no weight), and a run of
    system tuples may match one canonical tuple. Unlike collapsing identical system tuples,
    this stays sound with a tolerance ((1.00001) (1.0) walks (1.0)) and under projection: a
    projection of a walk is a walk, so the search may prune on partial projections.
    """
    canonical = _collapse_runs(canonical)
    if not canonical or not system:
        return not canonical and not system
    match = rule.match
    last = len(canonical) - 1

    def matches(index: int, row: Row) -> bool:
        return all(match(c, s) for c, s in zip(canonical[index], row))

    # Canonical positions the walk can be at; a tuple matching two neighbours keeps both open.
    positions = {0} if matches(0, system[0]) else set()
    for row in system[1:]:
        if not positions:
            return False
        positions = {
            target for position in positions for target in (position, position + 1)
            if target <= last and matches(target, row)
        }
    return last in positions


def _getter(columns: Sequence[int]):
    """A function projecting a row onto ``columns``, always returning a tuple."""
    if len(columns) == 1:
        only = columns[0]
        return lambda row: (row[only],)
    return itemgetter(*columns)


def _coded(rows: Sequence[Row], rule: MatchRule, ids: dict) -> list[tuple[int, ...]]:
    """The distinct rows with each value's match key replaced by its number in ``ids``
    (shared by both sides), column by column with C-level maps."""
    return list(dict.fromkeys(zip(*[coded(rule.keys(column), ids) for column in zip(*rows)])))


class _KeyedSides:
    """Both answers as tuples of match keys: equality of keys is matching.

    Used when no real is compared with a tolerance, so keys match exactly.
    """

    def __init__(self, canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule) -> None:
        # Each distinct key becomes a small int once, so later projections hash int tuples.
        ids: dict = {}
        self.canonical = _coded(canonical, rule, ids)
        self.system = _coded(system, rule, ids)
        self.canonical_columns = list(map(frozenset, zip(*self.canonical)))
        self.system_columns = list(map(frozenset, zip(*self.system)))
        self._reduced: dict[tuple[int, ...], set] = {}

    def columns_compatible(self, i: int, j: int) -> bool:
        return self.canonical_columns[i] == self.system_columns[j]

    def projections_equivalent(self, canonical_columns: list[int], system_columns: list[int]) -> bool:
        key = tuple(canonical_columns)
        reduced_canonical = self._reduced.get(key)
        if reduced_canonical is None:
            reduced_canonical = self._reduced[key] = set(map(_getter(canonical_columns), self.canonical))
        return reduced_canonical == set(map(_getter(system_columns), self.system))

    def refine(self, options: list[list[int]]) -> list[list[int]] | None:
        """``options`` narrowed by invariants 2 and 3 of the module docstring; None when they
        prove that no mapping exists."""
        canonical, system = self.canonical, self.system
        if len(canonical) > len(system):
            return None
        arity = len(canonical[0])
        if arity != len(system[0]) or all(len(choices) == 1 for choices in options):
            return options
        if len(canonical) != len(system):
            return None
        colours = _ColumnColours(list(zip(*canonical)), list(zip(*system)))
        if not colours.refine():
            return None
        return [
            [j for j in choices if colours.system[j] == colours.canonical[i]] for i, choices in enumerate(options)
        ]


# Pair counts cost (ambiguous columns) x (columns) x (distinct tuples); past this many cells
# the refinement stops and the depth-first search does the rest.
_PAIR_COUNT_BUDGET = 4_000_000


class _ColumnColours:
    """Colours of the columns of two sets of distinct key tuples of one arity (invariant 3).

    Colours are small ints from one palette shared by both sides, so equal colours mean equal
    signatures. A valid mapping maps every canonical column to a system column of its colour.
    """

    def __init__(self, canonical_columns: list[tuple], system_columns: list[tuple]) -> None:
        self.columns = {"canonical": canonical_columns, "system": system_columns}
        self.palette: dict = {}
        self.pairs: dict = {}
        self.canonical = [self._paint(("counts", _counts(column))) for column in canonical_columns]
        self.system = [self._paint(("counts", _counts(column))) for column in system_columns]

    def _paint(self, signature) -> int:
        return self.palette.setdefault(signature, len(self.palette))

    def _pair(self, side: str, i: int, j: int) -> int:
        colour = self.pairs.get((side, i, j))
        if colour is None:
            columns = self.columns[side]
            colour = self.pairs[side, i, j] = self._paint(("pairs", _counts(zip(columns[i], columns[j]))))
        return colour

    def _refined(self, side: str, colours: list[int], ambiguous: set[int]) -> list[int]:
        others = range(len(colours))
        return [
            self._paint((
                "refined", colour,
                tuple(sorted((colours[j], self._pair(side, i, j)) for j in others if j != i)),
            ))
            if colour in ambiguous else colour
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
            if not ambiguous or columns * len(self.canonical) * rows > _PAIR_COUNT_BUDGET:
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


class _TolerantSides:
    """Answers compared with the epsilon rule (reals involved), or in order.

    Only columns holding reals need the tolerant comparison: two columns whose sets of value
    types differ can never cover each other (values of different types never match), and
    columns without reals compare as sets of match keys. Keys, key sets and distinct values
    of a column are computed when first needed, once.
    """

    def __init__(self, canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule, ordered: bool) -> None:
        self.rule = rule
        self.ordered = ordered
        # Duplicates are kept: mutual coverage does not count them, and hashing every value
        # to drop them would cost more than they do.
        self.canonical, self.system = list(canonical), list(system)
        self.columns = {"canonical": list(zip(*canonical)), "system": list(zip(*system))}
        self.types = {side: [frozenset(map(type, column)) for column in columns] for side, columns in self.columns.items()}
        self.tolerant = {
            side: [rule.tolerant and column_has_reals(column) for column in columns]
            for side, columns in self.columns.items()
        }
        self._keys: dict[tuple[str, int], list] = {}
        self._distinct: dict[tuple[str, int], list] = {}
        self._key_sets: dict[tuple, set] = {}
        self._equal_pairs: set[tuple[int, int]] = set()  # columns with equal sets of keys

    def _keys_of_column(self, side: str, index: int) -> list:
        """The match key of every row's value in one column."""
        found = self._keys.get((side, index))
        if found is None:
            found = self._keys[(side, index)] = self.rule.keys(self.columns[side][index])
        return found

    def _distinct_values(self, side: str, index: int) -> list:
        """The distinct values of one column, in first-occurrence order."""
        found = self._distinct.get((side, index))
        if found is None:
            found = self._distinct[(side, index)] = list(dict.fromkeys(self.columns[side][index]))
        return found

    def _key_set(self, side: str, columns: list[int]) -> set:
        """The set of key tuples (plain keys for one column) of a projection; kept for single
        columns and canonical projections, which the search asks about again and again."""
        found = self._key_sets.get((side, *columns))
        if found is None:
            if len(columns) == 1:
                found = set(self._keys_of_column(side, columns[0]))
            else:
                found = set(zip(*[self._keys_of_column(side, column) for column in columns]))
            if side == "canonical" or len(columns) == 1:
                self._key_sets[(side, *columns)] = found
        return found

    def _same_keys(self, canonical_columns: list[int], system_columns: list[int]) -> bool:
        """The two projections have the same set of key tuples (with reals, a sufficient
        condition: each tuple then matches its equal on the other side)."""
        return self._key_set("canonical", canonical_columns) == self._key_set("system", system_columns)

    def _numbers(self, side: str, index: int) -> list:
        """The numeric values (int or Decimal) of one column."""
        if self.types[side][index] == {Number}:
            return self._keys_of_column(side, index)  # a number's key is its value
        return [value.value for value in self.columns[side][index] if type(value) is Number]

    def columns_compatible(self, i: int, j: int) -> bool:
        if self.types["canonical"][i] != self.types["system"][j]:
            return False
        if self._same_keys([i], [j]):
            self._equal_pairs.add((i, j))
            return True
        if not (self.tolerant["canonical"][i] or self.tolerant["system"][j]):
            return False
        if not self._ranges_close(i, j):
            return False
        return equivalent(
            [(value,) for value in self._distinct_values("canonical", i)],
            [(value,) for value in self._distinct_values("system", j)],
            self.rule,
            (0,),
        )

    def projections_equivalent(self, canonical_columns: list[int], system_columns: list[int]) -> bool:
        if self.ordered:
            canonical_getter, system_getter = _getter(canonical_columns), _getter(system_columns)
            return ordered_equivalent(
                list(map(canonical_getter, self.canonical)), list(map(system_getter, self.system)), self.rule
            )
        tolerant = tuple(
            position for position, (i, j) in enumerate(zip(canonical_columns, system_columns))
            if self.tolerant["canonical"][i] or self.tolerant["system"][j]
        )
        # Equal key sets prove equivalence with reals too (each tuple matches its equal), and
        # are worth hashing when every column with reals already has equal values on both sides.
        pairs = zip(canonical_columns, system_columns)
        if (not tolerant or self._equal_pairs.issuperset(pairs)) and self._same_keys(canonical_columns, system_columns):
            return True
        if not tolerant:
            return False
        return equivalent(
            list(map(_getter(canonical_columns), self.canonical)),
            list(map(_getter(system_columns), self.system)),
            self.rule,
            tolerant,
        )

    def _ranges_close(self, i: int, j: int) -> bool:
        """A necessary condition, cheap: with M the largest |canonical number|, mutual coverage
        puts the smallest numbers within M * epsilon of each other, and the largest too
        (s_min matches some c >= c_min, so s_min >= c_min - M eps; c_min is matched by some
        s <= c_min + M eps, so s_min <= c_min + M eps)."""
        canonical, system = self._numbers("canonical", i), self._numbers("system", j)
        if not canonical or not system:
            return bool(canonical) == bool(system)
        reach = max(abs(min(canonical)), abs(max(canonical))) * self.rule.exact_epsilon
        return abs(min(system) - min(canonical)) <= reach and abs(max(system) - max(canonical)) <= reach

    def search_order(self, options: list[list[int]]) -> list[int]:
        """Columns with reals last: until they are assigned, prefix checks compare hashed keys."""
        return sorted(range(len(options)), key=lambda i: (self.tolerant["canonical"][i], len(options[i]), i))


def find_mapping(
    canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule, *, ordered: bool = False
) -> tuple[int, ...] | None:
    """A mapping (canonical column i -> system column ``mapping[i]``) under which the reduced
    system tuples equal the canonical ones, or None. Both sides must be non-empty."""
    arity_c, arity_s = len(canonical[0]), len(system[0])
    if arity_c > arity_s:
        return None
    with gc_paused(len(canonical) * arity_c + len(system) * arity_s >= PAUSE_FROM_CELLS):
        return _find_mapping(canonical, system, rule, ordered)


def _find_mapping(canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule, ordered: bool):
    arity_c, arity_s = len(canonical[0]), len(system[0])
    reals = rule.tolerant and any(map(column_has_reals, chain(zip(*canonical), zip(*system))))
    if ordered or reals:
        sides = _TolerantSides(canonical, system, rule, ordered)
    else:
        sides = _KeyedSides(canonical, system, rule)
    options = [[j for j in range(arity_s) if sides.columns_compatible(i, j)] for i in range(arity_c)]
    if any(not choices for choices in options):
        return None
    if isinstance(sides, _KeyedSides):
        options = sides.refine(options)
        if options is None or any(not choices for choices in options):
            return None
    order = sides.search_order(options) if isinstance(sides, _TolerantSides) else None
    return search_injective(options, sides.projections_equivalent, check_first=ordered, order=order)


def search_injective(
    options: Sequence[Sequence[int]],
    fits: Callable[[list[int], list[int]], bool],
    *,
    check_first: bool = False,
    order: Sequence[int] | None = None,
) -> tuple[int, ...] | None:
    """An injective assignment ``column i -> result[i]`` with ``result[i] in options[i]``, or None.

    Columns are assigned most constrained first, depth first, with an explicit stack (no
    recursion); ``fits(columns, targets)`` is asked after each assignment about the assigned
    prefix and prunes a branch when it says no. ``check_first=False`` skips the question for
    the first column, whose options already answer it. ``order`` overrides the column order.

    >>> search_injective([[0, 1], [0]], lambda columns, targets: True)
    (1, 0)
    """
    width = len(options)
    if order is None:
        order = sorted(range(width), key=lambda i: (len(options[i]), i))
    assigned: list[int] = []
    used: set[int] = set()
    positions = [0] * width  # positions[d]: the next candidate to try at depth d
    depth = 0
    while depth >= 0:
        if depth == width:
            mapping = [0] * width
            for column, target in zip(order, assigned):
                mapping[column] = target
            return tuple(mapping)
        choices = options[order[depth]]
        advanced = False
        while positions[depth] < len(choices):
            candidate = choices[positions[depth]]
            positions[depth] += 1
            if candidate in used:
                continue
            if (depth == 0 and not check_first) or fits(order[: depth + 1], assigned + [candidate]):
                assigned.append(candidate)
                used.add(candidate)
                depth += 1
                if depth < width:
                    positions[depth] = 0
                advanced = True
                break
        if not advanced:
            depth -= 1
            if depth >= 0:
                used.discard(assigned.pop())
    return None


def closest_mapping(
    canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule
) -> tuple[tuple[int, ...], list[Row], list[Row]]:
    """A mapping that leaves few tuples unmatched, for explanations (greedy, not exhaustive):
    each canonical column takes the free system column sharing most of its values."""
    arity_c, arity_s = len(canonical[0]), len(system[0])
    key = rule.key
    canonical_values = [{key(row[i]) for row in canonical} for i in range(arity_c)]
    system_values = [{key(row[j]) for row in system} for j in range(arity_s)]
    scores = sorted(
        (-len(canonical_values[i] & system_values[j]), i, j) for i in range(arity_c) for j in range(arity_s)
    )
    mapping: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in scores:
        if i not in mapping and j not in used:
            mapping[i] = j
            used.add(j)
    columns = tuple(mapping[i] for i in range(arity_c))
    reduced = project(system, columns)
    distinct_canonical = list(dict.fromkeys(canonical))
    return (
        columns,
        missing(distinct_canonical, reduced, rule, "system"),
        missing(reduced, distinct_canonical, rule, "canonical"),
    )
