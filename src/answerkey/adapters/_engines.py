"""What every SQL engine shares: the ``Database`` an engine runs queries on, the conversion of
the engine's Python values onto the model, and the pool of open connections.

Public through ``answerkey.adapters.engines``; the engine modules import it from here, below
the module that chooses among them.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
import os
import re
import stat
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import repeat
from operator import attrgetter
from typing import Any, Generic, TypeVar

from answerkey.adapters.sql import (
    CELL_BYTES,
    QueryResult,
    db_id_problem,
    inside_root,
    limits_problem,
    too_many_bytes,
    too_many_rows,
)
from answerkey.model import NIL, Boolean, Date, Number, String, Value, value_of


@dataclass(frozen=True)
class Database:
    """One database an engine runs queries on (picklable: it is sent to worker processes).

    ``engine`` is ``"sqlite"``, ``"duckdb"`` or ``"postgresql"``; ``db_id`` the benchmark's
    name for it; ``name`` what messages and reports call it (the file name inside the
    db_id's directory, or the PostgreSQL database name); ``location`` what connecting needs
    (the real path of the file, or a connection URL that never holds a password: the engine
    keeps that).

    >>> Database("sqlite", "shop", "shop.sqlite", "/data/shop/shop.sqlite").label
    "'shop'"
    >>> Database("sqlite", "shop", "shop2.sqlite", "/data/shop/shop2.sqlite").label
    "'shop' (shop2.sqlite)"
    """

    engine: str
    db_id: str
    name: str
    location: str

    @property
    def label(self) -> str:
        """How messages name the database: its db_id, and the file when a db_id has several."""
        if self.name in (self.db_id, f"{self.db_id}.sqlite", f"{self.db_id}.duckdb"):
            return repr(self.db_id)
        return f"{self.db_id!r} ({self.name})"


class NoDatabase(ValueError):
    """A db_id that names no database of an engine; the message says why (malformed, absent,
    outside the root) in the words a report shows."""


def engine_value(obj: object) -> Value:
    """The typed value of one value an engine's Python driver gives.

    Integers, text, booleans, dates and NULL as ``model.value_of`` maps them; a float as a
    real (NaN is nil, an infinity the string ``Inf`` or ``-Inf``, as the SQLite adapter
    writes them); an exact ``Decimal`` as an exact real with the engine's digits (NaN nil,
    infinities ``Inf``/``-Inf``); date-times and times through ``value_of`` (a time it does
    not take is its ISO text); bytes as the ``X'..'`` literal; a duration as ISO 8601 text
    (``interval_text``); a UUID as its text; anything else (lists, mappings) as JSON text.

    >>> engine_value(Decimal("12.50")), engine_value(float("inf")), engine_value(b"\\x00\\xff")
    (Number(value=Decimal('12.50'), is_real=True, text='12.50'), String(text='Inf'), String(text="X'00FF'"))
    >>> engine_value(_dt.timedelta(days=1, hours=2)), engine_value([1, None, "a"])
    (String(text='P1DT2H'), String(text='[1, null, "a"]'))
    """
    kind = type(obj)
    if kind is str or kind is int or kind is bool or obj is None:
        return value_of(obj)
    converter = _CONVERTERS.get(kind)
    if converter is not None:
        return converter(obj)
    for base, converter in _CONVERTERS.items():
        if isinstance(obj, base):
            return converter(obj)
    return String(_json_text(obj))


def _real(value: float) -> Value:
    if math.isfinite(value):
        text = repr(value)  # as Number.of writes it: a finite float's repr has a "." or an "e"
        return Number(Decimal(text), True, text)
    if math.isnan(value):
        return NIL
    return String("Inf" if value > 0 else "-Inf")


def _exact(value: Decimal) -> Value:
    if value.is_finite():
        return value_of(value)
    if value.is_nan():
        return NIL
    return String("-Inf" if value.is_signed() else "Inf")


def _time(value: _dt.time) -> Value:
    # Until the model has times, value_of refuses them: their ISO text meanwhile.
    try:
        return value_of(value)
    except TypeError:
        return String(value.isoformat())


def interval_text(duration: _dt.timedelta) -> str:
    """A duration as ISO 8601 text: days, then hours, minutes and seconds; a negative one
    with a leading ``-``.

    >>> interval_text(_dt.timedelta(days=1, hours=2, minutes=3, seconds=4.5))
    'P1DT2H3M4.5S'
    >>> interval_text(_dt.timedelta(0)), interval_text(-_dt.timedelta(seconds=1))
    ('PT0S', '-PT1S')
    """
    sign = ""
    if duration < _dt.timedelta(0):
        sign, duration = "-", -duration
    days = duration.days
    minutes, seconds = divmod(duration.seconds, 60)
    hours, minutes = divmod(minutes, 60)
    text = f"{sign}P{days}D" if days else f"{sign}P"
    clock = ""
    if hours:
        clock += f"{hours}H"
    if minutes:
        clock += f"{minutes}M"
    if seconds or duration.microseconds:
        fraction = f".{duration.microseconds:06d}".rstrip("0") if duration.microseconds else ""
        clock += f"{seconds}{fraction}S"
    if clock:
        text += "T" + clock
    elif not days:
        text += "T0S"
    return text


def _json_default(obj: object) -> object:
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return f"X'{bytes(obj).hex().upper()}'"
    if isinstance(obj, _dt.timedelta):
        return interval_text(obj)
    if isinstance(obj, (_dt.date, _dt.time)):
        return obj.isoformat()
    if isinstance(obj, Decimal):
        return float(obj) if obj.is_finite() else str(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=repr)
    return str(obj)


def _json_text(obj: object) -> str:
    if isinstance(obj, dict):
        # Keys that are not text (a DuckDB MAP of integers) are written as text.
        obj = {
            key if isinstance(key, str) else json.dumps(key, default=_json_default): item for key, item in obj.items()
        }
    return json.dumps(obj, ensure_ascii=False, default=_json_default)


_CONVERTERS: dict[type, Callable[[Any], Value]] = {
    float: _real,
    Decimal: _exact,
    # datetime before date: a datetime is a date too.
    _dt.datetime: value_of,
    _dt.date: lambda value: Date(value) if type(value) is _dt.date else value_of(value),
    _dt.time: _time,
    bytes: lambda value: String(f"X'{value.hex().upper()}'"),
    bytearray: lambda value: String(f"X'{bytes(value).hex().upper()}'"),
    memoryview: lambda value: String(f"X'{bytes(value).hex().upper()}'"),
    _dt.timedelta: lambda value: String(interval_text(value)),
    uuid.UUID: lambda value: String(str(value)),
}


def _integer(value: int) -> Value:
    return Number(value, False, str(value))


def _nil(value: None) -> Value:
    return NIL


# The exact types drivers give most, straight to their converters (engine_value for the rest).
_EXACT: dict[type, Callable[[Any], Value]] = {
    str: String,
    int: _integer,
    type(None): _nil,
    bool: Boolean,
    **_CONVERTERS,
    _dt.date: Date,
}


def engine_row(raw: Sequence[object]) -> tuple[tuple[Value, ...], int]:
    """One row of driver values as typed values (``engine_value`` of each), and what it counts
    towards the byte limit (``value_bytes`` of each): the engines' inner loop.

    >>> engine_row((1, "né", None))
    ((Number(value=1, is_real=False, text='1'), String(text='né'), Nil()), 27)
    """
    converter = _EXACT.get
    row = tuple([converter(type(value), engine_value)(value) for value in raw])
    used = CELL_BYTES * len(row)
    for value in row:
        if type(value) is String:
            text = value.text
            used += len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    return row, used


def engine_rows(raw_rows: Sequence[Sequence[object]]) -> Iterable[tuple[tuple[Value, ...], int]]:
    """``engine_row`` of each of a batch of rows of one width (as a driver fetches them),
    converted column by column: a column of plain ints, texts or finite floats (NULLs aside)
    in bulk (``Number.of_ints`` and the like, several times faster), one of dates or
    booleans one distinct value at a time, shared by the rows that hold it; others value by
    value. A batch holding a value that cannot be converted is converted row by row, so that
    the error comes where ``engine_row`` would raise it (after the rows before it).

    >>> [size for row, size in engine_rows([(1, "né", None)] * 8)]
    [27, 27, 27, 27, 27, 27, 27, 27]
    >>> next(iter(engine_rows([(1, "né", None)] * 8)))[0]
    (Number(value=1, is_real=False, text='1'), String(text='né'), Nil())
    """
    if len(raw_rows) < _COLUMNS_FROM or not raw_rows[0]:
        return map(engine_row, raw_rows)
    try:
        columns = [_engine_column(values) for values in zip(*raw_rows)]
    except (ValueError, OverflowError, TypeError):
        return map(engine_row, raw_rows)
    variable = [sizes for sizes in map(_column_bytes, columns) if sizes is not None]
    fixed = CELL_BYTES * len(columns)
    sizes = map(fixed.__add__, map(sum, zip(*variable))) if variable else repeat(fixed)
    return zip(zip(*columns), sizes)


def checked_limits(timeout: float, max_rows: int, max_result_bytes: int) -> tuple[float, int, int]:
    """The limits of one query, as given, once checked (``ValueError`` saying what is wrong):
    what every engine keeps as ``timeout``, ``max_rows`` and ``max_result_bytes``."""
    problem = limits_problem(timeout, max_rows, max_result_bytes)
    if problem is not None:
        raise ValueError(problem)
    return timeout, max_rows, max_result_bytes


class LimitedRows:
    """The rows of a result, kept batch by batch as a driver fetches them, within the row and
    byte limits. While every value is plain (NULL, an int, a finite float, a str: what every
    engine, SQLite's included, types alike), the driver's values are kept by column and the
    typed rows are made only when asked for (``QueryResult.driver_columns``); from the first
    batch holding another value, the rows are typed as they come (those kept first too).
    ``converting`` is the time spent keeping and converting, which is not the query's (a
    valid efficiency score compares query times).

    >>> kept = LimitedRows(max_rows=2, max_result_bytes=100)
    >>> kept.batch_size(1000), kept.add([(1, "a")]), kept.batch_size(1000)
    (1, None, 4)
    >>> kept.add([(2, "b"), (3, "c")]), kept.result(("n", "s"), 0.1).driver_columns
    ('the query returned more than 2 rows', ([1], ['a']))
    """

    def __init__(self, max_rows: int, max_result_bytes: int) -> None:
        self.max_rows = max_rows
        self.max_result_bytes = max_result_bytes
        self.plain: list[list[object]] | None = []  # by column; None once a value is not plain
        self.count = 0
        self.rows: list[tuple[Value, ...]] = []
        self.used = 0
        self.converting = 0.0

    def add(self, batch: Sequence[Sequence[object]]) -> str | None:
        """Keep the next rows: None, or the error past a limit."""
        began = time.perf_counter()
        try:
            if self.plain is not None:
                columns = list(zip(*batch))
                if all(map(plain_values, columns)):
                    return self._keep(columns, len(batch))
                # A value that is not plain: the rows kept so far are typed, and all after them.
                kept = list(zip(*self.plain)) if self.plain else [() for _ in range(self.count)]
                self.plain, self.count, self.used = None, 0, 0
                problem = self._type(kept)
                if problem is not None:
                    return problem
            return self._type(batch)
        finally:
            self.converting += time.perf_counter() - began

    def batch_size(self, most: int) -> int:
        """How many rows to fetch next, at most ``most``: one at first, then as many as rows
        like those kept so far fill what is left of the byte limit, so that a result of large
        values is refused after about the limit, not after ``most`` of them."""
        kept = self.count if self.plain is not None else len(self.rows)
        if not kept:
            return 1
        left = self.max_result_bytes - self.used
        return max(1, min(most, left * kept // max(self.used, 1)))

    def result(self, columns: tuple[str, ...], seconds: float | None) -> QueryResult:
        """The result of the rows kept."""
        if self.plain is None:
            return QueryResult(tuple(self.rows), columns, seconds=seconds)
        driver = tuple(self.plain) if self.plain or self.count else tuple([] for _ in columns)
        return QueryResult.of_driver_columns(driver, columns, seconds, self.count)

    def _keep(self, columns: list[tuple[object, ...]], count: int) -> str | None:
        if self.count + count > self.max_rows:
            return too_many_rows(self.max_rows)
        self.used += sum(map(_plain_bytes, columns))
        if self.used > self.max_result_bytes:
            return too_many_bytes(self.max_result_bytes)
        if self.plain is not None and not self.plain:
            self.plain.extend([] for _ in columns)
        for values, more in zip(self.plain or (), columns):
            values.extend(more)
        self.count += count
        return None

    def _type(self, batch: Sequence[Sequence[object]]) -> str | None:
        rows = self.rows
        for row, size in engine_rows(batch):
            if len(rows) == self.max_rows:
                return too_many_rows(self.max_rows)
            self.used += size
            if self.used > self.max_result_bytes:
                return too_many_bytes(self.max_result_bytes)
            rows.append(row)
        return None


# The types of plain values (see LimitedRows), floats when finite.
_PLAIN_TYPES = frozenset({type(None), int, float, str})


def plain_values(values: Sequence[object]) -> bool:
    """True when every value is plain: NULL, an int, a finite float or a str, which every
    engine types alike (``engine_value``, SQLite's ``sql_value``) and ``driver_value`` gives
    back unchanged.

    >>> plain_values([1, None, 2.5, "a"]), plain_values([float("inf")]), plain_values([b"x"]), plain_values([True])
    (True, False, False, False)
    """
    kinds = set(map(type, values))
    if not kinds <= _PLAIN_TYPES:
        return False
    if float not in kinds:
        return True
    floats = values if kinds == {float} else [value for value in values if type(value) is float]
    return all(map(math.isfinite, floats))  # type: ignore[arg-type]


def _plain_bytes(values: Sequence[object]) -> int:
    """What a column of plain values counts towards the byte limit, as their typed values
    would (``value_bytes``): ``CELL_BYTES`` each, and a text its UTF-8 length on top."""
    texts = [value for value in values if type(value) is str]
    cells = CELL_BYTES * len(values)
    if not texts:
        return cells
    ascii_only = all(map(str.isascii, texts))
    size = sum(map(len, texts)) if ascii_only else sum(len(text.encode("utf-8", "surrogatepass")) for text in texts)
    return cells + size


# Batches of fewer rows are converted row by row (a stream of one row at a time, say): the
# columns cost more than they save.
_COLUMNS_FROM = 8
# Columns of these types (NULLs aside) are converted in bulk.
_BULK: dict[type, Callable[[Any], Sequence[Value]]] = {
    int: Number.of_ints,
    str: String.of_texts,
    float: Number.of_floats,
}
# Columns of these types are converted one distinct value at a time, shared: equal values of
# these types convert alike (not so for floats, 0.0 and -0.0, decimals, 1.0 and 1.00, nor
# date-times, one instant at two offsets).
_SHARED: dict[type, Callable[[Any], Value]] = {_dt.date: Date, bool: Boolean}


def _engine_column(values: tuple[object, ...]) -> Sequence[Value]:
    """One column of driver values as typed values (``engine_value`` of each)."""
    kinds = set(map(type, values))
    kinds.discard(type(None))
    if len(kinds) == 1:
        kind = kinds.pop()
        bulk = _BULK.get(kind)
        shared = _SHARED.get(kind)
        try:
            if bulk is not None and None not in values:
                return bulk(values)
            if bulk is not None:
                present = iter(bulk([value for value in values if value is not None]))
                return [NIL if value is None else next(present) for value in values]
            if shared is not None:
                made: dict[object, Value] = {None: NIL}
                made.update((value, shared(value)) for value in dict.fromkeys(values) if value is not None)
                return list(map(made.__getitem__, values))
        except ValueError:
            pass  # an infinity or a NaN among the floats: value by value
    converter = _EXACT.get
    return [converter(type(value), engine_value)(value) for value in values]


def _column_bytes(column: Sequence[Value]) -> list[int] | None:
    """What each value of a typed column counts towards the byte limit on top of
    ``CELL_BYTES`` (``value_bytes`` less ``CELL_BYTES``); None when nothing (no strings)."""
    kinds = set(map(type, column))
    if String not in kinds:
        return None
    if kinds == {String}:
        texts = list(map(_text, column))
        if all(map(str.isascii, texts)):
            return list(map(len, texts))
    return [value_bytes(value) - CELL_BYTES for value in column]


_text = attrgetter("text")


def value_bytes(value: Value) -> int:
    """What a typed value counts towards a result's byte limit: ``CELL_BYTES`` whatever it
    is (NULL included), and a string its UTF-8 length on top (as the SQLite adapter counts).

    >>> value_bytes(String("né")), value_bytes(String("")), value_bytes(Number.of(1)), value_bytes(NIL)
    (11, 8, 8, 8)
    """
    if type(value) is String:
        text = value.text
        return CELL_BYTES + (len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass")))
    return CELL_BYTES


Connection = TypeVar("Connection")

# Idle connections a process keeps, over all databases of an engine.
MAX_IDLE_CONNECTIONS = 8


class Connections(Generic[Connection]):
    """Open connections of one process, by database location, kept for reuse.

    A thread takes an idle connection (or opens one), runs its query and gives it back, or
    discards it when it failed. At most ``max_idle`` idle connections are kept, the least
    recently used closed first (a worker that goes through many databases does not hold a
    session on each). After a fork, or after unpickling, the pool starts empty: connections
    never cross processes.
    """

    def __init__(self, close: Callable[[Connection], object], max_idle: int = MAX_IDLE_CONNECTIONS) -> None:
        self._close = close
        self._max_idle = max_idle
        self._idle: OrderedDict[str, list[Connection]] = OrderedDict()
        self._count = 0
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def take(self, location: str, open_connection: Callable[[], Connection]) -> Connection:
        """An idle connection to ``location``, or a new one from ``open_connection``."""
        with self._lock:
            if self._pid != os.getpid():  # forked: the parent's connections are the parent's
                self._idle, self._count, self._pid = OrderedDict(), 0, os.getpid()
            idle = self._idle.get(location)
            if idle:
                self._count -= 1
                connection = idle.pop()
                if not idle:
                    del self._idle[location]
                return connection
        return open_connection()

    def give_back(self, location: str, connection: Connection) -> None:
        """Keep a connection taken with ``take`` for the next query (closing the least
        recently used idle one when more than ``max_idle`` would be kept)."""
        surplus: list[Connection] = []
        with self._lock:
            if self._pid != os.getpid():
                surplus.append(connection)
            else:
                self._idle.setdefault(location, []).append(connection)
                self._idle.move_to_end(location)
                self._count += 1
                while self._count > self._max_idle:
                    oldest, connections = next(iter(self._idle.items()))
                    surplus.append(connections.pop(0))
                    self._count -= 1
                    if not connections:
                        del self._idle[oldest]
        for extra in surplus:
            self.discard(extra)

    def idle(self, location: str) -> int:
        """How many idle connections to ``location`` are kept."""
        with self._lock:
            return len(self._idle.get(location, ())) if self._pid == os.getpid() else 0

    def discard(self, connection: Connection) -> None:
        """Close a connection taken with ``take`` that must not be reused."""
        # A connection that cannot close is gone all the same.
        with contextlib.suppress(Exception):
            self._close(connection)

    def close(self) -> None:
        """Close every idle connection of this process."""
        with self._lock:
            idle, self._idle, self._count = self._idle, OrderedDict(), 0
            mine = self._pid == os.getpid()
        if mine:
            for connections in idle.values():
                for connection in connections:
                    self.discard(connection)

    def __getstate__(self) -> dict[str, object]:
        return {"close": self._close, "max_idle": self._max_idle}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["close"], state["max_idle"])  # type: ignore[misc]


SUITE_FILES = ("ending", "containing")
"""Which files beside ``<db_id>.sqlite`` make a test suite: those whose name ends with the
suffix (answerkey's rule), or every one whose name contains it (test-suite-sql-eval's)."""


def file_databases(
    engine: str, root: str, db_id: str, suffix: str, *, containing: bool = False
) -> tuple[Database, ...]:
    """The database files of ``db_id`` under the directory ``root``: ``ROOT/<db_id>/<db_id>SUFFIX``
    first, then the directory's other ``*SUFFIX`` files (test-suite-sql-eval's distilled suites)
    in natural order (``x2`` before ``x10``); names starting with a dot are skipped. With
    ``containing``, the others are every entry whose name contains ``SUFFIX``, dot names
    included, as test-suite-sql-eval lists them (exec_eval.py:201 at e97acc5: ``x.sqlite.bak``
    and ``x.sqlite-journal`` too). When ``ROOT/<db_id>/`` is not a directory, the flat file
    ``ROOT/<db_id>SUFFIX`` alone (Spider 2.0-lite's layout, evaluate.py:267 at e12c5f1e: a
    suite of one). Each file's real path (links resolved) must be a regular file inside the
    root's real path. ``NoDatabase`` says why there is none."""
    problem = db_id_problem(db_id)
    if problem is not None:
        raise NoDatabase(problem)
    directory = os.path.join(root, db_id)
    main = f"{db_id}{suffix}"
    expected = os.path.join(directory, main)
    flat = os.path.join(root, main)
    try:
        real_root = os.path.realpath(root, strict=True)
        with os.scandir(directory) as entries:
            if containing:
                others = [entry.name for entry in entries if suffix in entry.name]
            else:
                others = [entry.name for entry in entries if entry.name.endswith(suffix) and entry.name[0] != "."]
    except (FileNotFoundError, NotADirectoryError):
        if not os.path.lexists(flat):
            raise NoDatabase(f"no database {db_id!r} (expected {expected!r} or {flat!r})") from None
        return (_checked_file(engine, db_id, real_root, root, main),)
    except (OSError, ValueError) as error:
        raise NoDatabase(f"cannot read the database {db_id!r}: {_why(error)} ({directory!r})") from None
    if main not in others:
        raise NoDatabase(f"no database {db_id!r} (expected {expected!r})")
    others.remove(main)
    return tuple(
        _checked_file(engine, db_id, real_root, directory, name) for name in [main, *sorted(others, key=_natural)]
    )


