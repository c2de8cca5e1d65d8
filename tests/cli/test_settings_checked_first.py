"""A bad setting is one line before anything runs (issue 27, item 2): the databases, their
driver and their server are checked once for `sql` and `qatch --task sp`, not once per item."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SPIDER = EXAMPLES / "sql" / "spider"


def sql(*options):
    return ("sql", SPIDER / "gold.sql", SPIDER / "pred.sql", *options)


def test_db_one_level_too_high_is_one_line_naming_the_right_one(run_cli):
    """--db the folder above the databases: one line (not one per item) with the folder meant."""
    result = run_cli(*sql("--db", SPIDER))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"--db {SPIDER}: none of the 2 db_ids has a database: no database 'concert_singer' "
        f"(expected '{SPIDER}/concert_singer/concert_singer.sqlite' or '{SPIDER}/concert_singer.sqlite'); "
        f"did you mean --db {SPIDER / 'database'}?\n"
    )


def test_db_one_level_too_low_is_one_line_naming_the_right_one(run_cli):
    """--db a database's own folder: one line naming the folder above it."""
    low = SPIDER / "database" / "concert_singer"
    result = run_cli(*sql("--db", low))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.endswith(f"; did you mean --db {SPIDER / 'database'}?\n")


def test_db_the_folder_of_the_only_database_is_refused(run_cli, tmp_path):
    """--db the own folder of the run's only db_id: refused, though the flat rule would find
    its file there (the run would read that one file, not the test suite beside it)."""
    folder = tmp_path / "database" / "concert_singer"
    folder.mkdir(parents=True)
    for name in ("concert_singer.sqlite", "concert_singer2.sqlite"):
        (folder / name).write_bytes((SPIDER / "database" / "concert_singer" / "concert_singer.sqlite").read_bytes())
    gold = tmp_path / "gold.sql"
    gold.write_text("SELECT count(*) FROM singer\tconcert_singer\n")
    result = run_cli("sql", gold, gold, "--db", folder)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"--db {folder}: this is the folder of the database 'concert_singer', not the folder of the "
        f"databases; did you mean --db {tmp_path / 'database'}?\n"
    )
    assert run_cli("sql", gold, gold, "--db", folder.parent, "-q").exit_code == 0


def test_qatch_db_one_level_too_high_is_one_line(run_cli):
    """qatch --task sp with --db the examples folder: one line, the databases folder named."""
    qatch = EXAMPLES / "qatch"
    result = run_cli("qatch", qatch / "sp-tests.jsonl", "--task", "sp", "--db", qatch)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"--db {qatch}: no database 'uk' (expected '{qatch}/uk/uk.sqlite' or '{qatch}/uk.sqlite'); "
        f"did you mean --db {qatch / 'databases'}?\n"
    )


def test_some_databases_missing_is_still_one_error_per_item(run_cli, tmp_path):
    """One db_id with a database and one without: the run goes on and lists the item (exit 2)."""
    (tmp_path / "gold.sql").write_text("SELECT 1\tconcert_singer\nSELECT 1\tnowhere\n")
    (tmp_path / "pred.sql").write_text("SELECT 1\nSELECT 1\n")
    result = run_cli("sql", tmp_path / "gold.sql", tmp_path / "pred.sql", "--db", SPIDER / "database", "-q")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "1 item could not be evaluated (errors of the test, listed above)"


