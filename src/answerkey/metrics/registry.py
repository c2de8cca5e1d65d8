"""The one registry of metrics by name (re-exported by ``answerkey.metrics``).

Each metric is registered with the kind of task it scores, which says what it is called
with, so that a command or a report lists only the metrics that apply to its inputs:

>>> KINDS["sql"]
'two SQL queries, run on a database: metric(target_query, predicted_query, *, database, ...)'
>>> "valid_efficiency_score" in metrics_of_kind("sql"), "cell_recall" in metrics_of_kind("sql")
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["METRICS", "METRIC_KINDS", "KINDS", "register", "metrics_of_kind"]

F = TypeVar("F", bound=Callable[..., float])

# kind -> what a metric of that kind is called with.
KINDS = {
    "table": "two tables: metric(target, prediction, *, rule=None)",
    "sql": "two SQL queries, run on a database: metric(target_query, predicted_query, *, database, ...)",
    "retrieval": "relevant ids and a ranked list of retrieved ids: metric(relevant, retrieved, k=None)",
    "answer": "a reference answer and an actual answer, judged by a model",
}

# name -> metric function. Filled by the metric modules imported in ``answerkey.metrics``.
METRICS: dict[str, Callable[..., float]] = {}
# name -> its kind (a key of KINDS).
METRIC_KINDS: dict[str, str] = {}


def register(name: str, *, kind: str = "table") -> Callable[[F], F]:
    """Register a metric function under ``name`` as a metric of ``kind`` (a key of
    ``KINDS``; default ``"table"``). A decorator; names must be unique."""
    if kind not in KINDS:
        raise ValueError(f"unknown metric kind {kind!r}; known: {', '.join(KINDS)}")

    def add(function: F) -> F:
        if name in METRICS:
            raise ValueError(f"metric {name!r} registered twice")
        METRICS[name] = function
        METRIC_KINDS[name] = kind
        return function

    return add


def metrics_of_kind(kind: str) -> tuple[str, ...]:
    """The names of the registered metrics of ``kind``, in the order they were registered."""
    if kind not in KINDS:
        raise ValueError(f"unknown metric kind {kind!r}; known: {', '.join(KINDS)}")
    return tuple(name for name, its_kind in METRIC_KINDS.items() if its_kind == kind)
