"""SQL text: the outer ORDER BY and the select list, for sort keys.

A small hand-written tokenizer (to be replaced by sqlglot): it finds the outermost
``ORDER BY`` and resolves its terms to result columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple


class _Token(NamedTuple):
    kind: str  # word, quoted, string, number, punct
    text: str
    key: str  # identifiers lowercased and unquoted; anything else as written
    depth: int  # parentheses around the token


_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
    |(?P<comment>--[^\n]*|/\*.*?(?:\*/|\Z))
    |(?P<string>'(?:[^']|'')*(?:'|\Z))
    |(?P<quoted>"(?:[^"]|"")*(?:"|\Z)|`(?:[^`]|``)*(?:`|\Z)|\[[^\]]*(?:\]|\Z))
    |(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
    |(?P<word>[^\W\d]\w*|[$@:?]\w*)
    |(?P<punct><=|>=|<>|!=|==|\|\||::|->>|->|.)
    """,
    re.VERBOSE | re.DOTALL,
)

# Words that end the select list of a SELECT at its own level.
_SELECT_END = frozenset(
    {"from", "where", "group", "having", "window", "order", "limit", "offset", "union", "intersect", "except"}
    | {"into", "fetch", "qualify"}
)
# Words that end an ORDER BY clause.
_ORDER_END = frozenset({"limit", "offset", "fetch", "for"})
# Words that cannot end an expression, so the identifier after them is not an alias.
_OPERATOR_WORDS = frozenset(
    {"and", "or", "not", "is", "in", "like", "glob", "regexp", "match", "between", "collate", "escape", "ilike"}
    | {"then", "else", "when", "case", "as", "distinct", "all", "by", "on", "select", "similar", "to", "exists"}
    | {"interval", "date", "time", "timestamp"}
)
# Words that are values or expression ends, never aliases.
_NOT_ALIASES = _OPERATOR_WORDS | {"end", "null", "true", "false"}


def _tokens(sql: str) -> list[_Token]:
    """The tokens of the first statement, comments dropped, each with its depth."""
    tokens: list[_Token] = []
    depth = 0
    for match in _TOKEN.finditer(sql):
        kind = match.lastgroup or "punct"
        text = match.group()
        if kind in ("space", "comment"):
            continue
        if kind == "word":
            key = text.lower()
        elif kind == "quoted":
            closing = {'"': '"', "`": "`", "[": "]"}[text[0]]
            body = text[1:-1] if len(text) > 1 and text.endswith(closing) else text[1:]
            key = body.replace(closing * 2, closing).lower() if closing != "]" else body.lower()
        else:
            key = text
        if text == ")":
            depth -= 1
            if depth < 0:
                break  # unbalanced: what follows is not part of this query
        if text == ";" and depth == 0:
            break
        tokens.append(_Token(kind, text, key, depth))
        if text == "(":
            depth += 1
    return tokens


def _is_word(token: _Token, *words: str) -> bool:
    return token.kind == "word" and token.key in words


def _split_commas(tokens: Sequence[_Token], depth: int) -> list[list[_Token]]:
    parts: list[list[_Token]] = [[]]
    for token in tokens:
        if token.text == "," and token.depth == depth:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _order_by_at(tokens: Sequence[_Token]) -> int | None:
    """The index of the outer ORDER BY's ``BY``: the last ``ORDER BY`` outside parentheses."""
    found = None
    for index in range(len(tokens) - 1):
        if tokens[index].depth == 0 and _is_word(tokens[index], "order") and _is_word(tokens[index + 1], "by"):
            found = index + 1
    return found


def has_outer_order_by(sql: str) -> bool:
    """Whether the query's outermost SELECT (or compound SELECT) has ``ORDER BY``: not one in
    a subquery, a window or an aggregate, a string literal or a comment.

    >>> has_outer_order_by("SELECT a FROM t ORDER BY a")
    True
    >>> has_outer_order_by("SELECT * FROM (SELECT a FROM t ORDER BY a)")
    False
    >>> has_outer_order_by("SELECT 'order by' FROM t -- ORDER BY a")
    False
    """
    return _order_by_at(_tokens(sql)) is not None


def _order_terms(tokens: Sequence[_Token]) -> list[list[_Token]] | None:
    """The outer ORDER BY's terms, their ASC/DESC, NULLS and COLLATE dropped."""
    at = _order_by_at(tokens)
    if at is None:
        return None
    clause: list[_Token] = []
    for token in tokens[at + 1 :]:
        if token.depth == 0 and _is_word(token, *_ORDER_END):
            break
        clause.append(token)
    terms = []
    for term in _split_commas(clause, 0):
        while True:
            if len(term) >= 2 and _is_word(term[-2], "nulls") and _is_word(term[-1], "first", "last"):
                term = term[:-2]
            elif term and _is_word(term[-1], "asc", "desc"):
                term = term[:-1]
            elif len(term) >= 2 and _is_word(term[-2], "collate"):
                term = term[:-2]
            else:
                break
        if not term:
            return []
        terms.append(term)
    return terms


@dataclass(frozen=True)
class _SelectItem:
    """One item of a select list: its expression (token keys), alias, and, for a column
    reference, the column's name and its qualifier."""

    expression: tuple[str, ...]
    alias: str | None
    star: bool
    column: str | None
    qualifier: tuple[str, ...] | None


def _column_reference(tokens: Sequence[_Token]) -> tuple[str, tuple[str, ...]] | None:
    """``(name, qualifier)`` when the tokens are ``name`` or ``t.name`` (or ``s.t.name``)."""
    if len(tokens) % 2 == 0:
        return None
    for index, token in enumerate(tokens):
        if index % 2 == 0 and token.kind not in ("word", "quoted"):
            return None
        if index % 2 == 1 and token.text != ".":
            return None
    return tokens[-1].key, tuple(token.key for token in tokens[:-1:2])


