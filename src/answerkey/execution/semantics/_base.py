"""What every semantics shares: the ``Decision`` it makes, the ``Item`` it decides, and the
``Semantics`` base class a semantics module subclasses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from answerkey.adapters.sql import QueryResult
from answerkey.adapters.sqltext import outer_order
from answerkey.comparator import MatchRule, Verdict
from answerkey.execution.semantics._result import listed, result_width
from answerkey.metrics.driver_values import driver_rows, same_driver_values

PREDICTION_NOT_RUN = "the prediction is the gold's text: not run, the gold's result is its result"
"""What the reason of an item adds, under an official preset, when its prediction is the
gold's text as the preset runs them: answerkey does not run it (one execution per query), while
the official scripts run it again, and a gold whose result changes between runs (``RANDOM()``,
``LIMIT`` without ``ORDER BY``) may fail there."""


@dataclass(frozen=True)
class Decision:
    """Whether a predicted result is correct under one semantics, and why (one line).

    ``verdict`` is the comparator's ``Verdict`` for the ``answerkey`` semantics (None for the
    others, and when the predicted query failed); it holds both results, so keep the
    decision only as long as the item. ``explanation`` is that verdict's ``explain()`` text,
    set by ``decide_all`` where the semantics disagree. Equality ignores both, and a pickled
    decision (sent from a worker process) keeps the explanation but not the verdict.
    """

    semantics: str
    correct: bool
    reason: str
    verdict: Verdict | None = field(default=None, compare=False, repr=False)
    explanation: str | None = field(default=None, compare=False, repr=False)

    def __reduce__(self) -> tuple[type[Decision], tuple[str, bool, str, None, str | None]]:
        return Decision, (self.semantics, self.correct, self.reason, None, self.explanation)

    @property
    def label(self) -> str:
        """``correct`` or ``incorrect``."""
        return "correct" if self.correct else "incorrect"

    def document(self) -> dict[str, Any]:
        """Plain values for reports.

        >>> Decision("bird", True, "same set of rows").document()
        {'semantics': 'bird', 'verdict': 'correct', 'correct': True, 'reason': 'same set of rows'}
        """
        return {"semantics": self.semantics, "verdict": self.label, "correct": self.correct, "reason": self.reason}

    def __str__(self) -> str:
        return f"{self.semantics}: {self.label}: {self.reason}"


class Item:
    """One comparison, as a semantics decides it: both results (neither failed), the gold's
    SQL text and the item's options, and the values computed once for all semantics.

    ``gold_rows``/``predicted_rows`` are the rows as the Python driver gives them
    (``driver_value``: ``int``, ``float``, ``str``, ``None``...), which the official rules
    compare; ``gold.rows``/``predicted.rows`` are the typed ones (``answerkey.model``).
    ``rule`` is how values match (epsilon and string mode); ``order_by`` the gold's sort keys
    (0-based) when the item gives them; ``condition_cols`` and ``ignore_order`` Spider 2.0's;
    ``dialect`` the engine whose SQL ``gold_sql`` is (``sqlite``, ``duckdb``, ``postgresql``).

    >>> from answerkey.model import Relation
    >>> def result(rows):
    ...     return QueryResult(rows=Relation.from_rows(rows).rows, columns=("n",))
    >>> item = Item(result([[1], [2.5]]), result([[1]]), "SELECT n FROM t")
    >>> item.gold_rows, item.predicted_width
    ([(1,), (2.5,)], 1)
    """

    def __init__(
        self,
        gold: QueryResult,
        predicted: QueryResult,
        gold_sql: str,
        rule: MatchRule | None = None,
        condition_cols: Sequence[int] | None = None,
        ignore_order: bool | None = None,
        order_by: Sequence[int] | None = None,
        dialect: str = "sqlite",
    ) -> None:
        self.gold = gold
        self.predicted = predicted
        self.gold_sql = gold_sql
        self.rule = rule or MatchRule()
        self.condition_cols = condition_cols
        self.ignore_order = bool(ignore_order)
        self.order_by = order_by
        self.dialect = dialect

    @cached_property
    def gold_rows(self) -> list[tuple[object, ...]]:
        """The gold rows as the driver gives them."""
        return driver_rows(self.gold)

    @cached_property
    def predicted_rows(self) -> list[tuple[object, ...]]:
        """The predicted rows as the driver gives them."""
        return driver_rows(self.predicted)

    @cached_property
    def identical(self) -> bool:
        """Whether both results hold the same plain driver values, type for type
        (``same_driver_values``): a fast path of a semantics may decide from this alone
        where its rule gives the same decision for every such pair. Read while the results
        hold their driver values (``decide_all`` does, before any semantics decides)."""
        return same_driver_values(self.gold, self.predicted)

    @cached_property
    def gold_order(self) -> tuple[int, ...] | None:
        """The gold's outer ORDER BY as it orders the gold result (``outer_order``): None
        when it has none, its sort keys (0-based), or ``()`` when its terms do not all name
        result columns (a strict sequence). Read by the process that ran the gold when it
        did (``QueryResult.outer_order``: a SQLite helper asked by ``answerkey sql``), else
        here, with sqlglot, in ``dialect``."""
        read = self.gold.outer_order_of(self.gold_sql, self.dialect)
        if read is not None:
            return read.keys
        width = self.gold_width
        names = self.gold.columns if len(self.gold.columns) == width else ("",) * width
        return outer_order(self.gold_sql, names, width, self.dialect)

    @cached_property
    def gold_width(self) -> int:
        """The number of gold columns."""
        return result_width(self.gold)

    @cached_property
    def predicted_width(self) -> int:
        """The number of predicted columns."""
        return result_width(self.predicted)


@dataclass(frozen=True)
class Rewritten:
    """A query as a semantics runs it: its text and the names of the rewrites that changed
    it, in the order they were applied (none: it runs as written)."""

    sql: str
    changes: tuple[str, ...] = ()


class Semantics:
    """A comparison rule of ``answerkey sql``. A semantics module subclasses it, sets the
    class attributes, writes ``decide`` (and ``rewrite`` if the official script rewrites the
    queries before running them), and ``register``s an instance.

    - ``name``: as ``--semantics`` spells it, in reports and in the signature.
    - ``rule``: one line saying how it decides (help texts, the docs table).
    - ``default``: whether every run decides it (a column of every report); False: only a
      run that names it as the headline (``--semantics``) decides it, so that adding it
      changes no other output.
    - ``official``: the official script whose rule it follows ("" for none), named in the
      reasons when its rewritten queries decide.
    - ``options``: the options it takes (``SqlOptions.semantics_options``), each with what it
      does; a chosen option goes into the signature (``test_suite:keep_distinct``).
    - ``failed_gold``: what its official script does with an item whose gold query fails, as
      the reason of a run with it as the headline says it: "" (the default) when the script
      stops, so that the item is an error of the test; otherwise the item is incorrect under
      it and counted (BIRD's script scores it 0).
    - ``suite_files`` and ``text_decoding``: how a run with it as the headline lists a test
      suite's SQLite files and reads text that is not UTF-8 (``SQLiteEngine``): its official
      script's way (test-suite: every file whose name contains ``.sqlite``, bytes that are not
      UTF-8 dropped; bird: the query fails), answerkey's otherwise.

    It abstains from no item: a predicted query that failed is incorrect under every
    semantics before ``decide`` is called; ``decide`` raises ``ValueError`` for a gold result
    it cannot judge, which makes the item an error of the test.

    >>> class SameCount(Semantics):
    ...     name, rule, default = "same-count", "as many rows as the gold", False
    ...     def decide(self, item):
    ...         return self.decision(len(item.gold_rows) == len(item.predicted_rows), "rows counted")
    >>> SameCount().rewrite("SELECT 1", predicted=True), SameCount().rewritten_pair("SELECT 1", "SELECT 2")
    (Rewritten(sql='SELECT 1', changes=()), None)
    """

    name: str = ""
    rule: str = ""
    default: bool = True
    official: str = ""
    options: ClassVar[Mapping[str, str]] = {}
    failed_gold: str = ""
    suite_files: str = "ending"
    text_decoding: str = "replace"

    def decide(self, item: Item) -> Decision:
        """Whether ``item``'s predicted result is correct, and why (one line)."""
        raise NotImplementedError(f"the {self.name!r} semantics does not say how it decides")

    def rewrite(self, sql: str, *, predicted: bool, options: frozenset[str] = frozenset()) -> Rewritten:
        """The query this semantics runs for ``sql`` (the gold's, or a prediction's when
        ``predicted``) under the chosen ``options``: as written, unless the official script it
        follows rewrites it."""
        return Rewritten(sql)

    def rewritten_pair(self, gold: str, predicted: str, options: frozenset[str] = frozenset()) -> RewrittenPair | None:
        """An item's gold and predicted SQL as this semantics runs them (``rewrite``); None
        when it runs both as written."""
        pair = RewrittenPair(
            self,
            self.rewrite(gold, predicted=False, options=options),
            self.rewrite(predicted, predicted=True, options=options),
            options,
        )
        return pair if pair.gold.changes or pair.predicted.changes else None

    def rewritten_as(self, options: frozenset[str] = frozenset()) -> str:
        """Who rewrites the queries, under ``options``, for the reasons: ``as ...``."""
        return f"as {self.official or self.name} runs them"

    def decision(self, correct: bool, reason: str, verdict: Verdict | None = None) -> Decision:
        """A ``Decision`` of this semantics."""
        return Decision(self.name, correct, reason, verdict)

    def __repr__(self) -> str:
        return f"<semantics {self.name!r}>"


@dataclass(frozen=True)
class RewrittenPair:
    """An item's gold and predicted SQL as a semantics runs them (``Semantics.rewritten_pair``)
    under its chosen ``options``.

    ``alternatives`` are other predictions the official script tries, in order, after
    ``predicted`` (test-suite-sql-eval's ``--plug_value``: the prediction with the gold's
    values put in); the item is correct when one of them is correct on every database.
    ``plugged`` is how many the official script makes, which may be more than the
    ``alternatives`` kept (``MAX_PLUGGED_PREDICTIONS``)."""

    semantics: Semantics
    gold: Rewritten
    predicted: Rewritten
    options: frozenset[str] = frozenset()
    alternatives: tuple[str, ...] = ()
    plugged: int = 0

    @property
    def how(self) -> str:
        """``queries run with DISTINCT removed, as test-suite-sql-eval's default``."""
        changes = list(dict.fromkeys((*self.predicted.changes, *self.gold.changes)))
        if not changes:  # only the alternatives are new
            return f"queries run {self.semantics.rewritten_as(self.options)}"
        return f"queries run with {listed(changes)}, {self.semantics.rewritten_as(self.options)}"
