"""Judging answers ordered by sort keys, ``(ORDERED BY 2 ...)`` (issue 16, item 9): the
system's tuples in the canonical order of the key columns, tuples with equal keys in any
order (a set within each tie group)."""

from itertools import combinations, permutations

import pytest
from hypothesis import given, strategies as st

from answerkey import judge, parse
from answerkey.comparator import judge_min_max
from answerkey.comparator.sortkeys import KeyOrder, tie_groups
from answerkey.comparator.values import MatchRule
from answerkey.model import Number, Relation
from answerkey.testing.strategies import equivalent_pairs, inequivalent_pairs

# An ORDER BY salary query (the personnel data of H89-2019): SMITH and TAI earn the same, and
# sites sub-sort such ties differently (H89-2019 section 3, "Queries involving sorting").
BY_SALARY = '(ORDERED BY 2 ("JONES" 30000) ("SMITH" 40000) ("TAI" 40000) ("ADAMS" 52000))'
TIES_SWAPPED = '(("JONES" 30000) ("TAI" 40000) ("SMITH" 40000) ("ADAMS" 52000))'


def test_order_by_salary_accepts_ties_in_another_order():
    """The issue's example: a correct ORDER BY salary answer whose tied rows come in another
    order is correct with sort keys, and incorrect under plain ORDERED (a strict sequence)."""
    verdict = judge(BY_SALARY, TIES_SWAPPED)
    assert verdict.correct
    assert verdict.reason == "the tuples match in key order (BY 2; ties as sets)"
    assert verdict.mapping == (0, 1)
    plain = BY_SALARY.replace("ORDERED BY 2", "ORDERED")
    assert not judge(plain, TIES_SWAPPED).correct
    assert judge(plain, '(("JONES" 30000) ("SMITH" 40000) ("TAI" 40000) ("ADAMS" 52000))').correct


@pytest.mark.parametrize(
    "system, correct",
    [
        ('(("JONES" 30000) ("SMITH" 40000) ("TAI" 40000) ("ADAMS" 52000))', True),  # the canonical order
        ('(("JONES" 30000) ("TAI" 40000) ("TAI" 40000) ("SMITH" 40000) ("ADAMS" 52000))', True),  # a duplicate
        ('((30000 "JONES" 1) (40000 "TAI" 2) (40000 "SMITH" 3) (52000 "ADAMS" 4))', True),  # columns permuted, extra
        ('(("JONES" 30000) ("TAI" 40000) ("ADAMS" 52000) ("SMITH" 40000))', False),  # a tie after a higher key
        ('(("ADAMS" 52000) ("JONES" 30000) ("SMITH" 40000) ("TAI" 40000))', False),  # groups out of order
        ('(("JONES" 30000) ("TAI" 40000) ("ADAMS" 52000))', False),  # a tuple missing
        ('(("JONES" 30000) ("TAI" 40000) ("SMITH" 40000) ("ADAMS" 52000) ("NG" 52000))', False),  # one extra
        ('(("JONES" 30000) ("SMITH" 40000) ("ADAMS" 52000) ("TAI" 40000) ("ADAMS" 52000))', False),
        ('(("SMITH" 40000) ("JONES" 30000) ("TAI" 40000) ("ADAMS" 52000))', False),
    ],
)
def test_key_order_verdicts(system, correct):
    """Ties in any order, duplicates, extra and permuted columns pass; a tuple after one of a
    later key, a missing or an extra tuple fail."""
    assert judge(BY_SALARY, system).correct is correct


def test_explain_says_which_tuple_is_out_of_key_order():
    """explain() names the mapping under which the tuples match as sets and the first system
    tuple out of key order, in canonical column order, with its key and the tuple it belongs before."""
    verdict = judge(
        '(ORDERED BY 2 ("ADAMS" 40000) ("BAKER" 40000) ("CLARK" 52000))',
        '((40000 "ADAMS") (52000 "CLARK") (40000 "BAKER"))',
    )
    assert verdict.explain() == (
        "incorrect: no mapping of canonical columns onto system columns gives the canonical tuples in key order (BY 2)\n"
        "closest mapping: canonical column 1 -> system column 2, canonical column 2 -> system column 1\n"
        "out of key order (BY 2):\n"
        '  system tuple 3 ("BAKER" 40000) with key (40000) should come before system tuple 2 ("CLARK" 52000)'
        " with key (52000)"
    )
    assert verdict.document(explain=True)["explanation"] == [
        {
            "alternative": None,
            "closest_mapping": [{"canonical": 1, "system": 2}, {"canonical": 2, "system": 1}],
            "missing": [],
            "extra": [],
            "out_of_tolerance": [],
            "out_of_order": {
                "system_tuple": 3,
                "tuple": '("BAKER" 40000)',
                "key": "(40000)",
                "before_system_tuple": 2,
                "before_tuple": '("CLARK" 52000)',
                "before_key": "(52000)",
            },
        }
    ]


