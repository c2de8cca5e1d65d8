"""Searching for a permutation of the predicted columns under which the rows agree."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any


def _projection(rows_by_column: Sequence[Sequence[object]], columns: Sequence[int]) -> Iterable[tuple[object, ...]]:
    return zip(*(rows_by_column[column] for column in columns))


def _same(first: Any, second: Any) -> bool:
    """``first == second``, two lists, sets or ``Counter``s. (Speed: ``Counter``'s ``==`` walks
    both in Python, a missing count as 0; counted ones have none, so ``dict``'s does the same in C.)"""
    if type(first) is Counter and type(second) is Counter:
        return dict.__eq__(first, second)
    return first == second


def column_permutation(
    gold: Sequence[tuple[object, ...]],
    predicted: Sequence[tuple[object, ...]],
    collect: Callable[[Iterable[Any]], Any],
) -> tuple[int, ...] | None:
    """A permutation ``p`` of the predicted columns (gold column ``i`` is predicted column
    ``p[i]``) under which ``collect`` (``list``, ``Counter`` or ``set``) of the gold rows
    equals that of the permuted predicted rows, the identity first; None if there is none.

    Columns are paired only with columns whose own values agree (as ``collect`` sees them),
    each partial permutation must agree on the columns chosen so far (both are necessary for
    the whole rows to agree), and of identical predicted columns one is tried per place
    (swapping them changes nothing): no permutation that works is pruned.
    """
    width = len(gold[0])
    target = collect(gold)
    if _same(collect(predicted), target):
        return tuple(range(width))
    gold_columns = list(zip(*gold))
    predicted_columns = list(zip(*predicted))

    def signature(column: Sequence[object]) -> object:
        gathered = collect(column)
        if isinstance(gathered, Counter):
            return frozenset(gathered.items())
        return tuple(gathered) if isinstance(gathered, list) else frozenset(gathered)

    by_signature: dict[object, list[int]] = {}
    for j, column in enumerate(predicted_columns):
        by_signature.setdefault(signature(column), []).append(j)
    options = [by_signature.get(signature(column), []) for column in gold_columns]
    if any(not option for option in options):
        return None
    if all(len(option) == 1 for option in options):
        # One permutation at most: only the whole rows need comparing.
        only = tuple(option[0] for option in options)
        agreeing = len(set(only)) == width and _same(collect(_projection(predicted_columns, only)), target)
        return only if agreeing else None
    prefixes: dict[int, Any] = {}  # the gold's first columns, gathered when a search gets there
    chosen: list[int] = []
    used = [False] * width

    def agrees(depth: int) -> bool:
        if depth == 0:
            return True  # the column's signature says so
        if depth not in prefixes:
            prefixes[depth] = collect(_projection(gold_columns, range(depth + 1)))
        return _same(collect(_projection(predicted_columns, chosen)), prefixes[depth])

    # Identical predicted columns are interchangeable: a search tries one of them per place.
    same_as: dict[tuple[object, ...], int] = {}
    twin = [same_as.setdefault(column, j) for j, column in enumerate(predicted_columns)]

    def extend(depth: int) -> bool:
        if depth == width:
            return True
        tried = set()
        for j in options[depth]:
            if used[j] or twin[j] in tried:
                continue
            tried.add(twin[j])
            chosen.append(j)
            if agrees(depth):
                used[j] = True
                if extend(depth + 1):
                    return True
                used[j] = False
            chosen.pop()
        return False

    return tuple(chosen) if extend(0) else None
