"""The aligned view of two results (answerkey.report.alignment) and the charts of how the
semantics agree (answerkey.report.agreement): exact lines, statuses, counts and bounds (docs:
Reading a report)."""

import sqlite3

import pytest

from answerkey.adapters.engines import open_engine
from answerkey.comparator import MatchRule, judge
from answerkey.execution.load import SqlItem
from answerkey.execution.result_rows import shown_rows
from answerkey.model import Relation
from answerkey.report.agreement import agreement_chart, deciding_rules_chart, reason_kind
from answerkey.report.alignment import (
    ALIGNED_CELL_CHARS,
    Line,
    align,
    aligned_document,
    aligned_verdict,
    column_mapping,
)


def rows(*values):
    return Relation.from_rows([list(row) for row in values]).rows


def test_matched_different_missing_and_extra_rows_each_have_their_line():
    """Canonical order first, each matched row beside its partner under the mapping; a missing
    row beside the extra row equal to it but for numbers is 'different', the number's system
    column listed; the other missing and extra rows stand alone, extras last in system order."""
    canonical = rows(["Ann", 1.5], ["Bob", 2.0], ["Cy", 3.0])
    system = rows([4.0, "Di"], [3.0, "Bob"], [1.5, "Ann"])
    assert align(canonical, system, (1, 0), MatchRule()) == [
        Line("matched", 0, 2),
        Line("different", 1, 1, (0,)),
        Line("missing", 2, None),
        Line("extra", None, 0),
    ]


def test_a_value_within_epsilon_is_matched_beside_its_partner():
    """53198.8 matches 53200.0 within epsilon 0.0001 (DESIGN.md's example): one matched line,
    though the values' keys differ; 53190.9 does not: a 'different' line."""
    assert align(rows([53200.0]), rows([53198.8]), (0,), MatchRule()) == [Line("matched", 0, 0)]
    assert align(rows([53200.0]), rows([53190.9]), (0,), MatchRule()) == [Line("different", 0, 0, (0,))]


def test_rows_matched_within_tolerance_are_placed_beside_their_partners_in_any_order():
    """With epsilon 0.1, 1.04 matches 1.0, 2.04 2.0 and 3.04 3.0: each beside its own partner,
    wherever it stands among the system rows."""
    lines = align(rows([1.04], [2.04], [3.04]), rows([3.0], [1.0], [2.0]), (0,), MatchRule(epsilon=0.1))
    assert lines == [Line("matched", 0, 1), Line("matched", 1, 2), Line("matched", 2, 0)]


def test_duplicates_are_matched_alone():
    """Sets: a repeated row matches, each copy beyond the other side's count stands alone as
    'matched' (its partner on another line)."""
    assert align(rows(["a"], ["a"]), rows(["a"]), (0,), MatchRule()) == [
        Line("matched", 0, 0),
        Line("matched", 1, None),
    ]
    assert align(rows(["a"]), rows(["a"], ["a"]), (0,), MatchRule()) == [
        Line("matched", 0, 0),
        Line("matched", None, 1),
    ]


def test_an_empty_side_leaves_the_other_all_missing_or_all_extra():
    """No system rows: every canonical row is missing; no canonical rows: every system row extra."""
    assert align(rows(["a"], ["b"]), (), (), MatchRule()) == [Line("missing", 0, None), Line("missing", 1, None)]
    assert align((), rows(["a"]), (), MatchRule()) == [Line("extra", None, 0)]


def test_strings_differing_are_missing_and_extra_not_out_of_tolerance():
    """Rows that differ in a string have different shapes: a missing and an extra line, no
    cell marked."""
    assert align(rows(["a", 1]), rows(["b", 1]), (0, 1), MatchRule()) == [
        Line("missing", 0, None),
        Line("extra", None, 0),
    ]


