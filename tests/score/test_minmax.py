"""Min/max answers (ATIS 1991-92; issue #3 "Notes"): the system answer must hold every minimal
column and no column outside the maximal answer, judged against the maximal answer projected
onto the system's columns."""

import pytest

from answerkey.errors import InputError
from answerkey.grammar import parse
from answerkey.score.run import canonical_answers, judge_min_max

EMPLOYEES_MIN = "((4322) (5267))"
EMPLOYEES_MAX = '((4322 "TAI" 45) (5267 "LEASE" 44))'

# (minimal, maximal, system, options, correct, reason)
CASES = [
    # exactly the minimal columns
    (
        EMPLOYEES_MIN,
        EMPLOYEES_MAX,
        "((5267) (4322))",
        {},
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
    ),
    # plus one maximal column, columns in another order
    (
        EMPLOYEES_MIN,
        EMPLOYEES_MAX,
        '(("LEASE" 5267) ("TAI" 4322))',
        {},
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
    ),
    # the whole maximal answer
    (
        EMPLOYEES_MIN,
        EMPLOYEES_MAX,
        '((45 4322 "TAI") (44 5267 "LEASE"))',
        {},
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
    ),
    # a minimal column missing
    (
        EMPLOYEES_MIN,
        EMPLOYEES_MAX,
        '(("TAI") ("LEASE"))',
        {},
        False,
        "the minimal answer does not match: no mapping of canonical columns onto system columns gives the "
        "canonical tuples as a set",
    ),
    # a column outside the maximal answer
    (
        EMPLOYEES_MIN,
        EMPLOYEES_MAX,
        '((4322 "TAI" 71500.0) (5267 "LEASE" 48250.0))',
        {},
        False,
        "system column 3 matches no column of the maximal answer",
    ),
    # more columns than the maximal answer has
    (
        EMPLOYEES_MIN,
        EMPLOYEES_MAX,
        '((4322 "TAI" 45 4322) (5267 "LEASE" 44 5267))',
        {},
        False,
        "the system answer has 4 columns; the maximal answer only 3",
    ),
    # one maximal column used twice: the mapping must be injective
    (
        EMPLOYEES_MIN,
        EMPLOYEES_MAX,
        '((4322 4322 "TAI") (5267 5267 "LEASE"))',
        {},
        False,
        "no mapping of the system columns onto columns of the maximal answer gives the system tuples",
    ),
    # right value sets, wrong pairing of minimal and maximal columns
    (
        EMPLOYEES_MIN,
        EMPLOYEES_MAX,
        '((4322 "LEASE") (5267 "TAI"))',
        {},
        False,
        "no mapping of the system columns onto columns of the maximal answer gives the system tuples",
    ),
    # an extra tuple that only differs in a maximal column
    (
        "((1) (2))",
        '((1 "a") (2 "b"))',
        '((1 "a") (1 "b") (2 "b"))',
        {},
        False,
        "no mapping of the system columns onto columns of the maximal answer gives the system tuples",
    ),
    # a maximal-only real within epsilon of the maximal value (H89 S-9 example numbers)
    (
        "((1))",
        "((1 53200.0))",
        "((1 53198.8))",
        {},
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
    ),
    ("((1))", "((1 53200.0))", "((1 53190.9))", {}, False, "system column 2 matches no column of the maximal answer"),
    # the tolerance is relative to the maximal (canonical) value: |90 - 100| <= 100 * 0.1
    (
        "((1))",
        "((1 100.0))",
        "((1 90.0))",
        {"epsilon": 0.1},
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
    ),
    (
        "((1))",
        "((1 90.0))",
        "((1 100.0))",
        {"epsilon": 0.1},
        False,
        "system column 2 matches no column of the maximal answer",
    ),
    # identical maximal columns may each take one system column
    (
        "((1))",
        '((1 1 "a"))',
        "((1 1))",
        {},
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
    ),
    # empty answers
    ("()", "()", "()", {}, True, "both answers are empty"),
    (
        "()",
        "()",
        "((1))",
        {},
        False,
        "the minimal answer does not match: the canonical answer is empty; the system answer has 1 tuple(s)",
    ),
    # ordered: the minimal order must hold, and the maximal projection in order
    (
        "(ORDERED (1) (2))",
        '(ORDERED (1 "a") (2 "b"))',
        '((1 "a") (2 "b"))',
        {},
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
    ),
    (
        "(ORDERED (1) (2))",
        '(ORDERED (1 "a") (2 "b"))',
        '((2 "b") (1 "a"))',
        {},
        False,
        "the minimal answer does not match: no mapping of canonical columns onto system columns gives the "
        "canonical tuples in order",
    ),
    # a scalar minimal answer: ATIS accepts only a one-value answer, the 1989 reading extra columns
    (
        "5",
        '((5 "x"))',
        "5",
        {},
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
    ),
    (
        "5",
        '((5 "x"))',
        '((5 "x"))',
        {},
        False,
        "the minimal answer does not match: the canonical answer is a scalar; the system answer has 1 distinct "
        "tuple(s) of 2 value(s)",
    ),
    (
        "5",
        '((5 "x"))',
        '((5 "x"))',
        {"scalars": "h89"},
        True,
        "the minimal columns match and every system column is a column of the maximal answer",
    ),
    # NO_ANSWER keeps the comparator's reason
    (EMPLOYEES_MIN, EMPLOYEES_MAX, "NO_ANSWER", {}, False, "the system gave no answer (NO_ANSWER)"),
]


