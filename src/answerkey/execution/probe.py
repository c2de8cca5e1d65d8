"""Suspect golds (``answerkey sql --probe-gold``): gold queries whose answer is not well posed.

Each check reports a ``RunWarning`` of kind ``gold-CHECK`` naming the item and the evidence;
none changes a verdict. ``GoldProbe`` runs the gold read-only on its db_id's first database
with the run's limits, through the run's engine (SQLite, DuckDB, PostgreSQL), at most three
times per distinct (db_id, gold): once as written, once more for the LIMIT check, and on
SQLite once more for the storage-order check. With the run's ``--cache`` each of these runs
is read from and stored in the cache beside the gold's own result (the same entries, the
same keys: ``answerkey.execution.cache.query_key``): the gold as written is the entry the
run stored, and a second run with that cache runs no probe again until the database
changes (its fingerprint is in every key).

Checks on every engine (the queries read with sqlglot in the engine's dialect):

- ``limit-ties``: the top-level query has ``ORDER BY`` and ``LIMIT k`` (or PostgreSQL's
  ``FETCH FIRST k ROWS ONLY``) and returns k rows; run again with the ORDER BY keys as extra
  columns and ``LIMIT k + 1``, rows k and k + 1 have the same keys: the LIMIT cuts through
  ties, so which tied rows the gold holds is the engine's choice, and an equally right
  prediction may hold others. ``FETCH ... WITH TIES`` keeps every tie: not flagged.
- ``limit-without-order``: a ``LIMIT`` (or ``FETCH FIRST``) with no ``ORDER BY`` in the same
  SELECT: which rows come back is up to the engine.
- ``nondeterministic``: a function whose value changes between runs: ``random()`` and the
  current date or time everywhere (``CURRENT_TIMESTAMP``, ``now()``, ...); SQLite's
  ``randomblob()`` and ``date('now')``; DuckDB's ``uuid()``, ``gen_random_uuid()``,
  ``get_current_timestamp()``, ``today()``; PostgreSQL's ``gen_random_uuid()``,
  ``clock_timestamp()``, ``timeofday()`` and ``'now'::timestamp``; and a sample of a table
  (``TABLESAMPLE``, DuckDB's ``USING SAMPLE``) without a seed.
- ``empty``: the gold returns no rows (any query that returns no rows matches it).
- ``duplicates``: the gold's result holds the same row more than once (set and bag semantics
  may disagree on it).

SQLite only:

- ``storage-order``: run again on a connection of its own with ``PRAGMA
  reverse_unordered_selects`` (tables read in reverse wherever the query leaves the order
  free), the gold returns other rows (compared as a bag: the order alone does not count):
  a LIMIT without ORDER BY, a bare column beside an aggregate, ``group_concat`` in reading
  order, a scalar subquery of several rows. Not run for a ``nondeterministic`` gold, whose
  result changes anyway. The pragma does not change which tied row ``ORDER BY ... LIMIT``
  keeps (hence ``limit-ties``), nor the row a bare column takes in a ``GROUP BY`` group
  (SQLite sorts the groups keeping the reading order of the index or the sorter). DuckDB and
  PostgreSQL have no setting that reads tables in reverse: there the check does not run, and
  ``GoldProbe.unchecked`` says so (``answerkey sql`` warns once per run).

>>> [check for check, _ in static_checks("SELECT name FROM t LIMIT 3", "sqlite")]
['limit-without-order']
>>> [check for check, _ in static_checks("SELECT a FROM t ORDER BY random() LIMIT 1", "sqlite")]
['nondeterministic']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from answerkey.adapters.engines import Database, Engine, NoDatabase, QueryResult, SQLiteEngine
from answerkey.adapters.sql import run_file
from answerkey.adapters.sqltext import DIALECTS, MAX_PARSED_CHARS
from answerkey.errors import RunWarning, plural
from answerkey.execution.cache import ResultCache, query_key
from answerkey.execution.load import SqlItem
from answerkey.execution.run import SqlOptions
from answerkey.grammar.render import render_value

GOLD_WARNING = "gold-"
"""The start of the kind of every suspect-gold warning (``gold-limit-ties``, ...)."""
# Functions whose value differs from run to run, on any of the engines (lower case, as sqlglot
# names them or as written): a name one engine lacks fails there, so one set serves them all.
_CHANGING = {
    "random",
    "randomblob",
    "rand",
    "random_normal",
    "uuid",
    "gen_random_uuid",
    "uuidv4",
    "uuidv7",
    "uuid_generate_v1",
    "uuid_generate_v1mc",
    "uuid_generate_v4",
    "now",
    "get_current_timestamp",
    "get_current_time",
    "current_localtimestamp",
    "current_localtime",
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
# PostgreSQL reads the clock when it casts these strings to a date or time ('now'::timestamp).
_CLOCK_WORDS = {"now", "today", "tomorrow", "yesterday"}
# The checks each engine runs beyond those every engine runs, and why another cannot.
ENGINE_CHECKS = {"sqlite": ("storage-order",)}
UNCHECKED = {
    "storage-order": "it has no setting that reads the tables in reverse, "
    "as SQLite's PRAGMA reverse_unordered_selects does"
}
_KEY = "answerkey_probe_key_"


def _parse(sql: str, dialect: str) -> Any:
    """The parsed statement, or None when sqlglot cannot read it or the text is longer than
    the semantics give it (``MAX_PARSED_CHARS``): then no check that reads the query runs."""
    import sqlglot

    if len(sql) > MAX_PARSED_CHARS:
        return None
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


def _casts_the_clock(node: Any, dialect: str) -> bool:
    """PostgreSQL's ``'now'::timestamp``, ``DATE 'today'``: a clock word cast to a date or time."""
    from sqlglot import exp

    if dialect != "postgres" or not isinstance(node, exp.Cast) or not node.to.is_type(*exp.DataType.TEMPORAL_TYPES):
        return False
    value = node.this
    return isinstance(value, exp.Literal) and value.is_string and value.name.strip().lower() in _CLOCK_WORDS


