"""Execution rewards: many small judgements of predicted SQL against gold SQL, from Python.

An ``ExecutionJudge`` holds what judging a predicted query needs, so that each call does
only the work that call is about: the engine of a directory of databases (or a PostgreSQL
URL), with its limits (time, rows, bytes of result, DuckDB's memory); the gold results, each
run once and kept in memory (and, given ``cache``, on disk in the cache ``answerkey sql
--cache`` uses); and one semantics of the registry (``answerkey.execution.semantics``).
``judge(db_id, gold_sql, predicted_sql)`` returns a ``Judgement``: correct or not, and why,
as ``answerkey sql`` decides the item under that semantics; ``judge_many`` judges many
predictions of one question, each distinct text run once, and ``judge_all`` a batch of
``(db_id, gold_sql, predicted_sql)``, each question's together; ``Judgement.reward`` is 1.0 or 0.0.

Every query runs as ``answerkey sql`` runs it, through ``answerkey.adapters.engines``:
read-only (a ``DROP``, ``INSERT`` or ``ATTACH`` is refused and changes no byte of the
database), one statement, within the time limit (on SQLite in helper processes, which are
killed when a query is stuck inside one long function call, and which end when this process
ends), within the row and byte limits. A prediction past a limit, or one that fails, is
incorrect with the reason; nothing a prediction does raises.

The judge is thread-safe: threads may share one (each query runs in a helper process of its
own, so threads judge side by side); processes each make their own (docs/rewards.md shows a
``ProcessPoolExecutor`` doing so). The databases must be at rest while a judge reads them:
a db_id's database files are found once, and a gold result is kept for the judge's life.

>>> import sqlite3, tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> (root / "shop").mkdir()
>>> with sqlite3.connect(root / "shop" / "shop.sqlite") as db:
...     _ = db.execute("CREATE TABLE item (name TEXT, price REAL)")
...     _ = db.execute("INSERT INTO item VALUES ('pen', 1.5), ('ink', 7.25)")
>>> db.close()
>>> with ExecutionJudge(root, semantics="bird") as judge:
...     print(judge.judge("shop", "SELECT name FROM item", "SELECT name FROM item ORDER BY price"))
...     print(judge.judge("shop", "SELECT name FROM item", "DROP TABLE item"))
...     judge.rewards("shop", "SELECT count(*) FROM item", ["SELECT 2", "SELECT count(name) FROM item", "SELECT 3"])
correct: same set of rows
incorrect: the predicted query failed: not authorized
[1.0, 1.0, 0.0]
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING

from answerkey.adapters.engines import Database, Engine, NoDatabase, QueryResult
from answerkey.adapters.sql import stop_query_processes
from answerkey.comparator import DEFAULT_ABS_EPSILON, DEFAULT_EPSILON, STRING_MODES
from answerkey.execution._options import SqlOptions
from answerkey.execution.cache import ResultCache, query_key
from answerkey.execution.semantics import DEFAULT_SEMANTICS, decide, semantics_named
from answerkey.execution.semantics._base import PREDICTION_NOT_RUN, RewrittenPair
from answerkey.limits import DUCKDB_MEMORY_LIMIT, DUCKDB_THREADS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT
from answerkey.signature import Signature

if TYPE_CHECKING:
    from concurrent.futures import Future

GOLD_RESULTS = 16_384
"""How many gold results a judge keeps in memory by default (the least recently used go first)."""


@dataclass(frozen=True)
class Judgement:
    """The verdict on one predicted query: ``correct`` or not, and ``reason`` (one line), under
    ``semantics``. ``error`` is True when the item cannot be judged (its gold query failed, its
    db_id names no database, the semantics cannot judge the gold result): a problem of the
    question, not of the prediction, which ``answerkey sql`` reports as an error of the test
    (``correct`` is then False). ``database`` names the database file where the prediction
    failed, or the item could not be judged (None otherwise).

    >>> Judgement(True, "same set of rows", "bird").reward
    1.0
    >>> Judgement(False, "the gold query failed on 'shop': no such table: item", "bird", error=True).verdict
    'error'
    """

    correct: bool
    reason: str
    semantics: str
    error: bool = False
    database: str | None = None

    @property
    def verdict(self) -> str:
        """``correct``, ``incorrect`` or ``error``, as ``answerkey sql``'s reports write it."""
        if self.error:
            return "error"
        return "correct" if self.correct else "incorrect"

    @property
    def reward(self) -> float:
        """1.0 for a correct prediction, else 0.0 (an error of the question included)."""
        return 1.0 if self.correct else 0.0

    def __str__(self) -> str:
        return f"{self.verdict}: {self.reason}"


