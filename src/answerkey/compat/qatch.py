"""Drop-ins for QATCH's evaluation APIs: change one import, keep your code.

QATCH 1.0 (``OrchestratorEvaluator``, QATCH 1.0.0 to 1.0.36)::

    # from qatch.evaluate_dataset.orchestrator_evaluator import OrchestratorEvaluator
    from answerkey.compat.qatch import OrchestratorEvaluator

QATCH 0.1-0.2.x (``MetricEvaluator``; QATCH 1.0.0 removed it)::

    # from qatch.metric_evaluator import MetricEvaluator
    from answerkey.compat.qatch import MetricEvaluator

The methods, arguments and result keys are QATCH's. What changes is underneath, for both:
cells are compared as typed values (reals within a relative epsilon, 1e-4 by default,
where QATCH 1.0 compares Python values with ``==`` and QATCH 0.2 strings rounded to two
decimals and lower-cased), scores are not rounded to three decimals, SQL runs read-only
with time, row and result-size limits (``answerkey.adapters.sql``), ``ORDER BY`` is found
whatever its case and spacing, and every metric runs in O(n log n).

``MetricEvaluator`` (QATCH 0.2) keeps QATCH 0.2's conventions: zeros for every metric when
the prediction is not a table like ``[["wales", "scotland"], ["england"]]`` or its query
fails, and also when the target query fails; ``tuple_order`` is None when the target is a
query without ``ORDER BY`` (a target given as a table always gets it); identical SQL (after
QATCH's cleaning) scores 1 without running. Differences: cell precision and recall count
distinct cells, as QATCH 1.0 does (QATCH 0.2 counts every cell, duplicates included: a
prediction ``[[18], [18]]`` recalls 2 of a 20-cell target holding 18 twice, 0.1, where
answerkey finds 1 of its 14 distinct cells); scores are floats (QATCH 0.2 gives the int 1 or
0 for identical or failing queries); a prediction may also be JSON text of a table; rows may
differ in length; ``databases`` is a Spider-layout root (a path), an
``answerkey.adapters.sql.Databases``, an engine of ``answerkey.adapters.engines`` (every
query runs through one), or QATCH's ``MultipleDatabases`` (its ``db_path`` is used);
SQL is never allowed to write (QATCH 0.2 runs a predicted ``DROP TABLE``); the test dict is
not modified.

>>> evaluator = MetricEvaluator(databases=None, metrics=["cell_precision", "cell_recall"])
>>> test = {"prediction": [["wales", "scotland"], ["england"]],
...         "target": [["scotland", "wales"], ["england"]]}
>>> evaluator.evaluate_single_test_QA(test, "prediction", "target")
{'cell_precision_prediction': 1.0, 'cell_recall_prediction': 1.0}

``OrchestratorEvaluator`` (QATCH 1.0) keeps QATCH 1.0's conventions: see its docstring.

>>> evaluator = OrchestratorEvaluator(["cell_precision", "tuple_order", "execution_accuracy"])
>>> evaluator.evaluate_single_test([["scotland", "wales"], ["england"]], [["wales", "scotland"]], None)
{'cell_precision': 1.0, 'tuple_order': None, 'execution_accuracy': 0.0}
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from answerkey.adapters.engines import Engine, QueryResult, SQLiteEngine, engine_of, run_query
from answerkey.adapters.sql import Databases
from answerkey.comparator import MatchRule
from answerkey.errors import kind_of
from answerkey.limits import MAX_QUERY_CHARS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT
from answerkey.metrics.efficiency import DEFAULT_VES_RUNS, QueryRunner, check_runs, time_runs, ves
from answerkey.metrics.table import TABLE_METRICS, table_scores
from answerkey.model import Value
from answerkey.progress import progress
from answerkey.qatch.run import QATCH_METRICS, evaluate_test, has_order_by, is_table, parse_table

__all__ = [
    "MetricEvaluator",
    "OrchestratorEvaluator",
]

_log = logging.getLogger(__name__)


def _databases(databases: object, timeout: float, max_rows: int, max_result_bytes: int) -> Engine | None:
    """The engine that runs the tests' queries (``answerkey.adapters.engines``), or None."""
    if databases is None or isinstance(databases, (Databases, Engine)):
        return None if databases is None else engine_of(databases)
    root = databases if isinstance(databases, (str, os.PathLike)) else getattr(databases, "db_path", None)
    if isinstance(root, (str, os.PathLike)):  # a path, or QATCH's MultipleDatabases
        return SQLiteEngine(root, timeout=timeout, max_rows=max_rows, max_result_bytes=max_result_bytes)
    raise TypeError(
        "databases must be None, a Spider-layout root path, an answerkey.adapters.sql.Databases, an engine or an "
        f"object with a db_path, not {kind_of(databases)}"
    )


