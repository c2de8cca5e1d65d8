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
fails is an error of the test (the item is left out of every figure), unless the headline
semantics' official script goes on (``Semantics.failed_gold``: BIRD's scores the item 0; or
test-suite runs the gold rewritten); a predicted query that fails, or a missing prediction,
makes the item incorrect under every semantics. The engine lists a test suite's files and
reads text that is not UTF-8 as the headline's official script does (``suite_files``,
``text_decoding``); the report lists each suite's files (``SqlRun.suites``).

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
from typing import TYPE_CHECKING, Any, Protocol

from answerkey.errors import RunWarning, plural
from answerkey.execution._batches import (
    BATCH_SIZE as BATCH_SIZE,
    Batch as Batch,
    BatchItem as BatchItem,
    ItemOutcome as ItemOutcome,
    make_batches,
    run_batch as run_batch,
)
from answerkey.execution._options import VES as VES, SqlOptions as SqlOptions
from answerkey.execution.load import SqlInputs, SqlItem
from answerkey.execution.result_rows import NO_ROWS, ShownRows
from answerkey.execution.semantics import (
    SEMANTICS as SEMANTICS,
    decided_semantics,
    semantics_named,
)
from answerkey.metrics.efficiency import DEFAULT_VES_RUNS as DEFAULT_VES_RUNS
from answerkey.parallel import ordered_map, shared
from answerkey.progress import ProgressBar
from answerkey.report import Reported
from answerkey.signature import Signature

if TYPE_CHECKING:
    from answerkey.execution.official_schema import SpiderOfficial
    from answerkey.execution.schema import SqlReport

# Difficulty levels in the order the benchmarks list them (Spider, then BIRD); others follow by name.
DIFFICULTY_ORDER = ("easy", "simple", "medium", "moderate", "hard", "challenging", "extra")


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
    # Spider's official table, when asked for (answerkey.execution.official).
    official: SpiderOfficial | None = None
    # Each item's gold and predicted rows as text, and both aligned, when asked for
    # (answerkey.execution.result_rows.shown_rows).
    result_rows: list[ShownRows] | None = None

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The metrics computed in this run."""
        return self.options.metrics

    @property
    def failed(self) -> list[ItemResult]:
        """The items whose gold could not be evaluated (errors of the test)."""
        return [result for result in self.results if result.verdict == "error"]

    @property
    def suites(self) -> dict[str, list[str]]:
        """The files of each db_id that is a test suite (several databases), in the order visited."""
        found: dict[str, list[str]] = {}
        for result in self.results:
            if result.outcome.suite and result.item.db_id not in found:
                found[result.item.db_id] = list(result.outcome.suite)
        return found

    @property
    def disagreements(self) -> int:
        """How many items the semantics disagree on."""
        return sum(result.outcome.disagreement is not None for result in self.results)

    def report(self) -> SqlReport:
        """The report (``answerkey schema sql-report``): items in input order."""
        # The report models are pydantic's (~0.1 s to import): imported when a report is
        # built, so that a run that writes none (--quiet, no report file) never loads pydantic.
        from answerkey.execution.schema import GroupFigures, SqlItemReport, SqlReport, SqlSummary
        from answerkey.report.schema import build

        return build(
            SqlReport,
            signature=str(self.signature),
            layout=self.layout,
            summary=build(
                SqlSummary,
                **_figures(self.summary),
                semantics=self.options.semantics,
                disagreements=self.disagreements,
                by_difficulty={
                    name: build(GroupFigures, **_figures(group)) for name, group in self.by_difficulty.items()
                },
                by_tag={name: build(GroupFigures, **_figures(group)) for name, group in self.by_tag.items()},
            ),
            items=[
                build(SqlItemReport, **_item_fields(result, self.result_rows[index] if self.result_rows else NO_ROWS))
                for index, result in enumerate(self.results)
            ],
            warnings=[str(warning) for warning in self.warnings],
            official=self.official,
            suites=self.suites,
            suites_shown=semantics_named(self.options.semantics).suite_files != "ending",
            decided_semantics=list(self.options.decided_semantics),
            rows_shown=self.result_rows is not None,
        )


def _figures(group: GroupSummary) -> dict[str, Any]:
    """``group``'s fields of a ``GroupFigures`` (the first of a ``SqlSummary``'s), in its order."""
    return {
        "items": group.items,
        "evaluated": group.evaluated,
        "correct": group.correct,
        "incorrect": group.incorrect,
        "errors": group.errors,
        "accuracy": group.accuracy,
        "accuracy_by_semantics": dict(group.accuracy_by_semantics),
        "metrics": dict(group.metrics),
    }


def _verdict(correct: bool) -> str:
    return "correct" if correct else "incorrect"


def _item_fields(result: ItemResult, rows: ShownRows = NO_ROWS) -> dict[str, Any]:
    """The fields of ``result``'s ``SqlItemReport``, in its order."""
    item, outcome = result.item, result.outcome
    return {
        "id": item.id,
        "db_id": item.db_id,
        "verdict": outcome.verdict,
        "reason": outcome.reason,
        "database": outcome.database,
        "databases": outcome.databases,
        "verdicts": {name: _verdict(correct) for name, correct in outcome.verdicts.items()},
        "disagreement": outcome.disagreement,
        "gold_matched": outcome.gold_matched,
        "difficulty": item.difficulty,
        "tags": list(item.tags),
        "metrics": dict(outcome.metrics),
        "question": item.question or None,
        "gold": item.gold,
        "predicted": item.predicted,
        "gold_rows": rows.gold,
        "predicted_rows": rows.predicted,
        "aligned_rows": rows.aligned,
    }


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
