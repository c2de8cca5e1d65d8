"""Sort keys in CAS text, ``(ORDERED BY 2 ...)`` (issue 16, item 9): reading, printing, errors."""

import pytest
from hypothesis import given

from answerkey import ParseError, parse, render
from answerkey.grammar import check_with_grammar, parse_with_grammar
from answerkey.model import Alternatives, Relation, String
from answerkey.testing.strategies import relations, sorted_relations


def error_of(text: str) -> ParseError:
    with pytest.raises(ParseError) as caught:
        parse(text, source="c.cas")
    return caught.value


@pytest.mark.parametrize(
    "text, keys, arity, rows",
    [
        ('(ORDERED BY 2 ("ADAMS" 40000) ("BAKER" 40000) ("CLARK" 52000))', (1,), 2, 3),
        ("(ordered by 3 1 (1 x 2) (2 y 2))", (2, 0), 3, 2),  # keys kept in the order written
        ("(Ordered bY 02 (1 2))", (1,), 2, 1),  # leading zeros, any case
        ("(ORDERED BY 4)", (3,), 0, 0),  # no tuples: nothing to check the key against
        ("(ORDERED BY 1 ; the key\n (1))", (0,), 1, 1),
    ],
)
def test_sort_keys_are_read_as_zero_based_columns(text, keys, arity, rows):
    """BY and its column numbers (from 1) give Relation.order_by (from 0); the relation is ordered."""
    relation = parse(text)
    assert isinstance(relation, Relation)
    assert (relation.order_by, relation.ordered, relation.arity, len(relation.rows)) == (keys, True, arity, rows)
    assert parse_with_grammar(text).order_by == keys


@pytest.mark.parametrize(
    "text, expected",
    [
        ("((by))", Relation([[String("by")]])),
        ("((BY) (by))", Relation([[String("BY")], [String("by")]])),
        ("(ORDERED (by))", Relation([[String("by")]], ordered=True)),
        ("by", Relation([[String("by")]], scalar=True)),
    ],
)
def test_by_is_a_bare_word_everywhere_but_after_ordered(text, expected):
    """Old answers keep their meaning: "by" is a keyword only right after ORDERED."""
    answer = parse(text)
    assert answer == expected and isinstance(answer, Relation) and answer.order_by is None


def test_plain_ordered_has_no_sort_keys():
    """(ORDERED ...) stays a strict sequence, without keys, and prints as before."""
    relation = parse("(ORDERED (2) (1))")
    assert isinstance(relation, Relation) and relation.ordered and relation.order_by is None
    assert render(relation) == "(ORDERED (2) (1))"


def test_alternatives_may_be_ordered_by_sort_keys():
    """Each OR alternative may carry its own keys."""
    answer = parse("((ORDERED BY 1 (1 2)) OR (ORDERED BY 2 (1 2)) OR ((1 2)))")
    assert isinstance(answer, Alternatives)
    assert [option.order_by for option in answer.options] == [(0,), (1,), None]
    assert render(answer) == "((ORDERED BY 1 (1 2)) OR (ORDERED BY 2 (1 2)) OR ((1 2)))"


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        ("(ORDERED BY 0 (1 2))", 1, 13, "sort key 0: columns are numbered from 1"),
        ("(ORDERED BY 5 (1 2) (3 4))", 1, 13, "sort key 5 is beyond the relation's 2 columns"),
        ("(ORDERED BY)", 1, 12, "unexpected ')'; expected a column number"),
        ("(ORDERED BY\n  (1 2))", 2, 3, "unexpected '('; expected a column number"),
        ("(ORDERED BY 1\n 2 1 (1 2))", 2, 4, "sort key 1 is given twice"),
        ("(ORDERED BY 1.5 (1))", 1, 13, "sort key 1.5 is not a column number (columns are numbered 1, 2, ...)"),
        ("(ORDERED BY -1 (1))", 1, 13, "sort key -1 is not a column number (columns are numbered 1, 2, ...)"),
        ("(ORDERED BY 2 (1))", 1, 13, "sort key 2 is beyond the relation's 1 column"),
        ("(ORDERED BY 1 x (1))", 1, 15, "unexpected 'x'; expected '(' or ')' or a column number"),
        ("(ORDERED x 1 (1))", 1, 10, "unexpected 'x'; expected '(' or ')' or BY"),
        (
            "(ORDERED BY " + "9" * 30 + " (1))",
            1,
            13,
            "sort key 99999999999999999999… is beyond the relation's 1 column",
        ),
    ],
)
def test_bad_sort_keys_are_located_errors(text, line, column, message):
    """Every bad key is a ParseError at its line and column, with a caret, from both checks."""
    error = error_of(text)
    assert (error.line, error.column, error.message) == (line, column, message)
    assert str(error).startswith(f"c.cas:{line}:{column}: {message}\n")
    assert error.context.endswith("^")
    with pytest.raises(ParseError) as checked:
        check_with_grammar(text)
    assert (checked.value.line, checked.value.column, checked.value.message) == (line, column, message)


