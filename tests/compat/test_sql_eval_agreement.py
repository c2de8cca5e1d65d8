"""defog sql-eval's comparison tests, judged by answerkey's comparator: each case gives defog's
verdict, except the documented differences (README, "Differences from defog sql-eval and
test-suite-sql-eval"), marked DIFFERENCE with answerkey's verdict.

The inputs and expected verdicts are those of defog-ai/sql-eval's tests/test_eval.py (commit
7331608): test_compare_df and test_subset_df, cases 1-15 each, and test_compare_query_results.
The rules are its eval/eval.py (commit 96c36de), the version those tests call:

- `compare_df(gold, generated, ...)`, the exact match: equal values position by position, or
  equal after normalising both (duplicate rows dropped, columns sorted by name, rows sorted);
- `subset_df(gold, generated, ...)`, "correct": each gold column matched (greedily) to a
  generated column holding the same sorted values, then the matched columns compared after
  normalising; an empty gold result is never a subset;
- ordering: when the query category is "order_by" or the question says order/sort/arrange,
  rows are not sorted, so their order counts; but when a query is given whose ORDER BY names
  a column of the result, every row is sorted by that column and then by all the others.

answerkey reads the gold result as the canonical answer and the generated one as the system
answer (which may have extra columns, as in defog's subset mode). Where defog compares row
order, the canonical answer is ordered; where the query's ORDER BY column is known it has that
sort key instead (resolved by hand below: `ORDER BY B` is the gold frame's column 1, 0-based);
otherwise it is a set. defog's `{a,b}` gold queries are answerkey's `OR` alternatives.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import pytest

from answerkey.comparator import judge
from answerkey.model import Alternatives, Relation

# The frames of test_eval.py's test_dataframes fixture.
FRAMES = {
    "df0": {"A": [], "B": []},
    "df0_same": {"A": [], "B": []},
    "df1": {"A": [1, 2, 3], "B": [4, 5, 6]},
    "df2": {"A": [1, 2, 3, 4], "B": [4, 5, 5, 6]},
    "df1_same": {"A": [1, 2, 3], "B": [4, 5, 6]},
    "df1_value_diff": {"A": [1, 2, 3], "B": [4, 5, 7]},
    "df1_columns_reordered": {"B": [4, 5, 6], "A": [1, 2, 3]},
    "df1_columns_diffcase": {"a": [1, 2, 3], "b": [4, 5, 6]},
    "df1_columns_renamed": {"C": [1, 2, 3], "D": [4, 5, 6]},
    "df1_rows_reordered": {"A": [2, 1, 3], "B": [5, 4, 6]},
    "df1_rows_reordered_columns_renamed": {"X": [2, 1, 3], "Y": [5, 4, 6]},
    "df1_rows_reordered_more_cols": {"X": [2, 1, 3], "Y": [5, 4, 6], "Z": [7, 8, 9]},
    "df2_rows_reordered": {"A": [2, 1, 4, 3], "B": [5, 4, 6, 5]},
    "df2_rows_reordered_sortb": {"A": [1, 3, 2, 4], "B": [4, 5, 5, 6]},
    "df2_rows_reordered_sortb_renamed": {"X": [1, 3, 2, 4], "Y": [4, 5, 5, 6]},
    "df2_rows_reordered_sortb_more_cols": {"X": [1, 3, 2, 4], "Y": [4, 5, 5, 6], "Z": ["e", "b", "c", "d"]},
}

# How the gold result's rows are compared, as defog decides it for a case.
AS_SET = "set"  # neutral category and question: rows sorted, their order does not count
IN_ORDER = "ordered"  # category "order_by" (or a question asking to sort) and no query: order counts
BY_B = (1,)  # ... with the query's `ORDER BY B`: sort key B, column 1 (0-based) of the gold frame

# The documented differences (README bullets).
EXTRA = "exact match and extra columns: compare_df needs as many columns; answerkey always allows extra ones"
EMPTY = "empty gold result: subset_df calls it never a subset; answerkey matches it with an empty answer"
KEY_ORDER = "ORDER BY found: defog sorts every row by the key and then all columns; answerkey checks key order"
ROW_COUNTS = "subset mode and duplicates: subset_df matches columns with their row counts; answerkey as sets"


@dataclass(frozen=True)
class Case:
    """One comparison of defog's tests: its function, case number, frames, reading and verdict."""

    function: str
    number: int | str
    gold: str
    generated: str
    reading: str | tuple[int, ...]
    defog: bool
    difference: str | None = None

    @property
    def answerkey(self) -> bool:
        """answerkey's verdict: defog's, or the other one where a difference is documented."""
        return self.defog if self.difference is None else not self.defog


