"""The registry of semantics, by name, and what runs them: ``decide``, ``decide_all`` and
``disagreement`` read it, as the CLI, the run and the reports do."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from answerkey.adapters.engines import SUITE_FILES, TEXT_DECODINGS
from answerkey.adapters.sql import QueryResult
from answerkey.comparator import MatchRule
from answerkey.errors import did_you_mean
from answerkey.execution.semantics._base import Decision, Item, Semantics
from answerkey.execution.semantics._result import listed, one_line
from answerkey.plugins import import_modules

# Every registered semantics by name, in the order registered (the default first).
_REGISTRY: dict[str, Semantics] = {}


def register(semantics: Semantics) -> Semantics:
    """Add ``semantics`` under its name (``ValueError`` if the name is taken or not one
    ``--semantics`` can spell); returns it. From then on ``answerkey sql --semantics`` offers
    it and ``decide`` and ``run_sql`` decide under it."""
    name = semantics.name
    if not name or name != name.strip() or any(character in name for character in "|:, "):
        raise ValueError(f"a semantics needs a name without spaces, '|', ':' or ',': {name!r}")
    if name in _REGISTRY:
        raise ValueError(f"a semantics named {name!r} is registered already")
    if not semantics.rule:
        raise ValueError(f"the semantics {name!r} needs a one-line rule")
    if semantics.suite_files not in SUITE_FILES:
        raise ValueError(f"the semantics {name!r} lists a test suite's files as one of: {', '.join(SUITE_FILES)}")
    if semantics.text_decoding not in TEXT_DECODINGS:
        raise ValueError(f"the semantics {name!r} reads text as one of: {', '.join(TEXT_DECODINGS)}")
    _REGISTRY[name] = semantics
    return semantics


def unregister(name: str) -> Semantics:
    """Remove the semantics ``name`` from the registry (tests do this); returns it."""
    return _REGISTRY.pop(semantics_named(name).name)


def names() -> tuple[str, ...]:
    """The registered semantics' names, in the order registered (``answerkey`` first).

    >>> names()
    ('answerkey', 'test-suite', 'bird', 'spider2')
    """
    return tuple(_REGISTRY)


def semantics_named(name: str) -> Semantics:
    """The registered semantics ``name``; ``ValueError`` (with a suggestion) if there is none.

    >>> semantics_named("bird").rule
    "BIRD's EX: the set of rows, columns in the same order, values by Python =="
    >>> semantics_named("brid")
    Traceback (most recent call last):
    ...
    ValueError: unknown semantics 'brid' (did you mean 'bird'?): known are answerkey, test-suite, bird, spider2
    """
    semantics = _REGISTRY.get(name)
    if semantics is None:
        known = names()
        raise ValueError(f"unknown semantics {name!r}{did_you_mean(name, known)}: known are {', '.join(known)}")
    return semantics


def decided_semantics(headline: str) -> tuple[str, ...]:
    """The semantics a run with the ``headline`` semantics decides, in registry order: every
    one decided by default, and the headline.

    >>> decided_semantics("bird")
    ('answerkey', 'test-suite', 'bird', 'spider2')
    """
    semantics_named(headline)
    return tuple(name for name, semantics in _REGISTRY.items() if semantics.default or name == headline)


def checked_options(chosen: Iterable[str]) -> tuple[str, ...]:
    """Options of semantics, each ``name:option``, sorted and once each; ``ValueError`` for
    one its semantics does not declare (``Semantics.options``).

    >>> checked_options(["test-suite:keep_distinct", "test-suite:keep_distinct"])
    ('test-suite:keep_distinct',)
    >>> checked_options(["bird:fast"])
    Traceback (most recent call last):
    ...
    ValueError: the bird semantics has no option 'fast'; it has: none
    """
    unique = sorted(set(chosen))
    for option in unique:
        name, _, wanted = option.partition(":")
        declared = semantics_named(name).options
        if wanted not in declared:
            raise ValueError(f"the {name} semantics has no option {wanted!r}; it has: {', '.join(declared) or 'none'}")
    return tuple(unique)


def options_of(chosen: Iterable[str], semantics: str) -> frozenset[str]:
    """The options of ``semantics`` among the ``name:option`` choices."""
    prefix = semantics + ":"
    return frozenset(option[len(prefix) :] for option in chosen if option.startswith(prefix))


def options_signature(chosen: Sequence[str], decided: Iterable[str]) -> dict[str, str]:
    """The signature fields of the options chosen for the ``decided`` semantics: the name
    with ``_`` for ``-``, the options joined by commas.

    >>> options_signature(["test-suite:keep_distinct"], names())
    {'test_suite': 'keep_distinct'}
    """
    fields = {name.replace("-", "_"): ",".join(sorted(options_of(chosen, name))) for name in decided}
    return {name: options for name, options in fields.items() if options}


# The environment variable naming the modules of a user's own semantics (comma-separated).
MODULES_VARIABLE = "ANSWERKEY_SEMANTICS_MODULES"


def import_semantics_modules(environ: Mapping[str, str] | None = None) -> list[str]:
    """Import the modules ``ANSWERKEY_SEMANTICS_MODULES`` names (comma-separated: each a
    module name, or the path of a ``.py`` file), so that the semantics they register are
    known to every command and every process of a run; the names imported.
    ``answerkey.execution.semantics`` calls it once, after registering its own."""
    return import_modules(MODULES_VARIABLE, environ)


def _failed(semantics: str, gold: QueryResult, predicted: QueryResult) -> Decision | None:
    if gold.error is not None:
        raise ValueError(f"the gold query failed: {one_line(gold.error)}")
    if predicted.error is not None:
        return Decision(semantics, False, f"the predicted query failed: {one_line(predicted.error)}")
    return None


def decide(
    semantics: str,
    gold: QueryResult,
    predicted: QueryResult,
    *,
    gold_sql: str,
    rule: MatchRule | None = None,
    condition_cols: Sequence[int] | None = None,
    ignore_order: bool | None = None,
    order_by: Sequence[int] | None = None,
    dialect: str = "sqlite",
) -> Decision:
    """Whether ``predicted`` is correct against ``gold`` (both results of one database) under
    the registered ``semantics`` (``names()``; each module says how it decides):

    - ``answerkey``: ``answerkey.comparator.judge`` with ``rule``'s epsilon and string mode
      (default ``MatchRule()``). The gold is a set of tuples, unless its outer SELECT has
      ORDER BY: then it is ordered by ``order_by_keys`` (ties compared as sets), or, when a
      term names no result column, a plain sequence. ``order_by`` overrides this: 0-based
      sort keys, or ``()`` for a set. sqlglot reads ``gold_sql`` in ``dialect`` (the engine's
      name: ``sqlite``, ``duckdb`` or ``postgresql``).
    - ``test-suite``: test-suite-sql-eval's ``result_eq``, ordered when the gold's text
      contains ``order by`` (anywhere, in any case).
    - ``bird``: BIRD's ``set(predicted) == set(gold)``.
    - ``spider2``: Spider 2.0's ``compare_pandas_table`` with ``condition_cols`` (0-based gold
      columns; None or empty: all) and ``ignore_order`` (None: False, the official default).

    A predicted query that failed is incorrect, with its error as the reason. Raises
    ``ValueError`` for an unknown semantics, a gold query that failed, a gold result the
    semantics cannot judge (``answerkey``: a column mixing types; ``spider2``: condition
    columns outside the gold result).

    >>> from answerkey.model import Relation
    >>> gold = QueryResult(rows=Relation.from_rows([[1], [1]]).rows, columns=("n",))
    >>> predicted = QueryResult(rows=Relation.from_rows([[1]]).rows, columns=("n",))
    >>> print(decide("bird", gold, predicted, gold_sql="SELECT n FROM t"))
    bird: correct: same set of rows; duplicates ignored (the gold has 2 rows, the prediction 1)
    >>> print(decide("test-suite", gold, QueryResult(error="no such table: t"), gold_sql="SELECT n FROM t"))
    test-suite: incorrect: the predicted query failed: no such table: t
    """
    chosen = semantics_named(semantics)
    failed = _failed(semantics, gold, predicted)
    if failed is not None:
        return failed
    return chosen.decide(Item(gold, predicted, gold_sql, rule, condition_cols, ignore_order, order_by, dialect))


def decide_all(
    gold: QueryResult,
    predicted: QueryResult,
    *,
    gold_sql: str,
    rule: MatchRule | None = None,
    condition_cols: Sequence[int] | None = None,
    ignore_order: bool | None = None,
    order_by: Sequence[int] | None = None,
    semantics: Collection[str] | None = None,
    dialect: str = "sqlite",
) -> dict[str, Decision]:
    """``decide`` under each of ``semantics`` (None: those decided by default), in registry
    order; the values are converted once for all of them. Where the decisions disagree, a
    decision with a comparator verdict (answerkey's) carries its explanation
    (``Decision.explanation``), which ``disagreement`` shows. Raises as ``decide`` does.

    >>> from answerkey.model import Relation
    >>> gold = QueryResult(rows=Relation.from_rows([[0.3]]).rows, columns=("x",))
    >>> predicted = QueryResult(rows=Relation.from_rows([[0.1 + 0.2]]).rows, columns=("x",))
    >>> {name: decision.correct for name, decision in decide_all(gold, predicted, gold_sql="SELECT x").items()}
    {'answerkey': True, 'test-suite': False, 'bird': False, 'spider2': True}
    """
    if semantics is None:
        semantics = [name for name, registered in _REGISTRY.items() if registered.default]
    for name in semantics:
        semantics_named(name)
    wanted = [name for name in _REGISTRY if name in semantics]
    failed = {name: _failed(name, gold, predicted) for name in wanted}
    if any(decision is not None for decision in failed.values()):
        return {name: decision for name, decision in failed.items() if decision is not None}
    item = Item(gold, predicted, gold_sql, rule, condition_cols, ignore_order, order_by, dialect)
    if len(wanted) > 1 and gold.driver_columns is not None and predicted.driver_columns is not None:
        # The driver values now, while the results hold them: a semantics that makes the typed
        # rows (answerkey's) drops them, and making them again would convert each value back.
        item.gold_rows, item.predicted_rows, item.identical  # noqa: B018
    return explained({name: _REGISTRY[name].decide(item) for name in wanted})


def _disagree(decisions: Mapping[str, Decision]) -> bool:
    return len({decision.correct for decision in decisions.values()}) > 1


def explained(decisions: Mapping[str, Decision]) -> dict[str, Decision]:
    """``decisions``, where they disagree, with the explanation of each comparator verdict
    they hold (answerkey's) that has none yet."""
    if not _disagree(decisions):
        return dict(decisions)
    return {
        name: (
            replace(decision, explanation=decision.verdict.explain())
            if decision.verdict is not None and decision.explanation is None
            else decision
        )
        for name, decision in decisions.items()
    }


def disagreement(decisions: Mapping[str, Decision]) -> str | None:
    """None when every decision has the same verdict; otherwise which semantics decided
    what, one line each with its reason (registered semantics in registry order, then the
    others), and the explanation of each comparator verdict (answerkey's, as ``answerkey
    judge --explain`` prints it: ``Decision.explanation``, or its verdict's).

    >>> print(disagreement({"bird": Decision("bird", True, "same set of rows"),
    ...                     "test-suite": Decision("test-suite", False, "the gold has 2 rows, the prediction 1")}))
    correct under bird; incorrect under test-suite
      test-suite: incorrect: the gold has 2 rows, the prediction 1
      bird: correct: same set of rows
    """
    if not _disagree(decisions):
        return None
    order = [name for name in _REGISTRY if name in decisions] + [name for name in decisions if name not in _REGISTRY]
    right = [name for name in order if decisions[name].correct]
    wrong = [name for name in order if not decisions[name].correct]
    lines = [f"correct under {listed(right)}; incorrect under {listed(wrong)}"]
    lines.extend(f"  {decisions[name]}" for name in order)
    for name in order:
        decision = decisions[name]
        explanation = decision.explanation
        if explanation is None and decision.verdict is not None:
            explanation = decision.verdict.explain()
        if explanation is not None:
            lines.append(f"{name}'s explanation:")
            lines.extend("  " + line for line in explanation.splitlines())
    return "\n".join(lines)
