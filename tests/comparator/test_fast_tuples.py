"""Tolerant set equivalence in bulk (issue 8, target 3): the aligned pre-pass only ever
covers tuples that really match, and the verdict is the pairwise scan's."""

import random
from decimal import Decimal

import pytest
from hypothesis import assume, given, strategies as st

from answerkey.comparator import tuples
from answerkey.comparator.tuples import (
    _aligned_cover,
    _cell_bits,
    _cells,
    _most_distinct_first,
    _proof_floats,
    _proof_reach,
    _proven_close,
    equivalent,
    tolerant_columns,
)
from answerkey.comparator.values import MatchRule
from answerkey.model import NIL, Number, String

EPSILONS = st.sampled_from(["0.0001", "0.01", "0.5", "2", "1e-9"])


def pairwise_equivalent(canonical, system, rule) -> bool:
    """Mutual coverage by comparing every pair (the definition)."""

    def matches(c_row, s_row):
        return all(rule.match(c, s) for c, s in zip(c_row, s_row))

    return all(any(matches(c, s) for s in system) for c in canonical) and all(
        any(matches(c, s) for c in canonical) for s in system
    )


def covered_rows_really_match(canonical, system, rule) -> None:
    tolerant = tolerant_columns(rule, canonical, system)
    if not tolerant:
        return
    uncovered_c, uncovered_s = _aligned_cover(canonical, system, rule, tolerant)
    matched = lambda c_row, s_row: all(rule.match(c, s) for c, s in zip(c_row, s_row))  # noqa: E731
    for row in set(canonical) - set(uncovered_c):
        assert any(matched(row, other) for other in system)
    for row in set(system) - set(uncovered_s):
        assert any(matched(other, row) for other in canonical)


NUMBERS = st.one_of(
    st.integers(-5, 5).map(Number.of),
    st.decimals(-100, 100, places=3, allow_nan=False).map(lambda d: Number(d, True, str(d))),
    st.sampled_from(["0.0", "1e-400", "-1e-400", "1e400", "5.", "0.99999", "1.00001"]).map(Number.parse),
    st.just(10**400).map(Number.of),
)
CELLS = st.one_of(NUMBERS, st.just(NIL))


@st.composite
def numeric_pairs(draw):
    """Two relations of numbers (sometimes NIL, sometimes an exact string column), the
    system often a nudged, shuffled copy of the canonical tuples."""
    width = draw(st.integers(1, 3))
    labels = draw(st.booleans())
    rows = draw(st.lists(st.tuples(*[CELLS] * width), min_size=1, max_size=8))
    if labels:
        rows = [row + (String(draw(st.sampled_from("ab"))),) for row in rows]
    if draw(st.booleans()):
        system = draw(st.lists(st.tuples(*[CELLS] * width), min_size=1, max_size=8))
        if labels:
            system = [row + (String(draw(st.sampled_from("ab"))),) for row in system]
    else:
        factor = draw(st.sampled_from(["1", "1.00005", "0.99995", "1.0002", "1.3"]))
        system = [
            tuple(
                Number(Decimal(v.value) * Decimal(factor), True, "x") if type(v) is Number and v.is_real else v
                for v in row
            )
            for row in rows
        ]
        system = draw(st.permutations(system))
    return rows, list(system)


@given(numeric_pairs(), EPSILONS)
def test_aligned_cover_covers_only_matching_tuples(pair, epsilon):
    """Soundness of the pre-pass: a tuple it calls covered matches some tuple of the other side."""
    canonical, system = pair
    covered_rows_really_match(canonical, system, MatchRule(epsilon=epsilon))


@given(numeric_pairs(), EPSILONS)
def test_bulk_equivalence_agrees_with_pairwise_scan(pair, epsilon):
    """With the pre-pass forced on for small inputs, equivalence is the pairwise scan's."""
    canonical, system = pair
    rule = MatchRule(epsilon=epsilon)
    threshold = tuples._ALIGN_FROM
    tuples._ALIGN_FROM = 0
    try:
        assert equivalent(canonical, system, rule) == pairwise_equivalent(canonical, system, rule)
    finally:
        tuples._ALIGN_FROM = threshold


@given(numeric_pairs(), EPSILONS, st.booleans())
def test_indexing_only_the_reachable_tuples_agrees_with_pairwise_scan(pair, epsilon, aligned):
    """With the tuples left after the pre-pass always looked up in an index of the tuples
    they can reach (the same keys where there is no tolerance), equivalence is the pairwise scan's."""
    canonical, system = pair
    rule = MatchRule(epsilon=epsilon)
    saved = tuples._FEW_NEEDLES, tuples._ALIGN_FROM
    tuples._FEW_NEEDLES, tuples._ALIGN_FROM = 0, (0 if aligned else 10**9)
    try:
        assert equivalent(canonical, system, rule) == pairwise_equivalent(canonical, system, rule)
    finally:
        tuples._FEW_NEEDLES, tuples._ALIGN_FROM = saved


