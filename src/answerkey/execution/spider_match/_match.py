"""Spider's exact-set-match of two parsed queries, and the hardness of a gold query.

Follows evaluation.py of test-suite-sql-eval at e97acc54 (line numbers below are that file's):
values are dropped before comparing (``DISABLE_VALUE``, lines 708-749) except inside nested
queries; DISTINCT is dropped from the top query's columns (``DISABLE_DISTINCT``, lines
770, 819); a column joined by a foreign key is replaced by the key's first column
(lines 752-903, from ``tables.json``); then ten components are scored (lines 392-431) and the
FROM tables compared (lines 386-390). The official quirks are kept: GROUP BY compares column
names without their table (line 156); a NOT or an AND/OR in HAVING counts as an aggregate in
the hardness (lines 332, 337); the LIMIT number is never compared.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from answerkey.execution.spider_match._parse import AGGREGATES, OPERATORS, SpiderSchema

#: The components of the official partial-matching tables, in the official order (line 455).
COMPONENTS = (
    "select",
    "select(no AGG)",
    "where",
    "where(no OP)",
    "group(no Having)",
    "group",
    "order",
    "and/or",
    "IUEN",
    "keywords",
)
#: Spider's hardness levels, easiest first.
HARDNESS_LEVELS = ("easy", "medium", "hard", "extra")

_EMPTY_QUERY: dict[str, Any] = {
    "select": (False, []),
    "from": {"table_units": [], "conds": []},
    "where": [],
    "groupBy": [],
    "having": [],
    "orderBy": [],
    "limit": None,
    "intersect": None,
    "except": None,
    "union": None,
}


def empty_query() -> dict[str, Any]:
    """The query an unparseable prediction is scored as (evaluation.py lines 588-606)."""
    return copy.deepcopy(_EMPTY_QUERY)


class ForeignKeyError(ValueError):
    """A tables.json entry whose foreign keys name a column it does not have."""


def foreign_key_map(
    columns: Sequence[tuple[int, str]], tables: Sequence[str], keys: Sequence[Sequence[int]]
) -> dict[str, str]:
    """Each column joined by a foreign key, mapped to the first column of its group (lines 866-903).

    ``columns`` and ``tables`` are a tables.json entry's ``column_names_original`` and
    ``table_names_original``, ``keys`` its ``foreign_keys``. As officially, a key joins the
    first group holding either of its columns, and two groups are never merged.

    >>> foreign_key_map([(-1, "*"), (0, "id"), (1, "Singer_id")], ["singer", "concert"], [[2, 1]])
    {'__singer.id__': '__singer.id__', '__concert.singer_id__': '__singer.id__'}
    """
    names = ["__all__" if table < 0 else f"__{tables[table].lower()}.{column.lower()}__" for table, column in columns]
    groups: list[set[int]] = []
    for key in keys:
        if len(key) != 2:
            raise ForeignKeyError(f"a foreign key is not a pair of column indexes: {key!r}")
        first, second = key
        group = next((group for group in groups if first in group or second in group), None)
        if group is None:
            group = set()
            groups.append(group)
        group.update((first, second))
    mapped: dict[str, str] = {}
    for group in groups:
        members = sorted(group)
        for member in members:
            if not 0 <= member < len(names) or not 0 <= members[0] < len(names):
                raise ForeignKeyError(f"a foreign key names column {member}, of {len(names)}")
            mapped[names[member]] = names[members[0]]
    return mapped


# --- values dropped (lines 708-749) ---------------------------------------------------


def _drop_values_condition(condition: list[Any]) -> list[Any]:
    dropped: list[Any] = []
    for position, unit in enumerate(condition):
        if position % 2:
            dropped.append(unit)
            continue
        negated, operator, left, first, second = unit
        first = _drop_values(first) if isinstance(first, dict) else None
        second = _drop_values(second) if isinstance(second, dict) else None
        dropped.append((negated, operator, left, first, second))
    return dropped


def _drop_values(query: dict[str, Any] | None) -> dict[str, Any] | None:
    # Nested queries in FROM keep their values (the official code does not reach them).
    if query is None:
        return None
    query["from"]["conds"] = _drop_values_condition(query["from"]["conds"])
    query["having"] = _drop_values_condition(query["having"])
    query["where"] = _drop_values_condition(query["where"])
    for operator in ("intersect", "except", "union"):
        query[operator] = _drop_values(query[operator])
    return query


# --- foreign keys and DISTINCT (lines 752-863) ----------------------------------------


@dataclass(frozen=True)
class _Columns:
    """The columns a query may rename through foreign keys: those of its FROM tables."""

    keys: Mapping[str, str]
    allowed: frozenset[str]

    def column_unit(self, unit: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
        if unit is None:
            return None
        aggregate, column, _distinct = unit
        if column in self.keys and column in self.allowed:
            column = self.keys[column]
        return aggregate, column, None

    def value_unit(self, unit: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
        if unit is None:
            return None
        arithmetic, first, second = unit
        return arithmetic, self.column_unit(first), self.column_unit(second)

    def condition(self, condition: list[Any]) -> list[Any]:
        # Only the left side: a column compared with is a value, and values are gone.
        return [
            unit if position % 2 else (unit[0], unit[1], self.value_unit(unit[2]), unit[3], unit[4])
            for position, unit in enumerate(condition)
        ]

    def query(self, query: dict[str, Any] | None) -> dict[str, Any] | None:
        if query is None:
            return None
        _distinct, units = query["select"]
        query["select"] = (None, [(aggregate, self.value_unit(unit)) for aggregate, unit in units])
        # A table unit is a name or a query, never a column unit: nothing changes (line 790).
        query["from"]["conds"] = self.condition(query["from"]["conds"])
        query["where"] = self.condition(query["where"])
        query["groupBy"] = [self.column_unit(unit) for unit in query["groupBy"]]
        if query["orderBy"]:
            direction, units = query["orderBy"]
            query["orderBy"] = (direction, [self.value_unit(unit) for unit in units])
        query["having"] = self.condition(query["having"])
        for operator in ("intersect", "except", "union"):
            query[operator] = self.query(query[operator])
        return query


def _columns_of(query: dict[str, Any], schema: SpiderSchema, keys: Mapping[str, str]) -> _Columns:
    prefixes = {name[:-2] for kind, name in query["from"]["table_units"] if kind == "table_unit"}
    allowed = frozenset(name for name in schema.ids.values() if "." in name and name[: name.index(".")] in prefixes)
    return _Columns(keys, allowed)


def prepare(query: dict[str, Any], schema: SpiderSchema, keys: Mapping[str, str]) -> dict[str, Any]:
    """``query`` as the official script compares it: values, DISTINCT and foreign keys rebuilt.

    The query is changed in place and returned (the official code does the same).
    """
    columns = _columns_of(query, schema, keys)
    rebuilt = columns.query(_drop_values(query))
    assert rebuilt is not None
    return rebuilt


# --- the ten components (lines 58-295) -------------------------------------------------


@dataclass(frozen=True)
class ComponentScore:
    """One component of one item: accuracy, recall and F1 (each 0 or 1) and the sizes compared."""

    acc: int
    rec: int
    f1: int
    label_total: int
    pred_total: int


def _score(count: int, predicted: int, gold: int) -> tuple[int, int, int]:
    # All or nothing (line 102): equal sizes and every predicted unit found.
    if predicted == gold and count == predicted:
        return 1, 1, 1
    return 0, 0, 0


def _count_found(predicted: list[Any], gold: list[Any]) -> int:
    remaining = list(gold)
    found = 0
    for unit in predicted:
        if unit in remaining:
            found += 1
            remaining.remove(unit)
    return found


def _select(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int, int, int]:
    predicted, wanted = pred["select"][1], gold["select"][1]
    return (
        len(wanted),
        len(predicted),
        _count_found(predicted, wanted),
        _count_found([unit[1] for unit in predicted], [unit[1] for unit in wanted]),
    )


def _where(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int, int, int]:
    predicted, wanted = pred["where"][::2], gold["where"][::2]
    return (
        len(wanted),
        len(predicted),
        _count_found(predicted, wanted),
        _count_found([unit[2] for unit in predicted], [unit[2] for unit in wanted]),
    )


def _column_name(column: str) -> str:
    return column.split(".")[1] if "." in column else column


def _group(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int, int]:
    predicted = [_column_name(unit[1]) for unit in pred["groupBy"]]
    wanted = [_column_name(unit[1]) for unit in gold["groupBy"]]
    return len(wanted), len(predicted), _count_found(predicted, wanted)


def _having(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int, int]:
    predicted = 1 if pred["groupBy"] else 0
    wanted = 1 if gold["groupBy"] else 0
    same = (
        predicted == wanted == 1
        and [unit[1] for unit in pred["groupBy"]] == [unit[1] for unit in gold["groupBy"]]
        and pred["having"] == gold["having"]
    )
    return wanted, predicted, int(same)


def _order(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int, int]:
    predicted = 1 if pred["orderBy"] else 0
    wanted = 1 if gold["orderBy"] else 0
    same = wanted == 1 and pred["orderBy"] == gold["orderBy"] and (pred["limit"] is None) == (gold["limit"] is None)
    return wanted, predicted, int(same)


def _and_or(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int, int]:
    predicted, wanted = set(pred["where"][1::2]), set(gold["where"][1::2])
    if predicted == wanted:
        return 1, 1, 1
    # The official code returns the two sizes in this order (line 202); the scores are 0 anyway.
    return len(predicted), len(wanted), 0


def _nested(pred: dict[str, Any] | None, gold: dict[str, Any] | None) -> tuple[int, int, int]:
    found = int(exact(pred, gold)) if pred is not None and gold is not None else 0
    return int(gold is not None), int(pred is not None), found


def _set_operations(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int, int]:
    totals = [_nested(pred[operator], gold[operator]) for operator in ("intersect", "except", "union")]
    return sum(t[0] for t in totals), sum(t[1] for t in totals), sum(t[2] for t in totals)


def _conditions(query: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The condition units and the connectives of FROM, WHERE and HAVING."""
    parts = (query["from"]["conds"], query["where"], query["having"])
    return [unit for part in parts for unit in part[::2]], [word for part in parts for word in part[1::2]]


