"""Matching reference steps to actual steps: each actual step used at most once, the total
score as large as possible.

graphrag-eval lets each reference step, in order, take the latest candidate with a positive
score. That greedy choice can lose: if reference step A could use actual step 1 or 2 and B
only 2, A takes 2 (the latest) and B is left unmatched. We compute the greedy matching first
and keep it when no matching scores more, so the two tools agree wherever the greedy one is
right; otherwise an optimal assignment (Hungarian algorithm) replaces it.

>>> scores = {(0, 1): 1.0, (0, 2): 1.0, (1, 2): 1.0}
>>> best_matching(2, [1, 2], lambda r, a: scores.get((r, a), 0.0))
{0: (1, 1.0), 1: (2, 1.0)}
>>> greedy_matching(2, [1, 2], lambda r, a: scores.get((r, a), 0.0))
{0: (2, 1.0)}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Matching = dict[int, tuple[int, float]]  # reference index -> (actual index, score > 0)
Score = Callable[[int, int], float]  # (reference index, actual index) -> score in [0, 1], 0 if not a candidate

# Totals closer than this are the same total (scores are sums of a few floats in [0, 1]).
_TIE = 1e-9


def greedy_matching(references: int, actuals: Sequence[int], score: Score) -> Matching:
    """graphrag-eval's rule: each reference step in turn takes the latest unused actual step
    with a positive score."""
    used: set[int] = set()
    matching: Matching = {}
    for reference in range(references):
        for actual in reversed(actuals):
            if actual in used:
                continue
            value = score(reference, actual)
            if value > 0:
                matching[reference] = (actual, value)
                used.add(actual)
                break
    return matching


def assignment(weights: Sequence[Sequence[float]]) -> list[int]:
    """A maximum-weight assignment of rows to distinct columns (rows <= columns): for each row,
    its column. The Hungarian algorithm with potentials, O(rows² · columns).

    >>> assignment([[1, 0], [1, 0.5]])
    [0, 1]
    """
    rows = len(weights)
    columns = len(weights[0]) if rows else 0
    if rows > columns:
        raise ValueError("more rows than columns")
    infinity = float("inf")
    # 1-based arrays; column 0 is the virtual start. Costs are negated weights (minimisation).
    u = [0.0] * (rows + 1)
    v = [0.0] * (columns + 1)
    owner = [0] * (columns + 1)  # owner[j]: the row assigned to column j (0 = none)
    way = [0] * (columns + 1)
    for row in range(1, rows + 1):
        owner[0] = row
        column = 0
        least = [infinity] * (columns + 1)
        visited = [False] * (columns + 1)
        while True:
            visited[column] = True
            current = owner[column]
            delta = infinity
            next_column = 0
            for j in range(1, columns + 1):
                if visited[j]:
                    continue
                reduced = -weights[current - 1][j - 1] - u[current] - v[j]
                if reduced < least[j]:
                    least[j] = reduced
                    way[j] = column
                if least[j] < delta:
                    delta = least[j]
                    next_column = j
            for j in range(columns + 1):
                if visited[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            column = next_column
            if owner[column] == 0:
                break
        while column:
            previous = way[column]
            owner[column] = owner[previous]
            column = previous
    result = [0] * rows
    for j in range(1, columns + 1):
        if owner[j]:
            result[owner[j] - 1] = j - 1
    return result


def best_matching(references: int, actuals: Sequence[int], score: Score) -> Matching:
    """A matching with the largest total score; graphrag-eval's greedy one when it is as good.

    ``score`` is called at most once per pair (callers may cache nothing).
    """
    cache: dict[tuple[int, int], float] = {}

    def cached(reference: int, actual: int) -> float:
        key = (reference, actual)
        if key not in cache:
            cache[key] = score(reference, actual)
        return cache[key]

    greedy = greedy_matching(references, actuals, cached)
    greedy_total = sum(value for _, value in greedy.values())
    # Scores are at most 1: a greedy matching that gives every reference step 1 is optimal.
    if not references or not actuals or greedy_total >= references - _TIE:
        return greedy
    # Pad with one dummy column per reference step so every step can stay unmatched.
    weights = [
        [cached(reference, actual) for actual in actuals] + [0.0] * references for reference in range(references)
    ]
    chosen = assignment(weights)
    optimal: Matching = {}
    for reference, column in enumerate(chosen):
        if column < len(actuals) and weights[reference][column] > 0:
            optimal[reference] = (actuals[column], weights[reference][column])
    optimal_total = sum(value for _, value in optimal.values())
    return optimal if optimal_total > greedy_total + _TIE else greedy
