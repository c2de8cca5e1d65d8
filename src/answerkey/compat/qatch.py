"""A drop-in for QATCH's ``MetricEvaluator``: change one import, keep your code.

    # from qatch.metric_evaluator import MetricEvaluator
    from answerkey.compat.qatch import MetricEvaluator

The methods, arguments and result keys (``f"{metric}_{prediction_col_name}"``) are those of
``qatch.metric_evaluator.MetricEvaluator`` in QATCH 0.1-0.2.x (QATCH 1.0 removed the class).
What changes is underneath: cells are compared as typed values (reals within a relative
epsilon, 1e-4 by default, instead of QATCH's rounding to two decimals and lower-casing),
scores are not rounded to three decimals, predicted SQL runs read-only with time, row and
result-size limits, and tuple order is O(n log n).

QATCH's conventions are kept: zeros for every metric when the prediction is not a table
like ``[["wales", "scotland"], ["england"]]`` or its query fails, and also when the target
query fails; ``tuple_order`` is None when the target is a query without ``ORDER BY`` (a
target given as a table always gets it); identical SQL (after QATCH's cleaning) scores 1
without running. Differences: a prediction may also be JSON text of a table; rows may differ
in length; ``databases`` is a Spider-layout root (a path), a ``answerkey.adapters.sql.Databases``,
or QATCH's ``MultipleDatabases`` (its ``db_path`` is used); the test dict is not modified.

>>> evaluator = MetricEvaluator(databases=None, metrics=["cell_precision", "cell_recall"])
>>> test = {"prediction": [["wales", "scotland"], ["england"]],
...         "target": [["scotland", "wales"], ["england"]]}
>>> evaluator.evaluate_single_test_QA(test, "prediction", "target")
{'cell_precision_prediction': 1.0, 'cell_recall_prediction': 1.0}
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from answerkey.adapters.sql import Databases
from answerkey.comparator import MatchRule
from answerkey.errors import kind_of
from answerkey.limits import SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT
from answerkey.metrics.table import TABLE_METRICS
from answerkey.progress import progress
from answerkey.qatch.run import QATCH_METRICS, evaluate_test, has_order_by, is_table

__all__ = ["MetricEvaluator"]

_log = logging.getLogger(__name__)


def _databases(databases: object, timeout: float, max_rows: int, max_result_bytes: int) -> Databases | None:
    if databases is None or isinstance(databases, Databases):
        return databases
    root = databases if isinstance(databases, (str, os.PathLike)) else getattr(databases, "db_path", None)
    if isinstance(root, (str, os.PathLike)):  # a path, or QATCH's MultipleDatabases
        return Databases(root, timeout=timeout, max_rows=max_rows, max_result_bytes=max_result_bytes)
    raise TypeError(
        "databases must be None, a Spider-layout root path, an answerkey.adapters.sql.Databases or an "
        f"object with a db_path, not {kind_of(databases)}"
    )


class MetricEvaluator:
    """Evaluate predictions of QA (tables) or SP (SQL) tests with QATCH's metrics.

    ``metrics`` defaults to QATCH's five (``cell_precision``, ``cell_recall``,
    ``tuple_cardinality``, ``tuple_constraint``, ``tuple_order``); ``execution_accuracy``
    may be asked for too. ``rule`` sets how cells match (default ``MatchRule()``: epsilon
    1e-4); ``timeout`` (seconds), ``max_rows`` and ``max_result_bytes`` bound each query run
    on databases given as a path (a ``Databases`` given keeps its own limits).
    """

    def __init__(
        self,
        databases: object = None,
        metrics: list[str] | str | None = None,
        *,
        rule: MatchRule | None = None,
        timeout: float = SQL_TIMEOUT,
        max_rows: int = SQL_MAX_ROWS,
        max_result_bytes: int = SQL_MAX_RESULT_BYTES,
    ) -> None:
        if metrics is None:
            metrics = list(QATCH_METRICS)
        self.metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [name for name in self.metrics if name not in TABLE_METRICS]
        if unknown:
            raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(TABLE_METRICS)}")
        self.databases = _databases(databases, timeout, max_rows, max_result_bytes)
        self.rule = rule

    def _zeros(self, prediction_col_name: str) -> dict[str, float | None]:
        return {f"{metric}_{prediction_col_name}": 0.0 for metric in self.metrics}

    def evaluate_single_test_QA(
        self, test: Mapping[str, Any], prediction_col_name: str, target_col_name: str
    ) -> dict[str, float | None]:
        """Scores of one QA test: ``test[prediction_col_name]`` is a table (a list of rows
        or its JSON text); ``test[target_col_name]`` a table or SQL run on ``test["db_id"]``.

        Zeros when the prediction is malformed or the target query fails. Raises
        ``ValueError`` when the target is a query and no databases were given (as QATCH).
        """
        return self._evaluate(test, prediction_col_name, target_col_name, "qa")

    def evaluate_single_test_SP(
        self, test: Mapping[str, Any], prediction_col_name: str, target_col_name: str
    ) -> dict[str, float | None]:
        """Scores of one SP test: both columns hold SQL, run on ``test["db_id"]``.

        Identical queries (after ``are_cleaned_sql_identical``) score 1 without running;
        zeros when either query fails.
        """
        target, prediction = test[target_col_name], test[prediction_col_name]
        identical = (
            isinstance(target, str)
            and isinstance(prediction, str)
            and self.are_cleaned_sql_identical(target, prediction)
        )
        if identical:
            return {
                f"{metric}_{prediction_col_name}": (
                    None if metric == "tuple_order" and not has_order_by(target) else 1.0
                )
                for metric in self.metrics
            }
        return self._evaluate(test, prediction_col_name, target_col_name, "sp")

    def _evaluate(
        self, test: Mapping[str, Any], prediction_col_name: str, target_col_name: str, task: str
    ) -> dict[str, float | None]:
        target = test[target_col_name]
        if self.databases is None and not (task == "qa" and is_table(target)):
            raise ValueError(
                f"The {target_col_name} is a query but no database is specified in the "
                "MetricEvaluator. Please initialize it as MetricEvaluator(databases)"
            )
        outcome = evaluate_test(
            target,
            test[prediction_col_name],
            task=task,
            db_id=test.get("db_id"),
            databases=self.databases,
            metrics=self.metrics,
            rule=self.rule,
        )
        if outcome.error is not None:
            _log.error("%s", outcome.error)
            return self._zeros(prediction_col_name)
        if outcome.prediction_error is not None:
            _log.info("%s", outcome.prediction_error)
            return self._zeros(prediction_col_name)
        return {f"{metric}_{prediction_col_name}": score for metric, score in outcome.scores.items()}

    def evaluate_with_df(
        self,
        df,
        prediction_col_name: str,
        task: str,
        target_col_name: str = "query",
        keep_target: bool = False,
    ):
        """Evaluate every row of a pandas DataFrame for ``task`` ``"QA"`` or ``"SP"``; return
        the DataFrame with one column per metric appended (missing values as None).

        ``keep_target`` is accepted for compatibility; the target column is always kept.
        Needs pandas: ``pip install 'answerkey[pandas]'``.
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("evaluate_with_df needs pandas: pip install 'answerkey[pandas]'") from None

        kind = str(task).upper()
        if kind not in ("QA", "SP"):
            raise ValueError(f"task must be 'QA' or 'SP', not {task!r}")
        evaluate = self.evaluate_single_test_QA if kind == "QA" else self.evaluate_single_test_SP
        rows = progress((row.to_dict() for _, row in df.iterrows()), total=len(df), label=f"Evaluating {kind} tests")
        results = [evaluate(row, prediction_col_name, target_col_name) for row in rows]
        columns = [f"{metric}_{prediction_col_name}" for metric in self.metrics]
        scores = pd.DataFrame(results, index=df.index, columns=columns, dtype=object)
        return pd.concat([df, scores], axis=1)

    @staticmethod
    def are_cleaned_sql_identical(target: str, prediction: str) -> bool:
        """True when both queries are the same text after QATCH's cleaning: lower case,
        ``" ,"`` to ``","``, double spaces halved, quotes dropped, and in the prediction
        ``" ( "`` to ``"("`` and ``" )"`` to ``")"``.

        >>> MetricEvaluator.are_cleaned_sql_identical('SELECT "a" , b FROM t', "select a, b from t")
        True
        """
        return _cleaned(prediction, prediction=True) == _cleaned(target, prediction=False)


def _cleaned(query: str, *, prediction: bool) -> str:
    text = query.lower().replace(" ,", ",").replace("  ", " ").replace('"', "").replace("'", "")
    if prediction:
        text = text.replace(" ( ", "(").replace(" )", ")")
    return text.strip()
