"""value_of, the one conversion of Python, NumPy and pandas values into typed values, and
Relation.from_rows / of_scalar on NumPy arrays and pandas rows (issue 16, item 8)."""

from __future__ import annotations

import datetime as dt
import enum
import zoneinfo
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from answerkey.model import NIL, Boolean, Date, DateTime, Number, Relation, String, Time, value_of

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
hnp = pytest.importorskip("hypothesis.extra.numpy")

PARIS = dt.timezone(dt.timedelta(hours=1))
EUROPE_PARIS = zoneinfo.ZoneInfo("Europe/Paris")
# A local mean time of old: an offset of 9 minutes 21 seconds, which CAS cannot write.
LMT = dt.timezone(dt.timedelta(minutes=9, seconds=21))


class Colour(enum.IntEnum):
    RED = 3


class Word(enum.StrEnum):
    BEE = "bee"


class Ratio(float):
    def __repr__(self) -> str:
        return f"Ratio({float(self)})"


class Day(dt.date):
    pass


class Long:
    def __repr__(self) -> str:
        return "L" * 100


def integer(value: int) -> Number:
    return Number(value, False, str(value))


def real(text: str) -> Number:
    return Number(Decimal(text), True, text)


def moment(text: str) -> DateTime:
    return DateTime.parse(text)


def clock(text: str) -> Time:
    return Time.parse(text)


