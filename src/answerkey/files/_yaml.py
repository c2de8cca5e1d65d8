"""YAML read safely, within limits on aliases, nodes and depth (``answerkey.files``)."""

from __future__ import annotations

import re
from typing import Any

from answerkey.errors import InputError, line_column
from answerkey.files._document import Document
from answerkey.files._json import MAX_INT_DIGITS, SURROGATE
from answerkey.limits import (
    MAX_JSON_DEPTH,
    MAX_YAML_NODES,
    YAML_EXPANSION,
    YAML_EXPANSION_FLOOR,
)


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
                    None, None, f"an integer of more than {MAX_INT_DIGITS:,} digits", node.start_mark
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


def _yaml_surrogate(data: Any, text: str, source: str) -> InputError | None:
    """A lone surrogate escape (``"\\ud800"``) in a double-quoted YAML scalar."""
    if "\\" not in text or not re.search(r"\\[uU]0*[dD][89a-fA-F]", text):
        return None
    stack = [data]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            if SURROGATE.search(current):
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


# Characters that may introduce a YAML node (a value, a collection, an alias): a document
# holds at most one more node than it has of these.
_NODE_STARTS = (",", "[", "{", ":", "-", "\n", "?")


def _node_bound(text: str) -> int:
    """An upper bound on the nodes of ``text``, from one pass of ``str.count`` per character."""
    return 1 + sum(text.count(character) for character in _NODE_STARTS)


def _check_node_count(text: str, source: str) -> None:
    """Refuse, at the first node past ``MAX_YAML_NODES``, a document holding more nodes (aliases
    counted once each: their expansion is bounded apart), counted from the parser's events
    before any node is built: composing 3,000,000 nodes took 41 s and 3.2 GB. A text the
    parser refuses is left to the loader, which says why."""
    yaml, loader_class = _yaml_loader()
    loader = loader_class(text)
    nodes = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent, yaml.AliasEvent)
    count = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, nodes):
                count += 1
                if count > MAX_YAML_NODES:
                    mark = event.start_mark
                    raise InputError(
                        f"the document holds more than {MAX_YAML_NODES:,} values (YAML nodes); split it",
                        source=source,
                        line=mark.line + 1,
                        column=mark.column + 1,
                    )
    except yaml.YAMLError:
        return
    finally:
        loader.dispose()


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
        if _node_bound(text) > MAX_YAML_NODES:
            _check_node_count(text, source)
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
