"""test-suite-sql-eval's `result_eq` and answerkey's comparator: where they agree, and the
documented differences (README, "Differences from defog sql-eval and test-suite-sql-eval").

`result_eq(result1, result2, order_matters)` (taoyds/test-suite-sql-eval, exec_eval.py at
commit 14784c3) compares a gold and a predicted SQL result, lists of row tuples:

- two empty results are equal; otherwise the row counts and the column counts must be equal;
- a quick rejection: each row's cells sorted by their text followed by their type's name
  must give the same list of rows (order_matters) or the same set of rows;
- then some permutation of the predicted columns must make the predicted rows equal to the
  gold rows: as a sequence (order_matters) or as a bag (duplicates counted);
- cells compare with Python's `==` (so 1 == 1.0 == True, None == None).

The gold result is answerkey's canonical answer, the predicted one the system answer; order
matters (test-suite-sql-eval: the gold SQL says ORDER BY) reads as an ordered canonical answer.
`result_eq_oracle` below restates those rules in this file's own words. The verdict tables give
result_eq's verdict by its rules and answerkey's; the properties check that the two coincide
inside the region where their semantics are the same (equal column counts, no duplicate rows,
reals that are equal only when identical, one type per column) and pin the differences outside.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import assume, given, strategies as st

from answerkey.comparator import DEFAULT_EPSILON, judge
from answerkey.model import Relation

Row = tuple[object, ...]


def _cells_by_text(row: Row) -> Row:
    """The row as result_eq's quick rejection sees it: cells sorted by text, then type name."""
    return tuple(sorted(row, key=lambda cell: f"{cell}{type(cell)}"))


def result_eq_oracle(gold: list[Row], predicted: list[Row], order_matters: bool) -> bool:
    """result_eq's verdict, by its rules (an independent restatement, not its code): try every
    permutation of the predicted columns, which result_eq's search narrows but never widens."""
    if not gold and not predicted:
        return True
    if len(gold) != len(predicted) or len(gold[0]) != len(predicted[0]):
        return False
    gold_cells = [_cells_by_text(row) for row in gold]
    predicted_cells = [_cells_by_text(row) for row in predicted]
    if order_matters and gold_cells != predicted_cells:
        return False
    if not order_matters and set(gold_cells) != set(predicted_cells):
        return False
    for columns in itertools.permutations(range(len(gold[0]))):
        moved = [tuple(row[column] for column in columns) for row in predicted]
        if order_matters and moved == list(gold):
            return True
        if not order_matters and Counter(moved) == Counter(gold):
            return True
    return False


def answerkey_verdict(
    gold: list[Row], predicted: list[Row], order_matters: bool, epsilon: float | str = DEFAULT_EPSILON
) -> bool:
    """answerkey's verdict on the same results: the gold result as the canonical answer,
    ordered when order matters."""
    canonical = Relation.from_rows(gold, ordered=order_matters)
    return judge(canonical, Relation.from_rows(predicted), epsilon=epsilon).correct


# The documented differences (README bullets), by the name the cases below give them.
BAG = "duplicates: result_eq compares bags (row counts), answerkey sets"
RUNS = "duplicates in order: result_eq compares sequences, answerkey lets a run of equal tuples count once"
EXTRA = "extra columns: result_eq requires as many columns, answerkey allows extra system columns"
INT_REAL_ROW = "1 and 1.0 in a row of several cells: result_eq's quick rejection sorts them apart"
EPSILON = "reals: result_eq compares exactly, answerkey within the relative epsilon (1e-4 by default)"
TYPED = "booleans: result_eq takes True == 1, answerkey never matches a boolean with a number"


@dataclass(frozen=True)
class Case:
    """One comparison: result_eq's verdict by its rules, answerkey's, and the difference if any."""

    name: str
    gold: list[Row]
    predicted: list[Row]
    order_matters: bool
    result_eq: bool
    answerkey: bool
    difference: str | None = None
    epsilon: float | str = DEFAULT_EPSILON