def static_checks(sql: str, dialect: str) -> list[tuple[str, str]]:
    """The checks that read the query only: (check, evidence) pairs.

    >>> static_checks("SELECT a FROM t USING SAMPLE 10%", "duckdb")
    [('nondeterministic', 'changes between runs: TABLESAMPLE SYSTEM (10 PERCENT)')]
    >>> static_checks("SELECT a FROM t FETCH FIRST 2 ROWS ONLY", "postgres")
    [('limit-without-order', 'FETCH FIRST 2 ROWS ONLY without ORDER BY')]
    """
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
    for node in tree.find_all(exp.Func, exp.TableSample):
        name = _function_name(node)
        clock = isinstance(node, exp.Rand | exp.CurrentTimestamp | exp.CurrentDate | exp.CurrentTime | exp.Uuid)
        sample = isinstance(node, exp.TableSample) and node.args.get("seed") in (None, False)
        if clock or sample or name in _CHANGING or _reads_the_clock(node, name) or _casts_the_clock(node, dialect):
            changing.append(node.sql(dialect=dialect))
    if changing:
        found.append(("nondeterministic", "changes between runs: " + ", ".join(dict.fromkeys(changing))))
    return found


def ties_query(sql: str, dialect: str) -> tuple[str, int, int] | None:
    """For a top-level SELECT with ORDER BY and a literal LIMIT k (or ``FETCH FIRST k ROWS
    ONLY``): the query with its ORDER BY keys added as the last columns and LIMIT k + 1, k,
    and how many keys; else None.

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
    if isinstance(limit, exp.Fetch):
        options = limit.args.get("limit_options")
        if options is not None and (options.args.get("with_ties") or options.args.get("percent")):
            return None  # WITH TIES keeps every tie; a percentage is no count of rows
        count = limit.args.get("count")
    else:
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


class GoldProbe:
    """Probes the golds of a run on ``engine``, each distinct (db_id, gold) once.

    With ``options`` (the run's ``SqlOptions``) whose ``cache`` is set, every query a probe
    runs is read from the run's result cache when stored there and stored when run, under
    ``query_key`` with the run's limits: the gold as written shares the entry of the gold the
    run executed, the LIMIT check's query has its own entry, and the reversed run (SQLite) an
    entry whose engine is ``sqlite+reverse_unordered_selects``. ``executed`` counts the
    queries run on a database, ``cache_hits`` and ``cache_misses`` the results read from the
    cache and the queries run through it, ``notes`` the cache's warnings (an unreadable entry).
    """

    def __init__(self, engine: Engine, options: SqlOptions | None = None) -> None:
        self.engine = engine
        self.options = options
        self.dialect = DIALECTS.get(engine.name, engine.name)
        self.cache = ResultCache(options.cache) if options is not None and options.cache is not None else None
        self.fingerprints: dict[Database, str] = {}
        self.executed = 0
        self.notes: list[RunWarning] = []
        self.found: dict[tuple[str, str], list[tuple[str, str]]] = {}

    @property
    def cache_hits(self) -> int:
        """Results the probes read from the cache."""
        return self.cache.hits if self.cache is not None else 0

    @property
    def cache_misses(self) -> int:
        """Queries the probes ran through the cache (not found in it)."""
        return self.cache.misses if self.cache is not None else 0

    @property
    def unchecked(self) -> list[str]:
        """The checks that do not run on this engine, each said with why (none on SQLite).

        >>> from answerkey.adapters.engines import DuckDBEngine
        >>> GoldProbe(DuckDBEngine("dbs")).unchecked  # doctest: +NORMALIZE_WHITESPACE
        ["storage-order is not checked on duckdb: it has no setting that reads the tables in reverse,
          as SQLite's PRAGMA reverse_unordered_selects does"]
        """
        done = ENGINE_CHECKS.get(self.engine.name, ())
        return [
            f"{check} is not checked on {self.engine.name}: {why}"
            for check, why in UNCHECKED.items()
            if check not in done
        ]

    def result(self, database: Database, sql: str, *, reverse: bool = False) -> QueryResult:
        """The result of ``sql`` on ``database`` (with the tables read in reverse: SQLite only,
        else a ``ValueError``), read from the cache when it holds it, else run (and stored)."""
        if reverse and not isinstance(self.engine, SQLiteEngine):
            raise ValueError(f"{self.engine.name} has no setting that reads the tables in reverse")
        key = None
        if self.cache is not None and self.options is not None:
            key = query_key(self.engine, database, sql, self.options, self.fingerprints)
            if reverse:
                key = replace(key, engine=f"{key.engine}+reverse_unordered_selects")
            cached, warning = self.cache.get(key)
            if warning is not None:
                self.notes.append(warning)
            if cached is not None:
                return cached
        self.executed += 1
        if reverse and isinstance(self.engine, SQLiteEngine):
            result = run_file(
                database.location,
                database.label,
                sql,
                timeout=self.engine.timeout,
                max_rows=self.engine.max_rows,
                max_result_bytes=self.engine.max_result_bytes,
                reverse_unordered=True,
                text_decoding=self.engine.text_decoding,
            )
        else:
            result = self.engine.run(database, sql)
        if key is not None and self.cache is not None:
            warning = self.cache.put(key, result)
            if warning is not None:
                self.notes.append(warning)
        return result

    def checks(self, item: SqlItem) -> list[tuple[str, str]]:
        """Every check on one item's gold: (check, evidence) pairs (none when the gold fails:
        the run reports that already, or is given as result files: no query to probe); a gold
        probed before is not run again."""
        if item.gold_results:
            return []
        key = (item.db_id, item.gold)
        if key not in self.found:
            self.found[key] = self._checks(item)
        return self.found[key]

    def _checks(self, item: SqlItem) -> list[tuple[str, str]]:
        found = static_checks(item.gold, self.dialect)
        try:
            database = self.engine.databases(item.db_id)[0]
        except (NoDatabase, IndexError):
            return found
        result = self.result(database, item.gold)
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
        if isinstance(self.engine, SQLiteEngine) and not any(check == "nondeterministic" for check, _ in found):
            reversed_run = self.result(database, item.gold, reverse=True)
            if reversed_run.error is None:
                evidence = storage_order_evidence(rows, reversed_run.rows)
                if evidence:
                    found.append(("storage-order", evidence))
        ties = ties_query(item.gold, self.dialect)
        if ties is not None and len(rows) == ties[1]:
            query, limit, keys = ties
            extended = self.result(database, query)
            if extended.error is None and len(extended.rows) > limit:
                last, next_row = extended.rows[limit - 1][-keys:], extended.rows[limit][-keys:]
                if last == next_row:
                    shown = ", ".join(render_value(value) for value in last)
                    evidence = f"rows {limit} and {limit + 1} have the same ORDER BY key ({shown})"
                    found.append(("limit-ties", f"LIMIT {limit} cuts through ties: {evidence}"))
        return found

    def warnings(self, items: Iterable[SqlItem]) -> list[RunWarning]:
        """The suspect-gold warnings of ``items``, in item order."""
        return [
            RunWarning(f"{item.origin}: item {item.id}: gold {check}: {evidence}", GOLD_WARNING + check)
            for item in items
            for check, evidence in self.checks(item)
        ]


def probe_gold(engine: Engine, item: SqlItem) -> list[tuple[str, str]]:
    """Every check on one item's gold: (check, evidence) pairs, run without a cache."""
    return GoldProbe(engine).checks(item)


def probe_golds(engine: Engine, items: Iterable[SqlItem]) -> list[RunWarning]:
    """The suspect-gold warnings of ``items``, in item order, each gold probed once, without a cache."""
    return GoldProbe(engine).warnings(items)


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
