"""A fast path for valid CAS text that builds exactly what the Lark grammar builds.

``parse(text)`` returns the answer or raises ``Defer``; on ``Defer`` the caller parses with
the grammar (``cas.lark``), which also words every error message. The fast path never
reports an error itself, so when in doubt it defers.

How it reads text, in three steps:

1. **Tokens.** When the text has no comment (``;``), no backslash and none of the control
   characters U+001C-U+001F, the tokens are ``text.replace("(", " ( ").replace(")", " ) ")
   .split()``: ``str.split`` splits on exactly the characters Python's regular-expression
   ``\\s`` matches, which (minus U+001C-U+001F) is the grammar's whitespace. A quoted string
   holding a space or a parenthesis is cut by this split; every token containing a quote must
   then be one whole string, or the text is read again in the second mode. Otherwise one
   regular expression (``_TOKEN``) reads whitespace, comments, strings with escapes and bare
   runs, with the grammar's ``(?![^\\s();])`` lookahead, and marks any place it cannot read.
2. **Atoms.** Each distinct token is classified once, by the grammar's own terminal patterns
   in the lexer's priority order (keywords, DATE, DATETIME, TIME, NUMBER, BARE_WORD;
   STRING for quoted tokens), and its value is built by the same functions the grammar's callbacks call
   (``atoms.py``). Because every atom terminal ends with the lookahead, an atom is always a
   whole run of non-space, non-parenthesis characters, so classifying whole tokens is what
   the lexer does.
3. **Structure.** A relation whose tuples all have the arity of the first is cut into
   columns by list slicing (``tokens[start::arity + 2]``) after checking that the parentheses
   sit exactly where that shape puts them; its rows are ``zip(*columns)``. Sort keys
   (``(ORDERED BY 2 3 ...)``: a bare ``by`` right after ORDERED, then plain digits naming
   distinct columns within the arity) are read as the grammar's post-lexer and callbacks
   read them; anything else there defers. Anything else
   (alternatives, scalars, mixed arity, stray keywords) goes through a small parser over the
   tokens with an explicit position; the answer nests at most three levels, so there is no
   recursion. A tuple wider than ``MAX_COLUMNS`` defers at once (for a text without
   comments and escapes, before the text is split), and the grammar refuses it at its first
   value beyond the limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from itertools import repeat
from operator import sub

from answerkey.grammar.atoms import (
    MAX_NUMBER_CHARS,
    BadAtom,
    date_value,
    datetime_value,
    number_value,
    string_value,
    time_value,
)
from answerkey.limits import MAX_COLUMNS
from answerkey.model import (
    NIL,
    NO_ANSWER,
    Alternatives,
    Answer,
    Boolean,
    Date,
    DateTime,
    Failure,
    FailureKind,
    Nil,
    Number,
    Relation,
    String,
    Time,
    Value,
)


class Defer(Exception):
    """The fast path cannot answer for this text: parse it with the grammar."""


class _Resplit(Exception):
    """The whitespace split cut a token the grammar reads whole: tokenize with ``_TOKEN``."""


# The atom terminals of cas.lark as Lark reads them (\xNN escapes decoded, regular-expression
# escapes kept), in the lexer's order (priority, highest first), with their flags.
# tests/grammar/test_fast_parse.py checks they equal the grammar's.
ATOM_TERMINALS: tuple[tuple[str, str, int], ...] = (
    ("NO_ANSWER", "no_answer(?![^\\s();])", re.I),
    ("OR", "or(?![^\\s();])", re.I),
    ("ORDERED", "ordered(?![^\\s();])", re.I),
    ("TRUE", "(true|yes)(?![^\\s();])", re.I),
    ("FALSE", "(false|no)(?![^\\s();])", re.I),
    ("NIL", "nil(?![^\\s();])", re.I),
    ("CONTINGENT_FAILURE", "contingent-failure(?![^\\s();])", re.I),
    ("NECESSARY_FAILURE", "necessary-failure(?![^\\s();])", re.I),
    ("DATE", "([0-9]{2}-[A-Za-z]{3}-([12][0-9]{3}|[0-9]{2})|[0-9]{4}-[0-9]{2}-[0-9]{2})(?![^\\s();])", 0),
    (
        "DATETIME",
        "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?(?![^\\s();])",
        0,
    ),
    ("TIME", "[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?(?![^\\s();])", 0),
    ("NUMBER", "[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?(?![^\\s();])", 0),
    ("BARE_WORD", '[^\\s();"\x00-\x1f\x7f]+(?![^\\s();])', 0),
)
# The body of a string (runs of plain characters, each escape followed by another run) and a
# whole double-quoted string (STRING without its lookahead): possessive repeats without an
# alternation, so that matching keeps no backtracking state per character (see cas.lark).
STRING_BODY = '[^"\\\\\x00-\x1f\x7f]*+(?:\\\\[^\x00-\x1f\x7f][^"\\\\\x00-\x1f\x7f]*+)*+'
QUOTED_STRING = f'"{STRING_BODY}"'
STRING_PATTERN = QUOTED_STRING + "(?![^\\s();])"

_ATOM = re.compile(
    "|".join(
        f"(?P<{name}>(?i:{pattern}))" if flags & re.I else f"(?P<{name}>{pattern})"
        for name, pattern, flags in ATOM_TERMINALS
    )
)
_STRING = re.compile(STRING_PATTERN)

# Whitespace (the grammar's: \s minus U+001C-U+001F) and comments, possessively (never given
# back, so no token can start inside a comment), then one token: a parenthesis, a string or
# a bare run, each with the grammar's lookahead. Where none of these starts, the rest of the
# text becomes one token that no atom pattern accepts (an error: the grammar words it); at
# the end of the text the token is "".
_TOKEN = re.compile(
    r"(?:[^\S\x1c-\x1f]++|;[^\n]*+)*+"
    r"([()]"
    "|" + STRING_PATTERN + r'|[^\s();"]++(?![^\s();])'
    r"|[\s\S]+"
    r"|)"
)
_SPLIT_BREAKERS = (";", "\\", "\x1c", "\x1d", "\x1e", "\x1f")


class _Keyword:
    """A structural keyword token (OR, ORDERED, NO_ANSWER): never a value."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_OR, _ORDERED, _NO_ANSWER = _Keyword("OR"), _Keyword("ORDERED"), _Keyword("NO_ANSWER")
