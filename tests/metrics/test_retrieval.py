"""Ranked-retrieval metrics with trec_eval's definitions (answerkey.metrics.retrieval)."""

import math

import pytest
from hypothesis import given, strategies as st

from answerkey.metrics import average_precision, ndcg_at_k, precision_at_k, recall_at_k, reciprocal_rank
from answerkey.metrics.retrieval import RETRIEVAL_METRICS

# Known values: the issue (#6) and graphrag-eval 4.0's README "Retrieval Evaluation".
CASES = [
    # (metric, relevant, retrieved, k, expected, source)
    (recall_at_k, {1, 3, 5, 6}, [1, 4, 3, 5, 7], 5, 0.75, "graphrag-eval README recall@5 example"),
    (average_precision, {1, 3, 5, 6}, [1, 4, 3, 5, 7], None, (1 + 2 / 3 + 3 / 4) / 4, "issue #6: AP = 0.6041666..."),
    (
        average_precision,
        {1, 2, 5, 8},
        [1, 3, 2, 4, 5, 6, 7, 8],
        None,
        (1 + 2 / 3 + 3 / 5 + 4 / 8) / 4,
        "issue #6: AP = 0.6916666...",
    ),
    (recall_at_k, {1, 3, 5, 7, 9}, list(range(1, 11)), 5, 0.6, "issue #6: recall@5 = 0.6"),
    (precision_at_k, {1, 3, 5, 7, 9}, list(range(1, 11)), 5, 0.6, "3 of the top 5"),
    (precision_at_k, {1, 3}, [1, 2], 4, 0.25, "trec_eval P@k divides by k even for a short list"),
    (precision_at_k, {1, 3}, [1, 2], None, 0.5, "k=None: divide by the list length"),
    (reciprocal_rank, {5, 7}, [1, 4, 5, 7], None, 1 / 3, "first relevant at rank 3"),
    (reciprocal_rank, {5}, [1, 4, 5], 2, 0.0, "relevant id below the cutoff"),
    (ndcg_at_k, {2}, [1, 2], None, 1 / math.log2(3), "one relevant at rank 2"),
    (ndcg_at_k, {1, 2}, [2, 1, 3], 2, 1.0, "ideal ranking"),
    (ndcg_at_k, {"a": 3, "b": 1}, ["b", "a"], None, (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)), "graded gains"),
    # Duplicates count once: trec_eval scores each document once.
    (recall_at_k, {1, 2}, [1, 1, 1, 2], 2, 1.0, "duplicates are dropped before the cutoff"),
    (average_precision, {1, 2}, [1, 1, 2], None, 1.0, "a duplicate neither scores nor takes a rank"),
    (precision_at_k, {1}, [1, 1], 2, 0.5, "a duplicate hit is not a second hit"),
]


@pytest.mark.parametrize("metric, relevant, retrieved, k, expected, source", CASES)
def test_known_values(metric, relevant, retrieved, k, expected, source):
    """Each documented example gives its documented value."""
    assert metric(relevant, retrieved, k) == pytest.approx(expected, abs=1e-12), source


def test_documented_decimal_expansions():
    """The issue's decimal expansions: AP 0.6041666... and 0.6916666...."""
    assert f"{average_precision({1, 3, 5, 6}, [1, 4, 3, 5, 7]):.7f}" == "0.6041667"
    assert f"{average_precision({1, 2, 5, 8}, [1, 3, 2, 4, 5, 6, 7, 8]):.7f}" == "0.6916667"


@pytest.mark.parametrize("metric", list(RETRIEVAL_METRICS.values()))
def test_no_relevant_items_scores_zero(metric):
    """With nothing relevant every metric is 0.0 rather than a division by zero."""
    assert metric(set(), [1, 2, 3], None) == 0.0


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_bad_k_is_rejected(k):
    """k must be a positive integer (or None for the whole list)."""
    with pytest.raises(ValueError, match="k must be a positive integer"):
        recall_at_k({1}, [1], k)


ids = st.integers(0, 12)


@given(st.sets(ids, max_size=6), st.lists(ids, max_size=15), st.one_of(st.none(), st.integers(1, 15)))
def test_metrics_are_fractions_and_consistent(relevant, retrieved, k):
    """Every metric is in [0, 1]; AP <= recall; hits agree between recall and precision."""
    scores = {name: metric(relevant, retrieved, k) for name, metric in RETRIEVAL_METRICS.items()}
    assert all(0.0 <= value <= 1.0 + 1e-12 for value in scores.values())
    assert scores["average_precision"] <= scores["recall"] + 1e-12
    if relevant:
        ranking = list(dict.fromkeys(retrieved))[:k] if k else list(dict.fromkeys(retrieved))
        hits = len(set(ranking) & relevant)
        assert scores["recall"] == pytest.approx(hits / len(relevant))
        if ranking:
            assert scores["precision"] == pytest.approx(hits / (k or len(ranking)))


@given(st.sets(ids, min_size=1, max_size=6), st.lists(ids, max_size=15))
def test_perfect_ranking_scores_one(relevant, rest):
    """Relevant ids first (in any order) gives AP, RR and nDCG of 1."""
    ranking = sorted(relevant) + [doc for doc in rest if doc not in relevant]
    assert average_precision(relevant, ranking) == pytest.approx(1.0)
    assert reciprocal_rank(relevant, ranking) == 1.0
    assert ndcg_at_k(relevant, ranking) == pytest.approx(1.0)


def test_graphrag_eval_keyword_names_run_as_pasted():
    """graphrag-eval 4.0's README calls take relevant_docs= and retrieved_docs= (issue 16, item 6)."""
    assert recall_at_k(relevant_docs={1, 3, 5, 6}, retrieved_docs=[1, 4, 3, 5, 7], k=5) == 0.75
    assert average_precision(relevant_docs={1, 3, 5, 6}, retrieved_docs=[1, 4, 3, 5, 7]) == pytest.approx(0.6041667)
    for metric in RETRIEVAL_METRICS.values():
        assert metric(relevant_docs={2}, retrieved_docs=[1, 2], k=2) == metric({2}, [1, 2], k=2)


def test_a_name_given_both_ways_is_refused():
    """relevant= and relevant_docs= together are a TypeError naming both."""
    with pytest.raises(TypeError, match=r"recall_at_k\(\) got both relevant= and relevant_docs="):
        recall_at_k({1}, relevant=[1], relevant_docs={1}, retrieved_docs=[1])
