"""Query results on disk: each query runs once per database content (``--cache DIR``).

A result depends only on the engine, the database, the SQL text and the limits it ran under,
whoever wrote the query: gold and predicted results share one cache and one key scheme. An
entry is keyed by what decides a result: the engine, the database (its location, name and
``Engine.fingerprint``, which changes with its content), the SQL text and the limits a query
ran under. So a database that changes gets new entries (the old ones are never read again),
and a run with other limits never reads a result that those limits would have refused. Only
results that ran to completion are stored: a failure (a time-out above all) is run again. A
query whose result the database does not decide (``random()``, ``now()``, ``LIMIT`` without
``ORDER BY``) is cached like any other: later runs read the result of the run that stored it.

Entries are those of answerkey's one disk cache (``answerkey.files.EntryCache``, which the
LLM judge's replies use too): JSON text, never pickle, at ``DIR/<2 hex>/<sha256>.json``,
written atomically, holding the format, the key, a SHA-256 checksum of what follows it, the
columns and the rows, each value in its canonical CAS spelling
(``answerkey.grammar.render.render_value``: ``12.50``, ``"pen"``, ``NIL``, ``1989-07-04``),
read back exactly (numbers keep their digits and kind, strings their text). An entry is read
back only when it is a regular file of at most ``entry_bytes(key)`` (a FIFO, a device, a
link or a huge sparse file is never opened or read whole), its key and format are this one's
byte for byte, its checksum matches, and its shape holds (every row as wide as the columns,
at most the key's rows and ``MAX_COLUMNS`` columns, every value a spelling): anything else
(truncated, edited, damaged, written by another version) is ignored with a warning and run
again, and a cache that cannot be written is a warning too. So a run with a damaged cache
decides what a run without one decides.

>>> import tempfile
>>> from answerkey.model import Number, String, NIL
>>> cache = ResultCache(tempfile.mkdtemp())
>>> key = CacheKey("sqlite", "/data/shop/shop.sqlite", "shop.sqlite", "file:8192:1:2", "SELECT 1", 30.0, 10, 100)
>>> cache.get(key)
(None, None)
>>> cache.put(key, QueryResult(rows=((Number.of(1), String("pen"), NIL),), columns=("1", "name", "x")))
>>> cache.get(key)[0].rows
((Number(value=1, is_real=False, text='1'), String(text='pen'), Nil()),)
>>> cache.hits, cache.misses, cache.stored
(1, 1, 1)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass
from typing import Protocol

from answerkey.adapters.engines import DEFAULT_TEXT_DECODING, Database, Engine
from answerkey.adapters.sql import QueryResult
from answerkey.errors import InputError, ParseError, RunWarning
from answerkey.files import CACHE_FORMAT as CACHE_FORMAT, EntryCache, write_entry as write_entry
from answerkey.grammar import parse
from answerkey.grammar.render import render_value
from answerkey.limits import MAX_COLUMNS
from answerkey.model import NIL, Boolean, Number, Relation, String, Value

_NUMBER_START = frozenset("+-.0123456789")
_DATE_LIKE = re.compile(r"\d{4}-")


@dataclass(frozen=True)
class CacheKey:
    """What decides a query's result: the engine, the database (``location``, ``name`` and its
    content's ``fingerprint``), the SQL text and the limits it ran under."""

    engine: str
    location: str
    name: str
    fingerprint: str
    sql: str
    timeout: float
    max_rows: int
    max_result_bytes: int

    @property
    def digest(self) -> str:
        """The SHA-256 of the key's fields, in hexadecimal: the entry's file name."""
        text = json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class QueryLimits(Protocol):
    """The limits a query runs under (``SqlOptions`` has them)."""

    @property
    def timeout(self) -> float: ...
    @property
    def max_rows(self) -> int: ...
    @property
    def max_result_bytes(self) -> int: ...


def query_key(
    engine: Engine, database: Database, sql: str, limits: QueryLimits, fingerprints: dict[Database, str]
) -> CacheKey:
    """The key of ``sql`` run by ``engine`` on ``database`` under ``limits``; the database's
    fingerprint is read once and kept in ``fingerprints``."""
    fingerprint = fingerprints.get(database)
    if fingerprint is None:
        fingerprint = fingerprints[database] = engine.fingerprint(database)
    decoding = getattr(engine, "text_decoding", DEFAULT_TEXT_DECODING)
    if decoding != DEFAULT_TEXT_DECODING:
        # Text that is not UTF-8 reads otherwise (test-suite's and bird's presets): another result.
        fingerprint += f"|text:{decoding}"
    return CacheKey(
        engine.name,
        database.location,
        database.name,
        fingerprint,
        sql,
        limits.timeout,
        limits.max_rows,
        limits.max_result_bytes,
    )


def entry_bytes(key: CacheKey) -> int:
    """The most bytes an entry of ``key`` may hold: a result within the key's byte limit,
    each byte spelled in at most 12 (a control character as a CAS escape, escaped again by
    JSON), plus room for the key and the rows' punctuation. A larger result is not stored.

    >>> entry_bytes(CacheKey("sqlite", "a", "a", "f", "SELECT 1", 30.0, 10, 100))
    16778448
    """
    return 12 * key.max_result_bytes + 16 * 1024 * 1024 + 2 * len(key.sql) + 16 * len(key.location)


