"""`answerkey sql GOLD_DIR PRED_DIR` on a Spider 2.0-lite-shaped folder: SQL predictions run on
the local SQLite database, result files compared as they are, the others not evaluable here.
The spider2 verdicts are those of Spider 2.0's evaluate.py at e12c5f1e on the same files (run
while writing this test: 1 for local001, local002 and bq003)."""

from __future__ import annotations

import json
import sqlite3

import pytest


@pytest.fixture
def lite(tmp_path):
    """gold/ (spider2lite_eval.jsonl, exec_result/, spider2-lite.jsonl), pred/ and dbs/shop."""
    (tmp_path / "dbs" / "shop").mkdir(parents=True)
    with sqlite3.connect(tmp_path / "dbs" / "shop" / "shop.sqlite") as connection:
        connection.executescript(
            "CREATE TABLE item (name TEXT, qty INT); INSERT INTO item VALUES ('pen', 5), ('ink', NULL);"
        )
    connection.close()
    gold, pred = tmp_path / "gold", tmp_path / "pred"
    (gold / "exec_result").mkdir(parents=True)
    pred.mkdir()
    files = {
        gold / "exec_result" / "local001.csv": "name,qty\npen,5\nink,\n",
        gold / "exec_result" / "local002_a.csv": "n\n2\n",
        gold / "exec_result" / "local002_b.csv": "qty\n5\n0\n",
        gold / "exec_result" / "bq003.csv": "n\n7\n",
        gold / "exec_result" / "bq004.csv": "n\n1\n",
        gold / "spider2lite_eval.jsonl": "".join(
            json.dumps({"instance_id": name, "condition_cols": columns, "ignore_order": ignore}) + "\n"
            for name, columns, ignore in [
                ("local001", [], True),
                ("local002", [], False),
                ("bq003", [0], False),
                ("bq004", [], False),
            ]
        ),
        gold
        / "spider2-lite.jsonl": '{"instance_id": "local001", "db": "shop"}\n{"instance_id": "local002", "db": "shop"}\n',
        pred / "local001.sql": "```sql\nSELECT name, qty FROM item ORDER BY name\n```\n",
        pred / "local002.sql": "SELECT qty FROM item",
        pred / "bq003.csv": "x,n\na,7.004\n",
        pred / "bq004.sql": "SELECT 1",
    }
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_spider2_on_both_kinds_of_prediction(run_cli, lite):
    """Detected from the folder: SQL and result predictions decided as evaluate.py decides
    them, the second gold named, the BigQuery SQL prediction one warning line."""
    result = run_cli(
        "sql", lite / "gold", lite / "pred", "--db", lite / "dbs", "--semantics", "spider2", "--metrics", "none",
        "--json", lite / "report.json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == [
        "group  items  evaluated  correct  incorrect  errors  answerkey  test-suite    bird  spider2*",
        "all        3          3        3          0       0     0.3333      0.3333  0.3333    1.0000",
    ]
    assert result.stderr == (
        f"warning: {lite / 'pred' / 'bq004.sql'}: not evaluable here: its database is not SQLite (BigQuery or "
        "Snowflake): export its result as bq004.csv to evaluate it here\n"
    )
    report = json.loads((lite / "report.json").read_text(encoding="utf-8"))
    assert report["layout"] == "spider2-lite"
    assert [(item["id"], item["db_id"], item["verdict"], item["gold_matched"]) for item in report["items"]] == [
        ("local001", "shop", "correct", None),
        ("local002", "shop", "correct", 2),
        ("bq003", "", "correct", None),
    ]
    assert report["items"][1]["reason"] == (
        "gold 2 of 2: each gold column equals a predicted column, in row order, numbers within 0.01"
    )


def test_the_headline_default_and_an_explicit_layout(run_cli, lite):
    """Under answerkey (the default) NULL is not 0 nor 7.004 exactly 7: local002 and bq003 differ."""
    result = run_cli(
        "sql", lite / "gold", lite / "pred", "--db", lite / "dbs", "--layout", "spider2-lite", "--metrics", "none",
        "--json", lite / "report.json", "-q",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((lite / "report.json").read_text(encoding="utf-8"))
    assert [(item["id"], item["verdict"]) for item in report["items"]] == [
        ("local001", "correct"),
        ("local002", "incorrect"),
        ("bq003", "incorrect"),
    ]


def test_a_bad_gold_file_is_one_located_line_and_exit_2(run_cli, lite):
    """An unreadable gold result: FILE:LINE:COL: message, exit 2, no traceback, nothing run."""
    (lite / "gold" / "exec_result" / "local001.csv").write_text('name,qty\n"pen,5\n', encoding="utf-8")
    result = run_cli("sql", lite / "gold", lite / "pred", "--db", lite / "dbs")
    assert result.exit_code == 2
    assert (
        result.stderr == f"{lite / 'gold' / 'exec_result' / 'local001.csv'}:2:1: invalid CSV: unexpected end of data\n"
    )


def test_result_files_alone_need_no_database(run_cli, lite):
    """Without --db: result predictions are evaluated; an SQL one asks for --db (exit 2, one line)."""
    only = lite / "only"
    only.mkdir()
    (only / "bq003.csv").write_text("x,n\na,7.004\n", encoding="utf-8")
    result = run_cli("sql", lite / "gold", only, "--semantics", "spider2", "--metrics", "none", "--json", "-")
    assert result.exit_code == 0, result.output
    assert [(item["id"], item["verdict"]) for item in json.loads(result.stdout)["items"]] == [("bq003", "correct")]
    assert result.stderr == (
        f"warning: 3 items of spider2lite_eval.jsonl have no prediction in {only}: left out, as evaluate.py leaves "
        "them out (its 'Real score' counts each as 0), e.g. 'local001'\n"
    )
    result = run_cli("sql", lite / "gold", lite / "pred")
    assert result.exit_code == 2
    assert result.stderr == "--db DIR|URL is needed: item local001 runs SQL on its database 'shop'\n"


def test_flat_databases_as_spider2_lite_ships_them(run_cli, lite):
    """--db a folder of flat <db>.sqlite files (evaluate.py line 267 at e12c5f1e): the same
    verdicts as with the folder per database; a db absent from both places names both."""
    flat = lite / "localdb"
    flat.mkdir()
    (lite / "dbs" / "shop" / "shop.sqlite").rename(flat / "shop.sqlite")
    result = run_cli(
        "sql", lite / "gold", lite / "pred", "--db", flat, "--semantics", "spider2", "--metrics", "none",
        "--json", lite / "report.json", "-q",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((lite / "report.json").read_text(encoding="utf-8"))
    assert [(item["id"], item["db_id"], item["verdict"]) for item in report["items"]] == [
        ("local001", "shop", "correct"),
        ("local002", "shop", "correct"),
        ("bq003", "", "correct"),
    ]
    (flat / "shop.sqlite").rename(lite / "shop.sqlite")
    result = run_cli("sql", lite / "gold", lite / "pred", "--db", flat, "--semantics", "spider2", "--metrics", "none")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"--db {flat}: no database 'shop' (expected '{flat / 'shop' / 'shop.sqlite'}' or '{flat / 'shop.sqlite'}')\n"
    )
