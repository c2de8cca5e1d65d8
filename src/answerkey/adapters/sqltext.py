"""SQL text read by sqlglot: a query's statements, its outer ORDER BY, and that ORDER BY's
terms resolved to result columns (sort keys, ``outer_order``).

It sits with the adapters so that the process that runs a query may read it too: a SQLite
helper process asked for a gold's outer order (``answerkey.adapters.sql.run_file_each``)
reads it once the query has run and sends it with the result (``QueryResult.outer_order``,
an ``OuterOrder``), so that the process judging never imports sqlglot for it.

sqlglot (a maintained SQL parser) reads the text in the engine's dialect (``sqlite``,
``duckdb``, ``postgresql``; another engine's name: sqlglot's generic dialect). It is
imported when a text first needs it, never on a run whose gold queries have no ``ORDER BY``
(importing it costs about 0.1 s), and each distinct text is read once per process
(``_tokens``, ``_statement``: a cache by text and dialect). Sort keys need only the outer
select list and ORDER BY, so sqlglot parses those alone (``_outline``: a third of the work on
a Spider query), and the whole query when it is not led by that SELECT or the outline does
not parse.

The text is untrusted, so sqlglot's work is bounded and its failures never escape: a text
longer than ``MAX_PARSED_CHARS`` characters, or nested deeper than ``MAX_PARSED_DEPTH``
parentheses, is not parsed, and a text sqlglot cannot tokenize or parse gets the
conservative answer, the one that may mark a correct prediction incorrect but never the
reverse: ``has_outer_order_by`` says True when the words ``order by`` appear in a text that
cannot be tokenized (or at the outer level of one that cannot be parsed), and ``sort_keys``
says None (so the gold is a strict sequence).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from sqlglot import exp

# What sqlglot is given at most: longer SQL text (and text nested deeper) is not parsed. Gold
# queries of the benchmarks are under 5,000 characters; a pathological text of 20,000 takes
# sqlglot about a second. Its parser recurses some 20 frames per parenthesis (Python's
# limit of 1,000 frames is reached near 48; a RecursionError is caught all the same).
MAX_PARSED_CHARS = 20_000
MAX_PARSED_DEPTH = 32
# The engines' names and sqlglot's names of their dialects.
DIALECTS = {"sqlite": "sqlite", "duckdb": "duckdb", "postgresql": "postgres"}
# The clauses that end a select list at its own level (sqlglot's token types).
_LIST_END = frozenset(
    {"FROM", "WHERE", "GROUP_BY", "HAVING", "WINDOW", "QUALIFY", "ORDER_BY", "LIMIT", "OFFSET", "FETCH", "INTO"}
    | {"UNION", "INTERSECT", "EXCEPT"}
)
# Distinct texts whose reading is kept (each at most MAX_PARSED_CHARS characters).
_KEPT = 2048
# The words ORDER BY anywhere in a text: the fallback for a text sqlglot cannot tokenize.
_ORDER_BY_WORDS = re.compile(r"\border\s+by\b", re.IGNORECASE)


class _Token(NamedTuple):
    kind: str  # sqlglot's token type name: SELECT, L_PAREN, ORDER_BY, VAR, STRING...
    start: int  # where the token starts and ends in the text (end exclusive)
    end: int
    depth: int  # parentheses around the token


def _dialect(name: str) -> Any:
    """sqlglot's dialect of the engine ``name`` (its generic dialect for an engine it does not name)."""
    from sqlglot.dialects.dialect import Dialect  # about 0.1 s: only when some text needs it

    return Dialect.get_or_raise(DIALECTS.get(name, ""))


@lru_cache(maxsize=_KEPT)
def _tokens(sql: str, dialect: str) -> tuple[tuple[_Token, ...], tuple[Any, ...]] | None:
    """The tokens of ``sql`` (comments dropped, each with its depth) and sqlglot's own
    tokens, or None when sqlglot cannot tokenize it or it is too long to be given to it."""
    if len(sql) > MAX_PARSED_CHARS:
        return None
    reader = _dialect(dialect)
    try:
        raw = tuple(reader.tokenize(sql))
    except Exception:  # noqa: BLE001 - a third-party reader of untrusted text: any failure is "unreadable"
        return None
    tokens = []
    depth = 0
    for token in raw:
        kind = token.token_type.name
        if kind == "R_PAREN":
            depth -= 1
        tokens.append(_Token(kind, token.start, token.end + 1, depth))
        if kind == "L_PAREN":
            depth += 1
    return tuple(tokens), raw


