"""The one disk cache of answerkey: JSON entries by key, checked when read back.

Both caches use it: query results (``answerkey.execution.cache``, ``sql --cache DIR``) and
the LLM judge's replies (``ANSWERKEY_JUDGE_CACHE``). An entry is JSON text, never pickle, at
``DIR/<2 hex>/<sha256>.json``, the SHA-256 of its key's fields (JSON, names sorted): it begins
with the format and the key, then a SHA-256 checksum of what follows, then the content's
fields::

    {"format":2,"key":{...},"sha256":"<64 hex>","columns":[...],"rows":[...]}

It is written atomically (``write_entry``: a temporary file beside it, renamed over it), so
processes and machines sharing the directory may write at once and a reader never sees half
an entry. It is read back only when it is a regular file of at most the bytes its owner allows
(a FIFO, a device, a link or a huge sparse file is never opened or read whole:
``read_entry``), when it begins with its key and this format byte for byte, and when its
checksum matches; anything else is refused with the reason, which the owner reports once as a
warning before computing the entry again.

>>> import tempfile
>>> cache = EntryCache(tempfile.mkdtemp())
>>> cache.write({"sql": "SELECT 1"}, {"rows": [["1"]]}, 1000)
True
>>> cache.read({"sql": "SELECT 1"}, 1000)
{'rows': [['1']]}
>>> cache.read({"sql": "SELECT 2"}, 1000)
Traceback (most recent call last):
...
FileNotFoundError: ...
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from typing import Any

from answerkey.files._writing import read_entry, write_entry

# The format of an entry; an entry of another format is refused (and rewritten).
CACHE_FORMAT = 2


class EntryCache:
    """Entries under ``directory`` (created when first written to), keyed by mappings of
    JSON values; ``another`` is the reason given for an entry that holds another key."""

    def __init__(self, directory: str | os.PathLike[str], another: str = "the entry is for another key") -> None:
        self.directory = os.fspath(directory)
        self.another = another

    def path(self, key: Mapping[str, Any]) -> str:
        """Where the entry of ``key`` lives."""
        text = json.dumps(dict(key), sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return os.path.join(self.directory, digest[:2], f"{digest}.json")

    def read(self, key: Mapping[str, Any], max_bytes: int) -> dict[str, Any]:
        """The content stored for ``key``. ``FileNotFoundError`` when there is none;
        ``OSError`` when it cannot be read; ``ValueError`` saying why it is refused (not a
        regular file, more than ``max_bytes``, another format or key, a checksum that does
        not match, no JSON object)."""
        data = read_entry(self.path(key), max_bytes)
        head = _head(key)
        if not data.startswith(head):
            raise ValueError(self._foreign(data, key))
        start = len(head)
        checksum, separator, content = data[start : start + 64], data[start + 64 : start + 66], data[start + 66 :]
        if separator != b'",' or hashlib.sha256(content).hexdigest().encode() != checksum:
            raise ValueError("its checksum does not match its content")
        try:
            entry = json.loads(b"{" + content)
        except RecursionError:
            raise ValueError("its content is nested too deeply") from None
        if not isinstance(entry, dict):
            raise ValueError("its content is not a JSON object")
        return entry

    def write(self, key: Mapping[str, Any], content: Mapping[str, Any], max_bytes: int) -> bool:
        """Store ``content`` (a mapping of JSON values) for ``key``; False, and nothing
        written, when the entry would be larger than ``max_bytes`` (one ``read`` would refuse).
        ``OSError`` when it cannot be written."""
        body = json.dumps(dict(content), ensure_ascii=False, separators=(",", ":"))
        encoded = body[1:].encode("utf-8", "surrogatepass")
        data = b"".join((_head(key), hashlib.sha256(encoded).hexdigest().encode(), b'",', encoded))
        if len(data) > max_bytes:
            return False
        write_entry(self.path(key), data)
        return True

    def _foreign(self, data: bytes, key: Mapping[str, Any]) -> str:
        """Why an entry that does not begin as ``key``'s would is not its entry."""
        entry = json.loads(data)  # its own error when it is no JSON
        if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT:
            return f"not an entry of format {CACHE_FORMAT}"
        if entry.get("key") != json.loads(json.dumps(dict(key))):
            return self.another
        return "its checksum does not match its content"


def _head(key: Mapping[str, Any]) -> bytes:
    """What an entry of ``key`` begins with, up to its checksum."""
    text = json.dumps({"format": CACHE_FORMAT, "key": dict(key)}, ensure_ascii=False, separators=(",", ":"))
    return f'{text[:-1]},"sha256":"'.encode("utf-8", "surrogatepass")
