"""QATCH tests scored: one test (``evaluate_test``) or a whole file of them (``run_qatch``).

A *QA* test compares a predicted table (a list of rows, or its JSON text) with a target
table, or with the result of a target SQL query. An *SP* test runs a predicted SQL query and
a target SQL query on the test's database and compares their results. Both use the table
metrics of ``answerkey.metrics.table``; tuple order applies only when the target is a table
or a query with ``ORDER BY``. SP tests may also get BIRD's valid efficiency score
(``valid_efficiency_score``, ``answerkey.metrics.efficiency``): a correct prediction's
speed relative to the target, from ``ves_runs`` timed runs of each query.

A target that cannot be evaluated is an error of the test (left out of the means); a
prediction that is malformed or fails to run scores 0 on every metric that applies.

``run_qatch`` scores every test of a file into a ``QatchRun``, the result its reports are
written from (its ``QatchReport``, ``answerkey.qatch.schema``): the outcomes in file order, whatever ``jobs`` is,
and the mean of each metric over the tests where it has a value.

>>> outcome = evaluate_test([["scotland", "wales"], ["england"]], '[["wales", "scotland"], ["england"]]',
...                         task="qa", metrics=["cell_precision", "tuple_constraint"])
>>> outcome.scores, outcome.error, outcome.prediction_error
({'cell_precision': 1.0, 'tuple_constraint': 1.0}, None, None)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from typing import cast

from answerkey._deprecated import keep_old_names
from answerkey.adapters.engines import Engine, SQLiteEngine, engine_of, run_on
from answerkey.adapters.sql import Databases
from answerkey.comparator import DEFAULT_ABS_EPSILON, DEFAULT_EPSILON, STRING_MODES, MatchRule
from answerkey.errors import RunWarning
from answerkey.limits import MAX_TABLE_CHARS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT
from answerkey.metrics.efficiency import DEFAULT_VES_RUNS, check_runs, time_runs, valid_efficiency_score, ves
from answerkey.metrics.registry import METRIC_KINDS, METRICS, defaults_for, metrics_for, needs_order
from answerkey.metrics.table import table_rows, table_scores
from answerkey.model import Value
from answerkey.parallel import ordered_map, shared
from answerkey.progress import progress
from answerkey.qatch.schema import QatchReport, QatchSummary, QatchTestReport
from answerkey.report import Reported
from answerkey.report.schema import build
from answerkey.signature import Signature

TASKS = ("qa", "sp")
"""QATCH's tasks: ``qa`` (question answering, a predicted table) and ``sp`` (semantic parsing, predicted SQL)."""
# The metric a run times itself (SP tests only), sharing the test's execution accuracy.
VES = valid_efficiency_score.__name__
QATCH_METRICS = defaults_for("qatch-evaluator")
"""The metrics QATCH's MetricEvaluator computes by default (execution accuracy is opt-in)."""
MALFORMED_PREDICTION = 'the prediction is not a table like [["wales", "scotland"], ["england"]]'

_ORDER_BY = re.compile(r"\border\s+by\b", re.IGNORECASE)

Rows = tuple[tuple[Value, ...], ...]


@dataclass(frozen=True)
class TestOutcome:
    """The scores of one test.

    ``scores`` maps each metric asked for to its value, or to None when it does not apply
    (tuple order without ``ORDER BY``) or the test is in error. ``error`` says why the
    target could not be evaluated (the test is broken); ``prediction_error`` why the
    prediction scored zeros (malformed table, failing query). ``ves_error`` says why a
    correct prediction's VES is 0 (a timed run failed, past the time limit say).
    """

    __test__ = False  # not a pytest test class, whatever its name

    scores: dict[str, float | None] = field(default_factory=dict)
    error: str | None = None
    prediction_error: str | None = None
    ves_error: str | None = None


def has_order_by(query: str) -> bool:
    """True when the SQL text has ``ORDER BY`` (any case and spacing): QATCH's rule is a test
    on the text (``order by`` in it), kept as a text test, only freed of one spelling.

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
    """A NumPy array (a pandas cell holding rows) as a list of its items; its cells are left
    to ``value_of`` (``tolist`` would turn ``datetime64[ns]`` into integer nanoseconds)."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", 0) > 0:
        return list(cast(Iterable[object], value))
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
    except (TypeError, ValueError, RecursionError):
        return None


def _zeros(metrics: Sequence[str], order_applies: bool) -> dict[str, float | None]:
    return {name: (None if needs_order(name) and not order_applies else 0.0) for name in metrics}


