"""Parsing CAS text into the typed model with the Lark grammar in ``cas.lark``.

``parse`` first tries a fast path (``fast.py``: a whitespace split or one regular
expression, the grammar's own terminal patterns, column slicing) that builds exactly what
the grammar builds and defers to the grammar for anything else, including every error
message; Lark is imported only then. ``parse_with_grammar`` is the grammar alone, and
``check_with_grammar`` the grammar's checks without building values (``parse`` runs it
first on text the fast path refuses, so that an error deep in a large text costs little
memory). Both paths refuse a tuple of more than ``MAX_COLUMNS`` values at the first value
beyond the limit, before reading further.

>>> parse('( (2341 "SMITH") (5573 "JONES") )').arity
2
>>> parse("FALSE")
Relation(false)
>>> parse("((1) (2 3))")
Traceback (most recent call last):
...
answerkey.errors.ParseError: <input>:1:6: tuple 2 has 2 values; the relation's tuples have 1
((1) (2 3))
     ^
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from answerkey.errors import ParseError, line_column, plural
from answerkey.gc_pause import PAUSE_FROM_CHARS, gc_paused
from answerkey.grammar import fast
from answerkey.grammar.atoms import (
    DATE_SHAPE as DATE_SHAPE,
    MAX_EXPONENT as MAX_EXPONENT,
    MAX_NUMBER_CHARS as MAX_NUMBER_CHARS,
    MONTHS as MONTHS,
    QUOTED_VALUE_SHAPE as QUOTED_VALUE_SHAPE,
    TWO_DIGIT_YEAR_PIVOT as TWO_DIGIT_YEAR_PIVOT,
    BadAtom,
    date_from_text as date_from_text,
    date_value,
    datetime_value,
    number_value,
    string_value,
    time_value,
)
from answerkey.limits import MAX_ALTERNATIVES, MAX_CAS_CHARS, MAX_COLUMNS
from answerkey.model import (
    NIL,
    NO_ANSWER,
    Alternatives,
    Answer,
    Boolean,
    Failure,
    FailureKind,
    Number,
    Relation,
    String,
    type_name,
)

if TYPE_CHECKING:
    from lark import Lark, Token

__all__ = [
    "parse",
    "parse_with_grammar",
    "check_with_grammar",
    "strict_violation",
]


_TERMINAL_NAMES = {
    "LPAR": "'('",
    "_RPAR": "')'",
    "OR": "OR",
    "ORDERED": "ORDERED",
    "BY": "BY",
    "SORT_KEY": "a column number",
    "NO_ANSWER": "NO_ANSWER",
    "$END": "end of input",
}
_VALUE_TERMINALS = {
    "TRUE",
    "FALSE",
    "NIL",
    "CONTINGENT_FAILURE",
    "NECESSARY_FAILURE",
    "DATE",
    "DATETIME",
    "TIME",
    "NUMBER",
    "STRING",
    "BARE_WORD",
}


class _Located(Exception):
    """Raised inside grammar callbacks; ``parse`` turns it into a ParseError with context:
    ``position`` is the offset in the text, ``found`` the token there."""

    def __init__(self, message: str, position: int, found: str) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.found = found


class _Builder:
    """Grammar callbacks (Lark inline transformer): build model objects, no parse tree."""

    def start(self, children):
        return children[0]

    def scalar(self, children):
        return Relation.checked(((children[0],),), 1, scalar=True)

    def no_answer(self, children):
        return NO_ANSWER

    def alternatives(self, children):
        options = tuple(children[1::2])
        return _ParsedAlternatives(Alternatives(options), children[2])

    def relation(self, children):
        return self._relation(children[0], children[1:], ordered=False)

    def ordered_relation(self, children):
        return self._relation(children[0], children[2:], ordered=True)

    def sorted_relation(self, children):
        keys, tuples = _sort_keys_and_tuples(children)
        columns = _sort_key_columns(keys)
        if not tuples:
            return Relation.checked((), 0, order_by=columns)
        arity = _checked_arity(tuples, type_name)
        _check_sort_key_range(keys, columns, arity)
        return Relation.checked(tuple(values for values, _ in tuples), arity, order_by=columns)

    @staticmethod
    def _relation(lpar: Token, tuples: list, ordered: bool) -> Relation:
        if not tuples:
            return Relation.checked((), 0, ordered=ordered)
        arity = _checked_arity(tuples, type_name)
        return Relation.checked(tuple(values for values, _ in tuples), arity, ordered=ordered)

    def tuple(self, children):
        return tuple(children[1:]), children[0].start_pos

    def true(self, children):
        return _TRUE

    def false(self, children):
        return _FALSE

    def nil(self, children):
        return NIL

    def contingent_failure(self, children):
        return _CONTINGENT

    def necessary_failure(self, children):
        return _NECESSARY

    def date(self, children):
        return _located(date_value, children[0])

    def datetime(self, children):
        return _located(datetime_value, children[0])

    def time(self, children):
        return _located(time_value, children[0])

    def number(self, children):
        return _located(number_value, children[0])

    def string(self, children):
        return _located(string_value, children[0])

    def bare_word(self, children):
        return String(children[0].value)


def _sort_keys_and_tuples(children: list) -> tuple[list[Token], list]:
    """The SORT_KEY tokens and the tuples of a ``sorted_relation`` (after "(", ORDERED, BY)."""
    rest = children[3:]
    count = 0
    while count < len(rest) and isinstance(rest[count], str):  # tokens are str, tuples are not
        count += 1
    return rest[:count], rest[count:]


# Sort keys with more digits than this (leading zeros aside) are beyond every relation.
_KEY_DIGITS = len(str(MAX_COLUMNS))


def _shown_key(text: str) -> str:
    return text if len(text) <= 20 else text[:20] + "…"


def _sort_key_columns(keys: list[Token]) -> tuple[int, ...]:
    """The 0-based columns that SORT_KEY tokens name, after checking that each is a column
    number (plain digits, from 1) given once; a number too large for any relation becomes
    MAX_COLUMNS (beyond every arity), for ``_check_sort_key_range`` to refuse."""
    columns: list[int] = []
    seen: set[int] = set()
    for token in keys:
        text = token.value
        if not (text.isdigit() and text.isascii()):
            raise _Located(
                f"sort key {_shown_key(text)} is not a column number (columns are numbered 1, 2, ...)",
                _offset(token),
                text,
            )
        digits = text.lstrip("0")
        column = int(digits or "0") - 1 if len(digits) <= _KEY_DIGITS else MAX_COLUMNS
        if column < 0:
            raise _Located(f"sort key {_shown_key(text)}: columns are numbered from 1", _offset(token), text)
        if column in seen and column < MAX_COLUMNS:
            raise _Located(f"sort key {column + 1} is given twice", _offset(token), text)
        columns.append(column)
        seen.add(column)
    return tuple(columns)


def _check_sort_key_range(keys: list[Token], columns: tuple[int, ...], arity: int) -> None:
    """Refuse the first sort key beyond the relation's ``arity`` columns."""
    for token, column in zip(keys, columns):
        if column >= arity:
            raise _Located(
                f"sort key {_shown_key(token.value)} is beyond the relation's {plural(arity, 'column')}",
                _offset(token),
                token.value,
            )


