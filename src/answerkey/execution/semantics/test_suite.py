"""The ``test-suite`` semantics: test-suite-sql-eval's ``exec_eval.result_eq`` (Spider, SParC,
CoSQL), on the queries its script runs.

Its script does not run the queries as written: ``test_suite_rewrites`` gives the queries it
runs (``rewrite``), and ``answerkey sql`` decides on their results. Then a bag of rows, the
same number of columns in some permutation, rows in sequence when the gold's text contains
``order by``, values by Python ``==``. The official lines followed are those of
test-suite-sql-eval at commit e97acc5 (``exec_eval.py``, ``parse.py``, ``evaluation.py``).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from answerkey.errors import plural
from answerkey.execution.semantics._base import Decision, Item, Rewritten, RewrittenPair, Semantics
from answerkey.execution.semantics._permutation import column_permutation
from answerkey.execution.semantics._plug_value import plugged_predictions
from answerkey.execution.semantics._sqlparse import statement_and_distinct
from answerkey.limits import MAX_PLUGGED_PREDICTIONS


def _sorted_row(row: tuple[object, ...]) -> tuple[object, ...]:
    # test-suite's first check sorts each row's values by their text and type name
    # (exec_eval.py:28-29, unorder_row, used by quick_rej at :36-42).
    return tuple(sorted(row, key=_text_and_type))


def _text_and_type(value: object) -> str:
    kind = type(value)
    name = _TYPE_TEXTS.get(kind)
    if name is None:
        name = _TYPE_TEXTS[kind] = str(kind)
    return str(value) + name


# str(type(value)) of each type met, made once ("<class 'int'>").
_TYPE_TEXTS: dict[type, str] = {}


def _first_check(gold: list[tuple[object, ...]], predicted: list[tuple[object, ...]], ordered: bool) -> bool:
    """test-suite's first check (``quick_rej``, exec_eval.py:36-42): each row's values sorted
    by their text and type, the rows equal in sequence when ``ordered``, as sets otherwise."""
    if len(gold[0]) == 1:
        # Speed: a row of one value sorts to itself (its key need not be made).
        gold_sorted, predicted_sorted = gold, predicted
    else:
        gold_sorted = [_sorted_row(row) for row in gold]
        predicted_sorted = [_sorted_row(row) for row in predicted]
    return gold_sorted == predicted_sorted if ordered else set(gold_sorted) == set(predicted_sorted)


# The plain driver values (``plain_values``): among them only an int and a float can be equal.
_PLAIN_TYPES = frozenset({type(None), int, float, str})


def _written_alike(
    gold: list[tuple[object, ...]], predicted: list[tuple[object, ...]], permutation: tuple[int, ...]
) -> bool:
    """Whether the values ``permutation`` pairs (gold column ``i``, predicted column
    ``permutation[i]``) are of one type and one text wherever they are equal: each pair of
    columns holds the same set of plain types, not both ints and floats, and no float zero
    (``0.0 == -0.0``, written apart). Then the rows the permutation matches hold the same
    values with the same texts and types, which test-suite's first check sorts alike: it
    passes. (Speed: its per-value sort is most of the rule on a correct prediction whose
    columns are permuted; the first check is made where this says nothing.)"""
    gold_columns, predicted_columns = list(zip(*gold)), list(zip(*predicted))
    for column, target in enumerate(permutation):
        kinds = set(map(type, gold_columns[column]))
        if kinds != set(map(type, predicted_columns[target])) or not kinds <= _PLAIN_TYPES:
            return False
        if float in kinds and (int in kinds or 0.0 in gold_columns[column]):
            return False
    return True


def _rows_and_columns(gold_count: int, predicted_count: int, gold_width: int, predicted_width: int) -> str | None:
    if gold_count != predicted_count:
        return f"the gold has {plural(gold_count, 'row')}, the prediction {predicted_count:,}"
    if gold_width != predicted_width:
        return f"the gold has {plural(gold_width, 'column')}, the prediction {predicted_width:,}"
    return None


def _decide(item: Item) -> Decision:
    gold, predicted = item.gold_rows, item.predicted_rows

    def decision(correct: bool, reason: str) -> Decision:
        return Decision("test-suite", correct, reason)

    if not gold and not predicted:
        return decision(True, "both results are empty")
    shape = _rows_and_columns(
        len(gold), len(predicted), len(gold[0]) if gold else 0, len(predicted[0]) if predicted else 0
    )
    if shape is not None:
        return decision(False, shape)
    # The official rule's test, word for word (exec_eval.py:197): the text, lowercased,
    # contains "order by".
    ordered = "order by" in item.gold_sql.lower()
    if item.identical:
        # Speed (most predictions are correct): the same values, types and texts in the same
        # places pass the first check (each row's values sorted by text and type: the same
        # sort), and the identity permutation is tried first; what the steps below find then.
        return decision(True, "same rows in the same order" if ordered else "same bag of rows")
    collect: Callable[[Iterable[Any]], Any] = list if ordered else Counter
    # The official order: the first check, then a permutation. Only the reason tells which
    # failed, and when no permutation works both do: the permutation is looked for first,
    # and the first check made only when one works (speed: most wrong results have none).
    permutation = column_permutation(gold, predicted, collect)
    if permutation is not None:
        if not (_written_alike(gold, predicted, permutation) or _first_check(gold, predicted, ordered)):
            return decision(
                False,
                "the rows match, but test-suite's first check rejects them: it sorts each row's values by "
                "their text and type, and equal values written differently (1 and 1.0) sort apart",
            )
        same = "same rows in the same order" if ordered else "same bag of rows"
        permuted = "" if permutation == tuple(range(len(permutation))) else " with columns permuted"
        return decision(True, same + permuted)
    if ordered and column_permutation(gold, predicted, Counter) is not None:
        return decision(
            False,
            "same bag of rows in another order (the gold's text has 'order by')",
        )
    if ordered:
        return decision(False, "no permutation of the prediction's columns gives the gold's rows in order")
    return decision(False, "no permutation of the prediction's columns gives the gold's bag of rows")


TEST_SUITE_YEAR = "2020"
"""What test-suite-sql-eval writes for ``YEAR(CURDATE())`` before it runs a query."""

# Its placeholder for a value the model did not predict, read as the number 1: every
# substring "value", case-sensitive, wherever it is (predictions only; evaluation.py:569,
# p_str.replace("value", "1"), before eval_exec_match): `total_value` and `value_count` too.
_PLACEHOLDER = ("value", "1")
# Comparison operators written with a space, closed up in both queries, in this order
# (exec_eval.py:172-174, postprocess, applied to both at :187).
_SPACED_OPERATORS = (("> =", ">="), ("< =", "<="), ("! =", "!="))
# exec_eval.py:125-128, replace_cur_year, applied to each query run at :146.
_CURRENT_YEAR = re.compile(r"YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*", re.IGNORECASE)


def test_suite_rewrites(
    sql: str, *, keep_distinct: bool = False, predicted: bool = False, current_year: bool = True
) -> tuple[str, tuple[str, ...]]:
    """``test_suite_sql`` of ``sql``, and the names of the rewrites that changed it, in the
    order they are applied (none: the query runs as written). Without ``current_year`` the
    last step is left out: the text the official code plugs the gold's values into (it
    replaces ``YEAR(CURDATE())`` only as it runs a query).

    >>> test_suite_rewrites("SELECT DISTINCT name FROM singer WHERE age > = 30")
    ('SELECT  name FROM singer WHERE age >= 30', ("'> =' written '>='", 'DISTINCT removed'))
    >>> test_suite_rewrites("SELECT name FROM singer")
    ('SELECT name FROM singer', ())
    """
    changes: list[str] = []

    def step(text: str, rewritten: str, name: str) -> str:
        if rewritten != text:
            changes.append(name)
        return rewritten

    text = sql
    if predicted:
        placeholder, number = _PLACEHOLDER
        text = step(text, text.replace(placeholder, number), f"{placeholder!r} replaced by {number!r}")
    for spaced, closed in _SPACED_OPERATORS:
        text = step(text, text.replace(spaced, closed), f"{spaced!r} written {closed!r}")
    if not keep_distinct:  # exec_eval.py:188-190: parse.remove_distinct (parse.py:139-141)
        first, without = statement_and_distinct(text)
        text = step(text, first, "only the first statement kept")
        text = step(text, without, "DISTINCT removed")
    if current_year:
        text = step(text, _current_year(text), f"YEAR(CURDATE()) replaced by {TEST_SUITE_YEAR}")
    return text, tuple(changes)


def _current_year(sql: str) -> str:
    return _CURRENT_YEAR.sub(TEST_SUITE_YEAR, sql)


def test_suite_sql(sql: str, *, keep_distinct: bool = False, predicted: bool = False) -> str:
    """The query test-suite-sql-eval runs for ``sql`` by default (its ``evaluation.py``, then
    ``eval_exec_match`` and ``exec_on_db``), rewritten in this order:

    1. a prediction (``predicted``) has each ``value`` replaced by ``1``, case-sensitive,
       wherever it is (the placeholder of a value the model did not predict; inside names
       and strings too: ``total_value`` becomes ``total_1``);
    2. ``"> ="``, ``"< ="`` and ``"! ="`` are written ``">="``, ``"<="`` and ``"!="``
       (anywhere in the text, strings included);
    3. unless ``keep_distinct`` (its ``--keep_distinct``): only the first statement is kept
       (as sqlparse splits statements: to the first ``;`` outside parentheses and BEGIN
       blocks, or a ``GO``, with the spaces and ``--`` comments after it on its line), and
       every token of it that is the word ``distinct`` in any case is removed, the spaces
       around it kept: in ``SELECT DISTINCT`` and ``COUNT(DISTINCT x)`` alike (``IS
       DISTINCT FROM`` too), but not in a string, a quoted name or a comment;
    4. ``YEAR(CURDATE())`` (any case and spacing, with the spaces after it) becomes
       ``2020`` (anywhere in the text).

    The gold gets steps 2 to 4. A text that is only white space is left as it is (the
    script fails on it), and so is one longer than ``MAX_QUERY_CHARS`` in step 3 (no engine
    runs it).

    >>> test_suite_sql("SELECT COUNT(distinct name) FROM singer WHERE country ! = 'DISTINCT'")
    "SELECT COUNT( name) FROM singer WHERE country != 'DISTINCT'"
    >>> test_suite_sql("SELECT DISTINCT name FROM singer", keep_distinct=True)
    'SELECT DISTINCT name FROM singer'
    >>> test_suite_sql("SELECT name FROM singer WHERE age > value", predicted=True)
    'SELECT name FROM singer WHERE age > 1'
    >>> test_suite_sql("SELECT total_value FROM shop WHERE kind = 'Value'", predicted=True)
    "SELECT total_1 FROM shop WHERE kind = 'Value'"
    """
    return test_suite_rewrites(sql, keep_distinct=keep_distinct, predicted=predicted)[0]


class TestSuite(Semantics):
    """test-suite-sql-eval's rule, on the queries its script runs."""

    __test__ = False  # a class, not a test: doctest and pytest skip collecting it

    name = "test-suite"
    rule = (
        "test-suite-sql-eval's result_eq (Spider): a bag of rows, the same number of columns in "
        "some order, rows in sequence when the gold's text contains 'order by', values by Python ==; the queries "
        "run as its script rewrites them (DISTINCT removed unless kept)"
    )
    official = "test-suite-sql-eval"
    # Its databases: every file of the db_id's directory whose name contains ".sqlite"
    # (exec_eval.py:201); its connection drops the bytes of text that are not UTF-8
    # (exec_eval.py:140, text_factory decoding with errors="ignore").
    suite_files = "containing"
    text_decoding = "ignore"
    options: ClassVar[Mapping[str, str]] = {
        "keep_distinct": "DISTINCT kept in the queries (its --keep_distinct)",
        "plug_value": "the gold's values also tried in the prediction's value places (its --plug_value)",
    }

    def decide(self, item: Item) -> Decision:
        """``result_eq(gold, predicted, order_matters='order by' in gold_sql.lower())``
        (exec_eval.py:197), with the reason why."""
        return _decide(item)

    def rewrite(self, sql: str, *, predicted: bool, options: frozenset[str] = frozenset()) -> Rewritten:
        """``test_suite_rewrites``: ``keep_distinct`` among ``options`` keeps DISTINCT."""
        return Rewritten(*test_suite_rewrites(sql, keep_distinct="keep_distinct" in options, predicted=predicted))

    def rewritten_pair(self, gold: str, predicted: str, options: frozenset[str] = frozenset()) -> RewrittenPair | None:
        """The queries as the official script runs them; with ``plug_value`` among ``options``,
        the pair also holds the predictions made with the gold's values (``alternatives``,
        ``plugged_predictions``), which the script tries after the prediction as written."""
        pair = super().rewritten_pair(gold, predicted, options)
        if "plug_value" not in options:
            return pair
        keep = "keep_distinct" in options
        count, plugged = plugged_predictions(
            test_suite_rewrites(gold, keep_distinct=keep, current_year=False)[0],
            test_suite_rewrites(predicted, keep_distinct=keep, predicted=True, current_year=False)[0],
        )
        alternatives = tuple(_current_year(sql) for sql in itertools.islice(plugged, MAX_PLUGGED_PREDICTIONS))
        base = pair or RewrittenPair(self, Rewritten(gold), Rewritten(predicted), options)
        return replace(base, alternatives=alternatives, plugged=count)

    def rewritten_as(self, options: frozenset[str] = frozenset()) -> str:
        """``as test-suite-sql-eval's default`` (or ``with --keep_distinct``, ``--plug_value``)."""
        flags = [f"--{option}" for option in ("keep_distinct", "plug_value") if option in options]
        kept = f"test-suite-sql-eval with {' and '.join(flags)}" if flags else "test-suite-sql-eval's default"
        return f"as {kept}"
