"""Hostile CAS text (issue 19, items 5, 9 and the parser half of 12): strings of many
megabytes in memory linear in their length, tuples wider than the column limit refused at
their first value beyond it, and errors found without building the answer."""

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from answerkey.errors import ParseError
from answerkey.grammar import check_with_grammar, fast, parse, parse_with_grammar
from answerkey.limits import MAX_ALTERNATIVES, MAX_COLUMNS
from answerkey.testing.strategies import cas_texts, invalid_cas_texts, mutated_texts

STRING_CHARS = 16 * 1024 * 1024

# Builds each text, then parses it with one function and reports the outcome and how far the
# peak resident size grew past what the texts and the warmed-up parser already took.
MEMORY_PROBE = r"""
import json, resource, sys
def high_water_kib():
    # This process's own peak: ru_maxrss keeps, across exec, the peak of the process that
    # started it (a test suite grown past a bound made each child look that large).
    with open('/proc/self/status') as status:
        return int(next(line for line in status if line.startswith('VmHWM:')).split()[1])
from answerkey.errors import ParseError
from answerkey.grammar import parse, parse_with_grammar

size = int(sys.argv[2])
texts = {
    "unterminated": '(("x")\n ("' + "a" * size,
    "plain": '(("' + "a" * size + '"))',
    "escapes and spaces": '(("' + "ab \\n\\u00e9vwxyz" * (size // 16) + '"))',
}
function = {"parse": parse, "parse_with_grammar": parse_with_grammar}[sys.argv[1]]
function('(("warm up" 1))')
before = high_water_kib()
outcomes = {}
for name, text in texts.items():
    try:
        value = function(text).rows[0][0].text
        outcomes[name] = {"length": len(value), "start": value[:8]}
    except ParseError as error:
        outcomes[name] = {"error": [error.line, error.column, error.message]}
    except MemoryError:
        outcomes[name] = {"error": "MemoryError"}
    value = None
grown = (high_water_kib() - before) * 1024
print(json.dumps({"outcomes": outcomes, "grown": grown}))
"""


@pytest.mark.parametrize("function", ["parse", "parse_with_grammar"])
def test_sixteen_megabyte_strings_parse_in_memory_linear_in_their_length(function):
    """A 16 MiB unterminated string is an error at its opening quote, a 16 MiB string (plain,
    or with spaces and escapes) is a value, and peak memory grows by less than 10 bytes a
    character (a repeated alternation in the string pattern cost 150-700)."""
    result = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, function, str(STRING_CHARS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(result.stdout)
    assert report["outcomes"] == {
        "unterminated": {"error": [2, 3, "unterminated string"]},
        "plain": {"length": STRING_CHARS, "start": "aaaaaaaa"},
        "escapes and spaces": {"length": STRING_CHARS // 16 * 10, "start": "ab \névwx"},
    }
    assert report["grown"] < 10 * STRING_CHARS


# A relation of ordinary shape (integers, reals, strings, dates), parsed valid and with an
# error in its last tuple; reports the growth of the peak resident size.
RELATION_PROBE = r"""
import json, resource, sys
def high_water_kib():
    # This process's own peak: ru_maxrss keeps, across exec, the peak of the process that
    # started it (a test suite grown past a bound made each child look that large).
    with open('/proc/self/status') as status:
        return int(next(line for line in status if line.startswith('VmHWM:')).split()[1])
from answerkey.errors import ParseError
from answerkey.grammar import parse
rows = int(sys.argv[1])
parts = [f'({i} {i * 7 % 100003 / 100:.2f} "NAME{i % 5000}" {1950 + i % 60}-{1 + i % 12:02d}-{1 + i % 28:02d})'
         for i in range(rows)]
text = "(" + " ".join(parts) + ")"
invalid = text[:-1] + ' (1 2.0 "x" 1950-13-01))'
parts = None
parse('(("warm up" 1))')
before = high_water_kib()
relation = parse(text)
outcomes = {"valid": [len(relation.rows), relation.arity]}
relation = None
try:
    parse(invalid)
except ParseError as error:
    outcomes["invalid"] = [error.line, error.column, error.message]
grown = (high_water_kib() - before) * 1024
print(json.dumps({"chars": len(text), "outcomes": outcomes, "grown": grown}))
"""


def test_a_large_relation_parses_in_memory_linear_in_its_size():
    """A relation of 100,000 ordinary tuples (3.7 MB) parses, and with an error in its last
    tuple is refused there, with the peak resident size growing by less than 20 bytes a
    character (2 GB for 100 MB): the tokens go as values are built, and the error is found
    without building the values again."""
    result = subprocess.run(
        [sys.executable, "-c", RELATION_PROBE, "100000"], capture_output=True, text=True, timeout=120, check=True
    )
    report = json.loads(result.stdout)
    assert report["outcomes"] == {
        "valid": [100_000, 4],
        "invalid": [1, report["chars"] + 12, "no month 13 in date 1950-13-01"],
    }
    assert report["grown"] < 20 * report["chars"]


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ('"abc', 1, 1, "unterminated string"),
        ('(("a\\"b', 1, 3, "unterminated string"),
        ('"ab\\', 1, 1, "unterminated string"),
        ('"ab\\\n"', 1, 1, "unterminated string (strings end on the same line)"),
        ('"ab\ncd"', 1, 1, "unterminated string (strings end on the same line)"),
        ('"a\tb"', 1, 3, "control character U+0009 in a string (write it as an escape such as \\n or \\u0000)"),
        ('"a\\\x01"', 1, 4, "control character U+0001 in a string (write it as an escape such as \\n or \\u0000)"),
        ('"a\x7f', 1, 3, "control character U+007F in a string (write it as an escape such as \\n or \\u0000)"),
        ('(("x")\n ("' + "y" * 300, 2, 3, "unterminated string"),
        (
            '("a\\u00e9\\"\\\\ \x1f"',
            1,
            15,
            "control character U+001F in a string (write it as an escape such as \\n or \\u0000)",
        ),
        ('"abc" "d', 1, 7, "unterminated string"),
        ('"a"b', 1, 4, "expected whitespace or a parenthesis after the string"),
        ('a"b', 1, 2, "a quote inside a word: put whitespace before the string, or quote the whole word"),
        ("ab\x01 c", 1, 3, "control character U+0001 outside a string"),
        ("a\x1cb", 1, 2, "control character U+001C outside a string"),
        ("((a\x7fb))", 1, 4, "control character U+007F outside a string"),
        ('x\x0b"', 1, 3, "unterminated string"),
    ],
)
def test_string_and_word_errors_keep_their_place_and_words(text, line, column, message):
    """The scan that replaced the character loop words each string and word error as before,
    at the same place (messages taken from the loop)."""
    for function in (parse, parse_with_grammar, check_with_grammar):
        with pytest.raises(ParseError) as caught:
            function(text)
        assert (caught.value.line, caught.value.column, caught.value.message) == (line, column, message)


