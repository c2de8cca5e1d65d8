"""The helper processes that run SQLite queries, and their pipe protocol (``answerkey.adapters.sql``).

A thread running queries takes an idle helper or starts one and sends it the queries in one
message (one query, or a batch: ``run_each``); the helper reads them one after the other
(``answerkey.adapters._sqlite_read``), sending the rows of each back in chunks and its reply
as soon as it has them, so that this process takes in one result while the helper reads the
next; it is killed when it is stuck past a deadline inside one SQLite function call. A request
may ask the helper to read its query's outer ORDER BY too (``OrderedRequest``), which the
helper does once the query has run and sends with its reply.
"""

from __future__ import annotations

import atexit
import contextlib
import marshal
import math
import os
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
from answerkey.adapters._sql_alarms import arm_alarm, disarm_alarm
from answerkey.adapters._sql_checks import past_time_limit
from answerkey.adapters._sqlite_read import (
    EXIT_TIMEOUT,
    KILL_GRACE,
    Chunk,
    OrderedRequest,
    OrderRead,
    ReadOnlyConnections,
    Reply,
    Request,
    execute_request,
    read_order,
)
from answerkey.adapters.sqltext import prepare_in_background
from answerkey.gc_pause import gc_paused

# A helper looks this often whether the process that started it is still there, and ends
# itself with this status when it is not.
_ORPHAN_POLL = 0.5
_EXIT_ORPHANED = 125
# A helper that has not started within this many seconds is killed (and queries run here).
_START_WAIT = 30.0
# What this process waits for a reply, past the query's time limit and KILL_GRACE, when the
# helper reads the query's outer ORDER BY too: sqlglot reads the longest text it is given
# (MAX_PARSED_CHARS) in about a second; the helper's own end past the query's deadline
# (_sqlite_read) is untouched, as the reading comes after the query.
ORDER_READING_WAIT = 10.0
# The argument that makes a helper import sqlglot as it starts (serve_queries).
_READ_ORDERS = "read-orders"
# Idle helpers kept for reuse; the rest are ended when their query is answered.
_IDLE_PROCESSES = 4

# A helper sends the rows it reads in chunks of CHUNK_ROWS rows, each in a message of its own (a
# Chunk, a 2-tuple), before its reply (a 5-tuple: a Reply whose rows are the last chunk,
# or None, and the OrderRead): this process takes one
# chunk while the helper reads the next. Marshal's version 2 (no shared references) writes
# them faster, which is what the helper, the slower side, does.
_MARSHAL_VERSION = 2


