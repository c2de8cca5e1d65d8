"""The result cache trusts nothing it reads: an entry that is not a regular file, is too large,
fails its checksum or its shape is ignored with one warning and run again, so a run with a
damaged cache decides exactly what a run without one decides."""

import hashlib
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from answerkey.adapters.sql import QueryResult
from answerkey.execution.cache import CacheKey, ResultCache, entry_bytes
from answerkey.model import Number, String

KEY = CacheKey("sqlite", "/data/shop/shop.sqlite", "shop.sqlite", "file:8192:1:2", "SELECT 1", 30.0, 10, 100)
RESULT = QueryResult(rows=((Number.of(1), String("pen")), (Number.of(2), String("cap"))), columns=("n", "name"))


@pytest.fixture
def cache(tmp_path):
    """A cache holding RESULT under KEY; ``cache.entry`` is its file."""
    cache = ResultCache(tmp_path)
    assert cache.put(KEY, RESULT) is None
    cache.entry = Path(cache.path(KEY))
    return cache


def _read_back(cache):
    """``cache.get(KEY)`` in a thread, so that an entry that blocks fails the test instead of hanging it."""
    outcome = []
    reader = threading.Thread(target=lambda: outcome.append(cache.get(KEY)), daemon=True)
    reader.start()
    reader.join(60)
    assert not reader.is_alive(), "reading the entry blocked"
    return outcome[0]


def _rewrite(entry, columns, rows):
    """Rewrite ``entry`` with ``columns`` and ``rows`` and a checksum that matches them (damage a
    checksum cannot see)."""
    head = entry.read_bytes().split(b'"sha256":"', 1)[0] + b'"sha256":"'
    content = json.dumps({"columns": columns, "rows": rows}, separators=(",", ":"))[1:].encode()
    entry.write_bytes(head + hashlib.sha256(content).hexdigest().encode() + b'",' + content)


def _refused(cache, why):
    result, warning = _read_back(cache)
    assert result is None
    assert str(warning) == f"the cache entry {cache.entry} cannot be read back ({why}); the query ran again"


def test_an_entry_reads_back(cache):
    """The undamaged entry is the result."""
    assert _read_back(cache) == (RESULT, None)


def test_a_fifo_is_not_opened(cache):
    """A FIFO in place of an entry would block the run for ever: refused without opening it."""
    cache.entry.unlink()
    os.mkfifo(cache.entry)
    _refused(cache, "it is not a regular file")


def test_a_link_to_a_device_is_not_followed(cache):
    """A symbolic link (here to /dev/zero, which never ends) is refused, not followed."""
    cache.entry.unlink()
    cache.entry.symlink_to("/dev/zero")
    _refused(cache, "it is not a regular file")


def test_a_device_node_is_not_opened(cache):
    """A character device (/dev/zero's numbers) in place of an entry is refused."""
    cache.entry.unlink()
    try:
        os.mknod(cache.entry, 0o600 | 0o020000, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("creating a device node needs root")
    _refused(cache, "it is not a regular file")


def test_a_huge_sparse_file_is_not_read(cache):
    """A 4 GB sparse file is refused by its size, before a byte of it is read."""
    with open(cache.entry, "r+b") as handle:
        handle.truncate(4 * 1024**3)
    _refused(cache, f"it holds {4 * 1024**3:,} bytes, more than the {entry_bytes(KEY):,} an entry may")


def test_an_edited_value_fails_the_checksum(cache):
    """A value changed in place (still valid JSON, still a value's spelling) is caught by the checksum."""
    cache.entry.write_bytes(cache.entry.read_bytes().replace(b'"\\"cap\\""', b'"\\"hat\\""'))
    _refused(cache, "its checksum does not match its content")


@pytest.mark.parametrize(
    ("columns", "rows", "why"),
    [
        # Rows of unequal length: once read back they would change a verdict or fail the item.
        (["n", "name"], [["1", '"pen"'], ["2"]], "the rows are not lists as long as the columns"),
        (["n", "name"], [["1", '"pen"', "3"]], "the rows are not lists as long as the columns"),
        # 100,000 columns.
        ([f"c{i}" for i in range(100_000)], [["1"] * 100_000], "it has 100,000 columns, more than 2,000"),
        # More rows than the query was allowed to return.
        (["n"], [["1"]] * 11, "it has 11 rows, more than the 10 the query may return"),
    ],
)
def test_a_damaged_shape_is_refused_even_with_a_matching_checksum(cache, columns, rows, why):
    """A shape no result of this key can have is refused whatever the checksum says."""
    _rewrite(cache.entry, columns, rows)
    _refused(cache, why)


def test_a_result_too_large_to_read_back_is_not_stored(tmp_path):
    """What the cache would refuse to read is never written (it runs each time)."""
    cache = ResultCache(tmp_path)
    small = CacheKey("sqlite", "a", "a", "f", "SELECT 1", 30.0, 10, 0)
    huge = QueryResult(rows=((String("x" * (17 * 1024 * 1024)),),), columns=("x",))
    assert cache.put(small, huge) is None
    assert (cache.stored, list(tmp_path.iterdir())) == (0, [])


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sql" / "spider"


def test_a_run_with_a_damaged_cache_reports_what_a_run_without_one_reports(run_cli, tmp_path):
    """`answerkey sql` on the bundled Spider example: a cache whose every entry is damaged, each in
    another way, gives the report of a run without a cache (one warning per damaged entry)."""
    gold, predictions, databases = EXAMPLE / "gold.sql", EXAMPLE / "pred.sql", EXAMPLE / "database"
    database_copy = tmp_path / "database"
    shutil.copytree(databases, database_copy)
    args = [gold, predictions, "--db", database_copy, "-q"]
    assert run_cli("sql", *args, "--json", tmp_path / "plain.json").exit_code in (0, 1)
    cache = tmp_path / "cache"
    assert run_cli("sql", *args, "--cache", cache, "--json", tmp_path / "filled.json").exit_code in (0, 1)
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) >= 4
    for number, entry in enumerate(entries):
        damage = number % 4
        if damage == 0:
            entry.unlink()
            os.mkfifo(entry)
        elif damage == 1:
            with open(entry, "r+b") as handle:
                handle.truncate(4 * 1024**3)
        elif damage == 2:
            _rewrite(entry, ["a", "b"], [["1", "2"], ["3"]])
        else:
            text = entry.read_bytes()
            entry.write_bytes(text[:-3] + (b"9" if text[-3:-2] != b"9" else b"8") + text[-2:])
    result = run_cli("sql", *args, "--cache", cache, "--json", tmp_path / "damaged.json")
    plain = json.loads((tmp_path / "plain.json").read_text())
    damaged = json.loads((tmp_path / "damaged.json").read_text())
    assert damaged["items"] == plain["items"]
    assert damaged["summary"] == plain["summary"]
    cache_warnings = [warning for warning in damaged["warnings"] if "cannot be read back" in json.dumps(warning)]
    assert len(cache_warnings) == len(entries), result.stderr