@pytest.mark.parametrize("minimal, maximal, system, options, correct, reason", CASES)
def test_min_max_cases(minimal, maximal, system, options, correct, reason):
    """Each case of the table gets its verdict and its reason."""
    verdict = judge_min_max(parse(minimal), parse(maximal), parse(system), **options)
    assert (verdict.correct, verdict.reason) == (correct, reason)


def test_min_max_mapping_is_the_minimal_one():
    """A correct verdict maps the minimal answer's columns onto the system's."""
    verdict = judge_min_max(parse(EMPLOYEES_MIN), parse(EMPLOYEES_MAX), parse('(("TAI" 4322) ("LEASE" 5267))'))
    assert verdict.mapping == (1,)


@pytest.mark.parametrize(
    "answer, max_answer, scored, message",
    [
        (
            "((1 2))",
            "((1 3))",
            True,
            "max_answer: does not contain the minimal answer (no columns of it give the minimal answer's tuples)",
        ),
        (
            "(1 OR 2)",
            "((1 2))",
            True,
            "answer: a minimal answer with max_answer must be one relation (not OR alternatives, not NO_ANSWER)",
        ),
        ("((1))", "NO_ANSWER", True, "max_answer: must be one relation, not NO_ANSWER"),
        ("((1))", "(((1)) OR ((2)))", True, "max_answer: must be one relation, not OR alternatives"),
        (
            "((1))",
            "((1) OR (2))",
            True,
            "max_answer: unexpected OR; expected '(' or ')' (at 1:6 of the max answer text)",
        ),
        ("()", "((1))", True, "max_answer: the minimal and maximal answers must both be empty or both have tuples"),
        (
            "NO_ANSWER",
            None,
            True,
            "answer: NO_ANSWER cannot be a canonical answer (nothing matches it; use category X to list an item "
            "without scoring it)",
        ),
        (
            "((1) (2 3))",
            None,
            True,
            "answer: tuple 2 has 2 values; the relation's tuples have 1 (at 1:6 of the answer text)",
        ),
    ],
)
def test_unusable_canonical_answers(answer, max_answer, scored, message):
    """Corpus answers that cannot be scored are rejected with the field and the reason."""
    with pytest.raises(InputError) as caught:
        canonical_answers(answer, max_answer, scored=scored)
    assert caught.value.message == message


def test_category_x_may_hold_no_answer():
    """An excluded (category X) item may keep NO_ANSWER as its canonical answer."""
    answer, maximal = canonical_answers("NO_ANSWER", scored=False)
    assert maximal is None and not hasattr(answer, "rows")


@pytest.mark.parametrize("ordered, expected", [(None, False), (True, True), (False, False)])
def test_ordered_override(ordered, expected):
    """A corpus item's ordered flag overrides what the CAS text says; unset keeps it."""
    answer, _ = canonical_answers("((1) (2))", ordered=ordered)
    assert answer.ordered is expected
    written_ordered, _ = canonical_answers("(ORDERED (1) (2))", ordered=ordered)
    assert written_ordered.ordered is (True if ordered is None else ordered)


# ---------------------------------------------------------------- properties

from itertools import permutations  # noqa: E402

from hypothesis import (  # noqa: E402
    event,
    given,
    strategies as st,
)

from answerkey.comparator import judge  # noqa: E402
from answerkey.comparator.search import project  # noqa: E402
from answerkey.comparator.tuples import equivalent  # noqa: E402
from answerkey.comparator.values import MatchRule  # noqa: E402
from answerkey.model import Number, Relation  # noqa: E402
from answerkey.testing.strategies import relations  # noqa: E402


def oracle(minimal, maximal, system) -> bool:
    """The min/max rule by brute force over every injective column mapping."""
    if not judge(minimal, system).correct:
        return False
    if not system.rows:
        return True
    width, available = system.arity, maximal.arity
    rule = MatchRule()
    return any(
        equivalent(project(maximal.rows, columns), project(system.rows, range(width)), rule)
        for columns in permutations(range(available), width)
    )


@st.composite
def min_max_cases(draw):
    maximal = draw(relations(min_rows=1, max_rows=4, min_cols=1, max_cols=4, types=("integer", "string", "real")))
    columns = list(range(maximal.arity))
    minimal_columns = draw(st.permutations(columns))[: draw(st.integers(1, maximal.arity))]
    minimal = Relation(project(maximal.rows, minimal_columns))
    system_columns = draw(st.permutations(columns))[: draw(st.integers(1, maximal.arity))]
    rows = [list(row) for row in project(maximal.rows, system_columns)]
    if draw(st.booleans()):  # one more column, of small integers that may or may not be in X
        position = draw(st.integers(0, len(rows[0])))
        for row in rows:
            row.insert(position, Number.of(draw(st.integers(0, 2))))
    if draw(st.booleans()) and len(rows) > 1:  # a tuple dropped
        rows.pop(draw(st.integers(0, len(rows) - 1)))
    return minimal, maximal, Relation(rows)


@given(min_max_cases())
def test_min_max_agrees_with_brute_force(case):
    """The pruned search gives the brute-force verdict on random min/max items."""
    minimal, maximal, system = case
    verdict = judge_min_max(minimal, maximal, system).correct
    event(f"correct: {verdict}")
    assert verdict == oracle(minimal, maximal, system)
