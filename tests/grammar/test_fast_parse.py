"""The fast CAS path against the grammar: same answer, or both refuse (issue 8, target 1)."""

import gc
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

import answerkey.grammar
from answerkey import ParseError, parse, render
from answerkey.grammar import fast, parse_with_grammar
from answerkey.model import DATETIME_PATTERN, TIME_PATTERN, Alternatives, NoAnswer, Relation
from answerkey.testing.strategies import (
    DECLARED_TERMINALS,
    answers,
    cas_texts,
    invalid_cas_texts,
    mutated_texts,
    relations,
    sorted_relations,
)

GRAMMAR = Lark.open(str(Path(answerkey.grammar.__file__).with_name("cas.lark")), parser="lalr", lexer="basic")
TERMINALS = {terminal.name: terminal for terminal in GRAMMAR.terminals}
GRAMMAR_TEXTS = from_lark(GRAMMAR, explicit=DECLARED_TERMINALS)


def shape(answer):
    """Everything an answer holds, exactly: number text and kind, row order and duplicates,
    scalar and ordered flags, sort keys in their order (``==`` on the model ignores some of these)."""
    if isinstance(answer, Relation):
        rows = tuple(tuple((type(value).__name__, repr(value)) for value in row) for row in answer.rows)
        return ("relation", answer.ordered, answer.order_by, answer.scalar, answer.arity, rows)
    if isinstance(answer, Alternatives):
        return ("alternatives", tuple(shape(option) for option in answer.options))
    assert isinstance(answer, NoAnswer)
    return ("no_answer",)


def fast_shape(text):
    try:
        return shape(fast.parse(text))
    except fast.Defer:
        return None


def grammar_shape(text):
    try:
        return shape(parse_with_grammar(text))
    except ParseError:
        return None


def assert_agree(text):
    """The fast path answers exactly when the grammar does, with the identical answer."""
    expected = grammar_shape(text)
    assert fast_shape(text) == expected
    if expected is not None:
        assert shape(parse(text)) == expected


def test_atom_terminals_are_the_grammars():
    """The fast path classifies atoms with cas.lark's own terminal patterns and flags, in the
    basic lexer's priority order."""
    for name, pattern, flags in fast.ATOM_TERMINALS:
        terminal = TERMINALS[name]
        assert terminal.pattern.value == pattern, name
        assert terminal.pattern.flags == ({"i"} if flags & re.I else set()), name
    priorities = [TERMINALS[name].priority for name, _, _ in fast.ATOM_TERMINALS]
    assert priorities == sorted(priorities, reverse=True)
    assert TERMINALS["STRING"].pattern.value == fast.STRING_PATTERN
    atom_names = {name for name, _, _ in fast.ATOM_TERMINALS} | {"STRING"}
    assert set(TERMINALS) - atom_names == {"LPAR", "_RPAR", "COMMENT", "WHITESPACE"}


def test_date_time_and_time_terminals_are_the_models_spellings():
    """cas.lark's DATETIME and TIME are the model's DATETIME_PATTERN and TIME_PATTERN with the
    atoms' lookahead, so the grammar, the fast path and DateTime.parse agree on the shapes."""
    assert TERMINALS["DATETIME"].pattern.value == DATETIME_PATTERN + "(?![^\\s();])"
    assert TERMINALS["TIME"].pattern.value == TIME_PATTERN + "(?![^\\s();])"


def test_string_patterns_are_one_and_cannot_backtrack():
    """STRING (cas.lark), the fast path's string and tokenizer patterns, and the error scan
    are built from one body, a loop of possessive repeats without an alternation: Python's
    re keeps no state per character for it (a repeated alternation took 150-700 bytes)."""
    body = fast.STRING_BODY
    assert TERMINALS["STRING"].pattern.value == fast.STRING_PATTERN == f'"{body}"(?![^\\s();])'
    assert f'"{body}"' == fast.QUOTED_STRING
    assert "|" not in body and body.count("*+") == 3 and "*" not in body.replace("*+", "")
    assert "|" + fast.STRING_PATTERN + "|" in fast._TOKEN.pattern
    assert answerkey.grammar._QUOTED_STRING.pattern == fast.QUOTED_STRING
    assert answerkey.grammar._BODY_PREFIX.pattern == body


def test_gap_patterns_are_the_grammars():
    """The tokenizer skips exactly the grammar's WHITESPACE and COMMENT."""
    assert TERMINALS["WHITESPACE"].pattern.value == "[^\\S\x1c-\x1f]+"
    assert TERMINALS["COMMENT"].pattern.value == ";[^\n]*"
    assert fast._TOKEN.pattern.startswith(r"(?:[^\S\x1c-\x1f]++|;[^\n]*+)*+")


