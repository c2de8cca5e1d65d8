"""The one registry of metrics by name (re-exported by ``answerkey.metrics``).

Each metric is registered with one small declaration: the kind of task it scores (what it is
called with), what it needs beyond its two inputs, and the workflows that compute it when
no metric is named. The workflows, their ``--metrics`` options and help texts, their report
columns and the docs ask the registry; no other list of metric names decides anything.

>>> KINDS["sql"]
'two SQL queries, run on a database: metric(target_query, predicted_query, *, database, ...)'
>>> "valid_efficiency_score" in metrics_of_kind("sql"), "cell_recall" in metrics_of_kind("sql")
(True, False)
>>> needs_order("tuple_order"), needs("valid_efficiency_score"), defaults_for("sql")[-1]
(True, frozenset({'timing'}), 'soft_f1')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from answerkey.plugins import import_modules

F = TypeVar("F", bound=Callable[..., float])

# kind -> what a metric of that kind is called with.
KINDS = {
    "table": "two tables: metric(target, prediction, *, rule=None)",
    "sql": "two SQL queries, run on a database: metric(target_query, predicted_query, *, database, ...)",
    "retrieval": "relevant ids and a ranked list of retrieved ids: metric(relevant, retrieved, k=None)",
    "answer": "a reference answer and an actual answer, judged by a model",
    "result": "two query results (answerkey.adapters.sql.QueryResult): metric(gold, predicted)",
}

# need -> what a metric that needs it gets from a workflow, and what the workflow does about it.
NEEDS = {
    "order": "a gold answer that is ordered: elsewhere the metric is undefined (null in reports)",
    "timing": "timed runs of both queries: computed only when named, never by --metrics all",
    "driver_values": "the values the database driver gave, read before the rows are typed",
}

# workflow -> the kinds of metric it computes, in the order its reports list them.
WORKFLOWS = {
    "score": ("table",),
    "qatch": ("table", "sql"),
    "sql": ("table", "result", "sql"),
    # answerkey.compat.qatch's MetricEvaluator, with QATCH's own defaults.
    "qatch-evaluator": ("table",),
}


@dataclass(frozen=True)
class Declaration:
    """What a registered metric declares: its ``kind`` (a key of ``KINDS``), what it
    ``needs`` (keys of ``NEEDS``) and the workflows it is a default of (``default_in``,
    keys of ``WORKFLOWS``: computed there when no metric is named)."""

    kind: str = "table"
    needs: frozenset[str] = frozenset()
    default_in: frozenset[str] = frozenset()


METRICS: dict[str, Callable[..., float]] = {}
"""Every registered metric: name -> metric function (filled by the metric modules ``answerkey.metrics`` imports)."""
# name -> its kind (a key of KINDS).
METRIC_KINDS: dict[str, str] = {}
# name -> its whole declaration.
DECLARATIONS: dict[str, Declaration] = {}


def _known(what: str, names: Iterable[str], known: Iterable[str]) -> None:
    """``ValueError`` for the first of ``names`` that is not in ``known``."""
    known = tuple(known)
    for name in names:
        if name not in known:
            raise ValueError(f"unknown {what} {name!r}; known: {', '.join(known)}")


def register(
    name: str, *, kind: str = "table", needs: Iterable[str] = (), default_in: Iterable[str] = ()
) -> Callable[[F], F]:
    """Register a metric function under ``name`` as a metric of ``kind`` (a key of
    ``KINDS``; default ``"table"``), needing ``needs`` (keys of ``NEEDS``) and computed by
    default in the workflows ``default_in`` (keys of ``WORKFLOWS``). A decorator; names
    must be unique.

    >>> register("rows", kind="tables")
    Traceback (most recent call last):
    ...
    ValueError: unknown metric kind 'tables'; known: table, sql, retrieval, answer, result
    """
    _known("metric kind", [kind], KINDS)
    declaration = Declaration(kind, frozenset(needs), frozenset(default_in))
    _known("need", sorted(declaration.needs), NEEDS)
    _known("workflow", sorted(declaration.default_in), WORKFLOWS)
    for workflow in sorted(declaration.default_in):
        if kind not in WORKFLOWS[workflow]:
            raise ValueError(f"a {kind} metric cannot be a default of {workflow}: it computes {WORKFLOWS[workflow]}")

    def add(function: F) -> F:
        if name in METRICS:
            raise ValueError(f"metric {name!r} registered twice")
        METRICS[name] = function
        METRIC_KINDS[name] = kind
        DECLARATIONS[name] = declaration
        return function

    return add


def metrics_of_kind(kind: str) -> tuple[str, ...]:
    """The names of the registered metrics of ``kind``, in the order they were registered."""
    _known("metric kind", [kind], KINDS)
    return tuple(name for name, its_kind in METRIC_KINDS.items() if its_kind == kind)


def metrics_for(workflow: str) -> tuple[str, ...]:
    """The metrics ``workflow`` can compute (its ``--metrics`` choices): those of its kinds,
    kind by kind in the order ``WORKFLOWS`` gives, each kind's in registration order.

    >>> metrics_for("qatch")[-2:]
    ('execution_accuracy', 'valid_efficiency_score')
    """
    _known("workflow", [workflow], WORKFLOWS)
    return tuple(name for kind in WORKFLOWS[workflow] for name in metrics_of_kind(kind))


def defaults_for(workflow: str) -> tuple[str, ...]:
    """The metrics ``workflow`` computes when none is named (its ``--metrics all``), in the
    order of ``metrics_for``."""
    return tuple(name for name in metrics_for(workflow) if workflow in DECLARATIONS[name].default_in)


def needs(name: str) -> frozenset[str]:
    """What the metric ``name`` needs (keys of ``NEEDS``; nothing for a name not registered)."""
    declaration = DECLARATIONS.get(name)
    return frozenset() if declaration is None else declaration.needs


def needs_order(name: str) -> bool:
    """True when the metric ``name`` is defined only where the gold answer is ordered."""
    return "order" in needs(name)


# The environment variable naming the modules of a user's own metrics, imported with the registry.
MODULES_VARIABLE = "ANSWERKEY_METRIC_MODULES"


def import_metric_modules(environ: Mapping[str, str] | None = None) -> list[str]:
    """Import the modules ``ANSWERKEY_METRIC_MODULES`` names (comma-separated: each a
    module name, or the path of a ``.py`` file), so that the metrics they register are
    known to every command; the names imported. ``answerkey.metrics`` calls it once."""
    return import_modules(MODULES_VARIABLE, environ)
