"""What a plain ``answerkey sql`` run on SQLite imports (issue 25): no Dask, no PostgreSQL or
DuckDB driver, no pydantic when it writes no report (the report models need it; importing it
costs about 0.1 s), and no sqlglot when no gold query holds the word ORDER (about 0.1 s too);
a gold with ORDER BY brings sqlglot in, for its sort keys."""

from __future__ import annotations

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


def test_a_gold_with_order_by_brings_sqlglot_in(suite):
    """A gold with an outer ORDER BY needs sqlglot, for its sort keys (answerkey's semantics)."""
    golds = [*GOLDS, "SELECT name FROM item ORDER BY qty"]
    assert _imported(suite, golds, [*PREDICTIONS, "SELECT name FROM item ORDER BY qty"]) == ["0", "sqlglot"]


def test_a_report_brings_pydantic_in(suite, tmp_path):
    """The JSON report is written from its pydantic model: asking for one imports pydantic."""
    imported = _imported(suite, GOLDS, PREDICTIONS, "--json", str(tmp_path / "report.json"))
    assert imported == ["0", "pydantic", "pydantic_core"]
    assert (tmp_path / "report.json").read_text().startswith('{\n  "signature": ')
