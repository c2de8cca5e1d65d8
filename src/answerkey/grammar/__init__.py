"""Parsing CAS text into the typed model with the Lark grammar in ``cas.lark``.

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

import datetime as _dt
import re
from decimal import Decimal

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from answerkey.errors import ParseError
from answerkey.model import (
    NIL,
    NO_ANSWER,
    Alternatives,
    Answer,
    Boolean,
    Date,
    Failure,
    FailureKind,
    Number,
    Relation,
    String,
    type_name,
)

__all__ = ["parse", "MAX_CAS_CHARS", "MONTHS", "TWO_DIGIT_YEAR_PIVOT", "date_from_text", "DATE_SHAPE"]

# Untrusted input is bounded: a longer text is rejected before parsing.
MAX_CAS_CHARS = 256 * 1024 * 1024
MAX_NUMBER_CHARS = 1000
MAX_EXPONENT = 1_000_000

MONTHS = {
    name: number
    for number, name in enumerate(
        ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"], start=1
    )
}
# Two-digit years YY < 30 are 20YY, the rest 19YY (the spreadsheet convention). The 1989
# personnel data's dates (births from the 1930s, hires to 1989) all read as the 1900s.
TWO_DIGIT_YEAR_PIVOT = 30

# Text with a date's shape is a date (or a bad date), whether quoted or bare.
DATE_SHAPE = re.compile(r"[0-9]{2}-[A-Za-z]{3}-(?:[12][0-9]{3}|[0-9]{2})|[0-9]{4}-[0-9]{2}-[0-9]{2}")

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "/": "/"}
_HEX = {"u": 4, "U": 8}

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


def date_from_text(text: str) -> _dt.date:
    """The calendar date of a ``DD-MON-YY``, ``DD-MON-YYYY`` or ``YYYY-MM-DD`` spelling.

    >>> date_from_text("04-JUL-89"), date_from_text("01-jan-2024"), date_from_text("1980-01-01")
    (datetime.date(1989, 7, 4), datetime.date(2024, 1, 1), datetime.date(1980, 1, 1))
    """
    if text[4:5] == "-" and text[:4].isdigit():
        year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
        if not 1 <= month <= 12:
            raise ValueError(f"no month {month:02d} in date {text}")
    else:
        day, month_name, year_text = text[:2], text[3:6].upper(), text[7:]
        if month_name not in MONTHS:
            raise ValueError(
                f"unknown month {text[3:6]!r} in date {text} (months are JAN, FEB, ..., DEC)"
            )
        month, day = MONTHS[month_name], int(day)
        year = int(year_text)
        if len(year_text) == 2:
            year += 2000 if year < TWO_DIGIT_YEAR_PIVOT else 1900
    try:
        return _dt.date(year, month, day)
    except ValueError:
        raise ValueError(f"no such date: {text}") from None


def _decode_string(token: Token) -> str:
    body = token.value[1:-1]
    if "\\" not in body:
        return body
    out = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        escape = body[index + 1]
        if escape in _ESCAPES:
            out.append(_ESCAPES[escape])
            index += 2
            continue
        width = _HEX.get(escape)
        digits = body[index + 2 : index + 2 + width] if width else ""
        if not width or len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
            shown = body[index : index + 2 + (width or 0)]
            raise _Located(
                f"invalid escape {shown!r} in string (use \\\", \\\\, \\n, \\t, \\r, \\uXXXX or \\UXXXXXXXX)",
                token,
                index + 1,
            )
        code = int(digits, 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise _Located(f"escape {body[index:index + 2 + width]!r} is not a Unicode character", token, index + 1)
        out.append(chr(code))
        index += 2 + width
    return "".join(out)


class _Builder:
    """Grammar callbacks (Lark inline transformer): build model objects, no parse tree."""

    def start(self, children):
        return children[0]

    def scalar(self, children):
        return Relation._trusted(((children[0],),), 1, False, True)

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
            return Relation._trusted((), 0, ordered, False)
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
        return Relation._trusted(tuple(values for values, _ in tuples), arity, ordered, False)

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
        token = children[0]
        try:
            return Date(date_from_text(token.value))
        except ValueError as error:
            raise _Located(str(error), token) from None

    def number(self, children):
        token = children[0]
        text = token.value
        if len(text) > MAX_NUMBER_CHARS:
            raise _Located(f"number longer than {MAX_NUMBER_CHARS} characters", token)
        exponent = text.lower().partition("e")[2].lstrip("+-").lstrip("0")
        if len(exponent) > 7 or (exponent and int(exponent) > MAX_EXPONENT):
            raise _Located(f"number out of range (exponent beyond ±{MAX_EXPONENT})", token)
        return Number.parse(text)

    def string(self, children):
        token = children[0]
        body = token.value[1:-1]
        if DATE_SHAPE.fullmatch(body):
            try:
                return Date(date_from_text(body))
            except ValueError as error:
                raise _Located(str(error), token, 1) from None
        return String(_decode_string(token))

    def bare_word(self, children):
        return String(children[0].value)


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


def _line_and_column(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


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
    line, column = _line_and_column(text, index)
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
    try:
        if len(text) > max_chars:
            raise ParseError(f"answer is {len(text)} characters; the limit is {max_chars}", line=1, column=1)
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
