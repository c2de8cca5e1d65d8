"""JSON text as answerkey writes it (``answerkey.files``): objects indented, each element of
a list on a line of its own, never ``NaN``; written in pieces, so that a large report is never
held whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


class _Encoder(json.JSONEncoder):
    def __init__(self) -> None:
        super().__init__(ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


_compact = _Encoder().encode


def json_pieces(value: Any, indent: str = "") -> Iterator[str]:
    """The JSON text of ``value`` in pieces, one list element each: a large report is written
    without ever holding all of its text at once."""
    if isinstance(value, dict) and value:
        inner = indent + "  "
        separator = "{\n"
        for key, item in value.items():
            yield f"{separator}{inner}{_compact(str(key))}: "
            yield from json_pieces(item, inner)
            separator = ",\n"
        yield "\n" + indent + "}"
    elif isinstance(value, list) and value:
        inner = indent + "  "
        separator = "[\n"
        for item in value:
            yield separator + inner + _compact(item)
            separator = ",\n"
        yield "\n" + indent + "]"
    else:
        yield _compact(value)


def json_text(document: Any) -> str:
    """``document`` as JSON text: objects indented, each element of a list on one line of
    its own (so a report of thousands of items reads, and diffs, line by line).

    >>> print(json_text({"summary": {"items": 2}, "items": [{"id": "q1"}, {"id": "q2"}]}))
    {
      "summary": {
        "items": 2
      },
      "items": [
        {"id": "q1"},
        {"id": "q2"}
      ]
    }
    """
    return "".join(json_pieces(document)) + "\n"
