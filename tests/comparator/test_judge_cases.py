"""The comparator's verdicts on documented cases (H89-2019 and DESIGN.md)."""

import pytest

from answerkey import ParseError, judge
from answerkey.comparator import judge_signature
from answerkey.model import Relation


@pytest.mark.parametrize(
    "canonical, system, correct",
    [
        # H89-2019 S-9: 53200.0 allows a deviation of 5.32.
        ("53200.0", "53198.8", True),
        ("53200.0", "53190.9", False),
        # H89-2019 3.1: a scalar may be written as an atom or as a one-tuple relation.
        ("FALSE", "((false))", True),
        ("((false))", "FALSE", True),
        ("(( 3 ))", "3", True),
        ("2.9999999999", "3", True),  # |3 - 2.9999999999| far inside 2.9999999999 * 0.0001
        ('"04-JUL-89"', "1989-07-04", True),
        # H89-2019 3.4: 45/423 = 0.10638...; 0.11 is rounding beyond epsilon.
        ("0.10638297872340426", "0.10638", True),
        ("0.10638297872340426", "0.11", False),
        # H89-2019 S-10: extra fields allowed, field order not specified.
        ('( (2341 "SMITH") (5573 "JONES") )', '( ("JONES" 5573) ("SMITH" 2341) )', True),
        ('( (2341 "SMITH") (5573 "JONES") )', '( ("JONES" 5573 45) ("SMITH" 2341 44) )', True),
        ('( (2341 "SMITH") (5573 "JONES") )', '( (2341 "SMITH") )', False),
        ('( (2341 "SMITH") (5573 "JONES") )', '( (2341 "SMITH") (5573 "JONES") (9999 "TAI") )', False),
        ('( (2341 "SMITH") )', "( (2341) )", False),
        # H89-2019 section 4: extra columns may split tuples; the reduced answer is deduplicated.
        ("( (40000) )", '( ("SMITH" 40000) ("JONES" 40000) )', True),
        # Duplicates carry no weight.
        ("( (1) (2) )", "( (2) (1) (2) (1) )", True),
        # Strings are case-sensitive; integers exact; types never cross.
        ('"Smith"', '"SMITH"', False),
        ("5", "6", False),
        ("5", "5.0", True),
        ("5", '"5"', False),
        ("true", "1", False),
        # DESIGN.md: () matches only an answer with no tuples.
        ("()", "()", True),
        ("()", "((1))", False),
        ("((1))", "()", False),
        ("()", "(ORDERED)", True),
        # NO_ANSWER never matches.
        ("((1))", "NO_ANSWER", False),
        ("NO_ANSWER", "NO_ANSWER", False),
        # ATIS v2 scalars: a canonical scalar matches a scalar or a one-value relation only.
        ("true", "((true false))", False),
        ("true", "((true) (false))", False),
        ("true", "((true) (true))", True),
        # Alternatives: correct if any alternative matches.
        ("(1 OR 2)", "2", True),
        ("(1 OR ((1 2)))", '(("x" 2 1))', True),
        ("(1 OR 2)", "3", False),
        # Ordered relations compare in order; runs of equal reduced tuples collapse.
        ("(ORDERED (1) (2))", "((1) (2))", True),
        ("(ORDERED (1) (2))", "((2) (1))", False),
        ("(ORDERED (1) (2))", '(("a" 1) ("b" 1) ("c" 2))', True),
        ("(ORDERED (1 10) (2 20))", "((20 2) (10 1))", False),
        ("(ORDERED (1 10) (2 20))", "((10 1) (20 2))", True),
        # NIL matches only NIL; failure tokens by value.
        ("((NIL 1))", "((1 NIL))", True),
        ("((NIL 1))", '((1 "NIL"))', False),
        ("contingent-failure", "contingent-failure", True),
        ("contingent-failure", "necessary-failure", False),
        # Date-times and times (answerkey extension): aware ones match as instants, whatever
        # the offset; a naive one matches no aware one; a date is no date-time at midnight.
        ("1989-07-04T10:30:00+02:00", "1989-07-04T08:30:00Z", True),
        ("1989-07-04T10:30:00+02:00", '"1989-07-04T03:30:00-05:00"', True),
        ("1989-07-04T10:30:00Z", "1989-07-04T10:30:00", False),
        ("1989-07-04T10:30:00", "1989-07-04T10:30:00.000", True),
        ("1989-07-04T10:30:00", "1989-07-04T10:30:00.000000001", False),
        ("1989-07-04", "1989-07-04T00:00:00", False),
        ("1989-07-04T10:30:00", '"1989-07-04T10:30:00 "', False),
        ("01:00:00+02:00", "23:00:00Z", True),
        ("10:30:00", "10:30:00Z", False),
        ("10:30:00", '"10:30"', False),
        (
            "((1 1989-07-04T10:30:00Z) (2 1989-07-05T10:30:00Z))",
            '(("b" 1989-07-05T12:30:00+02:00 2) ("a" 1989-07-04T05:30:00-05:00 1))',
            True,
        ),
        (
            "((1 1989-07-04T10:30:00Z) (2 1989-07-05T10:30:00Z))",
            "((1 1989-07-05T10:30:00Z) (2 1989-07-04T10:30:00Z))",
            False,
        ),
        ("(ORDERED (10:00:00Z) (11:00:00Z))", "((12:00:00+02:00) (11:00:00Z))", True),
        ("(ORDERED (10:00:00Z) (11:00:00Z))", "((11:00:00Z) (10:00:00Z))", False),
    ],
)
def test_verdicts(canonical, system, correct):
    """Documented verdicts, cited per case."""
    assert judge(canonical, system).correct is correct


