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

In order (an ordered canonical answer), the reduced system tuples must walk the canonical
ones (``ordered_equivalent``). A walk covers both ways, so invariant 1 holds, and a
projection of a walk is a walk, so invariant 4 does, checked from the first column on. Where
keys decide matching, equal runs of key tuples are necessary for a walk but not enough:
canonical tuples that differ but match (``"a"`` and ``"A"`` folded, 1 and 1.0 with epsilon 0)
are separate steps, each needing a system tuple of its own (``_walks`` counts them).

**Two searches.** Most answers of a corpus have a few columns, told apart by their values.
When the canonical and system columns make at most ``_DIRECT_PAIRS`` pairs and their
candidates allow at most ``_DIRECT_MAPPINGS`` mappings, ``_DirectSides`` searches directly.
Each column is keyed once; invariant 1 is tested pair by pair: equal sets of value types
(values of different types never match), then equal sets of keys (proof of coverage: each
value matches its equal), else, where a column holds reals compared with a tolerance, the
ranges of the numbers (a cheap necessary test) and mutual coverage of the distinct values.
Invariant 4 compares the projections themselves: equal sets of key tuples prove them
equivalent, and the tolerance is applied only where keys differ in a column with reals. Its
cost is bounded by those two bounds (at most 64 column pairs tested; at most k x 64
projections compared, k <= 8, each in one pass over the tuples), and its memory is the keys
and one set of canonical key tuples per prefix of the search order. On large answers (a
million-row SQL result) the sets of keys of every column are most of that cost: there the
smallest and largest key of each column (or the ranges, with a tolerance) are compared
first, and when they leave each canonical column one system column, that one mapping's
complete projection is checked without a set per column (a pair that fails invariant 1
fails it too, so the verdict and the mapping are the same). Other answers go to the
general search below, which reuses the keys and real columns the direct one found when it
stopped at too many mappings. ``tests/comparator/test_direct_search.py`` checks both
searches on the same answers against an exhaustive enumeration of mappings (and
``tests/comparator/test_judge_properties.py`` checks ``judge`` against one).

In the general search, when no real is compared with a tolerance, or when every number
matches at most one number of the other answer (a system number's key then becomes the key
of the canonical number it matches, so that keys decide matching: ``_recoding``), values are
replaced once by hashable keys and every check is a set comparison of key tuples; identical
columns (equal keys in every tuple) are then one class, searched once: equal canonical
columns must go to equal system columns (the reduced system answer holds the canonical
tuples, which agree on them), and different ones to different ones, a class of canonical
columns to a class of system columns with at least as many columns.

Memory stays linear in the answers, however wide: candidates are shared lists (one per class
of columns with equal value sets, or equal colours), and the partial projections of step 4
are one hash per tuple, extended column by column (a 64-bit hash of the projection so far
and the next key), so a check costs one pass over the tuples whatever the number of columns
assigned. Hashes that are equal prove nothing by themselves: a complete mapping is checked
again on the keys before it is returned. With a tolerance, a column pair whose values match
one to one is compared by keys the same way, and only other pairs by the tolerance.

``find_projection`` is the same search for judging against a maximal answer, whose columns
are the targets and whose values the tolerance is relative to. ``find_mapping(accept=...)``
adds a test that a complete mapping must pass too, and searches on past the mappings it
refuses: a canonical answer with sort keys (``answerkey.comparator.sortkeys``) needs the
tuples in key order, which implies set equivalence, so every pruning above still holds.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import chain, groupby, repeat
from operator import attrgetter, itemgetter
from typing import Any

from answerkey.comparator.tuples import Row, coded, column_has_reals, equivalent, missing
from answerkey.comparator.values import KeyedColumn, MatchRule, tolerance_window, within_epsilon
from answerkey.gc_pause import PAUSE_FROM_CELLS, gc_paused
from answerkey.model import Date, Number, String, Value

__all__ = [
    "find_mapping",
    "find_projection",
    "search_injective",
    "project",
    "ordered_equivalent",
    "closest_mapping",
    "Accept",
]


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
            target
            for position in positions
            for target in (position, position + 1)
            if target <= last and matches(target, row)
        }
    return last in positions


def _getter(columns: Sequence[int]):
    """A function projecting a row onto ``columns``, always returning a tuple."""
    if len(columns) == 1:
        only = columns[0]
        return lambda row: (row[only],)
    return itemgetter(*columns)


def _coded(
    rows: Sequence[Row], rule: MatchRule, ids: dict, recode: dict | None = None, keys: list[Sequence] | None = None
) -> list[tuple[int, ...]]:
    """The distinct rows with each value's match key (replaced by ``recode[key]`` where it has
    one) replaced by its number in ``ids`` (shared by both sides), column by column with
    C-level maps. ``keys``: the keys of each column, when the caller has them."""
    columns_keys = map(rule.keys, zip(*rows)) if keys is None else keys
    return list(dict.fromkeys(zip(*[coded(_recoded_keys(column, recode), ids) for column in columns_keys])))