CASES = [
    # Empty results.
    Case("both empty", [], [], False, True, True),
    Case("both empty, ordered", [], [], True, True, True),
    Case("gold empty", [], [(1,)], False, False, False),
    Case("prediction empty", [(1,)], [], False, False, False),
    # Duplicates: bag against set.
    Case("gold has a duplicate", [(1,), (1,)], [(1,)], False, False, True, BAG),
    Case("prediction has a duplicate", [(1,)], [(1,), (1,)], False, False, True, BAG),
    Case("same rows, other counts", [(1,), (1,), (2,)], [(1,), (2,), (2,)], False, False, True, BAG),
    Case("a NULL row twice", [(None,), (None,)], [(None,)], False, False, True, BAG),
    Case("same bag, shuffled", [(1,), (1,), (2,)], [(2,), (1,), (1,)], False, True, True),
    # Column permutations.
    Case("columns swapped", [(1, "a"), (2, "b")], [("b", 2), ("a", 1)], False, True, True),
    Case("each row permuted, no one permutation", [(1, 2), (3, 4)], [(2, 1), (3, 4)], False, False, False),
    Case("four columns reversed", [(1, 2, 3, 4), (5, 6, 7, 8)], [(4, 3, 2, 1), (8, 7, 6, 5)], False, True, True),
    Case("a value differs", [(1, "a"), (2, "b")], [(1, "a"), (2, "c")], False, False, False),
    # Column counts.
    Case("an extra predicted column", [(1,)], [(1, "x")], False, False, True, EXTRA),
    Case("an extra column, rows shuffled", [(1,), (2,)], [(2, "y"), (1, "x")], False, False, True, EXTRA),
    Case("a predicted column missing", [(1, "x")], [(1,)], False, False, False),
    # Order.
    Case("rows swapped, order matters", [(1,), (2,)], [(2,), (1,)], True, False, False),
    Case("rows swapped, order free", [(1,), (2,)], [(2,), (1,)], False, True, True),
    Case("columns swapped, order kept", [(1, "a"), (2, "b")], [("a", 1), ("b", 2)], True, True, True),
    Case("a repeated gold row, in order", [(1,), (1,), (2,)], [(1,), (2,)], True, False, True, RUNS),
    Case("a repeated predicted row, in order", [(1,), (2,)], [(1,), (1,), (2,)], True, False, True, RUNS),
    Case("a row back again, in order", [(1,), (2,), (1,)], [(1,), (1,), (2,)], True, False, False),
    Case("the same sequence with a row back", [(1,), (2,), (1,)], [(1,), (2,), (1,)], True, True, True),
    # Integers and reals.
    Case("1 against 1.0", [(1,)], [(1.0,)], False, True, True),
    Case("1 against 1.0 beside 10", [(1, 10)], [(1.0, 10)], False, False, True, INT_REAL_ROW),
    Case("0.3 against 0.1 + 0.2", [(0.3,)], [(0.1 + 0.2,)], False, False, True, EPSILON),
    Case("0.3 against 0.1 + 0.2, epsilon 0", [(0.3,)], [(0.1 + 0.2,)], False, False, False, epsilon=0),
    Case("2.5 against 2.5", [(2.5,)], [(2.5,)], False, True, True),
    Case("booleans against integers", [(True,)], [(1,)], False, True, False, TYPED),
    # NULLs and strings.
    Case("NULL against NULL", [(None,)], [(None,)], False, True, True),
    Case("a NULL column moved", [(None, 1)], [(1, None)], False, True, True),
    Case("NULL against 0", [(None,)], [(0,)], False, False, False),
    Case("strings are case-sensitive", [("a",)], [("A",)], False, False, False),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_result_eq_verdicts(case):
    """The oracle gives result_eq's verdict, and answerkey gives its own: the same verdict but
    where a documented difference is named."""
    assert result_eq_oracle(case.gold, case.predicted, case.order_matters) is case.result_eq
    assert answerkey_verdict(case.gold, case.predicted, case.order_matters, case.epsilon) is case.answerkey
    assert (case.result_eq != case.answerkey) == (case.difference is not None)


def test_agreement_count():
    """Of the 33 verdict cases, answerkey agrees on 22; the other 11 are documented
    differences, each of the six kinds at least once."""
    differences = [case for case in CASES if case.result_eq != case.answerkey]
    assert len(CASES) - len(differences) == 22
    assert [case.name for case in differences] == [
        "gold has a duplicate",
        "prediction has a duplicate",
        "same rows, other counts",
        "a NULL row twice",
        "an extra predicted column",
        "an extra column, rows shuffled",
        "a repeated gold row, in order",
        "a repeated predicted row, in order",
        "1 against 1.0 beside 10",
        "0.3 against 0.1 + 0.2",
        "booleans against integers",
    ]
    assert {case.difference for case in differences} == {BAG, RUNS, EXTRA, INT_REAL_ROW, EPSILON, TYPED}


def test_mixed_type_column_is_refused():
    """A column that holds a number and a string (SQLite allows it; result_eq compares it) is
    refused by answerkey's model, which has one type per column: a documented refusal."""
    assert result_eq_oracle([(1,), ("a",)], [("a",), (1,)], False) is True
    with pytest.raises(ValueError, match=r"^tuple 2, column 1: a string in a column of numbers$"):
        Relation.from_rows([(1,), ("a",)])


def test_eight_columns_without_pruning():
    """Rows that are the edges of an 8-cycle against those of a 3-cycle and a 5-cycle (as 0/1
    cells: every column holds both values, so result_eq's column sampling prunes nothing and
    its search walks 8**8 candidates): both say incorrect, answerkey without that search."""

    def edges(width: int, cycles: list[int]) -> list[Row]:
        rows: list[Row] = []
        start = 0
        for length in cycles:
            for step in range(length):
                ends = {start + step, start + (step + 1) % length}
                rows.append(tuple(int(column in ends) for column in range(width)))
            start += length
        return rows

    cycle, two_cycles = edges(8, [8]), edges(8, [3, 5])
    assert _cells_by_text(cycle[0]) == _cells_by_text(two_cycles[0])  # the quick rejection passes
    assert answerkey_verdict(cycle, two_cycles, False) is False
    relabelled = [tuple(row[column] for column in (3, 0, 6, 1, 7, 2, 5, 4)) for row in reversed(cycle)]
    assert answerkey_verdict(cycle, relabelled, False) is True
    assert answerkey_verdict(edges(12, [12]), edges(12, [5, 7]), False) is False


# ------------------------------------------------------------------ properties

# Cell pools: integers and reals never equal each other (no 1 against 1.0) and are far apart
# (no two reals within epsilon), strings differ in case; NULL fits any column.
NUMBERS = (0, 1, 2, 0.5, 1.5)
TEXTS = ("a", "b", "A")


@st.composite
def results(draw, kinds: list[str], *, distinct: bool) -> list[Row]:
    """A result whose columns hold the given kinds of cells ("number", "text"), NULL anywhere."""
    cells = [st.sampled_from((*(NUMBERS if kind == "number" else TEXTS), None)) for kind in kinds]
    return draw(st.lists(st.tuples(*cells), max_size=5, unique=distinct))


@st.composite
def result_pairs(draw, *, distinct: bool = True) -> tuple[list[Row], list[Row], bool]:
    """A gold and a predicted result of as many columns, and whether order matters; the
    predicted one is often the gold one moved about (rows shuffled, columns permuted, maybe a
    cell changed or a row dropped), so that both verdicts occur."""
    width = draw(st.integers(1, 4))
    kinds = draw(st.lists(st.sampled_from(["number", "text"]), min_size=width, max_size=width))
    gold = draw(results(kinds, distinct=distinct))
    if draw(st.booleans()):
        columns = draw(st.permutations(range(width)))
        predicted = [tuple(row[column] for column in columns) for row in draw(st.permutations(gold))]
        if predicted and draw(st.booleans()):
            where = draw(st.integers(0, len(predicted) - 1))
            if draw(st.booleans()):
                del predicted[where]
            else:
                column = draw(st.integers(0, width - 1))
                kind = kinds[columns[column]]
                cell = draw(st.sampled_from((*(NUMBERS if kind == "number" else TEXTS), None)))
                row = list(predicted[where])
                row[column] = cell
                predicted[where] = tuple(row)
    else:
        predicted = draw(results(draw(st.permutations(kinds)), distinct=distinct))
    if distinct:
        assume(len(set(predicted)) == len(predicted))
    return gold, predicted, draw(st.booleans())


@given(result_pairs())
def test_same_verdicts_inside_the_common_region(pair):
    """With as many columns, no duplicate rows, one type per column and reals equal only when
    identical, answerkey's verdict is result_eq's."""
    gold, predicted, order_matters = pair
    assert answerkey_verdict(gold, predicted, order_matters) is result_eq_oracle(gold, predicted, order_matters)


def _without_repeats(rows: list[Row], order_matters: bool) -> list[Row]:
    """The rows with duplicates dropped (order free) or each run of equal rows kept once (in order)."""
    if order_matters:
        return [row for row, _ in itertools.groupby(rows)]
    return list(dict.fromkeys(rows))


@given(result_pairs(distinct=False))
def test_duplicates_count_once(pair):
    """DIFFERENCE (bag/runs): with duplicate rows allowed, answerkey's verdict is result_eq's on
    the rows with duplicates dropped (order free) or runs of equal rows kept once (in order);
    so result_eq's correct is always answerkey's correct, never the other way round."""
    gold, predicted, order_matters = pair
    verdict = answerkey_verdict(gold, predicted, order_matters)
    reduced = result_eq_oracle(
        _without_repeats(gold, order_matters), _without_repeats(predicted, order_matters), order_matters
    )
    assert verdict is reduced
    if result_eq_oracle(gold, predicted, order_matters):
        assert verdict is True


@given(result_pairs(), st.data())
def test_extra_columns(pair, data):
    """DIFFERENCE (extra columns): a predicted result with one more column is always wrong for
    result_eq, while answerkey keeps a correct verdict (it may map a gold column onto the new one)."""
    gold, predicted, order_matters = pair
    extra = data.draw(st.sampled_from((*NUMBERS, *TEXTS)))
    assume(predicted)
    widened = [(*row, extra) for row in predicted]
    assert result_eq_oracle(gold, widened, order_matters) is False
    if answerkey_verdict(gold, predicted, order_matters):
        assert answerkey_verdict(gold, widened, order_matters) is True