def encode_value(value: Value) -> str:
    """A value's canonical CAS spelling (``TypeError`` for one CAS cannot write).

    >>> encode_value(Number.parse("12.50")), encode_value(String("2024-01-01")), encode_value(NIL)
    ('12.50', '"\\\\u0032024-01-01"', 'NIL')
    """
    return render_value(value)


def decode_value(text: str) -> Value:
    """The value ``encode_value`` spelled as ``text``; ``ValueError`` if it spells none.

    >>> decode_value("12.50"), decode_value('"say \\\\"hi\\\\""'), decode_value("true")
    (Number(value=Decimal('12.50'), is_real=True, text='12.50'), String(text='say "hi"'), Boolean(value=True))
    >>> decode_value("1989-07-04")
    Date(value=datetime.date(1989, 7, 4))
    """
    if not isinstance(text, str) or not text:
        raise ValueError("not a value")
    first = text[0]
    # The usual values are read directly; anything else (dates, times) by the CAS grammar.
    if first == '"':
        decoded = json.loads(text)
        if not isinstance(decoded, str):
            raise ValueError(f"not a string: {text!r}")
        return String(decoded)
    if text == "NIL":
        return NIL
    if text in ("true", "false"):
        return Boolean(text == "true")
    if first in _NUMBER_START and not _DATE_LIKE.match(text):
        try:
            return Number.parse(text)
        except ValueError:
            pass  # a time of day, say: the grammar reads it
    try:
        answer = parse(text)
    except (ParseError, InputError) as error:
        raise ValueError(f"not a value: {text!r}") from error
    if not isinstance(answer, Relation) or not answer.scalar:
        raise ValueError(f"not one value: {text!r}")
    value = answer.rows[0][0]
    if isinstance(value, String):
        raise ValueError(f"not a quoted string: {text!r}")  # CAS reads bare words as strings; entries quote them
    return value


class ResultCache:
    """Query results under ``directory`` (created when missing), with counts of this
    process's ``hits``, ``misses`` and entries ``stored``."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = os.fspath(directory)
        self.entries = EntryCache(self.directory, another="the entry is for another query or database")
        self.hits = 0
        self.misses = 0
        self.stored = 0

    def path(self, key: CacheKey) -> str:
        """Where the entry of ``key`` lives."""
        return self.entries.path(asdict(key))

    def get(self, key: CacheKey) -> tuple[QueryResult | None, RunWarning | None]:
        """The stored result of ``key`` (None: not stored), and a warning when its entry could
        not be read back (it is then run again, and rewritten)."""
        try:
            entry = self.entries.read(asdict(key), entry_bytes(key))
        except FileNotFoundError:
            self.misses += 1
            return None, None
        except OSError as error:
            self.misses += 1
            return None, _unreadable(self.path(key), str(error.strerror or error))
        except (ValueError, RecursionError) as error:
            self.misses += 1
            return None, _unreadable(self.path(key), str(error) or type(error).__name__)
        try:
            result = _decoded(entry, key)
        except (ValueError, TypeError, KeyError, IndexError, RecursionError) as error:
            self.misses += 1
            return None, _unreadable(self.path(key), str(error) or type(error).__name__)
        self.hits += 1
        return result, None

    def put(self, key: CacheKey, result: QueryResult) -> RunWarning | None:
        """Store the result of ``key`` if it ran to completion; a warning if it cannot be written."""
        if result.error is not None:
            return None
        try:
            rows = [[encode_value(value) for value in row] for row in result.rows]
        except TypeError:
            return None  # a value CAS cannot write: not cached, run each time
        try:
            written = self.entries.write(asdict(key), {"columns": list(result.columns), "rows": rows}, entry_bytes(key))
        except OSError as error:
            return RunWarning(f"the cache cannot store a result: {error.strerror or error}", "cache")
        if written:  # else one it would refuse to read back: run each time
            self.stored += 1
        return None


def _unreadable(path: str, why: str) -> RunWarning:
    return RunWarning(f"the cache entry {path} cannot be read back ({why}); the query ran again", "cache")


def _decoded(entry: dict, key: CacheKey) -> QueryResult:
    """The result an entry's content holds, its shape checked against ``key``."""
    columns, rows = entry["columns"], entry["rows"]
    if not isinstance(columns, list) or not all(isinstance(name, str) for name in columns):
        raise ValueError("the columns are not a list of names")
    if len(columns) > MAX_COLUMNS:
        raise ValueError(f"it has {len(columns):,} columns, more than {MAX_COLUMNS:,}")
    if not isinstance(rows, list) or not all(isinstance(row, list) and len(row) == len(columns) for row in rows):
        raise ValueError("the rows are not lists as long as the columns")
    if len(rows) > key.max_rows:
        raise ValueError(f"it has {len(rows):,} rows, more than the {key.max_rows:,} the query may return")
    return QueryResult(rows=tuple(tuple(map(decode_value, row)) for row in rows), columns=tuple(columns))
