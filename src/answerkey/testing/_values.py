"""Strategies for the typed model's objects: values, relations, answers (``answerkey.testing.strategies``)."""

from __future__ import annotations

import datetime as _dt
import functools
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

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
    Number,
    Relation,
    String,
    Time,
    Value,
)

VALUE_TYPES = ("boolean", "integer", "real", "string", "date", "datetime", "time")
"""The value types ``values`` draws (its ``types`` argument)."""


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


def time_zone(minutes: int | None) -> _dt.tzinfo | None:
    """The fixed UTC offset of ``minutes``, or None (a naive value)."""
    return None if minutes is None else _dt.timezone(_dt.timedelta(minutes=minutes))


@functools.cache
def datetimes() -> st.SearchStrategy[DateTime]:
    """Date-times of the years 1 to 9999, naive or with a UTC offset, to the nanosecond."""
    return st.builds(
        lambda moment, minutes, nanosecond: DateTime(moment.replace(tzinfo=time_zone(minutes)), nanosecond),
        st.datetimes(),
        _OFFSETS,
        _NANOSECONDS,
    )


@functools.cache
def times() -> st.SearchStrategy[Time]:
    """Times of day, naive or with a UTC offset, to the nanosecond."""
    return st.builds(
        lambda clock, minutes, nanosecond: Time(clock.replace(tzinfo=time_zone(minutes)), nanosecond),
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
def column_values(kind: str, nil: bool) -> st.SearchStrategy[Value]:
    """Values of one column type (``VALUE_TYPES``; integers and reals mix as numbers), with
    nil among them when ``nil``."""
    base: st.SearchStrategy[Any] = numbers() if kind in ("integer", "real") else _BY_TYPE[kind]()
    return st.one_of(base, st.just(NIL)) if nil else base


@functools.cache  # built once per shape: composites would otherwise build it for every draw
def _rows(column_types: tuple[str, ...], nil: bool, min_rows: int, max_rows: int) -> st.SearchStrategy[Any]:
    columns = [column_values(kind, nil) for kind in column_types]
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
    others = [column_values(kinds[column], nil) for column in range(width)]
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