def _checked_arity(tuples: list, kind_of) -> int:
    """The arity of a relation's tuples, each a pair (values, offset of its "("), after
    checking that every tuple has the first one's and that each column holds values of one
    type (``kind_of(value)``; None, nil's, fits any column)."""
    arity = len(tuples[0][0])
    column_types: list[str | None] = [None] * arity
    for number, (values, start) in enumerate(tuples, start=1):
        if len(values) != arity:
            raise _Located(
                f"tuple {number} has {len(values)} value{'s' if len(values) != 1 else ''}; "
                f"the relation's tuples have {arity}",
                start,
                "(",
            )
        for column, value in enumerate(values):
            kind = kind_of(value)
            if kind is None:
                continue
            expected = column_types[column]
            if expected is None:
                column_types[column] = kind
            elif expected != kind:
                raise _Located(
                    f"tuple {number}, column {column + 1}: a {kind} in a column of {expected}s",
                    start,
                    "(",
                )
    return arity


class _Checker(_Builder):
    """Callbacks that check everything ``_Builder`` checks but keep only each value's column
    type, not the value: ``parse`` reads text the fast path refused (nearly always invalid)
    with these first, so that finding the error in a large text costs no relation."""

    def scalar(self, children):
        return None

    def alternatives(self, children):
        return _ParsedAlternatives(None, children[2])

    def relation(self, children):
        if len(children) > 1:
            _checked_arity(children[1:], _itself)

    def ordered_relation(self, children):
        if len(children) > 2:
            _checked_arity(children[2:], _itself)

    def sorted_relation(self, children):
        keys, tuples = _sort_keys_and_tuples(children)
        columns = _sort_key_columns(keys)
        if tuples:
            _check_sort_key_range(keys, columns, _checked_arity(tuples, _itself))

    def tuple(self, children):
        return _shared(tuple(children[1:])), children[0].start_pos

    def true(self, children):
        return "boolean"

    false = true

    def nil(self, children):
        return None

    def contingent_failure(self, children):
        return "failure"

    necessary_failure = contingent_failure

    def date(self, children):
        _located(date_value, children[0])
        return "date"

    def datetime(self, children):
        _located(datetime_value, children[0])
        return "datetime"

    def time(self, children):
        _located(time_value, children[0])
        return "time"

    def number(self, children):
        _located(number_value, children[0])
        return "number"

    def string(self, children):
        return type_name(_located(string_value, children[0]))

    def bare_word(self, children):
        return "string"


