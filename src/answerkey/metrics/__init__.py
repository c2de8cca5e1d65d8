"""Graded metrics over the typed model, registered by name in ``METRICS``.

The CLI, the reports and the docs list metrics from this one registry.

Table metrics (QATCH semantics, see ``answerkey.metrics.table``) are pure functions
``metric(target, prediction, *, rule=None) -> float`` in [0, 1], where ``target`` and
``prediction`` are each a ``Relation`` or a list of rows of Python or typed values, and
``rule`` is the ``MatchRule`` for cells (default: epsilon 1e-4 for reals, exact strings).
Their names are ``TABLE_METRICS``.

Per-item metric values for a report, from the registry:

>>> from answerkey.metrics import METRICS, TABLE_METRICS, table_scores
>>> target, prediction = [["a", "b"], ["c", "d"]], [["a", "b"], ["c", "e"]]
>>> {name: METRICS[name](target, prediction) for name in ("cell_precision", "tuple_cardinality")}
{'cell_precision': 0.75, 'tuple_cardinality': 1.0}

``table_scores`` computes several table metrics at once, sharing the work (use it when a
report wants all of them for each item):

>>> table_scores(target, prediction, metrics=["cell_recall", "execution_accuracy"])
{'cell_recall': 0.75, 'execution_accuracy': 0.0}
"""

from __future__ import annotations

from answerkey.metrics.registry import METRICS, register

__all__ = [
    "METRICS",
    "register",
    "TABLE_METRICS",
    "TableMetric",
    "table_scores",
    "SQL_METRICS",
    "valid_efficiency_score",
    "average_precision",
    "ndcg_at_k",
    "precision_at_k",
    "recall_at_k",
    "reciprocal_rank",
]

# Each metric module registers its functions in METRICS when imported here.
from answerkey.metrics.efficiency import SQL_METRICS, valid_efficiency_score
from answerkey.metrics.retrieval import average_precision, ndcg_at_k, precision_at_k, recall_at_k, reciprocal_rank
from answerkey.metrics.table import TABLE_METRICS, TableMetric, table_scores