def _recoded_keys(keys: Sequence, recode: dict | None) -> Sequence:
    return list(map(recode.get, keys, keys)) if recode else keys


def _classes(columns: Sequence) -> tuple[list[int], list[list[int]]]:
    """Columns grouped by equal (hashable) contents: each column's class, and each class's
    columns in order; classes are numbered in order of their first column."""
    numbers: dict = {}
    of_column = [numbers.setdefault(column, len(numbers)) for column in columns]
    members: list[list[int]] = [[] for _ in numbers]
    for column, number in enumerate(of_column):
        members[number].append(column)
    return of_column, members


def _runs(hashes) -> list:
    """A sequence with each run of equal elements written once."""
    return list(map(itemgetter(0), groupby(hashes)))


class _HashedPrefixes:
    """The canonical tuples projected onto the first d+1 columns of the search order, as one
    hash per tuple, and the system tuples' hashes for the columns assigned so far.

    Level 0 is the first column's keys (small ints); level d hashes the pair (level d-1,
    key). Equal projections give equal hashes, so unequal hash sets (or, ``ordered``, unequal
    runs) prove the projections differ; equal ones are taken as equal, and the caller checks
    a complete mapping on the keys. Arrays of 64-bit ints: 8 bytes per tuple and level.
    """

    def __init__(self, canonical_columns: list[Sequence[int]], ordered: bool) -> None:
        self.columns = canonical_columns
        self.ordered = ordered
        self.levels: list[array] = []
        self._compared: tuple[int, Any] = (-1, None)

    @staticmethod
    def extended(previous: array | None, keys: Sequence[int]) -> array:
        """The hashes of one more column: the keys themselves at level 0."""
        if previous is None:
            return array("q", keys)
        return array("q", map(hash, zip(previous, keys)))

    def level(self, depth: int) -> array:
        """The canonical hashes at ``depth`` (levels are made in order as the search goes down)."""
        while len(self.levels) <= depth:
            previous = self.levels[-1] if self.levels else None
            self.levels.append(self.extended(previous, self.columns[len(self.levels)]))
        return self.levels[depth]

    def agree(self, depth: int, system: array) -> bool:
        """The system hashes at ``depth`` look like the canonical ones: the same set (or, in
        order, the same runs)."""
        compared_depth, canonical = self._compared
        if compared_depth != depth:
            level = self.level(depth)
            canonical = _runs(level) if self.ordered else set(level)
            self._compared = (depth, canonical)
        return (_runs(system) if self.ordered else set(system)) == canonical


def _depth_first(
    options: Sequence[Sequence[int]],
    extend: Callable[[int, int, Any], Any],
    initial: Any,
    accept: Callable[[list[int], Any], bool] | None = None,
) -> list[int] | None:
    """Targets ``t[d] in options[d]``, all different, such that ``extend`` accepts each in
    turn, or None: depth first with an explicit stack (no recursion).

    ``extend(depth, target, state)`` returns the state after assigning ``target`` at
    ``depth`` (from the state before it; ``initial`` at depth 0), or None to refuse it;
    ``accept(targets, state)``, when given, must also hold for a complete assignment.
    """
    width = len(options)
    targets: list[int] = []
    states = [initial]
    used: set[int] = set()
    positions = [0] * (width + 1)  # positions[d]: the next candidate to try at depth d
    depth = 0
    while depth >= 0:
        if depth == width:
            if accept is None or accept(targets, states[-1]):
                return targets
            depth -= 1
            used.discard(targets.pop())
            states.pop()
            continue
        choices = options[depth]
        advanced = False
        while positions[depth] < len(choices):
            candidate = choices[positions[depth]]
            positions[depth] += 1
            if candidate in used:
                continue
            state = extend(depth, candidate, states[-1])
            if state is not None:
                targets.append(candidate)
                states.append(state)
                used.add(candidate)
                depth += 1
                positions[depth] = 0
                advanced = True
                break
        if not advanced:
            depth -= 1
            if depth >= 0:
                used.discard(targets.pop())
                states.pop()
    return None


