"""Reading untrusted input files and writing outputs atomically.

Every reader here reports bad input as ``InputError`` with ``FILE:LINE:COL``; every writer
writes to a temporary file beside the target and renames it, so a failure never leaves a
half-written file and never replaces a good one.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from answerkey.errors import InputError

__all__ = [
    "MAX_INPUT_BYTES",
    "read_text",
    "atomic_write",
    "atomic_path",
    "YamlDocument",
    "load_yaml",
    "JsonLine",
    "read_jsonl",
    "validation_errors",
]

MAX_INPUT_BYTES = 512 * 1024 * 1024
# A YAML document may not expand (aliases counted every time they are used) past this many nodes.
MAX_YAML_NODES = 2_000_000
MAX_YAML_DEPTH = 500


def read_text(path: str | os.PathLike, *, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """Read a UTF-8 text file (``-`` is standard input), with errors as ``InputError``."""
    name = os.fspath(path)
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with open(name, "rb") as handle:
                raw = handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=name) from None
    except FileNotFoundError:
        raise InputError("no such file", source=name) from None
    except OSError as error:
        raise InputError(error.strerror or str(error), source=name) from None
    if len(raw) > max_bytes:
        raise InputError(f"larger than the limit of {max_bytes} bytes", source=name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{raw[error.start]:02x})", source=name, line=line, column=column
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on error it goes.

    For writers that want a file name (``openpyxl.Workbook.save``).
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    os.close(handle)
    try:
        yield Path(temporary)
        with open(temporary, "rb+") as written:
            os.fsync(written.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def atomic_write(path: str | os.PathLike, content: str | bytes) -> None:
    """Write ``content`` to ``path`` atomically (``-`` writes to standard output)."""
    if os.fspath(path) == "-":
        if isinstance(content, bytes):
            sys.stdout.buffer.write(content)
        else:
            sys.stdout.write(content)
        sys.stdout.flush()
        return
    data = content.encode("utf-8") if isinstance(content, str) else content
    with atomic_path(path) as temporary:
        temporary.write_bytes(data)


@dataclass
class YamlDocument:
    """A loaded YAML document and where each of its nodes started.

    ``positions`` maps a key path (mapping keys and list indexes from the root) to the
    1-based ``(line, column)`` of that node, so that a validation error's ``loc`` can be
    reported at its place in the file.
    """

    data: Any
    source: str
    positions: dict[tuple, tuple[int, int]] = field(default_factory=dict)

    def locate(self, path: tuple) -> tuple[int, int] | tuple[None, None]:
        """The position of the node at ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), (None, None))

    def error(self, message: str, path: tuple = ()) -> InputError:
        """An ``InputError`` located at the node at ``path``."""
        line, column = self.locate(path)
        return InputError(message, source=self.source, line=line, column=column)


def _yaml_loader():
    import yaml

    class BoundedSafeLoader(yaml.SafeLoader):
        """Safe loading that reports duplicate keys."""

        def construct_mapping(self, node, deep=False):
            if not isinstance(node, yaml.MappingNode):
                return super().construct_mapping(node, deep=deep)
            self.flatten_mapping(node)
            seen: dict[object, object] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    hash(key)
                except TypeError:
                    raise yaml.constructor.ConstructorError(
                        None, None, "a mapping key must be a plain value", key_node.start_mark
                    ) from None
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r}", key_node.start_mark
                    )
                seen[key] = key_node
            return super().construct_mapping(node, deep=deep)

        def construct_yaml_timestamp(self, node):
            # PyYAML builds datetime.date(2024, 2, 30) and lets the ValueError escape.
            try:
                return super().construct_yaml_timestamp(node)
            except (ValueError, OverflowError) as error:
                raise yaml.constructor.ConstructorError(
                    None, None, f"not a date: {node.value!r} ({error})", node.start_mark
                ) from None

        def construct_yaml_int(self, node):
            # int() refuses more than 4300 digits with a plain ValueError.
            try:
                return super().construct_yaml_int(node)
            except ValueError as error:
                raise yaml.constructor.ConstructorError(
                    None, None, f"not a usable integer: {error}", node.start_mark
                ) from None

    BoundedSafeLoader.add_constructor("tag:yaml.org,2002:timestamp", BoundedSafeLoader.construct_yaml_timestamp)
    BoundedSafeLoader.add_constructor("tag:yaml.org,2002:int", BoundedSafeLoader.construct_yaml_int)
    return yaml, BoundedSafeLoader