def _first_statement_tokens(tokens: Sequence[_Token]) -> Sequence[_Token]:
    """The tokens before the first ``;`` outside parentheses (or an unbalanced ``)``)."""
    for index, token in enumerate(tokens):
        if token.depth < 0 or (token.kind == "SEMICOLON" and token.depth == 0):
            return tokens[:index]
    return tokens


def split_statements(sql: str, dialect: str = "sqlite") -> list[str]:
    """The statements of ``sql``, each without its ``;`` and the spaces around it, as sqlglot
    tokenizes the dialect (a ``;`` in a string literal, a quoted name or a comment does not
    end one); empty statements are dropped. A text sqlglot cannot read is one statement.

    >>> split_statements("SELECT ';' FROM t; -- a;b\\nSELECT 2;")
    ["SELECT ';' FROM t", '-- a;b\\nSELECT 2']
    """
    read = _tokens(sql, dialect)
    if read is None:
        return [sql.strip()] if sql.strip() else []
    statements, start = [], 0
    for token in read[0]:
        if token.kind == "SEMICOLON" and token.depth == 0:
            statements.append(sql[start : token.start].strip())
            start = token.end
    statements.append(sql[start:].strip())
    return [statement for statement in statements if statement]


def first_statement(sql: str, dialect: str = "sqlite") -> str:
    """The text of the first statement of ``sql`` (see ``split_statements``); ``sql`` itself
    when it has one statement or sqlglot cannot read it.

    >>> first_statement("SELECT 'a;b' FROM t; DROP TABLE t")
    "SELECT 'a;b' FROM t"
    """
    statements = split_statements(sql, dialect)
    return statements[0] if len(statements) > 1 else sql


def _outer_order_by(tokens: Sequence[_Token]) -> bool:
    return any(token.kind == "ORDER_BY" and token.depth == 0 for token in _first_statement_tokens(tokens))


def has_outer_order_by(sql: str, dialect: str = "sqlite") -> bool:
    """Whether the first statement's outermost SELECT (or compound SELECT) has ``ORDER BY``:
    not one in a subquery, a CTE, a window or an aggregate, a string literal or a comment, as
    sqlglot tokenizes ``dialect`` (``sqlite``, ``duckdb`` or ``postgresql``). True for a text
    sqlglot cannot tokenize that holds the words ``order by``.

    >>> has_outer_order_by("SELECT a FROM t ORDER BY a")
    True
    >>> has_outer_order_by("SELECT * FROM (SELECT a FROM t ORDER BY a)")
    False
    >>> has_outer_order_by("SELECT 'order by' FROM t -- ORDER BY a")
    False
    """
    if "order" not in sql.lower():
        return False  # no ORDER BY can be in it: sqlglot is not needed (most queries)
    read = _tokens(sql, dialect)
    if read is None:
        return bool(_ORDER_BY_WORDS.search(sql))
    return _outer_order_by(read[0])


def _outline(tokens: Sequence[_Token]) -> list[int] | None:
    """The indexes of the tokens of a query's outline: its outer SELECT's select list, then
    its outer ORDER BY to the end (``SELECT a, b ORDER BY b LIMIT 3`` of a query with FROM,
    WHERE, joins and subqueries between): all that sort keys read, and a fraction of the
    parser's work. None when the query does not begin with that SELECT (or a WITH whose
    common tables precede it): then the whole query is parsed."""
    start = next((index for index, token in enumerate(tokens) if token.kind == "SELECT" and token.depth == 0), None)
    if start is None or not (start == 0 or (tokens[0].kind == "WITH" and tokens[start - 1].kind == "R_PAREN")):
        return None
    end = next(
        (
            index
            for index in range(start + 1, len(tokens))
            if tokens[index].depth == 0 and tokens[index].kind in _LIST_END
        ),
        len(tokens),
    )
    order = max(
        (index for index, token in enumerate(tokens) if token.kind == "ORDER_BY" and token.depth == 0), default=None
    )
    if order is None or order < end:
        return None
    return [*range(start, end), *range(order, len(tokens))]