def _keywords_of(query: dict[str, Any]) -> set[str]:
    words = {
        word
        for word, present in (
            ("where", query["where"]),
            ("group", query["groupBy"]),
            ("having", query["having"]),
            ("order", query["orderBy"]),
            ("limit", query["limit"] is not None),
            ("except", query["except"] is not None),
            ("union", query["union"] is not None),
            ("intersect", query["intersect"] is not None),
        )
        if present
    }
    if query["orderBy"]:
        words.add(query["orderBy"][0])
    units, connectives = _conditions(query)
    if "or" in connectives:
        words.add("or")
    if any(unit[0] for unit in units):
        words.add("not")
    for operator in ("in", "like"):
        if any(unit[1] == OPERATORS.index(operator) for unit in units):
            words.add(operator)
    return words


def _keywords(pred: dict[str, Any], gold: dict[str, Any]) -> tuple[int, int, int]:
    predicted, wanted = _keywords_of(pred), _keywords_of(gold)
    return len(wanted), len(predicted), len(predicted & wanted)


def components(pred: dict[str, Any], gold: dict[str, Any]) -> dict[str, ComponentScore]:
    """The ten component scores of a prepared prediction against a prepared gold (lines 392-431)."""
    scores: dict[str, ComponentScore] = {}

    def put(name: str, wanted: int, predicted: int, found: int) -> None:
        scores[name] = ComponentScore(*_score(found, predicted, wanted), label_total=wanted, pred_total=predicted)

    wanted, predicted, found, found_without = _select(pred, gold)
    put("select", wanted, predicted, found)
    put("select(no AGG)", wanted, predicted, found_without)
    wanted, predicted, found, found_without = _where(pred, gold)
    put("where", wanted, predicted, found)
    put("where(no OP)", wanted, predicted, found_without)
    put("group(no Having)", *_group(pred, gold))
    put("group", *_having(pred, gold))
    put("order", *_order(pred, gold))
    put("and/or", *_and_or(pred, gold))
    put("IUEN", *_set_operations(pred, gold))
    put("keywords", *_keywords(pred, gold))
    return scores