class ExecutionJudge:
    """Judges predicted SQL against gold SQL on the databases at ``location`` under one
    ``semantics``, as ``answerkey sql`` does, keeping the gold results.

    ``location`` is a directory of databases in the Spider/BIRD layout
    (``DIR/<db_id>/<db_id>.sqlite``, test-suite-sql-eval's extra databases beside it, or
    ``.duckdb`` files) or a ``postgresql://`` URL; ``engine`` names its engine (None: from the
    location). ``semantics`` is a registered semantics (``answerkey``, ``test-suite``, ``bird``,
    ``spider2``, or one of yours) with its ``semantics_options``
    (``"test-suite:keep_distinct"``); ``epsilon``, ``abs_epsilon`` (an absolute floor, off by
    default) and ``strings`` say how answerkey's semantics matches values. ``timeout``
    (seconds), ``max_rows`` and ``max_result_bytes`` bound every query, gold and predicted;
    ``memory_limit`` (bytes) and ``threads`` bound DuckDB. These are ``answerkey sql``'s
    options, with its defaults, and ``signature`` says them as its reports do. ``ValueError``
    for an option or location that cannot be used.

    ``cache`` names a directory of query results on disk (``answerkey sql --cache``): gold
    results are read from it and stored in it, so that a later judge, or a run of ``answerkey
    sql``, does not run them again. In memory the judge keeps the last ``max_gold_results``
    gold results that ran to completion (a failed gold query runs again when next asked for:
    a time-out may be the machine's load).

    ``options`` is the ``SqlOptions`` the judge was made with (``answerkey sql``'s, without
    metrics), ``engine`` the engine it opened, ``semantics`` the semantics' name.
    ``gold_runs``, ``gold_hits`` and ``predicted_runs`` count the gold queries run on the
    databases, the gold results found instead (in memory or in the disk cache) and the
    predicted queries run (a ``judge_many`` call looks each gold up once).
    """

    def __init__(
        self,
        location: str | os.PathLike[str],
        *,
        semantics: str = DEFAULT_SEMANTICS,
        engine: str | None = None,
        epsilon: float = DEFAULT_EPSILON,
        strings: str = next(iter(STRING_MODES)),
        timeout: float = SQL_TIMEOUT,
        max_rows: int = SQL_MAX_ROWS,
        max_result_bytes: int = SQL_MAX_RESULT_BYTES,
        memory_limit: int = DUCKDB_MEMORY_LIMIT,
        threads: int = DUCKDB_THREADS,
        semantics_options: Sequence[str] = (),
        cache: str | os.PathLike[str] | None = None,
        max_gold_results: int = GOLD_RESULTS,
        abs_epsilon: float = DEFAULT_ABS_EPSILON,
    ) -> None:
        if isinstance(max_gold_results, bool) or not isinstance(max_gold_results, int) or max_gold_results < 0:
            raise ValueError(f"max_gold_results must be a whole number, 0 or more, not {max_gold_results!r}")
        self.options = SqlOptions(
            os.fspath(location),
            engine=engine,
            semantics=semantics,
            epsilon=epsilon,
            abs_epsilon=abs_epsilon,
            strings=strings,
            metrics=(),
            timeout=timeout,
            max_rows=max_rows,
            max_result_bytes=max_result_bytes,
            cache=None if cache is None else os.fspath(cache),
            memory_limit=memory_limit,
            threads=threads,
            semantics_options=tuple(semantics_options),
        )
        if "test-suite:plug_value" in self.options.semantics_options:
            # Its several predictions per item are tried by answerkey sql's runs only.
            raise ValueError("test-suite's plug_value is an option of answerkey sql, not of the judge")
        self.engine: Engine = self.options.open_engine()
        self.semantics = semantics
        self._semantics = semantics_named(semantics)
        self._chosen = self.options.options_of(semantics)
        self._rule = self.options.rule
        self._cache = ResultCache(self.options.cache) if self.options.cache is not None else None
        self._max_gold = max_gold_results
        self._lock = threading.Lock()
        # Gold results by (database location, database name, SQL text); a Future while one
        # thread runs it, so that the others wait for it rather than run it again.
        self._golds: OrderedDict[tuple[str, str, str], QueryResult | Future[QueryResult]] = OrderedDict()
        self._databases: dict[str, tuple[Database, ...]] = {}
        self._fingerprints: dict[Database, str] = {}
        self._closed = False
        self.gold_runs = 0
        self.gold_hits = 0
        self.predicted_runs = 0

    @property
    def signature(self) -> Signature:
        """The options that decide the judgements, as ``answerkey sql``'s reports write them
        (``semantics:bird|eps:0.0001|...|v:...``)."""
        return self.options.signature

    def judge(
        self,
        db_id: str,
        gold_sql: str,
        predicted_sql: str | None,
        *,
        order_by: Sequence[int] | None = None,
        condition_cols: Sequence[int] | None = None,
        ignore_order: bool | None = None,
    ) -> Judgement:
        """Whether ``predicted_sql`` is correct against ``gold_sql`` on the databases of
        ``db_id`` (on each of them, when it has several), and why: the verdict and reason
        ``answerkey sql`` gives the item under this judge's semantics. ``order_by`` (columns
        from 1), ``condition_cols`` (from 0) and ``ignore_order`` are an item's options, as
        in a corpus. A ``predicted_sql`` of None (nothing generated) is incorrect: "no
        prediction". Never raises for what the queries or the db_id hold; ``ValueError``
        once the judge is closed."""
        return self._judge(db_id, gold_sql, predicted_sql, order_by, condition_cols, ignore_order, {}, {})

    def judge_many(
        self,
        db_id: str,
        gold_sql: str,
        predictions: Iterable[str | None],
        *,
        order_by: Sequence[int] | None = None,
        condition_cols: Sequence[int] | None = None,
        ignore_order: bool | None = None,
    ) -> list[Judgement]:
        """``judge`` of each of ``predictions`` (the sampled queries of one question), in
        order; a text given twice runs once."""
        texts = list(predictions)
        judged: dict[str | None, Judgement] = {}
        # The results of this call, shared by its predictions: the gold's (one that failed runs
        # once here, not once per prediction) and the predicted texts a rewrite makes alike.
        results: dict[tuple[str, str, str], QueryResult] = {}
        # Each distinct text as the semantics runs it, found once for both uses.
        pairs = {
            predicted: self._rewritten(gold_sql, predicted)
            for predicted in dict.fromkeys(texts)
            if predicted is not None
        }
        self._run_ahead(db_id, gold_sql, pairs, results)
        for predicted in texts:
            if predicted not in judged:
                judged[predicted] = self._judge(
                    db_id, gold_sql, predicted, order_by, condition_cols, ignore_order, results, pairs
                )
        return [judged[predicted] for predicted in texts]

    def judge_all(self, items: Iterable[tuple[str, str, str | None]]) -> list[Judgement]:
        """``judge`` of each ``(db_id, gold_sql, predicted_sql)`` of ``items``, in order: the
        predictions of one question (the same db_id and gold) are judged together
        (``judge_many``: one message to the SQLite helper, not a round trip each), wherever
        they stand. What a trainer's reward function gets, a batch of completions with their
        questions' columns, is judged so: ``judge_all(zip(db_ids, gold_sqls, completions))``."""
        listed = list(items)
        judged: list[Judgement | None] = [None] * len(listed)
        questions: dict[tuple[str, str], list[int]] = {}
        for index, (db_id, gold_sql, predicted) in enumerate(listed):
            try:
                hash((db_id, gold_sql, predicted))
            except TypeError:  # not text: judged alone, as judge does (it says why)
                judged[index] = self.judge(db_id, gold_sql, predicted)
                continue
            questions.setdefault((db_id, gold_sql), []).append(index)
        for (db_id, gold_sql), indexes in questions.items():
            judgements = self.judge_many(db_id, gold_sql, [listed[index][2] for index in indexes])
            for index, judgement in zip(indexes, judgements):
                judged[index] = judgement
        return [judgement for judgement in judged if judgement is not None]

    def rewards(self, db_id: str, gold_sql: str, predictions: Iterable[str | None]) -> list[float]:
        """The reward of each of ``predictions``: 1.0 when correct, else 0.0 (``judge_many``)."""
        return [judgement.reward for judgement in self.judge_many(db_id, gold_sql, predictions)]

    def gold_results(self, db_id: str, gold_sql: str) -> tuple[QueryResult, ...]:
        """The results of ``gold_sql`` on each database of ``db_id`` (run, or found in the
        cache, and kept): what a training loop checks once before it starts (a gold query
        that fails has ``error`` set). ``NoDatabase`` (a ``ValueError``) when ``db_id`` names
        no database."""
        return tuple(self._gold(database, gold_sql) for database in self._databases_of(db_id))

    def close(self) -> None:
        """Forget the gold results, close the engine's connections and end the idle SQLite
        helper processes of this process (a query of anyone in this process later starts
        one again); the judge cannot judge afterwards."""
        with self._lock:
            self._closed = True
            self._golds.clear()
            self._databases.clear()
        self.engine.close()
        stop_query_processes()

    def __enter__(self) -> ExecutionJudge:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ExecutionJudge({self.options.location!r}, semantics={self.semantics!r})"

    # ------------------------------------------------------------------ one judgement

    def _judge(
        self,
        db_id: str,
        gold_sql: str,
        predicted_sql: str | None,
        order_by: Sequence[int] | None,
        condition_cols: Sequence[int] | None,
        ignore_order: bool | None,
        results: dict[tuple[str, str, str], QueryResult],
        pairs: dict[str, RewrittenPair | None],
    ) -> Judgement:
        name = self.semantics
        try:
            databases = self._databases_of(db_id)
        except NoDatabase as error:
            return Judgement(False, str(error), name, error=True)
        if predicted_sql is None:  # as a corpus item without a prediction
            return Judgement(False, "no prediction", name)
        known = isinstance(predicted_sql, str) and predicted_sql in pairs
        rewritten = pairs[predicted_sql] if known else self._rewritten(gold_sql, predicted_sql)
        sort_keys = None if order_by is None else tuple(column - 1 for column in order_by)
        reason = ""
        for database in databases:
            gold = self._gold_once(database, gold_sql, results)
            if gold.error is not None:
                why = f"the gold query failed on {database.label}: {gold.error}"
                return Judgement(False, why, name, error=True, database=database.name)
            if rewritten is None:
                # A prediction that is the gold's text has the gold's result (as in answerkey sql).
                predicted = gold if predicted_sql == gold_sql else self._predicted(database, predicted_sql, results)
                if predicted.error is not None:
                    correct, why = False, f"the predicted query failed: {predicted.error}"
                else:
                    try:
                        decision = decide(
                            name,
                            gold,
                            predicted,
                            gold_sql=gold_sql,
                            rule=self._rule,
                            order_by=sort_keys,
                            condition_cols=condition_cols,
                            ignore_order=ignore_order,
                        )
                    except ValueError as error:
                        return Judgement(
                            False, f"on {database.label}: {error}", name, error=True, database=database.name
                        )
                    correct, why = decision.correct, decision.reason
            else:
                gold = self._gold_once(database, rewritten.gold.sql, results)
                if gold.error is not None:
                    changes = _listed(rewritten.gold.changes)
                    runner = self._semantics.official or name
                    why = f"the gold query as {runner} runs it ({changes}) failed on {database.label}: {gold.error}"
                    return Judgement(False, why, name, error=True, database=database.name)
                predicted_text = rewritten.predicted.sql
                predicted = (
                    gold if predicted_text == rewritten.gold.sql else self._predicted(database, predicted_text, results)
                )
                decision = decide(
                    name,
                    gold,
                    predicted,
                    gold_sql=rewritten.gold.sql,
                    rule=self._rule,
                    order_by=sort_keys,
                    condition_cols=condition_cols,
                    ignore_order=ignore_order,
                )
                correct, why = decision.correct, f"{decision.reason} ({rewritten.how})"
            if not correct:
                if len(databases) > 1:
                    why = f"on {database.label}: {why}"
                return Judgement(False, why, name, database=database.name)
            reason = reason or why
        same_text = predicted_sql == gold_sql if rewritten is None else rewritten.predicted.sql == rewritten.gold.sql
        if self._semantics.official and same_text:
            reason += f" ({PREDICTION_NOT_RUN})"  # as answerkey sql says it
        if len(databases) > 1:
            reason += f" (correct on each of the {len(databases)} databases)"
        return Judgement(True, reason, name)

    def _rewritten(self, gold_sql: str, predicted_sql: str) -> RewrittenPair | None:
        """The pair of texts the semantics runs, when its official script runs other texts
        (test-suite removes DISTINCT); None when it runs them as written, and for what is not
        text, which is left to the engine to refuse with the reason."""
        if not (isinstance(gold_sql, str) and isinstance(predicted_sql, str)):
            return None
        return self._semantics.rewritten_pair(gold_sql, predicted_sql, self._chosen)

    def _run_ahead(
        self,
        db_id: str,
        gold_sql: str,
        pairs: dict[str, RewrittenPair | None],
        results: dict[tuple[str, str, str], QueryResult],
    ) -> None:
        """The results of the predicted texts on ``db_id``'s first database, asked of the
        engine in one message when it can (``run_each``: SQLite's helper process runs them one
        after the other, no round trip between them), into ``results``. A question's samples
        then cost one message, not one round trip each. Not when the gold fails there: no
        sample is run then."""
        run_each = getattr(self.engine, "run_each", None)
        if run_each is None or not isinstance(gold_sql, str):
            return
        try:
            database = self._databases_of(db_id)[0]
        except NoDatabase:
            return
        if self._gold_once(database, gold_sql, results).error is not None:
            return
        wanted: dict[str, None] = {}
        for predicted, rewritten in pairs.items():
            if not isinstance(predicted, str):
                continue  # left to the engine, which refuses it with the reason
            gold_text, text = (
                (gold_sql, predicted) if rewritten is None else (rewritten.gold.sql, rewritten.predicted.sql)
            )
            if text != gold_text:  # one that is the gold's text takes the gold's result
                wanted[text] = None
        if len(wanted) < 2:
            return
        self._check_open()
        for text, result in zip(wanted, run_each(database, list(wanted))):
            results["predicted", database.location, text] = result
        with self._lock:
            self.predicted_runs += len(wanted)

    def _databases_of(self, db_id: str) -> tuple[Database, ...]:
        """The databases of ``db_id``, found once (``NoDatabase`` is not kept: it is looked for again)."""
        databases = self._databases.get(db_id)
        if databases is None:
            self._check_open()
            databases = self.engine.databases(db_id)
            with self._lock:
                self._databases[db_id] = databases
        return databases

    def _gold_once(self, database: Database, sql: str, results: dict[tuple[str, str, str], QueryResult]) -> QueryResult:
        """``_gold``, once per ``judge_many``."""
        key = ("gold", database.location, sql)
        result = results.get(key)
        if result is None:
            result = results[key] = self._gold(database, sql)
        return result

    def _predicted(self, database: Database, sql: str, results: dict[tuple[str, str, str], QueryResult]) -> QueryResult:
        """The result of the predicted ``sql`` on ``database`` (run once per ``judge_many``)."""
        if not isinstance(sql, str):  # the engine refuses it with the reason; it is no key
            self._check_open()
            with self._lock:
                self.predicted_runs += 1
            return self.engine.run(database, sql)
        key = ("predicted", database.location, sql)
        result = results.get(key)
        if result is None:
            self._check_open()
            result = results[key] = self.engine.run(database, sql)
            with self._lock:
                self.predicted_runs += 1
        return result

    def _gold(self, database: Database, sql: str) -> QueryResult:
        """The gold result of ``sql`` on ``database``: kept in memory, else read from the disk
        cache or run (by one thread; others asking meanwhile wait for it)."""
        key = (database.location, database.name, sql)
        with self._lock:
            if self._closed:
                raise ValueError("the judge is closed")
            found = self._golds.get(key)
            if found is None:
                # Imported here: with the logging it brings, about 4 ms of `answerkey sql`'s
                # start, which imports this module but judges with no ExecutionJudge.
                from concurrent.futures import Future

                running: Future[QueryResult] = Future()
                self._golds[key] = running
            else:
                self.gold_hits += 1
                if isinstance(found, QueryResult):
                    self._golds.move_to_end(key)
                    return found
        if found is not None:
            return found.result()
        try:
            result, ran = self._run_gold(database, sql)
        except BaseException as error:
            with self._lock:
                self._golds.pop(key, None)
            running.set_exception(error)
            raise
        with self._lock:
            if ran:
                self.gold_runs += 1
            else:
                self.gold_hits += 1
            if result.error is None and self._max_gold and self._golds.get(key) is running:
                self._golds[key] = result
                while len(self._golds) > self._max_gold:
                    oldest = next(iter(self._golds))
                    if not isinstance(self._golds[oldest], QueryResult):
                        break  # still running: it is stored, or dropped, when it ends
                    del self._golds[oldest]
            elif self._golds.get(key) is running:
                del self._golds[key]
        running.set_result(result)
        return result

    def _run_gold(self, database: Database, sql: str) -> tuple[QueryResult, bool]:
        """A gold query's result, and whether it ran (False: read from the disk cache). Its
        warnings are dropped: an unreadable entry runs again, an unwritable cache only costs time."""
        if self._cache is None:
            return self.engine.run(database, sql), True
        key = query_key(self.engine, database, sql, self.options, self._fingerprints)
        cached, _warning = self._cache.get(key)
        if cached is not None:
            return cached, False
        result = self.engine.run(database, sql)
        self._cache.put(key, result)
        return result, True

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError("the judge is closed")


def _listed(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
