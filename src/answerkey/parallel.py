"""Mapping a pure function over many items in several processes, results in input order.

Workers never outlive the process that started them: killed with ``kill -9`` mid-run, it
leaves no worker running (see ``exit_with_parent``). A worker that dies (``kill -9``, the
out-of-memory killer, a crash) costs no result: the items it had not returned run again once
in fresh workers, and a second death is a ``WorkerDied`` error saying which process died,
how, and which items were left.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


_shared: object = None


class WorkerDied(RuntimeError):
    """A worker process of ``ordered_map`` died twice running the same items: the message
    says which process, how it ended and which items were left."""


def shared() -> object:
    """The ``shared`` value of the ``ordered_map`` running now (in a worker, or in this
    process when it maps by itself)."""
    return _shared


def _set_shared(value: object) -> None:
    global _shared  # noqa: PLW0603 (one value per process, read by shared())
    _shared = value


_PR_SET_PDEATHSIG = 1
# Off Linux, how often a worker looks whether its parent is still there.
PARENT_CHECK_SECONDS = 1.0


def _parent_death_signal(signum: int) -> bool:
    """Ask Linux to send ``signum`` to this process when its parent dies; False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # only workers need it: about 1.5 ms of every command's start otherwise

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(
            libc.prctl(
                ctypes.c_int(_PR_SET_PDEATHSIG),
                ctypes.c_ulong(signum),
                ctypes.c_ulong(0),
                ctypes.c_ulong(0),
                ctypes.c_ulong(0),
            )
            == 0
        )
    except (OSError, AttributeError):
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: not ours any more
        return False
    return True


def exit_with_parent(owner: int, *, child_of_owner: bool = True) -> None:
    """End this process (a worker) when its parent dies, so that a killed run leaves no
    worker behind. ``owner`` is the pid of the process that asked for the workers;
    ``child_of_owner`` is False when a fork server started this one (its parent then is
    the fork server, which exits when the owner dies).

    On Linux the parent-death signal is set (``prctl(PR_SET_PDEATHSIG, SIGKILL)``). It fires
    when the *thread* that forked this process ends, not the process: ``ordered_map`` starts
    its workers from the thread that iterates it (``ProcessPoolExecutor`` forks them in
    ``submit``, called by ``map`` in the caller's thread; a fork server forks from its only
    thread), which outlives the pool. If the parent died before the signal was set, this
    process exits at once. Elsewhere a daemon thread checks the parent every
    ``PARENT_CHECK_SECONDS`` and ends the process when it has changed. A fork server's
    worker also checks the owner itself that often: the fork server waits for every holder
    of its "owner alive" pipe to close it, and its workers hold a copy, so it may never see
    the owner go (seen once, in a full test run under load).
    """
    signalled = _parent_death_signal(signal.SIGKILL)
    # The signal comes only for a parent that dies from now on: one that is already gone is
    # seen here (an orphan's parent pid is that of whoever adopted it).
    if not (os.getppid() == owner if child_of_owner else _alive(owner)):
        os._exit(1)
    if signalled and child_of_owner:
        return
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK_SECONDS)
            if os.getppid() != parent or not (child_of_owner or _alive(owner)):
                os._exit(1)

    threading.Thread(target=watch, name="answerkey-parent-watch", daemon=True).start()


def _start_worker(value: object, owner: int, child_of_owner: bool) -> None:
    """A worker's initializer: exit with the owner, then take the shared value."""
    exit_with_parent(owner, child_of_owner=child_of_owner)
    _set_shared(value)


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
    each, and it never travels with the items. Workers end with this process, also when it
    is killed (see ``exit_with_parent``).

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
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # About 32 chunks per worker: small enough that no worker idles long at the end.
    chunk = chunk or max(1, min(64, len(items) // (jobs * 32)))
    done = 0
    for attempt in (1, 2):
        method = _start_method()
        # Workers are started by this thread (see exit_with_parent), or by the fork server.
        with ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=multiprocessing.get_context(method),
            initializer=_start_worker,
            initargs=(shared, os.getpid(), method != "forkserver"),
        ) as pool:
            workers: dict[int, Any] = {}
            try:
                results = pool.map(function, items[done:], chunksize=chunk)  # breaks here if a worker died already
                # The workers map started, kept here: once one dies the pool drops it from its table.
                workers = dict(getattr(pool, "_processes", None) or {})
                for result in results:
                    done += 1
                    yield result
                return
            except BrokenProcessPool:
                if attempt == 2:
                    how = _how_a_worker_died(workers or dict(getattr(pool, "_processes", None) or {}))
                    raise WorkerDied(
                        f"a worker process {how} while running items {done + 1}-{len(items)}"
                        f" of {len(items)}, and again when they ran in fresh workers"
                    ) from None


def _how_a_worker_died(processes: dict[int, Any]) -> str:
    """How one of a broken pool's workers (pid -> process) ended (``(pid 12) was killed by
    SIGKILL``), or ``died`` when that cannot be told: the pool sends the others SIGTERM once
    one has died (never named: it is the pool's own), the others may end with status 255, and it
    sometimes reaps the dead one first."""
    for process in processes.values():
        process.join(1.0)  # reaped, so that its exit code is known
    codes = [
        (pid, process.exitcode)
        for pid, process in processes.items()
        if process.exitcode not in (None, 0, -signal.SIGTERM)
    ]
    if not codes:
        return "died"
    # A signal first; status 255 last: a worker whose queue broke when another died ends so.
    pid, code = min(codes, key=lambda pid_code: (pid_code[1] >= 0, pid_code[1] == 255))
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (out of memory?)" if -code == signal.SIGKILL else ""
        return f"(pid {pid}) was killed by {name}{hint}"
    return f"(pid {pid}) exited with status {code}"


# Threads whose module makes a forked child start afresh (os.register_at_fork): they hold no
# lock a child could inherit, so they do not stop ordered_map from forking.
_FORK_SAFE: weakref.WeakSet[threading.Thread] = weakref.WeakSet()


def mark_fork_safe(thread: threading.Thread) -> None:
    """Let ``ordered_map`` fork while ``thread`` runs: for a thread whose module replaces it
    and its locks in a forked child (``os.register_at_fork``), such as the SQL adapter's alarms."""
    _FORK_SAFE.add(thread)


def _start_method() -> str:
    """fork when this process runs a single thread: workers start with every module already
    imported (a spawned worker spends ~0.3 s importing answerkey). With other threads alive,
    forking could copy a held lock, so use the forkserver (or spawn where there is none)."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    current = threading.current_thread()
    others = [thread for thread in threading.enumerate() if thread is not current and thread not in _FORK_SAFE]
    if "fork" in methods and not others:
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
