"""Pausing the cyclic garbage collector while large acyclic structures are built.

Reading a large answer, corpus or answers file, comparing two large answers, or building a
report allocates hundreds of thousands of tuples, lists, dicts and values, none of them
garbage and none in a reference cycle; every collection would walk all of them again (for a
2,000 x 10 SPARQL result, about a third of the time). Reference counting still frees memory
while the collector is paused.

>>> import gc
>>> with gc_paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused", "PAUSE_FROM_CELLS", "PAUSE_FROM_CHARS"]

# Below about this many values, or characters of input, a pause is not worth its two calls.
PAUSE_FROM_CELLS = 10_000
PAUSE_FROM_CHARS = 64 * 1024


@contextmanager
def gc_paused(active: bool = True) -> Iterator[None]:
    """Pause the cyclic collector inside the block when ``active`` and it is enabled."""
    paused = active and gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
