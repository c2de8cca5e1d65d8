"""What a plain ``answerkey sql`` run on SQLite imports (issue 25): no Dask, no PostgreSQL or
DuckDB driver, no pydantic when it writes no report (the report models need it; importing it
costs about 0.1 s), and no sqlglot (about 0.1 s too): a gold's outer ORDER BY is read in the
SQLite helper process that runs it; a run through the cache reads it here."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

PROBE = """
import sys
from answerkey.cli import main
sys.argv = ["answerkey", "sql", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    status = exit.code
watched = ("sqlglot", "dask", "distributed", "psycopg", "duckdb", "pydantic", "pydantic_core")
print("probe:", status, *sorted(name for name in watched if name in sys.modules))
"""


@pytest.fixture
def suite(tmp_path):
    """A Spider-layout suite of one database: the directory and its database root."""
    database = tmp_path / "database" / "shop" / "shop.sqlite"
    database.parent.mkdir(parents=True)
    with sqlite3.connect(database) as connection:
        connection.executescript(
            "CREATE TABLE item (name TEXT, qty INTEGER); INSERT INTO item VALUES ('pen', 10), ('ink', 4), ('cap', 7);"
        )
    connection.close()
    return tmp_path


def _imported(suite, golds: list[str], predictions: list[str], *options: str) -> list[str]:
    (suite / "gold.sql").write_text("".join(f"{sql}\tshop\n" for sql in golds))
    (suite / "pred.sql").write_text("".join(f"{sql}\n" for sql in predictions))
    arguments = [str(suite / "gold.sql"), str(suite / "pred.sql"), "--db", str(suite / "database"), "--quiet"]
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *arguments, *options], capture_output=True, text=True, check=True
    )
    probe = [line for line in result.stdout.splitlines() if line.startswith("probe:")]
    return probe[-1].split()[1:]


GOLDS = ["SELECT name FROM item WHERE qty > 5", "SELECT count(*) FROM item", "SELECT max(qty) FROM item"]
PREDICTIONS = ["SELECT name FROM item WHERE 5 < qty", "SELECT COUNT(name) FROM item", "SELECT min(qty) FROM item"]


@pytest.mark.parametrize("options", [(), ("--semantics", "test-suite", "--metrics", "none")])
def test_a_run_whose_golds_have_no_order_imports_no_sqlglot(suite, options):
    """Four semantics and the default metrics (or the headline test-suite alone, no metrics)
    on golds without the word ORDER, no report written: sqlglot, Dask, the other engines'
    drivers and pydantic stay unloaded."""
    assert _imported(suite, GOLDS, PREDICTIONS, *options) == ["0"]


def test_a_report_brings_pydantic_in(suite, tmp_path):
    """The JSON report is written from its pydantic model: asking for one imports pydantic."""
    imported = _imported(suite, GOLDS, PREDICTIONS, "--json", str(tmp_path / "report.json"))
    assert imported == ["0", "pydantic", "pydantic_core"]
    assert (tmp_path / "report.json").read_text().startswith('{\n  "signature": ')


ORDERED = [*GOLDS, "SELECT name FROM item ORDER BY qty", "SELECT name, qty AS n FROM item ORDER BY n DESC"]
ORDERED_PREDICTIONS = [
    *PREDICTIONS,
    "SELECT name FROM item ORDER BY qty DESC",
    "SELECT qty, name FROM item ORDER BY 1 DESC",
]


@pytest.mark.parametrize("options", [(), ("--semantics", "test-suite", "--metrics", "none")])
def test_the_golds_order_by_is_read_in_the_sqlite_helper_not_here(suite, options):
    """Golds with an outer ORDER BY: the SQLite helper reads it (sqlglot imported there, as it
    starts), so this process never imports sqlglot; the verdicts are those of the reading
    here (a run through the cache, whose results come without it)."""
    report = suite / "report.json"
    report_models = ["pydantic", "pydantic_core"]  # the JSON report is written from them
    assert _imported(suite, ORDERED, ORDERED_PREDICTIONS, *options, "--json", str(report)) == ["0", *report_models]
    verdicts = [item["verdicts"] for item in json.loads(report.read_text())["items"]]
    assert [each["answerkey"] for each in verdicts] == ["correct", "correct", "incorrect", "incorrect", "correct"]
    cached = suite / "cached.json"
    arguments = (*options, "--json", str(cached), "--cache", str(suite / "cache"))
    assert _imported(suite, ORDERED, ORDERED_PREDICTIONS, *arguments) == ["0", *report_models, "sqlglot"]
    assert [item["verdicts"] for item in json.loads(cached.read_text())["items"]] == verdicts
    items = [json.loads(path.read_text())["items"] for path in (report, cached)]
    assert [item["metrics"] for item in items[0]] == [item["metrics"] for item in items[1]]
    if not options:  # tuple_order needs the gold's order: None for the three unordered golds
        assert [item["metrics"]["tuple_order"] is None for item in items[0]] == [True, True, True, False, False]
