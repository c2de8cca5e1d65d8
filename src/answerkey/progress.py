"""A progress bar on standard error, shown only to a person watching a long run."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["progress", "PROGRESS_THRESHOLD"]

T = TypeVar("T")

# Runs shorter than this many items finish before a bar would help.
PROGRESS_THRESHOLD = 200


def progress(
    items: Iterable[T], *, total: int, label: str, quiet: bool = False, stream=None
) -> Iterator[T]:
    """Yield ``items``, drawing ``label [####    ] 40/100`` on stderr when it is a terminal,
    the run is large and not ``quiet``. Redraws at most ten times a second."""
    stream = stream or sys.stderr
    show = not quiet and total >= PROGRESS_THRESHOLD and getattr(stream, "isatty", lambda: False)()
    if not show:
        yield from items
        return
    width = 30
    last = 0.0
    done = 0
    try:
        for done, item in enumerate(items, start=1):
            now = time.monotonic()
            if now - last >= 0.1 or done == total:
                filled = width * done // max(total, 1)
                stream.write(f"\r{label} [{'#' * filled}{' ' * (width - filled)}] {done}/{total}")
                stream.flush()
                last = now
            yield item
    finally:
        stream.write("\r" + " " * (len(label) + width + 2 * len(str(total)) + 6) + "\r")
        stream.flush()
