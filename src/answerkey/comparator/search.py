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
are separate steps, each needing a system tuple of its own (``_assignment.walks`` counts them).

**Two searches.** Most answers of a corpus have a few columns, told apart by their values.
When the canonical and system columns make at most ``_DIRECT_PAIRS`` pairs and their
candidates allow at most ``_DIRECT_MAPPINGS`` mappings, ``_direct.DirectSides`` searches directly.
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
of the canonical number it matches, so that keys decide matching: ``recoding``), values are
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

This module holds the two general searches (keys, tolerance) and the entry points; beside it
are their building blocks (``_assignment``), invariant 3 (``_colours``), the recoding of
numbers (``_recoding``) and the direct search (``_direct``).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import chain, repeat
from operator import attrgetter

from answerkey.comparator._assignment import (
    Accept,
    HashedPrefixes,
    coded_rows,
    column_classes,
    depth_first,
    ordered_equivalent,
    project,
    recoded_keys,
    row_getter,
    search_injective as search_injective,
    walks,
)
from answerkey.comparator._colours import ColumnColours
from answerkey.comparator._direct import DirectSides
from answerkey.comparator._recoding import recoding
from answerkey.comparator.tuples import Row, coded, column_has_reals, equivalent, missing
from answerkey.comparator.values import KeyedColumn, MatchRule
from answerkey.gc_pause import PAUSE_FROM_CELLS, gc_paused
from answerkey.model import Number


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
        # recoding), so that matching is equality of keys with a tolerance too. keys: each
        # side's keys column by column, when the caller has them.
        ids: dict = {}
        self.canonical = coded_rows(canonical, rule, ids, keys=None if keys is None else keys[0])
        self.system = coded_rows(system, rule, ids, recode, keys=None if keys is None else keys[1])
        self.arity = len(canonical[0]), len(system[0])
        columns = list(zip(*self.canonical))
        self.canonical_of, self.canonical_members = column_classes(columns)
        self.canonical_columns = [columns[members[0]] for members in self.canonical_members]
        columns = list(zip(*self.system))
        _, self.system_members = column_classes(columns)
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
        colours = ColumnColours(
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
        prefixes = HashedPrefixes([self.canonical_columns[a] for a in order], ordered=False)
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

        targets = depth_first([options[a] for a in order], extend, None, complete)
        return None if targets is None else assigned(targets)


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
        # With ``recode`` (see recoding), keys decide matching: no column needs the tolerance.
        self.tolerant = {
            side: [recode is None and rule.tolerant and column_has_reals(column) for column in columns]
            for side, columns in self.columns.items()
        }
        self._sorted: dict[tuple[str, int], tuple[list, list[int]]] = {}
        self.ids: dict = {}  # match key -> its small int, shared by both sides
        self.keys = {
            side: [
                coded(recoded_keys(rule.keys(column), recode if side == "system" else None), self.ids)
                for column in columns
            ]
            for side, columns in self.columns.items()
        }

    def options(self) -> list[list[int]]:
        """For each canonical column, the system columns whose values cover it both ways
        (invariant 1): one shared list per class of canonical columns with equal value sets."""
        canonical_of, canonical_members = column_classes([frozenset(column) for column in self.columns["canonical"]])
        _, system_members = column_classes([frozenset(column) for column in self.columns["system"]])
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
        rule = self.rule
        # With the system side as reference, M is the largest |system number|, at most the
        # largest |canonical number| / (1 - epsilon): no bound for epsilon 1 or more.
        of_canonical = self.reference == "canonical"
        window = rule.window(canonical.low, canonical=of_canonical, magnitude=canonical.magnitude)
        high_window = rule.window(canonical.high, canonical=of_canonical, magnitude=canonical.magnitude)
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
        canonical = list(map(row_getter(columns), self.rows["canonical"]))
        system = list(map(row_getter(targets), self.rows["system"]))
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
        other side's key tuples walk the reference side's (``walks``: equal runs of keys are
        not enough where the reference side has different rows with equal keys)."""
        canonical = zip(*[self.keys["canonical"][i] for i in columns])
        system = zip(*system_keys)
        if self.ordered:
            if self.reference == "canonical":
                return walks(map(row_getter(columns), self.rows["canonical"]), canonical, system)
            return walks(map(row_getter(targets), self.rows["system"]), system, canonical)
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
                window = rule.window(Decimal(value.value), canonical=True)
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
        prefixes = HashedPrefixes([self.keys["canonical"][i] for i in order], ordered=self.ordered)

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

        targets = depth_first([options[i] for i in order], extend, None, complete)
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


# Answers with at most this many pairs of columns (canonical x system) are searched directly
# (DirectSides) when their columns' candidates allow at most this many mappings: the
# general search's classes, colours and hashes then cost more than they save (see find_mapping).
_DIRECT_PAIRS = 64
_DIRECT_MAPPINGS = 64


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
        sides = DirectSides(canonical, system, rule, ordered, keyed)
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
    known: DirectSides | None = None,
    accept: Accept | None = None,
) -> tuple[int, ...] | None:
    """``find_mapping`` by the general search: classes of columns, counting invariants and
    hashed projections, for answers of any width (``known``: the direct search's keys and
    real columns of these answers, when it has them)."""
    cells = len(canonical) * len(canonical[0]) + len(system) * len(system[0])
    # Recoding pays for itself on large answers; on small ones trying it costs more than the
    # tolerant search it would replace.
    reals = None if known is None else any(chain(*known.tolerant))
    recode = recoding(rule, canonical, system, "canonical", attempt=cells >= _RECODE_FROM_CELLS, has_reals=reals)
    if ordered or recode is None:
        return _TolerantSides(canonical, system, rule, ordered, recode=recode).find(accept=accept)
    keys = None if known is None or recode else known.keys
    return _KeyedSides(canonical, system, rule, recode, keys).find(accept)


# Answers with fewer values than this are not recoded (see _searched_mapping).
_RECODE_FROM_CELLS = 2_000


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
        recode = recoding(rule, system, maximal, "system")
        if ordered or recode is None:
            sides = _TolerantSides(system, maximal, rule, ordered, reference="system", recode=recode)
            options = sides.options()
            return options, sides.find(options) if all(options) else None
        # Keys decide: equivalence is equality of sets of key tuples, the same whichever side
        # is the reference, so the keyed search (classes, counting invariants) applies.
        keyed = _KeyedSides(system, maximal, rule, recode)
        options = keyed.column_options()
        return options, keyed.find() if all(options) else None


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
    canonical_of, canonical_members = column_classes(
        [frozenset(coded(rule.keys(column), ids)) for column in zip(*canonical)]
    )
    system_sets = [frozenset(coded(rule.keys(column), ids)) for column in zip(*system)]
    _, system_members = column_classes(system_sets)
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