class QueryProcess:
    """A helper process running queries (``serve_queries``), which can be killed when a
    query is stuck inside one SQLite function call."""

    def __init__(self, *, read_orders: bool = False) -> None:
        # The directory holding this package goes first on the helper's path, so that it
        # imports this same answerkey; -P keeps the current directory off that path.
        # ``read_orders``: it imports sqlglot as it starts (see serve_queries).
        source = str(Path(__file__).resolve().parents[2])
        boot = (
            "import sys; sys.path.insert(0, sys.argv.pop(1)); import answerkey.adapters.sql as s; "
            f"s.serve_queries(read_orders={_READ_ORDERS!r} in sys.argv)"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-c", boot, source, *([_READ_ORDERS] if read_orders else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        if self.process.stdin is None or self.process.stdout is None:  # never: both are pipes
            raise OSError("the query process has no pipes")
        self.requests: IO[bytes] = self.process.stdin
        self.replies: IO[bytes] = self.process.stdout
        _widen(self.replies)
        self.killed = False
        # Whether its ready message has come: the process starts while this one goes on.
        self.ready = False

    def wait_ready(self) -> None:
        """Wait for the process's ready message (at once if it has come); a process that does
        not send it within ``_START_WAIT`` seconds is killed. ``OSError`` if it did not start."""
        if self.ready:
            return
        alarm = arm_alarm(time.monotonic() + _START_WAIT, self.kill)
        try:
            ready = _receive(self.replies)
        except (OSError, ValueError):
            ready = None
        finally:
            disarm_alarm(alarm)
        if ready != b"":
            self.end()
            raise OSError("the query process did not start")
        self.ready = True

    def kill(self) -> None:
        """Kill the process now (from the alarm thread, past a deadline)."""
        self.killed = True
        with contextlib.suppress(OSError):
            self.process.kill()

    def ask(
        self, request: bytes, wait: float, receive: Callable[[Chunk | None], object]
    ) -> tuple[Reply, OrderRead] | None:
        """The reply to ``request`` (one request, marshalled in a list) and the outer ORDER BY
        the helper read with it, its chunks of rows given to ``receive`` as they come; None if
        the process ended (or was killed after waiting ``wait`` seconds in all for its
        messages: the time ``receive`` takes is not counted) before replying.
        ``BrokenPipeError`` if it had ended before."""
        self.send(request)
        return self.reply(wait, receive)

    def send(self, requests: bytes) -> None:
        """Send requests (a marshalled list); the helper answers them one after the other.
        ``BrokenPipeError`` if it has ended."""
        try:
            _send(self.requests, requests)
        except (OSError, ValueError) as error:
            raise BrokenPipeError("the query process has ended") from error

    def reply(self, wait: float, receive: Callable[[Chunk | None], object]) -> tuple[Reply, OrderRead] | None:
        """The reply to the next request sent and not yet answered, as ``ask`` gives it."""
        while True:
            began = time.monotonic()
            alarm = arm_alarm(began + wait, self.kill) if math.isfinite(wait) else None
            try:
                body = _receive(self.replies)
            except (OSError, ValueError):
                body = None
            finally:
                if alarm is not None:
                    disarm_alarm(alarm)
            wait -= time.monotonic() - began
            if body is None:
                return None
            message = marshal.loads(body)
            if message is not None and len(message) == 5:
                columns, last, error, seconds, order = message
                if last is not None:  # the last rows travel in the reply itself
                    receive(last)
                return (columns, [], error, seconds), order
            receive(message)

    def end(self) -> int:
        """Wait for the process to end (it ends when its requests pipe closes): its exit status.
        One not yet ready was never asked anything: it is killed rather than waited for."""
        if not self.ready:
            self.kill()
        for pipe in (self.requests, self.replies):
            with contextlib.suppress(OSError):
                pipe.close()
        try:
            return self.process.wait(timeout=KILL_GRACE)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.process.wait()


class QueryProcesses:
    """The idle helper processes of this process; a thread running a query takes one."""

    def __init__(self) -> None:
        self._idle: list[QueryProcess] = []
        self._lock = threading.Lock()
        self._unavailable = bool(getattr(sys, "frozen", False)) or not sys.executable

    def run(self, request: Request, receive: Callable[[Chunk | None], object]) -> Reply | None:
        """The reply of a helper to ``request`` (without rows: its chunks of rows are given
        to ``receive`` as they come), or None if no helper can run."""
        received = 0

        def counted(chunk: Chunk | None) -> None:
            nonlocal received
            received += 1
            receive(chunk)

        for attempt in range(2):
            process = self._take()
            if process is None:
                return None
            try:
                answer = process.ask(marshal.dumps([request]), request[2] + KILL_GRACE, counted)
            except BrokenPipeError:
                process.end()  # it had ended while idle (killed from outside): start another
                continue
            except BaseException:
                process.kill()
                process.end()
                raise
            if answer is None:
                failed = self._failed(process, request, first=attempt == 0 and not received)
                if failed is None:
                    continue
                return failed
            self._give_back(process)
            return answer[0]
        return None

    def run_each(
        self, requests: list[Request | OrderedRequest], receive: Callable[[Chunk | None], object]
    ) -> Generator[tuple[Reply, OrderRead] | None, None, None]:
        """The replies to ``requests``, in order, each with the outer ORDER BY the helper read
        for it (None where not asked for, or not read), each once the one before has been taken
        (its chunks of rows given to ``receive`` as they come, None to drop those given so far:
        the query is read again): every request is sent to one helper at once, which answers them one
        after the other while this process takes in the replies. A reply is None where no
        helper can run (the caller runs that query itself). A helper that ends inside a query
        (past its time limit, killed) is that query's error; the requests after it go to
        another helper. Closing the iterator early ends the helper if it is still answering."""
        position = 0
        retried = -1  # the request last sent again to another helper after one was killed idle
        received = False

        def counted(chunk: Chunk | None) -> None:
            nonlocal received
            received = True
            receive(chunk)

        while position < len(requests):
            process = self._take()
            if process is None:
                yield None
                position += 1
                continue
            sent = position
            try:
                process.send(marshal.dumps(requests[position:], _MARSHAL_VERSION))
            except BrokenPipeError:
                process.end()  # it had ended while idle (killed from outside): start another
                continue
            answering = True  # until the helper is given back or has ended
            try:
                while position < len(requests):
                    request = requests[position]
                    received = False
                    wait = request[2] + KILL_GRACE + (ORDER_READING_WAIT if len(request) > 6 else 0.0)
                    reply = process.reply(wait, counted)
                    if reply is None:
                        answering = False
                        first = position == sent and not received and retried != position
                        failed = self._failed(process, request, first=first)
                        if failed is None:
                            retried = position
                        else:
                            position += 1
                            yield failed, None
                        break  # the requests left go to another helper
                    position += 1
                    if position == len(requests):  # given back before the last reply is taken
                        answering = False
                        self._give_back(process)
                    yield reply
            finally:
                if answering:
                    process.kill()  # closed early, or raised: the helper may be inside a query
                    process.end()

    def _failed(self, process: QueryProcess, request: Request | OrderedRequest, *, first: bool) -> Reply | None:
        """The reply of a query whose helper ended before answering it; None when it never
        saw the query (killed from outside while idle: try another)."""
        status = process.end()
        if process.killed or status == EXIT_TIMEOUT:
            return (), [], past_time_limit(request[2]), None
        if first and status == -signal.SIGKILL:
            # Killed from outside while idle, before it saw the request: the pipe took
            # the request all the same, so no BrokenPipeError said so. Start another.
            return None
        how = f"signal {-status}" if status < 0 else f"exit status {status}"
        return (), [], f"the process running the query ended unexpectedly ({how})", None

    def start(self, *, read_orders: bool = False) -> None:
        """Start a helper now and keep it idle, without waiting for it: it starts while this
        process does other work, and the first query waits for it (``read_orders``: it
        imports sqlglot meanwhile, see ``serve_queries``). Nothing when a helper is idle
        already or none can run."""
        with self._lock:
            if self._idle or self._unavailable:
                return
            try:
                self._idle.append(QueryProcess(read_orders=read_orders))
            except (OSError, ValueError, subprocess.SubprocessError):
                self._unavailable = True

    def _take(self) -> QueryProcess | None:
        with self._lock:
            process = None
            while self._idle:
                process = self._idle.pop()
                if process.process.poll() is None:
                    break
                process.end()  # it ended while idle (killed from outside, or it did not start)
                process = None
            if process is None and self._unavailable:
                return None
        try:
            if process is None:
                process = QueryProcess()
            process.wait_ready()
        except (OSError, ValueError, subprocess.SubprocessError):
            self._unavailable = True
            return None
        return process

    def _give_back(self, process: QueryProcess) -> None:
        with self._lock:
            if len(self._idle) < _IDLE_PROCESSES:
                self._idle.append(process)
                return
        process.end()

    def stop(self) -> None:
        """End the idle helpers."""
        with self._lock:
            idle, self._idle = self._idle, []
        for process in idle:
            process.end()

    def forget(self) -> None:
        """In a forked child: close the pipes to the parent's helpers, leave them to the parent."""
        for process in self._idle:
            for pipe in (process.requests, process.replies):
                with contextlib.suppress(OSError):
                    pipe.close()


# A pipe that holds a whole chunk of rows (about 0.5 MB for 10,000 rows of five values) lets
# a helper go on reading while this process takes the chunk in, rather than wait for it.
_PIPE_BYTES = 1 << 20


def _widen(pipe: IO[bytes]) -> None:
    """Make ``pipe`` hold ``_PIPE_BYTES`` where the system allows it (Linux); else leave it."""
    setting = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if setting is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe.fileno(), setting, _PIPE_BYTES)


