"""The building blocks of both mapping searches (``answerkey.comparator.search``).

Projections of rows onto columns, ordered walks of one answer along another, classes of
identical columns, hashed partial projections, and the depth-first assignment of columns to
candidates that every search ends in.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import groupby
from operator import itemgetter
from typing import Any

from answerkey.comparator.tuples import Row, coded
from answerkey.comparator.values import MatchRule


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


def row_getter(columns: Sequence[int]):
    """A function projecting a row onto ``columns``, always returning a tuple."""
    if len(columns) == 1:
        only = columns[0]
        return lambda row: (row[only],)
    return itemgetter(*columns)


def coded_rows(
    rows: Sequence[Row], rule: MatchRule, ids: dict, recode: dict | None = None, keys: list[Sequence] | None = None
) -> list[tuple[int, ...]]:
    """The distinct rows with each value's match key (replaced by ``recode[key]`` where it has
    one) replaced by its number in ``ids`` (shared by both sides), column by column with
    C-level maps. ``keys``: the keys of each column, when the caller has them."""
    columns_keys = map(rule.keys, zip(*rows)) if keys is None else keys
    return list(dict.fromkeys(zip(*[coded(recoded_keys(column, recode), ids) for column in columns_keys])))


def recoded_keys(keys: Sequence, recode: dict | None) -> Sequence:
    """The keys, each replaced by ``recode[key]`` where it has one."""
    return list(map(recode.get, keys, keys)) if recode else keys


def column_classes(columns: Sequence) -> tuple[list[int], list[list[int]]]:
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


class HashedPrefixes:
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


def depth_first(
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


def walks(canonical_rows: Iterable[Row], canonical_keys: Iterable[tuple], system_keys: Iterable[tuple]) -> bool:
    """``ordered_equivalent`` where equal keys are matching values: the system key tuples
    walk the canonical ones. Canonical rows identical to the one before count once; then each
    run of equal canonical keys (rows that differ but match, as "a" and "A" folded) must be
    met by a run of the system's as long at least, a step per row.

    >>> walks([(1,), (1,), (2,)], [(1,), (1,), (2,)], [(1,), (2,), (2,)])
    True
    >>> walks([("a",), ("A",)], [("a",), ("a",)], [("a",)])
    False
    """
    collapsed = [next(run)[0] for _, run in groupby(zip(canonical_keys, canonical_rows), key=itemgetter(1))]
    canonical = [(keys, len(list(run))) for keys, run in groupby(collapsed)]
    system = [(keys, len(list(run))) for keys, run in groupby(system_keys)]
    return len(canonical) == len(system) and all(
        keys == other and count <= length for (keys, count), (other, length) in zip(canonical, system)
    )


# A test a complete mapping must also pass (see find_mapping).
Accept = Callable[[tuple[int, ...]], bool]


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
    targets = depth_first([options[i] for i in order], extend, [], complete)
    return None if targets is None else assigned(targets)