class _KeyedSides:
    """Both answers as distinct tuples of match keys (small ints): equality of keys is
    matching. Used when no real is compared with a tolerance, or when ``recode`` makes keys
    decide matching with one.

    The search runs over classes of identical columns (see the module docstring).
    """

    def __init__(
        self,
        canonical: Sequence[Row],
        system: Sequence[Row],
        rule: MatchRule,
        recode: dict | None = None,
        keys: tuple[list[Sequence], list[Sequence]] | None = None,
    ) -> None:
        # Each distinct key becomes a small int once, so later projections hash int tuples.
        # recode: system keys standing for the canonical key of the number they match (see
        # _recoding), so that matching is equality of keys with a tolerance too. keys: each
        # side's keys column by column, when the caller has them.
        ids: dict = {}
        self.canonical = _coded(canonical, rule, ids, keys=None if keys is None else keys[0])
        self.system = _coded(system, rule, ids, recode, keys=None if keys is None else keys[1])
        self.arity = len(canonical[0]), len(system[0])
        columns = list(zip(*self.canonical))
        self.canonical_of, self.canonical_members = _classes(columns)
        self.canonical_columns = [columns[members[0]] for members in self.canonical_members]
        columns = list(zip(*self.system))
        _, self.system_members = _classes(columns)
        self.system_columns = [columns[members[0]] for members in self.system_members]

    def column_options(self) -> list[list[int]]:
        """For each canonical column, the system columns with its set of values (invariant 1):
        one shared list per value set."""
        by_values: dict[frozenset, list[int]] = {}
        for column, members in zip(self.system_columns, self.system_members):
            by_values.setdefault(frozenset(column), []).extend(members)
        for columns in by_values.values():
            columns.sort()
        return [by_values.get(frozenset(self.canonical_columns[number]), []) for number in self.canonical_of]

    def options(self) -> list[list[int]]:
        """For each canonical class, the system classes it may go to (invariant 1 and the
        class sizes): one shared list per value set and size."""
        value_sets: dict = {}
        by_values: dict[int, list[int]] = {}
        for number, column in enumerate(self.system_columns):
            by_values.setdefault(value_sets.setdefault(frozenset(column), len(value_sets)), []).append(number)
        sizes = list(map(len, self.system_members))
        shared: dict[tuple[int, int], list[int]] = {}
        options = []
        for column, members in zip(self.canonical_columns, self.canonical_members):
            values = value_sets.get(frozenset(column), -1)
            key = (values, len(members))
            choices = shared.get(key)
            if choices is None:
                choices = shared[key] = [b for b in by_values.get(values, ()) if sizes[b] >= len(members)]
            options.append(choices)
        return options

    def refine(self, options: list[list[int]]) -> list[list[int]] | None:
        """``options`` narrowed by invariants 2 and 3 of the module docstring; None when they
        prove that no mapping exists."""
        canonical, system = self.canonical, self.system
        if len(canonical) > len(system):
            return None
        if self.arity[0] != self.arity[1] or all(len(choices) == 1 for choices in options):
            return options
        if len(canonical) != len(system):
            return None
        colours = _ColumnColours(
            self.canonical_columns,
            self.system_columns,
            list(map(len, self.canonical_members)),
            list(map(len, self.system_members)),
        )
        if not colours.refine():
            return None
        by_colour: dict[int, list[int]] = {}
        for number, colour in enumerate(colours.system):
            by_colour.setdefault(colour, []).append(number)
        return [by_colour.get(colour, []) for colour in colours.canonical]

    def find(self, accept: Accept | None = None) -> tuple[int, ...] | None:
        """The mapping of canonical columns onto system columns, or None (``accept``: see
        ``find_mapping``; one mapping per assignment of classes is tried)."""
        options = self.refine(self.options())
        if options is None or any(not choices for choices in options):
            return None
        order = sorted(range(len(options)), key=lambda a: (len(options[a]), a))
        prefixes = _HashedPrefixes([self.canonical_columns[a] for a in order], ordered=False)
        system_columns = self.system_columns

        def extend(depth: int, target: int, previous: array | None) -> array | None:
            hashes = prefixes.extended(previous, system_columns[target])
            # A class's value set is its options' (invariant 1): the first column needs no check.
            return hashes if depth == 0 or prefixes.agree(depth, hashes) else None

        def assigned(targets: list[int]) -> tuple[int, ...]:
            mapping = [0] * self.arity[0]
            for a, b in zip(order, targets):
                for i, j in zip(self.canonical_members[a], self.system_members[b]):
                    mapping[i] = j
            return tuple(mapping)

        def complete(targets: list[int], state: array) -> bool:
            # Hashes that agree may collide: check the keys themselves.
            canonical = set(zip(*[self.canonical_columns[a] for a in order]))
            if canonical != set(zip(*[system_columns[b] for b in targets])):
                return False
            return accept is None or accept(assigned(targets))

        targets = _depth_first([options[a] for a in order], extend, None, complete)
        return None if targets is None else assigned(targets)


# Pair counts cost (ambiguous columns) x (columns) x (distinct tuples + a pair's overhead, in
# tuples); past this the refinement stops and the depth-first search does the rest.
_PAIR_COUNT_BUDGET = 4_000_000
_PAIR_OVERHEAD = 32


