"""Ranked-retrieval metrics over document ids, with trec_eval's definitions.

``relevant`` is a collection of relevant ids (or a mapping id → graded gain, for nDCG);
``retrieved`` is the ranked list a system returned, best first. A later duplicate of an id
already retrieved is dropped before ranks are counted, so it neither earns credit twice nor
pushes other documents down (trec_eval scores each document once). ``k=None`` means the whole
list. With no relevant ids every metric is 0.0 (trec_eval leaves such queries out; a single
number has to say something, and "nothing found" is the honest reading).

Each function also takes graphrag-eval 4.0's keyword names, ``relevant_docs=`` and
``retrieved_docs=``, and 6.x's, ``relevant_ids=`` and ``retrieved_ids=``, so snippets pasted
from its README run (with trec_eval's definitions; 6.x's own are in
``answerkey.compat.graphrag_eval``):

>>> recall_at_k(relevant_docs={1, 3, 5, 6}, retrieved_docs=[1, 4, 3, 5, 7], k=5)
0.75
>>> recall_at_k(relevant_ids={1, 3, 5, 6}, retrieved_ids=[1, 4, 3, 5, 7], k=5)
0.75

>>> recall_at_k({1, 3, 5, 6}, [1, 4, 3, 5, 7], k=5)
0.75
>>> round(average_precision({1, 3, 5, 6}, [1, 4, 3, 5, 7]), 6)
0.604167
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from typing import Any

from answerkey.metrics.registry import register

# graphrag-eval's keyword names (4.0's, then 6.x's) -> ours.
_GRAPHRAG_NAMES = {
    "relevant_docs": "relevant",
    "retrieved_docs": "retrieved",
    "relevant_ids": "relevant",
    "retrieved_ids": "retrieved",
}


def _graphrag_names(metric: Callable[..., float]) -> Callable[..., float]:
    """``metric`` also called with graphrag-eval's keyword names (each name once, either way)."""

    @functools.wraps(metric)
    def accepting(*args: Any, **kwargs: Any) -> float:
        for theirs, ours in _GRAPHRAG_NAMES.items():
            if theirs in kwargs:
                if ours in kwargs:
                    raise TypeError(f"{metric.__name__}() got both {ours}= and {theirs}=")
                kwargs[ours] = kwargs.pop(theirs)
        return metric(*args, **kwargs)

    return accepting


def _ranking(retrieved: Iterable[Hashable], k: int | None) -> list[Hashable]:
    """The retrieved ids without later duplicates, cut at rank ``k``."""
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be a positive integer or None, not {k!r}")
    ranking = list(dict.fromkeys(retrieved))
    return ranking if k is None else ranking[:k]


@register("recall_at_k", kind="retrieval")
@_graphrag_names
def recall_at_k(relevant: Collection[Hashable], retrieved: Iterable[Hashable], k: int | None = None) -> float:
    """Relevant ids in the top ``k`` / number of relevant ids.

    >>> recall_at_k({1, 3, 5, 7, 9}, range(1, 11), k=5)
    0.6
    """
    relevant = set(relevant)
    if not relevant:
        return 0.0
    return sum(1 for doc in _ranking(retrieved, k) if doc in relevant) / len(relevant)


@register("precision_at_k", kind="retrieval")
@_graphrag_names
def precision_at_k(relevant: Collection[Hashable], retrieved: Iterable[Hashable], k: int | None = None) -> float:
    """Relevant ids in the top ``k`` / ``k`` (trec_eval's P@k: a short list is not excused);
    with ``k=None``, / the number of distinct ids retrieved.

    >>> precision_at_k({1, 3}, [1, 2], k=4)
    0.25
    """
    relevant = set(relevant)
    ranking = _ranking(retrieved, k)
    cutoff = k if k is not None else len(ranking)
    if not relevant or cutoff == 0:
        return 0.0
    return sum(1 for doc in ranking if doc in relevant) / cutoff


@register("average_precision", kind="retrieval")
@_graphrag_names
def average_precision(relevant: Collection[Hashable], retrieved: Iterable[Hashable], k: int | None = None) -> float:
    """Sum of precision at the rank of each relevant id retrieved / number of relevant ids
    (relevant ids never retrieved contribute 0).

    >>> round(average_precision({1, 2, 5, 8}, [1, 3, 2, 4, 5, 6, 7, 8]), 7)
    0.6916667
    """
    relevant = set(relevant)
    if not relevant:
        return 0.0
    hits = 0
    total = 0.0
    for rank, doc in enumerate(_ranking(retrieved, k), start=1):
        if doc in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant)


@register("reciprocal_rank", kind="retrieval")
@_graphrag_names
def reciprocal_rank(relevant: Collection[Hashable], retrieved: Iterable[Hashable], k: int | None = None) -> float:
    """1 / the rank of the first relevant id retrieved (0.0 if none is in the top ``k``).

    >>> reciprocal_rank({5}, [1, 4, 5])
    0.3333333333333333
    """
    relevant = set(relevant)
    for rank, doc in enumerate(_ranking(retrieved, k), start=1):
        if doc in relevant:
            return 1 / rank
    return 0.0


@register("ndcg_at_k", kind="retrieval")
@_graphrag_names
def ndcg_at_k(
    relevant: Collection[Hashable] | Mapping[Hashable, float],
    retrieved: Iterable[Hashable],
    k: int | None = None,
) -> float:
    """Normalised discounted cumulative gain: sum of gain / log2(rank + 1) over the top ``k``,
    divided by the same sum for the ideal ranking. Gains are 1 for a set of relevant ids, or
    the mapping's values (graded relevance; gains <= 0 count as not relevant).

    >>> ndcg_at_k({1}, [1, 2])
    1.0
    >>> round(ndcg_at_k({2}, [1, 2]), 6)
    0.63093
    """
    if isinstance(relevant, Mapping):
        gains = {doc: float(gain) for doc, gain in relevant.items() if gain > 0}
    else:
        gains = dict.fromkeys(relevant, 1.0)
    if not gains:
        return 0.0
    ranking = _ranking(retrieved, k)
    found = sum(gains.get(doc, 0.0) / math.log2(rank + 1) for rank, doc in enumerate(ranking, start=1))
    depth = len(gains) if k is None else min(k, len(gains))
    ideal_gains = sorted(gains.values(), reverse=True)[:depth]
    ideal = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal_gains, start=1))
    return found / ideal


# Metric name -> function(relevant, retrieved, k=None); the docs and reports list them from here.
RETRIEVAL_METRICS = {
    "recall": recall_at_k,
    "precision": precision_at_k,
    "average_precision": average_precision,
    "reciprocal_rank": reciprocal_rank,
    "ndcg": ndcg_at_k,
}
