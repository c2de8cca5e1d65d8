"""The typed model: immutable, hashable, validated."""

import datetime as dt
import pickle
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from answerkey.model import NIL, Boolean, Date, DateTime, Number, Relation, String, Time, type_name, value_of


def test_relations_compare_as_sets_unless_ordered():
    """Order and duplicates do not matter for plain relations; they do for ordered ones."""
    a = Relation.from_rows([[1], [2], [2]])
    b = Relation.from_rows([[2], [1]])
    assert a == b and hash(a) == hash(b)
    assert Relation.from_rows([[1], [2]], ordered=True) != Relation.from_rows([[2], [1]], ordered=True)


def test_relations_are_immutable_and_validated():
    """No attribute can be set; arity and column types are checked."""
    relation = Relation.from_rows([[1]])
    with pytest.raises(AttributeError):
        relation.rows = ()
    with pytest.raises(ValueError, match="tuple 2 has 2 values; expected 1"):
        Relation.from_rows([[1], [1, 2]])
    with pytest.raises(ValueError, match="tuple 2, column 1: a string in a column of numbers"):
        Relation.from_rows([[1], ["a"]])
    assert Relation.from_rows([[None], [1], [2.5]]).arity == 1  # nil fits; ints and reals are numbers


def test_numbers_keep_kind_and_text():
    """Integers and reals are different kinds; reals compare by exact value, not spelling."""
    assert Number.parse("5") != Number.parse("5.")
    assert Number.parse("5.") == Number.parse("5.00")
    assert Number.parse("2.9999999999").value == Decimal("2.9999999999")
    assert Number.of(0.1).text == "0.1"
    with pytest.raises(ValueError):
        Number.parse("nan")


@given(st.lists(st.integers(-(10**30), 10**30), max_size=20))
def test_numbers_of_ints_in_bulk_are_number_of_each(values):
    """Number.of_ints builds what Number.of builds for each int: value, kind, text, hash; the
    numbers are frozen as any."""
    numbers = Number.of_ints(values)
    expected = [Number.of(value) for value in values]
    assert [repr(number) for number in numbers] == [repr(number) for number in expected]
    assert list(map(hash, numbers)) == list(map(hash, expected))
    for number in numbers:
        with pytest.raises(AttributeError):
            number.text = "x"


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=20))
def test_numbers_of_floats_in_bulk_are_number_of_each(values):
    """Number.of_floats builds what Number.of builds for each finite float (the shortest text
    that reads back as it, -0.0 included); their hashes and equality are Number.of's."""
    numbers = Number.of_floats(values)
    expected = [Number.of(value) for value in values]
    assert [repr(number) for number in numbers] == [repr(number) for number in expected]
    assert numbers == expected and list(map(hash, numbers)) == list(map(hash, expected))


def test_numbers_of_floats_refuse_what_number_of_refuses():
    """An infinity or a NaN among the floats is refused with Number.of's message."""
    for value, shown in ((float("inf"), "'inf'"), (float("-inf"), "'-inf'"), (float("nan"), "'nan'")):
        with pytest.raises(ValueError, match=f"^not a finite number: {shown}$"):
            Number.of_floats([1.5, value])
        with pytest.raises(ValueError, match=f"^not a finite number: {shown}$"):
            Number.of(value)


@given(st.lists(st.text(max_size=5), max_size=20))
def test_strings_of_texts_in_bulk_are_string_of_each(texts):
    """String.of_texts builds String(text) for each text."""
    strings = String.of_texts(texts)
    assert strings == [String(text) for text in texts] and all(type(string) is String for string in strings)
    assert list(map(hash, strings)) == [hash(String(text)) for text in texts]


def test_value_of_maps_python_values():
    """None, bool, int, float, str and date map to typed values."""
    assert [value_of(v) for v in [None, True, 3, "x", dt.date(2020, 1, 2)]] == [
        NIL,
        Boolean(True),
        Number(3, False, "3"),
        String("x"),
        Date(dt.date(2020, 1, 2)),
    ]
    with pytest.raises(TypeError):
        value_of(object())


def test_answerkey_render_is_the_function_even_after_its_module_is_imported():
    """`import answerkey.grammar.render` (done by every module that renders) keeps answerkey.render callable."""
    import importlib

    import answerkey

    importlib.import_module("answerkey.grammar.render")
    importlib.import_module("answerkey.adapters.rows")
    assert answerkey.render(Relation.from_rows([[1]])) == "((1))"


# ---- date-times and times -------------------------------------------------------------------

PLUS_TWO = dt.timezone(dt.timedelta(hours=2))


def test_date_times_with_offsets_are_equal_when_they_are_one_instant():
    """DateTime equality (and hash) is the instant: the offset only changes the spelling."""
    paris = DateTime(dt.datetime(1989, 7, 4, 10, 30, tzinfo=PLUS_TWO))
    utc = DateTime(dt.datetime(1989, 7, 4, 8, 30, tzinfo=dt.UTC))
    assert paris == utc and hash(paris) == hash(utc) and len({paris, utc}) == 1
    assert paris.isoformat() == "1989-07-04T10:30:00+02:00" and utc.isoformat() == "1989-07-04T08:30:00Z"
    assert paris.moment == utc.moment == (True, utc.moment[1])


