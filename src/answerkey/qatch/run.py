"""QATCH tests: one target and one prediction, for the QA or the SP task, scored.

A *QA* test compares a predicted table (a list of rows, or its JSON text) with a target
table, or with the result of a target SQL query. An *SP* test runs a predicted SQL query and
a target SQL query on the test's database and compares their results. Both use the table
metrics of ``answerkey.metrics.table``; tuple order applies only when the target is a table
or a query with ``ORDER BY``.

A target that cannot be evaluated is an error of the test; a prediction that is malformed
or fails to run scores 0 on every metric.

>>> outcome = evaluate_test([["scotland", "wales"], ["england"]], '[["wales", "scotland"], ["england"]]',
...                         task="qa", metrics=["cell_precision", "tuple_constraint"])
>>> outcome.scores, outcome.error, outcome.prediction_error
({'cell_precision': 1.0, 'tuple_constraint': 1.0}, None, None)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from answerkey.comparator.values import MatchRule
from answerkey.metrics.table import TABLE_METRICS, table_rows, table_scores
from answerkey.model import Value
from answerkey.adapters.sql import Databases

__all__ = [
    "TASKS",
    "QATCH_METRICS",
    "MAX_TABLE_CHARS",
    "TestOutcome",
    "evaluate_test",
    "parse_table",
    "has_order_by",
    "is_table",
]

TASKS = ("qa", "sp")
# The metrics QATCH's MetricEvaluator computes by default (execution accuracy is opt-in).
QATCH_METRICS = ("cell_precision", "cell_recall", "tuple_cardinality", "tuple_constraint", "tuple_order")
# A table given as JSON text longer than this is malformed rather than parsed.
MAX_TABLE_CHARS = 16 * 1024 * 1024

_ORDER_BY = re.compile(r"\border\s+by\b", re.IGNORECASE)

Rows = tuple[tuple[Value, ...], ...]


@dataclass(frozen=True)
class TestOutcome:
    """The scores of one test.

    ``scores`` maps each metric asked for to its value, or to None when it does not apply
    (tuple order without ``ORDER BY``) or the test is in error. ``error`` says why the
    target could not be evaluated (the test is broken); ``prediction_error`` why the
    prediction scored zeros (malformed table, failing query).
    """

    __test__ = False  # not a pytest test class, whatever its name

    scores: dict[str, float | None] = field(default_factory=dict)
    error: str | None = None
    prediction_error: str | None = None


def has_order_by(query: str) -> bool:
    """True when the SQL text has ``ORDER BY`` (any case and spacing).

    >>> has_order_by("select a from t order\\n by a"), has_order_by("SELECT border_by FROM t")
    (True, False)
    """
    return bool(_ORDER_BY.search(query))


def is_table(value: object) -> bool:
    """True when a target or prediction is given as a table (a list, or JSON text of one)
    rather than as an SQL query.

    >>> is_table([["a"]]), is_table(' [["a"]]'), is_table("SELECT a FROM t")
    (True, True, False)
    """
    if isinstance(value, str):
        return value.lstrip().startswith("[")
    return isinstance(_as_plain(value), (list, tuple))


def _as_plain(value: object) -> object:
    """NumPy arrays and scalars (pandas cells) as Python lists and values."""
    if type(value).__module__ == "numpy":
        convert = getattr(value, "tolist", None) or getattr(value, "item", None)
        if convert is not None:
            return convert()
    return value


def parse_table(value: object) -> Rows | None:
    """A table from a list of rows or its JSON text (reals kept exact as written), as typed
    rows; None if it is not one (QATCH's "malformed": not a list of lists of values).

    >>> parse_table('[["wales", 1.10], ["england"]]')
    ((String(text='wales'), Number(value=Decimal('1.10'), is_real=True, text='1.10')), (String(text='england'),))
    >>> parse_table("[1, 2]") is None, parse_table("not json") is None, parse_table([[["x"]]]) is None
    (True, True, True)
    """
    if isinstance(value, str):
        if len(value) > MAX_TABLE_CHARS:
            return None
        try:
            value = json.loads(value, parse_float=Decimal)
        except (ValueError, RecursionError):
            return None
    value = _as_plain(value)
    if not isinstance(value, (list, tuple)):
        return None
    rows = []
    for row in value:
        row = _as_plain(row)
        if not isinstance(row, (list, tuple)):
            return None
        rows.append([_as_plain(cell) for cell in row])
    try:
        return table_rows(rows)
    except (TypeError, ValueError):
        return None


def _zeros(metrics: Sequence[str], order_applies: bool) -> dict[str, float | None]:
    return {name: (None if name == "tuple_order" and not order_applies else 0.0) for name in metrics}


def evaluate_test(
    target: object,
    prediction: object,
    *,
    task: str,
    db_id: str | None = None,
    databases: Databases | None = None,
    metrics: Iterable[str] = TABLE_METRICS,
    rule: MatchRule | None = None,
) -> TestOutcome:
    """Score one test of ``task`` ``"qa"`` or ``"sp"``.

    ``target`` is SQL text (run on ``db_id`` in ``databases``) or, for QA, a table; for SP
    ``prediction`` is SQL text, for QA a table (a list of rows or its JSON text).
    """
    metrics = list(metrics)
    task = task.lower()
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; known: {', '.join(TASKS)}")
    target_is_table = task == "qa" and is_table(target)
    order_applies = target_is_table or (isinstance(target, str) and has_order_by(target))
    na = dict.fromkeys(metrics)

    if target_is_table:
        target_rows = parse_table(target)
        if target_rows is None:
            return TestOutcome(na, error="the target is not a table (a list of rows)")
    else:
        ran = _run(databases, db_id, target, "target")
        if isinstance(ran, str):
            return TestOutcome(na, error=ran)
        target_rows = ran

    if task == "qa":
        prediction_rows = parse_table(prediction)
        if prediction_rows is None:
            return TestOutcome(
                _zeros(metrics, order_applies),
                prediction_error='the prediction is not a table like [["wales", "scotland"], ["england"]]',
            )
    else:
        ran = _run(databases, db_id, prediction, "prediction")
        if isinstance(ran, str):
            return TestOutcome(_zeros(metrics, order_applies), prediction_error=ran)
        prediction_rows = ran

    wanted = [name for name in metrics if order_applies or name != "tuple_order"]
    scores = table_scores(target_rows, prediction_rows, rule=rule, metrics=wanted)
    return TestOutcome({name: scores.get(name) for name in metrics})


def _run(databases: Databases | None, db_id: object, query: object, role: str) -> Rows | str:
    """The rows of ``query``, or the error as text."""
    if not isinstance(query, str) or not query.strip():
        return f"the {role} query is missing (not SQL text)"
    if databases is None:
        return f"the {role} is a query, but no databases are given"
    if db_id is None:
        return f"the {role} is a query, but the test has no db_id"
    result = databases.run(db_id, query)
    if not result.ok:
        return f"the {role} query failed: {result.error}"
    return result.rows