def verdict_of_the_index_alone(canonical, system, rule) -> bool:
    """``equivalent`` with the bulk pass off: the exact windowed index decides every tuple."""
    threshold = tuples._ALIGN_FROM
    tuples._ALIGN_FROM = 10**9
    try:
        return equivalent(canonical, system, rule)
    finally:
        tuples._ALIGN_FROM = threshold


def big_relation(rows: int, seed: int):
    rng = random.Random(seed)
    canonical = [
        tuple(Number.of(round(rng.uniform(-1e6, 1e6), 3)) for _ in range(4)) + (Number.of(rng.randrange(50)),)
        for _ in range(rows)
    ]
    system = [
        tuple(Number.of(float(v.value) * (1 + rng.uniform(-5e-5, 5e-5))) if v.is_real else v for v in row)
        for row in canonical
    ]
    rng.shuffle(system)
    return canonical, system


@pytest.mark.parametrize("change", ["none", "real beyond epsilon", "integer off by one", "extra tuple"])
def test_large_relations_agree_with_the_index_alone(change):
    """5,000 tuples (the pre-pass on) against the exact index alone (the pre-pass off): the
    same verdict when the answer is right and after one small change that makes it wrong."""
    canonical, system = big_relation(5000, seed=8)
    if change == "real beyond epsilon":
        row = system[17]
        system[17] = (Number.of(float(row[0].value) * 1.0003),) + row[1:]
    elif change == "integer off by one":
        row = system[99]
        system[99] = row[:4] + (Number.of(row[4].value + 1),)
    elif change == "extra tuple":
        system.append(tuple(Number.of(7.5) for _ in range(5)))
    rule = MatchRule()
    assert (
        equivalent(canonical, system, rule) == verdict_of_the_index_alone(canonical, system, rule) == (change == "none")
    )


def test_integers_in_a_tolerant_column_stay_exact():
    """An integer against an integer is exact whatever epsilon: the pre-pass never calls 5 and 6 a match."""
    canonical = [(Number.of(5), Number.parse("1.5"))] * 1 + [
        (Number.of(i), Number.parse("2.5")) for i in range(7, 3000)
    ]
    system = [(Number.of(6), Number.parse("1.5"))] + [(Number.of(i), Number.parse("2.5")) for i in range(7, 3000)]
    rule = MatchRule(epsilon=0.5)
    assert not equivalent(canonical, system, rule)
    assert not pairwise_equivalent(canonical[:1], system[:1], rule)


PROOF_EPSILONS = st.sampled_from(["0.0001", "0.01", "0.5", "0.999", "1e-9", "3e-13"])
MAGNITUDES = st.sampled_from(
    [0, 1, 10**-3, 10**6, Decimal("1e-279"), Decimal("1e-300"), Decimal("1e-330"), Decimal("1e300"), Decimal("1e400")]
)


@st.composite
def near_boundary(draw):
    """A canonical value and a system value at, just inside or just outside |s - c| = |c| * eps
    (off by a relative 1e-30 to 1e-10, beyond float precision either way), or anywhere."""
    epsilon = Decimal(draw(PROOF_EPSILONS))
    canonical = draw(st.decimals(-10, 10, places=6, allow_nan=False, allow_infinity=False)) * Decimal(draw(MAGNITUDES))
    if draw(st.booleans()):
        system = canonical + draw(st.sampled_from([1, -1])) * abs(canonical) * epsilon
        system += draw(st.sampled_from([0, 1, -1])) * abs(canonical) * Decimal(10) ** -draw(st.integers(10, 30))
    else:
        system = draw(st.decimals(-10, 10, allow_nan=False, allow_infinity=False)) * Decimal(draw(MAGNITUDES))
    as_int = draw(st.booleans()) and canonical == canonical.to_integral_value()
    return (int(canonical) if as_int else canonical), system, epsilon


@given(near_boundary())
def test_a_float_proof_is_never_wrong(case):
    """Soundness of the float shortcut: whenever it proves a pair close, the exact test agrees
    (at the boundary, and for zeros, tiny, huge and overflowing values)."""
    canonical, system, epsilon = case
    reach = _proof_reach(epsilon)
    if reach is None:
        return
    proven = _proven_close(_proof_floats([canonical]), _proof_floats([system]), reach)[0]
    if proven:
        assert MatchRule(epsilon=epsilon).numbers_close(canonical, system)


def test_float_proofs_are_decisive_away_from_the_boundary():
    """Clear matches are proven and clear mismatches are not, so the bulk pass pairs nearly everything."""
    reach = _proof_reach(Decimal("0.0001"))
    canonical = _proof_floats([Decimal("53200.0"), Decimal(0), 10**400, Decimal("-2.5")])
    system = _proof_floats([Decimal("53198.8"), Decimal(0), 10**400, Decimal("-2.50001")])
    # 10**400 against itself matches, but no float can show it: the exact test will.
    assert _proven_close(canonical, system, reach) == [True, True, False, True]
    assert _proven_close(canonical[:1], _proof_floats([Decimal("53190.9")]), reach) == [False]