def _itself(kind: str | None) -> str | None:
    return kind


@lru_cache(maxsize=1024)
def _shared(kinds: tuple) -> tuple:
    """One tuple object for equal tuples of column types (a relation's tuples mostly share one)."""
    return kinds


def _located(build, token: Token):
    try:
        return build(token.value)
    except BadAtom as error:
        raise _Located(error.message, _offset(token) + error.offset, token.value) from None


def _offset(token: Token) -> int:
    """Where a token starts in the text (Lark types it as optional; its lexer always sets it)."""
    assert token.start_pos is not None
    return token.start_pos


def _end_of_match(pattern: re.Pattern[str], text: str, index: int) -> int:
    """Where ``pattern``, which matches the empty string too, stops matching from ``index``."""
    match = pattern.match(text, index)
    assert match is not None
    return match.end()


_TRUE, _FALSE = Boolean(True), Boolean(False)
_CONTINGENT, _NECESSARY = Failure(FailureKind.CONTINGENT), Failure(FailureKind.NECESSARY)


class _ParsedAlternatives:
    """Alternatives plus the first OR token, so a system answer's OR can be located."""

    __slots__ = ("answer", "or_token")

    def __init__(self, answer: Alternatives | None, or_token: Token) -> None:
        self.answer = answer
        self.or_token = or_token


# The tokens after which a NUMBER is a sort key.
_BEFORE_SORT_KEY = frozenset({"BY", "SORT_KEY"})