def _checked_file(engine: str, db_id: str, real_root: str, directory: str, name: str) -> Database:
    """The database file ``name`` of ``directory``, once its real path is known to be a regular
    file inside ``real_root``; ``NoDatabase`` says why not."""
    path = os.path.join(directory, name)
    database = Database(engine, db_id, name, path)
    try:
        real = os.path.realpath(path, strict=True)
        regular = stat.S_ISREG(os.stat(real).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        raise NoDatabase(f"no database {database.label} (expected {path!r})") from None
    except (OSError, ValueError) as error:
        raise NoDatabase(f"cannot read the database {database.label}: {_why(error)} ({path!r})") from None
    if not regular:
        raise NoDatabase(f"the database {database.label} is not a regular file: {path!r}")
    if not inside_root(real_root, real):
        raise NoDatabase(f"the database {database.label} is outside the root: {path!r} leads to {real!r}")
    return Database(engine, db_id, name, real)


def _natural(name: str) -> list[object]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _why(error: Exception) -> str:
    return getattr(error, "strerror", None) or str(error) or "unreadable"


def file_fingerprint(path: str, companions: tuple[str, ...] = ()) -> str:
    """What changes when the file at ``path`` changes: its size, modification time (ns) and
    inode, and those of its companion files (``path + suffix``, a write-ahead log) that exist;
    ``absent`` for a file that does not.

    >>> file_fingerprint("/nowhere/at/all.sqlite")
    'absent'
    """
    parts = []
    for suffix in ("", *companions):
        try:
            status = os.stat(path + suffix)
        except (OSError, ValueError):
            if not suffix:
                return "absent"
            continue
        parts.append(f"{suffix or 'file'}:{status.st_size}:{status.st_mtime_ns}:{status.st_ino}")
    return "|".join(parts)