# (input, typed value): the conversion table of the README, exactly (texts of numbers included).
CONVERSIONS = [
    # Python
    (None, NIL),
    (True, Boolean(True)),
    (5, integer(5)),
    (2.5, real("2.5")),
    (float("nan"), NIL),
    (Decimal("1.50"), real("1.50")),
    (Decimal("NaN"), NIL),
    (Decimal("sNaN"), NIL),
    ("x", String("x")),
    (dt.date(1989, 7, 4), Date(dt.date(1989, 7, 4))),
    (Day(1989, 7, 4), Date(dt.date(1989, 7, 4))),
    (dt.datetime(2020, 1, 1, 12, 30), moment("2020-01-01T12:30:00")),
    (dt.datetime(2020, 1, 1, 12, 30, 0, 1), moment("2020-01-01T12:30:00.000001")),
    (dt.datetime(2020, 1, 1, 12, 30, tzinfo=PARIS), moment("2020-01-01T12:30:00+01:00")),
    (dt.datetime(2020, 1, 1, 12, 30, tzinfo=dt.UTC), moment("2020-01-01T12:30:00Z")),
    (dt.datetime(2020, 7, 1, 12, 30, tzinfo=EUROPE_PARIS), moment("2020-07-01T12:30:00+02:00")),  # its offset then
    (dt.datetime(1, 1, 1, tzinfo=PARIS), moment("0001-01-01T00:00:00+01:00")),  # no UTC time in range, kept
    (dt.datetime(1900, 1, 1, tzinfo=LMT), moment("1899-12-31T23:50:39Z")),  # no whole minutes: in UTC
    (dt.time(10, 30), clock("10:30:00")),
    (dt.time(10, 30, 0, 250000, tzinfo=dt.timezone(-dt.timedelta(hours=5))), clock("10:30:00.25-05:00")),
    (dt.time(0, 0, tzinfo=dt.UTC), clock("00:00:00Z")),
    (dt.time(0, 5, tzinfo=LMT), clock("23:55:39Z")),
    (Colour.RED, integer(3)),
    (Word.BEE, String("bee")),
    (Ratio(0.25), real("0.25")),
    # NumPy
    (np.int8(-5), integer(-5)),
    (np.int64(5), integer(5)),
    (np.uint64(2**64 - 1), integer(2**64 - 1)),
    (np.float64(0.5), real("0.5")),
    (np.float64(0.1), real("0.1")),
    (np.float32(0.1), real("0.10000000149011612")),  # widened exactly, not re-rounded
    (np.float16(0.5), real("0.5")),
    (np.longdouble(0.5), real("0.5")),
    (np.float64("nan"), NIL),
    (np.float32("nan"), NIL),
    (np.bool_(True), Boolean(True)),
    (np.bool_(False), Boolean(False)),
    (np.str_("x"), String("x")),
    (np.datetime64("2020-01-02", "D"), Date(dt.date(2020, 1, 2))),
    (np.datetime64("2020-01", "M"), Date(dt.date(2020, 1, 1))),
    (np.datetime64("2020", "Y"), Date(dt.date(2020, 1, 1))),
    (np.datetime64("2020-01-02", "W"), Date(dt.date(2020, 1, 2))),
    (np.datetime64("2020-01-01T00:00", "s"), moment("2020-01-01T00:00:00")),  # midnight, still a date-time
    (np.datetime64("2020-01-01T00:00", "h"), moment("2020-01-01T00:00:00")),
    (np.datetime64("2020-01-01T12:00:00.5", "ms"), moment("2020-01-01T12:00:00.5")),
    (np.datetime64("2020-01-01T12:00:00.000001", "us"), moment("2020-01-01T12:00:00.000001")),
    (np.datetime64("2020-01-01T00:00", "ns"), moment("2020-01-01T00:00:00")),
    (np.datetime64("2020-01-01T12:00:00.000001", "ns"), moment("2020-01-01T12:00:00.000001")),
    (np.datetime64("2020-01-01T12:00:00.123456789", "ns"), moment("2020-01-01T12:00:00.123456789")),
    (np.datetime64("1969-12-31T23:59:59.999999999", "ns"), moment("1969-12-31T23:59:59.999999999")),
    (np.datetime64(5, "10ns"), moment("1970-01-01T00:00:00.00000005")),
    (np.datetime64(1000, "ps"), moment("1970-01-01T00:00:00.000000001")),  # whole nanoseconds
    (np.datetime64(10**9, "fs"), moment("1970-01-01T00:00:00.000001")),
    (np.datetime64("NaT"), NIL),
    (np.datetime64("NaT", "ns"), NIL),
    (np.datetime64("NaT", "D"), NIL),
    # pandas
    (pd.NA, NIL),
    (pd.NaT, NIL),
    (pd.Timestamp("2020-01-01"), moment("2020-01-01T00:00:00")),
    (pd.Timestamp("2020-01-01 12:00:00.000000001"), moment("2020-01-01T12:00:00.000000001")),
    (pd.Timestamp("2020-01-01 12:00:00.5"), moment("2020-01-01T12:00:00.5")),
    (pd.Timestamp("2020-07-01 12:00", tz="Europe/Paris"), moment("2020-07-01T12:00:00+02:00")),
    (pd.Timestamp("2020-01-01 12:00", tz="UTC"), moment("2020-01-01T12:00:00Z")),
    (pd.Timestamp("2020-01-01 12:00:00.000000007", tz="Asia/Kolkata"), moment("2020-01-01T12:00:00.000000007+05:30")),
]


@pytest.mark.parametrize("value, expected", CONVERSIONS, ids=lambda value: repr(value)[:40])
def test_conversion_table(value, expected):
    """Each kind of Python, NumPy and pandas value becomes exactly its documented typed value."""
    typed = value_of(value)
    assert typed == expected and type(typed) is type(expected)
    if isinstance(typed, Number) and isinstance(expected, Number):
        assert typed.text == expected.text
    if isinstance(typed, String):
        assert type(typed.text) is str  # a plain str, not numpy.str_ or a StrEnum
    if isinstance(typed, Date):
        assert type(typed.value) is dt.date
    if isinstance(typed, (DateTime, Time)) and isinstance(expected, (DateTime, Time)):
        assert typed.isoformat() == expected.isoformat()  # the offset as well as the instant
        assert type(typed.value) in (dt.datetime, dt.time)  # a plain one, not pandas' Timestamp