class _ColumnColours:
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
            if not ambiguous or columns * len(self.canonical) * (rows + _PAIR_OVERHEAD) > _PAIR_COUNT_BUDGET:
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
    columns without reals compare as sets of match keys. Columns with equal sets of values
    are one class for finding candidates (they have the same ones); equal keys of a partial
    projection prove it equivalent (each tuple matches its equal), and only when the keys
    differ in a column with reals is the projection compared with the tolerance.
    """

    def __init__(
        self,
        canonical: Sequence[Row],
        system: Sequence[Row],
        rule: MatchRule,
        ordered: bool,
        reference: str = "canonical",
        recode: dict | None = None,
    ) -> None:
        self.rule = rule
        self.ordered = ordered
        # The side whose values the tolerance is relative to (and that is walked, in order):
        # "system" for judging against a maximal answer, whose columns are the targets.
        self.reference = reference
        # Duplicates are kept: mutual coverage does not count them, and hashing every value
        # to drop them would cost more than they do.
        self.rows = {"canonical": list(canonical), "system": list(system)}
        self.columns = {side: list(zip(*rows)) for side, rows in self.rows.items()}
        # With ``recode`` (see _recoding), keys decide matching: no column needs the tolerance.
        self.tolerant = {
            side: [recode is None and rule.tolerant and column_has_reals(column) for column in columns]
            for side, columns in self.columns.items()
        }
        self._sorted: dict[tuple[str, int], tuple[list, list[int]]] = {}
        self.ids: dict = {}  # match key -> its small int, shared by both sides
        self.keys = {
            side: [
                coded(_recoded_keys(rule.keys(column), recode if side == "system" else None), self.ids)
                for column in columns
            ]
            for side, columns in self.columns.items()
        }

    def options(self) -> list[list[int]]:
        """For each canonical column, the system columns whose values cover it both ways
        (invariant 1): one shared list per class of canonical columns with equal value sets."""
        canonical_of, canonical_members = _classes([frozenset(column) for column in self.columns["canonical"]])
        _, system_members = _classes([frozenset(column) for column in self.columns["system"]])
        canonical = _ColumnSummary.of_classes(self, "canonical", canonical_members)
        system = _ColumnSummary.of_classes(self, "system", system_members)
        by_keys: dict[tuple, list[int]] = {}
        by_types: dict[frozenset, list[_ColumnSummary]] = {}
        for summary in system:
            by_keys.setdefault((summary.types, summary.keys), []).append(summary.number)
            if summary.low is not None:
                by_types.setdefault(summary.types, []).append(summary)
        lows: dict[frozenset, list] = {}
        for types, summaries in by_types.items():
            summaries.sort(key=attrgetter("low"))
            lows[types] = [summary.low for summary in summaries]
        shared = []
        for summary in canonical:
            classes = set(by_keys.get((summary.types, summary.keys), ()))
            classes.update(
                self._tolerant_matches(summary, by_types.get(summary.types, []), lows.get(summary.types, []), classes)
            )
            shared.append(sorted(chain.from_iterable(system_members[number] for number in classes)))
        return [shared[number] for number in canonical_of]

    def _tolerant_matches(
        self, canonical: _ColumnSummary, candidates: list[_ColumnSummary], lows: list, found: set[int]
    ) -> list[int]:
        """The system classes (among ``candidates``, sorted by their smallest number) whose
        values cover ``canonical``'s with the tolerance, not already ``found`` by equal keys.

        A necessary condition picks them cheaply: with M the largest |canonical number|,
        mutual coverage puts the smallest numbers within M * epsilon of each other, and the
        largest too (s_min matches some c >= c_min, so s_min >= c_min - M eps; c_min is matched
        by some s <= c_min + M eps, so s_min <= c_min + M eps)."""
        if canonical.low is None or canonical.high is None or not lows:
            return []
        epsilon = self.rule.exact_epsilon
        # With the system side as reference, M is the largest |system number|, at most the
        # largest |canonical number| / (1 - epsilon): no bound for epsilon 1 or more.
        of_canonical = self.reference == "canonical"
        window = tolerance_window(canonical.low, epsilon, canonical=of_canonical, magnitude=canonical.magnitude)
        high_window = tolerance_window(canonical.high, epsilon, canonical=of_canonical, magnitude=canonical.magnitude)
        if window is not None:
            candidates = candidates[bisect_left(lows, window[0]) : bisect_right(lows, window[1])]
        matches = []
        for system in candidates:
            if system.number in found or not (canonical.tolerant or system.tolerant):
                continue
            if high_window is not None and (system.high is None or not high_window[0] <= system.high <= high_window[1]):
                continue
            pair = [(value,) for value in canonical.values], [(value,) for value in system.values]
            if equivalent(*(pair if of_canonical else pair[::-1]), self.rule, (0,)):
                matches.append(system.number)
        return matches

    def _fits(self, columns: Sequence[int], targets: Sequence[int]) -> bool:
        """The projections onto ``columns`` and ``targets`` are equivalent (in order, if
        ordered), with the tolerance where a column holds reals."""
        canonical = list(map(_getter(columns), self.rows["canonical"]))
        system = list(map(_getter(targets), self.rows["system"]))
        if self.reference != "canonical":
            canonical, system = system, canonical
        if self.ordered:
            return ordered_equivalent(canonical, system, self.rule)
        tolerant = tuple(
            position
            for position, (i, j) in enumerate(zip(columns, targets))
            if self.tolerant["canonical"][i] or self.tolerant["system"][j]
        )
        return equivalent(canonical, system, self.rule, tolerant)

    def _same_keys(self, columns: Sequence[int], targets: Sequence[int], system_keys: Sequence[Sequence[int]]) -> bool:
        """The canonical keys of ``columns`` and ``system_keys`` (the keys of system columns
        ``targets``, one list per column) make the same set of key tuples; in order, the
        other side's key tuples walk the reference side's (``_walks``: equal runs of keys are
        not enough where the reference side has different rows with equal keys)."""
        canonical = zip(*[self.keys["canonical"][i] for i in columns])
        system = zip(*system_keys)
        if self.ordered:
            if self.reference == "canonical":
                return _walks(map(_getter(columns), self.rows["canonical"]), canonical, system)
            return _walks(map(_getter(targets), self.rows["system"]), system, canonical)
        return set(canonical) == set(system)

    def _recoded(self, column: int, target: int) -> list[int] | None:
        """Keys for system column ``target`` such that a value matches a value of canonical
        ``column`` exactly when their keys are equal: its own keys when no real is compared
        with tolerance, else the keys of the canonical values its values match, when the two
        columns' values match one to one (None when they do not)."""
        keys = self.keys["system"][target]
        if not (self.tolerant["canonical"][column] or self.tolerant["system"][target]):
            return keys
        pairing = self._pairing(column, target)
        return None if pairing is None else list(map(pairing.__getitem__, keys))

    def _pairing(self, column: int, target: int) -> dict[int, int] | None:
        """System key -> canonical key of the value it matches, when each distinct value of
        either column matches exactly one of the other's (and no two values share a key, as
        5 and 5.0 do); else None."""
        rule, ids = self.rule, self.ids
        sides = {"canonical": column, "system": target}
        reference = self.reference
        other = "system" if reference == "canonical" else "canonical"
        values = list(dict.fromkeys(self.columns[reference][sides[reference]]))
        others = list(dict.fromkeys(self.columns[other][sides[other]]))
        keys = [ids[rule.key(value)] for value in values]
        other_keys = [ids[rule.key(value)] for value in others]
        if not len(values) == len(others) == len(set(keys)) == len(set(other_keys)):
            return None
        value_of = dict(zip(other_keys, others))
        positions, numbers = self._sorted_numbers(other, sides[other], others, other_keys)
        paired: dict[int, int] = {}  # other key -> reference key
        for value, key in zip(values, keys):
            if type(value) is Number:
                window = tolerance_window(Decimal(value.value), rule.exact_epsilon, canonical=True)
                assert window is not None  # canonical=True always bounds
                low, high = window
                found = [
                    match
                    for match in numbers[bisect_left(positions, low) : bisect_right(positions, high)]
                    if rule.match(value, value_of[match])
                ]
            else:
                found = [key] if key in value_of else []  # other values match by key (of one type)
            if len(found) != 1 or found[0] in paired:
                return None
            paired[found[0]] = key
        return paired if reference == "canonical" else {key: match for match, key in paired.items()}

    def _sorted_numbers(self, side: str, column: int, values: list, keys: list[int]) -> tuple[list, list[int]]:
        """The numbers among a column's distinct ``values`` in order, and their keys (kept:
        the search pairs one column with several)."""
        found = self._sorted.get((side, column))
        if found is None:
            numbers = sorted((Decimal(value.value), key) for value, key in zip(values, keys) if type(value) is Number)
            found = self._sorted[side, column] = ([number for number, _ in numbers], [key for _, key in numbers])
        return found

    def find(self, options: list[list[int]] | None = None, accept: Accept | None = None) -> tuple[int, ...] | None:
        """The mapping of canonical columns onto system columns, or None (``options``: those
        of ``options()``, when the caller has them; ``accept``: see ``find_mapping``)."""
        if options is None:
            options = self.options()
        if any(not choices for choices in options):
            return None
        tolerant = self.tolerant
        # Columns with reals last: until they are assigned, prefix checks compare hashed keys.
        order = sorted(range(len(options)), key=lambda i: (tolerant["canonical"][i], len(options[i]), i))
        prefixes = _HashedPrefixes([self.keys["canonical"][i] for i in order], ordered=self.ordered)

        def extend(depth: int, target: int, state: tuple | None):
            # The system keys of each column so far: recoded where its values and the canonical
            # column's pair one to one, so that equal keys are matching values; else the plain
            # keys, whose equality only suffices. exact: all recoded, so hashes that disagree
            # prove the projections differ. keys: (this column's keys, the previous ones).
            previous, exact, targets, chain = state or (None, True, (), None)
            keys = self._recoded(order[depth], target)
            if keys is None:
                exact, keys = False, self.keys["system"][target]
            hashes = prefixes.extended(previous, keys)
            targets = (*targets, target)
            # In order, even one column needs its walk checked; as sets, its options did.
            if (
                (depth or self.ordered)
                and not prefixes.agree(depth, hashes)
                and (exact or not self._fits(order[: depth + 1], targets))
            ):
                return None
            return hashes, exact, targets, (keys, chain)

        def assigned(targets: list[int]) -> tuple[int, ...]:
            mapping = [0] * len(order)
            for column, target in zip(order, targets):
                mapping[column] = target
            return tuple(mapping)

        def complete(targets: list[int], state: tuple) -> bool:
            # Hashes that agree may collide: check the keys themselves, then the tolerance.
            _, exact, _, chain = state
            keys = []
            while chain is not None:
                column_keys, chain = chain
                keys.append(column_keys)
            columns = order[: len(targets)]
            if not (self._same_keys(columns, targets, keys[::-1]) or (not exact and self._fits(columns, targets))):
                return False
            return accept is None or accept(assigned(targets))

        targets = _depth_first([options[i] for i in order], extend, None, complete)
        return None if targets is None else assigned(targets)


