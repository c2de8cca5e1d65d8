"""Strategies for valid CAS text: an answer in every spelling the dialect allows
(``answerkey.testing.strategies``).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from answerkey.grammar import MONTHS, QUOTED_VALUE_SHAPE
from answerkey.model import (
    Alternatives,
    Answer,
    Boolean,
    Date,
    DateTime,
    Failure,
    Nil,
    NoAnswer,
    Number,
    Relation,
    String,
    Time,
    Value,
)
from answerkey.testing._values import answers

# Separators the grammar ignores: Unicode whitespace (not U+001C-U+001F) and ; comments.
_GAPS = (
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\x0b",
    "\x0c",
    "\x85",
    "\u00a0",
    "\u2003",
    "\u3000",
    " ; a comment\n",
    ';(OR) "x\n',
    "\n;\n",
)
MONTH_NAMES = tuple(MONTHS)
_KEYWORDS = {
    "true",
    "yes",
    "false",
    "no",
    "nil",
    "or",
    "ordered",
    "no_answer",
    "contingent-failure",
    "necessary-failure",
}
# Bare words we emit: start with a letter (so never a number or date) and use no character
# that the grammar treats specially.
_SAFE_BARE = re.compile(r"[A-Za-z][A-Za-z0-9_.:/+*'!?<>=&%$#@^~|-]*")
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "/": "\\/"}


_GAP = {True: st.sampled_from(_GAPS), False: st.sampled_from(("",) * 4 + _GAPS)}


def _gap(draw, required: bool) -> str:
    return draw(_GAP[required])


def _any_case(draw, word: str) -> str:
    mask = draw(st.integers(0, 2 ** len(word) - 1))
    return "".join(c.upper() if mask >> i & 1 else c.lower() for i, c in enumerate(word))


def _spell_number(draw, number: Number) -> str:
    value = number.value
    if not number.is_real:
        sign = "-" if value < 0 else draw(st.sampled_from(["", "+"]))
        zeros = draw(st.sampled_from(["", "", "0", "00"]))
        return f"{sign}{zeros}{abs(value)}"
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return number.text
    assert isinstance(value, Decimal)  # reals are held as decimals
    sign, digits, exponent = value.as_tuple()
    mantissa = ("-" if sign else draw(st.sampled_from(["", "+"]))) + "".join(map(str, digits))
    if choice == 1:  # scientific: 12345e-2
        return f"{mantissa}{draw(st.sampled_from('eE'))}{exponent}"
    plain = format(value, "f")
    if "." not in plain:
        plain += "."
    if choice == 2:  # trailing zeros: 5. -> 5.000
        return plain + "0" * draw(st.integers(0, 3))
    if plain.lstrip("-").startswith("0.") and len(plain.lstrip("-")) > 2:  # the .5 extension
        return plain.replace("0.", ".", 1)
    return plain


def _escape_char(draw, char: str) -> str:
    must = char < " " or char == "\x7f" or char in '"\\'
    if not must and draw(st.integers(0, 9)):
        return char
    code = ord(char)
    options = [f"\\U{code:08x}", f"\\U{code:08X}"]
    if code <= 0xFFFF:
        options += [f"\\u{code:04x}", f"\\u{code:04X}"]
    if char in _SHORT_ESCAPES:
        options.append(_SHORT_ESCAPES[char])
    return draw(st.sampled_from(options))


def _spell_string(draw, text: str) -> str:
    if _SAFE_BARE.fullmatch(text) and text.lower() not in _KEYWORDS and draw(st.booleans()):
        return text
    body = "".join(_escape_char(draw, char) for char in text)
    if QUOTED_VALUE_SHAPE.fullmatch(body):
        # A quoted date, date-time or time shape would read as one: escape its first digit.
        body = f"\\u{ord(body[0]):04x}" + body[1:]
    return f'"{body}"'


def _spell_date(draw, date: _dt.date) -> str:
    forms = ["iso", "long"] + (["short"] if 1930 <= date.year <= 2029 else [])
    form = draw(st.sampled_from(forms))
    if form == "iso":
        text = date.isoformat()
    else:
        month = _any_case(draw, MONTH_NAMES[date.month - 1])
        year = f"{date.year:04d}" if form == "long" else f"{date.year % 100:02d}"
        text = f"{date.day:02d}-{month}-{year}"
    return f'"{text}"' if draw(st.booleans()) else text


def _spell_clock(draw, text: str) -> str:
    """A time of day's CAS text (``10:30:00.5Z``) respelled: zeros added to its fraction (up
    to nine digits), UTC as ``Z``, ``+00:00`` or ``-00:00``."""
    zone = ""
    if text.endswith("Z"):
        text, zone = text[:-1], draw(st.sampled_from(["Z", "+00:00", "-00:00"]))
    elif text[-6:-5] in ("+", "-"):
        text, zone = text[:-6], text[-6:]
    whole, _, fraction = text.partition(".")
    fraction += "0" * draw(st.integers(0, 9 - len(fraction)))
    return whole + ("." + fraction if fraction else "") + zone


def _spell_moment(draw, value: DateTime | Time) -> str:
    text = value.isoformat()
    date = ""
    if isinstance(value, DateTime):
        date, text = text[:11], text[11:]
    text = date + _spell_clock(draw, text)
    return f'"{text}"' if draw(st.booleans()) else text


def _spell_boolean(draw, value: Boolean) -> str:
    return _any_case(draw, draw(st.sampled_from(["true", "yes"] if value.value else ["false", "no"])))


# Value type -> how to spell one value of it (valid spellings only).
_SPELLERS: dict[type, Callable[[Any, Any], str]] = {
    Number: _spell_number,
    String: lambda draw, value: _spell_string(draw, value.text),
    Date: lambda draw, value: _spell_date(draw, value.value),
    DateTime: _spell_moment,
    Time: _spell_moment,
    Boolean: _spell_boolean,
    Nil: lambda draw, value: _any_case(draw, "nil"),
    Failure: lambda draw, value: _any_case(draw, value.kind.value),
}


def _spell_value(draw, value: Value) -> str:
    return _SPELLERS[type(value)](draw, value)


def _join_atoms(draw, atoms: list[str]) -> str:
    out = []
    for index, atom in enumerate(atoms):
        if index:
            out.append(_gap(draw, required=True))
        out.append(atom)
    return "".join(out)


def _spell_relation(draw, relation: Relation) -> str:
    if relation.scalar:
        return _spell_value(draw, relation.rows[0][0])
    parts = ["(", _gap(draw, False)]
    if relation.ordered:
        parts.append(_any_case(draw, "ordered"))
        if relation.order_by is not None:
            keys = [draw(st.sampled_from(["", "", "0", "00"])) + str(column + 1) for column in relation.order_by]
            parts += [_gap(draw, True), _any_case(draw, "by"), _gap(draw, True), _join_atoms(draw, keys)]
        parts.append(_gap(draw, False))
    for row in relation.rows:
        atoms = [_spell_value(draw, value) for value in row]
        parts += ["(", _gap(draw, False), _join_atoms(draw, atoms), _gap(draw, False), ")", _gap(draw, False)]
    parts.append(")")
    return "".join(parts)


@st.composite
def cas_spellings(draw, answer: Answer) -> str:
    """CAS texts that all parse to ``answer``: varied whitespace and comments, keyword case,
    bare or quoted strings with optional escapes, number, date, date-time and time spellings.

    >>> from hypothesis import given, settings
    >>> from answerkey import parse
    >>> @settings(max_examples=10, database=None)
    ... @given(answers().flatmap(lambda a: st.tuples(st.just(a), cas_spellings(a))))
    ... def test_spellings_parse_back(pair):
    ...     answer, text = pair
    ...     assert parse(text) == answer
    >>> test_spellings_parse_back()
    """
    if isinstance(answer, NoAnswer):
        body = _any_case(draw, "no_answer")
    elif isinstance(answer, Relation):
        body = _spell_relation(draw, answer)
    elif isinstance(answer, Alternatives):
        parts = ["(", _gap(draw, False)]
        for index, option in enumerate(answer.options):
            if index:
                parts += [
                    _gap(draw, answer.options[index - 1].scalar),
                    _any_case(draw, "or"),
                    _gap(draw, option.scalar),
                ]
            parts.append(_spell_relation(draw, option))
        parts += [_gap(draw, False), ")"]
        body = "".join(parts)
    else:
        raise TypeError(f"not an answer: {answer!r}")
    trailer = draw(st.sampled_from(["", "", "\n", " ; end", "\n; end\n"]))
    return _gap(draw, False) + body + trailer


def cas_texts(max_cols: int = 4, max_rows: int = 6) -> st.SearchStrategy[str]:
    """Valid CAS texts of any answer, in varied spellings (see ``cas_spellings``)."""
    return answers(max_cols=max_cols, max_rows=max_rows).flatmap(cas_spellings)
