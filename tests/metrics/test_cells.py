"""Cells of the table metrics: every value read by value_of (NumPy and pandas included), the
fast keying of plain columns equal to it, and what a table is (issue 16, item 8)."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from hypothesis import given, strategies as st

from answerkey.comparator.values import MatchRule
from answerkey.metrics import table_scores
from answerkey.metrics.cells import keyed_table
from answerkey.metrics.table import cell_precision, cell_recall, execution_accuracy, table_rows
from answerkey.model import NIL, DateTime, Number, Relation, String, Time, rows_of
from answerkey.testing.strategies import values

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
hnp = pytest.importorskip("hypothesis.extra.numpy")


def test_numpy_floats_score_as_python_floats():
    """`cell_precision` with np.float64 cells scores as with floats (was "not a number: 'np.float64(0.5)'")."""
    assert cell_precision([[np.float64(0.5)]], [[0.5]]) == 1.0
    assert cell_precision([[0.5]], [[np.float64(0.5)], [np.float64(0.75)]]) == 0.5
    assert cell_recall([[np.float32(0.5)]], [[np.float64(0.50001)]]) == 1.0  # within epsilon


def test_numpy_integers_score_as_python_integers():
    """np.int64 cells are integers: equal to 5, not to the real 5.5 (was "no CAS value for int64")."""
    assert execution_accuracy([[np.int64(5), "a"]], [[5, np.str_("a")]]) == 1.0
    assert cell_precision([[5]], [[np.int64(6)]]) == 0.0


def test_missing_values_of_numpy_and_pandas_are_nil():
    """NaN (Python or NumPy), pd.NA, pd.NaT and None are one nil cell, as QATCH reads pandas' NaN."""
    target = [[None, 1]]
    for missing in (math.nan, np.float64("nan"), np.float32("nan"), pd.NA, pd.NaT, np.datetime64("NaT")):
        assert cell_precision(target, [[missing, np.int64(1)]]) == 1.0, repr(missing)
    assert table_rows([[np.float64("nan"), pd.NA]]) == ((NIL, NIL),)


def test_numpy_booleans_are_not_numbers():
    """np.bool_ is a boolean cell: it does not match the integer 1."""
    assert cell_precision([[1]], [[np.bool_(True)]]) == 0.0
    assert cell_precision([[True]], [[np.bool_(True)]]) == 1.0


def frame():
    return pd.DataFrame(
        {
            "id": [1, 2, 3],
            "ratio": [0.5, np.nan, 0.25],
            "name": ["SMITH", "JONES", None],
            "count": pd.array([7, None, 9], dtype="Int64"),
            "at": pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03 04:05:06"], format="ISO8601"),
        }
    )


def test_a_dataframe_is_read_without_its_index():
    """A DataFrame is a table of its rows, as `df.itertuples(index=False)`: the index is no column."""
    table = frame().set_index(pd.Index([10, 20, 30]))
    rows = table_rows(table)
    assert rows == table_rows(table.itertuples(index=False)) == table_rows(table.values)
    assert rows[1] == (Number(2, False, "2"), NIL, String("JONES"), NIL, DateTime.parse("2020-01-02T00:00:00"))
    assert set(table_scores(table, list(table.itertuples(index=False, name=None))).values()) == {1.0}


def test_dataframe_rows_score_as_the_python_rows():
    """`df.values`, `df.itertuples(index=False)` and the frame score as the same rows written in Python."""
    python: list[list[object]] = [
        [1, 0.5, "SMITH", 7, dt.datetime(2020, 1, 1)],
        [2, None, "JONES", None, dt.datetime(2020, 1, 2)],
        [3, 0.25, None, 9, dt.datetime(2020, 1, 3, 4, 5, 6)],
    ]
    prediction = python[:2] + [[3, 0.25, "BLAKE", 9, dt.datetime(2020, 1, 3, 4, 5, 6)]]
    expected = table_scores(python, prediction)
    assert expected["cell_precision"] == 13 / 14  # 14 distinct cells, BLAKE unmatched
    for table in (frame(), frame().values, frame().itertuples(index=False)):
        assert table_scores(table, prediction) == expected


