"""QATCH's graded table metrics over a tests file: ``schema``, ``load``, ``run``, ``report``.

``evaluate_test`` scores one test; ``run_tests`` a whole file of them.
"""

from answerkey.qatch.run import (
    MAX_TABLE_CHARS,
    QATCH_METRICS,
    TASKS,
    TestOutcome,
    evaluate_test,
    has_order_by,
    is_table,
    parse_table,
)

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
