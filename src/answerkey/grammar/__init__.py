"""Parsing CAS text into the typed model with the Lark grammar in ``cas.lark``.

``parse`` first tries a fast path (``fast.py``: a whitespace split or one regular
expression, the grammar's own terminal patterns, column slicing) that builds exactly what
the grammar builds and defers to the grammar for anything else, including every error
message; Lark is imported only then. ``parse_with_grammar`` is the grammar alone.

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
from typing import TYPE_CHECKING

from answerkey.gc_pause import PAUSE_FROM_CHARS, gc_paused
from answerkey.errors import ParseError, line_column
from answerkey.limits import MAX_CAS_CHARS
from answerkey.grammar import fast
from answerkey.grammar.atoms import (
    DATE_SHAPE,
    MAX_EXPONENT,
    MAX_NUMBER_CHARS,
    MONTHS,
    TWO_DIGIT_YEAR_PIVOT,
    BadAtom,
    date_from_text,
    date_value,
    number_value,
    string_value,
)
from answerkey.model import (
    NIL,
    NO_ANSWER,
    Alternatives,
    Answer,
    Boolean,
    Failure,
    FailureKind,
    Relation,
    Number,
    String,
    type_name,
)

if TYPE_CHECKING:
    from lark import Lark, Token

__all__ = [
    "parse", "parse_with_grammar", "strict_violation", "MAX_CAS_CHARS", "MAX_NUMBER_CHARS", "MAX_EXPONENT",
    "MONTHS", "TWO_DIGIT_YEAR_PIVOT", "date_from_text", "DATE_SHAPE",
]


_TERMINAL_NAMES = {
    "LPAR": "'('",
    "_RPAR": "')'",
    "OR": "OR",
    "ORDERED": "ORDERED",
    "NO_ANSWER": "NO_ANSWER",
    "$END": "end of input",
}
_VALUE_TERMINALS = {
    "TRUE", "FALSE", "NIL", "CONTINGENT_FAILURE", "NECESSARY_FAILURE", "DATE", "NUMBER", "STRING",
    "BARE_WORD",
}


class _Located(Exception):
    """Raised inside grammar callbacks; ``parse`` turns it into a ParseError with context."""

    def __init__(self, message: str, token: Token, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.token = token
        self.offset = offset


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

    @staticmethod
    def _relation(lpar: Token, tuples: list, ordered: bool) -> Relation:
        if not tuples:
            return Relation.checked((), 0, ordered=ordered)
        arity = len(tuples[0][0])
        column_types: list[str | None] = [None] * arity
        for number, (values, start) in enumerate(tuples, start=1):
            if len(values) != arity:
                raise _Located(
                    f"tuple {number} has {len(values)} value{'s' if len(values) != 1 else ''}; "
                    f"the relation's tuples have {arity}",
                    start,
                )
            for column, value in enumerate(values):
                kind = type_name(value)
                if kind is None:
                    continue
                expected = column_types[column]
                if expected is None:
                    column_types[column] = kind
                elif expected != kind:
                    raise _Located(
                        f"tuple {number}, column {column + 1}: a {kind} in a column of {expected}s",
                        start,
                    )
        return Relation.checked(tuple(values for values, _ in tuples), arity, ordered=ordered)

    def tuple(self, children):
        return tuple(children[1:]), children[0]

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

    def number(self, children):
        return _located(number_value, children[0])

    def string(self, children):
        return _located(string_value, children[0])

    def bare_word(self, children):
        return String(children[0].value)


def _located(build, token: Token):
    try:
        return build(token.value)
    except BadAtom as error:
        raise _Located(error.message, token, error.offset) from None


_TRUE, _FALSE = Boolean(True), Boolean(False)
_CONTINGENT, _NECESSARY = Failure(FailureKind.CONTINGENT), Failure(FailureKind.NECESSARY)


class _ParsedAlternatives:
    """Alternatives plus the first OR token, so a system answer's OR can be located."""

    __slots__ = ("answer", "or_token")

    def __init__(self, answer: Alternatives, or_token: Token) -> None:
        self.answer = answer
        self.or_token = or_token


_parser: Lark | None = None


def _get_parser() -> Lark:
    global _parser
    if _parser is None:
        from lark import Lark

        _parser = Lark.open(
            "cas.lark",
            rel_to=__file__,
            parser="lalr",
            lexer="basic",
            transformer=_Builder(),
            maybe_placeholders=False,
            cache=True,
        )
    return _parser


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


_STRING_BODY = re.compile(r'"(?:[^"\\\x00-\x1f\x7f]|\\[^\x00-\x1f\x7f])*"')
_RUN = re.compile(r'[^\s();]*')