_LPAR, _RPAR = "(", ")"

_KEYWORD_VALUES = {
    "NO_ANSWER": _NO_ANSWER,
    "OR": _OR,
    "ORDERED": _ORDERED,
    "TRUE": Boolean(True),
    "FALSE": Boolean(False),
    "NIL": NIL,
    "CONTINGENT_FAILURE": Failure(FailureKind.CONTINGENT),
    "NECESSARY_FAILURE": Failure(FailureKind.NECESSARY),
}
_VALUE_TYPES = frozenset({Boolean, Number, String, Date, DateTime, Time, Failure})
# Atom terminal -> the function building its value (the grammar's callbacks call the same).
_BUILDERS: dict[str | None, Callable[[str], Value]] = {
    "DATE": date_value,
    "DATETIME": datetime_value,
    "TIME": time_value,
    "NUMBER": number_value,
}


def _tokens(text: str) -> tuple[list[str], bool]:
    """The tokens of ``text`` and whether they came from the whitespace split."""
    if not any(breaker in text for breaker in _SPLIT_BREAKERS):
        if _first_tuple_too_wide(text):
            raise Defer
        return text.replace("(", " ( ").replace(")", " ) ").split(), True
    return _regex_tokens(text), False


def _first_tuple_too_wide(text: str) -> bool:
    """True when the text before its first ')' ends in a run of more than MAX_COLUMNS words
    after a '(' (and no quote): a tuple the grammar refuses, found before the whole text is
    split. Only for text without comments and escapes, where every parenthesis outside a
    string is one; a parenthesis inside a string only shortens the run looked at."""
    close = text.find(")")
    if close < 0:
        return False
    run = text[text.rfind("(", 0, close) + 1 : close]
    return len(run) > 2 * MAX_COLUMNS and '"' not in run and len(run.split(None, MAX_COLUMNS)) > MAX_COLUMNS


def _regex_tokens(text: str) -> list[str]:
    tokens = _TOKEN.findall(text)
    while tokens and not tokens[-1]:
        tokens.pop()
    return tokens


def _atom(token: str, split: bool):
    """The value (or keyword) of one atom token; ``Defer`` if the grammar would object."""
    builder: Callable[[str], Value]
    if token[0] == '"':
        # A quote must open and close one whole string (split tokens may cut one; the rest
        # of the text after an error starts with one).
        if not _STRING.fullmatch(token):
            raise _Resplit if split else Defer
        builder = string_value
    else:
        match = _ATOM.fullmatch(token)
        if match is None:
            raise _Resplit if split else Defer
        kind = match.lastgroup
        if kind in _KEYWORD_VALUES:
            return _KEYWORD_VALUES[kind]
        if kind == "BARE_WORD":
            return String(token)
        builder = _BUILDERS[kind]
    try:
        return builder(token)
    except BadAtom:
        raise Defer from None