class OfficialStop(ValueError):
    """A query on which the official script stops with a Python error; the message says why."""


def _same_tables(pred: dict[str, Any], gold: dict[str, Any]) -> bool:
    try:
        return sorted(gold["from"]["table_units"]) == sorted(pred["from"]["table_units"])
    except TypeError:
        # Sorting two different queries in FROM fails (line 387).
        raise OfficialStop("two different queries in FROM cannot be ordered") from None


def exact(pred: dict[str, Any], gold: dict[str, Any]) -> bool:
    """Whether a prepared prediction exactly set-matches a prepared gold (lines 378-390)."""
    return _exact(pred, gold, components(pred, gold))


def _exact(pred: dict[str, Any], gold: dict[str, Any], scores: Mapping[str, ComponentScore]) -> bool:
    if any(score.f1 != 1 for score in scores.values()):
        return False
    if gold["from"]["table_units"]:
        return _same_tables(pred, gold)
    return True


@dataclass(frozen=True)
class MatchResult:
    """One item's exact-set-match: the verdict and the ten component scores."""

    exact: bool
    components: Mapping[str, ComponentScore]


def match(pred: dict[str, Any], gold: dict[str, Any], schema: SpiderSchema, keys: Mapping[str, str]) -> MatchResult:
    """Exact-set-match of parsed queries (both changed in place, as officially; pass copies to keep them).

    >>> schema = SpiderSchema({"singer": ["singer_id", "name", "age"]})
    >>> from answerkey.execution.spider_match._parse import parse_query
    >>> gold = parse_query(schema, "SELECT name FROM singer WHERE age > 20")
    >>> pred = parse_query(schema, "SELECT DISTINCT name FROM singer WHERE age > 30")
    >>> match(pred, gold, schema, {}).exact
    True
    """
    gold = prepare(gold, schema, keys)
    pred = prepare(pred, schema, keys)
    try:
        scores = components(pred, gold)
    except TypeError:
        # A condition with a nested query where an AND/OR belongs cannot be put in a set (line 197).
        raise OfficialStop("a condition stands where AND or OR belongs") from None
    return MatchResult(_exact(pred, gold, scores), scores)


