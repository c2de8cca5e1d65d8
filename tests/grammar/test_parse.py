"""The CAS grammar: the paper's examples, the ATIS/answerkey dialect, and its errors."""

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import assume, given, strategies as st

from answerkey import ParseError, parse, render
from answerkey.grammar import parse_with_grammar
from answerkey.grammar.atoms import QUOTED_VALUE_SHAPE
from answerkey.model import (
    NIL,
    NO_ANSWER,
    Alternatives,
    Boolean,
    Date,
    DateTime,
    Failure,
    FailureKind,
    Number,
    Relation,
    String,
    Time,
)

GOLDEN = Path(__file__).with_name("golden.cas")
UTC = dt.UTC


def offset(hours: int, minutes: int = 0) -> dt.timezone:
    return dt.timezone(dt.timedelta(hours=hours, minutes=minutes))


def scalar(value):
    return Relation([[value]], scalar=True)


@pytest.mark.parametrize(
    "text, expected",
    [
        # H89-2019 section 2.1: "Here are some examples of answers in the CAS format".
        ("((false))", Relation([[Boolean(False)]])),
        ("FALSE", scalar(Boolean(False))),
        ("2.9999999999", scalar(Number(Decimal("2.9999999999"), True, "2.9999999999"))),
        ("(( 3 ))", Relation([[Number(3, False, "3")]])),
        ('"04-JUL-89"', scalar(Date(dt.date(1989, 7, 4)))),
        (
            '( (2341 "SMITH") (5573 "JONES") )',
            Relation([[Number.of(2341), String("SMITH")], [Number.of(5573), String("JONES")]]),
        ),
        ("()", Relation([])),
    ],
)
def test_paper_section_2_1_examples(text, expected):
    """Each example answer of H89-2019 section 2.1 parses to the typed answer it denotes."""
    assert parse(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        # ATIS CAS v2 (1990-91): signed numbers, "5.", yes/no, bare words, NO_ANSWER, NIL.
        ("-3", scalar(Number(-3, False, "-3"))),
        ("+2", scalar(Number(2, False, "+2"))),
        ("5.", scalar(Number(Decimal(5), True, "5."))),
        ("yes", scalar(Boolean(True))),
        ("No", scalar(Boolean(False))),
        ("((BOSTON 1) (DALLAS 2))", Relation([[String("BOSTON"), Number.of(1)], [String("DALLAS"), Number.of(2)]])),
        ("NO_ANSWER", NO_ANSWER),
        ("no_answer", NO_ANSWER),
        ("((NIL 5) (4 NIL))", Relation([[NIL, Number.of(5)], [Number.of(4), NIL]])),
        ("(1 OR 2)", Alternatives((scalar(Number.of(1)), scalar(Number.of(2))))),
        # Dates: quoted or bare DD-MON-YY, DD-MON-YYYY, ISO; month case-insensitive.
        ("01-JAN-80", scalar(Date(dt.date(1980, 1, 1)))),
        ("01-jan-1980", scalar(Date(dt.date(1980, 1, 1)))),
        ("1980-01-01", scalar(Date(dt.date(1980, 1, 1)))),
        ('"1980-01-01"', scalar(Date(dt.date(1980, 1, 1)))),
        ("01-JAN-29", scalar(Date(dt.date(2029, 1, 1)))),  # two-digit pivot: < 30 -> 20YY
        ("01-JAN-30", scalar(Date(dt.date(1930, 1, 1)))),
        # Atoms never stop inside a longer run of non-space characters.
        ("truefalse", scalar(String("truefalse"))),
        ("01-JAN-8012", scalar(String("01-JAN-8012"))),
        ("12abc", scalar(String("12abc"))),
        ("nil2", scalar(String("nil2"))),
        # Keywords are case-insensitive; strings are case-sensitive.
        ('(("Smith") ("SMITH"))', Relation([[String("Smith")], [String("SMITH")]])),
        ("TrUe", scalar(Boolean(True))),
        # Extensions: .5 and exponents, ordered relations, presupposition failures.
        (".5", scalar(Number(Decimal("0.5"), True, ".5"))),
        ("1e5", scalar(Number(Decimal("1e5"), True, "1e5"))),
        ("(ORDERED (2) (1))", Relation([[Number.of(2)], [Number.of(1)]], ordered=True)),
        ("contingent-failure", scalar(Failure(FailureKind.CONTINGENT))),
        ("NECESSARY-FAILURE", scalar(Failure(FailureKind.NECESSARY))),
        # Comments and any whitespace between elements are ignored.
        ("( ; the salaries\n (1)\t(2) ) ; done", Relation([[Number.of(1)], [Number.of(2)]])),
        ('"tab\\there \\"q\\" \\u00e9 \\U0001F600"', scalar(String('tab\there "q" é \U0001f600'))),
        ('"\\u00304-JUL-89"', scalar(String("04-JUL-89"))),
        # Integers and reals share a number column.
        ("((1) (2.5))", Relation([[Number.of(1)], [Number.parse("2.5")]])),
        # Date-times and times (extension): ISO 8601, Z or an offset or naive, up to nanoseconds.
        ("1989-07-04T10:30:00Z", scalar(DateTime(dt.datetime(1989, 7, 4, 10, 30, tzinfo=UTC)))),
        ('"1989-07-04T10:30:00Z"', scalar(DateTime(dt.datetime(1989, 7, 4, 10, 30, tzinfo=UTC)))),
        ("1989-07-04T10:30:00+02:00", scalar(DateTime(dt.datetime(1989, 7, 4, 8, 30, tzinfo=UTC)))),
        ("1989-07-04T10:30:00-00:00", scalar(DateTime(dt.datetime(1989, 7, 4, 10, 30, tzinfo=UTC)))),
        ("1989-07-04T10:30:00.5", scalar(DateTime(dt.datetime(1989, 7, 4, 10, 30, 0, 500000)))),
        (
            "0001-01-01T00:00:00.123456789+05:30",
            scalar(DateTime(dt.datetime(1, 1, 1, tzinfo=offset(5, 30)).replace(microsecond=123456), 789)),
        ),
        ("10:30:00", scalar(Time(dt.time(10, 30)))),
        ('"10:30:00.25"', scalar(Time(dt.time(10, 30, 0, 250000)))),
        ("10:30:00-05:00", scalar(Time(dt.time(15, 30, tzinfo=UTC)))),
        ("01:00:00+02:00", scalar(Time(dt.time(23, 0, tzinfo=UTC)))),  # round the clock
        (
            "((10:30:00 1989-07-04T10:30:00 1989-07-04))",
            Relation([[Time(dt.time(10, 30)), DateTime(dt.datetime(1989, 7, 4, 10, 30)), Date(dt.date(1989, 7, 4))]]),
        ),
        # An escaped first digit keeps a date-time- or time-shaped string a string; near
        # misses of the shapes (no seconds, lower-case t or z, a space, +0200) are bare words.
        ('"\\u00310:30:00"', scalar(String("10:30:00"))),
        ('"\\u0031989-07-04T10:30:00Z"', scalar(String("1989-07-04T10:30:00Z"))),
        ("10:30", scalar(String("10:30"))),
        ("1989-07-04t10:30:00z", scalar(String("1989-07-04t10:30:00z"))),
        ("10:30:00+0200", scalar(String("10:30:00+0200"))),
        ("10:30:00.", scalar(String("10:30:00."))),
        ('"1989-07-04 10:30:00"', scalar(String("1989-07-04 10:30:00"))),
    ],
)
def test_dialect(text, expected):
    """The dialect of DESIGN.md: 1989 CAS plus ATIS v2 plus answerkey's extensions."""
    assert parse(text) == expected