CASES = [
    # test_compare_df (query_category is passed the string "SELECT * FROM table_name", a
    # neutral category; the question "Here is a random question" asks for no order).
    Case("compare_df", 1, "df0", "df0_same", AS_SET, True),
    Case("compare_df", 2, "df1", "df1_same", AS_SET, True),
    Case("compare_df", 3, "df1", "df1_value_diff", AS_SET, False),
    Case("compare_df", 4, "df1", "df1_columns_reordered", AS_SET, True),
    Case("compare_df", 5, "df1", "df1_columns_diffcase", AS_SET, True),
    Case("compare_df", 6, "df1", "df1_columns_renamed", AS_SET, True),
    Case("compare_df", 7, "df1", "df1_rows_reordered", AS_SET, True),
    Case("compare_df", 8, "df1", "df1_rows_reordered", IN_ORDER, False),
    Case("compare_df", 9, "df1", "df1_rows_reordered_columns_renamed", AS_SET, True),
    # DIFFERENCE: compare_df is False because the generated frame has a third column; answerkey
    # is correct, as defog's own subset_df case 10 on the same frames.
    Case("compare_df", 10, "df1", "df1_rows_reordered_more_cols", AS_SET, False, EXTRA),
    Case("compare_df", 11, "df2", "df2_rows_reordered", AS_SET, True),
    Case("compare_df", 12, "df2", "df2_rows_reordered", IN_ORDER, False),
    # Both queries `ORDER BY B DESC`: the generated rows are in key order of the gold rows.
    Case("compare_df", 13, "df2", "df2_rows_reordered_sortb", BY_B, True),
    Case("compare_df", 14, "df2", "df2_rows_reordered_sortb_renamed", BY_B, True),
    # No query: order counts, and the generated rows are not in the gold order (answerkey is
    # incorrect for that reason; compare_df already for the extra column).
    Case("compare_df", 15, "df2", "df2_rows_reordered_sortb_more_cols", IN_ORDER, False),
    # test_subset_df (the same frames; the queries of cases 13-15 are `ORDER BY B ASC`).
    # DIFFERENCE: never a subset for defog; for its pipeline the pair is still correct, since
    # compare_df (case 1 above) finds it equal first.
    Case("subset_df", 1, "df0", "df0_same", AS_SET, False, EMPTY),
    Case("subset_df", 2, "df1", "df1_same", AS_SET, True),
    Case("subset_df", 3, "df1", "df1_value_diff", AS_SET, False),
    Case("subset_df", 4, "df1", "df1_columns_reordered", AS_SET, True),
    Case("subset_df", 5, "df1", "df1_columns_diffcase", AS_SET, True),
    Case("subset_df", 6, "df1", "df1_columns_renamed", AS_SET, True),
    Case("subset_df", 7, "df1", "df1_rows_reordered", AS_SET, True),
    Case("subset_df", 8, "df1", "df1_rows_reordered", IN_ORDER, False),
    Case("subset_df", 9, "df1", "df1_rows_reordered_columns_renamed", AS_SET, True),
    Case("subset_df", 10, "df1", "df1_rows_reordered_more_cols", AS_SET, True),
    Case("subset_df", 11, "df2", "df2_rows_reordered", AS_SET, True),
    Case("subset_df", 12, "df2", "df2_rows_reordered", IN_ORDER, False),
    Case("subset_df", 13, "df2", "df2_rows_reordered_sortb", BY_B, True),
    Case("subset_df", 14, "df2", "df2_rows_reordered_sortb_renamed", BY_B, True),
    Case("subset_df", 15, "df2", "df2_rows_reordered_sortb_more_cols", BY_B, True),
]


def frame(name: str) -> pd.DataFrame:
    """A fresh copy of one of the fixture's frames."""
    return pd.DataFrame(FRAMES[name])


def canonical(gold: pd.DataFrame, reading: str | tuple[int, ...]) -> Relation:
    """The gold frame as answerkey's canonical answer: a set, ordered, or with sort keys."""
    rows = Relation.from_rows(gold).rows
    if isinstance(reading, tuple):
        return Relation(rows, order_by=reading)
    return Relation(rows, ordered=reading == IN_ORDER)


@pytest.mark.parametrize("case", CASES, ids=[f"{case.function}-{case.number}" for case in CASES])
def test_defog_test_cases(case):
    """Each of defog's compare_df and subset_df cases gets defog's verdict from answerkey, or
    the documented other one."""
    verdict = judge(canonical(frame(case.gold), case.reading), Relation.from_rows(frame(case.generated)))
    assert verdict.correct is case.answerkey, verdict.explain()


def test_differences_explained():
    """answerkey's reasons in the two differing cases of defog's tests: the extra column is
    left out by the mapping, and two empty results match."""
    extra = judge(Relation.from_rows(frame("df1")), Relation.from_rows(frame("df1_rows_reordered_more_cols")))
    assert (extra.correct, extra.reason, extra.mapping) == (True, "the tuples match as sets", (0, 1))
    empty = judge(Relation.from_rows(frame("df0")), Relation.from_rows(frame("df0_same")))
    assert (empty.correct, empty.reason) == (True, "both answers are empty")