# (input, exception, message): values without a CAS reading, in words without Python class names.
REFUSALS = [
    (1j, TypeError, "a complex number has no CAS value: 1j"),
    (np.complex128(1 + 2j), TypeError, "a complex number has no CAS value: (1+2j)"),
    (b"x", TypeError, "a byte string has no CAS value (decode it to text first)"),
    (bytearray(b"x"), TypeError, "a byte string has no CAS value (decode it to text first)"),
    (np.bytes_(b"x"), TypeError, "a byte string has no CAS value (decode it to text first)"),
    (dt.timedelta(days=1), TypeError, "a duration has no CAS value"),
    (np.timedelta64(5, "s"), TypeError, "a duration has no CAS value"),
    (pd.Timedelta(1), TypeError, "a duration has no CAS value"),
    (np.array([1, 2]), TypeError, "an array has no CAS value (a cell holds one value)"),
    (np.array(1), TypeError, "an array has no CAS value (a cell holds one value)"),
    (np.zeros(1, dtype="i4,i4")[0], TypeError, "a record has no CAS value (a cell holds one value)"),
    ({"a": 1}, TypeError, "a mapping has no CAS value"),
    ([1], TypeError, "a list has no CAS value (a cell holds one value)"),
    ((1,), TypeError, "a list has no CAS value (a cell holds one value)"),
    (float("inf"), ValueError, "not a finite number: 'inf'"),
    (np.float64("-inf"), ValueError, "not a finite number: '-inf'"),
    (Decimal("Infinity"), ValueError, "not a finite number: Infinity"),
    (np.datetime64("20000-01-01", "s"), ValueError, "a date or time outside the years 1 to 9999 has no CAS value"),
    (
        np.datetime64(1, "ps"),
        ValueError,
        "a date-time finer than a nanosecond has no CAS value (1970-01-01T00:00:00.000000000001)",
    ),
    (
        dt.time(10, 30, tzinfo=EUROPE_PARIS),
        ValueError,
        "no CAS value for the time 10:30:00 in a time zone without a fixed UTC offset",
    ),
    (
        dt.datetime(1, 1, 1, tzinfo=LMT),
        ValueError,
        "no CAS value for 0001-01-01T00:00:00+00:09:21: its UTC time is outside the years 1 to 9999",
    ),
]


@pytest.mark.parametrize("value, error, message", REFUSALS, ids=lambda value: repr(value)[:40])
def test_refusals_name_the_kind_of_value(value, error, message):
    """A value without a CAS reading raises the documented error with the documented message."""
    with pytest.raises(error) as raised:
        value_of(value)
    assert str(raised.value) == message


def test_other_objects_are_refused_with_a_short_repr():
    """Anything else is a TypeError listing what CAS holds, its repr cut to 60 characters."""
    with pytest.raises(TypeError, match=r"^no CAS value for <object object at 0x[0-9a-f]+> \(CAS holds nil, booleans"):
        value_of(object())
    with pytest.raises(TypeError) as raised:
        value_of(pd.Period("2020-01", "M"))
    assert (
        str(raised.value)
        == "no CAS value for Period('2020-01', 'M') (CAS holds nil, booleans, numbers, strings, dates, date-times and times)"
    )
    with pytest.raises(TypeError) as raised:
        value_of(Long())
    assert (
        str(raised.value)
        == f"no CAS value for {'L' * 57}... (CAS holds nil, booleans, numbers, strings, dates, date-times and times)"
    )


def test_a_timestamp_and_a_datetime64_of_one_instant_agree():
    """pandas and NumPy spell one instant the same way, so they compare equal."""
    instant = "2021-03-04T05:06:07.123456789"
    assert value_of(pd.Timestamp(instant)) == value_of(np.datetime64(instant, "ns"))
    assert value_of(pd.Timestamp(instant[:-3])) == value_of(dt.datetime.fromisoformat(instant[:-3]))


