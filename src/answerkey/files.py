"""Reading untrusted input files and writing outputs safely.

**Reading.** ``read_text`` reads UTF-8 (``-`` is standard input) within a size limit;
``load_document`` reads a JSON, JSON Lines or YAML document (chosen by the file name's
suffix, else by its first character) into plain values and can say where each value stands
(``Document.locate``), so that every problem is reported as ``FILE:LINE:COL``. The same
rules hold for every format: a key given twice in one object is an error; so are JSON's
``NaN``/``Infinity``, an integer of more than 4,300 digits, a lone UTF-16 surrogate escape
(``"\\ud800"``: not text, it could not be written out again) and values nested deeper than
``MAX_JSON_DEPTH``. YAML is read safely, mapping keys are read as text (``yes:`` is the key
``"yes"``), and aliases may not expand a document past a multiple of its size.
``regular_files`` lists a directory's regular files and names what it skipped.

**Writing.** ``check_outputs`` refuses, before a run starts, an output that is one of the
inputs, an output in a missing directory, two outputs to one file; it warns when a file name's
suffix does not fit the format. ``write_output`` and ``output_stream`` replace a regular file
atomically (a temporary file beside it, renamed over it, keeping the old file's mode), write
directly to anything else (``/dev/null``, a FIFO, a terminal, ``-`` for standard output) and
follow symbolic links; a temporary file left by a killed run is removed by the next write to
the same path.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "items.json")
>>> write_output(path, '[{"id": "q1", "answer": 5},\\n {"id": "q2", "answer": "x", "answer": 6}]')
>>> load_document(path)
Traceback (most recent call last):
...
answerkey.errors.InputError: ...items.json:2:30: the key 'answer' is given twice
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from answerkey.errors import InputError, RunWarning, did_you_mean, kind_of, line_column
from answerkey.limits import (
    MAX_INPUT_BYTES,
    MAX_JSON_DEPTH,
    MAX_YAML_NODES,
    YAML_EXPANSION,
    YAML_EXPANSION_FLOOR,
)

__all__ = [
    "STDIN",
    "source_name",
    "read_text",
    "decode_json",
    "json_positions",
    "Document",
    "load_document",
    "document_format",
    "DOCUMENT_SUFFIXES",
    "load_yaml",
    "JsonLine",
    "read_jsonl",
    "validation_errors",
    "id_text",
    "read_id",
    "regular_files",
    "OutputError",
    "check_outputs",
    "write_output",
    "output_stream",
    "OUTPUT_SUFFIXES",
    "write_entry",
    "read_entry",
]

STDIN = "<stdin>"
# Python refuses to convert longer digit strings to int (sys.get_int_max_str_digits()).
_MAX_INT_DIGITS = 4300


def source_name(path: str | os.PathLike[str]) -> str:
    """The name errors give a path: ``<stdin>`` for ``-``."""
    name = os.fspath(path)
    return STDIN if name == "-" else name


def read_text(path: str | os.PathLike[str], *, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """Read a UTF-8 text file (``-`` is standard input), with errors as ``InputError``.

    A leading byte-order mark is dropped. A FIFO or a device is read like a file (process
    substitution gives one).
    """
    name = os.fspath(path)
    source = source_name(name)
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with open(name, "rb") as handle:
                raw = handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=source) from None
    except FileNotFoundError:
        raise InputError("no such file", source=source) from None
    except OSError as error:
        raise InputError(error.strerror or str(error), source=source) from None
    if len(raw) > max_bytes:
        raise InputError(f"larger than the limit of {max_bytes:,} bytes", source=source)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{raw[error.start]:02x})", source=source, line=line, column=column
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


# ---------------------------------------------------------------------------------- JSON


class _Refused(ValueError):
    """A JSON value the decoder hooks refuse; ``needle`` finds where it is in the text."""

    def __init__(self, message: str, needle: re.Pattern[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.needle = needle


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the key {key!r} is given twice")
            seen.add(key)
    return result


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > _MAX_INT_DIGITS:
        raise _Refused(
            f"an integer of {len(digits):,} digits (more than {_MAX_INT_DIGITS:,})",
            re.compile(rf"-?[0-9]{{{_MAX_INT_DIGITS + 1}}}"),
        )
    return int(digits)


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number", re.compile(r"(?<![\w\"-])" + re.escape(name) + r"\b"))


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_int=_bounded_int, parse_constant=_no_constant)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


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


_JSON_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")\s*(:)?|([{}\[\],])|([^\s{}\[\],:"]+))', re.DOTALL)


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
            positions.setdefault(path, line_column(text, start))
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
        positions.setdefault(path, line_column(text, start))
        expect_value_path = None
        if punctuation == "{":
            stack.append([path, True, 0, None])
        elif punctuation == "[":
            stack.append([path, False, 0, None])
            expect_value_path = (*path, 0)
    return positions


# ---------------------------------------------------------------------------------- JSON Lines


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


# ---------------------------------------------------------------------------------- YAML


def _yaml_loader() -> tuple[Any, type]:
    import yaml

    # libyaml's parser when PyYAML was built with it (3x faster on a large corpus); the
    # construction of values, which answerkey changes below, is Python either way.
    base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class BoundedSafeLoader(base):
        """Safe loading: duplicate keys reported, keys read as text, bad scalars located."""

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            if not isinstance(node, yaml.MappingNode):
                return super().construct_mapping(node, deep=deep)
            self.flatten_mapping(node)
            mapping: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        "a mapping key must be a plain value, not a list or a mapping",
                        key_node.start_mark,
                    )
                # `yes:`, `1:` and `2024-01-01:` are the names "yes", "1" and "2024-01-01":
                # every key in answerkey's formats is a name or an id.
                key = key_node.value
                if key in mapping:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r} is given twice", key_node.start_mark
                    )
                mapping[key] = self.construct_object(value_node, deep=deep)
            return mapping

        def construct_yaml_timestamp(self, node: Any) -> Any:
            # PyYAML builds datetime.date(2024, 2, 30) and lets the ValueError escape.
            try:
                return super().construct_yaml_timestamp(node)
            except (ValueError, OverflowError) as error:
                raise yaml.constructor.ConstructorError(
                    None, None, f"not a date: {node.value!r} ({error})", node.start_mark
                ) from None

        def construct_yaml_float(self, node: Any) -> Any:
            # .nan and .inf are not numbers in any answerkey format (JSON has none either).
            value = super().construct_yaml_float(node)
            if value != value or value in (float("inf"), float("-inf")):
                raise yaml.constructor.ConstructorError(
                    None, None, f"{node.value} is not a finite number", node.start_mark
                )
            return value

        def construct_yaml_int(self, node: Any) -> Any:
            # int() refuses more than 4,300 digits with a plain ValueError.
            try:
                return super().construct_yaml_int(node)
            except ValueError:
                raise yaml.constructor.ConstructorError(
                    None, None, f"an integer of more than {_MAX_INT_DIGITS:,} digits", node.start_mark
                ) from None

    loader: Any = BoundedSafeLoader  # PyYAML's stubs do not type add_constructor on a subclass
    loader.add_constructor("tag:yaml.org,2002:timestamp", BoundedSafeLoader.construct_yaml_timestamp)
    loader.add_constructor("tag:yaml.org,2002:int", BoundedSafeLoader.construct_yaml_int)
    loader.add_constructor("tag:yaml.org,2002:float", BoundedSafeLoader.construct_yaml_float)
    return yaml, BoundedSafeLoader


def _check_expansion(node: Any, source: str, text_length: int) -> None:
    """Reject documents whose aliases expand (each use counted, nodes and characters) past
    ``MAX_YAML_NODES`` nodes or ``YAML_EXPANSION`` times the text (a billion laughs, or one
    long value used thousands of times)."""
    import yaml

    budget = YAML_EXPANSION * text_length + YAML_EXPANSION_FLOOR
    sizes: dict[int, tuple[int, int]] = {}
    # Iterative post-order walk; the composed graph shares aliased nodes, so memoise by id.
    stack = [(node, False, 0)]
    while stack:
        current, done, depth = stack.pop()
        if id(current) in sizes:
            continue
        mark = current.start_mark
        if isinstance(current, yaml.ScalarNode):
            sizes[id(current)] = (1, len(current.value))
            continue
        children = (
            [child for pair in current.value for child in pair]
            if isinstance(current, yaml.MappingNode)
            else list(current.value)
        )
        if depth >= MAX_JSON_DEPTH:
            raise _too_deep(current, source)
        if not done:
            stack.append((current, True, depth))
            stack.extend((child, False, depth + 1) for child in children if id(child) not in sizes)
            continue
        nodes = 1 + sum(sizes[id(child)][0] for child in children)
        characters = sum(sizes[id(child)][1] for child in children)
        if nodes > MAX_YAML_NODES or characters > budget:
            what = f"{MAX_YAML_NODES:,} nodes" if nodes > MAX_YAML_NODES else f"{budget:,} characters"
            raise InputError(
                f"aliases expand the document to more than {what}: write repeated values out, "
                "or refer to them less often",
                source=source,
                line=mark.line + 1,
                column=mark.column + 1,
            )
        sizes[id(current)] = (nodes, characters)


def _too_deep(node: Any, source: str) -> InputError:
    mark = node.start_mark
    return InputError(
        f"nested deeper than {MAX_JSON_DEPTH} levels", source=source, line=mark.line + 1, column=mark.column + 1
    )


def _check_depth(node: Any, source: str) -> None:
    """Reject a document (without aliases) whose values nest deeper than ``MAX_JSON_DEPTH``."""
    import yaml

    stack = [(node, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, yaml.ScalarNode):
            continue
        if depth >= MAX_JSON_DEPTH:
            raise _too_deep(current, source)
        if isinstance(current, yaml.MappingNode):
            stack.extend((value, depth + 1) for _, value in current.value)
        else:
            stack.extend((child, depth + 1) for child in current.value)


def _record_positions(node: Any, positions: dict[tuple[Any, ...], tuple[int, int]]) -> None:
    import yaml

    stack: list[tuple[tuple[Any, ...], Any]] = [((), node)]
    seen: set[int] = set()
    while stack:
        path, current = stack.pop()
        positions.setdefault(path, (current.start_mark.line + 1, current.start_mark.column + 1))
        if id(current) in seen:
            continue  # an alias: its own subtree was recorded where the anchor stands
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            for key_node, value_node in current.value:
                if isinstance(key_node, yaml.ScalarNode):
                    key = key_node.value
                    positions.setdefault(
                        (*path, key), (value_node.start_mark.line + 1, value_node.start_mark.column + 1)
                    )
                    stack.append(((*path, key), value_node))
        elif isinstance(current, yaml.SequenceNode):
            for index, item in enumerate(current.value):
                stack.append(((*path, index), item))


def _yaml_surrogate(data: Any, text: str, source: str) -> InputError | None:
    """A lone surrogate escape (``"\\ud800"``) in a double-quoted YAML scalar."""
    if "\\" not in text or not re.search(r"\\[uU]0*[dD][89a-fA-F]", text):
        return None
    stack = [data]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            if _SURROGATE.search(current):
                match = re.search(r"\\(u|U0000)[dD][89a-fA-F][0-9a-fA-F]{2}", text)
                line, column = line_column(text, match.start()) if match else (None, None)
                return InputError(
                    "a string holds half of a UTF-16 surrogate pair, which is not a character",
                    source=source,
                    line=line,
                    column=column,
                )
        elif isinstance(current, dict):
            stack.extend(current.values())
            stack.extend(current.keys())
        elif isinstance(current, list):
            stack.extend(current)
    return None


def _reader_error(error: Any, text: str, source: str) -> InputError:
    """A character YAML does not allow (a control character), at its place."""
    line, column = line_column(text, error.position)
    character = ord(error.character) if isinstance(error.character, str) else error.character
    return InputError(f"character U+{character:04X} is not allowed in YAML", source=source, line=line, column=column)


def load_yaml(text: str, *, source: str = "<yaml>") -> Document:
    """Load one YAML document safely: no tags that build objects, keys read as text,
    duplicate keys rejected, alias expansion and depth bounded. Errors are ``InputError`` at
    the offending place.

    >>> load_yaml("- id: q1\\n  answer: 5\\n").locate((0, "answer"))
    (2, 11)
    >>> load_yaml("yes: 1\\n2: 2\\n").data
    {'yes': 1, '2': 2}
    """
    yaml, loader_class = _yaml_loader()
    try:
        # The reader rejects non-printable characters already while the loader is built.
        loader = loader_class(text)
    except yaml.reader.ReaderError as error:
        raise _reader_error(error, text, source) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(None, source, "yaml", {})
        if "&" in text:  # without an anchor there is no alias to expand
            _check_expansion(node, source, len(text))
        else:
            _check_depth(node, source)
        data = loader.construct_document(node)
    except yaml.reader.ReaderError as error:
        raise _reader_error(error, text, source) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        message = " ".join(part for part in (error.context, error.problem) if part) or "invalid YAML"
        if "invalid Unicode character escape" in message and mark is not None:  # libyaml's words for "\ud800"
            message = "an escape in a quoted string is not a character (half of a UTF-16 surrogate pair?)"
            escape = text.rfind("\\", 0, mark.index + 1)  # libyaml points inside the escape
            if escape >= 0:
                line, column = line_column(text, escape)
                raise InputError(message, source=source, line=line, column=column) from None
        raise InputError(
            message, source=source, line=mark.line + 1 if mark else None, column=mark.column + 1 if mark else None
        ) from None
    except yaml.YAMLError as error:
        raise InputError(f"invalid YAML: {error}", source=source) from None
    except RecursionError:
        raise InputError("nested too deeply", source=source) from None
    finally:
        loader.dispose()
    surrogate = _yaml_surrogate(data, text, source)
    if surrogate is not None:
        raise surrogate
    return Document(data, source, "yaml", node=node)


# ---------------------------------------------------------------------------------- documents


@dataclass
class Document:
    """A JSON, JSON Lines or YAML document as plain values, and where each value stands.

    For JSON Lines, ``data`` is the list of the lines' values (lines that failed to decode are
    in ``problems`` and left out; ``lines[i]`` is the line of ``data[i]``).
    """

    data: Any
    source: str
    format: str
    positions: dict[tuple[Any, ...], tuple[int, int]] | None = None
    text: str = field(default="", repr=False)
    node: Any = field(default=None, repr=False)
    lines: list[int] = field(default_factory=list, repr=False)
    problems: list[InputError] = field(default_factory=list)
    _line_texts: list[str] | None = field(default=None, repr=False, compare=False)

    def locate(self, path: Iterable[Any] = ()) -> tuple[int | None, int | None]:
        """The (line, column) of the value at ``path`` (keys and indexes from the root), or of
        its nearest ancestor whose place is known."""
        path = tuple(path)
        if self.format == "jsonl":
            if not path or not isinstance(path[0], int) or not 0 <= path[0] < len(self.lines):
                return (None, None)
            line = self.lines[path[0]]
            rest = path[1:]
            if not rest:
                return (line, 1)
            if self._line_texts is None:
                # Split when an error first needs a place inside a line: most never do.
                self._line_texts = self.text.split("\n")
            inner = json_positions(self._line_texts[line - 1])
            while rest and rest not in inner:
                rest = rest[:-1]
            return (line, inner.get(rest, (1, 1))[1])
        if self.positions is None:
            # Found when an error first needs a place: most documents never need one.
            if self.format == "yaml":
                self.positions = {}
                if self.node is not None:
                    _record_positions(self.node, self.positions)
            else:
                self.positions = json_positions(self.text)
        while path:
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), (None, None))

    def error(self, message: str, path: Iterable[Any] = ()) -> InputError:
        """An ``InputError`` located at the value at ``path``."""
        line, column = self.locate(path)
        return InputError(message, source=self.source, line=line, column=column)


# File name suffix -> document format.
DOCUMENT_SUFFIXES = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".yaml": "yaml", ".yml": "yaml"}


def document_format(source: str, text: str) -> str:
    """``json``, ``jsonl`` or ``yaml`` by the file name's suffix; for other names (and
    standard input) JSON Lines when the first line is a whole JSON object, JSON when the text
    starts with ``{`` or ``[``, else YAML.

    >>> document_format("-", '{"id": 1}\\n'), document_format("-", '{\\n "q1": "1"\\n}'), document_format("x", "a: 1")
    ('jsonl', 'json', 'yaml')
    """
    suffix = os.path.splitext(source)[1].lower()
    if suffix in DOCUMENT_SUFFIXES:
        return DOCUMENT_SUFFIXES[suffix]
    start = text.lstrip()
    if start.startswith("{"):
        first = start.split("\n", 1)[0]
        try:
            whole = isinstance(json.loads(first), dict)
        except (ValueError, RecursionError):
            whole = False
        return "jsonl" if whole else "json"
    return "json" if start.startswith("[") else "yaml"


def load_document(path: str | os.PathLike[str], *, format: str | None = None, text: str | None = None) -> Document:
    """Read ``path`` (``-``: standard input) as a JSON, JSON Lines or YAML document.

    The format is ``format``, else chosen by ``document_format``. Bad JSON Lines lines are
    collected in ``Document.problems`` (the other lines load); any other problem raises
    ``InputError`` at its place.
    """
    source = source_name(path)
    if text is None:
        text = read_text(path)
    chosen = format or document_format(source, text)
    if chosen == "yaml":
        return load_yaml(text, source=source)
    if chosen == "json":
        return Document(decode_json(text, source=source), source, "json", text=text)
    if chosen == "jsonl":
        document = Document([], source, "jsonl", text=text)
        for entry in read_jsonl(text, source=source):
            if entry.error is not None:
                document.problems.append(entry.error)
            else:
                document.data.append(entry.value)
                document.lines.append(entry.line)
        return document
    raise ValueError(f"unknown document format {chosen!r}; known: json, jsonl, yaml")


# ---------------------------------------------------------------------------------- schemas


def _schema_names(model: Any) -> set[str]:
    """Every property name in a pydantic model's JSON Schema (for "did you mean")."""
    names: set[str] = set()
    try:
        schema = model.model_json_schema()
    except Exception:  # noqa: BLE001 - a schema that cannot be printed only loses suggestions
        return names
    stack: list[Any] = [schema]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            properties = current.get("properties")
            if isinstance(properties, dict):
                names.update(properties)
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return names


_EXPECTED = {
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "tuple_type": "a list",
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
}


def _message(detail: Mapping[str, Any], known: set[str]) -> str:
    """One pydantic error in answerkey's words (no "Input should be", no Python type names)."""
    kind = detail.get("type", "")
    loc = detail.get("loc", ())
    given = detail.get("input")
    if kind == "missing":
        return "missing; this field is required"
    if kind == "extra_forbidden":
        name = str(loc[-1]) if loc else ""
        return "unknown field" + did_you_mean(name, sorted(known))
    if kind in _EXPECTED:
        return f"should be {_EXPECTED[kind]}, not {kind_of(given)}"
    if kind == "string_too_short" and detail.get("ctx", {}).get("min_length") == 1:
        return "should not be empty"
    message = str(detail.get("msg", "invalid"))
    for prefix in ("Value error, ", "Assertion failed, "):
        if message.startswith(prefix):
            message = message[len(prefix) :]
    if message.startswith("Input should be"):
        message = "should be" + message[len("Input should be") :]
    return message


def validation_errors(
    error: Any,
    *,
    source: str,
    locate: Callable[[tuple[Any, ...]], tuple[int | None, int | None]],
    model: Any = None,
    prefix: tuple[Any, ...] = (),
) -> list[InputError]:
    """A pydantic ``ValidationError`` as located ``InputError`` values, in answerkey's words.

    ``locate`` maps a key path to a position (``Document.locate``); ``prefix`` is the path of
    the validated value in the document; ``model``, when given, supplies field names for
    "did you mean" hints.
    """
    known = _schema_names(model) if model is not None else set()
    found = []
    for detail in error.errors(include_url=False):
        loc = tuple(part for part in detail.get("loc", ()) if not (isinstance(part, str) and "[" in part))
        line, column = locate((*prefix, *loc))
        where = ".".join(str(part) for part in loc)
        message = _message(detail, known)
        found.append(InputError(f"{where}: {message}" if where else message, source=source, line=line, column=column))
    return found


def id_text(value: object) -> str | None:
    """The text of an id (an item, test, case or db id): text as given, an integer as its
    digits; None for anything else (``1.0`` or ``true`` would not read back as written).

    >>> id_text(7), id_text("q1"), id_text(1.0), id_text(True)
    ('7', 'q1', None, None)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) else None


def read_id(value: Any, what: str = "an id") -> Any:
    """``id_text`` as a schema validator (a pydantic ``BeforeValidator``): null stays null,
    anything else that is not an id is a ``ValueError`` worded for the user, the same rule in
    every file format.

    >>> read_id(7), read_id(None)
    ('7', None)
    >>> read_id(1.0)
    Traceback (most recent call last):
    ...
    ValueError: an id is a string or an integer, not a number
    """
    text = id_text(value)
    if text is not None or value is None:
        return text
    raise ValueError(f"{what} is a string or an integer, not {kind_of(value)}")


# ---------------------------------------------------------------------------------- directories


def _kind_of_file(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def regular_files(
    root: str | os.PathLike[str], suffixes: Iterable[str], *, hidden: bool = False, recursive: bool = True
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The regular files under ``root`` whose names end in one of ``suffixes`` (sorted), and
    (path, why) for each entry skipped because it is not a regular file (a FIFO, a device, a
    broken or looping link; with ``recursive=False``, a directory): those would hang or fail a
    read. Hidden entries are passed over unless ``hidden``; linked directories are not followed.

    >>> import os, tempfile
    >>> root = tempfile.mkdtemp(); os.mkfifo(os.path.join(root, "b.yaml"))
    >>> _ = open(os.path.join(root, "a.yaml"), "w").close(); os.symlink("loop", os.path.join(root, "loop"))
    >>> found, skipped = regular_files(root, [""])
    >>> [path.name for path in found], [(path.name, why) for path, why in skipped]
    (['a.yaml'], [('b.yaml', 'a FIFO'), ('loop', 'Too many levels of symbolic links')])
    """
    wanted = tuple(suffix.lower() for suffix in suffixes)
    found: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(name for name in subdirectories if hidden or not name.startswith("."))
        if not recursive:
            names = [*names, *subdirectories]
            subdirectories[:] = []
        for name in sorted(names):
            if not hidden and name.startswith("."):
                continue
            if not name.lower().endswith(wanted):
                continue
            path = Path(directory, name)
            try:
                mode = os.stat(path).st_mode
            except OSError as error:
                skipped.append((path, error.strerror or str(error)))
                continue
            if stat.S_ISREG(mode):
                found.append(path)
            else:
                skipped.append((path, _kind_of_file(mode)))
    return sorted(found), skipped


# ---------------------------------------------------------------------------------- writing


class OutputError(InputError):
    """An output that cannot be written; names the user's path, never a temporary file."""


# What each report format's file names usually end in.
OUTPUT_SUFFIXES = {
    "json": (".json",),
    "yaml": (".yaml", ".yml"),
    "xlsx": (".xlsx",),
    "jsonl": (".jsonl",),
    "tsv": (".tsv",),
}
_KNOWN_SUFFIXES = {suffix for suffixes in OUTPUT_SUFFIXES.values() for suffix in suffixes} | {
    ".csv",
    ".tsv",
    ".txt",
    ".cas",
    ".xls",
    ".ndjson",
}


def _same_file(path: str, other: str) -> bool:
    try:
        return os.path.samefile(path, other)
    except OSError:
        return os.path.realpath(path) == os.path.realpath(other)


def check_outputs(
    outputs: Mapping[str, tuple[str | None, str]],
    inputs: Mapping[str, str | None] | None = None,
) -> list[RunWarning]:
    """Check report outputs before a run: ``outputs`` maps an option name (``--json``) to
    (path or None, format); ``inputs`` maps a name (``CORPUS``) to an input path.

    Raises ``OutputError`` for an output that is an input, a directory, in a directory that
    does not exist, given twice, or ``-`` twice or for a workbook; returns a warning for a
    file name whose suffix belongs to another format.

    >>> check_outputs({"--json": ("report.xlsx", "json")})[0].message
    '--json report.xlsx: the file name ends in .xlsx, but a JSON report is written'
    """
    warnings: list[RunWarning] = []
    to_stdout = [option for option, (path, _) in outputs.items() if path == "-"]
    if len(to_stdout) > 1:
        raise OutputError(f"only one of {' and '.join(to_stdout)} can write to standard output ('-')")
    seen: dict[str, str] = {}
    for option, (path, format) in outputs.items():
        if not path or path == "-":
            if path == "-" and format == "xlsx":
                raise OutputError(f"{option} needs a file name: a workbook cannot go to standard output")
            continue
        for input_name, input_path in (inputs or {}).items():
            if input_path and input_path != "-" and os.path.exists(path) and _same_file(path, input_path):
                raise OutputError(f"{option} {path}: this is the input {input_name}; refusing to overwrite it")
        special = os.path.exists(path) and not os.path.isfile(path)
        for other_option, other in seen.items():
            if not special and (
                _same_file(path, other) if os.path.exists(path) else os.path.abspath(path) == os.path.abspath(other)
            ):
                raise OutputError(f"{option} and {other_option} both write to {path}")
        seen[option] = path
        if os.path.isdir(path):
            raise OutputError(f"{option} {path}: is a directory; give a file name")
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise OutputError(f"{option} {path}: no such directory {os.path.dirname(path) or '.'}")
        suffix = os.path.splitext(path)[1].lower()
        expected = OUTPUT_SUFFIXES.get(format, ())
        if not special and suffix in _KNOWN_SUFFIXES and suffix not in expected:
            what = {
                "json": "a JSON report",
                "yaml": "a YAML report",
                "xlsx": "an Excel workbook",
                "jsonl": "JSON Lines",
                "tsv": "a TSV file",
            }.get(format, format)
            warnings.append(
                RunWarning(f"{option} {path}: the file name ends in {suffix}, but {what} is written", "output-suffix")
            )
    return warnings


_TEMPORARY = ".answerkey-tmp"


def _remove_stale_temporaries(directory: str, name: str) -> None:
    """Temporary files of earlier writes to ``name`` whose process is gone (killed mid-write)."""
    prefix = f".{name}."
    with contextlib.suppress(OSError):
        for entry in os.listdir(directory):
            if not (entry.startswith(prefix) and entry.endswith(_TEMPORARY)):
                continue
            pid_text = entry[len(prefix) : -len(_TEMPORARY)].split("-")[0]
            if not pid_text.isdigit():
                continue
            try:
                os.kill(int(pid_text), 0)
                continue  # still running: another writer's file
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, entry))