@lru_cache(maxsize=_KEPT)
def _statement(sql: str, dialect: str, outline: bool = False) -> exp.Expression | None:
    """sqlglot's tree of the first statement of ``sql`` (of its outline, ``_outline``, when
    ``outline`` and it has one), or None when it cannot be parsed (or is too long or deep to
    be given to the parser)."""
    read = _tokens(sql, dialect)
    if read is None:
        return None
    tokens, raw = read
    first = _first_statement_tokens(tokens)
    if not first or max(token.depth for token in first) > MAX_PARSED_DEPTH:
        return None
    kept = _outline(first) if outline else None
    given = [raw[index] for index in kept] if kept is not None else list(raw[: len(first)])
    try:
        parsed = _dialect(dialect).parser().parse(given, sql)
    except Exception:  # noqa: BLE001 - a third-party parser of untrusted text (RecursionError too)
        return None
    if not parsed or parsed[0] is None:
        return None
    from sqlglot import exp

    # Names compare whatever their case and quoting (as the tokenizer this replaces did): the
    # tree is kept for this alone, so its names are made lower-case and unquoted once, here.
    for identifier in parsed[0].find_all(exp.Identifier):
        identifier.set("this", identifier.name.lower())
        identifier.set("quoted", False)
    return parsed[0]


@dataclass(frozen=True)
class _SelectItem:
    """One item of a select list: its expression (``_key``), alias, and, for a column
    reference, the column's name and its qualifier."""

    expression: str
    alias: str | None
    star: bool
    column: str | None
    qualifier: tuple[str, ...] | None


def _key(node: exp.Expression, dialect: str) -> str:
    """An expression of a tree ``_statement`` made as text that is the same whatever its
    case, spacing and quoting of names."""
    return node.sql(dialect=DIALECTS.get(dialect, ""))


def _column_reference(node: exp.Expression) -> tuple[str, tuple[str, ...]] | None:
    """``(name, qualifier)`` when the expression is ``name`` or ``t.name`` (or ``s.t.name``)."""
    from sqlglot import exp

    if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
        return None
    qualifier = tuple(part.lower() for part in (node.catalog, node.db, node.table) if part)
    return node.name.lower(), qualifier


def _select_item(node: exp.Expression, dialect: str) -> _SelectItem:
    from sqlglot import exp

    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        return _SelectItem(_key(node, dialect), None, True, None, None)
    alias = None
    if isinstance(node, exp.Alias):
        alias, node = node.alias.lower(), node.this
    reference = _column_reference(node)
    column, qualifier = reference if reference is not None else (None, None)
    return _SelectItem(_key(node, dialect), alias, False, column, qualifier)


def _select_items(statement: exp.Expression, dialect: str) -> list[_SelectItem] | None:
    """The items of the outermost SELECT's select list (the leftmost SELECT of a compound
    one), or None if it is no SELECT."""
    from sqlglot import exp

    node = statement
    while isinstance(node, (exp.Union, exp.Intersect, exp.Except)):
        node = node.this
    if not isinstance(node, exp.Select):
        return None
    return [_select_item(item, dialect) for item in node.expressions]


def _order_terms(statement: exp.Expression) -> list[exp.Expression] | None:
    """The outer ORDER BY's terms, their ASC/DESC, NULLS and COLLATE dropped."""
    from sqlglot import exp

    order = statement.args.get("order") if isinstance(statement, exp.Query) else None
    if not isinstance(order, exp.Order):
        return None
    terms = []
    for ordered in order.expressions:
        term = ordered.this if isinstance(ordered, exp.Ordered) else ordered
        while isinstance(term, exp.Collate):
            term = term.this
        terms.append(term)
    return terms


def _name_key(name: str, dialect: str) -> str | None:
    """A result column's name read as an expression (``count(*)``), as ``_key`` writes it."""
    parsed = _statement(f"SELECT {name}", dialect) if name else None
    if parsed is None or not parsed.expressions:
        return None
    return _key(parsed.expressions[0], dialect)


def _resolve(
    term: exp.Expression, items: list[_SelectItem] | None, names: Sequence[str], width: int, dialect: str
) -> int | None:
    """The result column (0-based) an ORDER BY term names, or None."""
    from sqlglot import exp

    if isinstance(term, exp.Literal) and term.is_int:
        number = int(term.this)
        return number - 1 if 1 <= number <= width else None
    key = _key(term, dialect)
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
        if _name_key(name, dialect) == key:
            return position
    return None


def sort_keys(sql: str, names: Sequence[str], width: int, dialect: str = "sqlite") -> tuple[int, ...] | None:
    """``order_by_keys`` for a result of ``width`` columns named ``names`` (empty names
    where the driver gives none: the terms then resolve by position and select item)."""
    return _sort_keys(sql, tuple(names), width, dialect)


