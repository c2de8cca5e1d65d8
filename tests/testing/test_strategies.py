"""The public Hypothesis strategies (answerkey.testing.strategies): what they promise holds."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from answerkey import judge, parse, render
from answerkey.errors import ParseError
from answerkey.model import (
    NO_ANSWER,
    Alternatives,
    Answer,
    Boolean,
    Date,
    Nil,
    NoAnswer,
    Number,
    Relation,
    String,
    type_name,
)
from answerkey.testing.strategies import (
    EQUIVALENT_KINDS,
    INEQUIVALENT_KINDS,
    INVALID_KINDS,
    answers,
    cas_spellings,
    cas_texts,
    equivalent_pairs,
    inequivalent_pairs,
    invalid_cas_texts,
    mutated_texts,
    relations,
    values,
)

spelled_answers = answers().flatmap(lambda answer: st.tuples(st.just(answer), cas_spellings(answer)))


@given(spelled_answers)
def test_every_spelling_parses_back_to_its_answer(pair):
    """cas_spellings varies whitespace, comments, case, quoting and dates, never the meaning."""
    answer, text = pair
    assert parse(text) == answer


@given(cas_texts())
def test_cas_texts_are_valid(text):
    """cas_texts only yields text the grammar accepts."""
    parse(text)


@given(invalid_cas_texts())
def test_invalid_texts_are_rejected_with_parse_errors(text):
    """Every near miss is rejected with a located ParseError, never another exception."""
    with pytest.raises(ParseError) as caught:
        parse(text)
    assert caught.value.line >= 1 and caught.value.column >= 1


@pytest.mark.parametrize("kind", INVALID_KINDS)
def test_each_kind_of_near_miss_is_rejected(kind):
    """Each mutation kind on its own builds invalid text (none is accidentally valid)."""

    @settings(max_examples=25)
    @given(invalid_cas_texts(kinds=(kind,)))
    def check(text):
        with pytest.raises(ParseError):
            parse(text)

    check()


@pytest.mark.parametrize(
    "text, answer",
    [
        # ATIS v2 spells booleans yes/no; keywords are case-insensitive (DESIGN.md, the CAS dialect).
        ("YeS", Relation([[Boolean(True)]], scalar=True)),
        # H89-2019 Appendix A: the 9-character quoted date token.
        ('(("04-jul-89"))', Relation.from_rows([[__import__("datetime").date(1989, 7, 4)]])),
        # A comment and a bare ATIS word.
        ("( (smith) ) ; one", Relation([[String("smith")]])),
        ("no_answer", NO_ANSWER),
    ],
)
def test_documented_spellings(text, answer):
    """Spellings the dialect documents parse to the expected answers."""
    assert parse(text) == answer


@given(equivalent_pairs(kinds=("relation", "scalar", "alternatives")))
def test_equivalent_pairs_judge_correct(pair):
    """Shuffled rows and columns, duplicates, extra columns and reals within epsilon are correct."""
    canonical, system = pair
    verdict = judge(canonical, system)
    assert verdict.correct, verdict.explain()


@given(equivalent_pairs(kinds=("ordered",)))
def test_equivalent_ordered_pairs_judge_correct(pair):
    """An ordered answer with extra and permuted columns and reals within epsilon, same tuple
    order, is correct (this found the ordered search's unsound pruning, now fixed)."""
    canonical, system = pair
    assert judge(canonical, system).correct


def test_ordered_answer_with_reals_within_epsilon_is_correct():
    """(ORDERED (1.0 1) (1.0 2)) is matched by the same tuples with 1.00001 for the first 1.0."""
    assert judge("(ORDERED (1.0 1) (1.0 2))", "(ORDERED (1.00001 1) (1.0 2))").correct


@given(inequivalent_pairs())
def test_inequivalent_pairs_judge_incorrect_and_explain(pair):
    """Missing tuples, dropped columns, reals beyond epsilon, other strings, empty answers and
    NO_ANSWER are incorrect, and the verdict can say why."""
    canonical, system = pair
    verdict = judge(canonical, system)
    assert not verdict.correct
    assert verdict.explain().startswith("incorrect: ")


def test_pair_kinds_are_listed():
    """The kinds are public so that tests can pick them."""
    assert EQUIVALENT_KINDS == ("relation", "ordered", "scalar", "alternatives")
    assert "missing tuple" in INEQUIVALENT_KINDS and "dropped column" in INEQUIVALENT_KINDS


@given(relations(min_cols=2, max_cols=3, min_rows=1, max_rows=4, types=("string", "date"), nil=False))
def test_relations_respect_their_bounds(relation):
    """relations() keeps to its arity, row and type bounds, with one type per column."""
    assert 2 <= relation.arity <= 3 and 1 <= len(relation.rows) <= 4
    for column in relation.columns:
        assert len({type_name(value) for value in column}) == 1
        assert type_name(column[0]) in ("string", "date")


@given(values(("boolean",), nil=False))
def test_values_of_one_type(value):
    """values() draws only the requested types."""
    assert isinstance(value, Boolean)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(mutated_texts(st.just("((1 2))"), max_edits=3))
def test_mutated_texts_stay_close_and_never_crash_the_parser(text):
    """Mutations of a valid text either parse or raise ParseError."""
    try:
        parse(text)
    except ParseError:
        pass


@pytest.mark.parametrize(
    "annotation, expected",
    [(Relation, Relation), (Alternatives, Alternatives), (Number, Number), (String, String), (Date, Date),
     (Boolean, Boolean), (Nil, Nil), (NoAnswer, NoAnswer)],
)
def test_from_type_knows_the_model(annotation, expected):
    """The hypothesis entry point registers the model's types for st.from_type."""

    @settings(max_examples=5)
    @given(st.from_type(annotation))
    def check(value):
        assert isinstance(value, expected)

    check()


@settings(max_examples=30)
@given(st.from_type(Answer))
def test_from_type_answer_union_renders(answer):
    """st.from_type(Answer) draws any answer, which renders and parses back."""
    assert parse(render(answer)) == answer


@pytest.mark.parametrize(
    "module", ["answerkey.testing.strategies", "answerkey.testing.plugin", "answerkey.adapters.rows", "answerkey.testing.fuzz"]
)
def test_docstring_examples_of_the_fuzz_modules_run(module):
    """The runnable examples in the fuzz feature's docstrings hold."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0


def test_unknown_value_types_are_refused_with_the_known_ones():
    """A typo in types= is a clear ValueError, and lists work as well as tuples."""
    with pytest.raises(ValueError, match=r"unknown value types \['bool'\] \(known: boolean, integer, real"):
        values(["bool"])
    assert values(["boolean"]) is values(("boolean",))
