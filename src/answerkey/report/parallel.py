"""Mapping a pure function over many items in several processes, results in input order."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

__all__ = ["ordered_map"]

T = TypeVar("T")
R = TypeVar("R")


def ordered_map(
    function: Callable[[T], R], items: Sequence[T], *, jobs: int = 1, chunk: int | None = None
) -> Iterator[R]:
    """Yield ``function(item)`` for each item, in order, using ``jobs`` worker processes.

    ``function`` must be a module-level function (it is pickled by name). With ``jobs == 1``
    nothing is started, so results are identical whichever is used.
    """
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    if jobs == 1 or len(items) < 2:
        yield from map(function, items)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunk = chunk or max(1, min(512, len(items) // (jobs * 8) or 1))
    # fork would copy a parent that may hold threads or open workbooks; spawn is predictable.
    context = multiprocessing.get_context("forkserver" if _has_forkserver() else "spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        yield from pool.map(function, items, chunksize=chunk)


def _has_forkserver() -> bool:
    import multiprocessing

    return "forkserver" in multiprocessing.get_all_start_methods()


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of at most ``size`` items."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
