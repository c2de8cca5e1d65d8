"""One batch of items of one database, evaluated: the batches a run is cut into
(``make_batches``) and ``run_batch``, the pure function an executor maps over them (see
``answerkey.execution.run`` for what one item goes through); re-exported by
``answerkey.execution.run``."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial

from answerkey.adapters.engines import Database, Engine, NoDatabase, QueryResult
from answerkey.errors import RunWarning
from answerkey.execution._alternatives import expanded_golds
from answerkey.execution._options import VES, SqlOptions
from answerkey.execution._plugged import plugged_decision
from answerkey.execution.cache import ResultCache, query_key
from answerkey.execution.load import SqlItem
from answerkey.execution.result_csv import ResultFile
from answerkey.execution.semantics import (
    Decision,
    decide,
    decide_all,
    disagreement,
    has_outer_order_by,
    semantics_named,
)
from answerkey.execution.semantics._base import PREDICTION_NOT_RUN, RewrittenPair, Semantics
from answerkey.execution.semantics._registry import explained
from answerkey.metrics.driver_values import same_driver_values
from answerkey.metrics.efficiency import time_runs, ves
from answerkey.metrics.registry import METRIC_KINDS, METRICS, needs_order
from answerkey.metrics.table import TABLE_METRICS, table_scores

# Items of one db_id per batch: large enough that a batch's connections serve many items,
# small enough to spread a large db_id over the processes.
BATCH_SIZE = 64


@dataclass(frozen=True)
class BatchItem:
    """What evaluating one item needs: its position in the input, the gold and predicted SQL
    (None: no prediction) and the item's comparison options; golds given as results
    (``gold_results``, in place of the gold SQL) and a prediction given as a result."""

    index: int
    gold: str
    predicted: str | None
    order_by: tuple[int, ...] | None = None
    condition_cols: tuple[int, ...] | None = None
    ignore_order: bool | None = None
    other_golds: tuple[str, ...] = ()
    gold_results: tuple[ResultFile, ...] = ()
    predicted_result: ResultFile | None = None

    @property
    def runs_queries(self) -> bool:
        """Whether the item runs a query (not when both sides are results)."""
        return not (self.gold_results and self.predicted_result is not None)


@dataclass(frozen=True)
class Batch:
    """Items of one db_id, evaluated together by one worker (which keeps its connections);
    ``needs_database`` False for items that run no query (both sides results)."""

    db_id: str
    items: tuple[BatchItem, ...]
    needs_database: bool = True


def make_batches(items: Sequence[SqlItem], size: int = BATCH_SIZE) -> list[Batch]:
    """The items grouped per db_id (db_ids in order of first appearance, items in input
    order), in batches of at most ``size``.

    >>> items = [SqlItem("a", "x", "SELECT 1"), SqlItem("b", "y", "SELECT 2"), SqlItem("c", "x", "SELECT 3")]
    >>> [(batch.db_id, [item.index for item in batch.items]) for batch in make_batches(items)]
    [('x', [0, 2]), ('y', [1])]
    """
    if size < 1:
        raise ValueError("a batch holds at least one item")
    groups: dict[tuple[str, bool], list[BatchItem]] = {}
    for index, item in enumerate(items):
        groups.setdefault((item.db_id, item.needs_database), []).append(
            BatchItem(
                index,
                item.gold,
                item.predicted,
                item.order_by,
                item.condition_cols,
                item.ignore_order,
                item.other_golds,
                item.gold_results,
                item.predicted_result,
            )
        )
    return [
        Batch(db_id, tuple(group[start : start + size]), needs_database)
        for (db_id, needs_database), group in groups.items()
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
    ``suite`` names the databases of a test suite (empty for one database).
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
    gold_matched: int | None = None
    suite: tuple[str, ...] = ()


def _zeros(names: tuple[str, ...], ordered: bool) -> dict[str, float | None]:
    """Each metric's value for an item it does not score: None where it needs an order the gold lacks."""
    return dict(_zeros_of(names, ordered))


@lru_cache(maxsize=16)
def _zeros_of(names: tuple[str, ...], ordered: bool) -> dict[str, float | None]:
    # Worked out once a run (it is the same for every item): the caller copies it.
    return {name: (None if needs_order(name) and not ordered else 0.0) for name in names}