def evaluate_test(
    target: object,
    prediction: object,
    *,
    task: str,
    db_id: str | None = None,
    databases: Engine | Databases | None = None,
    metrics: Iterable[str] | None = None,
    rule: MatchRule | None = None,
    ves_runs: int = DEFAULT_VES_RUNS,
) -> TestOutcome:
    """Score one test of ``task`` ``"qa"`` or ``"sp"``.

    ``target`` is SQL text (run on ``db_id`` in ``databases``: an engine of
    ``answerkey.adapters.engines``, or an ``answerkey.adapters.sql.Databases``, run through
    its SQLite engine) or, for QA, a table; for SP
    ``prediction`` is SQL text, for QA a table (a list of rows or its JSON text).
    ``metrics`` are names of ``metrics_for("qatch")`` (default: ``defaults_for("qatch")``);
    ``valid_efficiency_score`` (SP only) times ``ves_runs`` rounds of both queries when the
    prediction is correct.

    >>> evaluate_test("[1, 2]", [["a"]], task="qa", metrics=["cell_recall"]).error
    'the target is not a table (a list of rows)'
    >>> outcome = evaluate_test([["a"]], "a", task="qa", metrics=["cell_recall", "tuple_order"])
    >>> outcome.scores, outcome.prediction_error == MALFORMED_PREDICTION
    ({'cell_recall': 0.0, 'tuple_order': 0.0}, True)
    """
    metrics = list(defaults_for("qatch") if metrics is None else metrics)
    engine = None if databases is None else engine_of(databases)
    task = task.lower()
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; known: {', '.join(TASKS)}")
    _check_metrics(metrics, task)
    target_is_table = task == "qa" and is_table(target)
    order_applies = target_is_table or (isinstance(target, str) and has_order_by(target))
    undefined: dict[str, float | None] = dict.fromkeys(metrics)

    if target_is_table:
        target_rows = parse_table(target)
        if target_rows is None:
            return TestOutcome(undefined, error="the target is not a table (a list of rows)")
    else:
        ran = _run(engine, db_id, target, "target")
        if isinstance(ran, str):
            return TestOutcome(undefined, error=ran)
        target_rows = ran

    if task == "qa":
        prediction_rows = parse_table(prediction)
        if prediction_rows is None:
            return TestOutcome(_zeros(metrics, order_applies), prediction_error=MALFORMED_PREDICTION)
    else:
        ran = _run(engine, db_id, prediction, "prediction")
        if isinstance(ran, str):
            return TestOutcome(_zeros(metrics, order_applies), prediction_error=ran)
        prediction_rows = ran

    wanted = [name for name in metrics if METRIC_KINDS[name] == "table" and (order_applies or not needs_order(name))]
    timed = VES in metrics
    if timed and "execution_accuracy" not in wanted:
        wanted.append("execution_accuracy")
    scores: dict[str, float | None] = dict(table_scores(target_rows, prediction_rows, rule=rule, metrics=wanted))
    ves_error = None
    if timed:
        scores[VES], ves_error = _ves(engine, db_id, target, prediction, scores["execution_accuracy"], ves_runs)
    for name in metrics:
        if METRIC_KINDS[name] == "sql" and name != VES and engine is not None and isinstance(db_id, str):
            # Another SQL metric: called as the registry's kind says, on the test's database.
            scores[name] = METRICS[name](target, prediction, database=partial(run_on, engine, db_id), rule=rule)
    return TestOutcome({name: scores.get(name) for name in metrics}, ves_error=ves_error)


def _check_metrics(metrics: Sequence[str], task: str) -> None:
    known = metrics_for("qatch")
    unknown = [name for name in metrics if name not in known]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(known)}")
    if task != "sp" and VES in metrics:
        raise ValueError(f"{VES} applies only to task sp (it times SQL queries)")
    queried = [name for name in metrics if METRIC_KINDS[name] == "sql"]
    if task != "sp" and queried:
        raise ValueError(f"{queried[0]} applies only to task sp (it compares SQL queries)")


def _ves(
    engine: Engine | None, db_id: object, target: object, prediction: object, accuracy: float | None, runs: int
) -> tuple[float, str | None]:
    """The VES of an SP test whose queries both ran, and why it is 0 if a timed run failed."""
    if not accuracy or engine is None or not isinstance(db_id, str):
        return 0.0, None  # a wrong prediction is not timed
    if not (isinstance(target, str) and isinstance(prediction, str)):
        return 0.0, None  # never: both queries ran
    timed = time_runs(target, prediction, partial(run_on, engine, db_id), runs)
    if isinstance(timed, str):
        return 0.0, timed
    return ves(accuracy, *timed), None