def test_explain_lists_missing_tuples_when_the_sets_differ():
    """When no mapping matches even as sets, the explanation is the usual missing and extra
    tuples, with no out-of-order line."""
    verdict = judge(BY_SALARY, '(("JONES" 30000) ("TAI" 40000) ("ADAMS" 52000))')
    assert verdict.explain() == (
        "incorrect: no mapping of canonical columns onto system columns gives the canonical tuples in key order (BY 2)\n"
        "closest mapping: canonical column 1 -> system column 1, canonical column 2 -> system column 2\n"
        "canonical tuples missing from the system answer (1):\n"
        '  ("SMITH" 40000)'
    )
    assert verdict.explanations()[0].out_of_order is None


def test_explain_with_several_keys_shows_the_key_tuple():
    """Keys of several columns are shown in the order BY names them; the tuple out of order
    belongs before the first earlier tuple of a later group."""
    canonical = "(ORDERED BY 3 1 (1 x 5) (1 w 5) (2 y 5) (1 z 6))"
    assert judge(canonical, "((1 w 5) (1 x 5) (2 y 5) (1 z 6))").correct
    verdict = judge(canonical, "((1 x 5) (2 y 5) (1 z 6) (1 w 5))")
    assert verdict.explain().splitlines()[-2:] == [
        "out of key order (BY 3 1):",
        '  system tuple 4 (1 "w" 5) with key (5 1) should come before system tuple 2 (2 "y" 5) with key (5 2)',
    ]


def test_the_search_goes_on_past_mappings_out_of_key_order():
    """Two columns with the same values: the first mapping tried matches as sets but not in
    key order, the other does; small answers (direct search) and wide ones (the general
    searches, exact and with reals) alike."""
    verdict = judge("(ORDERED BY 1 (1 2) (2 1))", "((2 1) (1 2))")
    assert verdict.correct and verdict.mapping == (1, 0)
    assert not judge("(ORDERED BY 1 (1 2) (2 1))", "((2 1) (1 2) (2 1))").correct
    for filler in ("7", "1.5"):
        rest = " ".join([filler] * 7)
        canonical = f"(ORDERED BY 1 (1 2 {rest}) (2 1 {rest}))"
        verdict = judge(canonical, f"((2 1 {rest}) (1 2 {rest}))")
        assert verdict.correct and verdict.mapping[:2] == (1, 0), filler
        assert not judge(canonical, f"((2 1 {rest}) (2 1 {rest}) (1 2 {rest}) (1 1 {rest}))").correct


def test_plain_ordered_keeps_its_strict_sequence():
    """Plain ORDERED is unchanged: ties in another order are incorrect, runs of equal tuples collapse."""
    assert not judge("(ORDERED (1 a) (1 b) (2 c))", "((1 b) (1 a) (2 c))").correct
    assert judge("(ORDERED (1 a) (1 b) (2 c))", "((1 a) (1 a) (1 b) (2 c))").correct
    assert judge("(ORDERED BY 1 (1 a) (1 b) (2 c))", "((1 b) (1 a) (2 c))").correct


def test_tolerant_keys_may_match_two_groups():
    """Reals within epsilon of two neighbouring groups' keys: the split of the system tuples
    into the groups is searched, not guessed."""
    canonical = "(ORDERED BY 1 (1.0 a) (1.00005 b) (1.00005 c))"
    assert judge(canonical, "((1.00002 a) (1.00003 c) (1.00004 b))").correct
    assert judge(canonical, "((1.00002 a) (1.00003 b) (1.00003 c))").correct
    assert not judge(canonical, "((1.00002 b) (1.00003 a) (1.00004 c))").correct
    assert not judge(canonical, "((1.00002 b) (1.00003 a) (1.00004 c))", epsilon=0.5).correct
    assert not judge(canonical, "((1.0 a) (1.00005 c))").correct


def test_explain_when_no_tuple_is_out_of_order_but_the_groups_do_not_split():
    """One system tuple within epsilon of two groups' keys matches both as a set, yet cannot
    be two segments: the explanation says so rather than naming a tuple."""
    verdict = judge("(ORDERED BY 1 (1.0) (1.00005))", "((1.00002))")
    assert not verdict.correct
    assert verdict.explain().splitlines()[-2:] == [
        "out of key order (BY 1):",
        "  the system tuples do not split into the canonical tie groups in order",
    ]
    assert verdict.document(explain=True)["explanation"][0]["out_of_order"] is None


