"""The absolute tolerance floor: |s - c| <= max(|c| * epsilon, abs_epsilon), exactly, on every
path of the comparator; off by default."""

import random
from decimal import Decimal, localcontext

import pytest
from hypothesis import given, strategies as st

from answerkey import judge
from answerkey.comparator import MatchRule
from answerkey.comparator.values import tolerance_window
from answerkey.model import Number, Relation

# Decimals of a few digits at exponents from 1e-30 to 1e6, both signs.
decimals = st.builds(
    lambda digits, exponent: Decimal(digits).scaleb(exponent),
    st.integers(-99_999, 99_999),
    st.integers(-30, 6),
)
floors = st.builds(lambda digits, exponent: Decimal(digits).scaleb(exponent), st.integers(1, 999), st.integers(-20, 3))
epsilons = st.sampled_from([Decimal(0), Decimal("0.0001"), Decimal("0.01"), Decimal("0.5")])


def _allowed(canonical: Decimal, epsilon: Decimal, floor: Decimal) -> Decimal:
    return max(abs(canonical) * epsilon, floor)


def _real(value: Decimal) -> Number:
    return Number.parse(format(value, "E"))


@given(decimals, epsilons, floors, st.sampled_from([1, -1]))
def test_a_difference_equal_to_the_allowance_matches_and_one_step_more_does_not(canonical, epsilon, floor, sign):
    """On both sides of the canonical number: off by exactly max(|c| * epsilon, A) matches, off
    by that plus the smallest step of its last digit does not (exact decimals, no rounding)."""
    rule = MatchRule(epsilon=epsilon, abs_epsilon=floor)
    with localcontext() as exact:
        exact.prec = 200  # these sums exactly
        allowed = _allowed(canonical, epsilon, floor)
        step = Decimal(1).scaleb(min(allowed.as_tuple().exponent, canonical.as_tuple().exponent) - 1)
        at, beyond = canonical + sign * allowed, canonical + sign * (allowed + step)
    assert rule.numbers_close(canonical, at)
    assert not rule.numbers_close(canonical, beyond)
    assert rule.match(_real(canonical), _real(at))
    assert not rule.match(_real(canonical), _real(beyond))


@given(decimals, decimals, epsilons, floors)
def test_the_window_holds_every_match(canonical, system, epsilon, floor):
    """Every number a canonical number matches lies in its tolerance window, and every
    canonical number a system number matches in the system number's (the searches' bounds)."""
    rule = MatchRule(epsilon=epsilon, abs_epsilon=floor)
    if not rule.numbers_close(canonical, system):
        return
    low, high = tolerance_window(canonical, epsilon, canonical=True, abs_epsilon=floor)
    assert low <= system <= high
    window = rule.window(system, canonical=False)
    assert window is not None  # epsilon < 1
    assert window[0] <= canonical <= window[1]


@pytest.mark.parametrize(
    "canonical, system",
    [
        ("((0.0))", "((1e-17))"),  # issue 26
        ("((0.0))", "((5.551115123125783e-17))"),  # SQLite's 0.1 + 0.2 - 0.3
        ("((0.0 1))", "((-1e-9 1))"),  # on the boundary
    ],
)
def test_numbers_near_zero_match_only_with_the_floor(canonical, system):
    """A relative epsilon allows nothing around 0: incorrect by default, correct with a floor of 1e-9."""
    assert not judge(canonical, system).correct
    assert judge(canonical, system, abs_epsilon=1e-9).correct
    assert judge(canonical, system, abs_epsilon="1e-9", epsilon=0).correct


def test_off_by_default_and_in_the_signature_only_when_set():
    """abs_epsilon 0 leaves the rule, its description and the signature as they were."""
    assert MatchRule().describe() == {"epsilon": "0.0001", "strings": "exact"}
    assert MatchRule(abs_epsilon=0) == MatchRule()
    assert str(judge("1.0", "1.0").signature).startswith("eps:0.0001|scalars:atis|strings:exact|v:")
    verdict = judge("((0.0))", "((1e-17))", abs_epsilon="1e-9")
    assert str(verdict.signature).startswith("eps:0.0001|abs_eps:0.000000001|scalars:atis|strings:exact|v:")


def test_integers_stay_exact():
    """The floor is a rule for reals: 1 against 2 stays incorrect under a floor of 10."""
    assert not judge("((1))", "((2))", abs_epsilon=10).correct
    assert judge("((1))", "((2.0))", abs_epsilon=10).correct


def test_explanation_shows_the_floor_as_the_allowance():
    """Out of tolerance, the allowance shown is max(|c| * epsilon, A)."""
    verdict = judge("((0.0 1))", "((0.5 1))", abs_epsilon="0.25")
    explanation = verdict.explanations()[0]
    assert explanation.lines()[-1] == "  0.5 for 0.0: off by 0.5, more than 0.25"
    assert explanation.document()["out_of_tolerance"] == [
        {"canonical": "0.0", "system": "0.5", "difference": "0.5", "allowed": "0.25"}
    ]


@pytest.mark.parametrize("bad", [-1, "-0.1", float("inf"), float("nan"), Decimal("NaN")])
def test_a_bad_floor_is_refused(bad):
    """A negative or non-finite abs_epsilon is a ValueError naming it."""
    with pytest.raises(ValueError, match=r"^abs_epsilon must be a finite number >= 0, not "):
        judge("1.0", "1.0", abs_epsilon=bad)


@pytest.mark.parametrize("rows", [3, 40, 3000])
@pytest.mark.parametrize("columns", [1, 3])
def test_large_relations_take_the_floor_on_every_search_path(rows, columns):
    """Relations of many tuples of tiny reals, moved by up to the floor, shuffled, an extra
    column: correct with the floor (whatever path the search takes), incorrect without it and
    incorrect when one number moves by one step beyond it."""
    generator = random.Random(rows * 10 + columns)
    floor = Decimal("1E-9")
    canonical_rows = [
        tuple(Number.parse(f"{index * 7 + column}.{generator.randrange(10**6):06d}") for column in range(columns))
        + (Number.parse(f"{generator.randrange(10**6) * 1e-18:.3E}"),)
        for index in range(rows)
    ]
    moved = []
    for row in canonical_rows:
        shift = Decimal(generator.randrange(-1000, 1001)).scaleb(-12)  # |shift| <= 1e-9
        near_zero = Decimal(row[-1].value) + shift
        moved.append((Number.of(generator.random()), *row[:-1], _real(near_zero)))
    generator.shuffle(moved)
    canonical, system = Relation(canonical_rows), Relation(moved)
    assert judge(canonical, system, abs_epsilon=floor).correct
    assert not judge(canonical, system).correct
    beyond = list(moved)
    original = canonical_rows[0]
    position = next(i for i, row in enumerate(moved) if row[1:-1] == original[:-1])
    beyond[position] = (
        *moved[position][:-1],
        _real(Decimal(original[-1].value) + floor + Decimal("1E-25")),
    )
    assert not judge(canonical, Relation(beyond), abs_epsilon=floor).correct
