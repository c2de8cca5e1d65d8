"""Probes are cached with the gold's result (`answerkey sql --probe-gold --cache DIR`): the gold
as written is read from the entry the run stored, each probe query runs at most once per
distinct gold and database content, a second run with the cache runs none, and a database
that changes is probed again (docs: Suspect golds, "Limits and cost").

The queries counted are those that reached a real database: each engine's ``run`` and the
reversed SQLite run (``run_file(..., reverse_unordered=True)``), recorded on their way to the
real ones, which still run."""

from __future__ import annotations

import sqlite3

import duckdb
import pytest

from answerkey.adapters.duckdb_engine import DuckDBEngine
from answerkey.adapters.engines import SQLiteEngine
from answerkey.adapters.postgresql import PostgreSQLEngine
from answerkey.execution import probe as probe_module
from answerkey.execution.load import SqlInputs, SqlItem
from answerkey.execution.probe import GoldProbe
from answerkey.execution.run import SqlOptions, run_sql

LEAGUE = """
CREATE TABLE scores (name VARCHAR(10), points INTEGER);
INSERT INTO scores VALUES ('a', 10), ('b', 8), ('c', 8), ('d', 5);
"""
TIES = "SELECT name FROM scores ORDER BY points DESC LIMIT 2"
TIES_QUERY = "SELECT name, points AS answerkey_probe_key_0 FROM scores ORDER BY points DESC LIMIT 3"
UNORDERED = "SELECT name FROM scores LIMIT 1"
RANDOM = "SELECT name FROM scores WHERE random() IS NOT NULL ORDER BY name LIMIT 1"
WELL_POSED = "SELECT name FROM scores ORDER BY points DESC LIMIT 1"
# The LIMIT check's queries of RANDOM and WELL_POSED (each returns its k rows).
RANDOM_TIES = "SELECT name, name AS answerkey_probe_key_0 FROM scores WHERE NOT RANDOM() IS NULL ORDER BY name LIMIT 2"
WELL_POSED_TIES = "SELECT name, points AS answerkey_probe_key_0 FROM scores ORDER BY points DESC LIMIT 2"
# Two items share the tie gold: it is probed once.
ITEMS = [
    SqlItem("ties", "league", TIES, "SELECT 'a'"),
    SqlItem("unordered", "league", UNORDERED, "SELECT 'a'"),
    SqlItem("random", "league", RANDOM, "SELECT 'a'"),
    SqlItem("well-posed", "league", WELL_POSED, "SELECT 'a'"),
    SqlItem("ties-again", "league", TIES, "SELECT 'b'"),
]
FOUND = {
    "ties": [("limit-ties", "LIMIT 2 cuts through ties: rows 2 and 3 have the same ORDER BY key (8)")],
    "unordered": [
        ("limit-without-order", "LIMIT 1 without ORDER BY"),
        (
            "storage-order",
            'with the tables read in reverse: 1 row only as stored (first: "a"), 1 row only in reverse (first: "d")',
        ),
    ],
    "random": [("nondeterministic", "changes between runs: RANDOM()")],
    "well-posed": [],
    "ties-again": [("limit-ties", "LIMIT 2 cuts through ties: rows 2 and 3 have the same ORDER BY key (8)")],
}


@pytest.fixture
def executed(monkeypatch):
    """The queries that reached a database, in order, as (engine, SQL, read in reverse)."""
    queries: list[tuple[str, str, bool]] = []
    for engine in (SQLiteEngine, DuckDBEngine, PostgreSQLEngine):
        real = engine.run

        def run(self, database, query, real=real):
            queries.append((self.name, query, False))
            return real(self, database, query)

        monkeypatch.setattr(engine, "run", run)
    real_file = probe_module.run_file

    def run_file(path, label, query, **limits):
        queries.append(("sqlite", query, limits.get("reverse_unordered", False)))
        return real_file(path, label, query, **limits)

    monkeypatch.setattr(probe_module, "run_file", run_file)
    return queries


def _league(root, suffix: str):
    """A Spider-layout root holding `league` as a SQLite or DuckDB file."""
    (root / "league").mkdir(parents=True)
    path = root / "league" / f"league{suffix}"
    if suffix == ".sqlite":
        with sqlite3.connect(path) as db:
            db.executescript(LEAGUE)
        db.close()
    else:
        db = duckdb.connect(str(path))
        db.execute(LEAGUE)
        db.close()
    return path


def _run_and_probe(options: SqlOptions, items=ITEMS):
    """A run of ``items`` (through the cache), then its golds probed as `sql --probe-gold` does."""
    run_sql(SqlInputs("spider", "gold.sql", "pred.sql", items), options)
    probe = GoldProbe(options.open_engine(), options)
    try:
        found = {item.id: probe.checks(item) for item in items}
    finally:
        probe.engine.close()
    return probe, found


def test_probe_queries_are_stored_with_the_golds_and_read_back(tmp_path, executed):
    """First run: the golds as written are read from the entries the run stored; each
    distinct gold runs its LIMIT query and its reversed run once (the shared gold once, the
    random() gold not reversed, a gold without ORDER BY ... LIMIT never extended); second
    run: every probe result is read, nothing reaches the database, same findings."""
    _league(tmp_path / "dbs", ".sqlite")
    options = SqlOptions(str(tmp_path / "dbs"), cache=str(tmp_path / "cache"))
    run_sql(SqlInputs("spider", "gold.sql", "pred.sql", ITEMS), options)
    executed.clear()
    probe = GoldProbe(options.open_engine(), options)
    found = {item.id: probe.checks(item) for item in ITEMS}
    assert found == FOUND
    assert executed == [
        ("sqlite", TIES, True),
        ("sqlite", TIES_QUERY, False),
        ("sqlite", UNORDERED, True),
        ("sqlite", RANDOM_TIES, False),
        ("sqlite", WELL_POSED, True),
        ("sqlite", WELL_POSED_TIES, False),
    ]
    # The 4 golds as written are the run's own entries; the 6 probe queries were run and stored.
    assert (probe.cache_hits, probe.cache_misses, probe.executed) == (4, 6, 6)
    executed.clear()
    again, found_again = _run_and_probe(options)
    assert executed == []
    assert (again.cache_hits, again.cache_misses, again.executed) == (10, 0, 0)
    assert found_again == FOUND


