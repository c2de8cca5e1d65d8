"""Suspect golds (`answerkey sql --probe-gold`, answerkey.execution.probe): each check flags its
gold on a database the test builds, with the evidence; well-posed golds are not flagged; no
verdict changes (docs: Suspect golds)."""

import json
import sqlite3

import pytest

from answerkey.adapters.engines import open_engine
from answerkey.execution.load import SqlItem
from answerkey.execution.probe import probe_gold, static_checks, ties_query

# points: 10, 8, 8, 5: the 2nd and 3rd rows tie.
ROWS = [("a", 10), ("b", 8), ("c", 8), ("d", 5)]
SUSPECT = {
    "SELECT name FROM scores ORDER BY points DESC LIMIT 2": [
        ("limit-ties", "LIMIT 2 cuts through ties: rows 2 and 3 have the same ORDER BY key (8)")
    ],
    "SELECT name, points AS p FROM scores ORDER BY p DESC LIMIT 2": [
        ("limit-ties", "LIMIT 2 cuts through ties: rows 2 and 3 have the same ORDER BY key (8)")
    ],
    "SELECT name FROM scores ORDER BY random() LIMIT 1": [("nondeterministic", "changes between runs: RANDOM()")],
    "SELECT name FROM scores WHERE date('now') > '2000-01-01'": [
        ("nondeterministic", "changes between runs: DATE('now')")
    ],
    "SELECT name FROM scores LIMIT 1": [
        ("limit-without-order", "LIMIT 1 without ORDER BY"),
        (
            "storage-order",
            'with the tables read in reverse: 1 row only as stored (first: "a"), 1 row only in reverse (first: "d")',
        ),
    ],
    # A bare column beside an aggregate takes the value of whichever row SQLite reads first.
    "SELECT name, count(*) FROM scores": [
        (
            "storage-order",
            'with the tables read in reverse: 1 row only as stored (first: "a" 4), 1 row only in reverse (first: "d" 4)',
        )
    ],
    "SELECT group_concat(name) FROM scores": [
        (
            "storage-order",
            'with the tables read in reverse: 1 row only as stored (first: "a,b,c,d"), '
            '1 row only in reverse (first: "d,c,b,a")',
        )
    ],
    "SELECT (SELECT name FROM scores WHERE points = 8)": [
        (
            "storage-order",
            'with the tables read in reverse: 1 row only as stored (first: "b"), 1 row only in reverse (first: "c")',
        )
    ],
    "SELECT name FROM scores WHERE points > 100": [
        ("empty", "the gold returns no rows: any query that returns none matches it")
    ],
    "SELECT points FROM scores": [("duplicates", "1 row of 4 repeats an earlier one")],
}
WELL_POSED = [
    "SELECT name FROM scores ORDER BY points DESC LIMIT 1",
    "SELECT name FROM scores ORDER BY points DESC, name LIMIT 2",
    "SELECT name FROM scores ORDER BY 1 LIMIT 3",
    "SELECT count(*) FROM scores",
    "SELECT name FROM scores WHERE points = 8 ORDER BY name",
    "SELECT name FROM scores ORDER BY points DESC LIMIT 4",
    # Read in reverse, these return the same rows (in another order, which does not count).
    "SELECT name FROM scores WHERE points > 6",
    "SELECT points, count(*) FROM scores GROUP BY points",
    "SELECT max(points), name FROM scores",
]


@pytest.fixture
def root(tmp_path):
    """A Spider-layout root with one database, `league`: scores(name, points)."""
    directory = tmp_path / "database" / "league"
    directory.mkdir(parents=True)
    connection = sqlite3.connect(directory / "league.sqlite")
    connection.execute("CREATE TABLE scores (name TEXT, points INTEGER)")
    connection.executemany("INSERT INTO scores VALUES (?, ?)", ROWS)
    connection.commit()
    connection.close()
    return tmp_path / "database"