def test_the_document_keeps_the_first_lines_and_counts_them_all():
    """The first `shown` lines with values as CAS text; counts and rows over all of them; how
    many lines were left out; columns numbered from 1 by default."""
    document = aligned_document(rows(["a", 1], ["b", 2]), rows([1, "a"], [5, "b"], [7, "c"]), (1, 0), MatchRule(), 2)
    assert document == {
        "sides": ["canonical", "system"],
        "columns": [["1", "2"], ["1", "2"]],
        "mapping": [1, 0],
        "lines": [
            {"status": "matched", "canonical": ['"a"', "1"], "system": ["1", '"a"'], "off": []},
            {"status": "different", "canonical": ['"b"', "2"], "system": ["5", '"b"'], "off": [0]},
        ],
        "counts": {"matched": 1, "missing": 0, "extra": 1, "different": 1},
        "rows": [2, 3],
        "left_out": 1,
        "shown": 2,
    }


def test_a_long_value_or_column_name_is_cut():
    """A value or column name longer than ALIGNED_CELL_CHARS is cut there, ending with '…'."""
    long = "x" * (ALIGNED_CELL_CHARS + 50)
    document = aligned_document(rows([long]), rows([long]), (0,), MatchRule(), 5, ([long], ["n"]))
    cell = document["lines"][0]["canonical"][0]
    assert len(cell) == ALIGNED_CELL_CHARS + 1 and cell.endswith("…") and cell.startswith('"xxx')
    assert document["columns"] == [["x" * ALIGNED_CELL_CHARS + "…"], ["n"]]


def test_column_mapping_is_the_comparators():
    """A mapping under which the rows match; else the closest; None for a canonical side wider
    than the system's or a side without rows."""
    assert column_mapping(rows(["a", 1]), rows([1, "a", True]), MatchRule()) == (1, 0)
    assert column_mapping(rows(["a", 1]), rows([2, "a"]), MatchRule()) == (1, 0)
    assert column_mapping(rows(["a", 1]), rows(["a"]), MatchRule()) is None
    assert column_mapping((), rows(["a"]), MatchRule()) is None


def test_a_verdict_is_aligned_under_its_mapping_or_its_closest():
    """A correct verdict under its mapping; an incorrect one under its explanation's; the
    matching alternative of an OR; None for no_answer or a canonical answer wider than the
    system's."""
    correct = aligned_verdict(judge('((1 "a") (2 "b"))', '(("b" 2) ("a" 1))'), 10)
    assert correct["mapping"] == [1, 0]
    assert [line["status"] for line in correct["lines"]] == ["matched", "matched"]
    alternative = aligned_verdict(judge("(((1)) OR ((2)))", "((2))"), 10)
    assert alternative["lines"] == [{"status": "matched", "canonical": ["2"], "system": ["2"], "off": []}]
    wrong = aligned_verdict(judge("((53200.0))", "((53190.9))"), 10)
    assert wrong["lines"] == [{"status": "different", "canonical": ["53200.0"], "system": ["53190.9"], "off": [0]}]
    assert aligned_verdict(judge("((1 2))", "((1))"), 10) is None
    assert aligned_verdict(judge("((1))", "NO_ANSWER"), 10) is None
    empty = aligned_verdict(judge("()", '(("a"))'), 10)
    assert empty["lines"] == [{"status": "extra", "canonical": None, "system": ['"a"'], "off": []}]


