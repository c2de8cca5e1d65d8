"""Hypothesis strategies for CAS values, relations, answers and texts (``answerkey[fuzz]``).

The same strategies answerkey's own tests use. A property test of your own formatter (here
the renderer stands in for it):

>>> from hypothesis import given, settings
>>> from answerkey import judge, parse, render
>>> @settings(max_examples=20, database=None)
... @given(relations())
... def test_my_formatter_round_trips(relation):
...     assert judge(relation, parse(render(relation)))
>>> test_my_formatter_round_trips()

- ``values()``, ``relations()``, ``answers()``, ``alternatives()``: typed model objects;
- ``sorted_relations()``: relations ordered by sort keys (``(ORDERED BY 2 ...)``) whose
  tuples tie;
- ``cas_texts()`` / ``cas_spellings(answer)``: valid CAS text in all the spellings the dialect
  allows (whitespace, comments, keyword case, bare or quoted strings, escapes, date forms,
  date-time and time fractions with trailing zeros, UTC as ``Z``, ``+00:00`` or ``-00:00``);
- ``invalid_cas_texts()``: near misses that must be rejected with a ``ParseError``;
- ``equivalent_pairs()`` / ``inequivalent_pairs()``: (canonical, system) answers that must
  judge correct / incorrect with the default options;
- ``DECLARED_TERMINALS``: strategies for the tokens cas.lark declares (``BY``, ``SORT_KEY``),
  to draw texts from the grammar itself: ``from_lark(grammar, explicit=DECLARED_TERMINALS)``.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from collections.abc import Callable
from decimal import Decimal, localcontext
from itertools import groupby
from typing import Any

from hypothesis import strategies as st

from answerkey.comparator import DEFAULT_EPSILON as _JUDGE_EPSILON
from answerkey.grammar import MONTHS, QUOTED_VALUE_SHAPE
from answerkey.grammar.render import render, render_value
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
    NoAnswer,
    Number,
    Relation,
    String,
    Time,
    Value,
    type_name,
)

__all__ = [
    "VALUE_TYPES",
    "DEFAULT_EPSILON",
    "values",
    "relations",
    "sorted_relations",
    "answers",
    "alternatives",
    "integers",
    "reals",
    "strings",
    "dates",
    "datetimes",
    "times",
    "cas_spellings",
    "cas_texts",
    "invalid_cas_texts",
    "equivalent_pairs",
    "inequivalent_pairs",
    "mutated_texts",
    "booleans",
    "numbers",
    "failures",
    "MODEL_STRATEGIES",
    "KEY_TYPES",
    "DECLARED_TERMINALS",
]

VALUE_TYPES = ("boolean", "integer", "real", "string", "date", "datetime", "time")
# The comparator's default, as an exact decimal: the pairs are built for it.
DEFAULT_EPSILON = Decimal(str(_JUDGE_EPSILON))


# --------------------------------------------------------------------------- values


@functools.cache
def integers() -> st.SearchStrategy[Number]:
    """Integers, sometimes written with a leading ``+``."""
    return st.builds(
        lambda n, plus: Number.parse(("+" if plus and n >= 0 else "") + str(n)),
        st.integers(min_value=-(10**12), max_value=10**12),
        st.booleans(),
    )


def _plain_real(value: Decimal) -> Number:
    text = format(value, "f")
    return Number.parse(text if "." in text else text + ".")


@functools.cache
def reals() -> st.SearchStrategy[Number]:
    """Reals written in the ways CAS allows: ``5.``, ``-2.50``, ``2.9999999999``, ``1.5e-7``."""
    plain = st.decimals(
        min_value=Decimal("-1e9"), max_value=Decimal("1e9"), allow_nan=False, allow_infinity=False, places=4
    ).map(_plain_real)
    scientific = st.builds(
        lambda mantissa, exponent, letter: Number.parse(f"{mantissa}{letter}{exponent}"),
        st.decimals(min_value=-10, max_value=10, allow_nan=False, allow_infinity=False, places=3),
        st.integers(-30, 30),
        st.sampled_from("eE"),
    )
    return st.one_of(plain, scientific)


# Characters a formatter must escape in CAS, or that it may mishandle: random Unicode holds a
# double quote in only one relation of a few hundred, too rarely for `fuzz roundtrip -n 200` to
# find a quoting bug, so half of the strings are made of these alone.
_ESCAPED_CHARACTERS = '"\\\n\t\r\x00\x1f\x7f\u2028 a0-'


@functools.cache
def strings() -> st.SearchStrategy[String]:
    """Strings of any printable or control characters (never lone surrogates), half of them made
    of characters that need escaping (double quotes, backslashes, control characters)."""
    return st.one_of(
        st.text(st.characters(codec="utf-8"), max_size=20),
        st.text(st.sampled_from(_ESCAPED_CHARACTERS), max_size=20),
    ).map(String)


@functools.cache
def dates() -> st.SearchStrategy[Date]:
    """Calendar dates from 1000 to 2999 (every year CAS can spell)."""
    return st.dates(min_value=_dt.date(1000, 1, 1), max_value=_dt.date(2999, 12, 31)).map(Date)


# UTC offsets in minutes, as CAS writes them (-23:59 to +23:59); None for a naive value.
_OFFSETS = st.one_of(st.none(), st.just(0), st.integers(-(24 * 60 - 1), 24 * 60 - 1))
_NANOSECONDS = st.one_of(st.just(0), st.integers(0, 999))


def _zone(minutes: int | None) -> _dt.tzinfo | None:
    return None if minutes is None else _dt.timezone(_dt.timedelta(minutes=minutes))


@functools.cache
def datetimes() -> st.SearchStrategy[DateTime]:
    """Date-times of the years 1 to 9999, naive or with a UTC offset, to the nanosecond."""
    return st.builds(
        lambda moment, minutes, nanosecond: DateTime(moment.replace(tzinfo=_zone(minutes)), nanosecond),
        st.datetimes(),
        _OFFSETS,
        _NANOSECONDS,
    )


@functools.cache
def times() -> st.SearchStrategy[Time]:
    """Times of day, naive or with a UTC offset, to the nanosecond."""
    return st.builds(
        lambda clock, minutes, nanosecond: Time(clock.replace(tzinfo=_zone(minutes)), nanosecond),
        st.times(),
        _OFFSETS,
        _NANOSECONDS,
    )


@functools.cache
def booleans() -> st.SearchStrategy[Boolean]:
    """true and false."""
    return st.booleans().map(Boolean)


@functools.cache
def numbers() -> st.SearchStrategy[Number]:
    """Integers and reals (see ``integers`` and ``reals``)."""
    return st.one_of(integers(), reals())


@functools.cache
def failures() -> st.SearchStrategy[Failure]:
    """The two failure values, contingent and necessary."""
    return st.sampled_from([Failure(FailureKind.CONTINGENT), Failure(FailureKind.NECESSARY)])


_BY_TYPE: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "boolean": booleans,
    "integer": integers,
    "real": reals,
    "string": strings,
    "date": dates,
    "datetime": datetimes,
    "time": times,
}


def values(
    types: tuple[str, ...] = VALUE_TYPES, *, nil: bool = True, failures: bool = False
) -> st.SearchStrategy[Value]:
    """Single CAS values of the given ``types`` (see ``VALUE_TYPES``), optionally NIL."""
    unknown = [name for name in types if name not in _BY_TYPE]
    if unknown:
        raise ValueError(f"unknown value types {unknown} (known: {', '.join(VALUE_TYPES)})")
    return _values(tuple(types), nil, failures)


@functools.cache  # building strategies is slow; composites call this for every draw
def _values(types: tuple[str, ...], nil: bool, with_failures: bool) -> st.SearchStrategy[Value]:
    choices: list[st.SearchStrategy[Any]] = [_BY_TYPE[name]() for name in types]
    if nil:
        choices.append(st.just(NIL))
    if with_failures:
        choices.append(failures())
    return st.one_of(choices)


@functools.cache
def _column_values(kind: str, nil: bool) -> st.SearchStrategy[Value]:
    base: st.SearchStrategy[Any] = numbers() if kind in ("integer", "real") else _BY_TYPE[kind]()
    return st.one_of(base, st.just(NIL)) if nil else base


@functools.cache  # built once per shape: composites would otherwise build it for every draw
def _rows(column_types: tuple[str, ...], nil: bool, min_rows: int, max_rows: int) -> st.SearchStrategy[Any]:
    columns = [_column_values(kind, nil) for kind in column_types]
    return st.lists(st.tuples(*columns), min_size=min_rows, max_size=max_rows)


@st.composite
def relations(
    draw,
    min_cols: int = 1,
    max_cols: int = 4,
    min_rows: int = 0,
    max_rows: int = 8,
    types: tuple[str, ...] = VALUE_TYPES,
    nil: bool = True,
    ordered: bool | None = False,
    order_by: bool | None = False,
) -> Relation:
    """Relations with one type per column (integers and reals may share a number column).

    ``ordered=None`` draws ordered and unordered relations. ``order_by=True`` gives every
    relation sort keys (distinct columns in any order; keys make a relation ordered), and
    ``order_by=None`` some of the ordered ones; the tuples are not sorted by them (see
    ``sorted_relations`` for tuples that tie).
    """
    if not set(types) <= set(VALUE_TYPES):
        raise ValueError(
            f"unknown value types {sorted(set(types) - set(VALUE_TYPES))} (known: {', '.join(VALUE_TYPES)})"
        )
    width = draw(st.integers(min_cols, max_cols))
    column_types = tuple(draw(st.sampled_from(types)) for _ in range(width))
    rows = draw(_rows(column_types, nil, min_rows, max_rows))
    is_ordered = draw(st.booleans()) if ordered is None else ordered
    keys = None
    if order_by or (order_by is None and is_ordered and draw(st.booleans())):
        keys = draw(st.lists(st.integers(0, width - 1), min_size=1, max_size=width, unique=True))
    return Relation(rows, ordered=is_ordered, order_by=keys)


# The value types of sort-key columns in ``sorted_relations``: distinct values of these never
# match under the default rule (distinct reals within epsilon would), nor do booleans, of
# which there are too few for several groups.
KEY_TYPES = ("integer", "string", "date", "datetime", "time")


@st.composite
def sorted_relations(
    draw,
    max_cols: int = 3,
    min_groups: int = 1,
    max_groups: int = 4,
    max_ties: int = 3,
    max_keys: int | None = None,
    key_types: tuple[str, ...] = KEY_TYPES,
    types: tuple[str, ...] = VALUE_TYPES,
    nil: bool = True,
) -> Relation:
    """Relations ordered by sort keys (``(ORDERED BY 2 ...)``) whose tuples tie: ``min_groups``
    to ``max_groups`` tie groups of 1 to ``max_ties`` tuples. Each group has its own key
    values (of ``key_types``, never nil, different from every other group's), the other
    columns draw from ``types`` (nil too, with ``nil``); up to ``max_keys`` key columns.

    >>> from hypothesis import given, settings
    >>> from answerkey import judge
    >>> @settings(max_examples=10, database=None)
    ... @given(sorted_relations())
    ... def test_an_answer_in_its_own_order_is_correct(relation):
    ...     assert judge(relation, Relation(relation.rows))
    >>> test_an_answer_in_its_own_order_is_correct()
    """
    unknown = sorted(set(key_types) - set(_BY_TYPE)) + sorted(set(types) - set(VALUE_TYPES))
    if unknown:
        raise ValueError(f"unknown value types {unknown} (known: {', '.join(VALUE_TYPES)})")
    width = draw(st.integers(1, max_cols))
    keys = draw(st.lists(st.integers(0, width - 1), min_size=1, max_size=max_keys or width, unique=True))
    kinds = [draw(st.sampled_from(key_types if column in keys else types)) for column in range(width)]
    key_values = st.tuples(*[_BY_TYPE[kinds[column]]() for column in keys])
    group_keys = draw(st.lists(key_values, min_size=min_groups, max_size=max_groups, unique=True))
    others = [_column_values(kinds[column], nil) for column in range(width)]
    rows = []
    for values_of_keys in group_keys:
        for _ in range(draw(st.integers(1, max_ties))):
            row = [draw(others[column]) for column in range(width)]
            for column, value in zip(keys, values_of_keys):
                row[column] = value
            rows.append(row)
    return Relation(rows, order_by=keys)


@st.composite
def _scalar(draw) -> Relation:
    return Relation([[draw(values(failures=True))]], scalar=True)


def answers(max_cols: int = 4, max_rows: int = 6) -> st.SearchStrategy[Answer]:
    """Any answer: scalars, relations (ordered, by sort keys, or not), alternatives and NO_ANSWER."""
    single = st.one_of(_scalar(), relations(max_cols=max_cols, max_rows=max_rows, ordered=None, order_by=None))
    return st.one_of(
        single,
        st.lists(single, min_size=2, max_size=3).map(lambda options: Alternatives(tuple(options))),
        st.just(NO_ANSWER),
    )


def alternatives() -> st.SearchStrategy[Alternatives]:
    """Canonical answers with two or three OR alternatives."""
    single = st.one_of(_scalar(), relations(max_rows=4))
    return st.lists(single, min_size=2, max_size=3).map(lambda options: Alternatives(tuple(options)))


# Model type name -> the strategy ``st.from_type`` uses for it (registered by
# ``answerkey.testing.plugin``).
MODEL_STRATEGIES: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "Relation": relations,
    "Alternatives": alternatives,
    "Boolean": booleans,
    "Number": numbers,
    "String": strings,
    "Date": dates,
    "DateTime": datetimes,
    "Time": times,
    "Failure": failures,
}


# --------------------------------------------------------------------------- valid CAS text

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
_MONTHS = tuple(MONTHS)
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
        month = _any_case(draw, _MONTHS[date.month - 1])
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


# --------------------------------------------------------------------------- invalid CAS text


def _structural_parens(text: str) -> list[int]:
    """Indexes of the parentheses of rendered CAS text that are not inside strings."""
    found, in_string, escaped = [], False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "()":
            found.append(index)
    return found


def _nonempty_relation(min_rows: int = 1, min_cols: int = 1, **options) -> st.SearchStrategy[Relation]:
    return relations(min_rows=min_rows, min_cols=min_cols, max_rows=4, max_cols=3, **options)


def _dropped_paren(draw) -> str:
    text = render(draw(_nonempty_relation()))
    index = draw(st.sampled_from(_structural_parens(text)))
    return text[:index] + text[index + 1 :]


def _extra_paren(draw) -> str:
    text = render(draw(_nonempty_relation()))
    index = draw(st.sampled_from(_structural_parens(text) + [0, len(text)]))
    return text[:index] + draw(st.sampled_from("()")) + text[index:]


def _unterminated_string(draw) -> str:
    prefix = render(draw(_nonempty_relation()))[:-2]
    body = render_value(String(draw(st.text(max_size=5))))[:-1]
    return prefix + " " + body + draw(st.sampled_from(["", '\n")', "\n"]))


def _raw_control_in_string(draw) -> str:
    char = draw(st.sampled_from([chr(c) for c in range(32)] + ["\x7f"]))
    return f'(("ab{char}cd"))'


def _quote_in_word(draw) -> str:
    word = draw(st.sampled_from(['ab"c', 'x"', '12"3"', 'true"']))
    return draw(st.sampled_from([word, f"(({word}))", f"((1 {word}))"]))


def _mixed_arity(draw) -> str:
    relation = draw(_nonempty_relation(min_rows=2))
    rows = [list(row) for row in relation.rows]
    index = draw(st.integers(0, len(rows) - 1))
    if relation.arity > 1 and draw(st.booleans()):
        del rows[index][draw(st.integers(0, relation.arity - 1))]
    else:
        rows[index].append(NIL)
    return "(" + " ".join("(" + " ".join(map(render_value, row)) + ")" for row in rows) + ")"


def _mixed_types(draw) -> str:
    first, second = draw(
        st.sampled_from(
            [
                ("1", '"one"'),
                ('"a"', "2"),
                ("true", "1"),
                ("2020-01-01", '"x"'),
                ("1.5", "false"),
                ("contingent-failure", "3"),
                ("04-JUL-89", "12"),
                ("1989-07-04T10:30:00", "1989-07-04"),
                ("10:30:00", "1989-07-04T10:30:00Z"),
                ('"10:30:00"', '"x"'),
            ]
        )
    )
    return draw(st.sampled_from([f"(({first}) ({second}))", f"((1 {first}) (NIL {second}))"]))


def _bad_date(draw) -> str:
    month = draw(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=3))
    if month in _MONTHS:
        month = "Q" + month[1:]  # no month starts with Q: drawn directly, never filtered
    token = draw(
        st.sampled_from(
            [
                f"01-{month}-89",
                f"15-{month.lower()}-1999",
                "31-FEB-2001",
                "00-JAN-99",
                "32-DEC-1980",
                "2001-13-01",
                "2001-02-30",
                "1999-00-10",
                "29-FEB-1900",
            ]
        )
    )
    return draw(st.sampled_from([token, f'"{token}"', f"(({token}))", f'((1 "{token}"))']))


def _bad_date_time(draw) -> str:
    token = draw(
        st.sampled_from(
            [
                "1989-13-04T10:30:00Z",
                "1989-02-30T10:30:00",
                "0000-01-01T00:00:00",
                "1989-07-04T24:00:00",
                "1989-07-04T10:60:00+02:00",
                "1989-07-04T10:30:60Z",
                "1989-07-04T10:30:00+24:00",
                "1989-07-04T10:30:00.1234567891",
                "24:00:01",
                "23:59:60",
                "10:30:00-02:60",
                "10:30:00.0000000001Z",
            ]
        )
    )
    return draw(st.sampled_from([token, f'"{token}"', f"(({token}))", f'((1 "{token}"))']))


def _control_character(draw) -> str:
    text = render(draw(_nonempty_relation()))
    char = draw(st.sampled_from([chr(c) for c in range(9)] + [chr(c) for c in range(14, 32)] + ["\x7f"]))
    index = draw(st.integers(0, len(text)))
    return text[:index] + char + text[index:]


def _misplaced_keyword(draw) -> str:
    return draw(
        st.sampled_from(
            [
                "(1 OR)",
                "(OR 1)",
                "1 OR 2",
                "((1) OR)",
                "(() OR)",
                "((1 OR 2))",
                "((NO_ANSWER))",
                "(NO_ANSWER OR 1)",
                "((ORDERED 1))",
                "(1 ORDERED)",
                "((1) ORDERED)",
                "(ORDERED ORDERED)",
                "ORDERED",
                "OR",
                "(OR)",
                "(1 OR (2 OR 3))",
            ]
        )
    )


def _empty_tuple(draw) -> str:
    return draw(st.sampled_from(["(())", "((1) ())", "(() (1))", "(ORDERED ())"]))


def _bad_sort_key(draw) -> str:
    return draw(
        st.sampled_from(
            [
                "(ORDERED BY)",
                "(ORDERED BY (1 2))",
                "(ORDERED BY 0 (1 2))",
                "(ORDERED BY 3 (1 2))",
                "(ORDERED BY 2 2 (1 2))",
                "(ORDERED BY 1.5 (1))",
                "(ORDERED BY -1 (1))",
                "(ORDERED BY +1 (1))",
                "(ORDERED BY 1e0 (1))",
                "(ORDERED BY x (1))",
                "(ORDERED BY 99999999999 (1))",
                "(ORDERED 1 (1))",
                "(BY 1 (1))",
                "((1 2) BY 1)",
                "(ORDERED BY 1 BY 2 (1 2))",
                "(ORDERED BY 1 (1) 2)",
                "(ORDERED (1) BY 1)",
            ]
        )
    )


def _two_answers(draw) -> str:
    return draw(st.sampled_from(["1 2", "((1)) ((2))", "NO_ANSWER NO_ANSWER", "() ()", "true false", ")("]))


def _nothing(draw) -> str:
    return draw(st.sampled_from(["", " ", "\n\t", "; only a comment", "; comment\n  ; another\n"]))


def _bad_escape(draw) -> str:
    escape = draw(
        st.sampled_from(
            ["\\q", "\\u12", "\\ud800", "\\UFFFFFFFF", "\\u", "\\x41", "\\a", "\\v", "\\udc00", "\\ud83d\\u0041"]
        )
    )
    return draw(st.sampled_from([f'"{escape}"', f'(("a{escape}b"))']))


def _oversized_number(draw) -> str:
    digits = "1" * draw(st.integers(1001, 1100))
    return draw(st.sampled_from([digits, f"(({digits}))", "1e1000001", "((1.5E-9999999))"]))


def _deep_nesting(draw) -> str:
    depth = draw(st.integers(3, 5000))
    return draw(st.sampled_from(["(" * depth, "(" * depth + "1" + ")" * depth, ")" * depth]))


# Each mutation builds a text that is invalid by construction (no check against the parser).
_MUTATIONS = {
    "dropped parenthesis": _dropped_paren,
    "extra parenthesis": _extra_paren,
    "unterminated string": _unterminated_string,
    "control character in a string": _raw_control_in_string,
    "quote inside a word": _quote_in_word,
    "mixed arity": _mixed_arity,
    "mixed column types": _mixed_types,
    "bad date": _bad_date,
    "bad date-time or time": _bad_date_time,
    "control character": _control_character,
    "misplaced keyword": _misplaced_keyword,
    "empty tuple": _empty_tuple,
    "bad sort key": _bad_sort_key,
    "two answers": _two_answers,
    "no answer at all": _nothing,
    "bad escape": _bad_escape,
    "oversized number": _oversized_number,
    "deep nesting": _deep_nesting,
}


@st.composite
def invalid_cas_texts(draw, kinds: tuple[str, ...] | None = None) -> str:
    """Near-miss CAS texts that ``parse`` must reject with a ``ParseError``: dropped or extra
    parentheses, broken strings, mixed arity or types, bad months and days, hours, seconds
    and offsets, control
    characters, misplaced keywords, bad sort keys, bad escapes, oversized numbers, deep nesting.

    ``kinds`` restricts the mutations (names as in ``INVALID_KINDS``).
    """
    name = draw(st.sampled_from(kinds or tuple(_MUTATIONS)))
    return _MUTATIONS[name](draw)


INVALID_KINDS = tuple(_MUTATIONS)
__all__.append("INVALID_KINDS")


_INTERESTING = "()\";\\ \n\t\r\x00\x1c\x7f\u00a0\ufeff0123456789.-+eE:TZabcORNILtrue{}[],'&*!|>-#"


@st.composite
def mutated_texts(draw, texts: st.SearchStrategy[str], alphabet: str = _INTERESTING, max_edits: int = 4) -> str:
    """``texts`` after a few random edits: characters deleted, inserted, duplicated or cut.

    For fuzzing parsers with inputs close to valid ones.
    """
    text = draw(texts)
    for _ in range(draw(st.integers(0, max_edits))):
        edit = draw(st.integers(0, 3))
        index = draw(st.integers(0, len(text)))
        if edit == 0 and text:
            end = draw(st.integers(index, min(len(text), index + 8)))
            text = text[:index] + text[end:]
        elif edit == 1:
            text = text[:index] + draw(st.text(st.sampled_from(alphabet), min_size=1, max_size=3)) + text[index:]
        elif edit == 2:
            end = draw(st.integers(index, min(len(text), index + 12)))
            text = text[:end] + text[index:end] + text[end:]
        else:
            text = text[:index]
    return text


# --------------------------------------------------------------------------- pairs for the comparator


def _nudge(draw, value: Value, epsilon: Decimal) -> Value:
    """A value the epsilon rule matches to ``value``: reals move by at most |c|*epsilon; a
    date-time or time with a UTC offset may be the same instant written with another."""
    if not epsilon:
        return value
    if isinstance(value, (DateTime, Time)):
        return _reoffset(draw, value)
    if not isinstance(value, Number):
        return value
    if not value.is_real:
        if draw(st.integers(0, 9)) == 0:
            return Number.of(Decimal(value.value) + Decimal("0.0"))  # 5 as the real 5.0
        return value
    step = draw(st.integers(-1000, 1000))
    with localcontext() as context:
        context.prec = 200
        exact = Decimal(value.value)
        moved = exact + abs(exact) * epsilon * step / 1000
    return Number.of(moved)


def _reoffset(draw, value: DateTime | Time) -> DateTime | Time:
    """``value`` (if it has a UTC offset, one time in four) as the same instant at another offset."""
    offset = value.value.utcoffset()
    if offset is None or draw(st.integers(0, 3)):
        return value
    zone = _zone(draw(st.integers(-(24 * 60 - 1), 24 * 60 - 1)))
    assert zone is not None
    if isinstance(value, Time):
        day = _dt.datetime.combine(_dt.date(2000, 1, 2), value.value)  # any day: times go round the clock
        return Time(day.astimezone(zone).timetz(), value.nanosecond)
    try:
        return DateTime(value.value.astimezone(zone), value.nanosecond)
    except OverflowError:  # near the years 1 and 9999 the instant has no reading at that offset
        return value


def _equivalent_relation(draw, canonical: Relation, epsilon: Decimal) -> Relation:
    if not canonical.rows:
        return Relation((), ordered=draw(st.booleans()))
    if canonical.scalar:
        value = _nudge(draw, canonical.rows[0][0], epsilon)
        shape = draw(st.integers(0, 2))
        if shape == 0:
            return Relation([[value]], scalar=True)
        return Relation([[value]] * shape)
    # Identical canonical tuples get identical system tuples: an ordered comparison collapses
    # runs of identical tuples, so nudging each copy differently would change the answer.
    nudged: dict = {}
    for row in canonical.rows:
        if row not in nudged:
            nudged[row] = [_nudge(draw, value, epsilon) for value in row]
    rows = [nudged[row] for row in canonical.rows]
    if not canonical.ordered:
        extra = draw(st.lists(st.sampled_from(canonical.rows), max_size=3))
        rows += [[_nudge(draw, value, epsilon) for value in row] for row in extra]
        rows = draw(st.permutations(rows))
    return _with_columns_added_and_permuted(draw, rows)


def _with_columns_added_and_permuted(draw, rows: list[list[Value]]) -> Relation:
    """The rows with up to two columns of any values added, all columns permuted."""
    width = draw(st.integers(0, 2))
    for _ in range(width):
        column = draw(
            st.lists(_column_values(draw(st.sampled_from(VALUE_TYPES)), True), min_size=len(rows), max_size=len(rows))
        )
        rows = [row + [cell] for row, cell in zip(rows, column)]
    order = draw(st.permutations(range(len(rows[0]))))
    return Relation([[row[i] for i in order] for row in rows])


def _key_of(relation: Relation) -> Callable[[tuple[Value, ...]], tuple[Value, ...]]:
    keys = relation.order_by or ()
    return lambda row: tuple(row[column] for column in keys)


def _shuffled_within_ties(draw, canonical: Relation, epsilon: Decimal) -> Relation:
    """A system answer to ``canonical`` (ordered by sort keys): each tie group's tuples
    shuffled, some repeated, reals moved within epsilon; columns added and permuted."""
    nudged: dict = {}
    rows: list[list[Value]] = []
    for _, run in groupby(canonical.rows, key=_key_of(canonical)):
        group = list(run)
        group += draw(st.lists(st.sampled_from(group), max_size=2))
        for row in draw(st.permutations(group)):
            if row not in nudged:
                nudged[row] = [_nudge(draw, value, epsilon) for value in row]
            rows.append(list(nudged[row]))
    return _with_columns_added_and_permuted(draw, rows)


def _swapped_across_keys(draw, canonical: Relation) -> Relation:
    """``canonical``'s tuples with two of different tie groups swapped, columns permuted."""
    key = _key_of(canonical)
    runs = [list(run) for _, run in groupby(range(len(canonical.rows)), key=lambda i: key(canonical.rows[i]))]
    first, second = sorted(draw(st.lists(st.integers(0, len(runs) - 1), min_size=2, max_size=2, unique=True)))
    i, j = draw(st.sampled_from(runs[first])), draw(st.sampled_from(runs[second]))
    rows = [list(row) for row in canonical.rows]
    rows[i], rows[j] = rows[j], rows[i]
    order = draw(st.permutations(range(canonical.arity)))
    return Relation([[row[c] for c in order] for row in rows])


EQUIVALENT_KINDS = ("relation", "ordered", "sorted", "scalar", "alternatives")
INEQUIVALENT_KINDS = (
    "missing tuple",
    "dropped column",
    "real beyond epsilon",
    "other string",
    "empty system",
    "empty canonical",
    "no answer",
    "out of key order",
)
__all__ += ["EQUIVALENT_KINDS", "INEQUIVALENT_KINDS"]


@st.composite
def equivalent_pairs(
    draw, max_cols: int = 3, max_rows: int = 5, kinds: tuple[str, ...] = EQUIVALENT_KINDS, nudge: bool = True
) -> tuple[Answer, Relation]:
    """(canonical, system) answers that ``judge`` must call correct: the system answer has
    its rows and columns shuffled, duplicate rows and extra columns added, reals moved
    within the default epsilon and date-times and times with offsets written at other
    offsets (rows keep their order for an ``ordered`` canonical answer, and their tie
    groups' order for a ``sorted`` one, ordered by sort keys); scalars may come back as
    one-value relations; a canonical ``(A OR B)`` is answered by one of its alternatives.
    ``nudge=False`` keeps numbers and offsets as they are; ``kinds`` picks from
    ``EQUIVALENT_KINDS``.
    """
    epsilon = DEFAULT_EPSILON if nudge else Decimal(0)
    kind = draw(st.sampled_from(kinds))
    if kind == "sorted":
        canonical = draw(sorted_relations(max_cols=max_cols, max_ties=max(1, max_rows // 2)))
        return canonical, _shuffled_within_ties(draw, canonical, epsilon)
    if kind == "alternatives":
        canonical = draw(alternatives())
        chosen = draw(st.sampled_from(canonical.options))
        return canonical, _equivalent_relation(draw, chosen, epsilon)
    if kind == "scalar":
        canonical = Relation([[draw(values(failures=True))]], scalar=True)
    else:
        canonical = draw(relations(max_cols=max_cols, max_rows=max_rows, ordered=kind == "ordered"))
    return canonical, _equivalent_relation(draw, canonical, epsilon)


def _fresh(column_type: str | None, taken: list[Value]) -> Value | None:
    """A value of the column's type that the default rule matches to none of ``taken``
    (None for booleans and failures, which have too few values): built directly, so that
    drawing never loops over candidates."""
    if column_type in ("boolean", "failure"):
        return None
    if column_type == "number":
        # Further from every taken number than epsilon allows: |s - c| > |c| * epsilon.
        largest = max((int(abs(Decimal(value.value))) for value in taken if isinstance(value, Number)), default=0)
        return Number.of(2 * largest + 10**15 + 7)
    if column_type == "date":
        dates_taken = {value.value for value in taken if isinstance(value, Date)}
        day = _dt.date(2999, 12, 31)
        while day in dates_taken:
            day -= _dt.timedelta(days=1)
        return Date(day)
    if column_type in ("datetime", "time"):
        # Naive ones with a nanosecond no taken value has: equal only to the same reading.
        nanoseconds = {value.nanosecond for value in taken if isinstance(value, (DateTime, Time))}
        fresh = next(n for n in range(1000) if n not in nanoseconds)
        if column_type == "datetime":
            return DateTime(_dt.datetime(9999, 12, 31, 23, 59, 59, 999999), fresh)
        return Time(_dt.time(23, 59, 59, 999999), fresh)
    texts = {value.text for value in taken if isinstance(value, String)}
    return String(next(f"fresh-{n}" for n in range(len(texts) + 1) if f"fresh-{n}" not in texts))


@st.composite
def inequivalent_pairs(
    draw, max_cols: int = 3, max_rows: int = 5, kinds: tuple[str, ...] = INEQUIVALENT_KINDS
) -> tuple[Answer, Answer]:
    """(canonical, system) answers that ``judge`` must call incorrect: a canonical tuple the
    system answer lacks, a column dropped, a real moved beyond epsilon, a different string,
    an empty answer for a non-empty one (and the reverse), ``NO_ANSWER``, or for an answer
    ordered by a sort key, two tuples of different keys swapped (the key column is the only
    column of dates, so that no other mapping puts them back in order).
    """
    epsilon = DEFAULT_EPSILON
    kind = draw(st.sampled_from(kinds))
    if kind == "out of key order":
        canonical = draw(
            sorted_relations(
                max_cols=max_cols, min_groups=2, max_keys=1, key_types=("date",), types=_NOT_DATES, nil=False
            )
        )
        return canonical, _swapped_across_keys(draw, canonical)
    canonical = draw(relations(min_rows=1, max_cols=max_cols, max_rows=max_rows))
    if kind == "no answer":
        return canonical, NO_ANSWER
    if kind == "empty system":
        return canonical, Relation(())
    if kind == "empty canonical":
        return Relation(()), _equivalent_relation(draw, canonical, epsilon)
    if kind == "real beyond epsilon":
        value = draw(reals())
        if value.value == 0:  # zero has no neighbour beyond a relative epsilon: use 1.5 (never filtered)
            value = Number.parse("1.5")
        step = draw(st.integers(1001, 10**6))
        with localcontext() as context:
            context.prec = 200
            moved = value.value + abs(value.value) * epsilon * step / 1000 * draw(st.sampled_from([1, -1]))
        return Relation([[value]], scalar=True), Relation([[Number.of(moved)]], scalar=True)
    if kind == "other string":
        text = draw(st.text(max_size=10))
        other = draw(st.text(max_size=10))
        if other == text:  # made different directly rather than filtered
            other += "x"
        return Relation([[String(text)]], scalar=True), Relation([[String(other)]], scalar=True)
    if kind == "missing tuple":
        system = _equivalent_relation(draw, canonical, epsilon)
        taken = [value for row in system.rows for value in row]
        for column in draw(st.permutations(range(canonical.arity))):
            types = {type_name(value) for value in canonical.columns[column]} - {None}
            fresh = _fresh(next(iter(types), None), taken)
            if fresh is not None:
                row = list(draw(st.sampled_from(canonical.rows)))
                row[column] = fresh
                return Relation(list(canonical.rows) + [row]), system
    # "dropped column", and the fallback for an all-boolean relation.
    dropped = draw(st.integers(0, canonical.arity - 1))
    rows = [row[:dropped] + row[dropped + 1 :] for row in canonical.rows]
    return canonical, Relation(rows if canonical.arity > 1 else ())


_NOT_DATES = tuple(kind for kind in VALUE_TYPES if kind != "date")


# --------------------------------------------------------------------------- the grammar's declared tokens

# cas.lark declares BY and SORT_KEY (its post-lexer makes them from a bare word and numbers):
# hypothesis.extra.lark.from_lark needs strategies for them. Keys are mostly small column
# numbers, sometimes a number that is no column number.
DECLARED_TERMINALS: dict[str, st.SearchStrategy[str]] = {
    "BY": st.sampled_from(["BY", "by", "By"]),
    "SORT_KEY": st.one_of(
        st.sampled_from(["1", "2", "3", "01"]), st.sampled_from(["0", "9", "1.5", "-1", "+2", "1e0", "123456789012"])
    ),
}