def test_h89_scalar_reading_allows_extra_columns():
    """scalars='h89' is the 1989 reading in which ((true false)) passes for true (H89 3.4)."""
    assert judge("true", "((true false))", scalars="h89").correct
    assert not judge("true", "((false 5))", scalars="h89").correct


def test_epsilon_zero_is_exact_and_epsilon_is_relative():
    """epsilon 0 means exact; the allowed deviation is |canonical| * epsilon."""
    assert not judge("1.0", "1.0000001", epsilon=0).correct
    assert judge("1.0", "1.0", epsilon=0).correct
    assert judge("1.0", "1.1", epsilon=0.1).correct  # exactly on the boundary: exact arithmetic
    assert not judge("1.0", "1.1000001", epsilon=0.1).correct
    assert judge("1000.0", "1000.1", epsilon=1e-4).correct
    assert not judge("0.001", "0.0011", epsilon=1e-4).correct


def test_integers_against_integers_are_exact_but_against_reals_use_epsilon():
    """Integer vs integer is exact; an integer against a real uses the real rule."""
    assert not judge("100000", "100001").correct
    assert judge("100000.0", "100001").correct
    assert judge("100000", "100001.").correct


def test_verdict_reports_mapping():
    """The mapping says which system column each canonical column went to."""
    verdict = judge('((2341 "SMITH"))', '(("TAI" "SMITH" 45 2341))')
    assert verdict.mapping == (3, 1)
    assert bool(verdict) is True
    document = verdict.document()
    assert {key: document[key] for key in ("verdict", "correct", "reason", "mapping", "alternative")} == {
        "verdict": "correct",
        "correct": True,
        "reason": "the tuples match as sets",
        "mapping": [{"canonical": 1, "system": 4}, {"canonical": 2, "system": 2}],
        "alternative": None,
    }


def test_explain_names_missing_extra_and_out_of_tolerance():
    """explain() gives the closest mapping's missing and extra tuples and numbers out of tolerance."""
    text = judge("((1 53200.0) (2 7.5))", "((53190.9 1) (7.5 2))").explain()
    assert text.splitlines() == [
        "incorrect: no mapping of canonical columns onto system columns gives the canonical tuples as a set",
        "closest mapping: canonical column 1 -> system column 2, canonical column 2 -> system column 1",
        "canonical tuples missing from the system answer (1):",
        "  (1 53200.0)",
        "system tuples not in the canonical answer (1):",
        "  (1 53190.9)",
        "numbers outside tolerance:",
        "  53190.9 for 53200.0: off by 9.1, more than 5.32",
    ]