class MetricEvaluator:
    """QATCH 0.1-0.2.x's ``qatch.metric_evaluator.MetricEvaluator``: evaluate predictions of
    QA (tables) or SP (SQL) tests with QATCH's metrics.

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


# ---------------------------------------------------------------- QATCH 1.0

# QATCH 1.0's evaluator names, in its order, and the result key of each. QATCH 1.0 writes the
# efficiency score as "valid_efficiency_score" when it computes it, and as "VES" when it
# does not (identical queries, a failing prediction); answerkey always uses the first.
EVALUATOR_NAMES = {
    "cell_precision": "cell_precision",
    "cell_recall": "cell_recall",
    "tuple_cardinality": "tuple_cardinality",
    "tuple_order": "tuple_order",
    "tuple_constraint": "tuple_constraint",
    "execution_accuracy": "execution_accuracy",
    "VES": "valid_efficiency_score",
}
_VES = "valid_efficiency_score"
# Also accepted as an evaluator name: the efficiency score's result key.
_ALIASES = {_VES: _VES}

Rows = tuple[tuple[Value, ...], ...]


class OrchestratorEvaluator:
    """QATCH 1.0's ``qatch.evaluate_dataset.orchestrator_evaluator.OrchestratorEvaluator``:
    evaluate tests whose target and prediction are SQL (run on an SQLite file) or tables.

    ``evaluator_names`` are QATCH 1.0's (``EVALUATOR_NAMES``: ``cell_precision``,
    ``cell_recall``, ``tuple_cardinality``, ``tuple_order``, ``tuple_constraint``,
    ``execution_accuracy``, ``VES``); None or empty means all seven, as in QATCH 1.0
    (``VES`` times every correct prediction: leave it out for speed). Results are keyed by
    metric name, ``VES`` as ``valid_efficiency_score``.

    QATCH 1.0's rules are kept: tuple order is computed only when the target is SQL with
    ``ORDER BY`` (None otherwise, also for a target given as a table); a target and a
    prediction that are the same SQL text but for letter case score 1.0 on every metric
    without running; a prediction whose query fails scores 0.0 on every metric (tuple order
    None without ``ORDER BY``); a target that fails raises ``ValueError`` ("Target gets an
    Error ..."); ``VES`` is 0.0 where the target or the prediction is a table. ``evaluate_df``
    groups the rows by database, evaluates each group on one database, and returns a new
    DataFrame as QATCH 1.0 builds it (rows in the original order, a fresh 0..n-1 index, one
    column per metric after the original ones; tuple order is NaN in a column that also
    holds numbers, None in one that holds none).

    Keywords (not in QATCH): ``rule`` sets how cells match (default epsilon 1e-4);
    ``ves_runs`` the rounds timed for ``VES`` (QATCH's 100); ``timeout`` (seconds),
    ``max_rows`` and ``max_result_bytes`` bound each query.

    Differences from QATCH 1.0, each deliberate: scores are floats, not rounded to three
    decimals (QATCH 1.0 also gives execution accuracy as the int 0 or 1 where it compares,
    and numpy floats for tuple order and VES); a result holds the metrics asked for only
    (QATCH 1.0 adds a ``tuple_order`` key of None when it was not asked for, and raises
    ``KeyError`` when it was not asked for and the target has ``ORDER BY``); ``VES`` is
    BIRD's (QATCH 1.0 swaps the two times and divides mean times: see
    ``answerkey.metrics.efficiency``); only semicolons at the end of a query are dropped
    (QATCH 1.0 drops every one, also inside string literals); an unknown evaluator name is
    a ``ValueError`` naming the known ones (a ``KeyError`` in QATCH 1.0); a prediction that
    is neither SQL text nor a table scores zeros (QATCH 1.0's pydantic model raises).
    """

    def __init__(
        self,
        evaluator_names: Sequence[str] | str | None = None,
        *,
        rule: MatchRule | None = None,
        ves_runs: int = DEFAULT_VES_RUNS,
        timeout: float = SQL_TIMEOUT,
        max_rows: int = SQL_MAX_ROWS,
        max_result_bytes: int = SQL_MAX_RESULT_BYTES,
    ) -> None:
        if isinstance(evaluator_names, str):
            evaluator_names = [evaluator_names]
        names = list(evaluator_names or EVALUATOR_NAMES)
        unknown = [name for name in names if name not in EVALUATOR_NAMES and name not in _ALIASES]
        if unknown:
            raise ValueError(f"unknown evaluator {unknown[0]!r}; known: {', '.join(EVALUATOR_NAMES)}")
        self.evaluator_names = names
        # The result keys, in the order of the names (a name given twice counts once).
        self.metrics = list(dict.fromkeys(EVALUATOR_NAMES.get(name) or _ALIASES[name] for name in names))
        self.rule = rule
        self.ves_runs = check_runs(ves_runs)
        self.timeout = timeout
        self.max_rows = max_rows
        self.max_result_bytes = max_result_bytes

    def evaluate_single_test(
        self, target_query: object, predicted_query: object, connector: object = None
    ) -> dict[str, float | None]:
        """The metrics of one test: ``{metric: value}``, in the order of the names.

        ``target_query`` and ``predicted_query`` are SQL text, or tables (lists of rows).
        ``connector`` is the database SQL runs on: the path of an SQLite file, or an object
        with a ``db_path`` naming one (QATCH 1.0's ``SqliteConnector``); None when both are
        tables. The database is opened read-only: it is never changed.

        >>> OrchestratorEvaluator(["cell_recall", "tuple_order"]).evaluate_single_test(
        ...     "SELECT a FROM t ORDER BY a", "select a from t order by a", "no/such.sqlite")
        {'cell_recall': 1.0, 'tuple_order': 1.0}
        """
        return self._evaluate(target_query, predicted_query, self._runner(connector))

    def evaluate_df(self, df: Any, target_col_name: str, prediction_col_name: str, db_path_name: str) -> Any:
        """Evaluate every row of a pandas DataFrame; return a new DataFrame: the rows (as
        ``df.to_dict("records")`` gives them) with one column per metric appended.

        ``df[db_path_name]`` holds the path of each row's SQLite file. Rows are evaluated
        database by database (QATCH 1.0's grouping; each database is opened once per query,
        read-only), and come back in their original order. A row whose target fails raises
        ``ValueError``, as in QATCH 1.0. Needs pandas: ``pip install 'answerkey[pandas]'``.
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("evaluate_df needs pandas: pip install 'answerkey[pandas]'") from None

        records = df.to_dict("records")
        groups: dict[object, list[dict[str, Any]]] = {}
        for number, record in enumerate(records, start=1):
            database = _database_key(record[db_path_name])
            if database is not None and not isinstance(database, (str, os.PathLike)):
                raise TypeError(
                    f"the column {db_path_name!r} must hold paths of SQLite files, "
                    f"not {kind_of(database)} (row {number})"
                )
            groups.setdefault(database, []).append(record)
        for database, tests in groups.items():
            run = self._runner(database)
            name = os.path.basename(os.fspath(database)) if isinstance(database, (str, os.PathLike)) else "no database"
            for test in progress(tests, total=len(tests), label=f"Evaluating tests for {name}"):
                test.update(self._evaluate(test[target_col_name], test[prediction_col_name], run))
        return pd.DataFrame(records)

    def _runner(self, connector: object) -> QueryRunner | None:
        """How queries run on ``connector``'s database (None: no database)."""
        if connector is None:
            return None
        path = connector if isinstance(connector, (str, os.PathLike)) else getattr(connector, "db_path", None)
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                "connector must be the path of an SQLite file, an object with a db_path (QATCH's "
                f"SqliteConnector) or None, not {kind_of(connector)}"
            )
        return partial(
            run_query, path, timeout=self.timeout, max_rows=self.max_rows, max_result_bytes=self.max_result_bytes
        )

    def _evaluate(self, target: object, prediction: object, run: QueryRunner | None) -> dict[str, float | None]:
        ordered = isinstance(target, str) and has_order_by(target)
        if isinstance(target, str) and isinstance(prediction, str) and target.lower() == prediction.lower():
            values: Mapping[str, float | None] = dict.fromkeys(self.metrics, 1.0)
        else:
            values = self._scores(target, prediction, run, ordered)
        return {name: (None if name == "tuple_order" and not ordered else values[name]) for name in self.metrics}

    def _scores(self, target: object, prediction: object, run: QueryRunner | None, ordered: bool) -> dict[str, float]:
        target_rows = self._rows(target, run, "target")
        if isinstance(target_rows, str):
            raise ValueError(f"Target gets an Error `{target}`: {target_rows}")
        prediction_rows = self._rows(prediction, run, "prediction")
        if isinstance(prediction_rows, str):
            _log.warning("the prediction scores 0: %s", prediction_rows)
            return dict.fromkeys(self.metrics, 0.0)
        wanted = [name for name in self.metrics if name in TABLE_METRICS and (ordered or name != "tuple_order")]
        timed = _VES in self.metrics
        if timed and "execution_accuracy" not in wanted:
            wanted.append("execution_accuracy")
        scores = table_scores(target_rows, prediction_rows, rule=self.rule, metrics=wanted)
        if timed:
            scores[_VES] = self._ves(target, prediction, run, scores["execution_accuracy"])
        return scores

    def _rows(self, query: object, run: QueryRunner | None, role: str) -> Rows | str:
        """The rows of SQL text run on the database, or of a table; or why there are none."""
        if not isinstance(query, str):
            rows = parse_table(query)
            return "it is neither SQL text nor a table (a list of rows)" if rows is None else rows
        if run is None:
            raise ValueError(
                f"the {role} is SQL but there is no database: give connector, the path of an SQLite file "
                "(evaluate_df: the column db_path_name)"
            )
        query = _without_final_semicolons(query)
        if not query.strip():
            return "the query is empty"
        result: QueryResult = run(query)
        if result.error is not None:
            return result.error
        return result.rows

    def _ves(self, target: object, prediction: object, run: QueryRunner | None, accuracy: float) -> float:
        """BIRD's VES of a prediction whose rows are known: 0.0 unless both are SQL and it is correct."""
        if not accuracy or run is None or not (isinstance(target, str) and isinstance(prediction, str)):
            return 0.0
        timed = time_runs(_without_final_semicolons(target), _without_final_semicolons(prediction), run, self.ves_runs)
        if isinstance(timed, str):
            _log.warning("its VES is 0: %s", timed)
            return 0.0
        return ves(accuracy, *timed)


def _without_final_semicolons(query: str) -> str:
    """``query`` without the semicolons and spaces at its end (one pass from the end: a
    regular expression would take quadratic time on a long run of spaces)."""
    if len(query) > MAX_QUERY_CHARS:
        return query  # refused as too long when run
    end = len(query)
    while end and (query[end - 1] == ";" or query[end - 1].isspace()):
        end -= 1
    return query[:end]


def _database_key(value: object) -> object:
    """A row's database path as a grouping key: a missing one (None, pandas' NaN) is None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value