def _character_error(text: str, index: int) -> ParseError:
    """Explain why no token starts at ``index``."""
    char = text[index]
    if char == '"':
        string = _STRING_BODY.match(text, index)
        if string:
            return _error_at(text, string.end(), "expected whitespace or a parenthesis after the string",
                             found=text[string.end()])
        position = index + 1
        while position < len(text):
            current = text[position]
            if current == '"':
                break
            if current == "\\":
                if position + 1 < len(text) and text[position + 1] >= " " and text[position + 1] != "\x7f":
                    position += 2
                    continue
            if current < " " or current == "\x7f":
                if current == "\n":
                    return _error_at(text, index, "unterminated string (strings end on the same line)",
                                     found='"')
                return _error_at(text, position, f"control character U+{ord(current):04X} in a string "
                                 "(write it as an escape such as \\n or \\u0000)", found=current)
            position += 1
        return _error_at(text, index, "unterminated string", found='"')
    if char < " " or char == "\x7f":
        return _error_at(text, index, f"control character U+{ord(char):04X} outside a string", found=char)
    run = _RUN.match(text, index).group()
    for offset, inner in enumerate(run):
        if inner == '"':
            return _error_at(text, index + offset, "a quote inside a word: put whitespace before the "
                             "string, or quote the whole word", found='"')
        if inner < " " or inner == "\x7f":
            return _error_at(text, index + offset, f"control character U+{ord(inner):04X} outside a string",
                             found=inner)
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
    Any problem raises ``ParseError`` with the line, column, what was expected and found.

    >>> parse('"04-JUL-89"').rows[0][0]
    Date(value=datetime.date(1989, 7, 4))
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() takes str, not {type(text).__name__}")
    if len(text) > max_chars:
        raise ParseError(f"answer is {len(text)} characters; the limit is {max_chars}", line=1, column=1,
                         source=source)
    # The fast path answers valid text on its own and hands anything else (including every
    # error, for its message) to the grammar; tests check it agrees with the grammar.
    try:
        with gc_paused(len(text) >= PAUSE_FROM_CHARS):  # see answerkey.gc_pause
            result = fast.parse(text)
    except fast.Defer:
        result = None
    if result is not None and (allow_alternatives or not isinstance(result, Alternatives)):
        return result
    return parse_with_grammar(text, source=source, allow_alternatives=allow_alternatives)


def parse_with_grammar(text: str, *, source: str | None = None, allow_alternatives: bool = True) -> Answer:
    """``parse`` by the Lark grammar alone (the specification), without the fast path.

    >>> parse_with_grammar("((1 yes))") == parse("((1 yes))")
    True
    """
    from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

    try:
        result = _get_parser().parse(text)
        if isinstance(result, _ParsedAlternatives):
            if not allow_alternatives:
                token = result.or_token
                raise _error_at(
                    text, token.start_pos,
                    "OR alternatives are only allowed in canonical answers, not in a system answer",
                    found=token.value,
                )
            result = result.answer
        return result
    except ParseError as error:
        error.source = source
        raise
    except _Located as error:
        raise _error_at(text, error.token.start_pos + error.offset, error.message,
                        found=error.token.value, source=source) from None
    except UnexpectedToken as error:
        token = error.token
        expected = _describe_expected(error.expected)
        if token.type == "$END":
            index, found, what = len(text), None, "unexpected end of input"
        else:
            index, found = token.start_pos, token.value
            what = f"unexpected {_TERMINAL_NAMES.get(token.type, repr(token.value))}"
        hint = ""
        if expected == ("OR",):
            hint = " (a relation's tuples are parenthesised: write ((1 2)) for one tuple, or 1 for a scalar)"
        raise _error_at(text, index, f"{what}; expected {' or '.join(expected)}{hint}",
                        expected=expected, found=found, source=source) from None
    except UnexpectedCharacters as error:
        parse_error = _character_error(text, error.pos_in_stream)
        parse_error.source = source
        raise parse_error from None
    except (UnexpectedInput, LarkError) as error:
        raise ParseError(f"cannot parse: {error}", line=1, column=1, source=source) from None
    except RecursionError:
        raise ParseError("answer nested too deeply", line=1, column=1, source=source) from None


_EXTENSION_NUMBER = re.compile(r"(?<![^\s()])[+-]?(?:[0-9]*\.[0-9]*[eE][+-]?[0-9]+|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+)(?![^\s();])")


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
        for option in options if isinstance(option, Relation) for row in option.rows for value in row
    ):
        return None
    # Comments and strings may hold the same characters: find a number token outside them.
    for match in _EXTENSION_NUMBER.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = text[line_start:match.start()]
        if ";" in before or before.count('"') % 2:
            continue
        return _error_at(text, match.start(), f"{match.group()} uses an extension (leading '.' or exponent) "
                         "not in the 1989/ATIS CAS", found=match.group(), source=source)
    return None
