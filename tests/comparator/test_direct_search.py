"""The two mapping searches of ``find_mapping``: the direct one for answers with few columns
and the general one for any width give the same verdicts, and those of an exhaustive oracle."""

import itertools

from hypothesis import example, given, strategies as st

from answerkey import judge
from answerkey.comparator import search
from answerkey.comparator._assignment import walks as _walks
from answerkey.comparator._direct import DirectSides as _DirectSides
from answerkey.comparator.search import (
    _searched_mapping,
    find_mapping,
    find_projection,
    ordered_equivalent,
)
from answerkey.comparator.values import MatchRule
from answerkey.model import NIL, Number, Relation, String

# Values that match each other in some rules and not in others: integers and reals equal in
# value (1 and 1.0), reals within 0.0001 of each other or not, strings equal when folded.
POOL = [
    Number.of(1),
    Number.parse("1.0"),
    Number.parse("1.00005"),
    Number.parse("1.0002"),
    Number.of(2),
    Number.parse("2.5"),
    String("a"),
    String("A"),
    String("b"),
    NIL,
]
RULES = st.sampled_from(
    [MatchRule(epsilon=0), MatchRule(epsilon="0.0001"), MatchRule(epsilon="0.5"), MatchRule(strings="fold")]
)


NUMBERS, STRINGS = POOL[:6] + [NIL], POOL[6:]
POOLS = st.sampled_from([NUMBERS, STRINGS, [POOL[0], POOL[1], NIL]])


@st.composite
def answer_pairs(draw):
    """A canonical answer of 1-3 columns (ordered or not), each over a few values of one
    type, and a system answer made from it: columns permuted, values changed to others of the
    column's type, tuples dropped or repeated, 0-2 extra columns."""
    width = draw(st.integers(1, 3))
    pools = [draw(POOLS) for _ in range(width)]
    rows = draw(st.lists(st.tuples(*[st.sampled_from(pool) for pool in pools]).map(list), min_size=1, max_size=5))
    order = draw(st.permutations(range(width)))
    system = [[row[i] for i in order] for row in rows]
    if draw(st.booleans()):
        system = [
            [draw(st.sampled_from(pools[i])) if draw(st.booleans()) else value for i, value in zip(order, row)]
            for row in system
        ]
    if len(system) > 1 and draw(st.booleans()):
        system.pop(draw(st.integers(0, len(system) - 1)))
    system += [list(row) for row in draw(st.lists(st.sampled_from(system), max_size=2))]
    for pool in draw(st.lists(POOLS, max_size=2)):
        system = [row + [draw(st.sampled_from(pool))] for row in system]
    return Relation(rows, ordered=draw(st.booleans())), Relation(system)


def matches(canonical, system, rule: MatchRule) -> bool:
    return all(rule.match(c, s) for c, s in zip(canonical, system))


def works(mapping, canonical: Relation, system: Relation, rule: MatchRule) -> bool:
    """The system answer reduced by ``mapping`` is the canonical answer: in order (a walk),
    or as sets (every tuple of each side matches one of the other, compared pair by pair)."""
    reduced = [tuple(row[j] for j in mapping) for row in system.rows]
    if canonical.ordered:
        return ordered_equivalent(canonical.rows, reduced, rule)
    return all(any(matches(c, s, rule) for s in reduced) for c in canonical.rows) and all(
        any(matches(c, s, rule) for c in canonical.rows) for s in reduced
    )


def oracle(canonical: Relation, system: Relation, rule: MatchRule) -> bool:
    """Every injective mapping of the canonical columns onto system columns, tried in turn."""
    return any(
        works(mapping, canonical, system, rule)
        for mapping in itertools.permutations(range(system.arity), canonical.arity)
    )


