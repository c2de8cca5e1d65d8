"""Graded metrics over the typed model, registered by name in ``METRICS``.

The CLI, the reports and the docs list metrics from this one registry
(``answerkey.metrics.registry``): each metric declares there what it needs and the workflows
it is a default of. Every registered metric is importable from here by its name, those of
the modules named by ``ANSWERKEY_METRIC_MODULES`` too (``docs/metrics.md``).

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

from collections.abc import Callable

from answerkey.metrics.efficiency import SQL_METRICS as SQL_METRICS, valid_efficiency_score
from answerkey.metrics.registry import (
    METRICS,
    defaults_for,
    import_metric_modules,
    metrics_for,
    needs as needs,
    needs_order,
    register,
)
from answerkey.metrics.retrieval import average_precision, ndcg_at_k, precision_at_k, recall_at_k, reciprocal_rank
from answerkey.metrics.sql_soft_f1 import soft_f1
from answerkey.metrics.table import (
    TABLE_METRICS as TABLE_METRICS,
    TableMetric as TableMetric,
    cell_precision,
    cell_recall,
    execution_accuracy,
    table_scores,
    tuple_cardinality,
    tuple_constraint,
    tuple_order,
)

__all__ = [
    "METRICS",
    "register",
    "metrics_for",
    "defaults_for",
    "needs_order",
    "table_scores",
    "cell_precision",
    "cell_recall",
    "tuple_cardinality",
    "tuple_constraint",
    "tuple_order",
    "execution_accuracy",
    "soft_f1",
    "valid_efficiency_score",
    "average_precision",
    "ndcg_at_k",
    "precision_at_k",
    "recall_at_k",
    "reciprocal_rank",
]

# A user's own metrics, registered by their modules (after ours: the registry is complete).
import_metric_modules()


def __getattr__(name: str) -> Callable[..., float]:
    """A metric registered by a user's module, by its name: ``from answerkey.metrics import NAME``."""
    if name in METRICS:
        return METRICS[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