def _run(engine: Engine | None, db_id: object, query: object, role: str) -> Rows | str:
    """The rows of ``query``, or the error as text."""
    if not isinstance(query, str) or not query.strip():
        return f"the {role} query is missing (not SQL text)"
    if engine is None:
        return f"the {role} is a query, but no databases are given"
    if not isinstance(db_id, str):
        return f"the {role} is a query, but the test has no db_id"
    result = run_on(engine, db_id, query)
    if not result.ok:
        return f"the {role} query failed: {result.error}"
    return result.rows


# ---------------------------------------------------------------- a run over a tests file


@dataclass(frozen=True)
class QatchTest:
    """One test of a tests file: its id, the line it starts on (None when not read from a
    file), its database, the target and the prediction as given."""

    __test__ = False  # not a pytest test class, whatever its name

    id: str
    line: int | None
    db_id: str | None
    target: object
    prediction: object


def needs_databases(tests: Iterable[QatchTest], task: str) -> bool:
    """True when some test runs SQL (so a databases root is needed).

    >>> needs_databases([QatchTest("1", 1, None, [["a"]], [["a"]])], "qa")
    False
    """
    return task == "sp" or any(not is_table(test.target) for test in tests)


@dataclass(frozen=True)
class QatchOptions:
    """Everything that changes the scores of a run (all of it but ``metrics`` and ``root``
    goes into the signature; ``ves_runs`` only when ``valid_efficiency_score`` is computed,
    ``abs_epsilon``, the absolute floor of the tolerance for reals, only when set).

    >>> str(QatchOptions(task="sp").signature)  # doctest: +ELLIPSIS
    'task:sp|eps:0.0001|strings:exact|timeout:30|max_rows:1000000|max_result_bytes:67108864|v:...'
    """

    task: str
    metrics: tuple[str, ...] = field(default_factory=partial(defaults_for, "qatch"))
    epsilon: float = DEFAULT_EPSILON
    abs_epsilon: float = DEFAULT_ABS_EPSILON
    strings: str = next(iter(STRING_MODES))
    root: str | None = None
    timeout: float = SQL_TIMEOUT
    max_rows: int = SQL_MAX_ROWS
    max_result_bytes: int = SQL_MAX_RESULT_BYTES
    ves_runs: int = DEFAULT_VES_RUNS

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r}; known: {', '.join(TASKS)}")
        _check_metrics(self.metrics, self.task)
        check_runs(self.ves_runs)
        if not (math.isfinite(self.timeout) and self.timeout > 0):
            raise ValueError(f"timeout must be a finite number of seconds above 0, not {self.timeout!r}")
        if self.max_rows < 1 or self.max_result_bytes < 1:
            raise ValueError("max_rows and max_result_bytes must be at least 1")
        MatchRule(
            epsilon=self.epsilon, strings=self.strings, abs_epsilon=self.abs_epsilon
        )  # rejects a bad epsilon or strings mode

    @property
    def rule(self) -> MatchRule:
        """How cells are matched."""
        return MatchRule(epsilon=self.epsilon, strings=self.strings, abs_epsilon=self.abs_epsilon)

    @property
    def signature(self) -> Signature:
        """``task:sp|eps:0.0001|strings:exact|timeout:30|max_rows:...|max_result_bytes:...|v:...``."""
        described = self.rule.describe()
        timed = {"ves_runs": self.ves_runs} if VES in self.metrics else {}
        return Signature.of(
            task=self.task,
            epsilon=described["epsilon"],
            **({"abs_epsilon": described["abs_epsilon"]} if "abs_epsilon" in described else {}),
            strings=described["strings"],
            timeout=f"{self.timeout:g}",
            max_rows=self.max_rows,
            max_result_bytes=self.max_result_bytes,
            **timed,
        )

    def databases(self) -> Engine | None:
        """The SQLite engine of the databases under ``root`` with this run's limits, or None
        without a root."""
        if self.root is None:
            return None
        return SQLiteEngine(
            self.root, timeout=self.timeout, max_rows=self.max_rows, max_result_bytes=self.max_result_bytes
        )


@dataclass(frozen=True)
class QatchResult:
    """One test and its outcome."""

    test: QatchTest
    outcome: TestOutcome