def test_more_sort_keys_than_any_relation_has_columns_are_refused_as_read():
    """A run of keys longer than MAX_COLUMNS stops at the first key beyond it."""
    from answerkey.limits import MAX_COLUMNS

    text = "(ORDERED BY " + " ".join(["1"] * (MAX_COLUMNS + 5)) + " (1))"
    error = error_of(text)
    assert error.message == f"more than {MAX_COLUMNS:,} sort keys; the limit is {MAX_COLUMNS:,} columns"
    assert error.column == len("(ORDERED BY ") + 2 * MAX_COLUMNS + 1


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("(ordered by 02 1 (1 2))", "(ORDERED BY 2 1 (1 2))"),
        ("( ORDERED\tBY 2 )", "(ORDERED BY 2)"),
        ('(ORDERED BY 1 ("b" 1) ("a" 1))', '(ORDERED BY 1 ("b" 1) ("a" 1))'),
    ],
)
def test_sort_keys_render_canonically(text, canonical):
    """BY in capitals, keys as plain numbers in the order written, tuples as written."""
    assert render(parse(text)) == canonical


@given(sorted_relations())
def test_render_round_trip_of_sorted_relations(relation):
    """parse(render(r)) == r for relations with ties, keys kept in order and as written."""
    parsed = parse(render(relation))
    assert parsed == relation
    assert isinstance(parsed, Relation) and parsed.order_by == relation.order_by and parsed.rows == relation.rows


@given(relations(order_by=True, max_rows=6))
def test_render_round_trip_of_relations_with_any_keys(relation):
    """Keys over unsorted tuples print and read back too."""
    assert parse(render(relation)) == relation


def test_equality_compares_tie_groups_as_sets_in_order():
    """Tuples that tie may come in any order; the groups' order and the key columns (as a
    set) count; a plain ORDERED relation with the same tuples differs."""
    by_salary = parse('(ORDERED BY 2 ("ADAMS" 40000) ("BAKER" 40000) ("CLARK" 52000))')
    ties_swapped = parse('(ORDERED BY 2 ("BAKER" 40000) ("ADAMS" 40000) ("BAKER" 40000) ("CLARK" 52000))')
    groups_swapped = parse('(ORDERED BY 2 ("CLARK" 52000) ("ADAMS" 40000) ("BAKER" 40000))')
    assert by_salary == ties_swapped and hash(by_salary) == hash(ties_swapped)
    assert by_salary != groups_swapped
    assert by_salary != parse('(ORDERED ("ADAMS" 40000) ("BAKER" 40000) ("CLARK" 52000))')
    assert by_salary != parse('(ORDERED BY 1 ("ADAMS" 40000) ("BAKER" 40000) ("CLARK" 52000))')
    assert parse("(ORDERED BY 1 2 (1 2))") == parse("(ORDERED BY 2 1 (1 2))")


def test_relation_checks_its_sort_keys():
    """Relation(order_by=) takes 0-based columns: distinct, in range when there are tuples,
    never on a scalar; keys make the relation ordered."""
    rows = [[String("a"), String("b")]]
    assert Relation(rows, order_by=[1]).ordered
    assert Relation([], order_by=[7]).order_by == (7,)
    for keys, error, message in [
        ([2], ValueError, "sort key 2 is not a column index of a relation of 2 columns"),
        ([-1], ValueError, "sort key -1 is not a column index"),
        ([0, 0], ValueError, "a sort key is given twice"),
        ([], ValueError, "order_by needs at least one column"),
        (["1"], TypeError, "a sort key is a 0-based column index"),
    ]:
        with pytest.raises(error, match=message.replace("(", r"\(")):
            Relation(rows, order_by=keys)
    with pytest.raises(ValueError, match="a scalar has no sort keys"):
        Relation([[String("a")]], scalar=True, order_by=[0])
    assert repr(Relation(rows, order_by=[1])) == 'Relation((ORDERED BY 2 ("a" "b")))'
