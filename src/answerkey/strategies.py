"""Hypothesis strategies for CAS values, relations and answers (``answerkey[fuzz]``).

The same strategies answerkey's own tests use. Example of a property test of your own code:

>>> from hypothesis import given
>>> from answerkey import judge, parse, render
>>> @given(relations())
... def test_my_formatter_round_trips(relation):
...     assert judge(relation, parse(render(relation)))
>>> test_my_formatter_round_trips()
"""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal

from hypothesis import strategies as st

from answerkey.model import (
    NIL,
    NO_ANSWER,
    Alternatives,
    Boolean,
    Date,
    Failure,
    FailureKind,
    Number,
    Relation,
    String,
    Value,
)

__all__ = ["VALUE_TYPES", "values", "relations", "answers", "integers", "reals", "strings", "dates"]

VALUE_TYPES = ("boolean", "integer", "real", "string", "date")


def integers() -> st.SearchStrategy[Number]:
    """Integers, sometimes written with a leading ``+``."""
    return st.builds(
        lambda n, plus: Number.parse(("+" if plus and n >= 0 else "") + str(n)),
        st.integers(min_value=-(10**12), max_value=10**12),
        st.booleans(),
    )


def reals() -> st.SearchStrategy[Number]:
    """Reals written in the ways CAS allows: ``5.``, ``-2.50``, ``2.9999999999``."""
    plain = st.decimals(
        min_value=Decimal("-1e9"), max_value=Decimal("1e9"), allow_nan=False, allow_infinity=False, places=4
    ).map(lambda d: Number.parse(format(d, "f") if "." in format(d, "f") else format(d, "f") + "."))
    return plain


def strings() -> st.SearchStrategy[String]:
    """Strings of any printable or control characters (never lone surrogates)."""
    return st.text(st.characters(exclude_categories=("Cs",)), max_size=20).map(String)


def dates() -> st.SearchStrategy[Date]:
    """Calendar dates from 1000 to 2999."""
    return st.dates(min_value=_dt.date(1000, 1, 1), max_value=_dt.date(2999, 12, 31)).map(Date)


_BY_TYPE = {
    "boolean": lambda: st.booleans().map(Boolean),
    "integer": integers,
    "real": reals,
    "string": strings,
    "date": dates,
}


def values(types: tuple[str, ...] = VALUE_TYPES, *, nil: bool = True, failures: bool = False) -> st.SearchStrategy[Value]:
    """Single CAS values of the given ``types`` (see ``VALUE_TYPES``), optionally NIL."""
    choices = [_BY_TYPE[name]() for name in types]
    if nil:
        choices.append(st.just(NIL))
    if failures:
        choices.append(st.sampled_from([Failure(FailureKind.CONTINGENT), Failure(FailureKind.NECESSARY)]))
    return st.one_of(choices)


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
) -> Relation:
    """Relations with one type per column (integers and reals may share a number column)."""
    width = draw(st.integers(min_cols, max_cols))
    column_types = [draw(st.sampled_from(types)) for _ in range(width)]
    column_strategies = []
    for kind in column_types:
        base = _BY_TYPE[kind]()
        if kind in ("integer", "real"):
            base = st.one_of(integers(), reals())
        column_strategies.append(st.one_of(base, st.just(NIL)) if nil else base)
    rows = draw(st.lists(st.tuples(*column_strategies), min_size=min_rows, max_size=max_rows))
    is_ordered = draw(st.booleans()) if ordered is None else ordered
    return Relation(rows, ordered=is_ordered)


@st.composite
def _scalar(draw) -> Relation:
    return Relation([[draw(values(failures=True))]], scalar=True)


def answers(max_cols: int = 4, max_rows: int = 6) -> st.SearchStrategy:
    """Any answer: scalars, relations (ordered or not), alternatives and NO_ANSWER."""
    single = st.one_of(_scalar(), relations(max_cols=max_cols, max_rows=max_rows, ordered=None))
    return st.one_of(
        single,
        st.lists(single, min_size=2, max_size=3).map(lambda options: Alternatives(tuple(options))),
        st.just(NO_ANSWER),
    )


def alternatives() -> st.SearchStrategy[Alternatives]:
    """Canonical answers with two or three OR alternatives."""
    single = st.one_of(_scalar(), relations(max_rows=4))
    return st.lists(single, min_size=2, max_size=3).map(lambda options: Alternatives(tuple(options)))


def _boolean_values():
    return values(("boolean",), nil=False)


def _number_values():
    return values(("integer", "real"), nil=False)


def _string_values():
    return values(("string",), nil=False)


def _date_values():
    return values(("date",), nil=False)
