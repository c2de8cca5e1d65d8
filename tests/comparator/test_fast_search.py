"""The mapping search's stronger invariants (issue 8, target 2), checked against the
exhaustive oracle ``naive_correct`` of test_judge_properties.py."""

import importlib.util
import random
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from answerkey import judge
from answerkey.comparator._colours import PAIR_COUNT_BUDGET as _PAIR_COUNT_BUDGET, ColumnColours as _ColumnColours
from answerkey.comparator.search import _KeyedSides, find_mapping
from answerkey.comparator.values import MatchRule
from answerkey.model import NIL, Number, Relation, String


def _load_oracle():
    path = Path(__file__).with_name("test_judge_properties.py")
    spec = importlib.util.spec_from_file_location("_judge_properties_oracle", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.naive_correct


naive_correct = _load_oracle()


def bits(rows):
    return Relation.from_rows(rows)


def adversarial(k: int, rows: int = 50, seed: int = 8, flip: bool = True):
    """benchmarks/run.py's input: k columns of random 0/1, the system's columns reversed and
    (with ``flip``) one cell flipped."""
    rng = random.Random(seed * 1000 + k)
    canonical = [[rng.randint(0, 1) for _ in range(k)] for _ in range(rows)]
    system = [list(reversed(row)) for row in canonical]
    if flip:
        system[rng.randrange(rows)][rng.randrange(k)] ^= 1
    return bits(canonical), bits(system)


@pytest.mark.parametrize("k", [4, 6, 7])
@pytest.mark.parametrize("flip", [False, True])
def test_adversarial_inputs_agree_with_the_oracle(k, flip):
    """The benchmark's shared-domain inputs, small enough for the oracle: same verdict."""
    canonical, system = adversarial(k, rows=30, flip=flip)
    assert judge(canonical, system).correct == naive_correct(canonical, system, MatchRule())


@pytest.mark.parametrize("k", [8, 12])
def test_adversarial_benchmark_verdicts(k):
    """k = 8 and 12 (past the oracle): the reversed columns are found; with one flipped cell
    the distinct tuples differ, which the counting invariant proves without a search."""
    canonical, system = adversarial(k, flip=False)
    verdict = judge(canonical, system)
    assert verdict.correct and verdict.mapping == tuple(reversed(range(k)))
    canonical, flipped = adversarial(k)
    assert set(canonical.rows) != {tuple(reversed(row)) for row in flipped.rows}
    assert not judge(canonical, flipped).correct


def test_distinct_tuple_counts_decide_with_all_columns_mapped():
    """k = m: a system answer with another number of distinct tuples is incorrect; duplicates
    on either side do not count (set semantics)."""
    canonical = bits([[0, 1], [1, 0], [1, 1], [1, 1]])
    assert judge(canonical, bits([[1, 0], [0, 1], [1, 1]])).correct
    assert not judge(canonical, bits([[1, 0], [0, 1], [1, 1], [0, 0]])).correct
    assert not judge(canonical, bits([[1, 0], [0, 1]])).correct


def test_counts_are_not_used_with_extra_system_columns():
    """k < m: reducing merges tuples, so the canonical answer may have fewer distinct tuples
    than the system answer and still be correct (H89-2019 section 4: extra columns allowed)."""
    canonical = bits([[0], [1]])
    system = bits([[0, 0], [0, 1], [1, 0], [1, 1]])
    assert judge(canonical, system).correct
    assert naive_correct(canonical, system, MatchRule())


def test_counts_are_not_used_with_a_tolerance():
    """With epsilon, one system tuple may cover two canonical tuples: counts would wrongly
    reject this correct answer."""
    canonical = Relation([[Number.parse("1.0"), String("a")], [Number.parse("1.00001"), String("a")]])
    system = Relation([[String("a"), Number.parse("1.0")]])
    assert judge(canonical, system).correct
    assert naive_correct(canonical, system, MatchRule())


def test_counts_use_match_keys_for_folded_strings():
    """strings=fold: "a" and "A" are one key, so the canonical answer has one distinct tuple
    per key and the counts agree with the oracle."""
    canonical = Relation([[String("a"), String("x")], [String("A"), String("x")]])
    system = Relation([[String("X"), String("a")]])
    rule = MatchRule(strings="fold")
    assert judge(canonical, system, strings="fold").correct == naive_correct(canonical, system, rule) is True
    assert not judge(canonical, system).correct


def test_refinement_splits_columns_that_value_counts_cannot():
    """Two columns with equal value counts are told apart by their pair counts with a third."""
    canonical_columns = [(0, 0, 1, 1), (0, 1, 0, 1), (0, 0, 1, 0)]
    colours = _ColumnColours(canonical_columns, [canonical_columns[i] for i in (1, 2, 0)])
    assert colours.canonical[0] == colours.canonical[1]  # equal counts before refining
    assert colours.refine()
    assert colours.canonical[0] != colours.canonical[1]
    assert [colours.system.index(c) for c in colours.canonical] == [2, 0, 1]


def test_refinement_proves_no_mapping_from_pair_counts():
    """Equal value counts per column, unequal pair counts: no mapping, without a search."""
    canonical_columns = [(0, 0, 1, 1), (0, 1, 0, 1)]
    system_columns = [(0, 0, 1, 1), (0, 0, 1, 1)]
    colours = _ColumnColours(canonical_columns, system_columns)
    assert not colours.refine()


def test_symmetric_columns_leave_the_search_to_depth_first():
    """All eight 3-bit tuples: every column looks alike to any invariant; the search finds a
    mapping anyway (here, any permutation works)."""
    cube = [[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    assert judge(bits(cube), bits([row[::-1] for row in cube])).correct


def test_refinement_respects_its_budget():
    """Past the pair-count budget the colours stay value-count colours (the search still decides)."""
    rows = _PAIR_COUNT_BUDGET // 4 + 1
    column = tuple(i % 2 for i in range(rows))
    colours = _ColumnColours([column, column], [column, column])
    before = list(colours.canonical)
    assert colours.refine()
    assert colours.canonical == before


def test_keyed_refinement_rejects_more_canonical_tuples_than_system_tuples():
    """Invariant 2: the reduced system answer never has more distinct tuples than the system."""
    sides = _KeyedSides([(1, 2), (2, 1), (3, 3)], [(1, 2, 9), (2, 1, 9)], MatchRule())
    assert sides.refine([[0, 1], [0, 1]]) is None


@st.composite
def shared_domain_pairs(draw, extra_columns: bool):
    """(canonical, system) over one small value domain, the system a column permutation of the
    canonical tuples with tuples dropped, duplicated or one cell changed."""
    width = draw(st.integers(1, 4))
    domain = draw(st.sampled_from([(0, 1), (0, 1, 2), ("a", "b")]))
    cell = st.sampled_from(domain)
    rows = draw(st.lists(st.lists(cell, min_size=width, max_size=width), min_size=1, max_size=7))
    order = draw(st.permutations(range(width)))
    system = [[row[i] for i in order] for row in rows]
    system += [list(row) for row in draw(st.lists(st.sampled_from(system), max_size=3))]
    edit = draw(st.sampled_from(["none", "drop", "change", "nil"]))
    if edit == "drop" and len(system) > 1:
        system.pop(draw(st.integers(0, len(system) - 1)))
    elif edit == "change":
        system[draw(st.integers(0, len(system) - 1))][draw(st.integers(0, width - 1))] = draw(cell)
    elif edit == "nil":
        system[draw(st.integers(0, len(system) - 1))][draw(st.integers(0, width - 1))] = None
    if extra_columns:
        for row in system:
            row.extend(draw(st.lists(cell, min_size=1, max_size=1)))
    return Relation.from_rows(rows), Relation.from_rows(system)


@given(shared_domain_pairs(extra_columns=False))
def test_all_columns_mapped_agrees_with_oracle(pair):
    """k = m over one shared domain (counts and refinement in play): the oracle's verdict."""
    canonical, system = pair
    assert judge(canonical, system).correct == naive_correct(canonical, system, MatchRule())


@given(shared_domain_pairs(extra_columns=True))
def test_extra_columns_agree_with_oracle(pair):
    """k < m over one shared domain (no counting): the oracle's verdict."""
    canonical, system = pair
    assert judge(canonical, system).correct == naive_correct(canonical, system, MatchRule())


@given(shared_domain_pairs(extra_columns=False), st.sampled_from(["exact", "fold"]))
def test_mapping_found_is_a_valid_mapping(pair, strings):
    """When the search answers with a mapping, reducing by it gives the canonical tuples."""
    canonical, system = pair
    rule = MatchRule(strings=strings)
    mapping = find_mapping(canonical.rows, system.rows, rule)
    if mapping is not None:
        reduced = {tuple(rule.key(row[j]) for j in mapping) for row in system.rows}
        assert reduced == {tuple(map(rule.key, row)) for row in canonical.rows}


@given(
    st.lists(st.lists(st.sampled_from(["0.5", "0.50001", "1.5", "2"]), min_size=2, max_size=2), min_size=1, max_size=5),
    st.sampled_from([0, 0.0001]),
)
def test_reals_with_and_without_tolerance_agree_with_oracle(rows, epsilon):
    """Reals near each other, tolerant (no counting) or exact (counting on keys): the oracle's verdict."""
    canonical = Relation([[Number.parse(text) for text in row] for row in rows])
    system = Relation([[Number(Decimal(text), True, text) for text in reversed(row)] for row in rows[1:] or rows])
    rule = MatchRule(epsilon=epsilon)
    assert judge(canonical, system, epsilon=epsilon).correct == naive_correct(canonical, system, rule)


def test_keys_agree_between_plain_and_mixed_columns():
    """Columns of strings and integers with NIL among them (keyed by their plain text and int)
    give the oracle's verdicts."""
    canonical = Relation([[String("a"), Number.of(1)], [String("b"), Number.of(2)]])
    system = Relation([[Number.of(1), String("a")], [NIL, NIL], [Number.of(2), String("b")]])
    assert not judge(canonical, system).correct  # the NIL tuple is extra
    system = Relation([[Number.of(1), String("a")], [Number.of(2), String("b")], [Number.of(2), NIL]])
    assert judge(Relation([[String("a")], [String("b")], [NIL]]), system).correct
    assert naive_correct(Relation([[String("a")], [String("b")], [NIL]]), system, MatchRule())
