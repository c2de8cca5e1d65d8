"""Finding an injective mapping of canonical columns onto system columns.

For a mapping, the system answer is reduced to the mapped columns (duplicates dropped) and
must be set-equivalent to the canonical answer (H89-2019 section 4). The search never gives
up and never enumerates all m!/(m-k)! mappings when columns can be told apart:

1. a canonical column may only go to a system column whose value set covers it both ways;
2. columns are assigned most-constrained first;
3. after each assignment the partial projections of both sides must already be equivalent
   (a projection of equivalent relations is equivalent), so dead branches die early.

When no real is compared with a tolerance, values are replaced once by hashable keys and
every check is a set comparison of key tuples.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from answerkey.comparator.tuples import Row, equivalent, missing
from answerkey.comparator.values import MatchRule
from answerkey.model import Number

__all__ = ["find_mapping", "project", "ordered_equivalent", "closest_mapping"]


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
    """Sequences equal tuple by tuple, after collapsing runs of identical tuples."""
    canonical, system = _collapse_runs(canonical), _collapse_runs(system)
    if len(canonical) != len(system):
        return False
    match = rule.match
    return all(
        all(match(c, s) for c, s in zip(c_row, s_row)) for c_row, s_row in zip(canonical, system)
    )


def _getter(columns: Sequence[int]):
    """A function projecting a row onto ``columns``, always returning a tuple."""
    if len(columns) == 1:
        only = columns[0]
        return lambda row: (row[only],)
    return itemgetter(*columns)


def _has_reals(rows: Sequence[Row]) -> bool:
    return any(type(value) is Number and value.is_real for row in rows for value in row)


class _KeyedSides:
    """Both answers as tuples of match keys: equality of keys is matching.

    With ``key=None`` the values are their own keys (no reals, strings compared exactly).
    """

    def __init__(self, canonical: Sequence[Row], system: Sequence[Row], key) -> None:
        # Each distinct key becomes a small int once, so later projections hash int tuples.
        ids: dict = {}
        intern = ids.setdefault
        if key is None:
            self.canonical = list(dict.fromkeys(tuple([intern(v, len(ids)) for v in row]) for row in canonical))
            self.system = list(dict.fromkeys(tuple([intern(v, len(ids)) for v in row]) for row in system))
        else:
            self.canonical = list(dict.fromkeys(tuple([intern(key(v), len(ids)) for v in row]) for row in canonical))
            self.system = list(dict.fromkeys(tuple([intern(key(v), len(ids)) for v in row]) for row in system))
        self.canonical_columns = [frozenset(row[i] for row in self.canonical) for i in range(len(canonical[0]))]
        self.system_columns = [frozenset(row[j] for row in self.system) for j in range(len(system[0]))]

    def columns_compatible(self, i: int, j: int) -> bool:
        return self.canonical_columns[i] == self.system_columns[j]

    def projections_equivalent(self, canonical_columns: list[int], system_columns: list[int]) -> bool:
        canonical_getter, system_getter = _getter(canonical_columns), _getter(system_columns)
        reduced_canonical = set(map(canonical_getter, self.canonical))
        reduced_system = set(map(system_getter, self.system))
        return reduced_canonical == reduced_system


class _TolerantSides:
    """Answers compared with the epsilon rule (reals involved), or in order."""

    def __init__(self, canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule, ordered: bool) -> None:
        self.rule = rule
        self.ordered = ordered
        self.canonical = list(canonical) if ordered else list(dict.fromkeys(canonical))
        self.system = list(system)
        self.canonical_columns = [project(self.canonical, [i]) for i in range(len(canonical[0]))]
        self.system_columns = [project(self.system, [j]) for j in range(len(system[0]))]

    def columns_compatible(self, i: int, j: int) -> bool:
        return equivalent(self.canonical_columns[i], self.system_columns[j], self.rule)

    def projections_equivalent(self, canonical_columns: list[int], system_columns: list[int]) -> bool:
        if self.ordered:
            canonical_getter, system_getter = _getter(canonical_columns), _getter(system_columns)
            return ordered_equivalent(
                list(map(canonical_getter, self.canonical)), list(map(system_getter, self.system)), self.rule
            )
        return equivalent(project(self.canonical, canonical_columns), project(self.system, system_columns), self.rule)


def find_mapping(
    canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule, *, ordered: bool = False
) -> tuple[int, ...] | None:
    """A mapping (canonical column i -> system column ``mapping[i]``) under which the reduced
    system tuples equal the canonical ones, or None. Both sides must be non-empty."""
    arity_c, arity_s = len(canonical[0]), len(system[0])
    if arity_c > arity_s:
        return None
    reals = _has_reals(canonical) or _has_reals(system)
    if ordered or (reals and rule.tolerant):
        sides = _TolerantSides(canonical, system, rule, ordered)
    else:
        identity = not reals and rule.strings == "exact"
        sides = _KeyedSides(canonical, system, None if identity else rule.key)
    options = [[j for j in range(arity_s) if sides.columns_compatible(i, j)] for i in range(arity_c)]
    if any(not choices for choices in options):
        return None
    order = sorted(range(arity_c), key=lambda i: (len(options[i]), i))
    # Iterative depth-first search: positions[d] is the next candidate to try at depth d.
    assigned: list[int] = []
    used: set[int] = set()
    positions = [0] * arity_c
    depth = 0
    while depth >= 0:
        if depth == arity_c:
            mapping = [0] * arity_c
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
            # One column's value sets were compared already; an ordered check still has to run.
            if (depth == 0 and not ordered) or sides.projections_equivalent(
                order[: depth + 1], assigned + [candidate]
            ):
                assigned.append(candidate)
                used.add(candidate)
                depth += 1
                if depth < arity_c:
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