def _select_item(tokens: list[_Token]) -> _SelectItem:
    if not tokens:
        return _SelectItem((), None, False, None, None)
    if tokens[-1].text == "*":
        return _SelectItem(tuple(t.key for t in tokens), None, True, None, None)
    alias = None
    last = tokens[-1]
    if len(tokens) >= 3 and _is_word(tokens[-2], "as") and last.kind in ("word", "quoted", "string"):
        alias = last.text[1:-1].replace("''", "'").lower() if last.kind == "string" else last.key
        tokens = tokens[:-2]
    elif len(tokens) >= 2 and (last.kind == "quoted" or (last.kind == "word" and last.key not in _NOT_ALIASES)):
        before = tokens[-2]
        if (
            before.kind in ("quoted", "string", "number")
            or before.text == ")"
            or (before.kind == "word" and before.key not in _OPERATOR_WORDS)
        ):
            alias, tokens = last.key, tokens[:-1]
    reference = _column_reference(tokens)
    column, qualifier = reference if reference is not None else (None, None)
    return _SelectItem(tuple(t.key for t in tokens), alias, False, column, qualifier)


def _select_items(tokens: Sequence[_Token]) -> list[_SelectItem] | None:
    """The items of the outermost SELECT's select list (the first SELECT outside parentheses:
    a CTE's bodies are inside them), or None if there is none."""
    start = next((i for i, t in enumerate(tokens) if t.depth == 0 and _is_word(t, "select")), None)
    if start is None:
        return None
    index = start + 1
    if index < len(tokens) and _is_word(tokens[index], "distinct", "all"):
        index += 1
        if index < len(tokens) and _is_word(tokens[index], "on") and index + 1 < len(tokens):
            index += 2  # DISTINCT ON ( ... ): skip the parenthesised list
            while index < len(tokens) and tokens[index].depth > 0:
                index += 1
            index += 1
    listed: list[_Token] = []
    for token in tokens[index:]:
        if token.depth == 0 and _is_word(token, *_SELECT_END):
            break
        listed.append(token)
    return [_select_item(item) for item in _split_commas(listed, 0)]


def _name_keys(name: str) -> tuple[str, ...]:
    return tuple(token.key for token in _tokens(name))


def _resolve(term: list[_Token], items: list[_SelectItem] | None, names: Sequence[str], width: int) -> int | None:
    """The result column (0-based) an ORDER BY term names, or None."""
    if len(term) == 1 and term[0].kind == "number" and term[0].text.isdigit():
        number = int(term[0].text)
        return number - 1 if 1 <= number <= width else None
    key = tuple(token.key for token in term)
    lowered = [name.lower() for name in names]
    reference = _column_reference(term)
    if reference is not None and not reference[1]:
        # One identifier: an output name (alias) first, as SQL resolves it, then an expression.
        name = reference[0]
        if items is not None:
            for position, item in enumerate(items):
                if item.alias == name:
                    return position
            for position, item in enumerate(items):
                if item.expression == key:
                    return position
        if name in lowered:
            return lowered.index(name)
        if items is not None:
            same = [position for position, item in enumerate(items) if item.column == name]
            if len(same) == 1:
                return same[0]
        return None
    if reference is not None:
        # A qualified column: the select item that is that column, never an alias.
        name, qualifier = reference
        if items is not None:
            for position, item in enumerate(items):
                if item.expression == key:
                    return position
            same = [
                position
                for position, item in enumerate(items)
                if item.column == name and item.qualifier is not None and item.qualifier in ((), qualifier)
            ]
            return same[0] if len(same) == 1 else None
        same = [position for position, lower in enumerate(lowered) if lower == name]
        return same[0] if len(same) == 1 else None
    if items is not None:
        for position, item in enumerate(items):
            if item.expression == key:
                return position
    for position, name in enumerate(names):
        if _name_keys(name) == key:
            return position
    return None


def sort_keys(sql: str, names: Sequence[str], width: int) -> tuple[int, ...] | None:
    """``order_by_keys`` for a result of ``width`` columns named ``names`` (empty names
    where the driver gives none: the terms then resolve by position and select item)."""
    tokens = _tokens(sql)
    terms = _order_terms(tokens)
    if not terms:
        return None
    items = _select_items(tokens)
    if items is not None and (len(items) != width or any(item.star for item in items)):
        items = None  # positions of the items are not the result's: resolve by names only
    keys: list[int] = []
    for term in terms:
        position = _resolve(term, items, names, width)
        if position is None:
            return None
        if position not in keys:
            keys.append(position)
    return tuple(keys)


def order_by_keys(gold_sql: str, columns: Sequence[str]) -> tuple[int, ...] | None:
    """The outer ``ORDER BY`` of ``gold_sql`` as sort keys: 0-based indexes of the result
    ``columns`` (the names the driver gives), each term resolved by position number
    (``ORDER BY 2``), output name or alias, or expression text (``COUNT(*)``, case and
    spacing aside); a qualified column (``t.salary``) by the select item that is that column.
    None when there is no outer ORDER BY, or some term names no result column (a column not
    selected, ``RANDOM()``): then no subset of keys would say the gold's order.

    >>> order_by_keys("SELECT name, salary FROM emp ORDER BY salary DESC", ["name", "salary"])
    (1,)
    >>> order_by_keys("SELECT e.name AS who, count(*) FROM emp e GROUP BY 1 ORDER BY COUNT( * ), who", ["who", "n"])
    (1, 0)
    >>> print(order_by_keys("SELECT name FROM emp ORDER BY salary", ["name"]))
    None
    """
    return sort_keys(gold_sql, list(columns), len(columns))
