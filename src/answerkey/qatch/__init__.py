"""QATCH's graded table metrics over a tests file: ``schema``, ``load``, ``run``, ``report``.

``evaluate_test`` scores one test; ``load_tests`` reads a tests file and ``run_qatch``
scores it into a ``QatchRun`` (a ``answerkey.report.Result``).
"""

from answerkey._deprecated import keep_old_names
from answerkey.qatch.load import FORMATS as FORMATS, load_tests
from answerkey.qatch.run import (
    MAX_TABLE_CHARS as MAX_TABLE_CHARS,
    QATCH_METRICS,
    TASKS,
    QatchOptions,
    QatchResult,
    QatchRun,
    QatchTest,
    TestOutcome,
    evaluate_test as evaluate_test,
    has_order_by as has_order_by,
    is_table as is_table,
    needs_databases as needs_databases,
    parse_table as parse_table,
    run_qatch,
)

__all__ = [
    "TASKS",
    "QATCH_METRICS",
    "TestOutcome",
    "QatchTest",
    "QatchOptions",
    "QatchResult",
    "QatchRun",
    "load_tests",
    "run_qatch",
]

# The names these had before one naming scheme for every workflow, kept for one release.
keep_old_names(globals(), {"run_tests": "run_qatch"})