@given(answer_pairs(), RULES)
@example((Relation([[String("a")], [String("A")]], ordered=True), Relation([[String("a")]])), MatchRule(strings="fold"))
@example(
    (Relation([[Number.of(1)], [Number.parse("1.0")]], ordered=True), Relation([[Number.of(1)]])), MatchRule(epsilon=0)
)
@example(
    (
        Relation([[Number.parse("1.0"), String("a")], [Number.parse("1.00005"), String("b")]]),
        Relation([[String("a"), Number.parse("1.00005")], [String("b"), Number.parse("1.0")]]),
    ),
    MatchRule(epsilon="0.0001"),
)  # equal sets of values per column, different tuples, equivalent within epsilon
def test_direct_and_general_searches_agree_with_the_oracle(pair, rule):
    """On the same answers, the direct search (however many mappings its candidates allow),
    the general search (with and without the direct search's keys) and find_mapping all
    find a mapping exactly when some mapping works, and the mapping each finds works."""
    canonical, system = pair
    expected = oracle(canonical, system, rule)
    direct = _DirectSides(canonical.rows, system.rows, rule, canonical.ordered)
    options = direct.options(10**9)
    assert options is not None
    found = {
        "direct": direct.find(options),
        "general": _searched_mapping(canonical.rows, system.rows, rule, canonical.ordered),
        "general with keys": _searched_mapping(canonical.rows, system.rows, rule, canonical.ordered, direct),
        "find_mapping": find_mapping(canonical.rows, system.rows, rule, ordered=canonical.ordered),
    }
    for name, mapping in found.items():
        assert (mapping is not None) == expected, name
        if mapping is not None:
            assert works(mapping, canonical, system, rule), name


@given(answer_pairs(), RULES)
@example(
    (Relation([[Number.of(1)], [Number.of(3)]]), Relation([[Number.of(1)], [Number.of(2)], [Number.of(3)]])),
    MatchRule(),
)  # one candidate left by the bounds, and not compatible: no mapping
@example(
    (
        Relation([[Number.of(1), String("a")], [Number.of(2), String("b")]]),
        Relation([[String("b"), Number.of(1)], [String("a"), Number.of(2)]]),
    ),
    MatchRule(),
)  # one candidate per column, compatible, but the tuples differ: no mapping
@example(
    (
        Relation([[Number.of(1), String("a")], [Number.of(2), String("b")]], ordered=True),
        Relation([[String("a"), Number.of(1)], [String("b"), Number.of(2)]]),
    ),
    MatchRule(),
)  # in order
def test_candidates_left_by_the_cheap_test_give_the_proven_options_mapping(pair, rule):
    """Options the cheap test alone leaves (one system column per canonical column, not
    proven to cover each other) give the same mapping, or none, as options proven column by
    column (``_compatible`` for every pair, as the direct search did before the cheap test)."""
    canonical, system = pair
    cheap = _DirectSides(canonical.rows, system.rows, rule, canonical.ordered)
    proven = _DirectSides(canonical.rows, system.rows, rule, canonical.ordered)
    options = [[j for j in range(system.arity) if proven._compatible(i, j)] for i in range(canonical.arity)]
    assert cheap.find(cheap.options(10**9, cheap=True)) == proven.find(options)
    assert proven.options(10**9, cheap=False) == options and not proven.unproven


def test_columns_told_apart_by_their_bounds_need_no_set_of_keys_per_column():
    """Columns of a large answer (here 1,500 rows of 4 columns) whose smallest and largest
    values tell them apart leave one candidate each: the direct search checks that one
    mapping's projection and builds no set of keys per column; a changed tuple makes it fail.
    A small answer is searched as before, with a set of keys per column."""
    canonical = [(Number.of(i), Number.of(i % 7), String(f"n{i:04d}"), Number.parse(f"{i / 4}")) for i in range(1500)]
    system = [(row[3], row[2], row[0], row[1]) for row in reversed(canonical)]
    direct = _DirectSides(canonical, system, MatchRule(), False)
    options = direct.options(64)
    assert direct.unproven and options == [[2], [3], [1], [0]]
    assert direct.find(options) == (2, 3, 1, 0)
    assert direct._key_sets == ([None] * 4, [None] * 4)
    swapped = [*system[:-2], system[-1][:2] + system[-2][2:], system[-2][:2] + system[-1][2:]]
    assert find_mapping(canonical, swapped, MatchRule()) is None
    small = _DirectSides(canonical[:100], system[-100:], MatchRule(), False)
    assert small.find(small.options(64)) == (2, 3, 1, 0) and not small.unproven
    assert all(small._key_sets[0]) and all(small._key_sets[1])


