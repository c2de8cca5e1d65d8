"""Execution evaluation of text-to-SQL: predicted and gold SQL run on real databases, results judged.

The workflow (``answerkey sql``): ``schema`` (the file formats), ``load`` (Spider, BIRD and
answerkey layouts), ``semantics`` (the comparison rules: answerkey's and the benchmarks'),
``run`` (per-database batches mapped by an executor: an ``SqlRun``), ``cache`` (query results
on disk) and ``report`` (its JSON, YAML, workbook and summary table):
``run_sql(load_inputs(GOLD, PREDICTIONS), SqlOptions(DIR_OR_URL))``.
"""

from answerkey.execution.distributed import ClusterError, DaskExecutor
from answerkey.execution.load import LAYOUTS, SqlInputs, SqlItem, load_inputs
from answerkey.execution.run import (
    Batch,
    BatchItem,
    Executor,
    ItemOutcome,
    LocalExecutor,
    SqlOptions,
    SqlRun,
    make_batches,
    run_batch,
    run_sql,
)
from answerkey.execution.semantics import (
    DEFAULT_SEMANTICS,
    SEMANTICS,
    Decision,
    decide,
    decide_all,
    disagreement,
    order_by_keys,
    soft_f1,
)

__all__ = [
    "LAYOUTS",
    "SEMANTICS",
    "DEFAULT_SEMANTICS",
    "Decision",
    "decide",
    "decide_all",
    "disagreement",
    "order_by_keys",
    "soft_f1",
    "DaskExecutor",
    "ClusterError",
    "SqlInputs",
    "SqlItem",
    "load_inputs",
    "SqlOptions",
    "Batch",
    "BatchItem",
    "ItemOutcome",
    "Executor",
    "LocalExecutor",
    "make_batches",
    "run_batch",
    "SqlRun",
    "run_sql",
]