@lru_cache(maxsize=_KEPT)
def _sort_keys(sql: str, names: tuple[str, ...], width: int, dialect: str) -> tuple[int, ...] | None:
    """``sort_keys``, kept by its arguments (a gold is judged on each database of a suite)."""
    if not has_outer_order_by(sql, dialect):
        return None
    # The outline's tree when it parses (the same select list and ORDER BY), else the whole.
    statement = _statement(sql, dialect, True) or _statement(sql, dialect)
    if statement is None:
        return None
    terms = _order_terms(statement)
    if not terms:
        return None
    try:
        items = _select_items(statement, dialect)
    except Exception:  # noqa: BLE001 - as below
        return None
    if items is not None and (len(items) != width or any(item.star for item in items)):
        items = None  # positions of the items are not the result's: resolve by names only
    keys: list[int] = []
    for term in terms:
        try:
            position = _resolve(term, items, names, width, dialect)
        except Exception:  # noqa: BLE001 - sqlglot writing back a tree of untrusted text: no keys
            return None
        if position is None:
            return None
        if position not in keys:
            keys.append(position)
    return tuple(keys)


def order_by_keys(gold_sql: str, columns: Sequence[str], dialect: str = "sqlite") -> tuple[int, ...] | None:
    """The outer ``ORDER BY`` of ``gold_sql`` as sort keys: 0-based indexes of the result
    ``columns`` (the names the driver gives), each term resolved by position number
    (``ORDER BY 2``), output name or alias, or expression (``COUNT(*)``, case, spacing and
    quoting of names aside); a qualified column (``t.salary``) by the select item that is
    that column. None when there is no outer ORDER BY, or some term names no result column
    (a column not selected, ``RANDOM()``), or sqlglot cannot parse the text in ``dialect``:
    then no subset of keys would say the gold's order.

    >>> order_by_keys("SELECT name, salary FROM emp ORDER BY salary DESC", ["name", "salary"])
    (1,)
    >>> order_by_keys("SELECT e.name AS who, count(*) FROM emp e GROUP BY 1 ORDER BY COUNT( * ), who", ["who", "n"])
    (1, 0)
    >>> print(order_by_keys("SELECT name FROM emp ORDER BY salary", ["name"]))
    None
    """
    return sort_keys(gold_sql, list(columns), len(columns), dialect)


def outer_order(sql: str, names: Sequence[str], width: int, dialect: str = "sqlite") -> tuple[int, ...] | None:
    """How the outer ORDER BY of ``sql`` orders its result of ``width`` columns named
    ``names`` (as ``sort_keys`` takes them): None when it has none (``has_outer_order_by``),
    its sort keys when its terms all name result columns (``sort_keys``), else ``()``: the
    result is then a strict sequence.

    >>> outer_order("SELECT a, b FROM t ORDER BY b", ["a", "b"], 2), outer_order("SELECT a FROM t", ["a"], 1)
    ((1,), None)
    >>> outer_order("SELECT a FROM t ORDER BY random()", ["a"], 1)
    ()
    """
    if not has_outer_order_by(sql, dialect):
        return None
    return sort_keys(sql, names, width, dialect) or ()


@dataclass(frozen=True)
class OuterOrder:
    """The outer ORDER BY of the query ``sql`` in ``dialect``, as the process that ran it read
    it for its result: ``keys`` is what ``outer_order`` gives (None: no outer ORDER BY; ``()``:
    a strict sequence; else the sort keys)."""

    sql: str
    dialect: str
    keys: tuple[int, ...] | None

    def of(self, sql: str, dialect: str) -> bool:
        """Whether this is the reading of ``sql`` in ``dialect`` (a result may be judged
        against another text than its own: then it is read again)."""
        return self.sql == sql and self.dialect == dialect


def prepare_in_background(dialect: str = "sqlite") -> None:
    """Import sqlglot and its ``dialect`` in a thread of their own (daemon), so that the
    first text read later finds them imported: a SQLite helper does so as it starts, while
    it waits for its first queries (SQLite lets other threads run while a query runs). A
    failure is left to the first reading, which gives the conservative answer."""

    def prepare() -> None:
        try:
            _dialect(dialect)
        except Exception:  # noqa: BLE001 - a reading that needs it fails the same way, conservatively
            return

    threading.Thread(target=prepare, name="answerkey-sqlglot-import", daemon=True).start()
