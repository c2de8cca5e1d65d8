"""Match keys: equal exactly when values match (no tolerance), and the same one by one or
column at a time."""

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from answerkey.comparator.values import STRING_MODES, MatchRule
from answerkey.model import NIL, Boolean, Date, DateTime, Number, String, Time
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
        # One instant at two offsets, the naive reading, the date of it, the times of day.
        DateTime.parse("1989-07-04T10:30:00+02:00"),
        DateTime.parse("1989-07-04T08:30:00Z"),
        DateTime.parse("1989-07-04T08:30:00"),
        Date(dt.date(1989, 7, 4)),
        Time.parse("10:30:00+02:00"),
        Time.parse("08:30:00Z"),
        Time.parse("08:30:00"),
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
        (DateTime.parse("1989-07-04T10:30:00+02:00"), DateTime.parse("1989-07-04T08:30:00Z")),
        (Time.parse("10:30:00"), Time.parse("10:30:00.000")),
    ],
)
def test_keys_are_plain_python_values(value, key):
    assert MatchRule().key(value) == key
    assert type(MatchRule().key(value)) is type(key)


def test_date_time_keys_are_instants_and_never_cross_types():
    """A date-time's key is equal for one instant at two offsets, unequal to a date's, a time's
    or a naive reading's; a column of them keys as the values one by one."""
    rule = MatchRule()
    values = [
        DateTime.parse("1989-07-04T10:30:00+02:00"),
        DateTime.parse("1989-07-04T08:30:00Z"),
        DateTime.parse("1989-07-04T08:30:00"),
        DateTime.parse("1989-07-04T00:00:00"),
    ]
    keys = rule.keys(values)
    assert keys == [rule.key(value) for value in values]
    assert keys[0] == keys[1] and len(set(keys)) == 3
    assert rule.key(values[3]) != rule.key(Date(dt.date(1989, 7, 4)))
    assert rule.key(Time.parse("08:30:00Z")) != rule.key(values[1])
    assert rule.match(values[0], values[1]) and not rule.match(values[1], values[2])


def test_a_boolean_key_never_equals_a_number_key():
    rule = MatchRule()
    assert rule.key(Boolean(True)) != rule.key(Number(1, False, "1"))
    assert len({rule.key(Boolean(True)), rule.key(Number(1, False, "1")), rule.key(String("1"))}) == 3