def _check_expansion(node, source: str) -> None:
    """Reject documents whose aliases would expand past MAX_YAML_NODES (billion laughs)."""
    import yaml

    sizes: dict[int, int] = {}
    # Iterative post-order walk; the composed graph shares aliased nodes, so memoise by id.
    stack = [(node, False, 0)]
    while stack:
        current, done, depth = stack.pop()
        if id(current) in sizes:
            continue
        if depth > MAX_YAML_DEPTH:
            mark = current.start_mark
            raise InputError(
                f"nested deeper than {MAX_YAML_DEPTH} levels",
                source=source, line=mark.line + 1, column=mark.column + 1,
            )
        if isinstance(current, yaml.ScalarNode):
            sizes[id(current)] = 1
            continue
        children = (
            [child for pair in current.value for child in pair]
            if isinstance(current, yaml.MappingNode)
            else list(current.value)
        )
        if not done:
            stack.append((current, True, depth))
            stack.extend((child, False, depth + 1) for child in children if id(child) not in sizes)
            continue
        total = 1 + sum(sizes[id(child)] for child in children)
        if total > MAX_YAML_NODES:
            mark = current.start_mark
            raise InputError(
                f"aliases expand to more than {MAX_YAML_NODES} nodes (an alias bomb?)",
                source=source, line=mark.line + 1, column=mark.column + 1,
            )
        sizes[id(current)] = total


def _record_positions(node, positions: dict) -> None:
    import yaml

    stack = [((), node)]
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
                        path + (key,), (value_node.start_mark.line + 1, value_node.start_mark.column + 1)
                    )
                    stack.append((path + (key,), value_node))
        elif isinstance(current, yaml.SequenceNode):
            for index, item in enumerate(current.value):
                stack.append((path + (index,), item))


def load_yaml(text: str, *, source: str = "<yaml>") -> YamlDocument:
    """Load one YAML document safely: no tags that build objects, duplicate keys rejected,
    alias expansion and depth bounded. Errors are ``InputError`` at the offending place.

    >>> load_yaml("- id: q1\\n  answer: 5\\n").positions[(0, "answer")]
    (2, 11)
    """
    yaml, loader_class = _yaml_loader()
    try:
        # The reader rejects non-printable characters already while the loader is built.
        loader = loader_class(text)
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        column = error.position - (text.rfind("\n", 0, error.position) + 1) + 1
        raise InputError(
            f"character U+{ord(error.character) if isinstance(error.character, str) else error.character:04X} "
            "is not allowed in YAML",
            source=source, line=line, column=column,
        ) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDocument(None, source, {})
        _check_expansion(node, source)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        message = " ".join(part for part in (error.context, error.problem) if part) or "invalid YAML"
        raise InputError(
            message,
            source=source,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as error:
        raise InputError(f"invalid YAML: {error}", source=source) from None
    except RecursionError:
        raise InputError("nested too deeply", source=source) from None
    finally:
        loader.dispose()
    positions: dict[tuple, tuple[int, int]] = {}
    _record_positions(node, positions)
    return YamlDocument(data, source, positions)


@dataclass(frozen=True)
class JsonLine:
    """One line of a JSONL file: its 1-based line number and its value or its error."""

    line: int
    value: Any = None
    error: InputError | None = None


def read_jsonl(text: str, *, source: str = "<jsonl>") -> list[JsonLine]:
    """Parse JSON Lines; blank lines are skipped and a bad line becomes an error entry
    (with its line and column) instead of stopping the read.

    >>> [entry.value for entry in read_jsonl('{"id": 1}\\n\\n{"id": 2}\\n')]
    [{'id': 1}, {'id': 2}]
    """
    entries = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            entries.append(JsonLine(number, json.loads(line)))
        except json.JSONDecodeError as error:
            entries.append(JsonLine(number, error=InputError(
                f"invalid JSON: {error.msg}", source=source, line=number, column=error.colno
            )))
        except (RecursionError, ValueError) as error:
            message = "nested too deeply" if isinstance(error, RecursionError) else str(error)
            entries.append(JsonLine(number, error=InputError(message, source=source, line=number, column=1)))
    return entries


def validation_errors(
    error, *, source: str, locate: Callable[[tuple], tuple[int | None, int | None]]
) -> list[InputError]:
    """Turn a pydantic ``ValidationError`` into located ``InputError`` values.

    ``locate`` maps a pydantic ``loc`` (a key path) to a position, for example
    ``YamlDocument.locate`` with the item's own path prefixed.
    """
    found = []
    for detail in error.errors(include_url=False):
        loc = tuple(detail.get("loc", ()))
        line, column = locate(loc)
        where = ".".join(str(part) for part in loc)
        message = f"{where}: {detail['msg']}" if where else detail["msg"]
        found.append(InputError(message, source=source, line=line, column=column))
    return found
