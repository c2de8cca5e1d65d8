"""The gold cache's text form: every value reads back exactly (kind, value and spelling), and
entries that cannot be read back are refused, never trusted."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given

from answerkey.adapters.sql import QueryResult
from answerkey.execution.cache import CacheKey, GoldCache, decode_value, encode_value
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
    cache = GoldCache(tmp_path)
    result = QueryResult(rows=((Number.parse("1.50"), String("pen")),), columns=("price", "name"))
    assert cache.put(KEY, result) is None
    path = tmp_path / KEY.digest[:2] / f"{KEY.digest}.json"
    entry = json.loads(path.read_text(encoding="utf-8"))
    assert entry == {
        "format": 1,
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
    other = CacheKey(*[*vars(KEY).values()][:3], "file:8192:9:2", "SELECT 1", 30.0, 10, 100)
    assert cache.get(other) == (None, None)
    assert (cache.hits, cache.misses, cache.stored) == (1, 1, 1)


def test_failed_results_are_not_stored(tmp_path):
    """A failed query is never stored."""
    cache = GoldCache(tmp_path)
    assert cache.put(KEY, QueryResult(error="the query ran past the time limit of 1 s")) is None
    assert cache.stored == 0 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ('{"format": 2}', "not an entry of format 1"),
        ('{"format": 1, "key": {}}', "the entry is for another query or database"),
        ("[]", "not an entry of format 1"),
    ],
)
def test_an_unreadable_entry_is_a_warning_and_a_miss(tmp_path, text, why):
    """A corrupt, foreign or mismatched entry is ignored with a warning naming it and why."""
    cache = GoldCache(tmp_path)
    path = tmp_path / KEY.digest[:2] / f"{KEY.digest}.json"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    result, warning = cache.get(KEY)
    assert result is None
    assert (warning.kind, str(warning)) == (
        "cache",
        f"the gold cache entry {path} cannot be read back ({why}); the gold query ran again",
    )


def test_a_tampered_row_is_refused(tmp_path):
    """Rows that are not lists of value spellings make the entry unreadable."""
    cache = GoldCache(tmp_path)
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
    warning = GoldCache(blocker).put(KEY, QueryResult(rows=((Number.of(1),),), columns=("n",)))
    assert warning.kind == "cache"
    assert str(warning).startswith("the gold cache cannot store a result: ")
