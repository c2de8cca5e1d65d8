"""Mapping a pure function over many items in several processes, results in input order."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from answerkey.gc_pause import gc_paused

__all__ = ["ordered_map", "shared", "batched"]

T = TypeVar("T")
R = TypeVar("R")


_shared: object = None


def shared() -> object:
    """The ``shared`` value of the ``ordered_map`` running now (in a worker, or in this
    process when it maps by itself)."""
    return _shared


def _set_shared(value: object) -> None:
    global _shared
    _shared = value


def ordered_map(
    function: Callable[[T], R],
    items: Sequence[T],
    *,
    jobs: int = 1,
    chunk: int | None = None,
    shared: object = None,
) -> Iterator[R]:
    """Yield ``function(item)`` for each item, in order, using ``jobs`` worker processes.

    ``function`` must be a module-level function (it is pickled by name). With ``jobs == 1``
    nothing is started, so results are identical whichever is used. ``shared`` (say, the
    whole input, with ``items`` indexes into it) reaches each worker once, where
    ``function`` reads it with ``shared()``: forked workers inherit it, others get one copy
    each, and it never travels with the items.

    >>> list(ordered_map(len, ["a", "bc"], jobs=1))
    [1, 2]
    """
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    if jobs == 1 or len(items) < 2:
        previous = _shared
        _set_shared(shared)
        try:
            yield from map(function, items)
        finally:
            _set_shared(previous)
        return
    # Importing the pool allocates enough to set off a full collection, which would walk every
    # object the caller holds (20 ms after loading a 20,000-item corpus), just before they are
    # frozen out of the collector's sight below.
    with gc_paused():
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

    # About 32 chunks per worker: small enough that no worker idles long at the end.
    chunk = chunk or max(1, min(64, len(items) // (jobs * 32)))
    method = _start_method()
    context = multiprocessing.get_context(method)
    # Forked workers share the parent's objects until they write to them; the cyclic
    # collector writes to every object it walks, so the objects alive now (the corpus, say)
    # are frozen out of its sight in the workers and, while they run, in this process too.
    frozen = method == "fork" and gc.isenabled()
    if frozen:
        gc.freeze()
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_set_shared,
                                 initargs=(shared,)) as pool:
            yield from pool.map(function, items, chunksize=chunk)
    finally:
        if frozen:
            gc.unfreeze()


def _start_method() -> str:
    """fork when this process runs a single thread: workers start with every module already
    imported (a spawned worker spends ~0.3 s importing answerkey). With other threads alive,
    forking could copy a held lock, so use the forkserver (or spawn where there is none)."""
    import multiprocessing
    import threading

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


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