@lru_cache(maxsize=16)
def _table_metrics(names: tuple[str, ...], ordered: bool) -> tuple[str, ...]:
    """The table metrics among ``names`` that an item scores (those needing an order only where the gold has one)."""
    return tuple(name for name in names if METRIC_KINDS[name] == "table" and (ordered or not needs_order(name)))


def _result_metrics_of(metrics: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """The metrics among ``metrics`` computed from results (not by running queries), and
    whether one of them needs the gold's order."""
    names = tuple(name for name in metrics if METRIC_KINDS[name] != "sql")
    return names, any(map(needs_order, names))


def _may_rewrite(semantics: Semantics) -> bool:
    """Whether ``semantics`` may run an item's queries other than as written: not when it keeps
    ``Semantics``' own ``rewrite`` and ``rewritten_pair``, whose pair is always None (speed:
    three of the four built-in semantics, every item)."""
    kind = type(semantics)
    return kind.rewrite is not Semantics.rewrite or kind.rewritten_pair is not Semantics.rewritten_pair


def _sort_keys(item: BatchItem) -> tuple[int, ...] | None:
    """The item's ``order_by`` as 0-based sort keys (None: from the gold's ORDER BY)."""
    return None if item.order_by is None else tuple(column - 1 for column in item.order_by)


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _with_gold_result(item: BatchItem, gold: ResultFile) -> BatchItem:
    """``item`` with ``gold`` as its one gold, and that gold's condition columns when it has its own."""
    condition_cols = item.condition_cols if gold.condition_cols is None else gold.condition_cols
    return replace(item, gold_results=(gold,), condition_cols=condition_cols)


# Where an item whose both sides are results is decided (no database: nothing runs).
_RESULT_FILES = Database("none", "", "", "")


class _Evaluator:
    """Evaluates the items of one batch on the databases of its db_id."""

    def __init__(
        self, engine: Engine, databases: tuple[Database, ...], options: SqlOptions, cache: ResultCache | None
    ) -> None:
        self.engine = engine
        self.databases = databases
        self.options = options
        self.rule = options.rule
        self.decided = options.decided_semantics
        self.result_metrics, self.orders = _result_metrics_of(options.metrics)
        # The decided semantics that may run an item's queries rewritten, with their options.
        self.rewriters = tuple(
            (semantics, options.options_of(name))
            for name in self.decided
            if _may_rewrite(semantics := semantics_named(name))
        )
        self.cache = cache
        self.fingerprints: dict[Database, str] = {}
        self.ahead: _Ahead | None = None  # the batch's queries on its first database, run ahead
        self.current = -1  # the index of the item being evaluated
        self.rewritten: dict[tuple[int, str], list[RewrittenPair]] = {}  # by item index and gold
        # The files of a test suite, for the reports (which files the suite rule took).
        self.suite = tuple(database.name for database in databases) if len(databases) > 1 else ()

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
            if self.ahead is not None and database == self.databases[0]:
                result = self.ahead.take((self.current, sql))
                if result is not None:
                    return result
            return self.engine.run(database, sql)
        key = query_key(self.engine, database, sql, self.options, self.fingerprints)
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
        self.current = item.index
        if self.options.defog_alternatives and not item.gold_results:
            try:
                golds = expanded_golds((item.gold, *item.other_golds))
            except ValueError as error:
                return ItemOutcome(item.index, "error", str(error), metrics=dict.fromkeys(self.options.metrics))
            item = replace(item, gold=golds[0], other_golds=golds[1:])
        if len(item.gold_results) == 1:
            item = _with_gold_result(item, item.gold_results[0])
        several = item.other_golds or len(item.gold_results) > 1
        outcome = self._golds(item) if several else self._item(item)
        if self.cache is None:
            return outcome
        return replace(outcome, cache_hits=self.cache.hits - hits, cache_misses=self.cache.misses - misses)

    def _item(self, item: BatchItem) -> ItemOutcome:
        options = self.options
        names, orders = self.result_metrics, self.orders
        databases = self.databases if item.runs_queries else (_RESULT_FILES,)
        several = len(databases) > 1
        gold: QueryResult | None = None
        notes: list[RunWarning] = []
        decided = self.decided
        correct = dict.fromkeys(decided, True)
        failures: dict[str, tuple[int, str]] = {}  # semantics -> (database number, why)
        visited: list[dict[str, Decision]] = []
        metrics: dict[str, float | None] | None = None
        rewrites = self.rewrites(item)
        # Under --plug_value, the predictions still correct on every database so far (by rank).
        alive: dict[str, Sequence[int]] = {
            pair.semantics.name: range(1 + len(pair.alternatives)) for pair in rewrites if pair.alternatives
        }
        for number, database in enumerate(databases):
            known: dict[str, QueryResult] = {}  # this item's results on this database, by SQL text
            if item.gold_results:
                gold = item.gold_results[0].query_result()
            else:
                gold = self.query(database, item.gold, notes, known)
            if gold.error is not None:
                failed = self._failed_gold(item, gold.error, rewrites, database, notes)
                if isinstance(failed, ItemOutcome):
                    return failed
                decisions = failed
            elif item.predicted is None and item.predicted_result is None:
                for name in decided:
                    correct[name] = False
                break
            elif (predicted := self._predicted(item, database, notes, known)).error is not None:
                why = f"the predicted query failed: {predicted.error}"
                decisions = {name: Decision(name, False, why) for name in decided}
            else:
                # The metrics of whole results first: they read the driver values, which the
                # typed rows the comparator makes replace (reading them back would convert each value).
                by_result = self._result_metrics(names, gold, predicted) if number == 0 else {}
                # Read before the decisions, which may make the typed rows and drop the driver values.
                same = (
                    number == 0 and any(name in TABLE_METRICS for name in names) and same_driver_values(gold, predicted)
                )
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
                        dialect=self.engine.name,
                    )
                except ValueError:
                    # Some semantics cannot judge the gold result (answerkey: a column mixing
                    # types; spider2: condition columns beyond it): decided one by one.
                    apart = self._decided_apart(item, gold, predicted, database, notes)
                    if isinstance(apart, ItemOutcome):
                        return apart
                    decisions = apart
                if number == 0:
                    metrics = self._metrics(names, self._ordered(item, orders, gold), gold, predicted, by_result, same)
            for rewritten in rewrites:
                name = rewritten.semantics.name
                if correct[name]:
                    suited = self._rewritten(item, rewritten, database, notes, known)
                    if (
                        rewritten.alternatives
                        and isinstance(suited, Decision)
                        and known[rewritten.gold.sql].error is None
                    ):
                        plugged = partial(self._rewritten, item, rewritten, database, notes, known)
                        suited = plugged_decision(suited, rewritten, alive, number == len(self.databases) - 1, plugged)
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
            metrics = _zeros(names, self._ordered(item, orders, gold))
        headline = options.semantics
        verdict = "correct" if correct[headline] else "incorrect"
        database_name = None
        if item.predicted is None and item.predicted_result is None:
            reason = "no prediction"
        elif correct[headline]:
            # Under --plug_value the prediction that held is known on the last database only.
            reason = visited[-1 if headline in alive else 0][headline].reason
            if semantics_named(headline).official and self._gold_text(item, rewrites):
                reason += f" ({PREDICTION_NOT_RUN})"
            if several:
                reason += f" (correct on each of the {len(databases)} databases)"
        else:
            number, reason = failures[headline]
            database_name = databases[number].name or None
            if several:
                reason = f"on {databases[number].label}: {reason}"
        as_results = bool(item.gold_results) or item.predicted_result is not None
        if VES in options.metrics:
            # VES times both queries: a side given as a result has none to time.
            metrics[VES] = None if as_results else self._ves(item, correct[headline], notes)
        for name in options.metrics:
            if METRIC_KINDS[name] == "sql" and name != VES and as_results:
                metrics[name] = None
            elif METRIC_KINDS[name] == "sql" and name != VES:
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
            databases=len(self.databases) if item.runs_queries else 0,
            disagreement=self._disagreement(correct, failures, visited),
            metrics={name: metrics.get(name) for name in options.metrics},
            warnings=tuple(notes),
            suite=self.suite,
        )

    def _ordered(self, item: BatchItem, orders: bool, gold: QueryResult | None) -> bool:
        """Whether the item's gold is ordered, which matters only to a metric that needs an
        order (``orders``: tuple_order); the gold's text is not read for it otherwise (--metrics
        none). Its outer ORDER BY as the process that ran ``gold`` (its result) read it, if it did."""
        if item.order_by is not None:
            return bool(item.order_by)
        if not orders or item.gold_results:
            return False
        read = None if gold is None else gold.outer_order_of(item.gold, self.engine.name)
        if read is not None:
            return read.keys is not None
        return has_outer_order_by(item.gold, self.engine.name)

    def _gold_text(self, item: BatchItem, rewrites: list[RewrittenPair]) -> bool:
        """Whether the headline semantics runs the item's prediction as the same text as its
        gold, so that the prediction is never run (its result is the gold's)."""
        headline = self.options.semantics
        pair = next((pair for pair in rewrites if pair.semantics.name == headline), None)
        if pair is None:
            return item.predicted == item.gold
        return pair.predicted.sql == pair.gold.sql

    def rewrites(self, item: BatchItem) -> list[RewrittenPair]:
        """The item's queries as the decided semantics that rewrite them run them (worked out
        once an item: ``run_ahead`` needs them too)."""
        # By gold too: an item with several golds rewrites each of them.
        found = self.rewritten.get((item.index, item.gold))
        if found is None:
            found = self.rewritten[item.index, item.gold] = self._rewrites(item)
        return found

    def _rewrites(self, item: BatchItem) -> list[RewrittenPair]:
        # A side given as a result has no query to rewrite: the prediction runs as written.
        if item.predicted is None or item.gold_results or item.predicted_result is not None:
            return []
        return [
            rewritten
            for semantics, options in self.rewriters
            if (rewritten := semantics.rewritten_pair(item.gold, item.predicted, options))
        ]

    def run_ahead(self, items: Sequence[BatchItem]) -> None:
        """Send every query of ``items`` on the first database to the engine at once, when it
        can run them one after the other while this process judges (``run_each``: SQLite's
        helper process, one message a query rather than a round trip); each item then takes
        its results in order. Queries an item does not take (a prediction after a failing
        gold) have run all the same: reading them is all they could do. Not with the cache
        (it decides what runs), a metric that runs queries itself (VES times them: no other
        query may run meanwhile) or defog's alternatives."""
        run_each = getattr(self.engine, "run_each", None)
        timed = any(METRIC_KINDS[name] == "sql" for name in self.options.metrics)
        # Nor with defog's alternatives: the golds that run are known only once expanded.
        if run_each is None or self.cache is not None or timed or self.options.defog_alternatives:
            return
        if not self.databases:  # items that run no query
            return
        keys: list[tuple[int, str]] = []
        # The golds whose outer ORDER BY the helper reads too, for answerkey's semantics or a
        # metric that needs the order (the helper has time to spare; this process has none).
        orders = "answerkey" in self.decided or self.orders
        golds = {item.gold for item in items if orders and item.order_by is None and not item.gold_results}
        for item in items:
            texts = [] if item.gold_results else [item.gold]
            if item.predicted is not None:
                texts.append(item.predicted)
            for rewritten in self.rewrites(item):
                texts += [rewritten.gold.sql, rewritten.predicted.sql]
            keys += [(item.index, sql) for sql in dict.fromkeys(texts)]
        self.ahead = _Ahead(keys, run_each(self.databases[0], [sql for _, sql in keys], read_orders=golds))

    def close(self) -> None:
        """Stop the queries run ahead and not taken."""
        if self.ahead is not None:
            self.ahead.close()

    def _golds(self, item: BatchItem) -> ItemOutcome:
        """An item with several golds: each decided in turn until the prediction matches one
        under every semantics; correct under a semantics when it matches any. The outcome is
        that of the first gold matched under the headline semantics (``gold_matched``, from
        1), else the first gold's; a gold that fails makes the item an error of the test."""
        outcomes: list[ItemOutcome] = []
        if item.gold_results:
            each_gold = [_with_gold_result(item, gold) for gold in item.gold_results]
        else:
            each_gold = [replace(item, gold=gold, other_golds=()) for gold in (item.gold, *item.other_golds)]
        for one in each_gold:
            outcome = self._item(one)
            if outcome.verdict == "error":
                return outcome
            outcomes.append(outcome)
            if all(outcome.verdicts.values()):
                break
        verdicts = {name: any(each.verdicts[name] for each in outcomes) for name in outcomes[0].verdicts}
        headline = self.options.semantics
        matched = next((number for number, each in enumerate(outcomes, 1) if each.verdicts[headline]), None)
        chosen = outcomes[0] if matched is None else outcomes[matched - 1]
        reason = chosen.reason if matched is None else f"gold {matched} of {len(each_gold)}: {chosen.reason}"
        warnings = tuple(warning for each in outcomes for warning in each.warnings)
        disagreement = chosen.disagreement if len(set(verdicts.values())) > 1 else None
        return replace(
            chosen,
            reason=reason,
            verdicts=verdicts,
            gold_matched=matched,
            warnings=warnings,
            disagreement=disagreement,
        )

    def _predicted(
        self, item: BatchItem, database: Database, notes: list[RunWarning], known: dict[str, QueryResult]
    ) -> QueryResult:
        """The prediction's result on ``database``: the result file it was given as, or its query run."""
        if item.predicted_result is not None:
            return item.predicted_result.query_result()
        return self.query(database, item.predicted or "", notes, known)

    def _failed_gold(
        self, item: BatchItem, error: str, rewrites: list[RewrittenPair], database: Database, notes: list[RunWarning]
    ) -> dict[str, Decision] | ItemOutcome:
        """The decisions on ``database`` of an item whose gold query failed there as written,
        or its outcome as an error of the test. The item goes on when the headline semantics
        runs another gold text (test-suite closes up ``! =``: exec_eval.py:173 rewrites the
        gold too) or its official script scores such an item 0 (``Semantics.failed_gold``:
        BIRD's); the semantics that run the gold as written are then incorrect on it (with a
        warning, but for the headline, whose reason says what its script does)."""
        headline = self.options.semantics
        why = f"the gold query failed on {database.label}: {error}"
        apart = {pair.semantics.name for pair in rewrites if pair.gold.sql != item.gold}
        failed_gold = semantics_named(headline).failed_gold
        if headline not in apart and not failed_gold:
            return self._error(item, why, database, notes)
        decisions = {}
        # The database is named where the reason is shown (``on ...`` for a test suite).
        failed = f"the gold query failed: {error}"
        for name in self.decided:
            if name not in apart:
                decisions[name] = Decision(name, False, f"{failed} ({failed_gold})" if name == headline else failed)
        others = [name for name in decisions if name != headline]
        if others:
            notes.append(RunWarning(f"{why}; the item is incorrect under {_listed(others)}", "failed-gold"))
        return decisions

    def _decided_apart(
        self,
        item: BatchItem,
        gold: QueryResult,
        predicted: QueryResult,
        database: Database,
        notes: list[RunWarning],
    ) -> dict[str, Decision] | ItemOutcome:
        """The decisions on ``database`` when some semantics cannot judge the gold result:
        each decided on its own; one that cannot is incorrect, with a warning, when the
        headline is an official preset that can (test-suite-sql-eval and BIRD's script compare
        a column mixing numbers and text with Python's ``==``); otherwise the item is an error
        of the test."""
        headline = self.options.semantics
        # Under answerkey's own semantics (no official script) the item stays an error of the test.
        official = semantics_named(headline).official
        decisions = {}
        for name in self.decided:
            try:
                decisions[name] = decide(
                    name,
                    gold,
                    predicted,
                    gold_sql=item.gold,
                    rule=self.rule,
                    order_by=_sort_keys(item),
                    condition_cols=item.condition_cols,
                    ignore_order=item.ignore_order,
                    dialect=self.engine.name,
                )
            except ValueError as error:
                where = f"the gold result {item.gold_results[0].source}" if item.gold_results else database.label
                why = f"on {where}: {error}"
                if name == headline or not official:
                    return self._error(item, why, database, notes)
                decisions[name] = Decision(name, False, str(error))
                notes.append(RunWarning(f"{why}; the item is incorrect under {name}", f"{name}-gold"))
        return explained(decisions)

    def _error(self, item: BatchItem, reason: str, database: Database, notes: list[RunWarning]) -> ItemOutcome:
        """The outcome of an item that cannot be evaluated on ``database`` (an error of the test)."""
        return ItemOutcome(
            item.index,
            "error",
            reason,
            database=database.name or None,
            databases=len(self.databases),
            metrics=dict.fromkeys(self.options.metrics),
            warnings=tuple(notes),
            suite=self.suite,
        )

    def _rewritten(
        self,
        item: BatchItem,
        rewritten: RewrittenPair,
        database: Database,
        notes: list[RunWarning],
        known: dict[str, QueryResult],
        plugged: str | None = None,
    ) -> Decision | ItemOutcome:
        """The decision of ``rewritten.semantics`` on ``database`` from the queries as it runs
        them: ``known`` holds the item's results there by SQL text (the gold and the
        prediction as written), and a query it rewrites into another text runs (through the
        cache, as any query). When the rewritten gold fails (the official script stops there),
        the item is an error of the test under that headline; under another, it is incorrect
        under that semantics, with a warning. ``plugged`` is a prediction to decide instead
        (``RewrittenPair.alternatives``), whose result is not kept."""
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
        if plugged is None:
            predicted = self.query(database, rewritten.predicted.sql, notes, known)
        else:
            predicted = known.get(plugged) or self._cached(database, plugged, notes)
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

    @staticmethod
    def _result_metrics(names: Sequence[str], gold: QueryResult, predicted: QueryResult) -> dict[str, float | None]:
        """The metrics computed on whole results (soft F1, execution accuracy)."""
        return {name: METRICS[name](gold, predicted) for name in names if METRIC_KINDS[name] == "result"}

    def _metrics(
        self,
        names: tuple[str, ...],
        ordered: bool,
        gold: QueryResult,
        predicted: QueryResult,
        by_result: dict[str, float | None],
        same: bool,
    ) -> dict[str, float | None]:
        """The metrics of the item's first database; ``same``: both results hold the same
        driver values (``same_driver_values``)."""
        wanted = _table_metrics(names, ordered)
        values: dict[str, float | None] = _zeros(names, ordered)
        values.update(by_result)
        if same:
            # Speed (a correct prediction): QATCH's metrics of a table against the same rows,
            # in the same order, are all 1.0; the typed rows need not be made for them.
            values.update((name, 1.0) for name in wanted if name in TABLE_METRICS)
            wanted = tuple(name for name in wanted if name not in TABLE_METRICS)
        if not wanted:
            return values  # (--metrics none) no table metric: the typed rows need not be made for them
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
            databases = engine.databases(batch.db_id) if batch.needs_database else ()
        except NoDatabase as error:
            return [
                ItemOutcome(item.index, "error", str(error), metrics=dict.fromkeys(options.metrics))
                for item in batch.items
            ]
        cache = ResultCache(options.cache) if options.cache is not None else None
        evaluator = _Evaluator(engine, databases, options, cache)
        try:
            evaluator.run_ahead(batch.items)
            return [evaluator.item(item) for item in batch.items]
        finally:
            evaluator.close()
    finally:
        engine.close()


class _Ahead:
    """Results of queries run ahead, in the order they were sent, by (item index, SQL text):
    one is taken when asked for, those before it that were not asked for are dropped."""

    def __init__(self, keys: list[tuple[int, str]], results: Iterator[QueryResult]) -> None:
        self._keys = deque(keys)
        self._waiting = Counter(keys)
        self._results = results

    def take(self, key: tuple[int, str]) -> QueryResult | None:
        """The result of ``key``, or None if it is not (or no longer) among those run ahead."""
        if not self._waiting[key]:
            return None
        while self._keys:
            found = self._keys.popleft()
            self._waiting[found] -= 1
            result = next(self._results)
            if found == key:
                return result
        return None

    def close(self) -> None:
        """Stop the results not taken (ending the process still running them)."""
        close = getattr(self._results, "close", None)
        if close is not None:
            close()
