"""Properties of the grammar: round trip, and nothing but ParseError for any text."""

from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

import answerkey.grammar
from answerkey import ParseError, parse, render
from answerkey.testing.strategies import DECLARED_TERMINALS, answers

GRAMMAR = Lark.open(str(Path(answerkey.grammar.__file__).with_name("cas.lark")), parser="lalr", lexer="basic")
GRAMMAR_TEXTS = from_lark(GRAMMAR, explicit=DECLARED_TERMINALS)


@given(answers())
def test_round_trip(answer):
    """parse(render(a)) == a for every answer the model can hold."""
    assert parse(render(answer)) == answer


@given(answers())
def test_render_is_a_fixed_point(answer):
    """Rendering is canonical: rendering a parsed rendering changes nothing."""
    text = render(answer)
    assert render(parse(text)) == text


def parses_or_fails_cleanly(text: str) -> None:
    try:
        parse(text)
    except ParseError as error:
        assert error.line >= 1 and error.column >= 1
        assert error.context.endswith("^")


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(GRAMMAR_TEXTS)
def test_grammar_generated_texts_never_raise_anything_but_parse_error(text):
    """Texts generated from cas.lark itself either parse or raise ParseError (tokens drawn
    without separators may merge or fail type checks)."""
    parses_or_fails_cleanly(text)


MUTATION_CHARACTERS = st.sampled_from(list('()";\\ \n\t\x00\x1fOR-.e0119aZ') + ["NIL", "\u2028", "é"])


@st.composite
def mutated_texts(draw):
    text = draw(st.one_of(GRAMMAR_TEXTS, answers().map(render)))
    for _ in range(draw(st.integers(1, 3))):
        position = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(MUTATION_CHARACTERS)
        if action == "insert":
            text = text[:position] + piece + text[position:]
        elif action == "delete":
            text = text[:position] + text[position + 1 :]
        else:
            text = text[:position] + piece + text[position + 1 :]
    return text


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(mutated_texts())
def test_mutated_texts_never_raise_anything_but_parse_error(text):
    """Near-miss mutations of valid answers either parse or raise ParseError, nothing else."""
    parses_or_fails_cleanly(text)


@given(st.text(max_size=60))
def test_arbitrary_text_never_raises_anything_but_parse_error(text):
    """Any string at all: a parse or a ParseError."""
    parses_or_fails_cleanly(text)
