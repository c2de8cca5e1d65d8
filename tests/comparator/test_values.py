"""Match keys: equal exactly when values match (no tolerance), and the same one by one or
column at a time."""

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from answerkey.comparator.values import STRING_MODES, MatchRule
from answerkey.model import NIL, Boolean, Date, Number, String
from answerkey.testing.strategies import values

rules = st.builds(MatchRule, epsilon=st.just(0), strings=st.sampled_from(sorted(STRING_MODES)))
small_values = values(failures=True) | st.sampled_from(
    [
        Number(1, False, "1"),
        Number(Decimal("1.0"), True, "1.0"),
        Boolean(True),
        String("1"),
        String(" a"),
        String("A"),
        NIL,
    ]
)


@given(rules, small_values, small_values)
def test_keys_are_equal_exactly_when_values_match(rule, a, b):
    assert (rule.key(a) == rule.key(b)) == rule.match(a, b)


@given(st.sampled_from(sorted(STRING_MODES)), st.lists(small_values, max_size=6), st.booleans())
def test_column_keys_equal_keys_one_by_one(strings, column, one_type):
    rule = MatchRule(strings=strings)
    if one_type and column:  # a column of one type takes the C-level path
        column = [value for value in column if type(value) is type(column[0])]
    assert rule.keys(column) == [rule.key(value) for value in column]
    assert rule.keys(iter(column)) == rule.keys(column)


@pytest.mark.parametrize(
    ("value", "key"),
    [
        (Number(5, False, "5"), 5),
        (Number(Decimal("2.50"), True, "2.50"), Decimal("2.5")),
        (String(" Ab"), " Ab"),
        (Date(dt.date(1989, 7, 4)), dt.date(1989, 7, 4)),
        (Boolean(True), Boolean(True)),
        (NIL, NIL),
    ],
)
def test_keys_are_plain_python_values(value, key):
    assert MatchRule().key(value) == key
    assert type(MatchRule().key(value)) is type(key)


def test_a_boolean_key_never_equals_a_number_key():
    rule = MatchRule()
    assert rule.key(Boolean(True)) != rule.key(Number(1, False, "1"))
    assert len({rule.key(Boolean(True)), rule.key(Number(1, False, "1")), rule.key(String("1"))}) == 3
