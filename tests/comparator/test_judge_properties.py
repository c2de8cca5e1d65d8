"""Invariants of the comparator, checked with Hypothesis and an exhaustive oracle."""

import itertools
from decimal import Decimal

from hypothesis import assume, given, strategies as st

from answerkey import judge
from answerkey.comparator.tuples import equivalent
from answerkey.comparator.values import MatchRule
from answerkey.model import Number, Relation, String
from answerkey.testing.strategies import relations

non_empty = relations(min_rows=1, max_rows=6, max_cols=3)
pairs_of_relations = st.tuples(non_empty, relations(min_rows=1, max_rows=6, max_cols=4))


@st.composite
def permuted(draw, relation: Relation, duplicate: bool = True):
    """The relation with rows shuffled, columns permuted and (optionally) rows duplicated."""
    order = draw(st.permutations(range(relation.arity)))
    rows = [tuple(row[i] for i in order) for row in relation.rows]
    if duplicate and rows:
        rows += draw(st.lists(st.sampled_from(rows), max_size=3))
    rows = draw(st.permutations(rows))
    return Relation(rows)


def with_fresh_column(relation: Relation, tag: str) -> Relation:
    """Add a column of strings that occur nowhere else, so it can never be mapped."""
    return Relation([row + (String(f"\x00fresh{tag}{i}"),) for i, row in enumerate(relation.rows)])


@given(non_empty, st.data())
def test_a_relation_is_correct_against_any_shuffle_of_itself(relation, data):
    """Row order, column order, duplicate rows and extra columns never make a correct answer wrong."""
    system = data.draw(permuted(relation))
    system = with_fresh_column(system, "x")
    assert judge(relation, system).correct


@given(pairs_of_relations, st.data())
def test_verdict_is_invariant_under_row_order_column_order_and_duplicates(pair, data):
    """Shuffling, permuting and duplicating the system answer's tuples never changes the verdict."""
    canonical, system = pair
    before = judge(canonical, system).correct
    assert judge(canonical, data.draw(permuted(system))).correct == before


@given(pairs_of_relations)
def test_verdict_is_invariant_under_added_unmatchable_columns(pair):
    """An added column whose values match nothing never changes the verdict."""
    canonical, system = pair
    assert judge(canonical, with_fresh_column(system, "y")).correct == judge(canonical, system).correct


EPSILONS = st.sampled_from(["0.0001", "0.01", "0.5", "0.001"])
CANONICAL_REALS = st.decimals(min_value=Decimal("-1e6"), max_value=Decimal("1e6"), places=3, allow_nan=False)


def real(value: Decimal) -> Number:
    return Number.parse(format(value, "f") + ("" if "." in format(value, "f") else "."))


@given(CANONICAL_REALS, EPSILONS, st.booleans())
def test_epsilon_boundary_just_inside_and_just_outside(value, epsilon, above):
    """s = c +/- |c|*eps is correct; one step further (1e-12) is incorrect."""
    assume(value != 0)
    allowed = abs(value) * Decimal(epsilon)
    sign = 1 if above else -1
    canonical = Relation([[real(value)]])
    on_boundary = Relation([[real(value + sign * allowed)]])
    beyond = Relation([[real(value + sign * (allowed + Decimal("1e-12")))]])
    assert judge(canonical, on_boundary, epsilon=float(epsilon)).correct
    assert not judge(canonical, beyond, epsilon=float(epsilon)).correct


def naive_correct(canonical: Relation, system: Relation, rule: MatchRule) -> bool:
    """The H89-2019 section 4 procedure, literally: try every injective column mapping."""
    if not canonical.rows or not system.rows:
        return not canonical.rows and not system.rows
    for mapping in itertools.permutations(range(system.arity), canonical.arity):
        reduced = list(dict.fromkeys(tuple(row[j] for j in mapping) for row in system.rows))
        covered = all(
            any(all(rule.match(c, s) for c, s in zip(c_row, s_row)) for s_row in reduced) for c_row in canonical.rows
        )
        covering = all(
            any(all(rule.match(c, s) for c, s in zip(c_row, s_row)) for c_row in canonical.rows) for s_row in reduced
        )
        if covered and covering:
            return True
    return False


small_numeric = relations(min_rows=1, max_rows=5, min_cols=1, max_cols=3, types=("integer", "real", "boolean"))


@given(
    small_numeric,
    relations(min_rows=1, max_rows=5, min_cols=1, max_cols=4, types=("integer", "real", "boolean")),
    st.sampled_from([0, 0.0001, 0.5]),
)
def test_mapping_search_agrees_with_exhaustive_oracle(canonical, system, epsilon):
    """The pruned search and the exhaustive enumeration give the same verdict."""
    rule = MatchRule(epsilon=epsilon)
    assert judge(canonical, system, epsilon=epsilon).correct == naive_correct(canonical, system, rule)


@given(st.data())
def test_mapping_search_agrees_with_oracle_on_shared_domains(data):
    """Small 0/1 columns (one shared value domain) stress the search; the oracle decides."""
    width = data.draw(st.integers(1, 4))
    rows = data.draw(st.lists(st.lists(st.integers(0, 1), min_size=width, max_size=width), min_size=1, max_size=6))
    extra = data.draw(st.integers(0, 2))
    system_rows = [data.draw(st.permutations(r + [data.draw(st.integers(0, 1)) for _ in range(extra)])) for r in rows]
    canonical, system = Relation.from_rows(rows), Relation.from_rows(system_rows)
    assert judge(canonical, system).correct == naive_correct(canonical, system, MatchRule())


@given(
    st.lists(st.tuples(st.decimals(-100, 100, places=2, allow_nan=False)), min_size=1, max_size=8),
    st.sampled_from([0, 0.0001, 0.01, 0.5, 2]),
)
def test_tolerant_set_equivalence_agrees_with_pairwise_scan(values, epsilon):
    """The windowed index gives the same answer as comparing every pair."""
    rule = MatchRule(epsilon=epsilon)
    canonical = [(real(v),) for (v,) in values]
    system = [(real(v * Decimal("1.001")),) for (v,) in values[::-1]]
    pairwise = all(any(rule.match(c[0], s[0]) for s in system) for c in canonical) and all(
        any(rule.match(c[0], s[0]) for c in canonical) for s in system
    )
    assert equivalent(canonical, system, rule) == pairwise
