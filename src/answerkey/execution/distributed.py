"""The SQL workflow's batches on a Dask distributed cluster (the optional extra ``answerkey[dask]``).

``DaskExecutor(address)`` is an ``answerkey.execution.run.Executor``: each per-database batch
is one Dask task running ``run_batch`` on some worker, and the outcomes come back in batch
order as the tasks finish (``in_order`` holds back those that finish early), so the report
is the one a local run writes. With no address it starts a ``LocalCluster`` of ``workers``
processes on this machine, and stops it at the end.

**What the workers need.** answerkey at this version with the extra (``pip install
'answerkey[dask]'``; checked before anything runs), the engine's package where it is
optional (duckdb, psycopg), and the databases: ``SqlOptions.location`` and ``cache`` are sent
as absolute paths (``for_workers``), so each worker must see the database directory at the
same path as this machine (a shared filesystem) or reach the PostgreSQL URL; a worker that
cannot is a ``ClusterError`` naming it, before any item is judged. Paths in reasons and
warnings are written back as the user typed them (``as_typed``).

**When things go wrong** (a ``ClusterError``, one line each): an address nothing answers at
or that is no Dask scheduler (within ``connect_timeout`` seconds), a cluster without workers
for that long, a worker that died running a batch as many times as the scheduler allows
(``distributed.scheduler.allowed-failures``), a lost scheduler. Stopping the stream early
(Ctrl-C included) cancels the tasks not yet done and closes the client and the cluster it
started.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, TypeVar

from answerkey.adapters.postgresql import is_postgresql_url
from answerkey.errors import RunWarning, plural
from answerkey.execution.run import Batch, ItemOutcome, SqlOptions, run_batch
from answerkey.limits import DASK_CONNECT_TIMEOUT
from answerkey.version import __version__

T = TypeVar("T")

CONNECT_TIMEOUT = DASK_CONNECT_TIMEOUT
INSTALL_HINT = "pip install 'answerkey[dask]'"
# Seconds between looks at the cluster while no batch finishes (to notice it has lost every worker).
_POLL_SECONDS = 1.0
# Seconds to close the client and a cluster we started: closing must not hang a run that failed.
_CLOSE_SECONDS = 10.0


class ClusterError(Exception):
    """The cluster cannot run the work (unreachable, no workers, a worker that cannot see the
    databases or died, dask not installed): the message says what, in one line."""


def require_dask() -> ModuleType:
    """The ``distributed`` package, or a ``ClusterError`` saying how to install it."""
    try:
        import distributed
    except ImportError as error:
        raise ClusterError(f"running on a Dask cluster needs the optional extra: {INSTALL_HINT} ({error})") from None
    return distributed


def for_workers(options: SqlOptions) -> SqlOptions:
    """``options`` with the database directory and the cache as absolute paths, the same on
    every worker (a worker's working directory is not this process's); a URL is kept.

    >>> import os
    >>> remote = for_workers(SqlOptions("dbs", cache="cache"))
    >>> remote.location == os.path.abspath("dbs"), remote.cache == os.path.abspath("cache")
    (True, True)
    >>> for_workers(SqlOptions("postgresql://eval@db.example/")).location
    'postgresql://eval@db.example/'
    """
    location = options.location if is_postgresql_url(options.location) else os.path.abspath(options.location)
    cache = None if options.cache is None else os.path.abspath(options.cache)
    return replace(options, location=location, cache=cache)


def as_typed(text: str, absolute: str, typed: str) -> str:
    """``text`` with the path ``absolute`` written back as ``typed`` (the same directory as
    the user named it), so a report from the cluster reads as one from this machine.

    >>> as_typed("no database 'x' (expected '/work/dbs/x/x.sqlite')", "/work/dbs", "dbs")
    "no database 'x' (expected 'dbs/x/x.sqlite')"
    >>> as_typed("no directory '/work/dbs'", "/work/dbs", "./dbs/")
    "no directory './dbs/'"
    """
    if absolute == typed:
        return text
    text = text.replace(os.path.join(absolute, ""), os.path.join(typed, ""))
    return text.replace(repr(absolute), repr(typed))


def in_order(finished: Iterable[tuple[int, T]]) -> Iterator[T]:
    """The values of ``(position, value)`` pairs in order of position (0, 1, 2, ...), each
    yielded as soon as every earlier one has come; ``RuntimeError`` if a position is missing.

    >>> list(in_order([(1, "b"), (2, "c"), (0, "a"), (3, "d")]))
    ['a', 'b', 'c', 'd']
    """
    early: dict[int, T] = {}
    following = 0
    for position, value in finished:
        early[position] = value
        while following in early:
            yield early.pop(following)
            following += 1
    if early:
        raise RuntimeError(f"no result for batch {following} (results came for later batches)")


@dataclass(frozen=True)
class _WorkerTrouble:
    """Why a worker cannot run batches (it cannot open the databases or the cache)."""

    worker: str
    message: str


# Locations (with the engine and cache) this worker process has checked: checked once each.
_usable: set[tuple[str, str | None, str | None]] = set()


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):  # not on a Dask worker (a test calling it directly)
        return "this process"


def _run_on_worker(batch: Batch, options: SqlOptions) -> list[ItemOutcome] | _WorkerTrouble:
    """``run_batch`` on a Dask worker, once the worker has shown it can open the databases
    and the cache (else ``_WorkerTrouble``: a problem of the cluster, not of the items)."""
    seen = (options.location, options.engine, options.cache)
    if seen not in _usable:
        try:
            options.open_engine().close()
        except ValueError as error:
            return _WorkerTrouble(_worker_address(), f"cannot open the databases: {error}")
        if options.cache is not None:
            try:
                os.makedirs(options.cache, exist_ok=True)
            except OSError as error:
                why = error.strerror or str(error)
                return _WorkerTrouble(_worker_address(), f"cannot create the cache directory {options.cache!r}: {why}")
        _usable.add(seen)
    return run_batch(batch, options)


async def _identity(address: str, timeout: float) -> dict[str, Any]:
    """What the server at ``address`` says it is (a Dask scheduler answers ``identity``)."""
    from distributed.comm import connect
    from distributed.security import Security

    comm = await connect(address, timeout=timeout, **Security().get_connection_args("client"))
    try:
        await comm.write({"op": "identity", "reply": True})
        answer = await comm.read()
    finally:
        comm.abort()
    return answer if isinstance(answer, dict) else {}


def _probe(address: str, timeout: float) -> None:
    """``ClusterError`` unless a Dask scheduler answers at ``address`` within ``timeout``
    seconds: before a ``Client`` is made, which would retry until its own time-out and
    leave a half-made client behind. The asking runs in a thread of its own, with its own
    event loop (the caller may be running one: a notebook)."""
    # Imported here, as Dask is: only a run on a cluster reaches a scheduler (about 2 ms of
    # `answerkey sql`'s start otherwise).
    import socket

    from distributed.comm import parse_address, parse_host_port

    try:
        scheme, where = parse_address(address)
    except ValueError as error:
        raise ClusterError(f"bad Dask scheduler address {address!r}: {error}") from None
    if scheme == "tcp":
        # A plain connection first: "connection refused" at once, not a time-out.
        try:
            host, port = parse_host_port(where)
            socket.create_connection((host, port), timeout=timeout).close()
        except ValueError as error:
            raise ClusterError(f"bad Dask scheduler address {address!r}: {error}") from None
        except OSError as error:
            why = error.strerror or str(error) or "no answer"
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {why}") from None
    # Imported here, as Dask is: a run without a cluster need not pay for them (asyncio, with
    # the ssl and socket modules it brings, was tens of milliseconds of `answerkey sql`'s start).
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    try:
        with ThreadPoolExecutor(1, thread_name_prefix="answerkey-dask-probe") as pool:
            identity = pool.submit(asyncio.run, asyncio.wait_for(_identity(address, timeout), timeout)).result()
    except TimeoutError:
        raise ClusterError(f"no Dask scheduler answered at {address} within {timeout:g} s") from None
    except MemoryError:
        # A server speaking another protocol: its first bytes read as a frame length in exabytes.
        raise ClusterError(f"no Dask scheduler answers at {address}: it does not speak Dask's protocol") from None
    except Exception as error:  # noqa: BLE001 (whatever fails here, there is no scheduler to run on)
        raise ClusterError(f"no Dask scheduler answers at {address}: {error or type(error).__name__}") from None
    kind = identity.get("type")
    if kind != "Scheduler":
        what = f"a Dask {str(kind).lower()}, not a scheduler" if kind else "not a Dask scheduler"
        raise ClusterError(f"{address} is {what}")


@dataclass(frozen=True)
class DaskExecutor:
    """Runs the batches on the Dask cluster whose scheduler is at ``address``
    (``tcp://host:8786``), or on a ``LocalCluster`` of ``workers`` processes it starts when
    ``address`` is None. ``connect_timeout`` bounds reaching the scheduler and waiting for
    a first worker.

    >>> DaskExecutor("tcp://scheduler.example:8786").address
    'tcp://scheduler.example:8786'
    >>> DaskExecutor(workers=0)
    Traceback (most recent call last):
      ...
    ValueError: a local Dask cluster has at least one worker
    """

    address: str | None = None
    workers: int = 1
    connect_timeout: float = CONNECT_TIMEOUT

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError("a local Dask cluster has at least one worker")
        if not self.connect_timeout > 0:
            raise ValueError("the connect time-out is a positive number of seconds")

    @property
    def where(self) -> str:
        """The cluster in words, for messages."""
        return f"the Dask cluster at {self.address}" if self.address else "the local Dask cluster"

    def map(self, batches: Sequence[Batch], options: SqlOptions) -> Iterator[list[ItemOutcome]]:
        """``run_batch(batch, options)`` for each batch on the cluster, yielded in batch order."""
        if not batches:
            return
        distributed = require_dask()
        remote = for_workers(options)
        with _quiet_logs():
            cluster, client = self._connect(distributed)
            futures: list[Any] = []
            try:
                self._check_workers(distributed, client)
                # Named for the dashboard; numbered so each run's keys are its own.
                run = uuid.uuid4().hex[:12]
                keys = [f"answerkey-sql-{run}-{number}" for number in range(len(batches))]
                futures = client.map(_run_on_worker, batches, options=remote, key=keys)
                finished = self._finished(distributed, client, futures, batches)
                for outcomes in in_order(finished):
                    yield [self._as_typed(outcome, remote, options) for outcome in outcomes]
            finally:
                # Also on Ctrl-C or a consumer that stops early: nothing keeps running for us.
                pending = [future for future in futures if future is not None and not future.done()]
                if pending:
                    # A lost scheduler cannot be told; closing the client is enough then.
                    with suppress(Exception):
                        client.cancel(pending)
                _close(client)
                if cluster is not None:
                    _close(cluster)

    def _connect(self, distributed: ModuleType) -> tuple[Any, Any]:
        """The cluster we started (None for one at an address) and a client of it."""
        if self.address is None:
            import logging  # as in _quiet_logs

            try:
                cluster = distributed.LocalCluster(
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                    silence_logs=logging.ERROR,
                )
            except (OSError, RuntimeError, TimeoutError) as error:
                raise ClusterError(f"cannot start a local Dask cluster: {error}") from None
            try:
                return cluster, distributed.Client(cluster, timeout=self.connect_timeout)
            except BaseException:
                _close(cluster)
                raise
        _probe(self.address, self.connect_timeout)
        try:
            return None, distributed.Client(self.address, timeout=self.connect_timeout)
        except (OSError, ValueError) as error:
            raise ClusterError(f"cannot connect to the Dask scheduler at {self.address}: {error}") from None

    def _check_workers(self, distributed: ModuleType, client: Any) -> None:
        """``ClusterError`` when the cluster has no worker, or one without this answerkey."""
        try:
            client.wait_for_workers(1, timeout=self.connect_timeout)
        except (TimeoutError, distributed.TimeoutError):
            raise ClusterError(f"{self.where} has no workers (waited {self.connect_timeout:g} s)") from None
        versions = client.get_versions(packages=["answerkey"])
        for worker, found in sorted(versions.get("workers", {}).items()):
            version = (found.get("packages") or {}).get("answerkey") if isinstance(found, dict) else None
            if version != __version__:
                has = "has no answerkey" if version is None else f"has answerkey {version}"
                raise ClusterError(
                    f"the Dask worker {worker} {has}; every worker needs answerkey {__version__} "
                    f"({INSTALL_HINT.replace(']', f']=={__version__}')})"
                )

    def _finished(
        self, distributed: ModuleType, client: Any, futures: list[Any], batches: Sequence[Batch]
    ) -> Iterator[tuple[int, list[ItemOutcome]]]:
        """``(position, outcomes)`` of each batch as its task finishes."""
        from distributed.scheduler import KilledWorker

        position = {future.key: number for number, future in enumerate(futures)}
        pending = set(futures)
        idle = 0.0
        while pending:
            try:
                done, pending = distributed.wait(pending, timeout=_POLL_SECONDS, return_when="FIRST_COMPLETED")
            except (TimeoutError, distributed.TimeoutError):
                # Nothing finished: fine while the cluster has workers, not forever without any.
                idle = idle + _POLL_SECONDS if not client.scheduler_info().get("workers") else 0.0
                if idle >= self.connect_timeout:
                    raise ClusterError(f"{self.where} has lost every worker (none for {idle:g} s)") from None
                continue
            idle = 0.0
            for future in done:
                number = position[future.key]
                batch = batches[number]
                what = f"the batch of {plural(len(batch.items), 'item')} of db_id {batch.db_id!r}"
                try:
                    outcomes = future.result()
                except KilledWorker as error:
                    raise ClusterError(
                        f"a Dask worker died running {what}, as often as the scheduler retries it "
                        f"({plural(error.allowed_failures + 1, 'time')}; the last was {error.last_worker.address})"
                    ) from None
                except distributed.CancelledError as error:
                    # A lost scheduler, or someone cancelling the run's tasks: Dask says which.
                    why = getattr(error, "reason", None) or "cancelled"
                    raise ClusterError(f"{self.where} dropped {what} ({why})") from None
                except (OSError, ImportError) as error:
                    raise ClusterError(f"a Dask worker could not run {what}: {error}") from None
                futures[number] = None
                if isinstance(outcomes, _WorkerTrouble):
                    raise ClusterError(
                        f"the Dask worker {outcomes.worker} {outcomes.message}; every worker must see the databases "
                        "at the same absolute path as this machine (a shared filesystem) or reach their URL"
                    )
                yield number, outcomes

    @staticmethod
    def _as_typed(outcome: ItemOutcome, remote: SqlOptions, options: SqlOptions) -> ItemOutcome:
        """``outcome`` with the workers' absolute paths written as the user typed them."""
        pairs = [(remote.location, options.location)]
        if remote.cache is not None and options.cache is not None:
            pairs.append((remote.cache, options.cache))
        pairs = [(absolute, typed) for absolute, typed in pairs if absolute != typed]
        if not pairs:
            return outcome

        def typed(text: str) -> str:
            for absolute, user in pairs:
                text = as_typed(text, absolute, user)
            return text

        return replace(
            outcome,
            reason=typed(outcome.reason),
            disagreement=None if outcome.disagreement is None else typed(outcome.disagreement),
            warnings=tuple(RunWarning(typed(warning.message), warning.kind) for warning in outcome.warnings),
        )


def _close(closable: Any) -> None:
    """Close a client or a cluster within ``_CLOSE_SECONDS``, whatever state it is in."""
    # A scheduler already gone leaves nothing to close.
    with suppress(Exception):
        closable.close(timeout=_CLOSE_SECONDS)


@contextmanager
def _quiet_logs() -> Iterator[None]:
    """Dask's loggers at ERROR for a while: their warnings about connections closed, workers
    restarted or retries are not the user's business (a ``ClusterError`` says what went wrong)."""
    # Imported here, as Dask is: a run without a cluster logs nothing (about 4 ms of
    # `answerkey sql`'s start otherwise).
    import logging

    loggers = [logging.getLogger(name) for name in ("distributed", "tornado")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)
