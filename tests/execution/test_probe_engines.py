"""Suspect golds on each engine (docs: Suspect golds, "Which checks run where"): the same
league table as a SQLite file, a DuckDB file and a PostgreSQL database the tests build; the
checks every engine runs flag the same golds with the same evidence, each engine's own
nondeterministic functions are flagged, well-posed golds are not, and storage-order runs on
SQLite alone (said once per run elsewhere, never faked)."""

from __future__ import annotations

import json
import sqlite3

import duckdb
import pytest

from answerkey.adapters.engines import open_engine
from answerkey.execution.load import SqlItem
from answerkey.execution.probe import GoldProbe, static_checks, ties_query

LEAGUE = """
CREATE TABLE scores (name VARCHAR(10), points INTEGER);
INSERT INTO scores VALUES ('a', 10), ('b', 8), ('c', 8), ('d', 5);
"""
TIES = ("limit-ties", "LIMIT 2 cuts through ties: rows 2 and 3 have the same ORDER BY key (8)")
# Flagged alike on every engine.
EVERYWHERE = {
    "SELECT name FROM scores ORDER BY points DESC LIMIT 2": [TIES],
    "SELECT name, points AS p FROM scores ORDER BY p DESC LIMIT 2": [TIES],
    "SELECT name, points FROM scores ORDER BY 2 DESC LIMIT 2": [TIES],
    "SELECT name FROM scores ORDER BY random() LIMIT 1": [("nondeterministic", "changes between runs: RANDOM()")],
    "SELECT name FROM scores WHERE points > 100": [
        ("empty", "the gold returns no rows: any query that returns none matches it")
    ],
    "SELECT points FROM scores": [("duplicates", "1 row of 4 repeats an earlier one")],
    "SELECT name FROM scores WHERE CURRENT_TIMESTAMP IS NOT NULL ORDER BY name": [
        ("nondeterministic", "changes between runs: CURRENT_TIMESTAMP")
    ],
}
# What only one engine has (its own functions and syntax), and what only SQLite checks.
OWN = {
    "sqlite": {
        "SELECT name FROM scores LIMIT 1": [
            ("limit-without-order", "LIMIT 1 without ORDER BY"),
            (
                "storage-order",
                'with the tables read in reverse: 1 row only as stored (first: "a"), 1 row only in reverse (first: "d")',
            ),
        ],
        "SELECT hex(randomblob(4)) FROM scores ORDER BY name": [
            ("nondeterministic", "changes between runs: RANDOMBLOB(4)")
        ],
    },
    "duckdb": {
        # No storage-order check: the LIMIT is flagged by its text alone.
        "SELECT name FROM scores LIMIT 1": [("limit-without-order", "LIMIT 1 without ORDER BY")],
        "SELECT name, uuid() FROM scores ORDER BY name": [("nondeterministic", "changes between runs: UUID()")],
        "SELECT name, gen_random_uuid() FROM scores ORDER BY name": [
            ("nondeterministic", "changes between runs: UUID()")
        ],
        "SELECT name FROM scores WHERE now() > DATE '2000-01-01' ORDER BY name": [
            ("nondeterministic", "changes between runs: NOW()")
        ],
        "SELECT name FROM scores WHERE today() > DATE '2000-01-01' ORDER BY name": [
            ("nondeterministic", "changes between runs: CURRENT_DATE")
        ],
        "SELECT name FROM scores USING SAMPLE 100% (bernoulli) ORDER BY name": [
            ("nondeterministic", "changes between runs: TABLESAMPLE BERNOULLI (100 PERCENT)")
        ],
    },
    "postgresql": {
        "SELECT name FROM scores LIMIT 1": [("limit-without-order", "LIMIT 1 without ORDER BY")],
        "SELECT name FROM scores ORDER BY points DESC FETCH FIRST 2 ROWS ONLY": [TIES],
        "SELECT name FROM scores FETCH FIRST 1 ROWS ONLY": [
            ("limit-without-order", "FETCH FIRST 1 ROWS ONLY without ORDER BY")
        ],
        "SELECT name, gen_random_uuid() FROM scores ORDER BY name": [
            ("nondeterministic", "changes between runs: GEN_RANDOM_UUID()")
        ],
        "SELECT name FROM scores WHERE clock_timestamp() > '2000-01-01' ORDER BY name": [
            ("nondeterministic", "changes between runs: CLOCK_TIMESTAMP()")
        ],
        "SELECT name FROM scores WHERE now() > '2000-01-01' ORDER BY name": [
            ("nondeterministic", "changes between runs: CURRENT_TIMESTAMP")
        ],
        "SELECT name FROM scores WHERE 'now'::timestamp > '2000-01-01' ORDER BY name": [
            ("nondeterministic", "changes between runs: CAST('now' AS TIMESTAMP)")
        ],
        "SELECT name FROM scores TABLESAMPLE BERNOULLI (100) ORDER BY name": [
            ("nondeterministic", "changes between runs: TABLESAMPLE BERNOULLI (100)")
        ],
    },
}
WELL_POSED = {
    "everywhere": [
        "SELECT name FROM scores ORDER BY points DESC LIMIT 1",
        "SELECT name FROM scores ORDER BY points DESC, name LIMIT 2",
        "SELECT name FROM scores ORDER BY 1 LIMIT 3",
        "SELECT count(*) FROM scores",
        "SELECT name FROM scores WHERE points = 8 ORDER BY name",
        "SELECT name FROM scores ORDER BY points DESC LIMIT 4",
        "SELECT points, count(*) FROM scores GROUP BY points",
        "SELECT name FROM scores WHERE points > 6",
    ],
    "sqlite": [],
    "duckdb": ["SELECT name FROM scores USING SAMPLE 100% (bernoulli, 42) ORDER BY name"],
    "postgresql": [
        "SELECT name FROM scores ORDER BY points DESC FETCH FIRST 2 ROWS WITH TIES",
        "SELECT name FROM scores TABLESAMPLE BERNOULLI (100) REPEATABLE (7) ORDER BY name",
        "SELECT name FROM scores WHERE DATE '2020-01-01' > '2000-01-01' ORDER BY name",
    ],
}
ENGINES = ["sqlite", "duckdb", "postgresql"]


