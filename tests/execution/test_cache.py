"""The result cache's text form: every value reads back exactly (kind, value and spelling),
entries that cannot be read back are refused, never trusted, and entries are written whole."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from dataclasses import replace

import pytest
from hypothesis import given

from answerkey.adapters.sql import QueryResult
from answerkey.execution import cache as cache_module
from answerkey.execution.cache import CacheKey, ResultCache, decode_value, encode_value, write_entry
from answerkey.model import NIL, Boolean, Date, Number, String, value_of
from answerkey.strategies import values

KEY = CacheKey("sqlite", "/data/shop/shop.sqlite", "shop.sqlite", "file:8192:1:2", "SELECT 1", 30.0, 10, 100)


@given(values())
def test_every_value_reads_back_exactly(value):
    """decode_value(encode_value(v)) is v: same type, same value, same spelling (repr)."""
    assert repr(decode_value(encode_value(value))) == repr(value)


@pytest.mark.parametrize(
    "value",
    [
        Number.parse("12.50"),
        Number.parse("-0.0"),
        Number.parse("1e+20"),
        Number.of(7),
        String(""),
        String("2024-01-01"),
        String("NIL"),
        String("12"),
        String('a "quoted"\n\ttab \\ \x7f \u2028 é'),
        Boolean(False),
        Date(dt.date(1989, 7, 4)),
        value_of(dt.datetime(1989, 7, 4, 10, 30, tzinfo=dt.UTC)),
        value_of(dt.time(10, 30, 15, 250000)),
        NIL,
    ],
)
def test_values_engines_give_read_back_exactly(value):
    """The spellings engines produce (exact decimals, date-like strings, times) round-trip."""
    assert repr(decode_value(encode_value(value))) == repr(value)


@pytest.mark.parametrize("text", ["", "[1]", "(1 2)", '"unterminated', "((1) (2))", "1 2", "nope nope"])
def test_text_that_spells_no_value_is_refused(text):
    """Anything but one value's spelling is a ValueError, never a guess."""
    with pytest.raises(ValueError):
        decode_value(text)


def test_entries_are_json_text_keyed_by_everything_that_decides_a_result(tmp_path):
    """An entry is JSON at DIR/<2 hex>/<sha256>.json holding its key; another key never reads it."""
    cache = ResultCache(tmp_path)
    result = QueryResult(rows=((Number.parse("1.50"), String("pen")),), columns=("price", "name"))
    assert cache.put(KEY, result) is None
    path = tmp_path / KEY.digest[:2] / f"{KEY.digest}.json"
    entry = json.loads(path.read_text(encoding="utf-8"))
    # The checksum covers what follows it: the columns and the rows, as written.
    content = path.read_bytes().split(b'"sha256":"', 1)[1][64 + 2 :]
    assert entry.pop("sha256") == hashlib.sha256(content).hexdigest()
    assert entry == {
        "format": 2,
        "key": {
            "engine": "sqlite",
            "location": "/data/shop/shop.sqlite",
            "name": "shop.sqlite",
            "fingerprint": "file:8192:1:2",
            "sql": "SELECT 1",
            "timeout": 30.0,
            "max_rows": 10,
            "max_result_bytes": 100,
        },
        "columns": ["price", "name"],
        "rows": [["1.50", '"pen"']],
    }
    assert cache.get(KEY) == (result, None)
    other = replace(KEY, fingerprint="file:8192:9:2")
    assert cache.get(other) == (None, None)
    assert (cache.hits, cache.misses, cache.stored) == (1, 1, 1)


def test_failed_results_are_not_stored(tmp_path):
    """A failed query is never stored."""
    cache = ResultCache(tmp_path)
    assert cache.put(KEY, QueryResult(error="the query ran past the time limit of 1 s")) is None
    assert cache.stored == 0 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ('{"format": 1}', "not an entry of format 2"),
        ('{"format": 2, "key": {}}', "the entry is for another query or database"),
        ("[]", "not an entry of format 2"),
    ],
)
def test_an_unreadable_entry_is_a_warning_and_a_miss(tmp_path, text, why):
    """A corrupt, foreign or mismatched entry is ignored with a warning naming it and why."""
    cache = ResultCache(tmp_path)
    path = tmp_path / KEY.digest[:2] / f"{KEY.digest}.json"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    result, warning = cache.get(KEY)
    assert result is None and warning is not None
    assert (warning.kind, str(warning)) == (
        "cache",
        f"the cache entry {path} cannot be read back ({why}); the query ran again",
    )


def test_a_tampered_row_is_refused(tmp_path):
    """Rows that are not lists of value spellings make the entry unreadable."""
    cache = ResultCache(tmp_path)
    cache.put(KEY, QueryResult(rows=((Number.of(1),),), columns=("n",)))
    path = tmp_path / KEY.digest[:2] / f"{KEY.digest}.json"
    entry = json.loads(path.read_text(encoding="utf-8"))
    for rows in ([["(1 2)"]], [[1]], [1], "rows"):
        path.write_text(json.dumps({**entry, "rows": rows}), encoding="utf-8")
        result, warning = cache.get(KEY)
        assert result is None and warning is not None


def test_an_unwritable_cache_is_a_warning(tmp_path):
    """A cache directory that cannot be written loses the entry, not the run."""
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    warning = ResultCache(blocker).put(KEY, QueryResult(rows=((Number.of(1),),), columns=("n",)))
    assert warning is not None and warning.kind == "cache"
    assert str(warning) == "the cache cannot store a result: Not a directory"
    assert blocker.read_text(encoding="utf-8") == ""


def test_entries_are_written_without_a_flush_to_disk(tmp_path, monkeypatch):
    """Storing entries calls no fsync (an entry lost in a crash is only recomputed) and leaves no temporary file."""
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    cache = ResultCache(tmp_path)
    for n in range(3):
        key = replace(KEY, sql=f"SELECT {n}")
        assert cache.put(key, QueryResult(rows=((Number.of(n),),), columns=("n",))) is None
    assert synced == []
    assert cache.stored == 3
    digests = [replace(KEY, sql=f"SELECT {n}").digest for n in range(3)]
    files = sorted(str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*") if path.is_file())
    assert files == sorted(f"{digest[:2]}/{digest}.json" for digest in digests)


def test_an_entry_is_replaced_whole(tmp_path):
    """Writing over an entry replaces it in one step: the new text, and nothing else in the directory."""
    path = tmp_path / "ab" / "abc.json"
    write_entry(str(path), b"old")
    write_entry(str(path), b"new")
    assert path.read_bytes() == b"new"
    assert [entry.name for entry in path.parent.iterdir()] == ["abc.json"]


def test_a_failed_write_leaves_neither_entry_nor_temporary(tmp_path, monkeypatch):
    """When the rename fails, the temporary is removed, an existing entry is untouched and the put is a warning."""
    cache = ResultCache(tmp_path)
    result = QueryResult(rows=((Number.of(1),),), columns=("n",))
    cache.put(KEY, result)
    path = tmp_path / KEY.digest[:2] / f"{KEY.digest}.json"
    before = path.read_bytes()

    def refuse(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache_module.os, "replace", refuse)
    warning = cache.put(KEY, QueryResult(rows=((Number.of(2),),), columns=("n",)))
    assert warning is not None
    assert (warning.kind, str(warning)) == ("cache", "the cache cannot store a result: No space left on device")
    assert path.read_bytes() == before
    assert [entry.name for entry in path.parent.iterdir()] == [path.name]
    assert cache.stored == 1