class _PostLexer:
    """A Lark post-lexer with two jobs.

    **Sort keys.** A bare word ``by`` (any case) right after ORDERED becomes a BY token, and the
    NUMBER tokens right after it SORT_KEY tokens (see cas.lark): ``by`` is a keyword only
    there. At most ``MAX_COLUMNS`` keys are read (more cannot be distinct columns).

    **Column limit.** The value beyond ``MAX_COLUMNS`` in a tuple is refused as soon as it is
    read, before the rest of the tuple is lexed or built. Values follow each other only inside
    a tuple (a scalar is one value, alternatives separate options by OR), and the parser pulls
    tokens one at a time, stopping at the first token that does not fit; so a run of values
    longer than the limit is a tuple that is too wide.
    """

    always_accept = ()

    def process(self, stream):
        values = 0
        keys = 0
        previous = ""
        for token in stream:
            if previous == "ORDERED" and token.type == "BARE_WORD" and token.value.lower() == "by":
                token = token.update("BY")
            elif token.type == "NUMBER" and previous in _BEFORE_SORT_KEY:
                token = token.update("SORT_KEY")
                keys = keys + 1 if previous == "SORT_KEY" else 1
                if keys > MAX_COLUMNS:
                    raise _Located(
                        f"more than {MAX_COLUMNS:,} sort keys; the limit is {MAX_COLUMNS:,} columns",
                        _offset(token),
                        token.value,
                    )
            previous = token.type
            if token.type in _VALUE_TERMINALS:
                values += 1
                if values > MAX_COLUMNS:
                    raise _Located(
                        f"more than {MAX_COLUMNS:,} values in a tuple; the limit is {MAX_COLUMNS:,} columns",
                        _offset(token),
                        token.value,
                    )
            else:
                values = 0
            yield token


_parsers: dict[type, Lark] = {}


def _get_parser(callbacks: type[_Builder] = _Builder) -> Lark:
    """The LALR parser of cas.lark with ``callbacks`` (``_Builder`` or ``_Checker``)."""
    parser = _parsers.get(callbacks)
    if parser is None:
        from lark import Lark

        parser = _parsers[callbacks] = Lark.open(
            "cas.lark",
            rel_to=__file__,
            parser="lalr",
            lexer="basic",
            transformer=callbacks(),
            postlex=_PostLexer(),
            maybe_placeholders=False,
            cache=True,
        )
    return parser