def tuple_of(width: int, value: str = "1") -> str:
    return "(" + " ".join([value] * width) + ")"


WIDTH_MESSAGE = f"more than {MAX_COLUMNS:,} values in a tuple; the limit is {MAX_COLUMNS:,} columns"


@pytest.mark.parametrize("function", [parse, parse_with_grammar])
def test_a_tuple_at_the_column_limit_parses(function):
    """MAX_COLUMNS values in each tuple is still an answer (both paths)."""
    relation = function(f"({tuple_of(MAX_COLUMNS)} {tuple_of(MAX_COLUMNS, '2')})")
    assert relation.arity == MAX_COLUMNS and len(relation) == 2


@pytest.mark.parametrize("function", [parse, parse_with_grammar, check_with_grammar])
@pytest.mark.parametrize(
    ("text", "column"),
    [
        (f"({tuple_of(MAX_COLUMNS + 1)} {tuple_of(MAX_COLUMNS + 1)})", 2 + 2 * MAX_COLUMNS + 1),
        (f"((1) {tuple_of(MAX_COLUMNS + 5, 'x')})", 6 + 2 * MAX_COLUMNS + 1),
        (f"(ORDERED {tuple_of(MAX_COLUMNS + 1, 'x')}) ; a comment", 10 + 2 * MAX_COLUMNS + 1),
        (f"({tuple_of(MAX_COLUMNS + 1, chr(34) + 'a b' + chr(34))})", 2 + 6 * MAX_COLUMNS + 1),
    ],
    ids=["first tuple", "later tuple", "ordered, with a comment", "strings with spaces"],
)
def test_a_tuple_beyond_the_column_limit_is_refused_at_its_first_value_beyond(function, text, column):
    """The value past MAX_COLUMNS is the error's place, on every path and tokenizer mode."""
    with pytest.raises(ParseError) as caught:
        function(text)
    assert (caught.value.line, caught.value.column, caught.value.message) == (1, column, WIDTH_MESSAGE)


@pytest.mark.parametrize("width", [10_000, 1_000_000])
def test_very_wide_answers_are_refused_at_once(width):
    """10,000 or a million columns (two tuples) are refused at once: neither path reads past
    the first value beyond the limit (the fast path looks at the first tuple before splitting
    the text), so an error of its own further on (an unterminated string) is never seen."""
    text = f"({tuple_of(width)}\n{tuple_of(width)})"
    beyond = 2 + 2 * MAX_COLUMNS + 1  # the column of the first value beyond the limit
    for unread in ("", ' "never read'):
        with pytest.raises(ParseError) as caught:
            parse(text[:beyond] + unread + text[beyond:])
        assert (caught.value.line, caught.value.column, caught.value.message) == (1, beyond, WIDTH_MESSAGE)
    with pytest.raises(fast.Defer):
        fast.parse(text)


def test_values_separated_by_or_are_not_a_tuple():
    """Alternatives of many scalars are values in a row too, but OR separates them: the column
    limit does not apply (the alternatives' own limit does, with its own message)."""
    answer = parse("(" + " OR ".join(map(str, range(MAX_ALTERNATIVES))) + ")")
    assert len(answer.options) == MAX_ALTERNATIVES
    with pytest.raises(ParseError) as caught:
        parse("(" + " OR ".join(map(str, range(3 * MAX_COLUMNS))) + ")")
    assert caught.value.message == f"{3 * MAX_COLUMNS:,} alternatives (OR); the limit is {MAX_ALTERNATIVES:,}"


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(cas_texts(), invalid_cas_texts(), mutated_texts(cas_texts())))
def test_checking_raises_exactly_what_parsing_raises(text):
    """check_with_grammar (no values kept) raises the ParseError parse_with_grammar raises,
    and nothing for text that parses."""
    try:
        parse_with_grammar(text)
    except ParseError as error:
        with pytest.raises(ParseError) as caught:
            check_with_grammar(text)
        assert str(caught.value) == str(error)
    else:
        check_with_grammar(text)


def test_system_answer_alternatives_are_refused_when_checking():
    """OR in a system answer is the same located error when only checking."""
    for function in (check_with_grammar, parse_with_grammar, parse):
        with pytest.raises(ParseError) as caught:
            function("((1) OR (2))", allow_alternatives=False)
        assert (caught.value.column, caught.value.found) == (6, "OR")
