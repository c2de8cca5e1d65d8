"""Finding an injective mapping of canonical columns onto system columns.

For a mapping, the system answer is reduced to the mapped columns (duplicates dropped) and
must be set-equivalent to the canonical answer (H89-2019 section 4). The search never gives
up and never enumerates all m!/(m-k)! mappings when columns can be told apart:

1. a canonical column may only go to a system column whose value set covers it both ways;
2. columns are assigned most-constrained first;
3. after each assignment the partial projections of both sides must already be equivalent
   (a projection of equivalent relations is equivalent), so dead branches die early.
"""

from __future__ import annotations

from collections.abc import Sequence

from answerkey.comparator.tuples import Row, equivalent, missing
from answerkey.comparator.values import MatchRule

__all__ = ["find_mapping", "compatible_columns", "project", "ordered_equivalent"]


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


def compatible_columns(canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule) -> list[list[int]]:
    """For each canonical column, the system columns whose value sets cover it both ways."""
    arity_c = len(canonical[0])
    arity_s = len(system[0])
    system_columns = [project(system, [j]) for j in range(arity_s)]
    options = []
    for i in range(arity_c):
        column = project(canonical, [i])
        options.append([j for j in range(arity_s) if equivalent(column, system_columns[j], rule)])
    return options


def find_mapping(
    canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule, *, ordered: bool = False
) -> tuple[int, ...] | None:
    """A mapping (canonical column i -> system column ``mapping[i]``) under which the reduced
    system tuples equal the canonical ones, or None. Both sides must be non-empty."""
    arity_c = len(canonical[0])
    if arity_c > len(system[0]):
        return None
    canonical = list(dict.fromkeys(canonical)) if not ordered else list(canonical)
    options = compatible_columns(canonical, system, rule)
    if any(not choices for choices in options):
        return None
    order = sorted(range(arity_c), key=lambda i: (len(options[i]), i))
    assigned: dict[int, int] = {}
    used: set[int] = set()

    def full_check(mapping_columns: list[int], canonical_columns: list[int]) -> bool:
        reduced_canonical = project(canonical, canonical_columns) if not ordered else [
            tuple(row[c] for c in canonical_columns) for row in canonical
        ]
        if ordered:
            reduced_system = [tuple(row[c] for c in mapping_columns) for row in system]
            return ordered_equivalent(reduced_canonical, reduced_system, rule)
        return equivalent(reduced_canonical, project(system, mapping_columns), rule)

    # Explicit stack of (depth, candidate position) so deep column counts cannot recurse.
    positions = [0] * arity_c
    depth = 0
    while depth >= 0:
        if depth == arity_c:
            return tuple(assigned[i] for i in range(arity_c))
        column = order[depth]
        choices = options[column]
        advanced = False
        while positions[depth] < len(choices):
            candidate = choices[positions[depth]]
            positions[depth] += 1
            if candidate in used:
                continue
            assigned[column] = candidate
            canonical_columns = order[: depth + 1]
            mapping_columns = [assigned[c] for c in canonical_columns]
            # One column's value sets were compared already; an ordered check still has to run.
            if (depth == 0 and not ordered) or full_check(mapping_columns, canonical_columns):
                used.add(candidate)
                depth += 1
                if depth < arity_c:
                    positions[depth] = 0
                advanced = True
                break
            del assigned[column]
        if advanced:
            continue
        # Exhausted this level: backtrack.
        depth -= 1
        if depth >= 0:
            previous = order[depth]
            used.discard(assigned.pop(previous))
    return None


def closest_mapping(
    canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule
) -> tuple[tuple[int, ...], list[Row], list[Row]]:
    """A mapping that leaves few tuples unmatched, for explanations (greedy, not exhaustive):
    each canonical column takes the free system column sharing most of its values."""
    arity_c, arity_s = len(canonical[0]), len(system[0])
    key = rule.key
    scores = []
    for i in range(arity_c):
        canonical_values = {key(row[i]) for row in canonical}
        for j in range(arity_s):
            system_values = {key(row[j]) for row in system}
            shared = len(canonical_values & system_values)
            scores.append((-shared, i, j))
    scores.sort()
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