def test_aware_date_times_of_one_instant_are_equal_whatever_their_zones():
    """An instant read from two time zones is one value (it prints with each offset)."""
    paris = value_of(pd.Timestamp("2020-07-01 12:00", tz="Europe/Paris"))
    utc = value_of(dt.datetime(2020, 7, 1, 10, tzinfo=dt.UTC))
    assert paris == utc and hash(paris) == hash(utc)
    assert (paris.isoformat(), utc.isoformat()) == ("2020-07-01T12:00:00+02:00", "2020-07-01T10:00:00Z")
    assert value_of(dt.datetime(2020, 7, 1, 10)) != utc  # naive: no instant


def test_sub_microsecond_digits_are_never_lost():
    """pandas' and NumPy's nanoseconds are part of the value: one nanosecond apart is unequal."""
    assert value_of(pd.Timestamp("2020-01-01 12:00:00.000000001")) != value_of(dt.datetime(2020, 1, 1, 12))
    assert value_of(np.datetime64("2020-01-01T12:00:00.000000001", "ns")).nanosecond == 1


# ---- the two crashes of the issue ---------------------------------------------------------


def test_numpy_integers_build_relations():
    """`Relation.from_rows([[np.int64(5)]])` is the relation of 5 (was "TypeError: no CAS value for int64")."""
    assert Relation.from_rows([[np.int64(5), np.float64(0.5)]]) == Relation.from_rows([[5, 0.5]])
    assert Relation.of_scalar(np.int64(5)) == Relation.of_scalar(5)
    assert Relation.of_scalar(np.float64(0.5)).rows == ((real("0.5"),),)


def test_numpy_floats_are_never_read_through_repr():
    """`np.float64(0.5)` is the real 0.5 (numpy 2's repr "np.float64(0.5)" once gave "not a number")."""
    assert value_of(np.float64(0.5)) == real("0.5") and getattr(value_of(np.float64(0.5)), "text", None) == "0.5"
    assert Relation.from_rows([[np.float64(0.5)]]).rows == ((real("0.5"),),)


# ---- DataFrame rows ------------------------------------------------------------------------


def frame():
    """One column of each kind a DataFrame commonly holds, with missing values."""
    return pd.DataFrame(
        {
            "id": pd.Series([1, 2], dtype="int64"),
            "ratio": pd.Series([0.5, np.nan], dtype="float64"),
            "ok": pd.Series([True, False], dtype="bool"),
            "name": pd.Series(["SMITH", None], dtype=object),
            "at": pd.Series(
                pd.to_datetime(["2020-01-01", "2020-01-02 03:04:05"], format="ISO8601"), dtype="datetime64[ns]"
            ),
            "count": pd.array([7, None], dtype="Int64"),
            "grade": pd.Categorical(["a", "b"]),
        }
    )


EXPECTED_ROWS = (
    (integer(1), real("0.5"), Boolean(True), String("SMITH"), moment("2020-01-01T00:00:00"), integer(7), String("a")),
    (integer(2), NIL, Boolean(False), NIL, moment("2020-01-02T03:04:05"), NIL, String("b")),
)


def test_itertuples_without_the_index_keeps_every_column_type():
    """`df.itertuples(index=False)` rows give each column its type; NaN, None and pd.NA are nil."""
    assert Relation.from_rows(frame().itertuples(index=False), ordered=True).rows == EXPECTED_ROWS


def test_values_of_a_mixed_frame_give_the_same_rows():
    """`df.values` of a frame of mixed kinds (an object array) gives the same typed rows."""
    assert Relation.from_rows(frame().values, ordered=True).rows == EXPECTED_ROWS


def test_itertuples_with_the_index_makes_it_the_first_column():
    """Rows are taken as given: plain `df.itertuples()` puts the index first (hence index=False)."""
    rows = Relation.from_rows(frame()[["id"]].itertuples(), ordered=True).rows
    assert rows == ((integer(0), integer(1)), (integer(1), integer(2)))


def test_values_of_a_numeric_frame_are_floats():
    """`df.values` of integer and float columns is pandas' float array: the integers arrive as reals."""
    numbers = pd.DataFrame({"id": [1, 2], "ratio": [0.5, 0.25]})
    assert Relation.from_rows(numbers.values, ordered=True).rows == (
        (real("1.0"), real("0.5")),
        (real("2.0"), real("0.25")),
    )
    assert Relation.from_rows(numbers.itertuples(index=False), ordered=True).rows == (
        (integer(1), real("0.5")),
        (integer(2), real("0.25")),
    )