def _atoms(tokens: list[str], split: bool) -> dict:
    """Every distinct token mapped to its value; parentheses map to themselves."""
    table: dict = {_LPAR: _LPAR, _RPAR: _RPAR}
    for token in set(tokens):
        if token not in table:
            table[token] = _atom(token, split)
    return table


def parse(text: str) -> Answer:
    """The answer ``text`` denotes, or ``Defer`` (for any error and anything unusual).

    >>> parse('((1 "a") (2 b))').rows[1][1]
    String(text='b')
    """
    tokens, split = _tokens(text)
    try:
        return _read(tokens, split)
    except _Resplit:
        pass
    del tokens  # the split's tokens go (with the exception's frames) before the second read
    return _read(_regex_tokens(text), False)


def _read(tokens: list[str], split: bool) -> Answer:
    if not tokens:
        raise Defer
    relation = _whole_relation(tokens, split)
    if relation is not None:
        return relation
    reader = _Reader(tokens, _atoms(tokens, split))
    answer = reader.answer()
    if reader.position != len(tokens):
        raise Defer
    return answer


def _whole_relation(tokens: list[str], split: bool) -> Relation | None:
    """The answer when the text is one non-empty relation whose tuples all have the first
    tuple's arity (read by columns); None for any other shape."""
    if len(tokens) < 4 or tokens[0] != _LPAR or tokens[1] == _RPAR:
        return None
    start = 1
    keys = None
    if tokens[1] != _LPAR:
        if _atom(tokens[1], split) is not _ORDERED:
            return None
        start = 2
        if tokens[2].lower() == "by":
            keys, start = _sort_keys(tokens, 3)
    ordered = start > 1
    columns = _columns(tokens, start)
    if columns is None:
        return None
    if keys is not None and max(keys) >= len(columns):
        raise Defer  # a key beyond the relation's columns: the grammar words the error
    # The columns hold every token still needed: the token list, and each column of tokens
    # once its values are built, go, so that a large text never holds all tokens and all
    # values at once. (On _Resplit or Defer nobody reads the tokens again.) Columns are read
    # in order: reading those whose tokens are freed first (strings, dates) lowers the peak
    # further but scatters the numbers built next over the freed memory, and the collector's
    # first pass over the new values then takes half as long again.
    tokens.clear()
    values: list = []
    for column in range(len(columns)):
        values.append(_column_values(columns[column], split))
        columns[column] = []
    _check_types(values)
    return Relation.checked(tuple(zip(*values)), len(values), ordered=ordered, order_by=keys)


def _sort_keys(tokens: list[str], position: int) -> tuple[tuple[int, ...], int]:
    """The sort keys after ``(ORDERED BY`` from ``position`` on, as 0-based columns, and the
    position after them; ``Defer`` unless there is at least one, each plain digits naming a
    column from 1, none twice (the grammar's checks; the range is the caller's)."""
    keys: list[int] = []
    seen: set[int] = set()
    while position < len(tokens) and tokens[position] != _LPAR and tokens[position] != _RPAR:
        token = tokens[position]
        if not (token.isascii() and token.isdigit()) or len(token) > _KEY_CHARS:
            raise Defer
        column = int(token) - 1
        if column < 0 or column in seen or len(keys) >= MAX_COLUMNS:
            raise Defer
        keys.append(column)
        seen.add(column)
        position += 1
    if not keys:
        raise Defer
    return tuple(keys), position


# Sort keys longer than this (leading zeros included) are left to the grammar.
_KEY_CHARS = 9


def _column_values(column: list[str], split: bool) -> list:
    """The values of one column of tokens.

    A column of plain numbers (most of a large relation) is built with C-level map/filter,
    no Python call per token: ASCII digits after at most one sign are what NUMBER matches
    without point or exponent, and with exactly one point (and a digit) what it matches
    without exponent; ``Number.parse`` builds the same values from these spellings. Any
    other column maps its distinct tokens through ``_atom`` (a table per column, so that the
    tokens of a column of distinct strings are not kept after it).
    """
    if all(map(str.isascii, column)) and max(map(len, column)) <= MAX_NUMBER_CHARS:
        bodies = list(map(str.lstrip, column, repeat("+-")))
        if max(map(sub, map(len, column), map(len, bodies))) <= 1:
            if all(map(str.isdigit, bodies)):
                return list(map(Number, map(int, column), repeat(False), column))
            if all(map(str.__contains__, bodies, repeat("."))) and all(
                map(str.isdigit, map(str.replace, bodies, repeat("."), repeat(""), repeat(1)))
            ):
                return list(map(Number, map(Decimal, column), repeat(True), column))
    table = {token: _atom(token, split) for token in set(column)}
    return list(map(table.__getitem__, column))


