"""JSON read strictly, and where each value stands (``answerkey.files``).

One decoder refuses what could not be written back (a key given twice, ``NaN``, a huge
integer, a lone surrogate escape, nesting past ``MAX_JSON_DEPTH``) and says where; JSON Lines
are read line by line, a bad line not stopping the others.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from answerkey.errors import InputError, LineIndex, line_column
from answerkey.limits import (
    MAX_JSON_DEPTH,
)

# Python refuses to convert longer digit strings to int (sys.get_int_max_str_digits()).
MAX_INT_DIGITS = 4300


class _Refused(ValueError):
    """A JSON value the decoder hooks refuse; ``needle`` finds where it is in the text."""

    def __init__(self, message: str, needle: re.Pattern[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.needle = needle


# Short texts are shared between the records of a file (keys, ids, names): JSON's decoder
# shares a key only within one call, so every line of a JSON Lines file held its own copies,
# and small records took 8x their bytes in memory.
_SHARED_TEXT_CHARS = 64


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    intern = sys.intern
    result = {
        intern(key): intern(value) if value.__class__ is str and len(value) <= _SHARED_TEXT_CHARS else value
        for key, value in pairs
    }
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the key {key!r} is given twice")
            seen.add(key)
    return result


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(
            f"an integer of {len(digits):,} digits (more than {MAX_INT_DIGITS:,})",
            re.compile(rf"-?[0-9]{{{MAX_INT_DIGITS + 1}}}"),
        )
    return int(digits)


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number", re.compile(r"(?<![\w\"-])" + re.escape(name) + r"\b"))


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_int=_bounded_int, parse_constant=_no_constant)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate_escape(text: str) -> int | None:
    """The offset of the first ``\\uD800``-``\\uDFFF`` escape in ``text`` that is not half of
    a pair (JSON writes characters beyond U+FFFF as a high and a low escape), or None."""
    for match in _SURROGATE_ESCAPE.finditer(text):
        start = match.start()
        backslashes = len(text[:start]) - len(text[:start].rstrip("\\"))
        if backslashes % 2:
            continue  # "\\ud800" is the text \ud800, not an escape
        high = match.group()[3].lower() in "89ab"
        if high and re.match(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}", text[match.end() : match.end() + 6]):
            continue
        if not high and start >= 6 and re.fullmatch(r"\\u[dD][89abAB][0-9a-fA-F]{2}", text[start - 6 : start]):
            continue
        return start
    return None


def _surrogate_error(text: str, source: str | None, first_line: int) -> InputError | None:
    offset = _lone_surrogate_escape(text)
    if offset is None:
        return None
    line, column = line_column(text, offset)
    return InputError(
        f"the escape {text[offset : offset + 6]} is half of a UTF-16 surrogate pair, not a character",
        source=source,
        line=line + first_line - 1,
        column=column,
    )


def _depth_error(value: Any, limit: int = MAX_JSON_DEPTH) -> str | None:
    stack = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            children: Iterable[Any] = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        if depth >= limit:
            return f"nested deeper than {limit} levels"
        stack.extend((child, depth + 1) for child in children)
    return None


def decode_json(text: str, *, source: str | None = None, first_line: int = 1) -> Any:
    """The JSON value of ``text``, with every problem an ``InputError`` at its place
    (``first_line`` numbers the first line of ``text``, for one line of a JSON Lines file).

    >>> decode_json('{"a": [1, 2.5, "x"]}')
    {'a': [1, 2.5, 'x']}
    >>> decode_json('{"a": NaN}', source="f.json")
    Traceback (most recent call last):
    ...
    answerkey.errors.InputError: f.json:1:7: NaN is not a JSON number
    """
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"invalid JSON: {error.msg}", source=source, line=error.lineno + first_line - 1, column=error.colno
        ) from None
    except _Refused as error:
        if error.needle is None:
            offset = _second_key_offset(text)
        else:
            match = error.needle.search(text)
            offset = match.start() if match else None
        line, column = line_column(text, offset) if offset is not None else (1, 1)
        raise InputError(error.message, source=source, line=line + first_line - 1, column=column) from None
    except RecursionError:
        raise InputError(
            f"nested deeper than {MAX_JSON_DEPTH} levels", source=source, line=first_line, column=1
        ) from None
    if "\\" in text and _SURROGATE_ESCAPE.search(text):
        surrogate = _surrogate_error(text, source, first_line)
        if surrogate is not None:
            raise surrogate
    # Fewer brackets than the limit cannot nest deeper than it (the usual case: no walk).
    depth = _depth_error(value) if text.count("[") + text.count("{") > MAX_JSON_DEPTH else None
    if depth is not None:
        raise InputError(depth, source=source, line=first_line, column=1)
    return value


# A string is matched as runs of plain characters between escapes: one repeat per character
# ((?:[^"\\]|\\.)*) made the regex engine keep a frame per character, 13 GB and 21 s for one
# 100 MB string.
_JSON_TOKEN = re.compile(r'\s*(?:("[^"\\]*(?:\\.[^"\\]*)*")\s*(:)?|([{}\[\],])|([^\s{}\[\],:"]+))', re.DOTALL)


def _second_key_offset(text: str) -> int | None:
    """Where the first key given a second time in one JSON object stands."""
    keys: list[set[str] | None] = []
    for match in _JSON_TOKEN.finditer(text):
        string, colon, punctuation, _ = match.groups()
        if punctuation in ("{", "["):
            keys.append(set() if punctuation == "{" else None)
        elif punctuation in ("}", "]") and keys:
            keys.pop()
        elif string and colon and keys and keys[-1] is not None:
            key = json.loads(string)
            if key in keys[-1]:
                return match.start(1)
            keys[-1].add(key)
    return None


def json_positions(text: str) -> dict[tuple[Any, ...], tuple[int, int]]:
    """Where each value of a JSON document starts (key paths from the root, as
    ``Document.locate`` takes them; an object member's path points at its key).

    >>> json_positions('{"a": [1,\\n  {"b": 2}]}')[("a", 1, "b")]
    (2, 4)
    """
    positions: dict[tuple[Any, ...], tuple[int, int]] = {}
    lines = LineIndex(text)  # one index: a count from the start for each value was quadratic
    # Each open container: [path, is_object, next index, pending key].
    stack: list[list[Any]] = []
    expect_value_path: tuple[Any, ...] | None = ()
    index = 0
    while index < len(text):
        match = _JSON_TOKEN.match(text, index)
        if match is None or match.end() == index:
            break
        index = match.end()
        string, colon, punctuation, _ = match.groups()
        start = match.start(1) if string else match.start(3) if punctuation else match.start(4)
        if string and colon:  # an object key
            key = json.loads(string) if "\\" in string else string[1:-1]
            path = (*stack[-1][0], key)
            positions.setdefault(path, lines.line_column(start))
            expect_value_path = path
            continue
        if punctuation in ("}", "]"):
            if stack:
                stack.pop()
            continue
        if punctuation == ",":
            if stack and not stack[-1][1]:
                stack[-1][2] += 1
                expect_value_path = (*stack[-1][0], stack[-1][2])
            continue
        # a value starts here
        if expect_value_path is None and stack and not stack[-1][1]:
            expect_value_path = (*stack[-1][0], stack[-1][2])
        path = expect_value_path if expect_value_path is not None else ()
        positions.setdefault(path, lines.line_column(start))
        expect_value_path = None
        if punctuation == "{":
            stack.append([path, True, 0, None])
        elif punctuation == "[":
            stack.append([path, False, 0, None])
            expect_value_path = (*path, 0)
    return positions


@dataclass(frozen=True)
class JsonLine:
    """One line of a JSON Lines file: its 1-based line number and its value or its error."""

    line: int
    value: Any = None
    error: InputError | None = None


def read_jsonl(text: str, *, source: str | None = None) -> Iterator[JsonLine]:
    """Parse JSON Lines; blank lines are skipped and a bad line becomes an error entry
    (with its line and column) instead of stopping the read.

    >>> [entry.value for entry in read_jsonl('{"id": 1}\\n\\n{"id": 2}\\n')]
    [{'id': 1}, {'id': 2}]
    """
    # One line at a time: a split would hold a second copy of the whole file at once.
    start, number = 0, 0
    while start <= len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        line, start, number = text[start:end], end + 1, number + 1
        if not line.strip():
            continue
        try:
            yield JsonLine(number, decode_json(line, source=source, first_line=number))
        except InputError as error:
            yield JsonLine(number, error=error)