def test_floats_too_small_or_too_large_prove_nothing():
    """A non-zero value that rounds away, or a value beyond the float range, becomes NaN (never
    equal to itself, so it proves nothing); an exact zero stays 0.0."""
    floats = _proof_floats(
        [-(10**400), Decimal("1e-300"), Decimal(0), Decimal("-0.0"), Decimal("1e400"), Decimal("1.5")]
    )
    assert [number != number for number in floats] == [True, True, False, False, True, False]
    assert floats[2:4] + floats[5:] == [0.0, 0.0, 1.5]


@pytest.mark.parametrize("epsilon, expected", [("0.0001", True), ("1e-13", False), ("1", False), ("2", False)])
def test_floats_prove_only_for_epsilons_with_room(epsilon, expected):
    """Below about 2e-13 no margin is left; from 1 on, |c| * epsilon may overflow: the exact index decides."""
    assert (_proof_reach(Decimal(epsilon)) is not None) == expected


@given(
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: abs(x) > 1e-300),
    st.sampled_from([1e-4, 0.01, 0.5, 1e-9]),
    st.floats(-1, 1),
)
def test_a_value_and_its_match_share_a_grid_cell_or_neighbouring_ones(value, epsilon, fraction):
    """The alignment grid is at least four epsilons wide everywhere, so a match (within a
    relative epsilon) is at most one cell over, for negative values too."""
    match = value * (1 + fraction * epsilon)
    assume(abs(match) < 1e308)
    own, other = _cells([value, match], _cell_bits(epsilon))
    assert abs(own - other) <= 1


def crowded_relation(shape: str, rows: int, seed: int):
    """Shapes that defeat a key on the first two tolerant columns: a 30 x 30 grid of
    repeated values beside one varied column, and one dense column beside a column of zeros
    and a column of two values (its nudged values crowd the cells and match several tuples)."""
    rng = random.Random(seed)
    if shape == "grid":
        axis = [round(rng.uniform(1, 1000), 2) for _ in range(30)]
        canonical = [
            (Number.of(axis[i % 30]), Number.of(axis[i // 30 % 30]), Number.of(round(rng.uniform(1, 1e6), 3)))
            for i in range(rows)
        ]
    else:
        canonical = [
            (Number.parse("0.0"), Number.of(round(rng.uniform(1, 1e6), 3)), Number.of(1.5 if i % 3 else 0.0))
            for i in range(rows)
        ]
    system = [tuple(Number.of(float(v.value) * (1 + rng.uniform(-5e-5, 5e-5))) for v in row) for row in canonical]
    rng.shuffle(system)
    return canonical, system


@pytest.mark.parametrize("shape", ["grid", "dense"])
def test_crowded_relations_are_paired_in_bulk(shape):
    """With the most distinct column first, the bulk pass leaves under 2% of the tuples to the
    exact index (keying on the first columns as given would leave most of the grid)."""
    canonical, system = crowded_relation(shape, 6000, seed=3)
    rule = MatchRule()
    columns = list(zip(*canonical)), list(zip(*system))
    tolerant = _most_distinct_first(tolerant_columns(rule, canonical, system), columns[0])
    assert tolerant[0] == (2 if shape == "grid" else 1)
    uncovered_c, uncovered_s = _aligned_cover(canonical, system, rule, tolerant, columns)
    assert len(uncovered_c) + len(uncovered_s) < 0.02 * (len(canonical) + len(system))


@pytest.mark.parametrize("shape", ["grid", "dense"])
@pytest.mark.parametrize("change", ["none", "real beyond epsilon"])
def test_crowded_relations_agree_with_the_index_alone(shape, change):
    """Where the bulk pass leaves tuples to the index, the verdict is still the index's."""
    canonical, system = crowded_relation(shape, 3000, seed=4)
    if change == "real beyond epsilon":
        row = system[5]
        system[5] = row[:1] + (Number.of(float(row[1].value) * 1.0003),) + row[2:]
    rule = MatchRule()
    assert equivalent(canonical, system, rule) == verdict_of_the_index_alone(canonical, system, rule)


def test_most_distinct_first_orders_tolerant_columns_by_their_distinct_values():
    columns = [
        tuple(Number.of(float(i % 3)) for i in range(100)),
        ("x",) * 100,
        tuple(Number.of(float(i)) for i in range(100)),
        tuple(Number.of(0.5) for _ in range(100)),
    ]
    assert _most_distinct_first((0, 2, 3), columns) == (2, 0, 3)
    assert _most_distinct_first((3,), columns) == (3,)