def test_scalar_remembers_it_was_a_scalar():
    """A bare value and a one-tuple relation are different answers that print differently."""
    assert parse("5") != parse("((5))")
    assert parse("5").scalar and not parse("((5))").scalar


def test_instants_are_equal_whatever_their_offset_and_print_as_written():
    """An aware date-time or time equals the same instant at another offset and keeps its own
    offset in print; a naive one equals no aware one; the fraction prints without trailing zeros."""
    assert parse("1989-07-04T10:30:00+02:00") == parse("1989-07-04T08:30:00Z")
    assert parse("10:30:00+02:00") == parse("08:30:00Z")
    assert parse("1989-07-04T08:30:00") != parse("1989-07-04T08:30:00Z")
    assert parse("08:30:00") != parse("08:30:00Z") and parse("08:30:00") != parse("08:30:00+00:00")
    assert parse("1989-07-04T08:30:00.500") == parse("1989-07-04T08:30:00.5")
    assert parse("1989-07-04T08:30:00.000000001") != parse("1989-07-04T08:30:00")
    assert [render(parse(t)) for t in ["1989-07-04T10:30:00+02:00", "10:30:00.250-00:00", "10:30:00.000000"]] == [
        "1989-07-04T10:30:00+02:00",
        "10:30:00.25Z",
        "10:30:00",
    ]
    assert parse("((1989-07-04T10:30:00+02:00) (1989-07-04T08:30:00Z))") == parse("((1989-07-04T08:30:00Z))")