@pytest.mark.parametrize("gold", list(SUSPECT))
def test_each_suspect_gold_is_flagged_with_its_evidence(root, gold):
    """LIMIT through ties (ORDER BY a column or an alias), random(), date('now'), LIMIT
    without ORDER BY, an empty result, duplicate rows, a result that changes with the tables
    read in reverse: each flagged, with the evidence. The tie is not a storage-order finding
    (the pragma keeps the tied row ORDER BY ... LIMIT returns), nor is random()'s order."""
    engine = open_engine(str(root))
    try:
        assert probe_gold(engine, SqlItem("q", "league", gold)) == SUSPECT[gold]
    finally:
        engine.close()


@pytest.mark.parametrize("gold", WELL_POSED)
def test_well_posed_golds_are_not_flagged(root, gold):
    """A LIMIT past a tie, a tie broken by a second key, no LIMIT, a LIMIT as large as the
    result, unordered rows that are the same rows read in reverse, a bare column beside max():
    nothing."""
    engine = open_engine(str(root))
    try:
        assert probe_gold(engine, SqlItem("q", "league", gold)) == []
    finally:
        engine.close()


def test_ties_query_resolves_positions_and_aliases():
    """ORDER BY 2 and ORDER BY an alias become the projected expressions; OFFSET, `*` and a
    LIMIT that is not a number are left alone."""
    assert ties_query("SELECT a, b + 1 AS c FROM t ORDER BY 2, c LIMIT 5", "sqlite") == (
        "SELECT a, b + 1 AS c, b + 1 AS answerkey_probe_key_0, b + 1 AS answerkey_probe_key_1 FROM t ORDER BY 2, c LIMIT 6",
        5,
        2,
    )
    assert ties_query("SELECT a FROM t ORDER BY a LIMIT 5 OFFSET 2", "sqlite") is None
    assert ties_query("SELECT * FROM t ORDER BY a LIMIT 5", "sqlite") is None
    assert ties_query("SELECT a FROM t ORDER BY a LIMIT (SELECT 1)", "sqlite") is None
    assert static_checks("SELEC nonsense (((", "sqlite") == []


def test_sql_probe_gold_warns_and_counts_without_changing_verdicts(run_cli, root, tmp_path):
    """`sql --probe-gold`: a warning per suspect gold on standard error (FILE:LINE: item ID),
    the counts under the summary, the same warnings in the JSON report; the verdicts are those
    of a run without it."""
    # The random() gold's answer does not depend on random(), so the verdicts compared stay put.
    golds = [
        "SELECT name FROM scores ORDER BY points DESC LIMIT 2",
        "SELECT name FROM scores WHERE abs(random()) >= 0 ORDER BY name LIMIT 1",
    ]
    golds += WELL_POSED[:2]
    gold = tmp_path / "gold.sql"
    gold.write_text("".join(f"{sql}\tleague\n" for sql in golds))
    predictions = tmp_path / "pred.sql"
    predictions.write_text("SELECT name FROM scores ORDER BY points DESC LIMIT 2\nSELECT 'a'\nSELECT 'a'\nSELECT 'x'\n")
    plain = run_cli("sql", gold, predictions, "--db", root, "--json", tmp_path / "plain.json", "-q")
    result = run_cli("sql", gold, predictions, "--db", root, "--probe-gold", "--json", tmp_path / "probed.json")
    assert result.exit_code == plain.exit_code == 0
    assert result.stderr == (
        f"warning: {gold}:1: item 0: gold limit-ties: LIMIT 2 cuts through ties: rows 2 and 3 have the same ORDER BY key (8)\n"
        f"warning: {gold}:2: item 1: gold nondeterministic: changes between runs: RANDOM()\n"
    )
    assert result.stdout.endswith("gold warnings: 2 (limit-ties 1, nondeterministic 1)\n")
    probed = json.loads((tmp_path / "probed.json").read_text())
    unprobed = json.loads((tmp_path / "plain.json").read_text())
    assert [item["verdict"] for item in probed["items"]] == [item["verdict"] for item in unprobed["items"]]
    assert len(probed["warnings"]) == 2 and unprobed["warnings"] == []
    assert probed["signature"] == unprobed["signature"]
