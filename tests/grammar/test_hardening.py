"""Hardening of the CAS parser (issue 7): bounded size and nesting, clear errors, and a long
fuzz run that finds no undocumented exception.

The fuzz test runs FUZZ_EXAMPLES inputs: 100000 under the `fuzz` Hypothesis profile
(`pytest --hypothesis-profile=fuzz`), 1000 otherwise (locally and on CI), or whatever the
ANSWERKEY_FUZZ_EXAMPLES environment variable says.
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from answerkey import parse, render
from answerkey.errors import ParseError
from answerkey.grammar import MAX_CAS_CHARS
from answerkey.testing.strategies import cas_texts, invalid_cas_texts, mutated_texts


def _fuzz_examples() -> int:
    if os.environ.get("ANSWERKEY_FUZZ_EXAMPLES"):
        return int(os.environ["ANSWERKEY_FUZZ_EXAMPLES"])
    return 100_000 if settings.default.max_examples >= 100_000 else 1_000


FUZZ_EXAMPLES = _fuzz_examples()

fuzzed_texts = st.one_of(
    cas_texts(),
    invalid_cas_texts(),
    mutated_texts(cas_texts(), max_edits=6),
    st.text(st.sampled_from('()";\\ \n\t\x00\x1c0123456789.-+eEtrueORNIL_JAN'), max_size=60),
    st.text(max_size=40),
)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzzed_texts)
def test_fuzzed_text_parses_or_raises_a_parse_error(text):
    """Any text parses (and then prints back to the same answer) or raises ParseError."""
    try:
        answer = parse(text)
    except ParseError as error:
        assert error.line >= 1 and error.column >= 1
        return
    printed = render(answer)
    assert parse(printed) == answer
    assert render(parse(printed)) == printed


@pytest.mark.parametrize(
    "text, message",
    [
        ("1" * 1001, "number longer than 1000 characters"),
        ("((1e1000001))", "number out of range (exponent beyond ±1000000)"),
        ("(" * 200_000, "unexpected '('; expected a value"),
        (")" * 200_000, "unexpected ')'; expected "),
        ("(" * 100_000 + ")" * 100_000, "unexpected '('; expected a value"),
    ],
    ids=["long number", "huge exponent", "open parentheses", "close parentheses", "deep nesting"],
)
def test_oversized_and_deeply_nested_input_gives_a_clear_error(text, message):
    """Huge numbers and deep nesting are ParseErrors with a message, never a RecursionError."""
    with pytest.raises(ParseError) as caught:
        parse(text)
    assert caught.value.message.startswith(message)


def test_input_longer_than_the_limit_is_refused_before_parsing():
    """The length bound is checked first and named in the error."""
    with pytest.raises(ParseError) as caught:
        parse("((1))   ", max_chars=5)
    assert str(caught.value) == "<input>:1:1: answer is 8 characters; the limit is 5"
    assert MAX_CAS_CHARS == 256 * 1024 * 1024


def test_large_but_flat_answers_parse():
    """A hundred thousand tuples and a million-character word are fine: size, not depth, costs."""
    assert len(parse("(" + "(1) " * 100_000 + ")").rows) == 100_000
    assert parse("x" * 1_000_000).rows[0][0].text == "x" * 1_000_000