def test_a_date_is_no_date_time_nor_a_date_time_at_midnight_a_date():
    """A date and the date-time at its midnight are different values, as SQL DATE and TIMESTAMP."""
    assert parse("1989-07-04") != parse("1989-07-04T00:00:00")
    assert parse("00:00:00") != parse("1989-07-04T00:00:00")


def test_numbers_print_back_exactly_as_written():
    """Numbers keep their spelling: 5. stays 5., -2.50 stays -2.50, +2 stays +2."""
    assert [render(parse(t)) for t in ["5.", "-2.50", "+2", "2.9999999999", "1e5"]] == [
        "5.",
        "-2.50",
        "+2",
        "2.9999999999",
        "1e5",
    ]


def test_golden_round_trip():
    """Every line of golden.cas is canonical: parse and render print it back unchanged."""
    lines = [line for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line and not line.startswith(";")]
    assert len(lines) >= 30
    for line in lines:
        assert render(parse(line)) == line, line


def error_of(text, **options) -> ParseError:
    with pytest.raises(ParseError) as caught:
        parse(text, **options)
    return caught.value


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        ("((1) (2 3))", 1, 6, "tuple 2 has 2 values; the relation's tuples have 1"),
        ('((1 "a")\n (2 3))', 2, 2, "tuple 2, column 2: a number in a column of strings"),
        ("((1)", 1, 5, "unexpected end of input; expected '(' or ')'"),
        ("(\n(1)\n", 3, 1, "unexpected end of input; expected '(' or ')'"),
        ('"abc', 1, 1, "unterminated string"),
        ('"ab\ncd"', 1, 1, "unterminated string (strings end on the same line)"),
        ('"a\\qb"', 1, 3, "invalid escape '\\\\q' in string"),
        ('"\\ud800"', 1, 2, "escape '\\\\ud800' is a lone surrogate, not a character"),
        ('"a\\ude00"', 1, 3, "escape '\\\\ude00' is a lone surrogate, not a character"),
        ('"\\ud83d\\u0041"', 1, 2, "escape '\\\\ud83d' is a lone surrogate, not a character"),
        ('"\\U00110000"', 1, 2, "escape '\\\\U00110000' is not a Unicode character"),
        ("01-JAX-80", 1, 1, "unknown month 'JAX' in date 01-JAX-80"),
        ('"31-FEB-89"', 1, 2, "no such date: 31-FEB-89"),
        ("1980-13-01", 1, 1, "no month 13 in date 1980-13-01"),
        ("1989-13-04T10:30:00Z", 1, 1, "no month 13 in date-time 1989-13-04T10:30:00Z"),
        ("(\n (1989-02-29T10:30:00))", 2, 3, "no such date-time: 1989-02-29T10:30:00 (no day 29 in 1989-02)"),
        ("0000-01-01T00:00:00", 1, 1, "no year 0 in date-time 0000-01-01T00:00:00 (years run 0001-9999)"),
        ("((1 24:00:01))", 1, 5, "no hour 24 in time 24:00:01 (hours run 00-23)"),
        ("1989-07-04T24:00:00", 1, 1, "no hour 24 in date-time 1989-07-04T24:00:00 (hours run 00-23)"),
        ("10:60:00", 1, 1, "no minute 60 in time 10:60:00 (minutes run 00-59)"),
        (
            '((1 "23:59:60Z"))',
            1,
            6,
            "no second 60 in time 23:59:60Z (seconds run 00-59; a leap second has no CAS value)",
        ),
        (
            "1989-07-04T10:30:00+24:00",
            1,
            1,
            "no UTC offset +24:00 in date-time 1989-07-04T10:30:00+24:00 (offsets run from -23:59 to +23:59)",
        ),
        ("10:30:00-02:60", 1, 1, "no UTC offset -02:60 in time 10:30:00-02:60 (offsets run from -23:59 to +23:59)"),
        (
            "10:30:00.1234567891",
            1,
            1,
            "more than 9 digits after the seconds in time 10:30:00.1234567891 (the finest is a nanosecond)",
        ),
        ("((1989-07-04) (1989-07-04T10:30:00))", 1, 15, "tuple 2, column 1: a datetime in a column of dates"),
        ('((10:30:00) ("x"))', 1, 13, "tuple 2, column 1: a string in a column of times"),
        ("((1)) 2", 1, 7, "unexpected '2'"),
        ("(1)", 1, 3, "unexpected ')'; expected OR (a relation's tuples are parenthesised"),
        (")", 1, 1, "unexpected ')'"),
        ("a\x00b", 1, 2, "control character U+0000 outside a string"),
        ('abc"def"', 1, 4, "a quote inside a word"),
        ('"abc"def', 1, 6, "expected whitespace or a parenthesis after the string"),
        ("((1) OR ((2)))", 1, 6, "unexpected OR"),
        ("9" * 1001, 1, 1, "number longer than 1000 characters"),
        ("1e2000000", 1, 1, "number out of range"),
        ("0E1000000000000000000", 1, 1, "number out of range"),  # found by from_lark: Decimal overflowed
        ("", 1, 1, "unexpected end of input"),
    ],
)
def test_errors_name_line_column_and_problem(text, line, column, message):
    """Errors carry the 1-based line and column of the problem and say what it is."""
    error = error_of(text)
    assert (error.line, error.column) == (line, column)
    assert error.message.startswith(message) or message in error.message, error.message