def test_date_time_cells_match_by_instant_and_never_text():
    """A date-time cell matches the same instant at another offset, not its ISO text, nor a naive one."""
    utc = dt.UTC
    target = [[dt.datetime(2020, 7, 1, 10, tzinfo=utc), dt.time(8, 30, tzinfo=utc)]]
    paris = dt.timezone(dt.timedelta(hours=2))
    assert (
        cell_precision(target, [[pd.Timestamp("2020-07-01 12:00", tz="Europe/Paris"), dt.time(10, 30, tzinfo=paris)]])
        == 1.0
    )
    assert cell_precision(target, [["2020-07-01T10:00:00Z", "08:30:00Z"]]) == 0.0
    assert cell_precision(target, [[dt.datetime(2020, 7, 1, 10), dt.time(8, 30)]]) == 0.0
    assert (
        execution_accuracy([[DateTime.parse("2020-07-01T12:00:00+02:00")]], [[DateTime.parse("2020-07-01T10:00:00Z")]])
        == 1.0
    )


def test_one_instant_at_two_offsets_is_one_key_with_one_form():
    """Keys of a column of date-times (the fast path) and of the same cells among nils (cell by
    cell) are equal, and equal for one instant whatever its offset."""
    column = [
        DateTime.parse("2020-07-01T12:00:00+02:00"),
        DateTime.parse("2020-07-01T10:00:00Z"),
        Time.parse("10:00:00"),
    ]
    rule = MatchRule()
    fast = keyed_table([[column[0]], [column[1]]], rule).rows
    slow = keyed_table([[column[0]], [column[1]], [None]], rule).rows[:2]
    assert fast == slow and fast[0] == fast[1] and repr(fast[0]) == repr(fast[1])
    assert (
        keyed_table([[column[2]]], rule).rows[0] != keyed_table([[DateTime.parse("2020-07-01T10:00:00")]], rule).rows[0]
    )


def at_offset(value, minutes):
    """``value`` (a date-time or time) as the same instant at UTC offset ``minutes``, when it has an offset."""
    zone = dt.timezone(dt.timedelta(minutes=minutes))
    if isinstance(value, DateTime) and value.value.tzinfo is not None and 2 <= value.value.year <= 9998:
        return DateTime(value.value.astimezone(zone), value.nanosecond)
    if isinstance(value, Time) and value.value.tzinfo is not None:
        return Time(dt.datetime.combine(dt.date(2000, 1, 2), value.value).astimezone(zone).timetz(), value.nanosecond)
    return value


temporal = values(("date", "datetime", "time"), nil=False)


pairs = temporal.flatmap(
    lambda v: st.tuples(st.just(v), temporal | st.integers(-1439, 1439).map(lambda m: at_offset(v, m)))
)


@given(pairs)
def test_keys_of_dates_date_times_and_times_are_equal_exactly_when_they_match(pair):
    """Cell keys decide matching for dates, date-times and times as MatchRule.match does
    (the second value often the first at another offset)."""
    first, second = pair
    rule = MatchRule()
    keys = keyed_table([[first], [second]], rule).rows
    assert (keys[0] == keys[1]) == rule.match(first, second)


@pytest.mark.parametrize(
    "table, message",
    [
        ("abc", "a table is a list of rows, not a string"),
        (b"abc", "a table is a list of rows, not a byte string"),
        (np.int64(5), "a table is a list of rows, not one value"),
        ([np.int64(1)], "a row is a list of cells, not one value"),
        (np.array([1, 2]), "a row is a list of cells, not one value"),
        (pd.Series([1, 2]), "a row is a list of cells, not one value"),
        (["ab"], "a row is a list of cells, not a string"),
        ([[np.complex128(1j)]], "a complex number has no CAS value: 1j"),
        ([[np.bytes_(b"x")]], "a byte string has no CAS value (decode it to text first)"),
    ],
)
def test_not_a_table_of_values(table, message):
    """Something that is not a table of values is a TypeError saying so without class names."""
    with pytest.raises(TypeError) as raised:
        cell_precision([["a"]], table)
    assert str(raised.value) == message


