"""Execution evaluation: gold and predicted SQL run on each database of an item, results judged.

``run_sql`` evaluates every item of ``SqlInputs`` into a ``SqlRun``, the result its reports
are written from (its ``SqlReport``, ``answerkey.execution.schema``).

**Work.** Items are grouped per database (``make_batches``: the items of one db_id, in
batches of at most ``BATCH_SIZE``, db_ids in order of first appearance), and an executor
maps ``run_batch`` over the batches: ``LocalExecutor`` in this process or in ``jobs``
processes (``answerkey.parallel``); any other ``Executor`` (a Dask cluster) runs the same
pure function anywhere the databases can be read from ``SqlOptions.location``. A batch
opens the engine from its options and keeps one connection per database for its items.
Outcomes come back per batch and are put back in input order: the report is the same
whatever the executor and the number of processes.

**One item.** The gold and the prediction run on each database of the item's db_id, in
order (one, or several: test-suite-sql-eval's distilled suites, ``<db_id>.sqlite`` first),
until the item has failed under every semantics. On each, the two results are decided
under every semantics (``answerkey.execution.semantics``); under each, the item is correct
only if it is correct on every database (test-suite accuracy), and its report names the
database where it failed under the headline semantics. When the semantics end up
disagreeing, the report says which rule decided what (``disagreement``). A gold query that
fails is an error of the test (the item is left out of every figure); a predicted query that
fails, or a missing prediction, makes the item incorrect under every semantics.

**Rewritten queries.** A semantics whose official script rewrites the queries before running
them (``Semantics.rewrite``: test-suite's, by default DISTINCT removed unless
``SqlOptions.test_suite_keep_distinct``) decides on the queries as rewritten. Where that
changes the gold or the prediction, the rewritten pair runs on the same database with the
same limits (through the cache, as any query) and decides that semantics, its reason saying
so; elsewhere the results already fetched decide it, with no other query. A prediction that
fails as written may so be correct under it. A gold that fails only as rewritten (``IS
DISTINCT FROM`` under test-suite) stops the official script: an error of the test under that
headline, otherwise incorrect under that semantics with a warning.

**Metrics**, computed on the first database: QATCH's table metrics (``tuple_order`` only
where the gold is ordered: an ``ORDER BY`` or ``order_by``), BIRD mini-dev's soft F1, and
when asked BIRD's valid efficiency score (a correct prediction timed against the gold,
``ves_runs`` rounds). Means are over the evaluated items where a metric applies.

**One execution per query.** Within an item, on each database, a query whose SQL text is one
already run for the item (a prediction written exactly as its gold, a rewritten query equal
to another) reuses that result: it never runs twice, cache or not. VES's timed runs are the
exception: they time real executions.

**Cache** (``SqlOptions.cache``): gold and predicted results are read from and stored in an
``answerkey.execution.cache.ResultCache``, once per engine, database content, SQL text and
limits (what decides a result); failed queries are not stored, and VES never reads it.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Protocol

from answerkey.adapters.engines import Database, Engine, NoDatabase, QueryResult, open_engine
from answerkey.adapters.sql import limits_problem
from answerkey.comparator import DEFAULT_EPSILON, STRING_MODES, MatchRule
from answerkey.errors import RunWarning, plural
from answerkey.execution.cache import CacheKey, ResultCache
from answerkey.execution.load import SqlInputs, SqlItem
from answerkey.execution.schema import GroupFigures, SqlItemReport, SqlReport, SqlSummary
from answerkey.execution.semantics import (
    DEFAULT_SEMANTICS,
    SEMANTICS as SEMANTICS,
    Decision,
    decide,
    decide_all,
    decided_semantics,
    disagreement,
    has_outer_order_by,
    names,
    semantics_named,
)
from answerkey.execution.semantics._base import RewrittenPair
from answerkey.execution.semantics._registry import checked_options, explained, options_of, options_signature
from answerkey.limits import DUCKDB_MEMORY_LIMIT, DUCKDB_THREADS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT
from answerkey.metrics.efficiency import DEFAULT_VES_RUNS, check_runs, time_runs, valid_efficiency_score, ves
from answerkey.metrics.registry import METRIC_KINDS, METRICS, defaults_for, metrics_for, needs_order
from answerkey.metrics.table import table_scores
from answerkey.parallel import ordered_map, shared
from answerkey.progress import ProgressBar
from answerkey.report import Reported
from answerkey.report.schema import build
from answerkey.signature import Signature

# The metric a run times itself, on the first database (computed only when named).
VES = valid_efficiency_score.__name__
# test-suite's option, also written SqlOptions.test_suite_keep_distinct.
_KEEP_DISTINCT = "test-suite:keep_distinct"
# Items of one db_id per batch: large enough that a batch's connections serve many items,
# small enough to spread a large db_id over the processes.
BATCH_SIZE = 64
# Difficulty levels in the order the benchmarks list them (Spider, then BIRD); others follow by name.
DIFFICULTY_ORDER = ("easy", "simple", "medium", "moderate", "hard", "challenging", "extra")


@dataclass(frozen=True)
class SqlOptions:
    """Everything a run needs, picklable (sent to every process and worker).

    ``location`` names the databases (a directory, or a ``postgresql://`` URL) and
    ``engine`` their engine (None: from the location). ``semantics`` is the headline one;
    ``epsilon``, ``strings`` and the limits change verdicts and are in the signature with
    it (``ves_runs`` too when VES is computed). ``cache`` is a cache directory of query results.
    ``memory_limit`` (bytes) and ``threads`` bound each DuckDB query (other engines ignore
    them; not in the signature: a query past the memory limit fails with its reason).
    ``semantics_options`` are options of the semantics (``Semantics.options``), each
    ``name:option`` (in the signature when set, as ``name:option``, the name with ``_``);
    ``test_suite_keep_distinct`` is ``test-suite:keep_distinct``: DISTINCT kept in the
    queries the test-suite semantics runs (test-suite-sql-eval's ``--keep_distinct``).

    >>> str(SqlOptions("dbs", engine="sqlite").signature)  # doctest: +ELLIPSIS
    'semantics:answerkey|eps:0.0001|strings:exact|engine:sqlite|timeout:30|max_rows:1000000|max_result_bytes:...'
    """

    location: str
    engine: str | None = None
    semantics: str = DEFAULT_SEMANTICS
    epsilon: float = DEFAULT_EPSILON
    strings: str = next(iter(STRING_MODES))
    metrics: tuple[str, ...] = field(default_factory=partial(defaults_for, "sql"))
    timeout: float = SQL_TIMEOUT
    max_rows: int = SQL_MAX_ROWS
    max_result_bytes: int = SQL_MAX_RESULT_BYTES
    ves_runs: int = DEFAULT_VES_RUNS
    cache: str | None = None
    test_suite_keep_distinct: bool = False
    memory_limit: int = DUCKDB_MEMORY_LIMIT
    threads: int = DUCKDB_THREADS
    semantics_options: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.semantics not in names():
            raise ValueError(f"unknown semantics {self.semantics!r}; known: {', '.join(names())}")
        kept = (_KEEP_DISTINCT,) if self.test_suite_keep_distinct else ()
        chosen = checked_options((*self.semantics_options, *kept))
        # One truth for both spellings of test-suite's option (frozen: set through object).
        object.__setattr__(self, "semantics_options", chosen)
        object.__setattr__(self, "test_suite_keep_distinct", _KEEP_DISTINCT in chosen)
        known = metrics_for("sql")
        unknown = [name for name in self.metrics if name not in known]
        if unknown:
            raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(known)}")
        check_runs(self.ves_runs)
        problem = limits_problem(self.timeout, self.max_rows, self.max_result_bytes)
        if problem is not None:
            raise ValueError(problem)
        MatchRule(epsilon=self.epsilon, strings=self.strings)  # rejects a bad epsilon or strings mode

    @property
    def decided_semantics(self) -> tuple[str, ...]:
        """The semantics this run decides: those decided by default, and the headline."""
        return decided_semantics(self.semantics)

    def options_of(self, semantics: str) -> frozenset[str]:
        """The options chosen for ``semantics`` (``semantics_options``)."""
        return options_of(self.semantics_options, semantics)

    @property
    def rule(self) -> MatchRule:
        """How values are matched."""
        return MatchRule(epsilon=self.epsilon, strings=self.strings)

    @property
    def signature(self) -> Signature:
        """``semantics:...|eps:...|strings:...|engine:...|timeout:...|max_rows:...|max_result_bytes:...|v:...``."""
        described = self.rule.describe()
        timed = {"ves_runs": self.ves_runs} if VES in self.metrics else {}
        return Signature.of(
            semantics=self.semantics,
            **options_signature(self.semantics_options, self.decided_semantics),
            epsilon=described["epsilon"],
            strings=described["strings"],
            engine=self.engine or "auto",
            timeout=f"{self.timeout:g}",
            max_rows=self.max_rows,
            max_result_bytes=self.max_result_bytes,
            **timed,
        )

    def open_engine(self) -> Engine:
        """The engine of ``location`` with this run's limits; ``ValueError`` if it cannot be used."""
        return open_engine(
            self.location,
            engine=self.engine,
            timeout=self.timeout,
            max_rows=self.max_rows,
            max_result_bytes=self.max_result_bytes,
            memory_limit=self.memory_limit,
            threads=self.threads,
        )


# ---------------------------------------------------------------- batches


@dataclass(frozen=True)
class BatchItem:
    """What evaluating one item needs: its position in the input, the gold and predicted SQL
    (None: no prediction) and the item's comparison options."""

    index: int
    gold: str
    predicted: str | None
    order_by: tuple[int, ...] | None = None
    condition_cols: tuple[int, ...] | None = None
    ignore_order: bool | None = None


@dataclass(frozen=True)
class Batch:
    """Items of one db_id, evaluated together by one worker (which keeps its connections)."""

    db_id: str
    items: tuple[BatchItem, ...]


def make_batches(items: Sequence[SqlItem], size: int = BATCH_SIZE) -> list[Batch]:
    """The items grouped per db_id (db_ids in order of first appearance, items in input
    order), in batches of at most ``size``.

    >>> items = [SqlItem("a", "x", "SELECT 1"), SqlItem("b", "y", "SELECT 2"), SqlItem("c", "x", "SELECT 3")]
    >>> [(batch.db_id, [item.index for item in batch.items]) for batch in make_batches(items)]
    [('x', [0, 2]), ('y', [1])]
    """
    if size < 1:
        raise ValueError("a batch holds at least one item")
    groups: dict[str, list[BatchItem]] = {}
    for index, item in enumerate(items):
        groups.setdefault(item.db_id, []).append(
            BatchItem(index, item.gold, item.predicted, item.order_by, item.condition_cols, item.ignore_order)
        )
    return [
        Batch(db_id, tuple(group[start : start + size]))
        for db_id, group in groups.items()
        for start in range(0, len(group), size)
    ]


@dataclass(frozen=True)
class ItemOutcome:
    """What evaluating one item found (picklable: it comes back from workers).

    ``verdict`` is the headline one (``correct``, ``incorrect``, or ``error`` when the gold
    failed) and ``reason`` says why; ``verdicts`` holds whether the item is correct under
    each semantics (empty for an error). ``database`` names the database where the item
    failed (its gold, or the prediction under the headline semantics), ``databases`` how
    many databases the db_id has. ``metrics`` maps each metric to its value (None where it
    does not apply). ``warnings`` are the problems met on the way (an unreadable cache entry,
    a failed VES run); ``cache_hits`` and ``cache_misses`` count results read from the
    cache and queries run through it (gold and predicted; a reused result is neither).
    """

    index: int
    verdict: str
    reason: str
    verdicts: dict[str, bool] = field(default_factory=dict)
    database: str | None = None
    databases: int = 0
    disagreement: str | None = None
    metrics: dict[str, float | None] = field(default_factory=dict)
    warnings: tuple[RunWarning, ...] = ()
    cache_hits: int = 0
    cache_misses: int = 0


def _zeros(names: Sequence[str], ordered: bool) -> dict[str, float | None]:
    return {name: (None if needs_order(name) and not ordered else 0.0) for name in names}


def _sort_keys(item: BatchItem) -> tuple[int, ...] | None:
    """The item's ``order_by`` as 0-based sort keys (None: from the gold's ORDER BY)."""
    return None if item.order_by is None else tuple(column - 1 for column in item.order_by)


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class _Evaluator:
    """Evaluates the items of one batch on the databases of its db_id."""

    def __init__(
        self, engine: Engine, databases: tuple[Database, ...], options: SqlOptions, cache: ResultCache | None
    ) -> None:
        self.engine = engine
        self.databases = databases
        self.options = options
        self.rule = options.rule
        self.cache = cache
        self.fingerprints: dict[Database, str] = {}

    def query(
        self, database: Database, sql: str, notes: list[RunWarning], known: dict[str, QueryResult]
    ) -> QueryResult:
        """The result of ``sql`` on ``database``: the one in ``known`` (the item's queries
        already run there, by SQL text, to which it is added), else from the cache, else run
        (and stored)."""
        result = known.get(sql)
        if result is None:
            result = known[sql] = self._cached(database, sql, notes)
        return result

    def _cached(self, database: Database, sql: str, notes: list[RunWarning]) -> QueryResult:
        if self.cache is None:
            return self.engine.run(database, sql)
        fingerprint = self.fingerprints.get(database)
        if fingerprint is None:
            fingerprint = self.fingerprints[database] = self.engine.fingerprint(database)
        options = self.options
        key = CacheKey(
            self.engine.name,
            database.location,
            database.name,
            fingerprint,
            sql,
            options.timeout,
            options.max_rows,
            options.max_result_bytes,
        )
        cached, warning = self.cache.get(key)
        if warning is not None:
            notes.append(warning)
        if cached is not None:
            return cached
        result = self.engine.run(database, sql)
        warning = self.cache.put(key, result)
        if warning is not None:
            notes.append(warning)
        return result

    def item(self, item: BatchItem) -> ItemOutcome:
        """Evaluate one item (cache counts included)."""
        hits, misses = (self.cache.hits, self.cache.misses) if self.cache is not None else (0, 0)
        outcome = self._item(item)
        if self.cache is None:
            return outcome
        return replace(outcome, cache_hits=self.cache.hits - hits, cache_misses=self.cache.misses - misses)

    def _item(self, item: BatchItem) -> ItemOutcome:
        options = self.options
        names = [name for name in options.metrics if METRIC_KINDS[name] != "sql"]
        ordered = bool(item.order_by) if item.order_by is not None else has_outer_order_by(item.gold)
        several = len(self.databases) > 1
        notes: list[RunWarning] = []
        decided = options.decided_semantics
        correct = dict.fromkeys(decided, True)
        failures: dict[str, tuple[int, str]] = {}  # semantics -> (database number, why)
        visited: list[dict[str, Decision]] = []
        metrics: dict[str, float | None] | None = None
        rewrites = [
            rewritten
            for name in decided
            if item.predicted is not None
            and (rewritten := semantics_named(name).rewritten_pair(item.gold, item.predicted, options.options_of(name)))
        ]
        for number, database in enumerate(self.databases):
            known: dict[str, QueryResult] = {}  # this item's results on this database, by SQL text
            gold = self.query(database, item.gold, notes, known)
            if gold.error is not None:
                return self._error(item, f"the gold query failed on {database.label}: {gold.error}", database, notes)
            if item.predicted is None:
                for name in decided:
                    correct[name] = False
                break
            predicted = self.query(database, item.predicted, notes, known)
            if predicted.error is not None:
                why = f"the predicted query failed: {predicted.error}"
                decisions = {name: Decision(name, False, why) for name in decided}
            else:
                try:
                    decisions = decide_all(
                        gold,
                        predicted,
                        gold_sql=item.gold,
                        rule=self.rule,
                        order_by=_sort_keys(item),
                        condition_cols=item.condition_cols,
                        ignore_order=item.ignore_order,
                        semantics=decided,
                    )
                except ValueError as error:
                    # The gold result cannot be judged (a column mixing types, condition columns
                    # beyond it): a problem of the test, as a failing gold query is.
                    return self._error(item, f"on {database.label}: {error}", database, notes)
                if number == 0:
                    metrics = self._metrics(names, ordered, gold, predicted)
            for rewritten in rewrites:
                name = rewritten.semantics.name
                if correct[name]:
                    suited = self._rewritten(item, rewritten, database, notes, known)
                    if isinstance(suited, ItemOutcome):
                        return suited
                    decisions = explained({**decisions, name: suited})
            visited.append(decisions)
            for name, decision in decisions.items():
                if correct[name] and not decision.correct:
                    correct[name] = False
                    failures[name] = (number, decision.reason)
            if not any(correct.values()):
                break
        if metrics is None:
            metrics = _zeros(names, ordered)
        headline = options.semantics
        verdict = "correct" if correct[headline] else "incorrect"
        database_name = None
        if item.predicted is None:
            reason = "no prediction"
        elif correct[headline]:
            reason = visited[0][headline].reason
            if several:
                reason += f" (correct on each of the {len(self.databases)} databases)"
        else:
            number, reason = failures[headline]
            database_name = self.databases[number].name
            if several:
                reason = f"on {self.databases[number].label}: {reason}"
        if VES in options.metrics:
            metrics[VES] = self._ves(item, correct[headline], notes)
        for name in options.metrics:
            if METRIC_KINDS[name] == "sql" and name != VES:
                # Another SQL metric: called as the registry's kind says, on the first database.
                run = partial(self.engine.run, self.databases[0])
                metrics[name] = (
                    0.0
                    if item.predicted is None
                    else METRICS[name](item.gold, item.predicted, database=run, rule=self.rule)
                )
        return ItemOutcome(
            item.index,
            verdict,
            reason,
            verdicts=correct,
            database=database_name,
            databases=len(self.databases),
            disagreement=self._disagreement(correct, failures, visited),
            metrics={name: metrics.get(name) for name in options.metrics},
            warnings=tuple(notes),
        )

    def _error(self, item: BatchItem, reason: str, database: Database, notes: list[RunWarning]) -> ItemOutcome:
        """The outcome of an item that cannot be evaluated on ``database`` (an error of the test)."""
        return ItemOutcome(
            item.index,
            "error",
            reason,
            database=database.name,
            databases=len(self.databases),
            metrics=dict.fromkeys(self.options.metrics),
            warnings=tuple(notes),
        )

    def _rewritten(
        self,
        item: BatchItem,
        rewritten: RewrittenPair,
        database: Database,
        notes: list[RunWarning],
        known: dict[str, QueryResult],
    ) -> Decision | ItemOutcome:
        """The decision of ``rewritten.semantics`` on ``database`` from the queries as it runs
        them: ``known`` holds the item's results there by SQL text (the gold and the
        prediction as written), and a query it rewrites into another text runs (through the
        cache, as any query). When the rewritten gold fails (the official script stops there),
        the item is an error of the test under that headline; under another, it is incorrect
        under that semantics, with a warning."""
        semantics = rewritten.semantics
        name = semantics.name
        # A query the script leaves as written is the one already run: its text finds its result.
        gold = self.query(database, rewritten.gold.sql, notes, known)
        if gold.error is not None:
            why = (
                f"the gold query as {semantics.official or name} runs it ({_listed(rewritten.gold.changes)}) failed on "
                f"{database.label}: {gold.error}"
            )
            if self.options.semantics == name:
                return self._error(item, why, database, notes)
            notes.append(RunWarning(f"{why}; the item is incorrect under {name}", f"{name}-gold"))
            return Decision(name, False, why)
        predicted = self.query(database, rewritten.predicted.sql, notes, known)
        decision = decide(
            name,
            gold,
            predicted,
            gold_sql=rewritten.gold.sql,
            rule=self.rule,
            order_by=_sort_keys(item),
            condition_cols=item.condition_cols,
            ignore_order=item.ignore_order,
        )
        return replace(decision, reason=f"{decision.reason} ({rewritten.how})")

    def _metrics(
        self, names: Sequence[str], ordered: bool, gold: QueryResult, predicted: QueryResult
    ) -> dict[str, float | None]:
        wanted = [name for name in names if METRIC_KINDS[name] == "table" and (ordered or not needs_order(name))]
        values: dict[str, float | None] = _zeros(names, ordered)
        for name in names:  # first: they read the results' driver values, which typed rows replace
            if METRIC_KINDS[name] == "result":
                values[name] = METRICS[name](gold, predicted)
        values.update(table_scores(gold.rows, predicted.rows, rule=self.rule, metrics=wanted))
        return values

    def _disagreement(
        self, correct: dict[str, bool], failures: dict[str, tuple[int, str]], visited: list[dict[str, Decision]]
    ) -> str | None:
        """Which rule decided what, on the first database where a semantics that failed
        failed while another held (None when the semantics agree)."""
        if len(set(correct.values())) < 2:
            return None
        number = min(failures[name][0] for name, holds in correct.items() if not holds)
        text = disagreement(visited[number])
        if text is None or len(self.databases) < 2:
            return text
        return f"on {self.databases[number].label}: {text}"

    def _ves(self, item: BatchItem, correct: bool, notes: list[RunWarning]) -> float:
        """BIRD's VES of a correct prediction, timed on the first database; 0 for a wrong one.
        Its runs are real executions, never read from the cache or reused: they are timed."""
        if not correct or item.predicted is None:
            return 0.0
        timed = time_runs(item.gold, item.predicted, partial(self.engine.run, self.databases[0]), self.options.ves_runs)
        if isinstance(timed, str):
            notes.append(RunWarning(f"{timed}, so its {VES} is 0", "ves"))
            return 0.0
        return ves(1.0, *timed)


def run_batch(batch: Batch, options: SqlOptions) -> list[ItemOutcome]:
    """Evaluate the items of ``batch``, in order: a pure function of its arguments, run in
    this process, a worker process or on a Dask worker. It opens the engine ``options``
    name (one connection per database, kept for the batch's items) and closes it at the end.
    A db_id without databases, or an engine that cannot be opened here, makes each item an
    error of the test."""
    try:
        engine = options.open_engine()
    except ValueError as error:
        return [
            ItemOutcome(item.index, "error", str(error), metrics=dict.fromkeys(options.metrics)) for item in batch.items
        ]
    try:
        try:
            databases = engine.databases(batch.db_id)
        except NoDatabase as error:
            return [
                ItemOutcome(item.index, "error", str(error), metrics=dict.fromkeys(options.metrics))
                for item in batch.items
            ]
        cache = ResultCache(options.cache) if options.cache is not None else None
        evaluator = _Evaluator(engine, databases, options, cache)
        return [evaluator.item(item) for item in batch.items]
    finally:
        engine.close()


class Executor(Protocol):
    """Runs ``run_batch`` over batches somewhere, and yields each batch's outcomes in the
    order of ``batches`` (whatever order they finish in)."""

    def map(self, batches: Sequence[Batch], options: SqlOptions) -> Iterator[list[ItemOutcome]]:
        """``run_batch(batch, options)`` for each batch, in order."""
        ...


def _run_shared_batch(index: int) -> list[ItemOutcome]:
    """Run batch ``index`` of the run's batches (module level: worker processes import it by
    name; the batches and options reach each worker once)."""
    batches: Sequence[Batch]
    options: SqlOptions
    batches, options = shared()  # type: ignore[misc]
    return run_batch(batches[index], options)


@dataclass(frozen=True)
class LocalExecutor:
    """This machine: in this process (``jobs`` 1) or in ``jobs`` worker processes."""

    jobs: int = 1

    def map(self, batches: Sequence[Batch], options: SqlOptions) -> Iterator[list[ItemOutcome]]:
        """``run_batch`` over ``batches`` through ``answerkey.parallel.ordered_map``, in order."""
        yield from ordered_map(
            _run_shared_batch, range(len(batches)), jobs=self.jobs, chunk=1, shared=(batches, options)
        )


# ---------------------------------------------------------------- the run


@dataclass(frozen=True)
class ItemResult:
    """One item and its outcome."""

    item: SqlItem
    outcome: ItemOutcome

    @property
    def verdict(self) -> str:
        """``correct``, ``incorrect`` or ``error`` (under the headline semantics)."""
        return self.outcome.verdict


@dataclass(frozen=True)
class GroupSummary:
    """Counts and figures of a group of items (all, one difficulty, one tag)."""

    semantics: str
    items: int
    evaluated: int
    correct: int
    incorrect: int
    errors: int
    accuracy_by_semantics: dict[str, float | None]
    metrics: dict[str, float | None]

    @classmethod
    def of(cls, results: Sequence[ItemResult], semantics: str, metric_names: Sequence[str]) -> GroupSummary:
        """Count ``results`` and average their figures over the evaluated ones."""
        counts = Counter(result.verdict for result in results)
        evaluated = [result.outcome for result in results if result.verdict != "error"]
        accuracy: dict[str, float | None] = {
            name: (sum(outcome.verdicts[name] for outcome in evaluated) / len(evaluated) if evaluated else None)
            for name in decided_semantics(semantics)
        }
        means: dict[str, float | None] = {}
        for name in metric_names:
            values = [value for outcome in evaluated if (value := outcome.metrics.get(name)) is not None]
            means[name] = math.fsum(values) / len(values) if values else None
        return cls(
            semantics,
            len(results),
            len(evaluated),
            counts["correct"],
            counts["incorrect"],
            counts["error"],
            accuracy,
            means,
        )

    @property
    def accuracy(self) -> float | None:
        """Execution accuracy under the headline semantics (None when nothing was evaluated)."""
        return self.accuracy_by_semantics[self.semantics]


@dataclass
class SqlRun(Reported):
    """Everything a run computed (an ``answerkey.report.Result``): the items in input order
    with their outcomes, the summaries, the warnings, and how the cache served (``cache_hits``
    results read, ``cache_misses`` queries run through it)."""

    signature: Signature
    options: SqlOptions
    layout: str
    results: list[ItemResult]
    summary: GroupSummary
    by_difficulty: dict[str, GroupSummary]
    by_tag: dict[str, GroupSummary]
    warnings: list[RunWarning] = field(default_factory=list)
    cache_hits: int = 0
    cache_misses: int = 0

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The metrics computed in this run."""
        return self.options.metrics

    @property
    def failed(self) -> list[ItemResult]:
        """The items whose gold could not be evaluated (errors of the test)."""
        return [result for result in self.results if result.verdict == "error"]

    @property
    def disagreements(self) -> int:
        """How many items the semantics disagree on."""
        return sum(result.outcome.disagreement is not None for result in self.results)

    def report(self) -> SqlReport:
        """The report (``answerkey schema sql-report``): items in input order."""
        return build(
            SqlReport,
            signature=str(self.signature),
            layout=self.layout,
            summary=_figures(
                self.summary,
                SqlSummary,
                semantics=self.options.semantics,
                disagreements=self.disagreements,
                by_difficulty={name: _figures(group) for name, group in self.by_difficulty.items()},
                by_tag={name: _figures(group) for name, group in self.by_tag.items()},
            ),
            items=[_item_report(result) for result in self.results],
            warnings=[str(warning) for warning in self.warnings],
            decided_semantics=list(self.options.decided_semantics),
        )


def _figures(group: GroupSummary, model: type[GroupFigures] = GroupFigures, **more: Any) -> Any:
    """``group``'s figures as a ``model`` (``SqlSummary`` takes ``more``: the headline, the groups)."""
    return build(
        model,
        items=group.items,
        evaluated=group.evaluated,
        correct=group.correct,
        incorrect=group.incorrect,
        errors=group.errors,
        accuracy=group.accuracy,
        accuracy_by_semantics=dict(group.accuracy_by_semantics),
        metrics=dict(group.metrics),
        **more,
    )


def _verdict(correct: bool) -> str:
    return "correct" if correct else "incorrect"


def _item_report(result: ItemResult) -> SqlItemReport:
    item, outcome = result.item, result.outcome
    return build(
        SqlItemReport,
        id=item.id,
        db_id=item.db_id,
        verdict=outcome.verdict,
        reason=outcome.reason,
        database=outcome.database,
        databases=outcome.databases,
        verdicts={name: _verdict(correct) for name, correct in outcome.verdicts.items()},
        disagreement=outcome.disagreement,
        difficulty=item.difficulty,
        tags=list(item.tags),
        metrics=dict(outcome.metrics),
        question=item.question or None,
        gold=item.gold,
        predicted=item.predicted,
    )


def _difficulty_key(name: str) -> tuple[int, str]:
    return (DIFFICULTY_ORDER.index(name) if name in DIFFICULTY_ORDER else len(DIFFICULTY_ORDER), name)


def _summaries(
    results: list[ItemResult], semantics: str, names: Sequence[str]
) -> tuple[GroupSummary, dict[str, GroupSummary], dict[str, GroupSummary]]:
    by_difficulty: dict[str, list[ItemResult]] = {}
    by_tag: dict[str, list[ItemResult]] = {}
    for result in results:
        if result.item.difficulty is not None:
            by_difficulty.setdefault(result.item.difficulty, []).append(result)
        for tag in dict.fromkeys(result.item.tags):
            by_tag.setdefault(tag, []).append(result)
    return (
        GroupSummary.of(results, semantics, names),
        {
            name: GroupSummary.of(by_difficulty[name], semantics, names)
            for name in sorted(by_difficulty, key=_difficulty_key)
        },
        {tag: GroupSummary.of(by_tag[tag], semantics, names) for tag in sorted(by_tag)},
    )


def run_sql(
    inputs: SqlInputs,
    options: SqlOptions,
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    quiet: bool = True,
) -> SqlRun:
    """Evaluate every item of ``inputs``: by ``executor`` (default: a ``LocalExecutor`` of
    ``jobs`` processes); the results are in input order whatever runs them. ``ValueError``
    when the databases cannot be opened (a missing directory, an unknown engine).
    ``quiet=False`` draws a progress bar on a terminal for long runs."""
    engine = options.open_engine()
    try:
        options = replace(options, engine=engine.name)
    finally:
        engine.close()
    if options.cache is not None:
        try:
            os.makedirs(options.cache, exist_ok=True)
        except OSError as error:
            raise ValueError(
                f"cannot create the cache directory {options.cache!r}: {error.strerror or error}"
            ) from None
    items = inputs.items
    batches = make_batches(items)
    outcomes: list[ItemOutcome | None] = [None] * len(items)
    done = 0
    with ProgressBar(len(items), "sql", quiet=quiet) as bar:
        for batch_outcomes in (executor or LocalExecutor(jobs)).map(batches, options):
            for outcome in batch_outcomes:
                outcomes[outcome.index] = outcome
            done += len(batch_outcomes)
            bar.update(done)
    missing = [index for index, outcome in enumerate(outcomes) if outcome is None]
    if missing:
        raise RuntimeError(f"the executor gave no outcome for {plural(len(missing), 'item')}")
    results = [ItemResult(item, outcome) for item, outcome in zip(items, outcomes) if outcome is not None]
    summary, by_difficulty, by_tag = _summaries(results, options.semantics, options.metrics)
    warnings = list(inputs.warnings)
    if VES in options.metrics and (jobs > 1 or executor is not None) and len(batches) > 1:
        warnings.append(
            RunWarning(
                f"{VES} timed queries while other queries ran at once: the times are noisier (time with --jobs 1)",
                "ves-jobs",
            )
        )
    for result in results:
        warnings.extend(
            RunWarning(f"item {result.item.id}: {warning.message}", warning.kind) for warning in result.outcome.warnings
        )
    return SqlRun(
        options.signature,
        options,
        inputs.layout,
        results,
        summary,
        by_difficulty,
        by_tag,
        warnings,
        cache_hits=sum(result.outcome.cache_hits for result in results),
        cache_misses=sum(result.outcome.cache_misses for result in results),
    )
