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

test-suite-sql-eval does not run the queries as written: its script rewrites both first
(DISTINCT removed, ``> =`` closed up, ...). ``test_suite_sql`` gives the queries it runs; the
``test-suite`` semantics is meant to decide on their results (``answerkey sql`` runs them).

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

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from operator import itemgetter
from typing import Any, NamedTuple

from answerkey.adapters.sql import ColumnFacts, QueryResult
from answerkey.comparator import KeyedColumn, MatchRule, Verdict, judge, judge_keyed
from answerkey.errors import did_you_mean, plural
from answerkey.limits import MAX_QUERY_CHARS
from answerkey.metrics.driver_values import OtherValue, driver_rows, driver_value
from answerkey.metrics.soft_f1 import soft_f1
from answerkey.model import Boolean, Date, DateTime, Failure, Nil, Number, Relation, String, Time, Value

__all__ = [
    "SEMANTICS",
    "DEFAULT_SEMANTICS",
    "DESCRIPTIONS",
    "SPIDER2_TOLERANCE",
    "Decision",
    "OtherValue",
    "decide",
    "decide_all",
    "disagreement",
    "order_by_keys",
    "has_outer_order_by",
    "soft_f1",
    "driver_value",
    "TEST_SUITE_YEAR",
    "test_suite_sql",
    "test_suite_rewrites",
]

SEMANTICS = ("answerkey", "test-suite", "bird", "spider2")
"""The named semantics, the default first."""

DEFAULT_SEMANTICS = SEMANTICS[0]

DESCRIPTIONS: Mapping[str, str] = {
    "answerkey": "answerkey's comparator: tuples as a set, extra columns in any order allowed, reals within "
    "epsilon; ordered by the gold's ORDER BY columns (ties as sets) when it has one",
    "test-suite": "test-suite-sql-eval's result_eq (Spider): a bag of rows, the same number of columns in "
    "some order, rows in sequence when the gold's text contains 'order by', values by Python ==; the queries "
    "run as its script rewrites them (DISTINCT removed unless kept)",
    "bird": "BIRD's EX: the set of rows, columns in the same order, values by Python ==",
    "spider2": "Spider 2.0's compare_pandas_table: every gold column (or condition column) equals some "
    "predicted column, numbers within 0.01, after a CSV round trip; sorted when ignore_order",
}
"""One line per semantics, for help texts and reports."""

SPIDER2_TOLERANCE = 0.01
"""Spider 2.0's tolerance: numbers match when ``math.isclose(a, b, abs_tol=0.01)``."""


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


def _width(result: QueryResult) -> int:
    """The number of columns: named ones, or those of the first row."""
    if result.columns:
        return len(result.columns)
    return len(result.rows[0]) if result.rows else 0


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in str(text).splitlines() if line.strip())


# ---------------------------------------------------------------------------------------------
# SQL text: the outer ORDER BY and the select list, for sort keys


class _Token(NamedTuple):
    kind: str  # word, quoted, string, number, punct
    text: str
    key: str  # identifiers lowercased and unquoted; anything else as written
    depth: int  # parentheses around the token