def test_without_a_cache_each_check_runs_once_per_distinct_gold(tmp_path, executed):
    """No cache: per distinct gold, the gold once and at most one query per check that runs
    one (ties, storage order; none reversed for the random() gold); the gold shared by two
    items is probed once."""
    _league(tmp_path / "dbs", ".sqlite")
    probe = GoldProbe(SqlOptions(str(tmp_path / "dbs")).open_engine())
    assert {item.id: probe.checks(item) for item in ITEMS} == FOUND
    assert executed == [
        ("sqlite", TIES, False),
        ("sqlite", TIES, True),
        ("sqlite", TIES_QUERY, False),
        ("sqlite", UNORDERED, False),
        ("sqlite", UNORDERED, True),
        ("sqlite", RANDOM, False),
        ("sqlite", RANDOM_TIES, False),
        ("sqlite", WELL_POSED, False),
        ("sqlite", WELL_POSED, True),
        ("sqlite", WELL_POSED_TIES, False),
    ]
    assert (probe.executed, probe.cache_hits, probe.cache_misses) == (10, 0, 0)


def test_a_changed_database_is_probed_again(tmp_path, executed):
    """A write to the database changes its fingerprint: the probes run again and see the new
    rows (the tie is broken: no finding), where a stale entry would still show the tie."""
    path = _league(tmp_path / "dbs", ".sqlite")
    options = SqlOptions(str(tmp_path / "dbs"), cache=str(tmp_path / "cache"))
    items = ITEMS[:1]
    assert _run_and_probe(options, items)[1] == {"ties": FOUND["ties"]}
    with sqlite3.connect(path) as db:
        db.execute("UPDATE scores SET points = 7 WHERE name = 'c'")
    db.close()
    executed.clear()
    probe, found = _run_and_probe(options, items)
    assert found == {"ties": []}
    assert [query for query in executed if query[1] != "SELECT 'a'"] == [
        ("sqlite", TIES, False),  # the run's gold
        ("sqlite", TIES, True),
        ("sqlite", TIES_QUERY, False),
    ]
    assert (probe.cache_hits, probe.cache_misses) == (1, 2)


@pytest.mark.parametrize("engine", ["duckdb", "postgresql"])
def test_duckdb_and_postgresql_probes_are_cached_too(request, tmp_path, executed, engine):
    """On DuckDB and PostgreSQL the LIMIT query is the one probe query (no reversed run): run
    and stored once, read back on the second run, which runs nothing."""
    if engine == "postgresql":
        server = request.getfixturevalue("postgres_server")
        server.create_database("league", LEAGUE)
        location = server.url("")
    else:
        _league(tmp_path / "dbs", ".duckdb")
        location = str(tmp_path / "dbs")
    options = SqlOptions(location, cache=str(tmp_path / "cache"))
    items = [ITEMS[0], ITEMS[3], ITEMS[4]]
    probe, found = _run_and_probe(options, items)
    assert found == {"ties": FOUND["ties"], "well-posed": [], "ties-again": FOUND["ties"]}
    probe_queries = [query for query in executed if query[1] not in (TIES, WELL_POSED, "SELECT 'a'", "SELECT 'b'")]
    assert probe_queries == [
        (engine, TIES_QUERY, False),
        (engine, WELL_POSED_TIES, False),
    ]
    assert (probe.cache_hits, probe.cache_misses) == (2, 2)
    executed.clear()
    again, found_again = _run_and_probe(options, items)
    assert executed == []
    assert found_again == found
    assert (again.cache_hits, again.cache_misses) == (4, 0)


def test_sql_probe_gold_with_the_cache_twice(run_cli, tmp_path):
    """`sql --probe-gold --cache DIR`: the cache line counts the probes' queries with the
    run's; the second run reads every result and runs no query; the same warnings."""
    _league(tmp_path / "dbs", ".sqlite")
    gold = tmp_path / "gold.sql"
    gold.write_text("".join(f"{item.gold}\tleague\n" for item in ITEMS))
    predictions = tmp_path / "pred.sql"
    predictions.write_text("".join(f"{item.predicted}\n" for item in ITEMS))
    arguments = ("sql", gold, predictions, "--db", tmp_path / "dbs", "--probe-gold", "--cache", tmp_path / "cache")
    first = run_cli(*arguments)
    second = run_cli(*arguments)
    assert first.exit_code == second.exit_code == 0, first.output
    # The run: 4 distinct golds and 2 distinct predictions run, 4 predictions read back;
    # the probes: the 4 golds read back, 6 queries run.
    assert first.stderr.endswith("cache: 8 results read, 12 queries run\n")
    assert second.stderr.endswith("cache: 20 results read, 0 queries run\n")
    # Standard error groups the warnings by check, in order of first appearance.
    by_check: dict[str, list[str]] = {}
    for index, item in enumerate(ITEMS):
        for check, evidence in FOUND[item.id]:
            by_check.setdefault(check, []).append(
                f"warning: {gold}:{index + 1}: item {index}: gold {check}: {evidence}"
            )
    warnings = [line for lines in by_check.values() for line in lines]
    assert first.stderr.splitlines()[:-1] == second.stderr.splitlines()[:-1] == warnings