def test_alternatives_and_min_max_answers_with_sort_keys():
    """An OR alternative may have keys; a minimal answer's keys are judged on it, the maximal
    answer then compared as a set; keys on a maximal answer are refused."""
    assert judge("((ORDERED BY 1 (1 a) (1 b) (2 c)) OR 5)", "((1 b) (1 a) (2 c))").alternative == 0
    minimal = parse("(ORDERED BY 1 (1 a) (1 b) (2 c))")
    maximal = parse("(ORDERED (1 a x) (1 b y) (2 c z))")
    assert isinstance(minimal, Relation) and isinstance(maximal, Relation)
    assert judge_min_max(minimal, maximal, parse("((b 1 y) (a 1 x) (c 2 z))")).correct
    assert not judge_min_max(minimal, maximal, parse("((c 2 z) (b 1 y) (a 1 x))")).correct
    with pytest.raises(ValueError, match=r"sort keys \(ORDERED BY\) go on the minimal answer"):
        judge_min_max(minimal, parse("(ORDERED BY 1 (1 a x) (1 b y) (2 c z))"), parse("((1 a))"))


def test_empty_answers_with_sort_keys():
    """() with keys matches only an answer without tuples."""
    assert judge("(ORDERED BY 2)", "()").correct
    assert not judge("(ORDERED BY 2)", "((1 2))").correct
    assert not judge("(ORDERED BY 1 (1))", "()").correct


@given(equivalent_pairs(kinds=("sorted",)))
def test_shuffles_within_ties_keep_an_answer_correct(pair):
    """Tuples shuffled within each tie group (with duplicates, reals within epsilon, extra and
    permuted columns) are correct."""
    canonical, system = pair
    verdict = judge(canonical, system)
    assert verdict.correct, verdict.explain()


@given(equivalent_pairs(kinds=("sorted",)), st.data())
def test_a_further_shuffle_within_ties_keeps_the_verdict(pair, data):
    """Shuffling a correct answer's tuples again within runs of equal keys (under the mapping
    found) keeps it correct."""
    canonical, system = pair
    verdict = judge(canonical, system)
    assert verdict.mapping is not None and isinstance(canonical, Relation)
    key_columns = [verdict.mapping[column] for column in canonical.order_by]
    rule = MatchRule()
    rows: list = []
    run: list = []
    for row in system.rows:
        key = tuple(rule.key(row[column]) for column in key_columns)
        if run and key != tuple(rule.key(run[0][column]) for column in key_columns):
            rows += data.draw(st.permutations(run))
            run = []
        run.append(row)
    rows += data.draw(st.permutations(run))
    assert judge(canonical, Relation(rows)).correct


@given(inequivalent_pairs(kinds=("out of key order",)))
def test_a_swap_across_keys_breaks_an_answer(pair):
    """Two tuples of different keys swapped: incorrect, and the explanation says which tuple
    is out of key order."""
    canonical, system = pair
    verdict = judge(canonical, system)
    assert not verdict.correct
    assert "should come before system tuple" in verdict.explain()


# ---------------------------------------------------------------- against an exhaustive oracle


def oracle_groups(rows, keys, rule):
    groups: list[list] = []
    for row in rows:
        key = [rule.key(row[column]) for column in keys]
        if groups and key == [rule.key(groups[-1][0][column]) for column in keys]:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def oracle_in_key_order(groups, rows, rule) -> bool:
    """Try every split of ``rows`` into len(groups) consecutive segments."""

    def match(c, s):
        return all(rule.match(a, b) for a, b in zip(c, s))

    def covers(group, segment):
        return all(any(match(c, s) for s in segment) for c in group) and all(
            any(match(c, s) for c in group) for s in segment
        )

    count, parts = len(rows), len(groups)
    for cuts in combinations(range(1, count), parts - 1):
        bounds = (0, *cuts, count)
        if all(covers(groups[g], rows[bounds[g] : bounds[g + 1]]) for g in range(parts)):
            return True
    return False


def oracle_judge(canonical: Relation, system: Relation, rule: MatchRule) -> bool:
    groups = oracle_groups(canonical.rows, canonical.order_by, rule)
    for mapping in permutations(range(system.arity), canonical.arity):
        if oracle_in_key_order(groups, [tuple(row[j] for j in mapping) for row in system.rows], rule):
            return True
    return False


# Numbers that tie, differ, or match within some epsilons: integers, and reals 0.005% apart.
POOL = [Number.parse(text) for text in ("0", "1", "2", "1.0", "1.00005", "1.0001", "2.0")]


@st.composite
def numeric_rows(draw, width: int, min_rows: int, max_rows: int):
    return draw(
        st.lists(st.lists(st.sampled_from(POOL), min_size=width, max_size=width), min_size=min_rows, max_size=max_rows)
    )


