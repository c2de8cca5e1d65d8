"""Match keys: equal exactly when values match (no tolerance), and the same one by one or
column at a time."""

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

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


# ------------------------------------------------------------------ keyed columns of plain values

PLAIN_FLOATS = st.floats(min_value=-(2.0**53) + 1, max_value=2.0**53 - 1, allow_nan=False)
# 2**60 is a float; its repr rounds it to 1152921504606847000, the model's value of it.
BIG = [2**60, 2.0**60, 1152921504606847000, 2.0**53, 2**53]
PLAIN_SMALL = st.one_of(st.integers(-3, 3), st.sampled_from([-0.0, 0.0, 0.5, 1.0, 2.0, 3.0, -1.0]))


def _typed(value):
    """The model's value of a plain value, as the SQLite adapter makes it."""
    from answerkey.adapters.sql import sql_value

    return sql_value(value)


def _plain_columns():
    """One column's values: numbers (ints, floats, both), text or neither, with NULLs."""
    kind = st.sampled_from(["ints", "floats", "numbers", "text"])

    def column(name):
        values = {
            "ints": st.one_of(st.integers(-(2**60), 2**60), st.integers(-3, 3)),
            "floats": st.one_of(PLAIN_FLOATS, PLAIN_SMALL.filter(lambda x: isinstance(x, float))),
            "numbers": st.one_of(PLAIN_SMALL, st.integers(2**53 - 3, 2**53 + 3), PLAIN_FLOATS, st.sampled_from(BIG)),
            "text": st.text(alphabet="aAb ", max_size=3),
        }[name]
        return st.lists(st.one_of(values, st.none()), min_size=1, max_size=12)

    return kind.flatmap(column)


@given(_plain_columns(), _plain_columns(), st.sampled_from(sorted(STRING_MODES)))
def test_keyed_plain_is_keyed_of_the_typed_values(first, second, strings):
    """A column of plain values keyed as it is gives the types, reals and key equalities
    (within a column and across two) and key order of the typed values it stands for."""
    rule = MatchRule(strings=strings)
    plain = [rule.keyed_plain(first), rule.keyed_plain(second)]
    typed = [rule.keyed([_typed(v) for v in first]), rule.keyed([_typed(v) for v in second])]
    for mine, theirs, column in zip(plain, typed, (first, second)):
        if mine is None:  # refused only for a float printed rounded
            assert any(isinstance(v, float) and abs(v) >= 2.0**53 for v in column)
            return
        assert (mine.kinds, mine.reals) == (theirs.kinds, theirs.reals)
    keys = [k for column in plain for k in column.keys]
    typed_keys = [k for column in typed for k in column.keys]
    for i, a in enumerate(keys):
        for j, b in enumerate(keys):
            assert (a == b) == (typed_keys[i] == typed_keys[j]), (a, b, typed_keys[i], typed_keys[j])
            numbers = (int, float)
            if type(a) in numbers and type(b) in numbers:
                assert (a < b) == (typed_keys[i] < typed_keys[j])


@pytest.mark.parametrize(
    "values",
    [
        [True, 1],  # a boolean is no number of SQLite's
        [b"\x00"],  # a blob is text (X'00') in the model
        [1.0, float("inf")],
        [float("nan")],
        [2.0**53],  # prints rounded beyond
        [-(2.0**60), 1.5],
        [1, "1"],  # a column mixing types: Relation refuses it
        [1.5, None, "x"],
        [object()],
    ],
)
def test_keyed_plain_refuses_what_it_cannot_key_as_the_model(values):
    assert MatchRule().keyed_plain(values) is None


def test_keyed_plain_keeps_the_values_as_keys_and_folds_text():
    """Exact strings key as themselves (the same list, not a copy); other modes normalise text only."""
    values = ["a", None, "b"]
    assert MatchRule().keyed_plain(values).keys is values
    assert MatchRule(strings="fold").keyed_plain([" A ", None]).keys == ["a", None]
    assert MatchRule().keyed_plain([1, None, 2.5]).kinds == {Number, type(NIL)}


@given(_plain_columns(), st.integers(1, 5))
def test_column_facts_found_chunk_by_chunk_are_the_columns(column, chunk):
    """The types and bounds a reader finds chunk by chunk are those of the whole column (bounds
    while no NULL and numbers only or texts only), and keyed_plain given them keys as without."""
    from answerkey.adapters.sql import ColumnFacts

    facts = ColumnFacts()
    for start in range(0, len(column), chunk):
        facts.add(column[start : start + chunk])
    assert facts.types == set(map(type, column))
    kinds = facts.types
    if type(None) not in kinds and (kinds <= {int, float} or kinds == {str}):
        assert facts.bounds == (min(column), max(column))
    else:
        assert facts.bounds is None
    rule = MatchRule()
    given_facts, alone = rule.keyed_plain(column, facts.types, facts.bounds), rule.keyed_plain(column)
    if alone is None:
        assert given_facts is None
    else:
        assert (given_facts.kinds, given_facts.reals, given_facts.keys) == (alone.kinds, alone.reals, alone.keys)
        assert given_facts.bounds == facts.bounds