def _open_temporary(directory: str, name: str) -> tuple[str, int]:
    for attempt in range(100):
        temporary = os.path.join(directory, f".{name}.{os.getpid()}-{attempt}{_TEMPORARY}")
        try:
            # 0o666 less the umask, as for any new file.
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {name}")


@contextlib.contextmanager
def output_stream(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary stream whose bytes end up at ``path``; raises ``OutputError`` naming ``path``.

    ``-`` is standard output. A regular file (or a new one) is written to a temporary file
    beside it that replaces it only when the block ends without error, keeping an existing
    file's mode; anything else (a device, a FIFO, a terminal) is written directly. A symbolic
    link is followed: the file it points to is replaced, the link stays.
    """
    name = os.fspath(path)
    if name == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    try:
        target = os.path.realpath(name)
        try:
            info: os.stat_result | None = os.stat(name)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "is a directory")
        if info is not None and not stat.S_ISREG(info.st_mode):
            with open(name, "wb") as direct:
                yield direct
            return
        directory, base = os.path.split(target)
        _remove_stale_temporaries(directory, base)
        temporary, descriptor = _open_temporary(directory, base)
    except OSError as error:
        raise OutputError(f"cannot write {name}: {error.strerror or error}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if info is not None:
            os.chmod(temporary, stat.S_IMODE(info.st_mode))
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                with contextlib.suppress(OSError):
                    os.chown(temporary, info.st_uid, info.st_gid)
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError) and not isinstance(error, OutputError):
            raise OutputError(f"cannot write {name}: {error.strerror or error}") from None
        raise


def write_output(path: str | os.PathLike[str], content: str | bytes) -> None:
    """Write ``content`` (text is UTF-8) to ``path`` as ``output_stream`` does."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with output_stream(path) as stream:
        stream.write(data)


# A cache entry's temporary file starts with a dot and ends so: never an entry's name, never read.
_ENTRY_TEMPORARY_SUFFIX = ".tmp"


def write_entry(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, creating its directory when missing: into a
    temporary file of a unique name beside it (``.<name>.<pid>-<random hex>.tmp``, unique
    across the machines sharing a directory), renamed over ``path``; the temporary is removed
    when anything fails, and the ``OSError`` raised. A reader sees the old entry, the new one
    or none, never part of one.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "ab", "abc.json")
    >>> write_entry(path, b"{}"); open(path).read(), os.listdir(os.path.dirname(path))
    ('{}', ['abc.json'])
    """
    # No fsync, unlike write_output (whose outputs are the user's reports): a flush to the
    # disk costs a millisecond or more per entry, most of what filling a cache cost. Without
    # it, a process killed mid-write still leaves no partial entry (the rename is atomic);
    # only a crash of the machine may leave an entry empty or cut short, which the caches'
    # readers refuse (it must parse, be of their format and hold its own key) and compute
    # again: an entry lost is only recomputed.
    directory, name = os.path.split(path)
    temporary = os.path.join(directory, f".{name}.{os.getpid()}-{secrets.token_hex(8)}{_ENTRY_TEMPORARY_SUFFIX}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(temporary, flags, 0o666)  # 0o666 less the umask, as for any new file
    except FileNotFoundError:
        os.makedirs(directory, exist_ok=True)
        descriptor = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_entry(path: str, max_bytes: int) -> bytes:
    """The bytes of the cache entry at ``path``, which ``write_entry`` wrote: a regular file of
    at most ``max_bytes``. ``FileNotFoundError`` when there is none; ``ValueError`` saying why
    when it is something else (a FIFO would block the run, a device or a sparse file hold no end
    of bytes, a symbolic link points anywhere) or too large; ``OSError`` when it cannot be read.
    Checked before it is opened and again on the open file, which is opened without blocking
    and without following a link, so nothing swapped in between is read.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "ab", "abc.json")
    >>> write_entry(path, b"{}"); read_entry(path, 2)
    b'{}'
    >>> read_entry(path, 1)
    Traceback (most recent call last):
    ...
    ValueError: it holds 2 bytes, more than the 1 an entry may
    >>> os.mkfifo(path + ".fifo"); read_entry(path + ".fifo", 2)
    Traceback (most recent call last):
    ...
    ValueError: it is not a regular file
    """
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise ValueError("it is not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:  # replaced by a link since lstat
            raise ValueError("it is not a regular file") from None
        raise
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise ValueError("it is not a regular file")
        if status.st_size > max_bytes:
            raise ValueError(f"it holds {status.st_size:,} bytes, more than the {max_bytes:,} an entry may")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise ValueError(f"it holds more than the {max_bytes:,} bytes an entry may")
    return data
