"""Pausing the cyclic garbage collector while large acyclic structures are built.

Parsing a large CAS answer, or comparing two large answers, allocates hundreds of thousands
of tuples, lists and values, none of them garbage and none in a reference cycle; every
collection would walk all of them again. Reference counting still frees memory while the
collector is paused. Kept only where a benchmark figure shows it (``benchmarks/run.py``,
``benchmarks/bench_sql.py``): the parse rate (8.0 MB/s without, 13.9 with), the 10-of-30-column
judgement (6 to 9% of it), tolerant set equivalence (6 to 15%), and the two 1,000,000-row SQL
results: taking their rows in from the SQLite helper (4.3 s without, 2.0 s with), the helper
reading them (1.03 s a query without, 0.88 s with), making typed rows of them; elsewhere it
saved under 5% and was removed.

>>> import gc
>>> with gc_paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc

# Below about this many values, or characters of input, a pause is not worth its two calls.
PAUSE_FROM_CELLS = 10_000
PAUSE_FROM_CHARS = 64 * 1024


def gc_paused(active: bool = True) -> _Pause:
    """Pause the cyclic collector inside the block when ``active`` and it is enabled."""
    return _Pause(active)


class _Pause:
    """The context of ``gc_paused``: a class, as it is entered for every query result (a
    generator-based context costs three times as much)."""

    __slots__ = ("_active", "_paused")

    def __init__(self, active: bool) -> None:
        self._active = active
        self._paused = False

    def __enter__(self) -> None:
        self._paused = self._active and gc.isenabled()
        if self._paused:
            gc.disable()

    def __exit__(self, *_exception: object) -> None:
        if self._paused:
            gc.enable()
