"""A progress bar on standard error, shown only to a person watching a long run.

``progress(items, ...)`` wraps an iterable; ``ProgressBar`` is told how far a run has got,
for work that reports back through a callback (the fuzzers).

>>> list(progress([1, 2], total=2, label="nothing drawn: not a terminal"))
[1, 2]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any, TextIO, TypeVar

T = TypeVar("T")

# Runs shorter than this many items finish before a bar would help.
PROGRESS_THRESHOLD = 200
_WIDTH = 30


class ProgressBar:
    """``label [####    ] 40/100`` on ``stream`` (standard error), drawn only when it is a
    terminal, ``total`` is at least ``threshold`` (``PROGRESS_THRESHOLD`` unless a run's items
    are slow, such as calls to a remote model) and not ``quiet``; redrawn at most ten times a
    second and cleared by ``close()`` (or at the end of a ``with`` block).

    >>> with ProgressBar(1000, "fuzz") as bar:  # not a terminal here: nothing is drawn
    ...     bar.update(10)
    >>> bar.shown
    False
    """

    def __init__(
        self,
        total: int,
        label: str,
        *,
        quiet: bool = False,
        stream: TextIO | None = None,
        threshold: int | None = None,
    ) -> None:
        self.total = total
        self.label = label
        self.stream = stream or sys.stderr
        self.shown = (
            not quiet
            and total >= (PROGRESS_THRESHOLD if threshold is None else threshold)
            and getattr(self.stream, "isatty", lambda: False)()
        )
        self._last = 0.0

    def update(self, done: int) -> None:
        """Show that ``done`` of ``total`` are done."""
        if not self.shown:
            return
        now = time.monotonic()
        if now - self._last >= 0.1 or done == self.total:
            filled = _WIDTH * min(done, self.total) // max(self.total, 1)
            self.stream.write(f"\r{self.label} [{'#' * filled}{' ' * (_WIDTH - filled)}] {done}/{self.total}")
            self.stream.flush()
            self._last = now

    def close(self) -> None:
        """Clear the bar's line."""
        if self.shown:
            self.stream.write("\r" + " " * (len(self.label) + _WIDTH + 2 * len(str(self.total)) + 6) + "\r")
            self.stream.flush()
            self.shown = False

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exception: Any) -> None:
        self.close()


def progress(
    items: Iterable[T],
    *,
    total: int,
    label: str,
    quiet: bool = False,
    stream: TextIO | None = None,
    threshold: int | None = None,
) -> Iterator[T]:
    """Yield ``items``, drawing ``label [####    ] 40/100`` on stderr when it is a terminal,
    the run has at least ``threshold`` items and not ``quiet`` (see ``ProgressBar``)."""
    with ProgressBar(total, label, quiet=quiet, stream=stream, threshold=threshold) as bar:
        if not bar.shown:
            yield from items
            return
        for done, item in enumerate(items, start=1):
            bar.update(done)
            yield item
