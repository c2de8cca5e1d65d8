"""Relation formats (answerkey.adapters.rows): JSON rows, CSV, SPARQL JSON and the registry."""

import datetime as dt
import json
import re
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from answerkey.adapters.rows import (
    FORMATS,
    RELATION_FORMATS,
    read_answer,
    read_csv,
    read_jsonrows,
    write_answer,
    write_csv,
    write_jsonrows,
)
from answerkey.errors import InputError
from answerkey.grammar.atoms import DATETIME_SHAPE, TIME_SHAPE
from answerkey.model import NIL, NO_ANSWER, Boolean, Date, DateTime, Number, Relation, String, Time
from answerkey.testing.strategies import relations

# Strings JSON rows read as dates, date-times or times when a whole column holds them.
_DATE_SHAPED = re.compile(rf"[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}|{DATETIME_SHAPE.pattern}|{TIME_SHAPE.pattern}")


def test_the_registry_lists_every_format_once():
    """cas, jsonrows, sparql-json and csv, each with its file suffix; only cas holds any answer."""
    assert {name: f.suffix for name, f in FORMATS.items()} == {
        "cas": ".cas",
        "jsonrows": ".json",
        "sparql-json": ".srj",
        "csv": ".csv",
    }
    assert RELATION_FORMATS == ("jsonrows", "sparql-json", "csv")


@pytest.mark.parametrize(
    "text, rows",
    [
        # Integers stay integers, reals keep their digits (2.50 is not 2.5's text), null is NIL.
        ('[[1, "SMITH", 2.50, null]]', [(Number.parse("1"), String("SMITH"), Number.parse("2.50"), NIL)]),
        # A column of ISO date strings is a date column; true/false are booleans.
        ('[["1989-07-04", true], [null, false]]', [(Date(dt.date(1989, 7, 4)), Boolean(True)), (NIL, Boolean(False))]),
        # Objects: keys in the first row's order.
        ('[{"b": 1, "a": "x"}, {"a": "y", "b": 2}]', [(Number.of(1), String("x")), (Number.of(2), String("y"))]),
        # A date-shaped string among other strings stays a string.
        ('[["1989-07-04"], ["soon"]]', [(String("1989-07-04"),), (String("soon"),)]),
        # Columns of ISO date-times and of times, naive or with offsets, in CAS spelling.
        (
            '[["1989-07-04T10:30:00Z", "10:30:00"], ["1989-07-04T12:30:00.25+02:00", null]]',
            [
                (DateTime.parse("1989-07-04T10:30:00Z"), Time.parse("10:30:00")),
                (DateTime.parse("1989-07-04T12:30:00.25+02:00"), NIL),
            ],
        ),
        # Dates and date-times in one column, an impossible date-time, a space for T: strings.
        ('[["1989-07-04"], ["1989-07-04T10:30:00"]]', [(String("1989-07-04"),), (String("1989-07-04T10:30:00"),)]),
        ('[["1989-07-04T24:00:00"]]', [(String("1989-07-04T24:00:00"),)]),
        ('[["1989-07-04 10:30:00"]]', [(String("1989-07-04 10:30:00"),)]),
        ("[]", []),
    ],
)
def test_reading_json_rows(text, rows):
    """Cells become typed values by the documented rules (module docstring)."""
    assert read_jsonrows(text).rows == tuple(rows)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[[1], [1, 2]]", "x.json: row 2 has 2 values; row 1 has 1"),
        ('[[1], ["a"]]', "x.json: row 2, column 1: a string in a column of numbers"),
        ("[[[1]]]", "x.json: row 1, column 1: an array is not a CAS value"),
        ("[[]]", "x.json: row 1: an empty row (a tuple has at least one value)"),
        ('{"rows": []}', "x.json: JSON rows must be an array of rows, not an object"),
        ("[[NaN]]", "x.json: NaN is not a number CAS can hold"),
        ("[[1e9999999]]", "x.json: number out of range (exponent beyond ±1000000)"),
        ("[[" + "9" * 1001 + "]]", "x.json: number longer than 1000 characters"),
        ('[{"a": 1}, {"b": 1}]', "x.json: row 2: keys ['b'] differ from the first row's ['a']"),
        ("[[1],\n [2}", "x.json:2:4: invalid JSON: Expecting ',' delimiter"),
        ("[" * 100_000, "x.json: JSON nested too deeply"),
    ],
    ids=lambda value: value[:30] if isinstance(value, str) else value,
)
def test_bad_json_rows_are_input_errors(text, message):
    """Every malformed input is an InputError saying where and what."""
    with pytest.raises(InputError) as caught:
        read_jsonrows(text, source="x.json")
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "text, rows",
    [
        ("id,name\n2341,SMITH\n5573,\n", [(Number.of(2341), String("SMITH")), (Number.of(5573), NIL)]),
        # One number column may mix integers and reals; 1e3 is a real.
        ("x\n1\n2.5\n1e3\n", [(Number.of(1),), (Number.parse("2.5"),), (Number.parse("1e3"),)]),
        # A column with any non-number is strings; quoting and embedded newlines are CSV's.
        ('x\n12\nabc\n"a,\nb"\n', [(String("12"),), (String("abc"),), (String("a,\nb"),)]),
        ("flag,day\nTRUE,2024-02-29\nfalse,\n", [(Boolean(True), Date(dt.date(2024, 2, 29))), (Boolean(False), NIL)]),
        (
            "at,clock\n1989-07-04T10:30:00.5Z,10:30:00\n,23:59:59-05:00\n",
            [(DateTime.parse("1989-07-04T10:30:00.5Z"), Time.parse("10:30:00")), (NIL, Time.parse("04:59:59Z"))],
        ),
        ("at\n1989-07-04T10:30:00\n1989-07-04\n", [(String("1989-07-04T10:30:00"),), (String("1989-07-04"),)]),
        ('x\n""\n', [(NIL,)]),
        ("", []),
        ("only,a,header\n", []),
    ],
)
def test_reading_csv(text, rows):
    """Columns are typed from all their non-empty cells; an empty cell is NIL."""
    assert read_csv(text).rows == tuple(rows)