def test_explain_of_structural_mismatch():
    """Shape mismatches explain themselves in the reason."""
    assert judge("((1 2))", "((1))").explain() == (
        "incorrect: the canonical answer has 2 columns; the system answer only 1"
    )
    assert judge("((1))", "NO_ANSWER").reason == "the system gave no answer (NO_ANSWER)"


def test_or_in_system_answer_is_an_error():
    """OR alternatives in a system answer are an error, located when given as text."""
    with pytest.raises(ParseError):
        judge("1", "(1 OR 2)")


def test_string_modes():
    """Opt-in string normalisers: trim and fold (NFC + case-fold)."""
    assert not judge('"Smith "', '"Smith"').correct
    assert judge('"Smith "', '"Smith"', strings="trim").correct
    assert judge('"SMITH"', '"smith"', strings="fold").correct
    assert judge('"e\u0301"', '"\u00e9"', strings="fold").correct


def test_bad_options_are_rejected():
    """Unknown options fail loudly instead of being ignored."""
    with pytest.raises(ValueError, match="scalars must be one of atis, h89"):
        judge("1", "1", scalars="lenient")
    with pytest.raises(ValueError, match="epsilon must be a finite number >= 0"):
        judge("1", "1", epsilon=-1)


def test_signature():
    """The signature lists every verdict-changing option and the version."""
    from answerkey import __version__

    assert str(judge_signature()) == f"eps:0.0001|scalars:atis|strings:exact|v:{__version__}"
    assert judge_signature().format() == f"epsilon:0.0001|scalars:atis|strings:exact|version:{__version__}"
    assert str(judge_signature(epsilon=0, scalars="h89", strings="fold")).startswith("eps:0|scalars:h89|strings:fold|")


def test_accepts_parsed_answers():
    """judge takes parsed answers as well as text."""
    canonical = Relation.from_rows([[1, "a"], [2, "b"]])
    system = Relation.from_rows([["b", 2, True], ["a", 1, False]])
    assert judge(canonical, system).mapping == (1, 0)


def test_mapping_search_with_many_indistinguishable_columns_finds_the_answer():
    """Columns sharing one value domain still find the one mapping that works."""
    import random

    rng = random.Random(7)
    rows = [[rng.randint(0, 1) for _ in range(8)] for _ in range(40)]
    canonical = Relation.from_rows(rows)
    system = Relation.from_rows([list(reversed(row)) for row in rows])
    verdict = judge(canonical, system)
    assert verdict.correct and verdict.mapping == tuple(range(7, -1, -1))
    rows[0][0] = 1 - rows[0][0]
    assert not judge(Relation.from_rows(rows), system).correct


@pytest.mark.parametrize(
    "canonical, system, correct",
    [
        # Found by equivalent_pairs(): runs of reals within epsilon must walk one canonical tuple.
        ("(ORDERED (1.0 1) (1.0 2))", "(ORDERED (1.00001 1) (1.0 2))", True),
        ("(ORDERED (1.0))", "(ORDERED (1.00001) (0.99999))", True),
        ("(ORDERED (1) (2) (1))", "((1) (1) (2) (1))", True),
        ("(ORDERED (1) (2) (1))", "((1) (2))", False),
        ("(ORDERED (1) (2))", "((1) (2) (1))", False),
        ("(ORDERED (1) (1))", "((1))", True),  # identical canonical runs count once
        ("(ORDERED (1.0) (1.00005))", "((1.00003))", False),  # both must be walked
        ("(ORDERED (1.0) (1.00005))", "((1.00003) (1.00003))", True),
    ],
)
def test_ordered_walks(canonical, system, correct):
    """Ordered answers: each system tuple matches the current or the next canonical tuple."""
    assert judge(canonical, system).correct is correct
