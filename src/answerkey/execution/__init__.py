"""Execution evaluation of text-to-SQL: predicted and gold SQL run on real databases, results judged.

The workflow (``answerkey sql``): ``schema`` (the file formats), ``load`` (Spider, BIRD and
answerkey layouts), ``semantics`` (the comparison rules: answerkey's and the benchmarks'),
``run`` (per-database batches mapped by an executor: an ``SqlRun``), ``cache`` (query results
on disk) and ``report`` (its JSON, YAML, workbook and summary table):
``run_sql(load_inputs(GOLD, PREDICTIONS), SqlOptions(DIR_OR_URL))``.

``rewards`` judges one predicted query at a time, from Python, as the run does (a training
loop's execution reward): ``ExecutionJudge(DIR_OR_URL).judge(db_id, gold_sql, predicted_sql)``
gives a ``Judgement``.
"""

from answerkey.execution.distributed import ClusterError as ClusterError, DaskExecutor
from answerkey.execution.load import LAYOUTS as LAYOUTS, SqlInputs, SqlItem, load_inputs
from answerkey.execution.rewards import ExecutionJudge, Judgement
from answerkey.execution.run import (
    Batch as Batch,
    BatchItem as BatchItem,
    Executor as Executor,
    ItemOutcome as ItemOutcome,
    LocalExecutor,
    SqlOptions,
    SqlRun,
    make_batches as make_batches,
    run_batch as run_batch,
    run_sql,
)
from answerkey.execution.semantics import (
    DEFAULT_SEMANTICS as DEFAULT_SEMANTICS,
    SEMANTICS as SEMANTICS,
    Decision as Decision,
    decide as decide,
    decide_all as decide_all,
    disagreement as disagreement,
    order_by_keys as order_by_keys,
    soft_f1 as soft_f1,
)

__all__ = [
    "DaskExecutor",
    "SqlInputs",
    "SqlItem",
    "load_inputs",
    "SqlOptions",
    "LocalExecutor",
    "SqlRun",
    "run_sql",
    "ExecutionJudge",
    "Judgement",
]