@pytest.mark.parametrize(
    "text, message",
    [
        ("a,b\n1,2\n3\n", "rows.csv:3: 1 field; the header has 2"),
        ('a\n"x"y\n', "rows.csv:2: invalid CSV: ',' expected after '\"'"),
        ("a\n" + "1" * 1001 + "\n", "rows.csv:2:1: number longer than 1000 characters"),
    ],
    ids=["field count", "bad quoting", "long number"],
)
def test_bad_csv_is_an_input_error_with_its_line(text, message):
    """CSV errors name the line (and the column where one cell is at fault)."""
    with pytest.raises(InputError) as caught:
        read_csv(text, source="rows.csv")
    assert str(caught.value) == message


def test_writing_json_rows_keeps_reals_real():
    """5. is written 5.0 (JSON has no 5.), so it reads back as a real, equal to the original."""
    relation = Relation([[Number.parse("5."), Number.parse("+7"), Number.parse(".5"), String('a"\n')]])
    assert write_jsonrows(relation) == '[\n  [5.0, 7, 0.5, "a\\"\\n"]\n]\n'
    assert read_jsonrows(write_jsonrows(relation)) == relation


def test_date_times_and_times_are_written_in_cas_spelling():
    """JSON rows and CSV write date-times and times as CAS prints them, offsets kept, and read them back."""
    relation = Relation([[DateTime.parse("1989-07-04T10:30:00.500+02:00"), Time.parse("23:59:59Z")]])
    assert write_jsonrows(relation) == '[\n  ["1989-07-04T10:30:00.5+02:00", "23:59:59Z"]\n]\n'
    assert write_csv(relation) == "column1,column2\n1989-07-04T10:30:00.5+02:00,23:59:59Z\n"
    assert read_jsonrows(write_jsonrows(relation)) == relation == read_csv(write_csv(relation))


def test_writing_csv_names_columns():
    """The header is column1..N unless names are given; the empty relation is empty text."""
    relation = Relation.from_rows([[1, None], [2, "b"]])
    assert write_csv(relation) == "column1,column2\n1,\n2,b\n"
    assert write_csv(relation, ["id", "name"]).startswith("id,name\n")
    assert write_csv(Relation(())) == ""


@pytest.mark.parametrize("name", RELATION_FORMATS)
@given(relation=relations())
def test_reading_what_was_written_is_a_fixed_point(name, relation):
    """read(write(r)) is what the text means, and writing that again gives the same text."""
    answer_format = FORMATS[name]
    text = answer_format.write(relation)
    meant = answer_format.read(text)
    assert answer_format.write(meant) == text


no_date_shaped_strings = relations().filter(
    lambda relation: not any(type(v) is String and _DATE_SHAPED.fullmatch(v.text) for row in relation for v in row)
)