@given(st.data(), st.sampled_from([0, 0.0001, 0.5]))
def test_judge_agrees_with_an_exhaustive_oracle(data, epsilon):
    """Every mapping, every split into tie groups: the search and the two-pointer walk give
    the same verdict as trying them all, with tolerances that make keys ambiguous."""
    width = data.draw(st.integers(1, 3))
    canonical_rows = data.draw(numeric_rows(width, 1, 5))
    keys = data.draw(st.lists(st.integers(0, width - 1), min_size=1, max_size=width, unique=True))
    canonical = Relation(canonical_rows, order_by=keys)
    system = Relation(data.draw(numeric_rows(data.draw(st.integers(width, width + 1)), 1, 6)))
    rule = MatchRule(epsilon=epsilon)
    assert judge(canonical, system, epsilon=epsilon).correct == oracle_judge(canonical, system, rule)


@given(st.data(), st.sampled_from([0, 0.0001, 0.5, 2]))
def test_key_order_agrees_with_every_split(data, epsilon):
    """KeyOrder.holds on reduced tuples equals trying every split into the tie groups."""
    canonical = data.draw(numeric_rows(2, 1, 6))
    system = [tuple(row) for row in data.draw(numeric_rows(2, 1, 7))]
    keys = data.draw(st.sampled_from([(0,), (1,), (0, 1)]))
    rule = MatchRule(epsilon=epsilon)
    rows = [tuple(row) for row in canonical]
    order = KeyOrder(rows, keys, rule)
    assert order.holds(system) == oracle_in_key_order(oracle_groups(rows, keys, rule), system, rule)


def test_tie_groups_are_runs_of_equal_keys_under_the_rule():
    """Groups are runs (a key met again later starts a new group), strings compared after the
    rule's normaliser, 5 and 5.0 equal, duplicates dropped."""
    rows = parse('(("a" 5) ("A" 5.0) ("a" 5) ("b" 6) ("a" 5))').rows
    assert [len(group) for group in tie_groups(rows, (1,), MatchRule())] == [2, 1, 1]
    assert [len(group) for group in tie_groups(rows, (0, 1), MatchRule(strings="fold"))] == [2, 1, 1]
    assert [len(group) for group in tie_groups(rows, (0,), MatchRule())] == [1, 1, 1, 1, 1]


# An ORDER BY on a timestamp-with-time-zone column: the engine prints each instant in its
# session's zone, a system may print it in another; 10:30Z and 12:30+02:00 are one instant, so
# those two tuples tie.
BY_MOMENT = (
    "(ORDERED BY 1 (1989-07-04T10:30:00Z 1) (1989-07-04T12:30:00+02:00 2) (1989-07-04T11:00:00Z 3)"
    " (1989-07-05T00:00:00-05:00 4))"
)


@pytest.mark.parametrize(
    "system, correct",
    [
        (
            "((1989-07-04T12:30:00+02:00 2) (1989-07-04T10:30:00Z 1) (1989-07-04T11:00:00Z 3) (1989-07-05T05:00:00Z 4))",
            True,
        ),
        (
            "((2 1989-07-04T05:30:00-05:00) (1 1989-07-04T10:30:00Z) (3 1989-07-04T13:00:00+02:00) (4 1989-07-05T05:00:00Z))",
            True,
        ),
        (
            "((1989-07-04T11:00:00Z 3) (1989-07-04T10:30:00Z 1) (1989-07-04T12:30:00+02:00 2) (1989-07-05T05:00:00Z 4))",
            False,
        ),
        ("((1989-07-04T10:30:00 1) (1989-07-04T12:30:00 2) (1989-07-04T11:00:00 3) (1989-07-05T00:00:00 4))", False),
    ],
)
def test_sort_keys_on_date_times_tie_one_instant_at_two_offsets(system, correct):
    """ORDERED BY a date-time column: one instant written at two offsets ties (any order within
    the tie), a later instant must come later, naive readings are other values."""
    assert judge(BY_MOMENT, system).correct is correct


def test_out_of_key_order_date_times_are_explained_with_their_spellings():
    """The explanation names the out-of-order tuple and its key as the system wrote them."""
    verdict = judge("(ORDERED BY 1 (10:00:00Z) (11:00:00Z))", "((12:00:00+01:00) (10:00:00Z))")
    assert not verdict.correct
    assert "system tuple 2 (10:00:00Z) with key (10:00:00Z) should come before system tuple 1 (12:00:00+01:00)" in (
        verdict.explain()
    )


def test_tie_groups_of_date_times_are_runs_of_one_instant():
    """Tie groups on a date-time column join consecutive tuples of one instant, whatever the offset."""
    rows = parse(BY_MOMENT).rows
    assert [len(group) for group in tie_groups(rows, (0,), MatchRule())] == [2, 1, 1]