def test_shown_rows_aligns_each_items_results(tmp_path):
    """`sql --show-rows`: both results on the item's database aligned under the comparator's
    mapping, with the columns' names; None when a query failed or there is no prediction."""
    directory = tmp_path / "database" / "shop"
    directory.mkdir(parents=True)
    connection = sqlite3.connect(directory / "shop.sqlite")
    connection.execute("CREATE TABLE t (name TEXT, score REAL)")
    connection.executemany("INSERT INTO t VALUES (?, ?)", [("Ann", 1.5), ("Bob", 2.0), ("Cy", 3.0)])
    connection.commit()
    connection.close()
    engine = open_engine(str(tmp_path / "database"))
    items = [
        SqlItem("1", "shop", "SELECT name, score FROM t", "SELECT score + (name = 'Bob') AS points, name FROM t"),
        SqlItem("2", "shop", "SELECT name FROM t", "SELECT nme FROM t"),
        SqlItem("3", "shop", "SELECT name FROM t", None),
    ]
    try:
        found = shown_rows(engine, items, 5, MatchRule())
    finally:
        engine.close()
    aligned = found[0].aligned
    assert aligned["sides"] == ["gold", "predicted"]
    assert aligned["columns"] == [["name", "score"], ["points", "name"]]
    assert aligned["mapping"] == [1, 0]
    assert [(line["status"], line["off"]) for line in aligned["lines"]] == [
        ("matched", []),
        ("different", [0]),
        ("matched", []),
    ]
    assert found[0].gold == 'name | score\n"Ann" | 1.5\n"Bob" | 2.0\n"Cy" | 3.0'
    assert found[1].aligned is None and found[1].predicted == "(the query failed: no such column: nme)"
    assert found[2] == ('name\n"Ann"\n"Bob"\n"Cy"', None, None)


def test_reason_kinds_drop_the_detail():
    """Numbers become N, a list of numbered columns one N, and what follows ': ' is dropped."""
    assert reason_kind("the gold has 5 rows, the prediction 3") == "the gold has N rows, the prediction N"
    assert reason_kind("gold columns 1 (name), 2 (age) match no predicted column") == (
        "gold columns N match no predicted column"
    )
    assert reason_kind("the predicted query failed: near 'SELEC': syntax error") == "the predicted query failed"


def test_agreement_counts_each_pair_over_items_with_every_verdict():
    """Pairs in the semantics' order; an item without a verdict under one of them (a gold
    that failed) is not counted."""
    verdicts = [
        {"a": "correct", "b": "correct", "c": "correct"},
        {"a": "correct", "b": "incorrect", "c": "correct"},
        {"a": "incorrect", "b": "incorrect", "c": "correct"},
        {},
    ]
    chart = agreement_chart(verdicts, ["a", "b", "c"])
    assert chart.total == 3
    assert chart.groups == [
        ("pairs of semantics", [("a = b", 2), ("a = c", 2), ("b = c", 1)]),
        ("every semantics", [("all agree", 1)]),
    ]


def test_deciding_rules_read_each_semantics_line_and_stop_at_the_explanations():
    """Per semantics, its verdicts by kind of reason, most first; the explanation's indented
    lines (which may start like a semantics' name) are not counted."""
    first = (
        "on 'db': correct under a; incorrect under b\n"
        "  a: correct: the tuples match as sets\n"
        "  b: incorrect: the gold has 2 rows, the prediction 1\n"
        "a's explanation:\n"
        "  b: incorrect: not a decision\n"
    )
    second = "correct under b; incorrect under a\n  a: incorrect: the sets differ: 1 missing\n  b: correct: same rows\n"
    third = "correct under a; incorrect under b\n  a: correct: the tuples match as sets\n  b: incorrect: the gold has 9 rows, the prediction 4"
    chart = deciding_rules_chart([first, None, second, third], ["a", "b"])
    assert chart.total == 3
    assert chart.groups == [
        ("a", [("correct: the tuples match as sets", 2), ("incorrect: the sets differ", 1)]),
        ("b", [("incorrect: the gold has N rows, the prediction N", 2), ("correct: same rows", 1)]),
    ]


@pytest.mark.parametrize("names", [["a", "b"], ["b", "a"]])
def test_rules_chart_groups_follow_the_semantics_order(names):
    """Groups come in the order the semantics are given (the registry's, in a report)."""
    text = "correct under a; incorrect under b\n  a: correct: x\n  b: incorrect: y"
    assert [title for title, _ in deciding_rules_chart([text], names).groups] == names