def test_str_split_whitespace_is_regex_whitespace():
    """str.split() splits on exactly the characters re's \\s matches (the split mode relies on it)."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    regex_spaces = re.findall(r"\s", every)
    assert regex_spaces == [c for c in every if c.isspace()]
    assert ("a" + "b".join(regex_spaces) + "c").split() == ["a"] + ["b"] * (len(regex_spaces) - 1) + ["c"]


@pytest.mark.parametrize(
    "text",
    [
        # Each line pins one rule of cas.lark (comment names it) the fast path must follow.
        "((1 2) (3 4))",  # plain relation, columnar read
        "((1 2) (3 4) (1 2))",  # duplicates kept as written
        "(ORDERED (2) (1) (2))",  # ordered flag
        "()",
        "(ORDERED)",
        "(  )",
        "5.",  # scalar flag, real written "5."
        "+007",  # number text as written
        "-.5e+3",
        "1e1000000",  # exponent at the bound
        "1e1000001",  # beyond it: an error
        "1" * 1000,
        "1" * 1001,  # longer than MAX_NUMBER_CHARS
        '"04-JUL-89"',  # quoted date
        "04-jul-1989",  # bare date, month in any case
        "01-JAN-8012",  # not a date: a bare word
        '"31-FEB-2001"',  # date shape, no such day: error
        "2001-13-01",
        '"2001-13-0"',  # not a date shape: a string
        "truefalse",  # lookahead: one bare word
        "TrUe",
        "yes",
        "No",
        "nil",
        "NIL",
        "Contingent-Failure",
        "necessary-failure",
        "no_answer",
        "NO_ANSWER",
        "(NO_ANSWER)",
        "ORDERED",
        "OR",
        "yeſ",  # re.IGNORECASE: the long s folds to s, so this is TRUE
        "\u212a",  # Kelvin sign: a bare word
        '"a\\"b\\\\c\\n\\t\\r\\/\\u00e9\\U0001F600"',  # every escape
        '"\\q"',
        '"\\ud800"',
        '"\\UFFFFFFFF"',
        '"a b (c) ; d"',  # a string holding spaces, parentheses and a semicolon
        '(("a b" 1) ("c" 2))',
        '(("x"1))',  # no space after a string
        '((a"b"))',  # a quote inside a word
        '(("x""y"))',
        '"unterminated',
        '"ab\ncd"',
        "((1 ; comment (\n 2))",  # comments end at a newline, whatever they hold
        "; only a comment",
        "((1)) ; trailing\x1c comment",
        "((1\x1c))",  # U+001C-U+001F are not whitespace in CAS
        "((1\x1f2))",
        "((1\u00a02\u20283))",  # Unicode whitespace
        "((1\x85 2))",
        "((a\x00b))",
        "((1) (2 3))",  # mixed arity
        '((1) ("a"))',  # mixed types
        "((NIL) (1) (NIL))",
        "((NIL))",
        "((1 (2)))",
        "(())",
        "((1) ())",
        "(1 OR 2)",  # alternatives of scalars
        "(1 OR (2))",
        "(() OR ((1)) OR (ORDERED (2)))",
        "(1 or 2 Or 3)",
        "(1 OR)",
        "(OR 1)",
        "((1) OR ((2)))",
        "(1)",
        "(1 2)",
        "1 2",
        "((1)) ((2))",
        ")(",
        "",
        "   ",
        "(((((((1)))))))",
        "((1 OR 2))",
        "((ORDERED 1))",
        "((1) ORDERED)",
        "((1 NO_ANSWER))",
        "((( 1 ) OR 2))",
        # Sort keys: BY is a keyword only right after ORDERED, keys are column numbers.
        "(ORDERED BY 2 (1 10) (2 10) (3 20))",
        "(ordered By 02 1 (1 10))",
        "(ORDERED BY 1)",
        "(ORDERED by 1 (a) (b))",
        "((by) (BY))",
        "(ORDERED (by))",
        "(by OR 1)",
        '(ORDERED "by" 1 (1))',
        "(ORDERED BY)",
        "(ORDERED BY 0 (1 2))",
        "(ORDERED BY 3 (1 2))",
        "(ORDERED BY 2 2 (1 2))",
        "(ORDERED BY 1.5 (1))",
        "(ORDERED BY +1 (1))",
        "(ORDERED BY 1 x (1))",
        "(ORDERED BY 1 ; keys\n 2 (1 2))",
        "(ORDERED BY 1 (1) (2 3))",
        "(ORDERED BY 1 (1) ((2)))",
        "((ORDERED BY 1 (1 2)) OR (ORDERED BY 2 (1 2)))",
        "(ORDERED BY 12345678901 (1))",
        # Date-times and times: every spelling, the shapes' near misses, bad values, mixed columns.
        "((1989-07-04T10:30:00Z) (1989-07-04T12:30:00+02:00))",
        '(("1989-07-04T10:30:00.123456789-05:30" 10:30:00) (NIL "10:30:00.5Z"))',
        "(10:30:00 OR 1989-07-04T10:30:00)",
        '"\\u00310:30:00"',
        "((10:30) (1989-07-04t10:30:00) (10:30:00+0200) (10:30:00.))",
        "((1989-07-04) (1989-07-04T10:30:00))",
        "((10:30:00) (1989-07-04T10:30:00))",
        "((24:00:00))",
        '(("1989-02-29T00:00:00"))',
        "((10:30:00+24:00))",
        "((10:30:00.1234567891))",
        "(ORDERED BY 1 (1989-07-04T10:30:00Z a) (1989-07-04T12:30:00+02:00 b))",
    ],
)
def test_fast_path_agrees_with_grammar_on_dialect_cases(text):
    """Each rule of the dialect, valid or not: the fast path answers as the grammar does."""
    assert_agree(text)


@given(answers())
def test_agrees_on_rendered_answers(answer):
    """Rendered answers (the split tokenizer's case) read back identically on both paths."""
    text = render(answer)
    assert fast_shape(text) == grammar_shape(text) is not None


@given(relations(min_rows=20, max_rows=60, min_cols=1, max_cols=5))
def test_agrees_on_larger_relations(relation):
    """Longer relations (the columnar read) agree too."""
    assert_agree(render(relation))


@given(st.one_of(sorted_relations(), relations(order_by=True, max_rows=30)))
def test_agrees_on_relations_ordered_by_sort_keys(relation):
    """Relations with sort keys, rendered, read identically on both paths, keys included."""
    text = render(relation)
    expected = grammar_shape(text)
    assert expected is not None and expected[2] == relation.order_by
    assert fast_shape(text) == expected


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(GRAMMAR_TEXTS)
def test_agrees_on_grammar_generated_texts(text):
    """Texts drawn from cas.lark itself (tokens may merge or fail type checks): same answer or both fail."""
    assert_agree(text)


# The library's mutations, with the grammar's special characters and the ones the fast path
# treats specially (U+001C-U+001F, NUL, NEL, backslash) as the inserted alphabet.
EDIT_ALPHABET = '()";\\ \n\t\x00\x1c\x1f\x85\u2028OR-.e0119aZé'


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(mutated_texts(st.one_of(GRAMMAR_TEXTS, answers().map(render)), alphabet=EDIT_ALPHABET))
def test_agrees_on_edited_texts(text):
    """Near misses of grammar-generated and rendered texts: same answer or both fail."""
    assert_agree(text)


@given(st.text(alphabet=st.sampled_from('() "\\;\nab1.-eORNIL\x1c\x00'), max_size=40))
def test_agrees_on_arbitrary_texts(text):
    """Any text over the grammar's special characters: same answer or both fail."""
    assert_agree(text)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_agrees_on_cas_texts(data):
    """Every spelling cas_texts() makes (comments, keyword case, escapes, date forms) is valid
    and reads identically on both paths."""
    text = data.draw(cas_texts())
    expected = grammar_shape(text)
    assert expected is not None
    assert fast_shape(text) == expected


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_refuses_invalid_cas_texts(data):
    """Every near miss invalid_cas_texts() makes is refused by both paths."""
    text = data.draw(invalid_cas_texts())
    assert grammar_shape(text) is None
    assert fast_shape(text) is None


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_agrees_on_mutated_cas_texts(data):
    """Random edits of cas_texts(): same answer or both fail."""
    assert_agree(data.draw(mutated_texts(cas_texts())))


def test_errors_come_from_the_grammar():
    """A text the fast path refuses gets the grammar's located message."""
    with pytest.raises(ParseError) as caught:
        parse("((1) (2 3))", source="a.cas")
    assert str(caught.value).splitlines()[0] == "a.cas:1:6: tuple 2 has 2 values; the relation's tuples have 1"


def test_system_answer_alternatives_are_refused_with_the_grammars_message():
    """allow_alternatives=False: the fast path's alternatives go to the grammar for the error."""
    assert isinstance(fast.parse("(1 OR 2)"), Alternatives)
    with pytest.raises(ParseError) as caught:
        parse("(1 OR 2)", allow_alternatives=False)
    assert caught.value.column == 4
    assert "only allowed in canonical answers" in caught.value.message


def test_max_chars_is_checked_before_either_path():
    """max_chars bounds the text before any parsing."""
    with pytest.raises(ParseError, match="answer is 7 characters; the limit is 6"):
        parse("((123))", max_chars=6)


def test_large_text_pauses_and_restores_the_garbage_collector(monkeypatch):
    """A large relation parses with the collector paused, and the collector is on again after,
    also when the text is invalid."""
    from answerkey.gc_pause import PAUSE_FROM_CHARS

    seen = []
    fast_parse = fast.parse
    monkeypatch.setattr(fast, "parse", lambda text: seen.append(gc.isenabled()) or fast_parse(text))
    rows = " ".join(f"({i} x{i % 7} {i}.5 true)" for i in range(5000))
    assert len(rows) > PAUSE_FROM_CHARS
    relation = parse(f"({rows})")
    assert parse("((1 x1 1.5 true))").arity == 4
    assert seen == [False, True]
    assert gc.isenabled()
    assert relation.arity == 4 and len(relation) == 5000
    assert relation.rows[4999][2].text == "4999.5"
    with pytest.raises(ParseError):
        parse(f"({rows} (1))")
    assert gc.isenabled()


def test_resplit_when_a_string_holds_a_space():
    """A quoted string with a space is cut by the split; the text is read again, not deferred."""
    relation = fast.parse('(("New York" 1) ("Boston" 2))')
    assert [row[0].text for row in relation.rows] == ["New York", "Boston"]
