"""Spider's parse of a query into its clause structure (process_sql.py at test-suite-sql-eval e97acc54).

The structure is the official one, built from plain Python values so that equality,
ordering and the official quirks follow from the same operations:

- a column unit is ``(aggregate, column_id, distinct)``; a value unit
  ``(arithmetic, column_unit, column_unit_or_None)``; a condition unit
  ``(not, operator, value_unit, value1, value2)``; a condition alternates units and the
  words ``"and"``/``"or"``;
- a query is a dict with the keys ``select`` ``(distinct, [(aggregate, value_unit), ...])``,
  ``from`` ``{"table_units": [...], "conds": condition}``, ``where``, ``groupBy``,
  ``having``, ``orderBy`` (``[]`` or ``(direction, [value_unit, ...])``), ``limit`` (``None``
  or 1: the official parser never reads the number, line 490) and ``intersect``,
  ``except``, ``union`` (``None`` or a query).

Column ids are the official ``__table.column__`` names (``__all__`` for ``*``), table ids
``__table__``. The parser accepts exactly what the official one accepts: a token it does not
expect raises ``SpiderParseError`` where the official code fails an assertion or a lookup.
Bounded for untrusted text: at most ``MAX_TOKENS`` tokens and ``MAX_DEPTH`` nested queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from answerkey.execution.spider_match._tokens import TokenizeError, tokenize

CLAUSE_WORDS = ("select", "from", "where", "group", "order", "limit", "intersect", "union", "except")
JOIN_WORDS = ("join", "on", "as")
#: Condition operators; a condition unit holds the index of its operator in this tuple.
OPERATORS = ("not", "between", "=", ">", "<", ">=", "<=", "!=", "in", "like", "is", "exists")
ARITHMETIC = ("none", "-", "+", "*", "/")
#: Aggregates; a column unit holds the index of its aggregate in this tuple.
AGGREGATES = ("none", "max", "min", "count", "sum", "avg")
CONNECTIVES = ("and", "or")
SET_OPERATORS = ("intersect", "union", "except")
DIRECTIONS = ("desc", "asc")
_END_OF_CLAUSE = (")", ";")

#: At most this many tokens in a query.
MAX_TOKENS = 10_000
#: At most this many queries nested in one another.
MAX_DEPTH = 40


class SpiderParseError(ValueError):
    """The official parser cannot read this query; the message says where."""


@dataclass(frozen=True)
class SpiderSchema:
    """A database's tables and columns as the official parser sees them (lower-cased, in order).

    >>> schema = SpiderSchema({"singer": ["singer_id", "name"]})
    >>> schema.ids["singer.name"], schema.ids["singer"], schema.ids["*"]
    ('__singer.name__', '__singer__', '__all__')
    """

    tables: Mapping[str, Sequence[str]]
    ids: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ids = {"*": "__all__"}
        for table, columns in self.tables.items():
            for column in columns:
                ids[f"{table}.{column}"] = f"__{table}.{column}__"
        for table in self.tables:
            ids[table] = f"__{table}__"
        object.__setattr__(self, "ids", ids)


def _fail(message: str) -> SpiderParseError:
    return SpiderParseError(message)


class _Parser:
    """One query's tokens, the aliases found in them, and the schema (process_sql.py lines 150-566)."""

    def __init__(self, schema: SpiderSchema, tokens: list[str]) -> None:
        self.schema = schema
        self.tokens = tokens
        self.aliases = self._aliases()

    def at(self, index: int, tokens: list[str] | None = None) -> str:
        """The token at ``index``; Python's negative indices count from the end, as officially."""
        tokens = self.tokens if tokens is None else tokens
        if index >= len(tokens) or index < -len(tokens):
            raise _fail("the query ends too early")
        return tokens[index]

    def _aliases(self) -> dict[str, str]:
        # Every "X as Y" makes Y an alias of X, tables and columns alike (lines 150-164).
        aliases: dict[str, str] = {}
        for index, token in enumerate(self.tokens):
            if token == "as":
                aliases[self.at(index + 1)] = self.at(index - 1)
        for table in self.schema.tables:
            if table in aliases:
                raise _fail(f"the alias {table} is also a table's name")
            aliases[table] = table
        return aliases

    def table_of(self, alias: str) -> str:
        if alias not in self.aliases:
            raise _fail(f"no table or alias {alias}")
        return self.aliases[alias]

    def column_id(self, key: str) -> str:
        if key not in self.schema.ids:
            raise _fail(f"no column {key}")
        return self.schema.ids[key]

    def column(self, tokens: list[str], index: int, default_tables: list[str] | None) -> tuple[int, str]:
        token = self.at(index, tokens)
        if token == "*":
            return index + 1, self.schema.ids["*"]
        if "." in token:
            parts = token.split(".")
            if len(parts) != 2:
                raise _fail(f"cannot read the column {token}")
            return index + 1, self.column_id(f"{self.table_of(parts[0])}.{parts[1]}")
        if not default_tables:
            raise _fail(f"the column {token} has no table")
        for alias in default_tables:
            table = self.table_of(alias)
            if table not in self.schema.tables:
                raise _fail(f"no table {table}")
            if token in self.schema.tables[table]:
                return index + 1, self.column_id(f"{table}.{token}")
        raise _fail(f"no column {token} in the tables of the query")

    def column_unit(
        self, tokens: list[str], index: int, default_tables: list[str] | None
    ) -> tuple[int, tuple[Any, ...]]:
        in_brackets = self.at(index, tokens) == "("
        if in_brackets:
            index += 1
        if self.at(index, tokens) in AGGREGATES:
            aggregate = AGGREGATES.index(tokens[index])
            index += 1
            if index >= len(tokens) or tokens[index] != "(":
                raise _fail(f"'(' expected after {tokens[index - 1]}")
            index += 1
            distinct = self.at(index, tokens) == "distinct"
            if distinct:
                index += 1
            index, column = self.column(tokens, index, default_tables)
            if index >= len(tokens) or tokens[index] != ")":
                raise _fail("')' expected after an aggregate's column")
            # As officially (line 214), the bracket opened before an aggregate is not closed here.
            return index + 1, (aggregate, column, distinct)
        distinct = self.at(index, tokens) == "distinct"
        if distinct:
            index += 1
        index, column = self.column(tokens, index, default_tables)
        if in_brackets:
            index = self.closing(index, tokens)
        return index, (AGGREGATES.index("none"), column, distinct)

    def closing(self, index: int, tokens: list[str] | None = None) -> int:
        if self.at(index, tokens) != ")":
            raise _fail(f"')' expected, found {self.at(index, tokens)}")
        return index + 1

    def value_unit(self, index: int, default_tables: list[str] | None) -> tuple[int, tuple[Any, ...]]:
        tokens = self.tokens
        in_brackets = self.at(index) == "("
        if in_brackets:
            index += 1
        index, first = self.column_unit(tokens, index, default_tables)
        second = None
        arithmetic = ARITHMETIC.index("none")
        if index < len(tokens) and tokens[index] in ARITHMETIC:
            arithmetic = ARITHMETIC.index(tokens[index])
            index, second = self.column_unit(tokens, index + 1, default_tables)
        if in_brackets:
            index = self.closing(index)
        return index, (arithmetic, first, second)

    def value(self, index: int, default_tables: list[str] | None, depth: int) -> tuple[int, Any]:
        tokens = self.tokens
        start = index
        in_brackets = self.at(index) == "("
        if in_brackets:
            index += 1
        token = self.at(index)
        value: Any
        if token == "select":
            index, value = self.query(index, depth + 1)
        elif '"' in token:
            value, index = token, index + 1
        else:
            try:
                value, index = float(token), index + 1
            except ValueError:
                # A column as a value: read from the value's first token (the bracket
                # included, as officially, line 294) up to the end of the value.
                end = index
                while end < len(tokens) and not (
                    tokens[end] in (",", ")", "and") or tokens[end] in CLAUSE_WORDS or tokens[end] in JOIN_WORDS
                ):
                    end += 1
                _, value = self.column_unit(tokens[start:end], 0, default_tables)
                index = end
        if in_brackets:
            index = self.closing(index)
        return index, value

    def condition(self, index: int, default_tables: list[str] | None, depth: int) -> tuple[int, list[Any]]:
        tokens = self.tokens
        units: list[Any] = []
        while index < len(tokens):
            index, left = self.value_unit(index, default_tables)
            negated = self.at(index) == "not"
            if negated:
                index += 1
            if index >= len(tokens) or tokens[index] not in OPERATORS:
                raise _fail(f"an operator expected, found {self.at(index) if index < len(tokens) else 'the end'}")
            operator = OPERATORS.index(tokens[index])
            index, first = self.value(index + 1, default_tables, depth)
            second = None
            if operator == OPERATORS.index("between"):
                if self.at(index) != "and":
                    raise _fail("'and' expected in between")
                index, second = self.value(index + 1, default_tables, depth)
            units.append((negated, operator, left, first, second))
            if index < len(tokens) and (
                tokens[index] in CLAUSE_WORDS or tokens[index] in _END_OF_CLAUSE or tokens[index] in JOIN_WORDS
            ):
                break
            if index < len(tokens) and tokens[index] in CONNECTIVES:
                units.append(tokens[index])
                index += 1
        return index, units

    def select(self, index: int, default_tables: list[str]) -> tuple[bool, list[Any]]:
        tokens = self.tokens
        if self.at(index) != "select":
            raise _fail("'select' expected")
        index += 1
        distinct = index < len(tokens) and tokens[index] == "distinct"
        if distinct:
            index += 1
        units: list[Any] = []
        while index < len(tokens) and tokens[index] not in CLAUSE_WORDS:
            aggregate = AGGREGATES.index("none")
            if tokens[index] in AGGREGATES:
                aggregate = AGGREGATES.index(tokens[index])
                index += 1
            index, unit = self.value_unit(index, default_tables)
            units.append((aggregate, unit))
            if index < len(tokens) and tokens[index] == ",":
                index += 1
        return distinct, units

    def from_clause(self, start: int, depth: int) -> tuple[int, list[Any], list[Any], list[str]]:
        tokens = self.tokens
        if "from" not in tokens[start:]:
            raise _fail("'from' expected")
        index = tokens.index("from", start) + 1
        default_tables: list[str] = []
        table_units: list[Any] = []
        conditions: list[Any] = []
        while index < len(tokens):
            in_brackets = tokens[index] == "("
            if in_brackets:
                index += 1
            if self.at(index) == "select":
                index, nested = self.query(index, depth + 1)
                table_units.append(("sql", nested))
            else:
                if tokens[index] == "join":
                    index += 1
                alias = self.at(index)
                table = self.table_of(alias)
                index += 3 if index + 1 < len(tokens) and tokens[index + 1] == "as" else 1
                table_units.append(("table_unit", self.column_id(table)))
                default_tables.append(table)
            if index < len(tokens) and tokens[index] == "on":
                index, more = self.condition(index + 1, default_tables, depth)
                if conditions:
                    conditions.append("and")
                conditions.extend(more)
            if in_brackets:
                index = self.closing(index)
            if index < len(tokens) and (tokens[index] in CLAUSE_WORDS or tokens[index] in _END_OF_CLAUSE):
                break
        return index, table_units, conditions, default_tables

    def clause_condition(self, index: int, word: str, default_tables: list[str], depth: int) -> tuple[int, list[Any]]:
        if index >= len(self.tokens) or self.tokens[index] != word:
            return index, []
        return self.condition(index + 1, default_tables, depth)

    def group_by(self, index: int, default_tables: list[str]) -> tuple[int, list[Any]]:
        tokens = self.tokens
        if index >= len(tokens) or tokens[index] != "group":
            return index, []
        if self.at(index + 1) != "by":
            raise _fail("'by' expected after group")
        index += 2
        units: list[Any] = []
        while index < len(tokens) and not (tokens[index] in CLAUSE_WORDS or tokens[index] in _END_OF_CLAUSE):
            index, unit = self.column_unit(tokens, index, default_tables)
            units.append(unit)
            if index < len(tokens) and tokens[index] == ",":
                index += 1
            else:
                break
        return index, units

    def order_by(self, index: int, default_tables: list[str]) -> tuple[int, Any]:
        tokens = self.tokens
        if index >= len(tokens) or tokens[index] != "order":
            return index, []
        if self.at(index + 1) != "by":
            raise _fail("'by' expected after order")
        index += 2
        direction = "asc"
        units: list[Any] = []
        while index < len(tokens) and not (tokens[index] in CLAUSE_WORDS or tokens[index] in _END_OF_CLAUSE):
            index, unit = self.value_unit(index, default_tables)
            units.append(unit)
            # One direction for the clause: the last one written (line 461).
            if index < len(tokens) and tokens[index] in DIRECTIONS:
                direction = tokens[index]
                index += 1
            if index < len(tokens) and tokens[index] == ",":
                index += 1
            else:
                break
        return index, (direction, units)

    def limit(self, index: int) -> tuple[int, int | None]:
        if index < len(self.tokens) and self.tokens[index] == "limit":
            self.at(index + 1)  # officially read (and never used): the number must be there
            return index + 2, 1
        return index, None

    def skip_semicolons(self, index: int) -> int:
        while index < len(self.tokens) and self.tokens[index] == ";":
            index += 1
        return index

    def query(self, index: int, depth: int = 0) -> tuple[int, dict[str, Any]]:
        if depth > MAX_DEPTH:
            raise _fail(f"more than {MAX_DEPTH} nested queries")
        tokens = self.tokens
        start = index
        in_brackets = self.at(index) == "("
        if in_brackets:
            index += 1
        # FROM first, for the tables that columns without a table belong to (line 509).
        from_end, table_units, joins, default_tables = self.from_clause(start, depth)
        query: dict[str, Any] = {"from": {"table_units": table_units, "conds": joins}}
        query["select"] = self.select(index, default_tables)
        index, query["where"] = self.clause_condition(from_end, "where", default_tables, depth)
        index, query["groupBy"] = self.group_by(index, default_tables)
        index, query["having"] = self.clause_condition(index, "having", default_tables, depth)
        index, query["orderBy"] = self.order_by(index, default_tables)
        index, query["limit"] = self.limit(index)
        index = self.skip_semicolons(index)
        if in_brackets:
            index = self.closing(index)
        index = self.skip_semicolons(index)
        for operator in SET_OPERATORS:
            query[operator] = None
        if index < len(tokens) and tokens[index] in SET_OPERATORS:
            operator = tokens[index]
            index, query[operator] = self.query(index + 1, depth + 1)
        return index, query


def parse_query(schema: SpiderSchema, query: str) -> dict[str, Any]:
    """The official structure of ``query`` on ``schema`` (process_sql.py ``get_sql``).

    Raises ``SpiderParseError`` where the official parser fails.

    >>> schema = SpiderSchema({"singer": ["singer_id", "name", "age"]})
    >>> parsed = parse_query(schema, "SELECT name FROM singer WHERE age > 20")
    >>> parsed["select"]
    (False, [(0, (0, (0, '__singer.name__', False), None))])
    >>> parsed["where"]
    [(False, 3, (0, (0, '__singer.age__', False), None), 20.0, None)]
    """
    try:
        tokens = tokenize(query)
    except TokenizeError as error:
        raise SpiderParseError(str(error)) from None
    if len(tokens) > MAX_TOKENS:
        raise SpiderParseError(f"more than {MAX_TOKENS} tokens")
    if not tokens:
        raise SpiderParseError("an empty query")
    parser = _Parser(schema, tokens)
    return parser.query(0)[1]