def test_unreachable_postgresql_is_one_line(run_cli):
    """A server that refuses the connection: one line, exit 2, nothing run."""
    pytest.importorskip("psycopg")
    result = run_cli(*sql("--db", "postgresql://nouser@127.0.0.1:1/"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(
        "--db postgresql://nouser@127.0.0.1:1/: cannot connect to the database 'concert_singer': "
    )


def test_missing_psycopg_is_one_line(run_cli, monkeypatch):
    """psycopg not installed: one line saying how to install it."""
    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` raises ImportError
    result = run_cli(*sql("--db", "postgresql://nouser@127.0.0.1:1/"))
    assert (result.exit_code, result.stderr) == (
        2,
        "--db postgresql://nouser@127.0.0.1:1/: psycopg is not installed (pip install 'answerkey[postgresql]')\n",
    )


def test_missing_duckdb_is_one_line(run_cli, monkeypatch, tmp_path):
    """DuckDB files without the duckdb package: one line, not "the gold query failed" per item."""
    duckdb = pytest.importorskip("duckdb")
    (tmp_path / "shop").mkdir()
    duckdb.connect(str(tmp_path / "shop" / "shop.duckdb")).close()
    (tmp_path / "gold.sql").write_text("SELECT 1\tshop\n")
    (tmp_path / "pred.sql").write_text("SELECT 1\n")
    monkeypatch.setitem(sys.modules, "duckdb", None)
    result = run_cli("sql", tmp_path / "gold.sql", tmp_path / "pred.sql", "--db", tmp_path)
    assert (result.exit_code, result.stderr) == (
        2,
        f"--db {tmp_path}: DuckDB is not installed (pip install 'answerkey[duckdb]')\n",
    )


SWAPPED = "reads as a gold file: GOLD and PREDICTIONS may be swapped (GOLD comes first)"


def test_swapped_spider_files_are_one_line_with_a_hint(run_cli):
    """PREDICTIONS given first (Spider): one line saying the files may be swapped, not one per line."""
    result = run_cli("sql", SPIDER / "pred.sql", SPIDER / "gold.sql", "--db", SPIDER / "database")
    assert (result.exit_code, result.stderr) == (
        2,
        f"{SPIDER / 'pred.sql'}:1:1: no line is SQL<TAB>db_id, as a Spider gold's lines are (--layout names "
        f"another layout); {SPIDER / 'gold.sql'} {SWAPPED}\n",
    )


def test_swapped_bird_files_are_one_line_with_a_hint(run_cli):
    """PREDICTIONS given first (BIRD): the hint after the first problem."""
    bird = EXAMPLES / "sql" / "bird"
    result = run_cli("sql", bird / "predict_dev.json", bird / "dev.json", "--db", bird / "dev_databases")
    assert (result.exit_code, result.stderr) == (
        2,
        f"{bird / 'predict_dev.json'}:1:1: a corpus is a list of items, not a mapping; {bird / 'dev.json'} {SWAPPED}\n",
    )


def test_swapped_corpus_files_are_one_line_with_a_hint(run_cli, tmp_path):
    """PREDICTIONS given first (answerkey's corpus): one line, not one "db_id: missing" per record."""
    corpus, predictions = tmp_path / "c.jsonl", tmp_path / "p.jsonl"
    corpus.write_text("".join(f'{{"id": "{n}", "db_id": "concert_singer", "sql": "SELECT {n}"}}\n' for n in range(3)))
    predictions.write_text("".join(f'{{"id": "{n}", "sql": "SELECT {n}"}}\n' for n in range(3)))
    result = run_cli("sql", predictions, corpus, "--db", SPIDER / "database")
    assert (result.exit_code, result.stderr) == (
        2,
        f"{predictions}:1:1: db_id: missing; this field is required; {corpus} {SWAPPED}\n",
    )


def test_a_bad_gold_without_a_swap_keeps_its_errors(run_cli, tmp_path):
    """The same bad corpus twice: its own errors, every one, no swap hint."""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a", "db_id": "concert_singer", "sql": 5}\n')
    result = run_cli("sql", corpus, corpus, "--db", SPIDER / "database")
    assert result.exit_code == 2
    assert "swapped" not in result.stderr
    assert result.stderr.splitlines()[0] == f"{corpus}:1:40: sql: should be a string, not an integer"


def test_a_gold_without_tabs_is_one_line(run_cli, tmp_path):
    """A gold file of bare SQL (and predictions alike): one line naming --layout."""
    (tmp_path / "q.sql").write_text("SELECT 1\nSELECT 2\n")
    result = run_cli("sql", tmp_path / "q.sql", tmp_path / "q.sql", "--db", SPIDER / "database")
    assert (result.exit_code, result.stderr) == (
        2,
        f"{tmp_path / 'q.sql'}:1:1: no line is SQL<TAB>db_id, as a Spider gold's lines are (--layout names another layout)\n",
    )


def test_only_the_chosen_items_databases_are_checked(run_cli, tmp_path):
    """--ids an item whose database exists: runs, though another item's database is missing."""
    items = [
        {"id": "a", "db_id": "concert_singer", "sql": "SELECT 1"},
        {"id": "b", "db_id": "nowhere", "sql": "SELECT 1"},
    ]
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(item) + "\n" for item in items))
    (tmp_path / "p.jsonl").write_text('{"id": "a", "sql": "SELECT 1"}\n{"id": "b", "sql": "SELECT 1"}\n')
    args = ("sql", tmp_path / "c.jsonl", tmp_path / "p.jsonl", "--db", SPIDER / "database", "-q")
    assert run_cli(*args, "--ids", "a").exit_code == 0
    result = run_cli(*args, "--ids", "b")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"--db {SPIDER / 'database'}: no database 'nowhere' (expected ")
