"""Building values from the text of one CAS atom token.

Shared by the Lark callbacks and the fast path (``fast.py``) so that both build exactly
the same values and reject exactly the same tokens. Nothing here imports Lark.

>>> number_value("-3"), number_value("5.").is_real
(Number(value=-3, is_real=False, text='-3'), True)
>>> string_value('"04-JUL-89"'), string_value('"10:30:00Z"')
(Date(value=datetime.date(1989, 7, 4)), Time.parse('10:30:00Z'))
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable

from answerkey.limits import MAX_EXPONENT, MAX_NUMBER_CHARS
from answerkey.model import DATETIME_PATTERN, TIME_PATTERN, Date, DateTime, Number, String, Time

MONTHS = {
    name: number
    for number, name in enumerate(
        ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"], start=1
    )
}
# Two-digit years YY < 30 are 20YY, the rest 19YY (the spreadsheet convention). The 1989
# personnel data's dates (births from the 1930s, hires to 1989) all read as the 1900s.
TWO_DIGIT_YEAR_PIVOT = 30

# A number as CAS writes it (the grammar's NUMBER terminal, without its lookahead); other
# readers (CSV cells, SPARQL literals) accept numbers by the same pattern.
NUMBER_SHAPE = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")

# Text with a date's, a date-time's or a time's shape is one (or a bad one), whether quoted or
# bare (cas.lark's DATE, DATETIME and TIME terminals, without their lookahead).
_DATE = r"[0-9]{2}-[A-Za-z]{3}-(?:[12][0-9]{3}|[0-9]{2})|[0-9]{4}-[0-9]{2}-[0-9]{2}"
DATE_SHAPE = re.compile(_DATE)
DATETIME_SHAPE = re.compile(DATETIME_PATTERN)
TIME_SHAPE = re.compile(TIME_PATTERN)
# Any of the three: a quoted string of one of these shapes is no string (render escapes its
# first digit to write such a string). One pattern, so a string costs one match.
QUOTED_VALUE_SHAPE = re.compile(f"(?P<date>{_DATE})|(?P<datetime>{DATETIME_PATTERN})|(?P<time>{TIME_PATTERN})")

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "/": "/", "b": "\b", "f": "\f"}
_HEX = {"u": 4, "U": 8}
_PIECES = 4096


class BadAtom(Exception):
    """A token the grammar lexes but whose value is invalid; ``offset`` is from the token start."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
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
        day_text, month_name, year_text = text[:2], text[3:6].upper(), text[7:]
        if month_name not in MONTHS:
            raise ValueError(f"unknown month {text[3:6]!r} in date {text} (months are JAN, FEB, ..., DEC)")
        month, day = MONTHS[month_name], int(day_text)
        year = int(year_text)
        if len(year_text) == 2:
            year += 2000 if year < TWO_DIGIT_YEAR_PIVOT else 1900
    try:
        return _dt.date(year, month, day)
    except ValueError:
        raise ValueError(f"no such date: {text}") from None


def date_value(text: str) -> Date:
    """The value of a bare DATE token."""
    try:
        return Date(date_from_text(text))
    except ValueError as error:
        raise BadAtom(str(error)) from None


def datetime_value(text: str) -> DateTime:
    """The value of a bare DATETIME token (the body of a quoted one).

    >>> datetime_value("1989-07-04T10:30:00.5+02:00")
    DateTime.parse('1989-07-04T10:30:00.5+02:00')
    """
    try:
        return DateTime.parse(text)
    except ValueError as error:
        raise BadAtom(str(error)) from None


def time_value(text: str) -> Time:
    """The value of a bare TIME token (the body of a quoted one)."""
    try:
        return Time.parse(text)
    except ValueError as error:
        raise BadAtom(str(error)) from None


_SHAPED_VALUES: dict[str, Callable[[str], Date | DateTime | Time]] = {
    "date": date_value,
    "datetime": datetime_value,
    "time": time_value,
}


def number_value(text: str) -> Number:
    """The value of a NUMBER token, within the length and exponent bounds."""
    if len(text) > MAX_NUMBER_CHARS:
        raise BadAtom(f"number longer than {MAX_NUMBER_CHARS} characters")
    exponent = text.lower().partition("e")[2].lstrip("+-").lstrip("0")
    if len(exponent) > 7 or (exponent and int(exponent) > MAX_EXPONENT):
        raise BadAtom(f"number out of range (exponent beyond ±{MAX_EXPONENT})")
    return Number.parse(text)


def string_value(text: str) -> String | Date | DateTime | Time:
    """The value of a STRING token (quotes included): a date, date-time or time if the body
    has that shape (``QUOTED_VALUE_SHAPE``), else a string."""
    body = text[1:-1]
    shaped = QUOTED_VALUE_SHAPE.fullmatch(body)
    if shaped:
        try:
            return _SHAPED_VALUES[shaped.lastgroup or ""](body)
        except BadAtom as error:
            raise BadAtom(error.message, 1) from None
    return String(decode_string(body))


def decode_string(body: str) -> str:
    """A string body with its backslash escapes decoded (``BadAtom`` for a bad escape;
    its offset counts from the opening quote).

    >>> backslash = chr(92)
    >>> decode_string(f'caf{backslash}u00e9 {backslash}"ok{backslash}"')
    'café "ok"'
    >>> decode_string(f'{backslash}ud83d{backslash}ude00') == chr(0x1F600)
    True
    """
    if "\\" not in body:
        return body
    # The text between escapes is copied in slices (the work is per escape, not per character)
    # and the pieces are joined every _PIECES, so that their list stays small.
    out: list[str] = []
    joined: list[str] = []
    index = 0
    while True:
        escape_at = body.find("\\", index)
        if escape_at < 0:
            out.append(body[index:])
            return "".join(joined + out)
        if escape_at > index:
            out.append(body[index:escape_at])
        if len(out) >= _PIECES:
            joined.append("".join(out))
            out.clear()
        index = escape_at
        escape = body[index + 1]
        if escape in _ESCAPES:
            out.append(_ESCAPES[escape])
            index += 2
            continue
        width = _HEX.get(escape)
        digits = body[index + 2 : index + 2 + width] if width else ""
        if not width or len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
            shown = body[index : index + 2 + (width or 0)]
            raise BadAtom(
                f"invalid escape {shown!r} in string"
                ' (use \\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t, \\uXXXX or \\UXXXXXXXX)',
                index + 1,
            )
        code = int(digits, 16)
        if 0xD800 <= code <= 0xDBFF and width == 4:
            # A high and a low surrogate escaped in turn are one character, as json.dumps
            # writes characters beyond the Basic Multilingual Plane.
            low = body[index + 6 : index + 12]
            if low[:2] == "\\u" and all(c in "0123456789abcdefABCDEF" for c in low[2:]) and len(low) == 6:
                low_code = int(low[2:], 16)
                if 0xDC00 <= low_code <= 0xDFFF:
                    out.append(chr(0x10000 + ((code - 0xD800) << 10) + (low_code - 0xDC00)))
                    index += 12
                    continue
        if 0xD800 <= code <= 0xDFFF:
            raise BadAtom(
                f"escape {body[index : index + 2 + width]!r} is a lone surrogate, not a character"
                " (a \\uD800-\\uDBFF escape must be followed by a \\uDC00-\\uDFFF one)",
                index + 1,
            )
        if code > 0x10FFFF:
            raise BadAtom(f"escape {body[index : index + 2 + width]!r} is not a Unicode character", index + 1)
        out.append(chr(code))
        index += 2 + width
