"""Reference-to-actual step assignment (answerkey.steps.matching)."""

import itertools

import pytest
from hypothesis import given, strategies as st

from answerkey.steps.matching import assignment, best_matching, greedy_matching


def brute_force_best(weights):
    rows, columns = len(weights), len(weights[0]) if weights else 0
    best = 0.0
    for chosen in itertools.permutations(range(columns + rows), rows):
        best = max(best, sum(weights[r][c] for r, c in enumerate(chosen) if c < columns))
    return best


score_values = st.sampled_from([0.0, 0.0, 0.25, 0.5, 1.0])


@st.composite
def score_tables(draw):
    references = draw(st.integers(0, 4))
    actuals = draw(st.integers(0, 5))
    return [[draw(score_values) for _ in range(actuals)] for _ in range(references)], actuals


@given(score_tables())
def test_best_matching_is_optimal_and_valid(table):
    """The total equals the brute-force optimum; each actual step is used at most once; only
    positive scores are matches."""
    weights, actuals = table
    matching = best_matching(len(weights), list(range(actuals)), lambda r, a: weights[r][a])
    used = [actual for actual, _ in matching.values()]
    assert len(used) == len(set(used))
    assert all(score > 0 and weights[r][a] == score for r, (a, score) in matching.items())
    expected = brute_force_best(weights) if weights and actuals else 0.0
    assert sum(score for _, score in matching.values()) == pytest.approx(expected)


@given(score_tables())
def test_greedy_kept_when_it_is_optimal(table):
    """Whenever graphrag-eval's greedy matching is optimal, it is the matching returned."""
    weights, actuals = table
    candidates = list(range(actuals))
    greedy = greedy_matching(len(weights), candidates, lambda r, a: weights[r][a])
    best = best_matching(len(weights), candidates, lambda r, a: weights[r][a])
    if sum(s for _, s in greedy.values()) == pytest.approx(sum(s for _, s in best.values())):
        assert best == greedy


def test_score_is_called_once_per_pair():
    """Comparisons can be expensive (SPARQL results): each pair is scored at most once."""
    calls = []

    def score(reference, actual):
        calls.append((reference, actual))
        return {(0, 1): 1.0, (0, 2): 1.0, (1, 2): 1.0}.get((reference, actual), 0.0)

    assert best_matching(2, [1, 2], score) == {0: (1, 1.0), 1: (2, 1.0)}
    assert len(calls) == len(set(calls))


def test_assignment_rejects_more_rows_than_columns():
    """The Hungarian step needs at least as many columns as rows."""
    with pytest.raises(ValueError, match="more rows than columns"):
        assignment([[1.0], [1.0]])
