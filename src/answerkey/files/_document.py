"""A document read from a file, as plain values, and where each value stands (``answerkey.files``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from answerkey.errors import InputError
from answerkey.files._json import json_positions


def record_positions(node: Any, positions: dict[tuple[Any, ...], tuple[int, int]]) -> None:
    """Add to ``positions`` the (line, column) of every value under the YAML ``node``, keyed
    by its path of keys and indexes (an alias's values are where its anchor stands)."""
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
                    record_positions(self.node, self.positions)
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