def _context(text: str, index: int) -> str:
    """The line holding ``index`` with a caret under it; long lines are cut around it."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    end = len(text) if end == -1 else end
    line = text[start:end]
    caret = index - start
    if len(line) > 100:
        left = max(0, caret - 50)
        prefix = "…" if left else ""
        suffix = "…" if left + 100 < len(line) else ""
        line = prefix + line[left : left + 100] + suffix
        caret = caret - left + len(prefix)
    line = "".join(c if c.isprintable() or c == "\t" else "\ufffd" for c in line)
    return f"{line}\n{' ' * caret}^"


def _error_at(text: str, index: int, message: str, **details) -> ParseError:
    line, column = line_column(text, index)
    return ParseError(message, line=line, column=column, context=_context(text, index), **details)


def _describe_expected(expected) -> tuple[str, ...]:
    names = set()
    for terminal in expected:
        if terminal in _VALUE_TERMINALS:
            names.add("a value")
        else:
            names.add(_TERMINAL_NAMES.get(terminal, terminal))
    return tuple(sorted(names))


_QUOTED_STRING = re.compile(fast.QUOTED_STRING)
# The longest valid start of a string body, and the longest run of characters a bare word may
# hold: possessive, so that a 16 MB unterminated string or word is scanned in constant memory.
_BODY_PREFIX = re.compile(fast.STRING_BODY)
_WORD_RUN = re.compile(r'[^\s();"\x00-\x1f\x7f]*+')


def _is_control(char: str) -> bool:
    return char < " " or char == "\x7f"


def _character_error(text: str, index: int) -> ParseError:
    """Explain why no token starts at ``index``."""
    char = text[index]
    if char == '"':
        string = _QUOTED_STRING.match(text, index)
        if string:
            return _error_at(
                text, string.end(), "expected whitespace or a parenthesis after the string", found=text[string.end()]
            )
        # The body stops at the end of the text, at a control character, or at a backslash
        # that escapes nothing (before a control character or the end).
        position = _end_of_match(_BODY_PREFIX, text, index + 1)
        if text.startswith("\\", position):
            position += 1
        if position < len(text) and _is_control(text[position]):
            current = text[position]
            if current == "\n":
                return _error_at(text, index, "unterminated string (strings end on the same line)", found='"')
            return _error_at(
                text,
                position,
                f"control character U+{ord(current):04X} in a string (write it as an escape such as \\n or \\u0000)",
                found=current,
            )
        return _error_at(text, index, "unterminated string", found='"')
    if _is_control(char):
        return _error_at(text, index, f"control character U+{ord(char):04X} outside a string", found=char)
    # The first character of this run of non-space characters that no bare word may hold.
    position = _end_of_match(_WORD_RUN, text, index)
    inner = text[position : position + 1]
    if inner == '"':
        return _error_at(
            text,
            position,
            "a quote inside a word: put whitespace before the string, or quote the whole word",
            found='"',
        )
    if inner and _is_control(inner) and not inner.isspace():
        return _error_at(text, position, f"control character U+{ord(inner):04X} outside a string", found=inner)
    return _error_at(text, index, f"unexpected character {char!r}", found=char)


def parse(
    text: str,
    *,
    source: str | None = None,
    allow_alternatives: bool = True,
    max_chars: int = MAX_CAS_CHARS,
) -> Answer:
    """Parse CAS text into an answer: a ``Relation`` (scalars too), ``Alternatives`` or
    ``NO_ANSWER``.

    ``allow_alternatives=False`` is for system answers, where ``(A OR B)`` is an error.
    Any problem raises ``ParseError`` with the line, column, what was expected and found;
    so do text longer than ``max_chars`` and a tuple wider than ``MAX_COLUMNS`` values.

    >>> parse('"04-JUL-89"').rows[0][0]
    Date(value=datetime.date(1989, 7, 4))
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() takes str, not {type(text).__name__}")
    if len(text) > max_chars:
        raise ParseError(f"answer is {len(text)} characters; the limit is {max_chars}", line=1, column=1, source=source)
    # The fast path answers valid text on its own and hands anything else (including every
    # error, for its message) to the grammar; tests check it agrees with the grammar.
    try:
        with gc_paused(len(text) >= PAUSE_FROM_CHARS):  # see answerkey.gc_pause
            result = fast.parse(text)
    except fast.Defer:
        result = None
    if result is not None and (allow_alternatives or not isinstance(result, Alternatives)):
        return _few_enough_alternatives(result, text, source)
    # Text the fast path refuses is nearly always invalid: find the error without building
    # values first, and build the answer only if there is none.
    _grammar_parse(_Checker, text, source, allow_alternatives)
    return _few_enough_alternatives(
        parse_with_grammar(text, source=source, allow_alternatives=allow_alternatives), text, source
    )


def _few_enough_alternatives(answer: Answer, text: str, source: str | None) -> Answer:
    """``answer``, or a ``ParseError`` at its opening parenthesis when it is ``Alternatives``
    of more than ``MAX_ALTERNATIVES`` readings (each is judged in turn)."""
    if isinstance(answer, Alternatives) and len(answer.options) > MAX_ALTERNATIVES:
        line, column = line_column(text, max(text.find("("), 0))
        raise ParseError(
            f"{len(answer.options):,} alternatives (OR); the limit is {MAX_ALTERNATIVES:,}",
            line=line,
            column=column,
            source=source,
        )
    return answer


def parse_with_grammar(text: str, *, source: str | None = None, allow_alternatives: bool = True) -> Answer:
    """``parse`` by the Lark grammar alone (the specification), without the fast path.

    >>> parse_with_grammar("((1 yes))") == parse("((1 yes))")
    True
    """
    answer = _grammar_parse(_Builder, text, source, allow_alternatives)
    assert answer is not None
    return answer