def test_a_naive_date_time_never_equals_an_aware_one():
    """A naive date-time has no instant: it equals no aware one, even one at UTC with the same reading."""
    naive = DateTime(dt.datetime(1989, 7, 4, 8, 30))
    assert naive != DateTime(dt.datetime(1989, 7, 4, 8, 30, tzinfo=dt.UTC))
    assert naive == DateTime.parse("1989-07-04T08:30:00.000000000")
    assert naive.moment[0] is False


def test_nanoseconds_are_part_of_the_value():
    """The digits below the microsecond count: one nanosecond apart is another value."""
    base = dt.datetime(2020, 1, 1, 12, 0, 0, 1)
    assert DateTime(base, 1) != DateTime(base) and DateTime(base, 1) == DateTime.parse("2020-01-01T12:00:00.000001001")
    assert DateTime(base, 1).isoformat() == "2020-01-01T12:00:00.000001001"
    assert Time(dt.time(0, 0), 999).isoformat() == "00:00:00.000000999"


def test_times_with_offsets_compare_round_the_clock():
    """Aware times are equal when they are the same time of day in UTC, across midnight too."""
    assert Time(dt.time(1, 0, tzinfo=PLUS_TWO)) == Time(dt.time(23, 0, tzinfo=dt.UTC))
    assert Time(dt.time(10, 30, tzinfo=PLUS_TWO)) == Time.parse("08:30:00Z")
    assert Time(dt.time(8, 30)) != Time.parse("08:30:00Z")
    assert Time.parse("08:30:00") != DateTime.parse("1989-07-04T08:30:00")


def test_date_times_and_times_are_values_with_column_types():
    """A column holds one type: date, datetime or time (nil fits any), and value_of reads them."""
    assert type_name(DateTime.parse("1989-07-04T00:00:00")) == "datetime"
    assert type_name(Time.parse("00:00:00")) == "time"
    assert (
        Relation([[DateTime.parse("1989-07-04T00:00:00Z")], [NIL], [DateTime.parse("1989-07-04T00:00:00")]]).arity == 1
    )
    with pytest.raises(ValueError, match="tuple 2, column 1: a datetime in a column of dates"):
        Relation([[Date(dt.date(1989, 7, 4))], [DateTime.parse("1989-07-04T00:00:00")]])
    with pytest.raises(ValueError, match="tuple 2, column 1: a time in a column of datetimes"):
        Relation.from_rows([[dt.datetime(1989, 7, 4)], [dt.time(10, 30)]])
    assert Relation.from_rows([[dt.time(10, 30)]]) == Relation([[Time.parse("10:30:00")]])


def test_relations_of_one_instant_at_two_offsets_are_equal():
    """Relations compare their tuples as sets of values: one instant at two offsets is one tuple."""
    one = Relation([[DateTime.parse("1989-07-04T10:30:00+02:00")], [DateTime.parse("1989-07-04T08:30:00Z")]])
    assert one == Relation([[DateTime.parse("1989-07-04T08:30:00Z")]])
    assert len(one.distinct_rows()) == 1


@pytest.mark.parametrize(
    "build, error, message",
    [
        (
            lambda: DateTime(dt.datetime(2020, 1, 1), 1000),
            ValueError,
            "nanosecond must be an integer from 0 to 999, not 1000",
        ),
        (
            lambda: DateTime(dt.datetime(2020, 1, 1), -1),
            ValueError,
            "nanosecond must be an integer from 0 to 999, not -1",
        ),
        (lambda: Time(dt.time(0), True), ValueError, "nanosecond must be an integer from 0 to 999, not True"),
        (
            lambda: DateTime(dt.date(2020, 1, 1)),
            TypeError,
            "a DateTime holds a datetime, not datetime.date(2020, 1, 1)",
        ),
        (lambda: Time("10:30:00"), TypeError, "a Time holds a time, not '10:30:00'"),
        (lambda: DateTime.parse("1989-07-04 10:30:00"), ValueError, "not a date-time: '1989-07-04 10:30:00'"),
        (lambda: Time.parse("10:30"), ValueError, "not a time: '10:30'"),
    ],
)
def test_date_times_and_times_are_validated(build, error, message):
    """Out-of-range parts and wrong spellings are refused with a message saying what is wrong."""
    with pytest.raises(error) as raised:
        build()
    assert str(raised.value).startswith(message)


def test_date_times_and_times_survive_pickling_for_worker_processes():
    """Values sent to worker processes come back equal, with their offsets and nanoseconds."""
    values = [DateTime.parse("1989-07-04T10:30:00.000000001+02:00"), Time.parse("23:59:59.5-05:00")]
    copies = pickle.loads(pickle.dumps(values))
    assert copies == values and [copy.isoformat() for copy in copies] == [value.isoformat() for value in values]
    assert [copy.moment for copy in copies] == [value.moment for value in values]


def test_moments_order_instants_chronologically():
    """Sorting by moment orders aware date-times by instant whatever their offsets (naive ones first)."""
    texts = ["1989-07-04T12:00:00+02:00", "1989-07-04T09:00:00Z", "1989-07-04T23:00:00", "1989-07-04T06:00:00-05:00"]
    ordered = sorted(map(DateTime.parse, texts), key=lambda value: value.moment)
    assert [value.isoformat() for value in ordered] == [
        "1989-07-04T23:00:00",
        "1989-07-04T09:00:00Z",
        "1989-07-04T12:00:00+02:00",  # 10:00Z
        "1989-07-04T06:00:00-05:00",  # 11:00Z
    ]