def test_order_by_b_ties_and_order():
    """Case 13's frames with the sort key B: the tied rows (2, 5) and (3, 5) may come in either
    order, a row out of key order may not; plain ORDERED (no key known) takes the tie order as
    given, as defog does when no query names the column (cases 12 and 15)."""
    gold, generated = frame("df2"), frame("df2_rows_reordered_sortb")
    assert judge(canonical(gold, BY_B), Relation.from_rows(generated)).correct is True
    assert judge(canonical(gold, IN_ORDER), Relation.from_rows(generated)).correct is False
    out_of_order = generated.iloc[[1, 0, 2, 3]]
    assert judge(canonical(gold, BY_B), Relation.from_rows(out_of_order)).correct is False


# Cases built from eval.py's rules (no test of defog's has them); defog's verdicts follow from
# the rules quoted in the module docstring.
BUILT = [
    # DIFFERENCE: gold and generated `ORDER BY B`, generated rows in reverse key order. defog
    # sorts both frames by B and then A, so any row order passes; answerkey checks key order.
    (
        "reverse key order",
        {"A": [1, 2, 3, 4], "B": [4, 5, 5, 6]},
        {"A": [4, 3, 2, 1], "B": [6, 5, 5, 4]},
        BY_B,
        True,
        KEY_ORDER,
    ),
    # compare_df drops duplicate rows when it normalises: a set comparison, as answerkey's.
    ("duplicate gold rows, exact match", {"A": [1, 1, 2]}, {"A": [1, 2]}, AS_SET, True, None),
    # DIFFERENCE: subset_df matches the gold column A to a generated column by its sorted values
    # with their counts: [1, 2] is not [1, 1, 2], so no column matches and the verdict is False
    # (compare_df: False too, the shapes differ); answerkey drops the duplicate after mapping.
    ("duplicate generated rows, subset", {"A": [1, 2]}, {"X": [1, 1, 2], "Y": [7, 8, 9]}, AS_SET, False, ROW_COUNTS),
]


@pytest.mark.parametrize(
    ("name", "gold", "generated", "reading", "defog", "difference"), BUILT, ids=[b[0] for b in BUILT]
)
def test_cases_built_from_the_rules(name, gold, generated, reading, defog, difference):
    """Cases from eval.py's rules: defog's verdict, or answerkey's documented other one."""
    verdict = judge(canonical(pd.DataFrame(gold), reading), Relation.from_rows(pd.DataFrame(generated)))
    assert verdict.correct is (defog if difference is None else not defog), verdict.explain()


# test_compare_query_results: the gold query `SELECT {id,name} FROM users WHERE age < 18;`
# expands to three queries (id; name; id, name), whose results the test's mock gives.
GOLD_EXPANSIONS = [
    {"id": [1, 2, 3]},
    {"name": ["alice", "bob", "carol"]},
    {"id": [1, 2, 3], "name": ["alice", "bob", "carol"]},
]
# generated query, its mocked result, defog's (exact, correct), answerkey's alternative (0-based).
GENERATED = [
    ("SELECT id FROM users WHERE age < 18", {"id": [1, 2, 3]}, (True, True), 0),
    ("SELECT name FROM users WHERE age < 18", {"name": ["alice", "bob", "carol"]}, (True, True), 1),
    # defog's exact match is the third expansion; answerkey's first matching alternative is
    # the first (the name column is an extra column).
    (
        "SELECT id, name FROM users WHERE age < 18",
        {"id": [1, 2, 3], "name": ["alice", "bob", "carol"]},
        (True, True),
        0,
    ),
    ("SELECT id, age FROM users WHERE age < 18", {"id": [1, 2, 3], "age": [16, 12, 17]}, (False, True), 0),
    ("SELECT id, age FROM users WHERE age < 18 ORDER BY age", {"id": [2, 1, 3], "age": [12, 16, 17]}, (False, True), 0),
]


@pytest.mark.parametrize(("query", "result", "defog", "alternative"), GENERATED, ids=[g[0] for g in GENERATED])
def test_compare_query_results(query, result, defog, alternative):
    """defog's `{id,name}` gold query as OR alternatives: answerkey's verdict is defog's
    `correct` (exact or subset) for each generated query of its test, neutral category and
    question (so the generated ORDER BY does not count)."""
    gold = Alternatives(tuple(Relation.from_rows(pd.DataFrame(expansion)) for expansion in GOLD_EXPANSIONS))
    verdict = judge(gold, Relation.from_rows(pd.DataFrame(result)))
    _, correct = defog
    assert (verdict.correct, verdict.alternative) == (correct, alternative)


def test_agreement_count():
    """Of defog's 35 test verdicts (15 + 15 + 5), answerkey agrees on 33; the two differences
    and the two of the built cases are each a documented kind."""
    differing = [f"{case.function}-{case.number}" for case in CASES if case.difference]
    assert len(CASES) + len(GENERATED) - len(differing) == 33
    assert differing == ["compare_df-10", "subset_df-1"]
    assert [b[0] for b in BUILT if b[5]] == ["reverse key order", "duplicate generated rows, subset"]
    assert {case.difference for case in CASES if case.difference} | {b[5] for b in BUILT if b[5]} == {
        EXTRA,
        EMPTY,
        KEY_ORDER,
        ROW_COUNTS,
    }
