"""Running an untrusted command once: bounded in time and output, leaving no process behind.

``run_command(argv, text)`` is one call of a formatter under ``answerkey fuzz roundtrip``:
the text goes to its standard input, its output is collected up to a limit, it is killed
after a timeout, and whatever it started is killed and reaped when the call ends, also
processes that left its process group or session (see ``run_command`` for how, and where
that degrades).

>>> call = run_command(["cat"], "((1))")
>>> call.status, call.stdout, call.ended
(0, b'((1))', 'exited')
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from answerkey.limits import FUZZ_MAX_OUTPUT_BYTES, FUZZ_TIMEOUT

# --------------------------------------------------------------------------- what a command leaves behind

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37


@functools.cache
def _libc() -> Any:
    """The C library, where prctl may be called (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _prctl(option: int, argument: int | Any) -> bool:
    """Linux's ``prctl(option, argument)`` (an integer, or a ``ctypes.byref`` pointer); False
    where there is no prctl or it fails."""
    libc = _libc()
    if libc is None or not hasattr(libc, "prctl"):
        return False
    # prctl takes unsigned longs: a Python int would be passed as a 32-bit int, leaving the
    # upper half of the register undefined.
    value = ctypes.c_ulong(argument) if isinstance(argument, int) else argument
    zero = ctypes.c_ulong(0)
    return bool(libc.prctl(ctypes.c_int(option), value, zero, zero, zero) == 0)


class _Subreaper:
    """Makes this process a child subreaper while at least one command runs (Linux): a
    process whose parent dies is then re-parented to this process instead of to init, so
    nothing a command starts gets out of sight. The previous setting is restored after the
    last call; the commands running now are listed so that calls in several threads leave
    each other's commands alone."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: set[int] = set()
        self.calls = 0
        self.active = False
        self.was_subreaper = False

    def enter(self) -> None:
        with self.lock:
            self.calls += 1
            if self.calls == 1:
                previous = ctypes.c_int(0)
                self.was_subreaper = _prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(previous)) and bool(previous.value)
                self.active = self.was_subreaper or _prctl(_PR_SET_CHILD_SUBREAPER, 1)

    def exit(self) -> None:
        with self.lock:
            self.calls -= 1
            if self.calls == 0 and self.active and not self.was_subreaper:
                _prctl(_PR_SET_CHILD_SUBREAPER, 0)
                self.active = False


_SUBREAPER = _Subreaper()


def _stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, parent pid, session id, start time) of process ``pid`` from /proc, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:
        return None
    # The command name (field 2) may hold anything, ")" too: the other fields follow the last ")".
    fields = text[text.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1]), int(fields[3]), int(fields[19])


def _listed_children(pid: int) -> list[int] | None:
    """The children of ``pid`` from /proc/PID/task/*/children; None where the kernel does not
    list them (then the whole process table is read)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found.extend(map(int, handle.read().split()))
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{task}"):
                continue  # the thread ended
            return None
        except OSError:
            continue
    return found


class _ProcessTable:
    """Parent links of this system's processes, read from /proc as they are needed."""

    def __init__(self) -> None:
        self._children: dict[int, list[int]] | None = None
        self._sessions: dict[int, int] = {}

    def _read_all(self) -> dict[int, list[int]]:
        if self._children is None:
            self._children = {}
            for name in os.listdir("/proc"):
                if name.isdigit() and (info := _stat(int(name))) is not None:
                    self._children.setdefault(info[1], []).append(int(name))
                    self._sessions[int(name)] = info[2]
        return self._children

    def children(self, pid: int) -> list[int]:
        """The children of ``pid``."""
        if self._children is None:
            listed = _listed_children(pid)
            if listed is not None:
                return listed
        return self._read_all().get(pid, [])

    def session_members(self, session: int) -> list[int]:
        """The processes of ``session``."""
        self._read_all()
        return [pid for pid, sid in self._sessions.items() if sid == session]

    def descendants(self, roots: Sequence[int]) -> list[int]:
        """``roots`` and every process below them."""
        found, queue = [], list(roots)
        seen = set(queue)
        while queue:
            pid = queue.pop()
            found.append(pid)
            for child in self.children(pid):
                if child not in seen:
                    seen.add(child)
                    queue.append(child)
        return found


def _own_children() -> set[tuple[int, int]]:
    """(pid, start time) of this process's children now."""
    if not os.path.isdir("/proc"):
        return set()
    found = set()
    for pid in _ProcessTable().children(os.getpid()):
        info = _stat(pid)
        if info is not None:
            found.add((pid, info[3]))
    return found


def _kill_leftovers(command: subprocess.Popen[bytes], before: set[tuple[int, int]]) -> None:
    """Kill and reap whatever ``command`` left running, even processes that left its group
    or session, as far as this system lets us see them (see ``run_command``)."""
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        # The command leads its own session, so its group id is its pid: one call stops the
        # command and everything that stayed in its group (a fork loop included).
        os.killpg(command.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        command.wait(timeout=5)
    if not os.path.isdir("/proc"):
        return
    me, session = os.getpid(), os.getsid(0)
    deadline = time.monotonic() + 5
    while True:
        table = _ProcessTable()
        with _SUBREAPER.lock:
            others = _SUBREAPER.running - {command.pid}
            # Orphans re-parented to this process since the call started; never a child of
            # ours from before, another call's command, or a process in our own session
            # (nothing the command starts can enter it: it runs in a session of its own).
            orphans = []
            for pid in table.children(me):
                info = _stat(pid)
                if info is not None and pid not in others and (pid, info[3]) not in before and info[2] != session:
                    orphans.append(pid)
            # The command's pid only while it is not reaped: after that the number may be reused.
            roots = orphans + ([command.pid] if command.returncode is None else [])
            if not _SUBREAPER.active:
                # Without subreaping, an orphan goes to init: find those that only left the
                # group by the session they stayed in (its id is the command's pid, which
                # Linux does not reuse while the session has members).
                roots += table.session_members(command.pid)
            alive = []
            for pid in table.descendants(roots):
                info = _stat(pid)
                if pid != command.pid and info is not None and info[0] not in "ZX":
                    alive.append(pid)
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
        unreaped = False
        for pid in orphans:  # our children now: reap them, or they stay zombies until we exit
            with contextlib.suppress(ChildProcessError):
                unreaped |= os.waitpid(pid, os.WNOHANG)[0] == 0
        if (not alive and not unreaped) or time.monotonic() > deadline:
            return
        time.sleep(0.002)  # let the kernel re-parent the children of what was just killed


# --------------------------------------------------------------------------- one call of a command


@dataclass(frozen=True)
class Call:
    """One run of the command: what it was sent, what it printed, how it ended.

    ``status`` is the exit status, or None when it was killed (after the timeout, or for
    printing more than the output limit: then ``overflow`` is True); ``error`` is set when it
    could not be started at all. ``truncated`` is True when only the start of its output was
    kept (``answerkey.testing.fuzz.roundtrip`` keeps ``KEPT_OUTPUT_BYTES`` of each).
    """

    input: str
    stdout: bytes
    stderr: bytes
    status: int | None
    error: str | None = None
    overflow: bool = False
    truncated: bool = False

    @property
    def ended(self) -> str:
        """``exited``, ``timeout`` (killed after the time limit) or ``overflow`` (killed for
        printing too much)."""
        if self.overflow:
            return "overflow"
        return "timeout" if self.status is None else "exited"


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when process ``pid`` exits (Linux 5.3+), or None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _pipe_capacity(descriptor: int) -> int:
    """How many bytes the pipe ``descriptor`` can hold (Linux), else 1 MiB (more than pipes
    hold by default elsewhere)."""
    try:
        return int(fcntl.fcntl(descriptor, fcntl.F_GETPIPE_SZ))
    except (AttributeError, OSError):
        return 1 << 20


def _exchange(process: subprocess.Popen[bytes], data: bytes, deadline: float, limit: int) -> tuple[bytes, bytes, str]:
    """Write ``data`` to the process's stdin while reading its stdout and stderr, until it
    exits (``"done"``), the deadline passes (``"timeout"``) or either output passes ``limit``
    bytes (``"overflow"``). Unlike ``communicate`` it never holds more than ``limit`` bytes
    and does not wait for a leftover process that keeps the pipes open after the command exits."""
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    buffers = {process.stdout.fileno(): bytearray(), process.stderr.fileno(): bytearray()}
    stdin = process.stdin.fileno()
    selector = selectors.DefaultSelector()
    for descriptor in buffers:
        os.set_blocking(descriptor, False)
        selector.register(descriptor, selectors.EVENT_READ)
    reading = set(buffers)
    exit_signal = _pidfd(process.pid)
    if exit_signal is not None:
        selector.register(exit_signal, selectors.EVENT_READ)
    offset = 0
    if data:
        os.set_blocking(stdin, False)
        selector.register(stdin, selectors.EVENT_WRITE)
    else:
        process.stdin.close()

    def read(descriptor: int) -> str | None:
        """Read what is there; ``overflow`` past the limit."""
        try:
            chunk = os.read(descriptor, 65536)
        except BlockingIOError:
            return "again"
        if not chunk:
            selector.unregister(descriptor)
            reading.discard(descriptor)
            return "end"
        buffer = buffers[descriptor]
        buffer += chunk
        if len(buffer) > limit:
            del buffer[limit:]
            return "overflow"
        return None

    outcome = "done"
    try:
        while reading:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome = "timeout"
                break
            exited = False
            # Without a pidfd the exit is polled for, ten times a second.
            for key, _ in selector.select(remaining if exit_signal is not None else min(remaining, 0.1)):
                descriptor = key.fd
                if descriptor == exit_signal:
                    exited = True
                elif descriptor == stdin:
                    try:
                        offset += os.write(stdin, data[offset : offset + 65536])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # the command stopped reading: fine, it may answer anyway
                        offset = len(data)
                    if offset >= len(data):
                        selector.unregister(stdin)
                        process.stdin.close()
                elif read(descriptor) == "overflow":
                    outcome = "overflow"
            if outcome != "done":
                break
            if exited or (exit_signal is None and process.poll() is not None):
                # Everything the command wrote is in the pipes now (it cannot exit while
                # blocked writing): take it, and do not wait for whatever else holds them.
                for descriptor in list(reading):
                    start, capacity = len(buffers[descriptor]), _pipe_capacity(descriptor)
                    while (state := read(descriptor)) is None and len(buffers[descriptor]) - start < capacity:
                        pass
                    if state == "overflow":
                        outcome = "overflow"
                break
    finally:
        selector.close()
        if exit_signal is not None:
            os.close(exit_signal)
    return bytes(buffers[process.stdout.fileno()]), bytes(buffers[process.stderr.fileno()]), outcome


def run_command(
    argv: list[str], input_text: str, *, timeout: float = FUZZ_TIMEOUT, max_output: int = FUZZ_MAX_OUTPUT_BYTES
) -> Call:
    """Run ``argv`` with ``input_text`` on its standard input, in a new session.

    Its output is what it printed until it exited (a process it left behind holding the
    pipes is not waited for). After ``timeout`` seconds, or once it has printed more than
    ``max_output`` bytes, it is killed. When the call ends, everything the command started
    is killed and reaped, also processes that left its process group (``setpgid``) or
    session (``setsid``, a daemon's double fork): on Linux this process is a child
    subreaper while commands run (``prctl(PR_SET_CHILD_SUBREAPER)``), so orphans re-parent
    to it instead of to init, and every descendant found through /proc's parent links is
    killed. Where that is not available it degrades: if ``prctl`` is refused, the processes
    still in the command's session are found through /proc, and only one that starts a new
    session survives; without /proc (macOS, BSD) only the command's process group is killed.

    Calls may run in several threads at once. While a call runs, a process another thread
    starts in a new session of its own, and that is orphaned, may be taken for the
    command's and killed.

    Never raises for the command's behaviour; a command that cannot start gives ``error``.
    """
    _SUBREAPER.enter()
    try:
        with _SUBREAPER.lock:  # so that a cleanup in another thread never sees it unregistered
            before = _own_children()
            try:
                process = subprocess.Popen(
                    argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    start_new_session=True,
                )
            except OSError as error:
                return Call(input_text, b"", b"", None, f"cannot run {argv[0]!r}: {error.strerror or error}")
            _SUBREAPER.running.add(process.pid)
        deadline = time.monotonic() + timeout
        status: int | None = None
        stdout = stderr = b""
        outcome = "timeout"
        try:
            stdout, stderr, outcome = _exchange(
                process, input_text.encode("utf-8", "surrogatepass"), deadline, max_output
            )
            if outcome == "done":
                with contextlib.suppress(subprocess.TimeoutExpired):
                    status = process.wait(timeout=max(deadline - time.monotonic(), 0.001))
        finally:
            # Also on a timeout, an overflow, or KeyboardInterrupt.
            for stream in (process.stdin, process.stdout, process.stderr):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
            _kill_leftovers(process, before)
            with _SUBREAPER.lock:
                _SUBREAPER.running.discard(process.pid)
    finally:
        _SUBREAPER.exit()
    return Call(input_text, stdout, stderr, status, overflow=outcome == "overflow")
