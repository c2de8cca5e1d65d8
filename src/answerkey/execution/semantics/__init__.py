"""Comparison semantics: is a predicted query's result correct, under each named rule?

For one item on one database, ``decide`` compares the predicted query's result with the gold
query's result under one **semantics**: answerkey's own (the default) or a preset that
reproduces a benchmark's official rule, flaws included. ``decide_all`` decides under every
semantics and ``disagreement`` says, where they disagree, which rule decided what, with the
explanation of answerkey's verdict (``answerkey judge --explain``).

================  ==================  ===================  ==================  ======================
semantics         rows                columns              order               values
================  ==================  ===================  ==================  ======================
``answerkey``     a set               extra ones allowed,  by the gold's outer reals within epsilon
                                      any order (mapped)   ``ORDER BY`` keys,  (``rule``), NULL = NULL
                                                           ties as sets
``test-suite``    a bag (duplicates   same count, one      strict sequence     Python ``==`` (1 = 1.0,
                  count)              permutation          when the gold's     reals exact), None =
                                                           text has "order by" None
``bird``          a set               same count, same     ignored             Python ``==``
                                      order
``spider2``       per column          each gold column     by row, or sorted   numbers within 0.01
                                      somewhere            (``ignore_order``)  (absolute), NULL = NULL
================  ==================  ===================  ==================  ======================

The official rules compare the values their Python drivers give: ``driver_value`` turns the
typed values back into them (integers ``int``, reals ``float`` as ``sqlite3`` gives them, text
``str``, NIL ``None``, booleans ``bool``, dates ``datetime.date``). ``spider2`` compares values
after the CSV round trip Spider 2.0's evaluator puts every result through (pandas writes the
result to CSV and reads it back), emulated here without pandas.

A predicted query that failed is incorrect under every semantics, with its error as the
reason; a gold query that failed is the caller's problem (``ValueError``).

**The registry.** Each semantics is one module of this package, a ``Semantics`` subclass:
``answerkey``, ``test_suite``, ``bird``, ``spider2``; they are registered by name below, in
the order reports show them. ``names()``, ``semantics_named()`` and ``decided_semantics()``
read the registry, and so do ``answerkey sql --semantics``, the run, the reports and the docs.
``register`` adds one, and ``ANSWERKEY_SEMANTICS_MODULES`` names modules that do
(docs/semantics.md: Write your own semantics). Shared helpers are
private modules: ``_base`` (``Decision``, ``Item``, ``Semantics``), ``_registry``,
``_result`` (a result's width, its error on one line), ``_permutation``,
``_sqlparse`` (sqlparse's tokens, for test-suite); the gold's ORDER BY is read by
``answerkey.adapters.sqltext`` (``Item.gold_order``). ``soft_f1`` is a metric
(``answerkey.metrics.soft_f1``), re-exported here where it was.

test-suite-sql-eval does not run the queries as written: its script rewrites both first
(DISTINCT removed, ``> =`` closed up, ...). ``test_suite_sql`` gives the queries it runs; the
``test-suite`` semantics is meant to decide on their results (``answerkey sql`` runs them).

>>> from answerkey.adapters.sql import QueryResult
>>> from answerkey.model import Relation
>>> def result(rows, *columns):
...     return QueryResult(rows=Relation.from_rows(rows).rows, columns=columns)
>>> gold = result([["ADAMS", 40000], ["BAKER", 40000]], "name", "salary")
>>> predicted = result([[40000, "BAKER"], [40000, "ADAMS"]], "salary", "name")
>>> for decision in decide_all(gold, predicted, gold_sql="SELECT name, salary FROM emp ORDER BY salary").values():
...     print(decision)
answerkey: correct: the tuples match in key order (BY 2; ties as sets)
test-suite: incorrect: same bag of rows in another order (the gold's text has 'order by')
bird: incorrect: the rows match only with columns permuted, which bird does not allow
spider2: incorrect: gold column 1 (name) matches no predicted column
"""

from collections.abc import Mapping

from answerkey.adapters.sqltext import (
    has_outer_order_by as has_outer_order_by,
    order_by_keys as order_by_keys,
)
from answerkey.execution.semantics._base import Decision, Item, Rewritten, Semantics
from answerkey.execution.semantics._registry import (
    decide,
    decide_all,
    decided_semantics as decided_semantics,
    disagreement,
    import_semantics_modules,
    names,
    register,
    semantics_named,
    unregister,
)
from answerkey.execution.semantics.answerkey import Answerkey
from answerkey.execution.semantics.bird import Bird
from answerkey.execution.semantics.spider2 import SPIDER2_TOLERANCE as SPIDER2_TOLERANCE, Spider2
from answerkey.execution.semantics.test_suite import (
    TEST_SUITE_YEAR as TEST_SUITE_YEAR,
    TestSuite,
    test_suite_rewrites as test_suite_rewrites,
    test_suite_sql,
)
from answerkey.metrics.driver_values import OtherValue as OtherValue, driver_value as driver_value
from answerkey.metrics.sql_soft_f1 import soft_f1 as soft_f1

__all__ = [
    "DEFAULT_SEMANTICS",
    "Decision",
    "Item",
    "Rewritten",
    "Semantics",
    "register",
    "unregister",
    "names",
    "semantics_named",
    "decide",
    "decide_all",
    "disagreement",
    "test_suite_sql",
]

# The one place the built-in semantics are registered, in the order reports show them (the
# default first). A semantics outside answerkey registers itself (``register``) when imported
# (ANSWERKEY_SEMANTICS_MODULES: ``import_semantics_modules``).
for _builtin in (Answerkey(), TestSuite(), Bird(), Spider2()):
    register(_builtin)

SEMANTICS = names()
"""The built-in semantics, the default first (``names()`` also gives those registered later)."""

DEFAULT_SEMANTICS = SEMANTICS[0]
"""The semantics ``answerkey sql`` decides under when none is named."""

DESCRIPTIONS: Mapping[str, str] = {name: semantics_named(name).rule for name in SEMANTICS}
"""One line per built-in semantics, for help texts and reports (``Semantics.rule``)."""

# A user's own semantics, named by ANSWERKEY_SEMANTICS_MODULES (after the built-in ones,
# which the modules import from here).
import_semantics_modules()