@pytest.mark.parametrize("name", ["jsonrows", "sparql-json"])
@given(relation=no_date_shaped_strings)
def test_typed_formats_round_trip_exactly(name, relation):
    """JSON rows and SPARQL JSON keep every relation (short of date-shaped strings in JSON rows)."""
    assert read_answer(write_answer(relation, name), name) == relation


@given(relations(types=("boolean", "integer", "real", "date", "datetime", "time")))
def test_csv_round_trips_relations_without_strings(relation):
    """Without strings (which CSV cannot tell from numbers), CSV keeps every relation."""
    assert read_csv(write_csv(relation)) == relation


def test_cas_format_holds_any_answer_and_others_only_relations():
    """write_answer writes NO_ANSWER as CAS but refuses it in a relation format."""
    assert write_answer(NO_ANSWER) == "NO_ANSWER\n"
    assert read_answer("NO_ANSWER\n") is NO_ANSWER
    with pytest.raises(ValueError, match="csv holds relations only, not NoAnswer"):
        write_answer(NO_ANSWER, "csv")
    with pytest.raises(ValueError, match="unknown answer format 'xml'"):
        read_answer("<x/>", "xml")


def test_sparql_ask_results_read_as_a_boolean_scalar():
    """An ASK result is the scalar true/false."""
    assert read_answer('{"head": {}, "boolean": true}', "sparql-json") == Relation([[Boolean(True)]], scalar=True)


def test_reals_in_json_rows_are_exact():
    """JSON numbers become exact decimals, not floats."""
    value = read_jsonrows("[[0.1]]").rows[0][0]
    assert value.value == Decimal("0.1") and value.is_real


def _iso_column(texts):
    """The typed values of a column of texts that are all ISO dates, all date-times or all
    times in CAS spelling (module docstring), else None."""
    readers = (
        (re.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}"), lambda text: Date(dt.date.fromisoformat(text))),
        (DATETIME_SHAPE, DateTime.parse),
        (TIME_SHAPE, Time.parse),
    )
    for shape, read in readers:
        try:
            if texts and all(shape.fullmatch(text) for text in texts):
                return [read(text) for text in texts]
        except ValueError:  # shaped like one, but no such date or time
            continue
    return None


def _json_cell_model(cell):
    """A decoded JSON cell's value: null NIL, true/false a boolean, a number (an exact
    decimal when it has a fraction or exponent) a number, a string a string."""
    if cell is None:
        return NIL
    if isinstance(cell, bool):
        return Boolean(cell)
    return String(cell) if isinstance(cell, str) else Number.of(cell)


def _json_rows_model(text):
    """The rows JSON rows must give for ``text`` by the module docstring's rules, worked out
    from the json module's own reading: an independent model of the reader."""
    document = json.loads(text, parse_float=Decimal)
    keys = next((list(row) for row in document if isinstance(row, dict)), [])  # the first object's order
    rows = [[row[key] for key in keys] if isinstance(row, dict) else row for row in document]
    typed = [[_json_cell_model(cell) for cell in row] for row in rows]
    for column in range(len(rows[0]) if rows else 0):
        texts = [row[column] for row in rows if row[column] is not None]
        if all(isinstance(cell, str) for cell in texts) and (values := _iso_column(texts)) is not None:
            found = iter(values)
            for row in typed:
                if row[column] is not NIL:
                    row[column] = next(found)
    return tuple(tuple(row) for row in typed)


# JSON rows documents (some of them malformed: ragged, nested, mixed columns, NaN) beside
# random text, so that many inputs are read and their rows checked.
json_cells = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_infinity=False)
    | st.text(max_size=5)
    | st.sampled_from(["1989-07-04", "2024-02-30", "10:30:00Z", "1989-07-04T10:30:00+02:00", "23:59:59"])
)
json_rows_texts = (
    st.text(max_size=30)
    | st.integers(1, 3)
    .flatmap(lambda width: st.lists(st.lists(json_cells, min_size=width, max_size=width), max_size=4))
    .map(json.dumps)
    | st.lists(
        st.lists(json_cells, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b"]), json_cells, min_size=1)
        | st.lists(st.lists(st.integers(), max_size=1), max_size=1),
        max_size=4,
    ).map(json.dumps)
)


@given(json_rows_texts)
def test_any_text_is_json_rows_or_an_input_error(text):
    """Any text is read as the rows the format's rules give, or refused with an InputError;
    nothing else is raised."""
    try:
        relation = read_jsonrows(text)
    except InputError:
        return
    expected = _json_rows_model(text)
    assert relation.rows == expected
    assert [list(map(type, row)) for row in relation.rows] == [list(map(type, row)) for row in expected]