def _league_directory(tmp_path, name: str):
    """A Spider-layout root holding `league` as a SQLite or a DuckDB file."""
    root = tmp_path / name
    (root / "league").mkdir(parents=True)
    if name == "sqlite":
        with sqlite3.connect(root / "league" / "league.sqlite") as db:
            db.executescript(LEAGUE)
        db.close()
    else:
        db = duckdb.connect(str(root / "league" / "league.duckdb"))
        db.execute(LEAGUE)
        db.close()
    return str(root)


@pytest.fixture(scope="module")
def league_server(postgres_server):
    """The session's PostgreSQL server with the database `league`."""
    postgres_server.create_database("league", LEAGUE)
    return postgres_server


def _location(request, tmp_path, name: str) -> str:
    """Where `league` lives on the engine ``name``: a SQLite file, a DuckDB file, a PostgreSQL server."""
    if name == "postgresql":
        return request.getfixturevalue("league_server").url("")
    return _league_directory(tmp_path, name)


@pytest.fixture(params=ENGINES)
def location(request, tmp_path):
    """Where `league` lives, on each engine in turn."""
    return _location(request, tmp_path, request.param)


@pytest.fixture
def engine(location):
    """The engine of ``location``, closed after the test."""
    opened = open_engine(location)
    yield opened
    opened.close()


def _cases(table):
    return [pytest.param(gold, id=gold) for gold in table]


@pytest.mark.parametrize("gold", _cases(EVERYWHERE))
def test_checks_every_engine_runs_flag_the_same_golds(engine, gold):
    """LIMIT through ties (by a column, an alias, a position), random(), CURRENT_TIMESTAMP, an
    empty result, duplicate rows: the same findings and evidence on SQLite, DuckDB and PostgreSQL."""
    assert GoldProbe(engine).checks(SqlItem("q", "league", gold)) == EVERYWHERE[gold]


@pytest.mark.parametrize(
    ("name", "gold"), [pytest.param(name, gold, id=f"{name}:{gold}") for name in ENGINES for gold in OWN[name]]
)
def test_each_engines_own_functions_and_syntax_are_probed(request, tmp_path, name, gold):
    """SQLite's randomblob() and storage order; DuckDB's uuid(), gen_random_uuid(), now(),
    today(), USING SAMPLE; PostgreSQL's gen_random_uuid(), clock_timestamp(), now(),
    'now'::timestamp, TABLESAMPLE, FETCH FIRST: each gold runs on its engine (so it is valid
    there) and is flagged; off SQLite a LIMIT without ORDER BY is flagged by its text alone."""
    engine = open_engine(_location(request, tmp_path, name))
    try:
        assert engine.run(engine.databases("league")[0], gold).error is None
        assert GoldProbe(engine).checks(SqlItem("q", "league", gold)) == OWN[name][gold]
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("name", "gold"),
    [pytest.param(name, gold, id=f"{name}:{gold}") for name in ENGINES for gold in WELL_POSED["everywhere"]]
    + [pytest.param(name, gold, id=f"{name}:{gold}") for name in ENGINES for gold in WELL_POSED[name]],
)
def test_well_posed_golds_are_not_flagged_on_any_engine(request, tmp_path, name, gold):
    """A LIMIT past a tie, a tie broken by a second key, no LIMIT, a LIMIT as large as the
    result, a seeded sample, FETCH ... WITH TIES, a date literal: nothing, on each engine."""
    engine = open_engine(_location(request, tmp_path, name))
    try:
        assert engine.run(engine.databases("league")[0], gold).error is None
        assert GoldProbe(engine).checks(SqlItem("q", "league", gold)) == []
    finally:
        engine.close()