def check_conditions(query: dict[str, Any]) -> None:
    """Raise ``OfficialStop`` where the official code would unpack an AND/OR as a condition.

    Two conditions written without AND/OR between them parse, but leave a connective where a
    condition belongs; the official script then fails unpacking it (lines 713, 799) or
    indexing it (line 208). It reaches the conditions of the query, of queries nested in
    conditions and of INTERSECT/UNION/EXCEPT, not those of queries in FROM.
    """
    for condition in (query["from"]["conds"], query["where"], query["having"]):
        for unit in condition[::2]:
            if isinstance(unit, str):
                raise OfficialStop("two conditions without AND or OR between them")
            for value in unit[3:]:
                if isinstance(value, dict):
                    check_conditions(value)
    for operator in ("intersect", "except", "union"):
        if query[operator] is not None:
            check_conditions(query[operator])


# --- hardness (lines 52-376) ------------------------------------------------------------


def _aggregates(units: list[Any]) -> int:
    # Officially any unit whose first field is not 0: for a condition unit that is its NOT,
    # and for the words "and"/"or" of a HAVING their first letter (lines 80, 298).
    return sum(1 for unit in units if unit[0] != AGGREGATES.index("none"))


def _nested_queries(query: dict[str, Any]) -> int:
    units, _ = _conditions(query)
    nested = sum(isinstance(unit[3], dict) + isinstance(unit[4], dict) for unit in units)
    return nested + sum(query[operator] is not None for operator in ("intersect", "except", "union"))


def _component1(query: dict[str, Any]) -> int:
    count = sum(bool(query[part]) for part in ("where", "groupBy", "orderBy")) + (query["limit"] is not None)
    count += max(len(query["from"]["table_units"]) - 1, 0)
    units, connectives = _conditions(query)
    count += connectives.count("or")
    count += sum(1 for unit in units if unit[1] == OPERATORS.index("like"))
    return count


def _others(query: dict[str, Any]) -> int:
    aggregates = _aggregates(query["select"][1]) + _aggregates(query["where"][::2]) + _aggregates(query["groupBy"])
    if query["orderBy"]:
        units = query["orderBy"][1]
        aggregates += _aggregates([unit[1] for unit in units if unit[1]] + [unit[2] for unit in units if unit[2]])
    aggregates += _aggregates(query["having"])
    return sum(
        (
            aggregates > 1,
            len(query["select"][1]) > 1,
            len(query["where"]) > 1,
            len(query["groupBy"]) > 1,
        )
    )


def hardness(query: dict[str, Any]) -> str:
    """Spider's hardness of a parsed gold query: easy, medium, hard or extra (lines 361-376).

    >>> from answerkey.execution.spider_match._parse import parse_query
    >>> schema = SpiderSchema({"singer": ["singer_id", "name", "age"]})
    >>> hardness(parse_query(schema, "SELECT name FROM singer WHERE age > 20"))
    'easy'
    >>> hardness(parse_query(schema, "SELECT name, age FROM singer WHERE age > 20 ORDER BY age LIMIT 1"))
    'hard'
    """
    first, second, others = _component1(query), _nested_queries(query), _others(query)
    if first <= 1 and others == 0 and second == 0:
        return "easy"
    if (others <= 2 and first <= 1 and second == 0) or (first <= 2 and others < 2 and second == 0):
        return "medium"
    if (
        (others > 2 and first <= 2 and second == 0)
        or (2 < first <= 3 and others <= 2 and second == 0)
        or (first <= 1 and others == 0 and second <= 1)
    ):
        return "hard"
    return "extra"