class _Reader:
    """The grammar's structure over classified tokens, read left to right."""

    def __init__(self, tokens: list[str], table: dict) -> None:
        self.tokens = tokens
        self.table = table
        self.position = 0

    def _peek(self, offset: int = 0):
        index = self.position + offset
        if index >= len(self.tokens):
            raise Defer
        return self.table[self.tokens[index]]

    def answer(self) -> Answer:
        first = self._peek()
        if first is _NO_ANSWER:
            self.position += 1
            return NO_ANSWER
        if first is not _LPAR:
            return self._scalar()
        second = self._peek(1)
        # "((" starts a tuple unless the next token cannot start one: then an alternative.
        if second is _LPAR:
            third = self._peek(2)
            alternatives = third is _LPAR or third is _RPAR or third is _ORDERED
        else:
            alternatives = second is not _RPAR and second is not _ORDERED
        if alternatives:
            return self._alternatives()
        return self._relation()

    def _scalar(self) -> Relation:
        value = self._peek()
        if type(value) not in _VALUE_TYPES and value is not NIL:
            raise Defer
        self.position += 1
        return Relation.checked(((value,),), 1, scalar=True)

    def _alternatives(self) -> Alternatives:
        self.position += 1  # "("
        options = []
        while True:
            options.append(self._relation() if self._peek() is _LPAR else self._scalar())
            token = self._peek()
            if token is _OR:
                self.position += 1
                continue
            if token is _RPAR and len(options) >= 2:
                self.position += 1
                return Alternatives(tuple(options))
            raise Defer

    def _relation(self) -> Relation:
        tokens = self.tokens
        get = self.table.__getitem__
        start = self.position + 1
        ordered = self._peek(1) is _ORDERED
        keys = None
        if ordered:
            start += 1
            if start < len(tokens) and tokens[start].lower() == "by":
                keys, start = _sort_keys(tokens, start + 1)
        rows = []
        position = start
        try:
            while tokens[position] == _LPAR:
                end = tokens.index(_RPAR, position + 1)
                if end == position + 1 or end - position - 1 > MAX_COLUMNS:
                    raise Defer  # an empty tuple, or one wider than the limit
                rows.append(tuple(map(get, tokens[position + 1 : end])))
                position = end + 1
            if tokens[position] != _RPAR:
                raise Defer
        except (IndexError, ValueError):  # the text ends inside the relation
            raise Defer from None
        self.position = position + 1
        if not rows:
            return Relation.checked((), 0, ordered=ordered, order_by=keys)
        arity = len(rows[0])
        if any(len(row) != arity for row in rows) or (keys is not None and max(keys) >= arity):
            raise Defer
        _check_types(list(zip(*rows)))
        return Relation.checked(tuple(rows), arity, ordered=ordered, order_by=keys)


def _columns(tokens: list[str], start: int) -> list[list[str]] | None:
    """The token columns of a relation spanning ``tokens[:start]`` to the end, when every
    tuple has the first tuple's arity; None when the tokens have another shape."""
    count = len(tokens)
    if tokens[-1] != _RPAR or start >= count - 1 or tokens[start] != _LPAR:
        return None
    try:
        width = tokens.index(_RPAR, start) - start + 1
    except ValueError:
        return None
    arity = width - 2
    if arity > MAX_COLUMNS:
        raise Defer  # the grammar words the error at the first value beyond the limit
    body = count - 1 - start
    if arity < 1 or body % width:
        return None
    tuples = body // width
    # The shape holds when every tuple opens and closes where expected and there is no
    # other parenthesis, so no column slice below holds one.
    opening = tokens[start : count - 1 : width]
    closing = tokens[start + width - 1 : count - 1 : width]
    if (
        opening.count(_LPAR) != tuples
        or closing.count(_RPAR) != tuples
        or tokens.count(_LPAR) != tuples + 1
        or tokens.count(_RPAR) != tuples + 1
    ):
        return None
    return [tokens[start + 1 + column : count - 1 : width] for column in range(arity)]


def _check_types(columns) -> None:
    """``Defer`` unless each column holds values of one type (and nil): no keyword, no
    parenthesis, no mix (the grammar's callbacks word that error)."""
    for column in columns:
        kinds = set(map(type, column))
        kinds.discard(Nil)
        if len(kinds) > 1 or not kinds <= _VALUE_TYPES:
            raise Defer