def check_with_grammar(text: str, *, source: str | None = None, allow_alternatives: bool = True) -> None:
    """Raise the ``ParseError`` that ``parse_with_grammar`` raises for ``text``, if any,
    without building the answer (memory for column types, not values).

    >>> check_with_grammar("((1) (2 3))")
    Traceback (most recent call last):
    ...
    answerkey.errors.ParseError: <input>:1:6: tuple 2 has 2 values; the relation's tuples have 1
    ((1) (2 3))
         ^
    """
    _grammar_parse(_Checker, text, source, allow_alternatives)


def _grammar_parse(callbacks: type[_Builder], text: str, source: str | None, allow_alternatives: bool) -> Answer | None:
    from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

    try:
        with gc_paused(len(text) >= PAUSE_FROM_CHARS):  # see answerkey.gc_pause
            result: Any = _get_parser(callbacks).parse(text)
        if isinstance(result, _ParsedAlternatives):
            if not allow_alternatives:
                token = result.or_token
                raise _error_at(
                    text,
                    _offset(token),
                    "OR alternatives are only allowed in canonical answers, not in a system answer",
                    found=token.value,
                )
            result = result.answer
        return result
    except ParseError as error:
        error.source = source
        raise
    except _Located as error:
        raise _error_at(text, error.position, error.message, found=error.found, source=source) from None
    except UnexpectedToken as error:
        token = error.token
        expected = _describe_expected(error.expected)
        if token.type == "$END":
            index, found, what = len(text), None, "unexpected end of input"
        else:
            index, found = _offset(token), token.value
            what = f"unexpected {_TERMINAL_NAMES.get(token.type, repr(token.value))}"
        hint = ""
        if expected == ("OR",):
            hint = " (a relation's tuples are parenthesised: write ((1 2)) for one tuple, or 1 for a scalar)"
        raise _error_at(
            text,
            index,
            f"{what}; expected {' or '.join(expected)}{hint}",
            expected=expected,
            found=found,
            source=source,
        ) from None
    except UnexpectedCharacters as error:
        assert error.pos_in_stream is not None  # set by Lark's lexer
        parse_error = _character_error(text, error.pos_in_stream)
        parse_error.source = source
        raise parse_error from None
    except (UnexpectedInput, LarkError) as error:
        raise ParseError(f"cannot parse: {error}", line=1, column=1, source=source) from None
    except RecursionError:
        raise ParseError("answer nested too deeply", line=1, column=1, source=source) from None


_EXTENSION_NUMBER = re.compile(
    r"(?<![^\s()])[+-]?(?:[0-9]*\.[0-9]*[eE][+-]?[0-9]+|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+)(?![^\s();])"
)


def strict_violation(text: str, answer: Answer, *, source: str | None = None) -> ParseError | None:
    """The first use in ``text`` (which parses as ``answer``) of a number extension outside
    the 1989/ATIS CAS, a leading ``.`` or an exponent, as an error at its place; None if the
    text keeps to the dialect (``answerkey check --strict``).

    >>> print(strict_violation("((1 .5))", parse("((1 .5))")))
    <input>:1:5: .5 uses an extension (leading '.' or exponent) not in the 1989/ATIS CAS
    ((1 .5))
        ^
    """
    options = answer.options if isinstance(answer, Alternatives) else (answer,)
    if not any(
        isinstance(value, Number) and ("e" in value.text.lower() or value.text.lstrip("+-").startswith("."))
        for option in options
        if isinstance(option, Relation)
        for row in option.rows
        for value in row
    ):
        return None
    # Comments and strings may hold the same characters: find a number token outside them.
    for match in _EXTENSION_NUMBER.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = text[line_start : match.start()]
        if ";" in before or before.count('"') % 2:
            continue
        return _error_at(
            text,
            match.start(),
            f"{match.group()} uses an extension (leading '.' or exponent) not in the 1989/ATIS CAS",
            found=match.group(),
            source=source,
        )
    return None