def test_answers_with_few_columns_are_searched_directly(monkeypatch):
    """A corpus-like answer (3 of 4 columns, reals) never reaches the general search; one of
    9 x 9 columns (81 pairs) and one of four 0/1 columns (256 mappings) do."""
    calls = []
    general = search._searched_mapping
    monkeypatch.setattr(
        search, "_searched_mapping", lambda *args, **options: calls.append(args) or general(*args, **options)
    )
    assert judge(
        '((7265 "DEPT37" 56339.5) (4811 "DEPT46" 34904.8))',
        '(("N1" 34904.8 4811 "DEPT46") ("N2" 56339.5 7265 "DEPT37"))',
    )
    assert calls == []
    wide = "((" + " ".join(map(str, range(9))) + "))"
    assert judge(wide, wide).correct and len(calls) == 1
    bits = "((0 0 1 1) (0 1 0 1) (1 1 1 0))"
    assert judge(bits, "((1 1 0 0) (1 0 1 0) (0 1 1 1))").correct and len(calls) == 2
    assert len(calls[0]) == 4 and isinstance(calls[1][4], _DirectSides)  # the keys found, handed over


def test_direct_search_hands_over_past_its_mapping_bound():
    """Three 0/1 columns against three: 27 candidate mappings, more than 8 and not more than 27."""
    rows = [(Number.of(a), Number.of(b), Number.of(c)) for a, b, c in itertools.product((0, 1), repeat=3)]
    direct = _DirectSides(rows, rows, MatchRule(), False)
    assert direct.options(8) is None
    assert direct.options(27) == [[0, 1, 2]] * 3


def test_an_ordered_canonical_answer_with_matching_neighbours_needs_a_step_for_each():
    """In order, canonical tuples that differ but match ("a" and "A" folded, 1 and 1.0 with
    epsilon 0) are two steps of the walk: one system tuple is not enough, two are; whether
    the direct search or the general one (seven columns) decides, and against a maximal answer."""
    assert not judge('(ORDERED ("a" 1) ("A" 1))', '(("a" 1))', strings="fold").correct
    assert judge('(ORDERED ("a" 1) ("A" 1))', '(("a" 1) ("a" 1))', strings="fold").correct
    wide = " 2 3 4 5 6 7"
    assert not judge(f'(ORDERED ("a"{wide}) ("A"{wide}))', f'(("a"{wide}))', strings="fold").correct
    assert judge(f'(ORDERED ("a"{wide}) ("A"{wide}))', f'(("A"{wide}) ("a"{wide}))', strings="fold").correct
    assert not judge(f"(ORDERED (1{wide}) (1.0{wide}))", f"((1{wide}))", epsilon=0).correct
    one, real_one = Number.of(1), Number.parse("1.0")
    assert find_projection([(one,)], [(one,), (real_one,)], MatchRule(epsilon=0), ordered=True) == ([[0]], None)
    assert find_projection([(one,), (one,)], [(one,), (real_one,)], MatchRule(epsilon=0), ordered=True)[1] == (0,)


def test_a_walk_by_keys_counts_steps_within_runs_of_equal_keys():
    """Identical canonical rows count once; different rows with equal keys each need a step."""
    assert _walks([(1,), (1,), (2,)], [(1,), (1,), (2,)], [(1,), (2,)])
    assert not _walks([("a",), ("A",), ("b",)], [("a",), ("a",), ("b",)], [("a",), ("b",)])
    assert _walks([("a",), ("A",), ("b",)], [("a",), ("a",), ("b",)], [("a",), ("a",), ("a",), ("b",)])
    assert not _walks([(1,), (2,)], [(1,), (2,)], [(2,), (1,)])