@dataclass
class QatchRun(Reported):
    """A whole run (a ``answerkey.report.Result``): the results in file order, the mean of
    each metric over the tests without error where it has a value (``None`` where it has
    none), how many tests each mean is over, and the run's counts (``tests``, ``evaluated``,
    ``errors``: targets that failed, ``prediction_errors``: predictions scored 0)."""

    signature: Signature
    options: QatchOptions
    results: list[QatchResult]
    means: dict[str, float | None] = field(default_factory=dict)
    metric_counts: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[RunWarning] = field(default_factory=list)

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The metrics computed in this run."""
        return self.options.metrics

    @property
    def failed(self) -> list[QatchResult]:
        """The tests whose target could not be evaluated (errors of the tests)."""
        return [result for result in self.results if result.outcome.error is not None]

    def report(self) -> QatchReport:
        """The report (``answerkey schema qatch-report``)."""
        return build(
            QatchReport,
            signature=str(self.signature),
            task=self.options.task,
            metrics=list(self.metric_names),
            summary=build(
                QatchSummary,
                tests=self.counts["tests"],
                evaluated=self.counts["evaluated"],
                errors=self.counts["errors"],
                prediction_errors=self.counts["prediction_errors"],
                means=dict(self.means),
                counts=dict(self.metric_counts),
            ),
            tests=[_test_report(result) for result in self.results],
            warnings=[str(warning) for warning in self.warnings],
        )


def _test_report(result: QatchResult) -> QatchTestReport:
    return build(
        QatchTestReport,
        id=result.test.id,
        line=result.test.line,
        db_id=result.test.db_id,
        metrics=dict(result.outcome.scores),
        error=result.outcome.error,
        prediction_error=result.outcome.prediction_error,
        target=result.test.target,
        prediction=result.test.prediction,
    )


def _evaluate(index: int) -> TestOutcome:
    """Score test ``index`` of the run's tests (module level: worker processes import it by
    name; the tests and options reach every worker once, not with each test)."""
    options: QatchOptions
    tests: Sequence[QatchTest]
    options, tests = shared()  # type: ignore[misc]
    test = tests[index]
    return evaluate_test(
        test.target,
        test.prediction,
        task=options.task,
        db_id=test.db_id,
        databases=options.databases(),
        metrics=options.metrics,
        rule=options.rule,
        ves_runs=options.ves_runs,
    )


def run_qatch(tests: Sequence[QatchTest], options: QatchOptions, *, jobs: int = 1, quiet: bool = True) -> QatchRun:
    """Score every test, in ``jobs`` processes; the results are in the order of ``tests``
    whatever ``jobs`` is. ``quiet=False`` draws a progress bar on a terminal for long runs.

    >>> tests = [QatchTest("t1", 1, None, [["a"], ["b"]], [["b"], ["a"]]), QatchTest("t2", 2, None, [["a"]], "a")]
    >>> run = run_qatch(tests, QatchOptions(task="qa", metrics=("cell_recall", "tuple_order")))
    >>> run.means, run.counts["prediction_errors"]
    ({'cell_recall': 0.5, 'tuple_order': 0.0}, 1)
    """
    tests = list(tests)
    outcomes = progress(
        ordered_map(_evaluate, range(len(tests)), jobs=jobs, shared=(options, tests)),
        total=len(tests),
        label="qatch",
        quiet=quiet,
    )
    results = [QatchResult(test, outcome) for test, outcome in zip(tests, outcomes)]
    means: dict[str, float | None] = {}
    metric_counts: dict[str, int] = {}
    for name in options.metrics:
        values = [
            score
            for result in results
            if result.outcome.error is None and (score := result.outcome.scores.get(name)) is not None
        ]
        means[name] = math.fsum(values) / len(values) if values else None
        metric_counts[name] = len(values)
    errors = sum(result.outcome.error is not None for result in results)
    counts = {
        "tests": len(results),
        "evaluated": len(results) - errors,
        "errors": errors,
        "prediction_errors": sum(result.outcome.prediction_error is not None for result in results),
    }
    warnings = [
        RunWarning(f"test {result.test.id}: {result.outcome.ves_error}, so its {VES} is 0", "ves")
        for result in results
        if result.outcome.ves_error is not None
    ]
    if VES in options.metrics and jobs > 1 and len(tests) > 1:
        warnings.insert(
            0,
            RunWarning(
                f"{VES} timed queries while {jobs} processes ran tests at once: the times are noisier "
                "(time with --jobs 1)",
                "ves-jobs",
            ),
        )
    return QatchRun(options.signature, options, results, means, metric_counts, counts, warnings)


# The names these had before one naming scheme for every workflow, kept for one release.
keep_old_names(globals(), {"run_tests": "run_qatch"})