_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
    |(?P<comment>--[^\n]*|/\*.*?(?:\*/|\Z))
    |(?P<string>'(?:[^']|'')*(?:'|\Z))
    |(?P<quoted>"(?:[^"]|"")*(?:"|\Z)|`(?:[^`]|``)*(?:`|\Z)|\[[^\]]*(?:\]|\Z))
    |(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
    |(?P<word>[^\W\d]\w*|[$@:?]\w*)
    |(?P<punct><=|>=|<>|!=|==|\|\||::|->>|->|.)
    """,
    re.VERBOSE | re.DOTALL,
)

# Words that end the select list of a SELECT at its own level.
_SELECT_END = frozenset(
    {"from", "where", "group", "having", "window", "order", "limit", "offset", "union", "intersect", "except"}
    | {"into", "fetch", "qualify"}
)
# Words that end an ORDER BY clause.
_ORDER_END = frozenset({"limit", "offset", "fetch", "for"})
# Words that cannot end an expression, so the identifier after them is not an alias.
_OPERATOR_WORDS = frozenset(
    {"and", "or", "not", "is", "in", "like", "glob", "regexp", "match", "between", "collate", "escape", "ilike"}
    | {"then", "else", "when", "case", "as", "distinct", "all", "by", "on", "select", "similar", "to", "exists"}
    | {"interval", "date", "time", "timestamp"}
)
# Words that are values or expression ends, never aliases.
_NOT_ALIASES = _OPERATOR_WORDS | {"end", "null", "true", "false"}


def _tokens(sql: str) -> list[_Token]:
    """The tokens of the first statement, comments dropped, each with its depth."""
    tokens: list[_Token] = []
    depth = 0
    for match in _TOKEN.finditer(sql):
        kind = match.lastgroup or "punct"
        text = match.group()
        if kind in ("space", "comment"):
            continue
        if kind == "word":
            key = text.lower()
        elif kind == "quoted":
            closing = {'"': '"', "`": "`", "[": "]"}[text[0]]
            body = text[1:-1] if len(text) > 1 and text.endswith(closing) else text[1:]
            key = body.replace(closing * 2, closing).lower() if closing != "]" else body.lower()
        else:
            key = text
        if text == ")":
            depth -= 1
            if depth < 0:
                break  # unbalanced: what follows is not part of this query
        if text == ";" and depth == 0:
            break
        tokens.append(_Token(kind, text, key, depth))
        if text == "(":
            depth += 1
    return tokens


def _is_word(token: _Token, *words: str) -> bool:
    return token.kind == "word" and token.key in words


def _split_commas(tokens: Sequence[_Token], depth: int) -> list[list[_Token]]:
    parts: list[list[_Token]] = [[]]
    for token in tokens:
        if token.text == "," and token.depth == depth:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _order_by_at(tokens: Sequence[_Token]) -> int | None:
    """The index of the outer ORDER BY's ``BY``: the last ``ORDER BY`` outside parentheses."""
    found = None
    for index in range(len(tokens) - 1):
        if tokens[index].depth == 0 and _is_word(tokens[index], "order") and _is_word(tokens[index + 1], "by"):
            found = index + 1
    return found


def has_outer_order_by(sql: str) -> bool:
    """Whether the query's outermost SELECT (or compound SELECT) has ``ORDER BY``: not one in
    a subquery, a window or an aggregate, a string literal or a comment.

    >>> has_outer_order_by("SELECT a FROM t ORDER BY a")
    True
    >>> has_outer_order_by("SELECT * FROM (SELECT a FROM t ORDER BY a)")
    False
    >>> has_outer_order_by("SELECT 'order by' FROM t -- ORDER BY a")
    False
    """
    return _order_by_at(_tokens(sql)) is not None


def _order_terms(tokens: Sequence[_Token]) -> list[list[_Token]] | None:
    """The outer ORDER BY's terms, their ASC/DESC, NULLS and COLLATE dropped."""
    at = _order_by_at(tokens)
    if at is None:
        return None
    clause: list[_Token] = []
    for token in tokens[at + 1 :]:
        if token.depth == 0 and _is_word(token, *_ORDER_END):
            break
        clause.append(token)
    terms = []
    for term in _split_commas(clause, 0):
        while True:
            if len(term) >= 2 and _is_word(term[-2], "nulls") and _is_word(term[-1], "first", "last"):
                term = term[:-2]
            elif term and _is_word(term[-1], "asc", "desc"):
                term = term[:-1]
            elif len(term) >= 2 and _is_word(term[-2], "collate"):
                term = term[:-2]
            else:
                break
        if not term:
            return []
        terms.append(term)
    return terms


@dataclass(frozen=True)
class _SelectItem:
    """One item of a select list: its expression (token keys), alias, and, for a column
    reference, the column's name and its qualifier."""

    expression: tuple[str, ...]
    alias: str | None
    star: bool
    column: str | None
    qualifier: tuple[str, ...] | None


def _column_reference(tokens: Sequence[_Token]) -> tuple[str, tuple[str, ...]] | None:
    """``(name, qualifier)`` when the tokens are ``name`` or ``t.name`` (or ``s.t.name``)."""
    if len(tokens) % 2 == 0:
        return None
    for index, token in enumerate(tokens):
        if index % 2 == 0 and token.kind not in ("word", "quoted"):
            return None
        if index % 2 == 1 and token.text != ".":
            return None
    return tokens[-1].key, tuple(token.key for token in tokens[:-1:2])


def _select_item(tokens: list[_Token]) -> _SelectItem:
    if not tokens:
        return _SelectItem((), None, False, None, None)
    if tokens[-1].text == "*":
        return _SelectItem(tuple(t.key for t in tokens), None, True, None, None)
    alias = None
    last = tokens[-1]
    if len(tokens) >= 3 and _is_word(tokens[-2], "as") and last.kind in ("word", "quoted", "string"):
        alias = last.text[1:-1].replace("''", "'").lower() if last.kind == "string" else last.key
        tokens = tokens[:-2]
    elif len(tokens) >= 2 and (last.kind == "quoted" or (last.kind == "word" and last.key not in _NOT_ALIASES)):
        before = tokens[-2]
        if (
            before.kind in ("quoted", "string", "number")
            or before.text == ")"
            or (before.kind == "word" and before.key not in _OPERATOR_WORDS)
        ):
            alias, tokens = last.key, tokens[:-1]
    reference = _column_reference(tokens)
    column, qualifier = reference if reference is not None else (None, None)
    return _SelectItem(tuple(t.key for t in tokens), alias, False, column, qualifier)


def _select_items(tokens: Sequence[_Token]) -> list[_SelectItem] | None:
    """The items of the outermost SELECT's select list (the first SELECT outside parentheses:
    a CTE's bodies are inside them), or None if there is none."""
    start = next((i for i, t in enumerate(tokens) if t.depth == 0 and _is_word(t, "select")), None)
    if start is None:
        return None
    index = start + 1
    if index < len(tokens) and _is_word(tokens[index], "distinct", "all"):
        index += 1
        if index < len(tokens) and _is_word(tokens[index], "on") and index + 1 < len(tokens):
            index += 2  # DISTINCT ON ( ... ): skip the parenthesised list
            while index < len(tokens) and tokens[index].depth > 0:
                index += 1
            index += 1
    listed: list[_Token] = []
    for token in tokens[index:]:
        if token.depth == 0 and _is_word(token, *_SELECT_END):
            break
        listed.append(token)
    return [_select_item(item) for item in _split_commas(listed, 0)]


def _name_keys(name: str) -> tuple[str, ...]:
    return tuple(token.key for token in _tokens(name))


def _resolve(term: list[_Token], items: list[_SelectItem] | None, names: Sequence[str], width: int) -> int | None:
    """The result column (0-based) an ORDER BY term names, or None."""
    if len(term) == 1 and term[0].kind == "number" and term[0].text.isdigit():
        number = int(term[0].text)
        return number - 1 if 1 <= number <= width else None
    key = tuple(token.key for token in term)
    lowered = [name.lower() for name in names]
    reference = _column_reference(term)
    if reference is not None and not reference[1]:
        # One identifier: an output name (alias) first, as SQL resolves it, then an expression.
        name = reference[0]
        if items is not None:
            for position, item in enumerate(items):
                if item.alias == name:
                    return position
            for position, item in enumerate(items):
                if item.expression == key:
                    return position
        if name in lowered:
            return lowered.index(name)
        if items is not None:
            same = [position for position, item in enumerate(items) if item.column == name]
            if len(same) == 1:
                return same[0]
        return None
    if reference is not None:
        # A qualified column: the select item that is that column, never an alias.
        name, qualifier = reference
        if items is not None:
            for position, item in enumerate(items):
                if item.expression == key:
                    return position
            same = [
                position
                for position, item in enumerate(items)
                if item.column == name and item.qualifier is not None and item.qualifier in ((), qualifier)
            ]
            return same[0] if len(same) == 1 else None
        same = [position for position, lower in enumerate(lowered) if lower == name]
        return same[0] if len(same) == 1 else None
    if items is not None:
        for position, item in enumerate(items):
            if item.expression == key:
                return position
    for position, name in enumerate(names):
        if _name_keys(name) == key:
            return position
    return None


def _sort_keys(sql: str, names: Sequence[str], width: int) -> tuple[int, ...] | None:
    tokens = _tokens(sql)
    terms = _order_terms(tokens)
    if not terms:
        return None
    items = _select_items(tokens)
    if items is not None and (len(items) != width or any(item.star for item in items)):
        items = None  # positions of the items are not the result's: resolve by names only
    keys: list[int] = []
    for term in terms:
        position = _resolve(term, items, names, width)
        if position is None:
            return None
        if position not in keys:
            keys.append(position)
    return tuple(keys)


def order_by_keys(gold_sql: str, columns: Sequence[str]) -> tuple[int, ...] | None:
    """The outer ``ORDER BY`` of ``gold_sql`` as sort keys: 0-based indexes of the result
    ``columns`` (the names the driver gives), each term resolved by position number
    (``ORDER BY 2``), output name or alias, or expression text (``COUNT(*)``, case and
    spacing aside); a qualified column (``t.salary``) by the select item that is that column.
    None when there is no outer ORDER BY, or some term names no result column (a column not
    selected, ``RANDOM()``): then no subset of keys would say the gold's order.

    >>> order_by_keys("SELECT name, salary FROM emp ORDER BY salary DESC", ["name", "salary"])
    (1,)
    >>> order_by_keys("SELECT e.name AS who, count(*) FROM emp e GROUP BY 1 ORDER BY COUNT( * ), who", ["who", "n"])
    (1, 0)
    >>> print(order_by_keys("SELECT name FROM emp ORDER BY salary", ["name"]))
    None
    """
    return _sort_keys(gold_sql, list(columns), len(columns))


# ---------------------------------------------------------------------------------------------
# Searching for a permutation of the predicted columns


def _projection(rows_by_column: Sequence[Sequence[object]], columns: Sequence[int]) -> Iterable[tuple[object, ...]]:
    return zip(*(rows_by_column[column] for column in columns))


def _permutation(
    gold: Sequence[tuple[object, ...]],
    predicted: Sequence[tuple[object, ...]],
    collect: Callable[[Iterable[Any]], Any],
) -> tuple[int, ...] | None:
    """A permutation ``p`` of the predicted columns (gold column ``i`` is predicted column
    ``p[i]``) under which ``collect`` (``list``, ``Counter`` or ``set``) of the gold rows
    equals that of the permuted predicted rows, the identity first; None if there is none.

    Columns are paired only with columns whose own values agree (as ``collect`` sees them),
    each partial permutation must agree on the columns chosen so far (both are necessary for
    the whole rows to agree), and of identical predicted columns one is tried per place
    (swapping them changes nothing): no permutation that works is pruned.
    """
    width = len(gold[0])
    target = collect(gold)
    if collect(predicted) == target:
        return tuple(range(width))
    gold_columns = list(zip(*gold))
    predicted_columns = list(zip(*predicted))

    def signature(column: Sequence[object]) -> object:
        gathered = collect(column)
        if isinstance(gathered, Counter):
            return frozenset(gathered.items())
        return tuple(gathered) if isinstance(gathered, list) else frozenset(gathered)

    by_signature: dict[object, list[int]] = {}
    for j, column in enumerate(predicted_columns):
        by_signature.setdefault(signature(column), []).append(j)
    options = [by_signature.get(signature(column), []) for column in gold_columns]
    if any(not option for option in options):
        return None
    if all(len(option) == 1 for option in options):
        # One permutation at most: only the whole rows need comparing.
        only = tuple(option[0] for option in options)
        agreeing = len(set(only)) == width and collect(_projection(predicted_columns, only)) == target
        return only if agreeing else None
    prefixes: dict[int, Any] = {}  # the gold's first columns, gathered when a search gets there
    chosen: list[int] = []
    used = [False] * width

    def agrees(depth: int) -> bool:
        if depth == 0:
            return True  # the column's signature says so
        if depth not in prefixes:
            prefixes[depth] = collect(_projection(gold_columns, range(depth + 1)))
        return collect(_projection(predicted_columns, chosen)) == prefixes[depth]

    # Identical predicted columns are interchangeable: a search tries one of them per place.
    same_as: dict[tuple[object, ...], int] = {}
    twin = [same_as.setdefault(column, j) for j, column in enumerate(predicted_columns)]

    def extend(depth: int) -> bool:
        if depth == width:
            return True
        tried = set()
        for j in options[depth]:
            if used[j] or twin[j] in tried:
                continue
            tried.add(twin[j])
            chosen.append(j)
            if agrees(depth):
                used[j] = True
                if extend(depth + 1):
                    return True
                used[j] = False
            chosen.pop()
        return False

    return tuple(chosen) if extend(0) else None


# ---------------------------------------------------------------------------------------------
# The semantics


class _Item:
    """One comparison: the results, the options, and the values computed once for all
    semantics."""

    def __init__(
        self,
        gold: QueryResult,
        predicted: QueryResult,
        gold_sql: str,
        rule: MatchRule | None,
        condition_cols: Sequence[int] | None,
        ignore_order: bool | None,
        order_by: Sequence[int] | None,
    ) -> None:
        self.gold = gold
        self.predicted = predicted
        self.gold_sql = gold_sql
        self.rule = rule or MatchRule()
        self.condition_cols = condition_cols
        self.ignore_order = bool(ignore_order)
        self.order_by = order_by

    @cached_property
    def gold_rows(self) -> list[tuple[object, ...]]:
        return driver_rows(self.gold)

    @cached_property
    def predicted_rows(self) -> list[tuple[object, ...]]:
        return driver_rows(self.predicted)

    @cached_property
    def gold_width(self) -> int:
        return _width(self.gold)

    @cached_property
    def predicted_width(self) -> int:
        return _width(self.predicted)


# The model's value types: a column of a relation holds one of them, and nils.
_VALUE_TYPES = frozenset({Boolean, Number, String, Date, DateTime, Time, Failure})


def _relation(
    rows: tuple[tuple[Value, ...], ...], *, ordered: bool = False, order_by: tuple[int, ...] | None = None
) -> Relation:
    """``Relation(rows, ordered=ordered, order_by=order_by)`` for the typed rows of a result,
    checked in a few C-level passes over each column instead of value by value (a million-row
    result has millions of values); rows these passes do not vouch for go to ``Relation()``,
    whose messages say what is wrong."""
    if rows and type(rows) is tuple and set(map(type, rows)) == {tuple}:
        widths = set(map(len, rows))
        arity = len(rows[0])
        if len(widths) == 1 and arity and all(_one_type(rows, column) for column in range(arity)):
            if order_by is not None:
                Relation(rows[:1], order_by=order_by)  # the sort keys checked against the arity, as Relation does
            return Relation.checked(rows, arity, ordered=ordered, order_by=order_by)
    return Relation(rows, ordered=ordered, order_by=order_by)


def _one_type(rows: tuple[tuple[Value, ...], ...], column: int) -> bool:
    """The column holds values of one of the model's types, and nils. (Read with itemgetter,
    not zip(*rows), which makes an iterator per row: a million objects for the collector.)"""
    kinds = set(map(type, map(itemgetter(column), rows)))
    kinds.discard(Nil)
    return len(kinds) <= 1 and kinds <= _VALUE_TYPES


class _RowsOnDemand(Sequence[tuple[Value, ...]]):
    """A result's typed rows, made when first read; their number known before."""

    def __init__(self, result: QueryResult) -> None:
        self._result = result

    def __len__(self) -> int:
        return self._result.row_count

    def __getitem__(self, index: Any) -> Any:
        return self._result.rows[index]

    def __iter__(self) -> Iterator[tuple[Value, ...]]:
        return iter(self._result.rows)


def _judged_plainly(item: _Item) -> Decision | None:
    """The answerkey decision against a gold result compared as a set, from both results'
    driver values (``QueryResult.driver_columns``): typed values are made only where keys do
    not decide, or for an incorrect verdict to explain itself (see ``judge_keyed``). None
    when the values cannot decide it this way: typed rows decide then."""
    gold, predicted = item.gold, item.predicted
    plain = gold.driver_columns, predicted.driver_columns
    if not plain[0] or not plain[1] or not gold.row_count or not predicted.row_count or len(plain[0]) > len(plain[1]):
        return None
    if item.order_by is not None or has_outer_order_by(item.gold_sql):
        return None
    rule = item.rule
    keyed_gold = _keyed_plainly(plain[0], gold.driver_facts, rule)
    keyed_predicted = _keyed_plainly(plain[1], predicted.driver_facts, rule)
    if keyed_gold is None or keyed_predicted is None:
        return None
    verdict = judge_keyed(
        _RowsOnDemand(gold),
        _RowsOnDemand(predicted),
        (keyed_gold, keyed_predicted),
        rule,
        lambda: (_relation(gold.rows), _relation(predicted.rows)),
    )
    return Decision("answerkey", verdict.correct, verdict.reason, verdict)


def _keyed_plainly(
    columns: Sequence[list[object]], facts: Sequence[ColumnFacts] | None, rule: MatchRule
) -> list[KeyedColumn] | None:
    """``rule.keyed_plain`` of each column (with what the reader found of it), or None if it
    refuses one."""
    keyed = []
    for index, values in enumerate(columns):
        if facts is None:
            column = rule.keyed_plain(values)
        else:
            column = rule.keyed_plain(values, facts[index].types, facts[index].bounds)
        if column is None:
            return None
        keyed.append(column)
    return keyed


def _answerkey(item: _Item) -> Decision:
    decided = _judged_plainly(item)
    if decided is not None:
        return decided
    gold = item.gold
    width = item.gold_width
    try:
        if item.order_by is not None:
            keys = tuple(item.order_by)
            canonical = _relation(gold.rows, order_by=keys) if keys else _relation(gold.rows)
        elif has_outer_order_by(item.gold_sql):
            names = gold.columns if len(gold.columns) == width else ("",) * width
            keys = _sort_keys(item.gold_sql, names, width) or ()
            canonical = _relation(gold.rows, order_by=keys) if keys else _relation(gold.rows, ordered=True)
        else:
            canonical = _relation(gold.rows)
    except (TypeError, ValueError) as problem:
        raise ValueError(f"the gold result cannot be compared: {problem}") from None
    try:
        system = _relation(item.predicted.rows)
    except (TypeError, ValueError) as problem:
        return Decision("answerkey", False, f"the predicted result cannot be compared: {problem}")
    rule = item.rule
    verdict = judge(canonical, system, epsilon=rule.exact_epsilon, strings=rule.strings)
    return Decision("answerkey", verdict.correct, verdict.reason, verdict)


def _sorted_row(row: tuple[object, ...]) -> tuple[object, ...]:
    # test-suite's first check sorts each row's values by their text and type name.
    return tuple(sorted(row, key=_text_and_type))


def _text_and_type(value: object) -> str:
    kind = type(value)
    name = _TYPE_TEXTS.get(kind)
    if name is None:
        name = _TYPE_TEXTS[kind] = str(kind)
    return str(value) + name


# str(type(value)) of each type met, made once ("<class 'int'>").
_TYPE_TEXTS: dict[type, str] = {}


def _rows_and_columns(gold_count: int, predicted_count: int, gold_width: int, predicted_width: int) -> str | None:
    if gold_count != predicted_count:
        return f"the gold has {plural(gold_count, 'row')}, the prediction {predicted_count:,}"
    if gold_width != predicted_width:
        return f"the gold has {plural(gold_width, 'column')}, the prediction {predicted_width:,}"
    return None


def _test_suite(item: _Item) -> Decision:
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
    # The official rule's test, word for word: the text, lowercased, contains "order by".
    ordered = "order by" in item.gold_sql.lower()
    collect: Callable[[Iterable[Any]], Any] = list if ordered else Counter
    gold_sorted = [_sorted_row(row) for row in gold]
    predicted_sorted = [_sorted_row(row) for row in predicted]
    quick = gold_sorted == predicted_sorted if ordered else set(gold_sorted) == set(predicted_sorted)
    if quick:
        permutation = _permutation(gold, predicted, collect)
        if permutation is not None:
            same = "same rows in the same order" if ordered else "same bag of rows"
            permuted = "" if permutation == tuple(range(len(permutation))) else " with columns permuted"
            return decision(True, same + permuted)
    elif _permutation(gold, predicted, collect) is not None:
        return decision(
            False,
            "the rows match, but test-suite's first check rejects them: it sorts each row's values by "
            "their text and type, and equal values written differently (1 and 1.0) sort apart",
        )
    if ordered and _permutation(gold, predicted, Counter) is not None:
        return decision(
            False,
            "same bag of rows in another order (the gold's text has 'order by')",
        )
    if ordered:
        return decision(False, "no permutation of the prediction's columns gives the gold's rows in order")
    return decision(False, "no permutation of the prediction's columns gives the gold's bag of rows")


def _bird(item: _Item) -> Decision:
    gold, predicted = item.gold_rows, item.predicted_rows
    gold_set, predicted_set = set(gold), set(predicted)
    if gold_set == predicted_set:
        if not gold:
            return Decision("bird", True, "both results are empty")
        if len(gold) != len(predicted):
            counts = f"the gold has {plural(len(gold), 'row')}, the prediction {len(predicted):,}"
            return Decision("bird", True, f"same set of rows; duplicates ignored ({counts})")
        return Decision("bird", True, "same set of rows")
    gold_width = len(gold[0]) if gold else item.gold_width
    predicted_width = len(predicted[0]) if predicted else item.predicted_width
    if gold and predicted and gold_width != predicted_width:
        return Decision(
            "bird",
            False,
            f"the gold has {plural(gold_width, 'column')}, the prediction {predicted_width:,}",
        )
    if gold and predicted and _permutation(gold, predicted, set) is not None:
        return Decision("bird", False, "the rows match only with columns permuted, which bird does not allow")
    lacking = len(gold_set - predicted_set)
    extra = len(predicted_set - gold_set)
    parts = []
    if lacking:
        parts.append(f"lacks {lacking:,} of the gold's rows")
    if extra:
        parts.append(f"has {plural(extra, 'row')} not in the gold")
    reason = "the sets of rows differ: the prediction " + " and ".join(parts)
    return Decision("bird", False, reason)


# Spider 2.0 reads results back from CSV with pandas' defaults: these texts are missing values.
_CSV_MISSING = frozenset(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A"}
    | {"NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
)
_CSV_INTEGER = re.compile(r" *[+-]?\d+ *")
_CSV_REAL = re.compile(r" *[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity) *", re.IGNORECASE)
_CSV_TRUE = frozenset({"True", "TRUE", "true"})
_CSV_FALSE = frozenset({"False", "FALSE", "false"})
# pandas reads integers into 64 bits (signed, or unsigned above the signed range).
_CSV_INTEGERS = range(-(2**63), 2**64)
_NAN = float("nan")


def _csv_written(values: Sequence[object]) -> list[str]:
    """A column as pandas writes it to CSV after ``read_sql_query``: NULL empty; a column of
    numbers with a real or a NULL as floats (``repr``); anything else as ``str``."""
    present = [value for value in values if value is not None]
    numeric = bool(present) and all(type(value) in (int, float) for value in present)
    as_real = numeric and (len(present) < len(values) or any(type(value) is float for value in present))
    if as_real:
        return ["" if value is None else repr(float(value)) for value in values]  # type: ignore[arg-type]
    return ["" if value is None else repr(value) if type(value) is float else str(value) for value in values]


def _csv_read(texts: Sequence[str]) -> tuple[str, list[object]]:
    """A column as pandas' ``read_csv`` reads it, with its kind (int, float, bool, object):
    missing texts NaN; all integers ints (floats if one is missing); all numbers floats;
    all ``True``/``False`` booleans; otherwise the texts."""
    missing = [text in _CSV_MISSING for text in texts]
    present = [text for text, gone in zip(texts, missing) if not gone]
    if not texts:
        return "object", []
    if not present:
        return "float", [_NAN] * len(texts)
    if all(_CSV_INTEGER.fullmatch(text) for text in present):
        integers = [None if gone else int(text) for text, gone in zip(texts, missing)]
        if any(missing):
            return "float", [_NAN if number is None else float(number) for number in integers]
        fits = all(number in _CSV_INTEGERS for number in integers)
        return "int" if fits else "object", list(integers)
    if all(_CSV_REAL.fullmatch(text) for text in present):
        return "float", [_NAN if gone else float(text) for text, gone in zip(texts, missing)]
    if all(text in _CSV_TRUE or text in _CSV_FALSE for text in present):
        truths: list[object] = [_NAN if gone else text in _CSV_TRUE for text, gone in zip(texts, missing)]
        return "object" if any(missing) else "bool", truths
    return "object", [_NAN if gone else text for text, gone in zip(texts, missing)]


def _csv_vectors(rows: Sequence[tuple[object, ...]], width: int, columns: Sequence[int]) -> list[list[object]]:
    """The ``columns`` of a result as Spider 2.0 compares them: each column after the CSV
    round trip, then the frame transposed into lists (pandas makes every value a float when
    the columns are all numbers and one holds floats)."""
    by_column = list(zip(*rows)) if rows else [()] * width
    read = [_csv_read(_csv_written(by_column[column])) for column in columns]
    kinds = {kind for kind, _ in read}
    if kinds and kinds <= {"int", "float"} and "float" in kinds:
        return [[float(value) for value in values] for _, values in read]  # type: ignore[arg-type]
    return [values for _, values in read]


def _spider2_key(value: object) -> tuple[bool, str, bool]:
    return value is None, str(value), isinstance(value, (int, float))


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _vectors_match(gold: list[object], predicted: list[object], ignore_order: bool) -> bool:
    """Spider 2.0's ``vectors_match``: (sorted by text when ignoring order) the same length,
    and pairwise both missing, numbers within ``SPIDER2_TOLERANCE``, or equal."""
    if ignore_order:
        gold, predicted = sorted(gold, key=_spider2_key), sorted(predicted, key=_spider2_key)
    if len(gold) != len(predicted):
        return False
    for a, b in zip(gold, predicted):
        if _missing(a) and _missing(b):
            continue
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            try:
                if not math.isclose(float(a), float(b), abs_tol=SPIDER2_TOLERANCE):
                    return False
            except OverflowError:  # an integer beyond floats: the official script fails, scoring 0
                return False
        elif a != b:
            return False
    return True


def _spider2(item: _Item) -> Decision:
    width = item.gold_width
    selected = list(item.condition_cols) if item.condition_cols else list(range(width))
    for column in selected:
        if type(column) is not int or not 0 <= column < width:
            raise ValueError(
                f"condition column {column!r} is not a column of the gold result, which has "
                f"{plural(width, 'column')} (condition columns count from 0)"
            )
    if not selected:
        return Decision("spider2", True, "the gold has no columns to match")
    if len(item.gold_rows) != len(item.predicted_rows):
        counts = f"the gold has {plural(len(item.gold_rows), 'row')}, the prediction {len(item.predicted_rows):,}"
        return Decision("spider2", False, counts)
    gold = _csv_vectors(item.gold_rows, width, selected)
    predicted = _csv_vectors(item.predicted_rows, item.predicted_width, range(item.predicted_width))
    how = "as sorted values" if item.ignore_order else "in row order"
    unmatched = [
        column
        for column, vector in zip(selected, gold)
        if not any(_vectors_match(vector, other, item.ignore_order) for other in predicted)
    ]
    names = item.gold.columns if len(item.gold.columns) == width else None

    def named(column: int) -> str:
        return f"{column + 1} ({names[column]})" if names is not None else str(column + 1)

    if unmatched:
        shown = ", ".join(named(column) for column in unmatched)
        columns = "column" if len(unmatched) == 1 else "columns"
        verb = "matches" if len(unmatched) == 1 else "match"
        return Decision("spider2", False, f"gold {columns} {shown} {verb} no predicted column")
    which = "each gold column" if not item.condition_cols else "each of gold columns " + ", ".join(map(named, selected))
    return Decision("spider2", True, f"{which} equals a predicted column, {how}, numbers within {SPIDER2_TOLERANCE}")


_DECIDERS: dict[str, Callable[[_Item], Decision]] = {
    "answerkey": _answerkey,
    "test-suite": _test_suite,
    "bird": _bird,
    "spider2": _spider2,
}


def _checked(semantics: str) -> str:
    if semantics not in _DECIDERS:
        raise ValueError(
            f"unknown semantics {semantics!r}{did_you_mean(semantics, SEMANTICS)}: known are {', '.join(SEMANTICS)}"
        )
    return semantics


def _failed(semantics: str, gold: QueryResult, predicted: QueryResult) -> Decision | None:
    if gold.error is not None:
        raise ValueError(f"the gold query failed: {_one_line(gold.error)}")
    if predicted.error is not None:
        return Decision(semantics, False, f"the predicted query failed: {_one_line(predicted.error)}")
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
) -> Decision:
    """Whether ``predicted`` is correct against ``gold`` (both results of one database) under
    ``semantics`` (one of ``SEMANTICS``).

    - ``answerkey``: ``answerkey.comparator.judge`` with ``rule``'s epsilon and string mode
      (default ``MatchRule()``). The gold is a set of tuples, unless its outer SELECT has
      ORDER BY: then it is ordered by ``order_by_keys`` (ties compared as sets), or, when a
      term names no result column, a plain sequence. ``order_by`` overrides this: 0-based
      sort keys, or ``()`` for a set.
    - ``test-suite``: test-suite-sql-eval's ``result_eq``, ordered when the gold's text
      contains ``order by`` (anywhere, in any case).
    - ``bird``: BIRD's ``set(predicted) == set(gold)``.
    - ``spider2``: Spider 2.0's ``compare_pandas_table`` with ``condition_cols`` (0-based gold
      columns; None or empty: all) and ``ignore_order`` (None: False, the official default).

    Raises ``ValueError`` for an unknown semantics, a gold query that failed, a gold result
    the comparator cannot hold (``answerkey``: a column mixing types) and condition columns
    outside the gold result (``spider2``).

    >>> from answerkey.model import Relation
    >>> gold = QueryResult(rows=Relation.from_rows([[1], [1]]).rows, columns=("n",))
    >>> predicted = QueryResult(rows=Relation.from_rows([[1]]).rows, columns=("n",))
    >>> print(decide("bird", gold, predicted, gold_sql="SELECT n FROM t"))
    bird: correct: same set of rows; duplicates ignored (the gold has 2 rows, the prediction 1)
    >>> print(decide("test-suite", gold, QueryResult(error="no such table: t"), gold_sql="SELECT n FROM t"))
    test-suite: incorrect: the predicted query failed: no such table: t
    """
    _checked(semantics)
    failed = _failed(semantics, gold, predicted)
    if failed is not None:
        return failed
    return _DECIDERS[semantics](_Item(gold, predicted, gold_sql, rule, condition_cols, ignore_order, order_by))


def decide_all(
    gold: QueryResult,
    predicted: QueryResult,
    *,
    gold_sql: str,
    rule: MatchRule | None = None,
    condition_cols: Sequence[int] | None = None,
    ignore_order: bool | None = None,
    order_by: Sequence[int] | None = None,
    semantics: Collection[str] = SEMANTICS,
) -> dict[str, Decision]:
    """``decide`` under each of ``semantics`` (all by default), in the order of ``SEMANTICS``;
    the values are converted once for all of them. Where the decisions disagree, the
    answerkey decision carries its verdict's explanation (``Decision.explanation``), which
    ``disagreement`` shows. Raises as ``decide`` does.

    >>> from answerkey.model import Relation
    >>> gold = QueryResult(rows=Relation.from_rows([[0.3]]).rows, columns=("x",))
    >>> predicted = QueryResult(rows=Relation.from_rows([[0.1 + 0.2]]).rows, columns=("x",))
    >>> {name: decision.correct for name, decision in decide_all(gold, predicted, gold_sql="SELECT x").items()}
    {'answerkey': True, 'test-suite': False, 'bird': False, 'spider2': True}
    """
    wanted = [name for name in SEMANTICS if name in semantics]
    for name in semantics:
        _checked(name)
    failed = {name: _failed(name, gold, predicted) for name in wanted}
    if any(decision is not None for decision in failed.values()):
        return {name: decision for name, decision in failed.items() if decision is not None}
    item = _Item(gold, predicted, gold_sql, rule, condition_cols, ignore_order, order_by)
    decisions = {name: _DECIDERS[name](item) for name in wanted}
    answerkey = decisions.get("answerkey")
    if answerkey is not None and answerkey.verdict is not None and _disagree(decisions):
        decisions["answerkey"] = replace(answerkey, explanation=answerkey.verdict.explain())
    return decisions


def _disagree(decisions: Mapping[str, Decision]) -> bool:
    return len({decision.correct for decision in decisions.values()}) > 1


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def disagreement(decisions: Mapping[str, Decision]) -> str | None:
    """None when every decision has the same verdict; otherwise which semantics decided
    what, one line each with its reason, and the explanation of answerkey's verdict (as
    ``answerkey judge --explain`` prints it: ``Decision.explanation``, or its verdict's) when
    there is one.

    >>> print(disagreement({"bird": Decision("bird", True, "same set of rows"),
    ...                     "test-suite": Decision("test-suite", False, "the gold has 2 rows, the prediction 1")}))
    correct under bird; incorrect under test-suite
      test-suite: incorrect: the gold has 2 rows, the prediction 1
      bird: correct: same set of rows
    """
    if not _disagree(decisions):
        return None
    order = [name for name in SEMANTICS if name in decisions] + [name for name in decisions if name not in SEMANTICS]
    right = [name for name in order if decisions[name].correct]
    wrong = [name for name in order if not decisions[name].correct]
    lines = [f"correct under {_listed(right)}; incorrect under {_listed(wrong)}"]
    lines.extend(f"  {decisions[name]}" for name in order)
    answerkey = decisions.get("answerkey")
    if answerkey is not None:
        explanation = answerkey.explanation
        if explanation is None and answerkey.verdict is not None:
            explanation = answerkey.verdict.explain()
        if explanation is not None:
            lines.append("answerkey's explanation:")
            lines.extend("  " + line for line in explanation.splitlines())
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The queries test-suite-sql-eval runs: its script rewrites both before running them

TEST_SUITE_YEAR = "2020"
"""What test-suite-sql-eval writes for ``YEAR(CURDATE())`` before it runs a query."""

# Its placeholder for a value the model did not predict, read as the number 1 (predictions only).
_PLACEHOLDER = (" value ", " 1 ")
# Comparison operators written with a space, closed up in both queries, in this order.
_SPACED_OPERATORS = (("> =", ">="), ("< =", "<="), ("! =", "!="))
_CURRENT_YEAR = re.compile(r"YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*", re.IGNORECASE)

# test-suite-sql-eval removes DISTINCT by reading the query with sqlparse, keeping its first
# statement, and dropping each token that is the word "distinct" in any case. So what counts
# is where sqlparse's tokens start and end. These are its rules, in its order of priority
# (the first that matches at a position makes the token), as far as they place token ends;
# its rules joining keywords ("GROUP BY", "LEFT OUTER JOIN") end where the words end anyway.
# Comments /* */ and $tag$ strings are found apart (_Delimited): a regular expression would
# take quadratic time on many unclosed ones. Letters are [A-ZÀ-Ü] in any case, as sqlparse's.
_SQLPARSE_RULES = (
    r"(?P<comment>(?:--|\# ).*?(?:\r\n|\r|\n|$))",  # to the end of the line
    r"(?P<newline>\r\n|\r|\n)",
    r"(?P<space>[^\S\r\n]+)",  # sqlparse takes one character at a time: the same ends
    r":=|::|\*",
    r"`(?:``|[^`])*`|´(?:´´|[^´])*´",  # quoted names
    r"\?|%(?:\(\w+\))?s|(?<!\w)[$:?]\w+|\\\w+",  # placeholders and commands
    r"(?P<keyword>(?:CASE|IN|VALUES|USING|FROM|AS)\b)",
    r"(?:@|\#\#|\#)[A-ZÀ-Ü]\w+",
    r"[A-ZÀ-Ü]\w*(?=\s*\.(?!\d))|(?<=\.)[A-ZÀ-Ü]\w*|[A-ZÀ-Ü]\w*(?=\()",  # a name by a dot or before (
    r"-?0x[\dA-F]+|-?\d+(?:\.\d+)?E-?\d+",
    r"(?![_A-ZÀ-Ü])-?(?:\d+\.\d*|\.\d+)(?![_A-ZÀ-Ü])|(?![_A-ZÀ-Ü])-?\d+(?![_A-ZÀ-Ü])",
    r"'(?:''|\\'|[^'])*'",
    r'"(?:""|\\"|[^"])*"|""|".*?[^\\]"',
    r"(?<![\w\])])\[[^\]\[]+\]",  # a [name] (after a word or a bracket: an index)
    # Keywords of more than one word that name a block or hide a word that does.
    r"(?P<compound>END(?:\s+IF|\s+LOOP|\s+WHILE|\s+FOR|\s+CASE)?\b|IF\s+(?:NOT\s+)?EXISTS\b|HANDLER\s+FOR\b|GO\s\d+\b)",
    r"(?P<create>CREATE(?:\s+OR\s+REPLACE)?\b)",
    r"(?P<word>\w[$#\w]*)",  # a keyword or a name
    r"(?P<punctuation>[;:()\[\],.])",
    r"->>?|\#>>?|@>|<@|\?\|?|\?&|-|\#-|[<>=~!]+|[+/@\#%^&|-]+",  # operators
    r"[\s\S]",  # anything else, one character
)
_SQLPARSE_TOKEN = re.compile("|".join(f"(?:{rule})" for rule in _SQLPARSE_RULES), re.IGNORECASE)
_DOLLAR_OPENING = re.compile(r'(?<![\w"$])\$(?:[_A-ZÀ-Ü]\w*)?\$', re.IGNORECASE)
_DOLLAR_TAGS = re.compile(r"(?=(\$(?:[_A-ZÀ-Ü]\w*)?\$))", re.IGNORECASE)  # overlapping ones too
# Keywords a transaction's BEGIN may be followed by (sqlparse reads TRAN and DISTRIBUTED as names).
_TRANSACTION_WORDS = frozenset({"TRANSACTION", "WORK", "DEFERRED", "IMMEDIATE", "EXCLUSIVE"})
# The one-word keywords that open or close a block, or end a statement (CASE and END have rules).
_BLOCK_KEYWORDS = frozenset({"BEGIN", "DECLARE", "FOR", "WHILE", "LOOP", "DO", "IF", "GO"}) | _TRANSACTION_WORDS
# The blocks each END ... closes (a bare END closes any).
_CLOSING = {
    "END IF": ("IF",),
    "END FOR": ("FOR",),
    "END WHILE": ("WHILE",),
    "END CASE": ("CASE",),
    "END LOOP": ("LOOP", "FOR", "WHILE"),
}


class _Delimited:
    """Where each ``/* */`` comment and ``$tag$`` string of a text ends, found as sqlparse
    finds them: from an opening ``/*`` (or ``$tag$`` not after a word character, ``"`` or
    ``$``) to the first closing ``*/`` (the same tag) that starts after it; unclosed, none."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.comment_ends = [match.start() for match in re.finditer(r"\*/", text)] if "/*" in text else []
        self.tags: dict[str, list[int]] = {}
        if "$" in text:
            for match in _DOLLAR_TAGS.finditer(text):
                self.tags.setdefault(match.group(1), []).append(match.start())

    def end(self, position: int) -> int | None:
        """Where the comment or string opening at ``position`` ends (None: none opens there)."""
        text = self.text
        if text.startswith("/*", position):
            return self._after(self.comment_ends, position + 2, 2)
        if text.startswith("$", position) and self.tags:
            tag = _DOLLAR_OPENING.match(text, position)
            if tag is not None:
                return self._after(self.tags[tag.group()], tag.end(), len(tag.group()))
        return None

    @staticmethod
    def _after(starts: list[int], position: int, width: int) -> int | None:
        index = bisect.bisect_left(starts, position)
        return starts[index] + width if index < len(starts) else None


def _sqlparse_tokens(text: str) -> Iterator[tuple[int, int, str | None]]:
    """Each token of ``text`` as sqlparse cuts it: its start, its end, and the kind of token
    that splitting statements depends on (None for the others): ``space``, ``newline``,
    ``comment`` (a ``--`` one), ``block`` (a ``/* */`` one), ``hint`` (``--+`` or ``/*+``),
    ``punctuation``, ``keyword`` (those that open or close a block, which need the token's
    text) and ``create``."""
    delimited = _Delimited(text)
    position = 0
    while position < len(text):
        end = delimited.end(position)
        if end is not None:
            kind = None if text[position] == "$" else "hint" if text.startswith("/*+", position) else "block"
        else:
            match = _SQLPARSE_TOKEN.match(text, position)
            assert match is not None  # the last rule matches any character
            end = match.end()
            kind = match.lastgroup
            if kind == "comment" and text.startswith(("--+", "# +"), position):
                kind = "hint"
            elif kind == "compound":
                kind = "keyword"
            elif kind == "word":
                kind = "keyword" if match.group().upper() in _BLOCK_KEYWORDS else None
        yield position, end, kind
        position = end


class _Statements:
    """sqlparse's statement splitter (its 0.5 and 0.6 versions), to find where the first
    statement ends: a ``;`` ends it outside parentheses and blocks, where a ``BEGIN`` opens a
    block (unless a transaction's: ``BEGIN;``, ``BEGIN TRANSACTION``), an ``END`` closes one
    and counts as a closing parenthesis even without one (the ``END`` of a CASE), and, within
    a BEGIN block, ``IF``, ``CASE``, ``LOOP`` and ``FOR``/``WHILE`` ... ``LOOP``/``DO``
    open blocks; a ``DECLARE`` after CREATE opens one too. A ``GO`` (in capitals) ends it
    as well."""

    def __init__(self) -> None:
        self.level = 0
        self.blocks: list[str] = []
        self.loop: str | None = None  # a FOR or WHILE until its LOOP or DO
        self.creating = False
        self.after_begin = False

    def ends(self, kind: str | None, value: str) -> bool:
        """Take the next token; whether the statement ends with it."""
        self.level += self._change(kind, value)
        if kind == "punctuation" and value == ";":
            self.after_begin = False
            return self.level <= 0 and "BEGIN" not in self.blocks
        if kind == "keyword" and value.split(maxsplit=1)[0] == "GO":
            return True
        if kind not in ("space", "newline", "comment", "block") and not (
            kind == "keyword" and value.upper() == "BEGIN"
        ):
            self.after_begin = False
        return False

    def _change(self, kind: str | None, value: str) -> int:
        """How the token changes the level."""
        if kind == "punctuation":
            if value == ";":
                self.loop = None
                if self.after_begin:
                    self.after_begin = False
                    if self.blocks and self.blocks[-1] == "BEGIN":
                        self.blocks.pop()
                        return -1
                return 0
            return {"(": 1, ")": -1}.get(value, 0)
        if kind == "create":
            self.creating = True
            return 0
        if kind != "keyword":
            return 0
        word = value.upper()
        if word == "DECLARE" and self.creating and not self.blocks:
            self.blocks.append("DECLARE")
            return 1
        if word == "BEGIN":
            self.after_begin = True
            if self.blocks and self.blocks[-1] == "DECLARE":
                self.blocks[-1] = "BEGIN"
                return 0
            self.blocks.append("BEGIN")
            return 1
        if self.after_begin and word in _TRANSACTION_WORDS:
            self.after_begin = False
            if self.blocks and self.blocks[-1] == "BEGIN":
                self.blocks.pop()
                return -1
            return 0
        if "BEGIN" in self.blocks:
            if word in ("FOR", "WHILE"):
                self.loop = word
                return 0
            if word in ("LOOP", "DO") and self.loop is not None:
                self.blocks.append(self.loop)
                self.loop = None
                return 1
            if word in ("LOOP", "IF", "CASE"):
                self.blocks.append(word)
                return 1
        if word == "END":
            if self.blocks:
                self.blocks.pop()
            return -1
        if word in _CLOSING and self.blocks and self.blocks[-1] in _CLOSING[word]:
            self.blocks.pop()
            return -1
        return 0


def _first_statement(text: str) -> list[tuple[int, int, str | None]] | None:
    """The tokens of the first statement of ``text`` as sqlparse splits statements: up to
    where ``_Statements`` ends it, with the spaces and ``--`` comments after that on its line
    (None when the text is only white space: test-suite-sql-eval then fails on an empty list)."""
    tokens: list[tuple[int, int, str | None]] = []
    statements = _Statements()
    ended = False
    for token in _sqlparse_tokens(text):
        start, end, kind = token
        if ended:
            if kind in ("space", "comment"):
                tokens.append(token)
                continue
            return tokens
        tokens.append(token)
        ended = statements.ends(kind, text[start:end])
    if all(kind in ("space", "newline") for _, _, kind in tokens):
        return None
    return tokens


def _statement_and_distinct(text: str) -> tuple[str, str]:
    """What test-suite-sql-eval's DISTINCT removal makes of ``text``, in two steps: its first
    statement, then that statement without its tokens that are the word ``distinct`` in any
    case (in ``COUNT(DISTINCT x)`` too; not in a string, a quoted name or a comment). A text
    that is only white space is left as it is."""
    if len(text) > MAX_QUERY_CHARS:
        return text, text  # no engine runs it: not worth reading
    if ";" not in text and "GO" not in text and "distinct" not in text.lower():
        return text, text  # one statement without the word: nothing to remove (most queries)
    tokens = _first_statement(text)
    if tokens is None:
        return text, text
    first = text[: tokens[-1][1]]
    return first, "".join(first[start:end] for start, end, _ in tokens if first[start:end].lower() != "distinct")


def test_suite_rewrites(
    sql: str, *, keep_distinct: bool = False, predicted: bool = False
) -> tuple[str, tuple[str, ...]]:
    """``test_suite_sql`` of ``sql``, and the names of the rewrites that changed it, in the
    order they are applied (none: the query runs as written).

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
    if not keep_distinct:
        first, without = _statement_and_distinct(text)
        text = step(text, first, "only the first statement kept")
        text = step(text, without, "DISTINCT removed")
    text = step(text, _CURRENT_YEAR.sub(TEST_SUITE_YEAR, text), f"YEAR(CURDATE()) replaced by {TEST_SUITE_YEAR}")
    return text, tuple(changes)


def test_suite_sql(sql: str, *, keep_distinct: bool = False, predicted: bool = False) -> str:
    """The query test-suite-sql-eval runs for ``sql`` by default (its ``evaluation.py``, then
    ``eval_exec_match`` and ``exec_on_db``), rewritten in this order:

    1. a prediction (``predicted``) has each ``" value "`` replaced by ``" 1 "`` (the
       placeholder of a value the model did not predict);
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
    >>> test_suite_sql("SELECT name FROM singer WHERE age = value ", predicted=True)
    'SELECT name FROM singer WHERE age = 1 '
    """
    return test_suite_rewrites(sql, keep_distinct=keep_distinct, predicted=predicted)[0]