def test_values_of_a_date_time_frame_are_datetime64():
    """`df.values` of a date-time frame holds datetime64 values, read as the Timestamps are."""
    moments = pd.DataFrame({"at": pd.to_datetime(["2020-01-01", "2020-01-02 03:04:05.000000001"], format="ISO8601")})
    assert isinstance(moments.values[0][0], np.datetime64)
    assert Relation.from_rows(moments.values, ordered=True) == Relation.from_rows(
        moments.itertuples(index=False), ordered=True
    )
    assert Relation.from_rows(moments.values, ordered=True).rows[1] == (moment("2020-01-02T03:04:05.000000001"),)


def test_nullable_and_string_columns_with_missing_values():
    """pandas' nullable Int64 / boolean / string dtypes and its NaN-missing str dtype give nil."""
    table = pd.DataFrame(
        {
            "n": pd.array([1, None], dtype="Int64"),
            "b": pd.array([True, None], dtype="boolean"),
            "s": pd.array(["x", None], dtype="string"),
            "t": pd.Series(["y", None], dtype="str"),
        }
    )
    expected = ((integer(1), Boolean(True), String("x"), String("y")), (NIL, NIL, NIL, NIL))
    assert Relation.from_rows(table.itertuples(index=False), ordered=True).rows == expected
    assert Relation.from_rows(table.values, ordered=True).rows == expected


# ---- properties over NumPy dtypes ----------------------------------------------------------

SCALAR_DTYPES = st.one_of(
    hnp.integer_dtypes(),
    hnp.unsigned_integer_dtypes(),
    hnp.floating_dtypes(),
    hnp.boolean_dtypes(),
    hnp.unicode_string_dtypes(),
)


def numpy_scalars(dtype):
    return hnp.from_dtype(dtype).map(dtype.type)


def reading(value):
    """value_of's result with the text of numbers, or the error it raises."""
    try:
        typed = value_of(value)
    except (TypeError, ValueError) as error:
        return type(error), str(error)
    return typed, getattr(typed, "text", None)


@given(SCALAR_DTYPES.flatmap(numpy_scalars))
def test_a_numpy_scalar_reads_as_its_python_value(scalar):
    """value_of(a NumPy scalar) equals value_of(its .item()), text of numbers included."""
    assert reading(scalar) == reading(scalar.item())


@given(hnp.datetime64_dtypes(min_period="us", max_period="Y").flatmap(numpy_scalars))
def test_a_datetime64_reads_as_its_python_date_or_datetime(moment):
    """A datetime64 of microseconds or coarser reads as its .item() (a date, a datetime, or None
    for NaT), and is refused when Python cannot hold it."""
    item = moment.item()
    if item is None or isinstance(item, dt.date):
        assert value_of(moment) == value_of(item)
    else:
        with pytest.raises(ValueError, match="outside the years 1 to 9999"):
            value_of(moment)


def test_from_rows_reads_a_data_frame_without_its_index():
    """A DataFrame given to from_rows is its rows (itertuples without the index), not its column labels."""
    frame = pd.DataFrame({"ab": [1, 2], "c": ["x", "y"]}, index=[10, 20])
    assert Relation.from_rows(frame) == Relation.from_rows([[1, "x"], [2, "y"]])


def test_a_string_is_not_a_row():
    """from_rows refuses a string where a row belongs instead of splitting it into characters."""
    with pytest.raises(TypeError, match=r"^a row is a list of cells, not a string$"):
        Relation.from_rows(["ab"])


def test_number_of_a_numpy_float_reads_its_value_not_its_repr():
    """Number.of takes NumPy floats (a float subclass) by value: np.float64(0.5) is 0.5."""
    assert Number.of(np.float64(0.5)) == Number.parse("0.5")
    assert Number.of(np.float64(0.5)).text == "0.5"
