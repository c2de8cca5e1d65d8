"""One alarm thread per process, which every engine's time limits share
(``answerkey.adapters.sql``): an action runs at its time unless disarmed first.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time
from collections.abc import Callable

from answerkey.parallel import mark_fork_safe


class Alarms:
    """One daemon thread that runs each armed action at its time, unless disarmed first.

    Actions run while the lock is held, so once ``disarm`` returns its action is not running
    and never will: they must be quick (interrupt a connection, kill or end a process).
    """

    def __init__(self) -> None:
        # Arming and disarming (once a query, or a reply) take the lock itself: the condition's
        # own methods are Python calls around it.
        self._lock = threading.Lock()
        self._condition = threading.Condition(self._lock)
        self._pending: dict[int, tuple[float, Callable[[], object]]] = {}
        self._keys = itertools.count()
        self._thread: threading.Thread | None = None
        # When the thread wakes next: an alarm due later needs no wake-up call.
        self._wake_at = math.inf

    def arm(self, when: float, action: Callable[[], object]) -> int:
        """Run ``action`` at ``when`` (``time.monotonic()``); the key to disarm it."""
        with self._lock:
            key = next(self._keys)
            self._pending[key] = (when, action)
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="answerkey-sql-alarms", daemon=True)
                self._thread.start()
                mark_fork_safe(self._thread)  # a forked child makes its own (_ProcessAlarms)
            elif when < self._wake_at:
                self._condition.notify()
        return key

    def disarm(self, key: int) -> None:
        """Cancel an alarm (nothing if it has gone off)."""
        with self._lock:
            self._pending.pop(key, None)

    def _watch(self) -> None:
        with self._condition:
            while True:
                now = time.monotonic()
                for key, (when, action) in list(self._pending.items()):
                    if when <= now:
                        del self._pending[key]
                        with contextlib.suppress(Exception):
                            action()
                self._wake_at = min((when for when, _ in self._pending.values()), default=math.inf)
                self._condition.wait(min(self._wake_at - now, 3600.0))


def arm_alarm(when: float, action: Callable[[], object]) -> int:
    """Run ``action`` at ``when`` (``time.monotonic()``) on this process's one alarm thread,
    unless disarmed first; the key to disarm it. The action must be quick (interrupt a
    connection, cancel a query): it runs while the alarms are locked, so once
    ``disarm_alarm`` returns it is not running and never will."""
    return _STATE.alarms.arm(when, action)


def disarm_alarm(key: int) -> None:
    """Cancel an alarm armed with ``arm_alarm`` (nothing if it has gone off)."""
    _STATE.alarms.disarm(key)


class _ProcessAlarms:
    """This process's alarm thread: a forked child makes its own."""

    def __init__(self) -> None:
        self.alarms = Alarms()

    def after_fork_in_child(self) -> None:
        self.alarms = Alarms()


_STATE = _ProcessAlarms()
if hasattr(os, "register_at_fork"):  # not on Windows, which cannot fork
    os.register_at_fork(after_in_child=_STATE.after_fork_in_child)