@dataclass(slots=True)
class _ColumnSummary:
    """What finding a class's candidates needs: its number, value types, set of keys,
    distinct values, whether it holds reals compared with tolerance, and its numbers' range."""

    number: int
    types: frozenset
    keys: frozenset
    values: list
    tolerant: bool
    low: Decimal | None
    high: Decimal | None
    magnitude: Decimal | None

    @classmethod
    def of_classes(cls, sides: _TolerantSides, side: str, members: list[list[int]]) -> list[_ColumnSummary]:
        """One summary per class of columns (``members``) of ``side``."""
        summaries = []
        for number, columns in enumerate(members):
            first = columns[0]
            values = list(dict.fromkeys(sides.columns[side][first]))
            numbers = [value.value for value in values if type(value) is Number]
            # Decimal's copy_abs, not abs(): abs() rounds in the default context, whose
            # exponents stop short of the grammar's (1e1000000 would raise Overflow).
            low = Decimal(min(numbers)) if numbers else None
            high = Decimal(max(numbers)) if numbers else None
            magnitude = max(low.copy_abs(), high.copy_abs()) if low is not None and high is not None else None
            summaries.append(
                cls(
                    number,
                    frozenset(map(type, values)),
                    frozenset(sides.keys[side][first]),
                    values,
                    sides.tolerant[side][first],
                    low,
                    high,
                    magnitude,
                )
            )
        return summaries