def _send(stream: IO[bytes], body: bytes) -> None:
    stream.write(struct.pack("<Q", len(body)))
    stream.write(body)
    stream.flush()


def _receive(stream: IO[bytes]) -> bytes | None:
    header = stream.read(8)
    if len(header) < 8:
        return None
    (size,) = struct.unpack("<Q", header)
    body = stream.read(size)
    return body if len(body) == size else None


def serve_queries(*, read_orders: bool = False) -> None:
    """The main loop of a helper process: answer the query requests on stdin, one at a time,
    on stdout, until stdin ends. Started by this module (``python -c``); not for other use.
    ``read_orders``: it will be asked to read queries' outer ORDER BY (``OrderedRequest``),
    so it imports sqlglot in a thread of its own once it is ready, while it waits for its
    first queries and as they run (a reading before the import is done waits for it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_end_when_orphaned, args=(os.getppid(),), name="answerkey-orphan-watch", daemon=True
    ).start()
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the replies
    try:
        _send(replies, b"")
        if read_orders:
            prepare_in_background()
        connections = ReadOnlyConnections(isolated=True)  # kept from one message to the next
        while (message := _receive(requests)) is not None:
            _answer_requests(marshal.loads(message), lambda body: _send(replies, body), connections)
    except BrokenPipeError:
        pass  # the process that started this one has ended
    # Every reply has been flushed and nothing is left to write: ending at once spares the
    # owner, which waits for its helpers as it ends, the interpreter's teardown (tens of ms).
    os._exit(0)


def _answer_requests(
    requests: list[Request | OrderedRequest], send: Callable[[bytes], object], connections: ReadOnlyConnections
) -> None:
    """In a helper: run ``requests`` one after the other, each reply ``send``t as soon as it is
    made (its rows in chunks before it, the last of them inside it, and the query's outer
    ORDER BY when the request asks for it and the query ran), on the ``connections`` kept
    open (``ReadOnlyConnections``)."""
    connections.new_message()
    for request in requests:
        # A query's rows are acyclic and freed as they are sent: the cyclic collector
        # would walk the chunk being read again and again (a third of the time).
        with gc_paused():
            columns, rows, error, seconds = execute_request(
                request[:6], isolated=True, send=lambda rows: send(_message(rows)), connections=connections
            )
        last = chunk_of(rows) if rows else None
        # Read once the query's clock has stopped: neither its time limit nor its seconds.
        order = read_order(request[1], columns, request[6]) if len(request) > 6 and error is None else None
        send(marshal.dumps((columns, last, error, seconds, order), _MARSHAL_VERSION))


def _end_when_orphaned(parent: int) -> None:
    """In a helper: end it once the process that started it has ended (killed, say, where it
    could not close the requests pipe), even inside a query without a time limit."""
    while os.getppid() == parent:
        time.sleep(_ORPHAN_POLL)
    os._exit(_EXIT_ORPHANED)


def _message(rows: list[tuple[object, ...]] | None) -> bytes:
    """What a helper sends for rows given to its sink: their chunk, or None (drop them all)."""
    return marshal.dumps(None if rows is None else chunk_of(rows), _MARSHAL_VERSION)


def chunk_of(rows: list[tuple[object, ...]]) -> Chunk:
    """Rows as a helper sends them."""
    return list(zip(*rows)), len(rows)


def start_query_process(*, read_orders: bool = True) -> None:
    """Start a helper process for the queries to come, without waiting for it to be ready
    (``QueryProcesses.start``): its start overlaps what this process does before its first
    query. ``read_orders`` (``answerkey sql``'s case): it imports sqlglot meanwhile, for the
    golds' outer ORDER BY it will be asked to read."""
    STATE.processes.start(read_orders=read_orders)


def stop_query_processes() -> None:
    """End this process's idle helper processes (the next query starts one again). Called
    at exit; useful before measuring, or before forking many workers."""
    STATE.processes.stop()


class _ProcessState:
    """This process's helper processes: a forked child starts its own."""

    def __init__(self) -> None:
        self.processes = QueryProcesses()
        # The parent's helpers, seen from a forked child: kept, so that their Popen objects
        # are never collected (and warned about) here.
        self.inherited: list[QueryProcesses] = []

    def after_fork_in_child(self) -> None:
        self.processes.forget()
        self.inherited.append(self.processes)
        self.processes = QueryProcesses()


STATE = _ProcessState()
if hasattr(os, "register_at_fork"):  # not on Windows, which cannot fork
    os.register_at_fork(after_in_child=STATE.after_fork_in_child)
atexit.register(stop_query_processes)
