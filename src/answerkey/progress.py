"""Progress on standard error, shown only to a person watching a long run: one display for
every command.

``progress(items, ...)`` wraps an iterable; ``ProgressBar`` is told how far a run has got, for
work that reports back through a callback (the fuzzers). Both draw
``label [########                      ] 40/150  12.5/s  0:03 elapsed, ETA 0:09``.
``Activity`` is for a step that cannot count (reading a large corpus): from a second on, it
draws ``label... 0:04 elapsed`` once a second until it stops or a bar starts. Nothing is drawn
unless standard error is a terminal, and never with ``quiet``.

>>> list(progress([1, 2], total=2, label="nothing drawn: not a terminal"))
[1, 2]
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

T = TypeVar("T")

# Runs shorter than this many items finish before a bar would help.
PROGRESS_THRESHOLD = 200
_WIDTH = 30
# A bar is redrawn at most this often (seconds): drawing costs more than a fast item.
_REDRAW = 0.1
# An activity is drawn after this many seconds (a quick step shows nothing), then this often.
ACTIVITY_DELAY = 1.0
ACTIVITY_INTERVAL = 1.0


def clock_time(seconds: float) -> str:
    """``seconds`` as a clock shows a duration: ``m:ss``, or ``h:mm:ss`` from an hour on.

    >>> clock_time(4.7), clock_time(75), clock_time(3725)
    ('0:04', '1:15', '1:02:05')
    """
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _rate(per_second: float) -> str:
    return f"{per_second:.1f}/s" if per_second < 10 else f"{per_second:,.0f}/s"


def _is_terminal(stream: TextIO) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


class _Line:
    """One line of standard error that is redrawn in place and cleared at the end."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.length = 0

    def draw(self, text: str) -> None:
        self.stream.write("\r" + text + " " * max(self.length - len(text), 0))
        self.stream.flush()
        self.length = len(text)

    def clear(self) -> None:
        if self.length:
            self.stream.write("\r" + " " * self.length + "\r")
            self.stream.flush()
            self.length = 0


class Activity:
    """``label... 0:04 elapsed`` on ``stream`` (standard error), redrawn every ``interval``
    seconds from ``delay`` seconds on, by a thread, while a step that cannot count its items
    runs (``ACTIVITY_DELAY`` and ``ACTIVITY_INTERVAL`` unless given); drawn only on a terminal and
    not ``quiet``. ``stop()`` (or the end of a ``with``
    block, or a ``ProgressBar`` starting) clears it.

    >>> with Activity("reading corpus.yaml") as activity:  # not a terminal here: nothing is drawn
    ...     pass
    >>> activity.shown
    False
    """

    def __init__(
        self,
        label: str,
        *,
        quiet: bool = False,
        stream: TextIO | None = None,
        delay: float | None = None,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.shown = not quiet and _is_terminal(stream or sys.stderr)
        self._line = _Line(stream or sys.stderr)
        self._delay = ACTIVITY_DELAY if delay is None else delay
        self._interval = ACTIVITY_INTERVAL if interval is None else interval
        self._clock = clock
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Activity:
        """Start drawing (after ``delay``), and become the activity a bar or ``stop_activity`` stops."""
        if self.shown and self._thread is None:
            stop_activity()
            _current.append(self)
            self._thread = threading.Thread(target=self._run, name="answerkey-activity", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        began = self._clock()
        if self._stopped.wait(self._delay):
            return
        while not self._stopped.is_set():
            with _drawing:
                if self._stopped.is_set():
                    break
                self._line.draw(f"{self.label}... {clock_time(self._clock() - began)} elapsed")
            self._stopped.wait(self._interval)

    def stop(self) -> None:
        """Stop drawing and clear the line (at once; a stopped activity stays stopped)."""
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with _drawing:
            self._line.clear()
        if self in _current:
            _current.remove(self)

    def __enter__(self) -> Activity:
        return self.start()

    def __exit__(self, *exception: Any) -> None:
        self.stop()


# The activity being drawn, which a bar replaces; the lock keeps its thread's line whole.
_current: list[Activity] = []
_drawing = threading.Lock()


def stop_activity() -> None:
    """Stop the ``Activity`` being drawn, if any (a bar, or the end of a command, replaces it)."""
    for activity in list(_current):
        activity.stop()


class ProgressBar:
    """``label [####    ] 40/100  12.5/s  0:03 elapsed, ETA 0:05`` on ``stream`` (standard
    error), drawn only when it is a terminal, ``total`` is at least ``threshold``
    (``PROGRESS_THRESHOLD`` unless a run's items are slow, such as calls to a remote model) and
    not ``quiet``; drawn at once (``0/100``), redrawn at most ten times a second, and cleared
    by ``close()`` (or at the end of a ``with`` block). It replaces an ``Activity``.

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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.label = label
        self.stream = stream or sys.stderr
        self.shown = (
            not quiet
            and total >= (PROGRESS_THRESHOLD if threshold is None else threshold)
            and _is_terminal(self.stream)
        )
        self._clock = clock
        self._line = _Line(self.stream)
        self._began = clock()
        self._last = -_REDRAW
        # The run has begun: whatever the inputs' reading showed is over, bar or no bar.
        stop_activity()
        if self.shown:
            self.update(0)

    def text(self, done: int, elapsed: float) -> str:
        """The line drawn when ``done`` items are done after ``elapsed`` seconds.

        >>> ProgressBar(100, "score").text(40, 8.0)
        'score [############                  ] 40/100  5.0/s  0:08 elapsed, ETA 0:12'
        >>> ProgressBar(100, "score").text(0, 0.0)
        'score [                              ] 0/100  0:00 elapsed'
        """
        filled = _WIDTH * min(done, self.total) // max(self.total, 1)
        line = f"{self.label} [{'#' * filled}{' ' * (_WIDTH - filled)}] {done}/{self.total}"
        if done <= 0 or elapsed <= 0:
            return f"{line}  {clock_time(elapsed)} elapsed"
        per_second = done / elapsed
        left = max(self.total - done, 0) / per_second
        return f"{line}  {_rate(per_second)}  {clock_time(elapsed)} elapsed, ETA {clock_time(left)}"

    def update(self, done: int) -> None:
        """Show that ``done`` of ``total`` are done."""
        if not self.shown:
            return
        now = self._clock()
        if now - self._last >= _REDRAW or done == self.total:
            self._line.draw(self.text(done, now - self._began))
            self._last = now

    def close(self) -> None:
        """Clear the bar's line."""
        if self.shown:
            self._line.clear()
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
    """Yield ``items``, drawing ``label [####    ] 40/100  12.5/s  0:03 elapsed, ETA 0:05`` on
    stderr when it is a terminal, the run has at least ``threshold`` items and not ``quiet``
    (see ``ProgressBar``)."""
    with ProgressBar(total, label, quiet=quiet, stream=stream, threshold=threshold) as bar:
        if not bar.shown:
            yield from items
            return
        for done, item in enumerate(items, start=1):
            bar.update(done)
            yield item