def test_error_fields_and_context_caret():
    """A ParseError names what was expected and found, with the line and a caret under it."""
    error = error_of('((1 "a")\n (2 3))', source="answer.cas")
    assert error.found == "("
    assert error.context == " (2 3))\n ^"
    assert str(error) == "answer.cas:2:2: tuple 2, column 2: a number in a column of strings\n (2 3))\n ^"
    end = error_of("((1)")
    assert end.expected == ("'('", "')'")
    assert end.found is None


def test_end_of_input_is_reported_at_the_end_not_at_the_last_token():
    """Lark reports end of input at the last token; we report the position after the text."""
    error = error_of("((1)\n  ")
    assert (error.line, error.column) == (2, 3)


def test_deep_nesting_is_a_parse_error_not_recursion_error():
    """100,000 nested parentheses give a ParseError, never RecursionError."""
    error = error_of("(" * 100_000 + ")" * 100_000)
    assert (error.line, error.column) == (1, 4)
    assert len(error.context) < 220  # the context line is cut around the column


def test_size_limit():
    """Input longer than max_chars is rejected before parsing, with a clear message."""
    error = error_of("((1))", max_chars=4)
    assert error.message == "answer is 5 characters; the limit is 4"


def test_or_in_a_system_answer_is_an_error_at_the_or():
    """Alternatives belong to canonical answers; in a system answer OR is located."""
    error = error_of("(1 OR 2)", allow_alternatives=False)
    assert (error.line, error.column, error.found) == (1, 4, "OR")
    assert "only allowed in canonical answers" in error.message


def test_keywords_are_never_bare_strings():
    """A reserved word is a keyword wherever it stands; quote it to use it as a string."""
    assert error_of("((or))").message.startswith("unexpected OR")
    assert parse('(("or"))') == Relation([[String("or")]])


def test_parse_rejects_non_text():
    """parse() takes str; bytes are a programming error."""
    with pytest.raises(TypeError):
        parse(b"1")


def test_json_style_escapes_read_as_json_reads_them():
    """A high and a low surrogate escaped in turn are one character; \\b, \\f and \\/ are
    JSON's escapes (issue 16, item 10: what json.dumps writes reads back)."""
    assert parse('"\\ud83d\\ude00 \\uD83D\\uDE00"') == scalar(String("\U0001f600 \U0001f600"))
    assert parse('"a\\bb\\fc\\/d"') == scalar(String("a\bb\fc/d"))


@given(st.text())
def test_json_dumps_of_any_text_parses_to_that_text(text):
    """json.dumps's quoting of any text (lone surrogates included, since Python's json writes
    them) is CAS: the same string, or the same lone-surrogate error (dates, date-times and
    times aside: a quoted string of their shape is one of them)."""
    quoted = json.dumps(text)
    assume(not QUOTED_VALUE_SHAPE.fullmatch(quoted[1:-1]))
    if any("\ud800" <= char <= "\udfff" for char in text):
        with pytest.raises(ParseError, match="is a lone surrogate, not a character"):
            parse(quoted)
    else:
        assert parse(quoted) == scalar(String(text)) == parse_with_grammar(quoted)