class _DirectSides:
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
            epsilon = self.rule.exact_epsilon
            windows = self._windows[i] = (
                tolerance_window(low, epsilon, canonical=True, magnitude=magnitude),
                tolerance_window(high, epsilon, canonical=True, magnitude=magnitude),
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
                same = _walks(map(_getter(columns), self.rows[0]), self._canonical_key_tuples(columns), zip(*keys))
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
        canonical, system = list(map(_getter(columns), self.rows[0])), list(map(_getter(targets), self.rows[1]))
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


def _walks(canonical_rows: Iterable[Row], canonical_keys: Iterable[tuple], system_keys: Iterable[tuple]) -> bool:
    """``ordered_equivalent`` where equal keys are matching values: the system key tuples
    walk the canonical ones. Canonical rows identical to the one before count once; then each
    run of equal canonical keys (rows that differ but match, as "a" and "A" folded) must be
    met by a run of the system's as long at least, a step per row.

    >>> _walks([(1,), (1,), (2,)], [(1,), (1,), (2,)], [(1,), (2,), (2,)])
    True
    >>> _walks([("a",), ("A",)], [("a",), ("a",)], [("a",)])
    False
    """
    collapsed = [next(run)[0] for _, run in groupby(zip(canonical_keys, canonical_rows), key=itemgetter(1))]
    canonical = [(keys, len(list(run))) for keys, run in groupby(collapsed)]
    system = [(keys, len(list(run))) for keys, run in groupby(system_keys)]
    return len(canonical) == len(system) and all(
        keys == other and count <= length for (keys, count), (other, length) in zip(canonical, system)
    )


# Answers with at most this many pairs of columns (canonical x system) are searched directly
# (_DirectSides) when their columns' candidates allow at most this many mappings: the
# general search's classes, colours and hashes then cost more than they save (see find_mapping).
_DIRECT_PAIRS = 64
_DIRECT_MAPPINGS = 64


# A test a complete mapping must also pass (see find_mapping).
Accept = Callable[[tuple[int, ...]], bool]


def find_mapping(
    canonical: Sequence[Row],
    system: Sequence[Row],
    rule: MatchRule,
    *,
    ordered: bool = False,
    accept: Accept | None = None,
    keyed: tuple[Sequence[KeyedColumn], Sequence[KeyedColumn]] | None = None,
) -> tuple[int, ...] | None:
    """A mapping (canonical column i -> system column ``mapping[i]``) under which the reduced
    system tuples equal the canonical ones, or None. Both sides must be non-empty.

    ``keyed``, when given, are both sides' columns as ``MatchRule.keyed`` makes them (or
    ``keyed_plain``, from a driver's values): the search reads the rows only where keys do
    not decide (reals that differ within the tolerance, many candidate mappings), so rows
    made on demand may stay unmade.

    ``accept(mapping)``, when given, must also hold: the search goes on past mappings it
    refuses (sort keys: the tuples must match as sets, and be in key order). Mappings that
    differ only by swapping system columns whose values match the same canonical values
    tuple by tuple may be tried once for all of them, so ``accept`` must give them one answer.
    """
    arity_c, arity_s = (len(keyed[0]), len(keyed[1])) if keyed is not None else (len(canonical[0]), len(system[0]))
    if arity_c > arity_s:
        return None
    cells = len(canonical) * arity_c + len(system) * arity_s
    # The search's keys and tuples are freed when _mapping returns, before the collector
    # resumes: it would otherwise walk them once more.
    with gc_paused(cells >= PAUSE_FROM_CELLS):
        return _mapping(canonical, system, rule, ordered, accept, keyed, arity_c * arity_s <= _DIRECT_PAIRS)


def _mapping(
    canonical: Sequence[Row],
    system: Sequence[Row],
    rule: MatchRule,
    ordered: bool,
    accept: Accept | None,
    keyed: tuple[Sequence[KeyedColumn], Sequence[KeyedColumn]] | None,
    direct: bool,
) -> tuple[int, ...] | None:
    if direct:
        sides = _DirectSides(canonical, system, rule, ordered, keyed)
        options = sides.options(_DIRECT_MAPPINGS)
        if options is not None:
            return sides.find(options, accept)
        # Too many mappings to try directly: the general search, with the keys found.
        return _searched_mapping(canonical, system, rule, ordered, sides, accept=accept)
    return _searched_mapping(canonical, system, rule, ordered, accept=accept)


def _searched_mapping(
    canonical: Sequence[Row],
    system: Sequence[Row],
    rule: MatchRule,
    ordered: bool,
    known: _DirectSides | None = None,
    accept: Accept | None = None,
) -> tuple[int, ...] | None:
    """``find_mapping`` by the general search: classes of columns, counting invariants and
    hashed projections, for answers of any width (``known``: the direct search's keys and
    real columns of these answers, when it has them)."""
    cells = len(canonical) * len(canonical[0]) + len(system) * len(system[0])
    # Recoding pays for itself on large answers; on small ones trying it costs more than the
    # tolerant search it would replace.
    reals = None if known is None else any(chain(*known.tolerant))
    recode = _recoding(rule, canonical, system, "canonical", attempt=cells >= _RECODE_FROM_CELLS, has_reals=reals)
    if ordered or recode is None:
        return _TolerantSides(canonical, system, rule, ordered, recode=recode).find(accept=accept)
    keys = None if known is None or recode else known.keys
    return _KeyedSides(canonical, system, rule, recode, keys).find(accept)


# Answers with fewer values than this are not recoded (see _searched_mapping).
_RECODE_FROM_CELLS = 2_000


def _recoding(
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
    epsilon = rule.exact_epsilon
    # Dense numbers (a reference number matching two others) show in samples too: a cheap
    # way out before collecting and sorting them all.
    samples = {
        side: list(set(chain.from_iterable(keys[:: max(1, len(keys) * len(found) // _SAMPLE)] for keys in found)))
        for side, found in values.items()
    }
    if _some_match_twice(samples[reference], sorted(samples[other]), epsilon):
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
        found = _matches_of(number, others, epsilon)
        if len(found) > 1 or (found and found[0] in partners):
            return None
        if found:
            partners[found[0]] = number
    if reference == "canonical":
        return {match: number for match, number in partners.items()}
    return {number: match for match, number in partners.items()}


_SAMPLE = 2000


def _matches_of(number: int | Decimal, others: list, epsilon: Decimal) -> list:
    """The numbers of ``others`` (sorted) that match the reference ``number``."""
    window = tolerance_window(Decimal(number), epsilon, canonical=True)
    assert window is not None  # canonical=True always bounds
    return [
        match
        for match in others[bisect_left(others, window[0]) : bisect_right(others, window[1])]
        if _numbers_match(number, match, epsilon)
    ]


def _some_match_twice(numbers: list, others: list, epsilon: Decimal) -> bool:
    return any(len(_matches_of(number, others, epsilon)) > 1 for number in numbers)


def _number_keys(rule: MatchRule, column: Sequence) -> list:
    """The keys (values) of the numbers of a column."""
    kinds = set(map(type, column))
    if kinds == {Number}:
        return rule.keys(column)
    return [value.value for value in column if type(value) is Number] if Number in kinds else []


def _numbers_match(reference: int | Decimal, other: int | Decimal, epsilon: Decimal) -> bool:
    """``MatchRule.match`` on two numbers given by their values (ints are integers)."""
    if type(reference) is int and type(other) is int:
        return reference == other
    return within_epsilon(Decimal(reference), Decimal(other), epsilon)


def find_projection(
    system: Sequence[Row], maximal: Sequence[Row], rule: MatchRule, *, ordered: bool = False
) -> tuple[list[list[int]], tuple[int, ...] | None]:
    """For judging against a maximal answer: the candidates of each system column (the
    maximal columns whose values cover its values both ways, the tolerance relative to the
    maximal answer's), and an injective mapping (system column j -> maximal column
    ``mapping[j]``) under which the maximal tuples reduced to the mapped columns are
    equivalent to the system tuples (in order, if ``ordered``), or None. Both sides must be
    non-empty and the system no wider than the maximal answer.

    >>> from answerkey.model import Relation
    >>> system, maximal = Relation.from_rows([[2, "x"], [1, "y"]]), Relation.from_rows([["x", 2], ["y", 1]])
    >>> find_projection(system.rows, maximal.rows, MatchRule())
    ([[1], [0]], (1, 0))
    """
    with gc_paused(len(system) * len(system[0]) + len(maximal) * len(maximal[0]) >= PAUSE_FROM_CELLS):
        recode = _recoding(rule, system, maximal, "system")
        if ordered or recode is None:
            sides = _TolerantSides(system, maximal, rule, ordered, reference="system", recode=recode)
            options = sides.options()
            return options, sides.find(options) if all(options) else None
        # Keys decide: equivalence is equality of sets of key tuples, the same whichever side
        # is the reference, so the keyed search (classes, counting invariants) applies.
        keyed = _KeyedSides(system, maximal, rule, recode)
        options = keyed.column_options()
        return options, keyed.find() if all(options) else None


def search_injective(
    options: Sequence[Sequence[int]],
    fits: Callable[[list[int], list[int]], bool],
    *,
    check_first: bool = False,
    order: Sequence[int] | None = None,
    accept: Accept | None = None,
) -> tuple[int, ...] | None:
    """An injective assignment ``column i -> result[i]`` with ``result[i] in options[i]``, or None.

    Columns are assigned most constrained first, depth first, with an explicit stack (no
    recursion); ``fits(columns, targets)`` is asked after each assignment about the assigned
    prefix and prunes a branch when it says no. ``check_first=False`` skips the question for
    the first column, whose options already answer it. ``order`` overrides the column order.
    ``accept(result)``, when given, must also hold for the complete assignment.

    >>> search_injective([[0, 1], [0]], lambda columns, targets: True)
    (1, 0)
    """
    width = len(options)
    if order is None:
        order = sorted(range(width), key=lambda i: (len(options[i]), i))

    def extend(depth: int, target: int, assigned: list[int]) -> list[int] | None:
        targets = [*assigned, target]
        if (depth == 0 and not check_first) or fits(list(order[: depth + 1]), targets):
            return targets
        return None

    def assigned(targets: list[int]) -> tuple[int, ...]:
        mapping = [0] * width
        for column, target in zip(order, targets):
            mapping[column] = target
        return tuple(mapping)

    complete = None if accept is None else lambda targets, state: accept(assigned(targets))
    targets = _depth_first([options[i] for i in order], extend, [], complete)
    return None if targets is None else assigned(targets)


def closest_mapping(
    canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule
) -> tuple[tuple[int, ...], list[Row], list[Row]]:
    """A mapping that leaves few tuples unmatched, for explanations (greedy, not exhaustive),
    with the canonical tuples it leaves missing and the system tuples it leaves extra.

    Canonical columns, those sharing most values with some system column first, each take the
    free system column sharing most of their values (the lowest numbered among equals; the
    lowest free one when none shares a value). Overlaps are counted per class of columns with
    equal value sets, through an index of which system classes hold each value: no table of
    all column pairs.
    """
    ids: dict = {}
    canonical_of, canonical_members = _classes([frozenset(coded(rule.keys(column), ids)) for column in zip(*canonical)])
    system_sets = [frozenset(coded(rule.keys(column), ids)) for column in zip(*system)]
    _, system_members = _classes(system_sets)
    holders: dict[int, list[int]] = {}  # value -> the system classes holding it
    for number, members in enumerate(system_members):
        for value in system_sets[members[0]]:
            holders.setdefault(value, []).append(number)
    canonical_sets = list(map(frozenset, (coded(rule.keys(column), ids) for column in zip(*canonical))))

    def overlaps(values: frozenset) -> Counter:
        return Counter(chain.from_iterable(map(holders.get, values, repeat(()))))

    best = [max(overlaps(canonical_sets[members[0]]).values(), default=0) for members in canonical_members]
    used: set[int] = set()
    next_free = [0] * len(system_members)  # per class: where its lowest free column may be
    lowest = 0
    mapping = [0] * len(canonical_of)
    shared: tuple[int, Counter] = (-1, Counter())
    for column in sorted(range(len(canonical_of)), key=lambda i: (-best[canonical_of[i]], i)):
        number = canonical_of[column]
        if shared[0] != number:
            shared = (number, overlaps(canonical_sets[column]))
        choice: tuple[int, int] | None = None  # (-overlap, system column)
        for held, count in shared[1].items():
            members = system_members[held]
            while next_free[held] < len(members) and members[next_free[held]] in used:
                next_free[held] += 1
            if next_free[held] < len(members) and (choice is None or (-count, members[next_free[held]]) < choice):
                choice = (-count, members[next_free[held]])
        if choice is None:
            while lowest in used:
                lowest += 1
            target = lowest
        else:
            target = choice[1]
        used.add(target)
        mapping[column] = target
    columns = tuple(mapping)
    reduced = project(system, columns)
    distinct_canonical = list(dict.fromkeys(canonical))
    return (
        columns,
        missing(distinct_canonical, reduced, rule, "system"),
        missing(reduced, distinct_canonical, rule, "canonical"),
    )