def test_a_relation_is_its_rows():
    """A Relation's rows are used as they are."""
    relation = Relation.from_rows([[np.int64(1), "a"]])
    assert rows_of(relation) == relation.rows


# ---- properties ----------------------------------------------------------------------------

SCALAR_DTYPES = st.one_of(
    hnp.integer_dtypes(),
    hnp.unsigned_integer_dtypes(),
    hnp.floating_dtypes(),
    hnp.boolean_dtypes(),
    hnp.unicode_string_dtypes(max_len=3),
)


def scalars(dtype):
    """Scalars of ``dtype``, NaN included, without infinities (which no table may hold)."""
    if dtype.kind == "f":
        return hnp.from_dtype(dtype, allow_infinity=False).map(dtype.type)
    return hnp.from_dtype(dtype).map(dtype.type)


@st.composite
def numpy_rows(draw, dtypes):
    """Rows of NumPy scalars, one dtype per column (as `df.itertuples` gives)."""
    size = draw(st.integers(0, 5))
    return [tuple(draw(scalars(dtype)) for dtype in dtypes) for _ in range(size)]


tables = st.lists(SCALAR_DTYPES, min_size=1, max_size=3).flatmap(numpy_rows)


def python(rows):
    return [[cell.item() for cell in row] for row in rows]


@given(tables, tables)
def test_metrics_over_numpy_rows_equal_metrics_over_python_rows(target, prediction):
    """Every metric scores rows of NumPy scalars as the same rows of Python values (.item())."""
    assert table_scores(target, prediction) == table_scores(python(target), python(prediction))


@given(
    hnp.arrays(SCALAR_DTYPES, hnp.array_shapes(min_dims=2, max_dims=2, max_side=4), elements={"allow_infinity": False}),
    st.data(),
)
def test_metrics_over_numpy_arrays_equal_metrics_over_lists(array, data):
    """A 2-D array (what `df.values` gives) scores as its `.tolist()`."""
    other = data.draw(tables)
    assert table_scores(array, other) == table_scores(array.tolist(), python(other))
    assert table_scores(other, array) == table_scores(python(other), array.tolist())


PLAIN_KINDS = [st.none(), st.booleans(), st.integers(), st.floats(allow_infinity=False), st.text(max_size=3)]
plain_cells = st.one_of(PLAIN_KINDS)


@st.composite
def plain_tables(draw):
    """Rows of plain Python values, most columns of one type (the fast path), some mixed."""
    kinds = draw(st.lists(st.sampled_from([*PLAIN_KINDS, plain_cells]), min_size=1, max_size=3))
    return [[draw(kind) for kind in kinds] for _ in range(draw(st.integers(0, 4)))]


@given(
    plain_tables() | st.lists(st.lists(plain_cells, min_size=1, max_size=3), max_size=4),
    st.sampled_from(["exact", "trim", "fold"]),
)
def test_fast_keys_equal_the_keys_of_typed_values(rows, strings):
    """Plain Python columns keyed straight away get the keys of value_of's typed values."""
    rule = MatchRule(strings=strings)
    fast, typed = keyed_table(rows, rule), keyed_table(table_rows(rows), rule)
    assert fast.rows == typed.rows
    assert (fast.integers, fast.reals) == (typed.integers, typed.reals)


@given(st.lists(st.lists(st.floats(allow_infinity=False), min_size=2, max_size=2), min_size=1, max_size=4))
def test_float_columns_keyed_fast_equal_the_typed_keys(rows):
    """A column of floats only (NaN included) keys as value_of reads each float."""
    rule = MatchRule()
    assert keyed_table(rows, rule).rows == keyed_table(table_rows(rows), rule).rows