def test_storage_order_is_said_unchecked_off_sqlite(engine):
    """SQLite runs every check; DuckDB and PostgreSQL name storage-order as not checked, and why."""
    why = "it has no setting that reads the tables in reverse, as SQLite's PRAGMA reverse_unordered_selects does"
    expected = [] if engine.name == "sqlite" else [f"storage-order is not checked on {engine.name}: {why}"]
    assert GoldProbe(engine).unchecked == expected


def test_static_checks_read_each_dialect():
    """The clock words are PostgreSQL's alone ('now' is a plain string to DuckDB and SQLite);
    FETCH FIRST WITH TIES is never a ties query; a seeded sample changes nothing."""
    now = "SELECT 'now'::timestamp"
    assert static_checks(now, "postgres") == [("nondeterministic", "changes between runs: CAST('now' AS TIMESTAMP)")]
    assert static_checks(now, "duckdb") == []
    assert ties_query("SELECT a FROM t ORDER BY a FETCH FIRST 2 ROWS WITH TIES", "postgres") is None
    assert ties_query("SELECT a FROM t ORDER BY a FETCH FIRST 2 ROWS ONLY", "postgres") == (
        "SELECT a, a AS answerkey_probe_key_0 FROM t ORDER BY a LIMIT 3",
        2,
        1,
    )
    assert static_checks("SELECT a FROM t USING SAMPLE 10% (bernoulli, 42)", "duckdb") == []


@pytest.mark.parametrize("engine", ENGINES)
def test_sql_probe_gold_on_each_engine(request, run_cli, tmp_path, engine):
    """`answerkey sql --probe-gold` on each engine flags the LIMIT-through-ties gold and the
    random() gold and nothing on the well-posed ones; off SQLite one warning says
    storage-order is not checked; verdicts are those of a run without it."""
    golds = [
        "SELECT name FROM scores ORDER BY points DESC LIMIT 2",
        "SELECT name FROM scores WHERE random() IS NOT NULL ORDER BY name LIMIT 1",
        *WELL_POSED["everywhere"][:3],
    ]
    location = _location(request, tmp_path, engine)
    gold = tmp_path / "gold.sql"
    gold.write_text("".join(f"{sql}\tleague\n" for sql in golds))
    predictions = tmp_path / "pred.sql"
    predictions.write_text("SELECT 'a'\nSELECT 'a'\nSELECT 'a'\nSELECT 'a'\nSELECT 'b'\n")
    plain = run_cli("sql", gold, predictions, "--db", location, "--json", tmp_path / "plain.json", "-q")
    result = run_cli("sql", gold, predictions, "--db", location, "--probe-gold", "--json", tmp_path / "probed.json")
    assert result.exit_code == plain.exit_code == 0, result.output
    unchecked = (
        []
        if engine == "sqlite"
        else [
            f"warning: --probe-gold: storage-order is not checked on {engine}: it has no setting that reads the "
            "tables in reverse, as SQLite's PRAGMA reverse_unordered_selects does\n"
        ]
    )
    assert result.stderr == "".join(
        [
            f"warning: {gold}:1: item 0: gold limit-ties: LIMIT 2 cuts through ties: rows 2 and 3 have the same "
            "ORDER BY key (8)\n",
            f"warning: {gold}:2: item 1: gold nondeterministic: changes between runs: RANDOM()\n",
            *unchecked,
        ]
    )
    assert result.stdout.endswith("gold warnings: 2 (limit-ties 1, nondeterministic 1)\n")
    probed = json.loads((tmp_path / "probed.json").read_text())
    unprobed = json.loads((tmp_path / "plain.json").read_text())
    assert [item["verdict"] for item in probed["items"]] == [item["verdict"] for item in unprobed["items"]]
    assert ["warning: " + warning + "\n" for warning in probed["warnings"]] == result.stderr.splitlines(keepends=True)
    assert unprobed["warnings"] == []


def test_untrusted_gold_text_is_read_within_bounds():
    """A gold longer than the parser is given, or nested past Python's recursion limit, gets
    no check that reads the query, and no exception."""
    long_gold = "SELECT random() FROM t WHERE a IN (" + ", ".join(["1"] * 10_000) + ") LIMIT 1"
    assert static_checks(long_gold, "sqlite") == []
    assert ties_query(long_gold.replace("LIMIT", "ORDER BY a LIMIT"), "sqlite") is None
    deep = "SELECT " + "(" * 2_000 + "random()" + ")" * 2_000 + " LIMIT 1"
    assert static_checks(deep, "postgres") == []


def test_no_engine_but_sqlite_is_asked_to_read_in_reverse(engine):
    """A reversed run off SQLite is refused, never run as a plain one under another name."""
    database = engine.databases("league")[0]
    probe = GoldProbe(engine)
    if engine.name == "sqlite":
        assert probe.result(database, "SELECT name FROM scores LIMIT 1", reverse=True).rows[0][0].text == "d"
    else:
        with pytest.raises(ValueError, match=f"^{engine.name} has no setting that reads the tables in reverse$"):
            probe.result(database, "SELECT name FROM scores LIMIT 1", reverse=True)
        assert probe.executed == 0
