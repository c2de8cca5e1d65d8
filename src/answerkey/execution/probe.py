"""Suspect golds (``answerkey sql --probe-gold``): gold queries whose answer is not well posed.

Each check reports a ``RunWarning`` of kind ``gold-CHECK`` naming the item and the evidence;
none changes a verdict. The gold runs read-only on its db_id's first database with the run's
limits, through the run's engine (SQLite, DuckDB, PostgreSQL), at most three times per
distinct (db_id, gold): once as written, once more for the LIMIT check, and on SQLite once
more for the storage-order check.

- ``limit-ties``: the top-level query has ``ORDER BY`` and ``LIMIT k`` and returns k rows; run
  again with the ORDER BY keys as extra columns and ``LIMIT k + 1``, rows k and k + 1 have the
  same keys: the LIMIT cuts through ties, so which tied rows the gold holds is the engine's
  choice, and an equally right prediction may hold others.
- ``limit-without-order``: a ``LIMIT`` with no ``ORDER BY`` in the same SELECT: which rows come
  back is up to the engine.
- ``nondeterministic``: a function whose value changes between runs (``random()``,
  ``randomblob()``, the current date or time: ``CURRENT_TIMESTAMP``, ``now()``,
  ``date('now')``, ...).
- ``empty``: the gold returns no rows (any query that returns no rows matches it).
- ``duplicates``: the gold's result holds the same row more than once (set and bag semantics
  may disagree on it).

- ``storage-order`` (SQLite): run again on a connection of its own with ``PRAGMA
  reverse_unordered_selects`` (tables read in reverse wherever the query leaves the order
  free), the gold returns other rows (compared as a bag: the order alone does not count):
  a LIMIT without ORDER BY, a bare column beside an aggregate, ``group_concat`` in reading
  order, a scalar subquery of several rows. Not run for a ``nondeterministic`` gold, whose
  result changes anyway. The pragma does not change which tied row ``ORDER BY ... LIMIT``
  keeps (hence ``limit-ties``), nor the row a bare column takes in a ``GROUP BY`` group
  (SQLite sorts the groups keeping the reading order of the index or the sorter).

>>> [check for check, _ in static_checks("SELECT name FROM t LIMIT 3", "sqlite")]
['limit-without-order']
>>> [check for check, _ in static_checks("SELECT a FROM t ORDER BY random() LIMIT 1", "sqlite")]
['nondeterministic']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from answerkey.adapters.engines import Engine, NoDatabase, SQLiteEngine
from answerkey.adapters.sql import run_file
from answerkey.errors import RunWarning, plural
from answerkey.execution.load import SqlItem
from answerkey.grammar.render import render_value

GOLD_WARNING = "gold-"
"""The start of the kind of every suspect-gold warning (``gold-limit-ties``, ...)."""
# sqlglot's dialect for each engine.
DIALECTS = {"sqlite": "sqlite", "duckdb": "duckdb", "postgresql": "postgres"}
# Functions whose value differs from run to run (lower case, as sqlglot names them or as written).
_CHANGING = {
    "random",
    "randomblob",
    "rand",
    "uuid",
    "gen_random_uuid",
    "now",
    "current_timestamp",
    "current_date",
    "current_time",
    "localtimestamp",
    "localtime",
    "transaction_timestamp",
    "statement_timestamp",
    "clock_timestamp",
    "timeofday",
}
# SQLite's date and time functions read the clock when an argument is 'now'.
_DATE_FUNCTIONS = {"date", "time", "datetime", "julianday", "strftime", "unixepoch", "timediff"}
_KEY = "answerkey_probe_key_"


def _parse(sql: str, dialect: str) -> Any:
    """The parsed statement, or None when sqlglot cannot read it (then no static check runs)."""
    import sqlglot

    try:
        statements = sqlglot.parse(sql, read=dialect)
    except Exception:  # noqa: BLE001 - any parser failure only means: no static check
        return None
    return statements[0] if len(statements) == 1 and statements[0] is not None else None


def _function_name(node: Any) -> str:
    from sqlglot import exp

    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    return str(node.sql_name()).lower() if isinstance(node, exp.Func) else ""


def _reads_the_clock(node: Any, name: str) -> bool:
    """A date function called with 'now' (SQLite's ``date('now')``, ``strftime('%s', 'now')``)."""
    from sqlglot import exp

    if name not in _DATE_FUNCTIONS and not isinstance(node, exp.TsOrDsToDate | exp.StrToTime | exp.TimeToStr):
        return False
    return any(
        isinstance(arg, exp.Literal) and arg.is_string and arg.name.lower() == "now" for arg in node.iter_expressions()
    )


def static_checks(sql: str, dialect: str) -> list[tuple[str, str]]:
    """The checks that read the query only: (check, evidence) pairs."""
    from sqlglot import exp

    tree = _parse(sql, dialect)
    if tree is None:
        return []
    found: list[tuple[str, str]] = []
    for select in tree.find_all(exp.Select):
        limit = select.args.get("limit")
        if limit is not None and not select.args.get("order"):
            found.append(("limit-without-order", f"{limit.sql(dialect=dialect)} without ORDER BY"))
    changing = []
    for node in tree.find_all(exp.Func):
        name = _function_name(node)
        clock = isinstance(node, exp.Rand | exp.CurrentTimestamp | exp.CurrentDate | exp.CurrentTime)
        if clock or name in _CHANGING or _reads_the_clock(node, name):
            changing.append(node.sql(dialect=dialect))
    if changing:
        found.append(("nondeterministic", "changes between runs: " + ", ".join(dict.fromkeys(changing))))
    return found


def ties_query(sql: str, dialect: str) -> tuple[str, int, int] | None:
    """For a top-level SELECT with ORDER BY and a literal LIMIT k: the query with its ORDER BY
    keys added as the last columns and LIMIT k + 1, k, and how many keys; else None.

    >>> query, limit, keys = ties_query("SELECT a AS n FROM t ORDER BY n DESC, 1 LIMIT 2", "sqlite")
    >>> query
    'SELECT a AS n, a AS answerkey_probe_key_0, a AS answerkey_probe_key_1 FROM t ORDER BY n DESC, 1 LIMIT 3'
    >>> limit, keys
    (2, 2)
    """
    from sqlglot import exp

    tree = _parse(sql, dialect)
    if not isinstance(tree, exp.Select) or not tree.args.get("order") or tree.args.get("offset"):
        return None
    limit = tree.args.get("limit")
    count = getattr(limit, "expression", None)
    if not (isinstance(count, exp.Literal) and count.is_int) or int(count.name) < 1:
        return None
    projections = list(tree.expressions)
    if any(isinstance(projection, exp.Star) or projection.find(exp.Star) for projection in projections):
        return None
    aliases = {projection.alias: projection.this for projection in projections if isinstance(projection, exp.Alias)}
    keys = []
    for ordered in tree.args["order"].expressions:
        key = ordered.this
        if isinstance(key, exp.Literal) and key.is_int and 1 <= int(key.name) <= len(projections):
            key = projections[int(key.name) - 1]
            key = key.this if isinstance(key, exp.Alias) else key
        elif isinstance(key, exp.Column) and not key.table and key.name in aliases:
            key = aliases[key.name]
        keys.append(key.copy())
    probe = tree.copy()
    for index, key in enumerate(keys):
        probe = probe.select(exp.alias_(key, f"{_KEY}{index}"), copy=False)
    probe.set("limit", exp.Limit(expression=exp.Literal.number(int(count.name) + 1)))
    return probe.sql(dialect=dialect), int(count.name), len(keys)


def probe_gold(engine: Engine, item: SqlItem) -> list[tuple[str, str]]:
    """Every check on one item's gold: (check, evidence) pairs (none when the gold fails: the
    run reports that already)."""
    dialect = DIALECTS.get(engine.name, engine.name)
    found = static_checks(item.gold, dialect)
    try:
        database = engine.databases(item.db_id)[0]
    except (NoDatabase, IndexError):
        return found
    result = engine.run(database, item.gold)
    if result.error is not None:
        return found
    rows = result.rows
    if not rows:
        found.append(("empty", "the gold returns no rows: any query that returns none matches it"))
        return found
    repeated = sum(count - 1 for count in Counter(rows).values() if count > 1)
    if repeated:
        verb = "repeats" if repeated == 1 else "repeat"
        found.append(("duplicates", f"{plural(repeated, 'row')} of {len(rows)} {verb} an earlier one"))
    if isinstance(engine, SQLiteEngine) and not any(check == "nondeterministic" for check, _ in found):
        reversed_run = run_file(
            database.location,
            database.label,
            item.gold,
            timeout=engine.timeout,
            max_rows=engine.max_rows,
            max_result_bytes=engine.max_result_bytes,
            reverse_unordered=True,
        )
        if reversed_run.error is None:
            evidence = storage_order_evidence(rows, reversed_run.rows)
            if evidence:
                found.append(("storage-order", evidence))
    ties = ties_query(item.gold, dialect)
    if ties is not None and len(rows) == ties[1]:
        query, limit, keys = ties
        extended = engine.run(database, query)
        if extended.error is None and len(extended.rows) > limit:
            last, next_row = extended.rows[limit - 1][-keys:], extended.rows[limit][-keys:]
            if last == next_row:
                shown = ", ".join(render_value(value) for value in last)
                evidence = f"rows {limit} and {limit + 1} have the same ORDER BY key ({shown})"
                found.append(("limit-ties", f"LIMIT {limit} cuts through ties: {evidence}"))
    return found


def storage_order_evidence(rows: Sequence[tuple[Any, ...]], reversed_rows: Sequence[tuple[Any, ...]]) -> str:
    """What differs between the gold's rows and its rows with the tables read in reverse, as
    bags (empty when they hold the same rows, whatever their order).

    >>> from answerkey.model import String
    >>> ann, bob, eve = String("Ann"), String("Bob"), String("Eve")
    >>> storage_order_evidence([(ann,), (bob,)], [(bob,), (ann,)])
    ''
    >>> print(storage_order_evidence([(ann,), (bob,)], [(eve,), (bob,)]))
    with the tables read in reverse: 1 row only as stored (first: "Ann"), 1 row only in reverse (first: "Eve")
    """
    stored, reverse = Counter(rows), Counter(reversed_rows)
    if stored == reverse:
        return ""
    parts = []
    for side, first, second in (("as stored", stored, reverse), ("in reverse", reverse, stored)):
        only = first - second
        if only:
            example = next(row for row in (rows if first is stored else reversed_rows) if only[row])
            shown = " ".join(render_value(value) for value in example)
            parts.append(f"{plural(only.total(), 'row')} only {side} (first: {shown})")
    return "with the tables read in reverse: " + ", ".join(parts)


def probe_golds(engine: Engine, items: Iterable[SqlItem]) -> list[RunWarning]:
    """The suspect-gold warnings of ``items``, in item order, each gold probed once (a gold
    given as result files has no query to probe)."""
    probed: dict[tuple[str, str], list[tuple[str, str]]] = {}
    warnings = []
    for item in items:
        if item.gold_results:
            continue
        key = (item.db_id, item.gold)
        if key not in probed:
            probed[key] = probe_gold(engine, item)
        for check, evidence in probed[key]:
            warnings.append(
                RunWarning(f"{item.origin}: item {item.id}: gold {check}: {evidence}", GOLD_WARNING + check)
            )
    return warnings


def gold_counts(warnings: Sequence[RunWarning]) -> str:
    """How many gold warnings of each check, on one line (empty when there are none).

    >>> gold_counts([RunWarning("a.sql:1: item 0: gold empty: no rows", "gold-empty")])
    'gold warnings: 1 (empty 1)'
    """
    checks = Counter(
        warning.kind.removeprefix(GOLD_WARNING) for warning in warnings if warning.kind.startswith(GOLD_WARNING)
    )
    if not checks:
        return ""
    listed = ", ".join(f"{check} {count}" for check, count in checks.items())
    return f"gold warnings: {sum(checks.values())} ({listed})"
