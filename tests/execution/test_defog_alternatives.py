"""defog sql-eval's {a,b} alternatives in a gold: the golds it makes, against its
get_all_minimal_queries (tests/fixtures/defog_alternatives.json), and `answerkey sql
--defog-alternatives` deciding an item correct when the prediction matches one."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from answerkey.execution._alternatives import defog_alternatives, expanded_golds

CASES = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "defog_alternatives.json").read_text(encoding="utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_the_golds_are_defogs(case):
    """The same golds in the same order as the official function."""
    assert defog_alternatives(case["gold"]) == case["golds"]


def test_group_by_follows_and_pieces_keep_their_spaces():
    """GROUP BY {} takes the chosen columns; ' b' keeps its space; only the first braces are read."""
    assert defog_alternatives("SELECT {a, b} FROM t GROUP BY {}") == [
        "SELECT a FROM t GROUP BY a",
        "SELECT  b FROM t GROUP BY  b",
        "SELECT a,  b FROM t GROUP BY a,  b",
    ]
    assert defog_alternatives("SELECT {a} FROM {t}") == ["SELECT a FROM {t}"]


def test_too_many_golds_are_refused():
    """Seven alternatives make 127 golds, more than 100."""
    with pytest.raises(ValueError, match="more than 100 golds"):
        defog_alternatives("SELECT {a,b,c,d,e,f,g} FROM t")
    assert expanded_golds(("SELECT {a,b} FROM t", ";")) == (
        "SELECT a FROM t",
        "SELECT b FROM t",
        "SELECT a, b FROM t",
        ";",
    )


def test_the_run_reads_the_alternatives(run_cli, tmp_path):
    """With --defog-alternatives a prediction matching one alternative is correct, gold_matched
    says which, and the signature says golds:defog; without it the gold fails to run, and the
    item is incorrect under bird, as BIRD's script scores it."""
    (tmp_path / "db" / "shop").mkdir(parents=True)
    with sqlite3.connect(tmp_path / "db" / "shop" / "shop.sqlite") as connection:
        connection.executescript(
            "CREATE TABLE item (id INT, name TEXT); INSERT INTO item VALUES (1, 'pen'), (2, 'ink');"
        )
    connection.close()
    (tmp_path / "gold.jsonl").write_text(
        '{"id": "a", "db_id": "shop", "sql": "SELECT {id,name} FROM item"}\n', encoding="utf-8"
    )
    (tmp_path / "pred.jsonl").write_text('{"id": "a", "sql": "SELECT name FROM item"}\n', encoding="utf-8")
    arguments = [
        "sql",
        tmp_path / "gold.jsonl",
        tmp_path / "pred.jsonl",
        "--db",
        tmp_path / "db",
        "--semantics",
        "bird",
    ]
    result = run_cli(*arguments, "--defog-alternatives", "--json", tmp_path / "with.json")
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "with.json").read_text(encoding="utf-8"))
    item = document["items"][0]
    assert (item["verdict"], item["gold_matched"], item["reason"]) == (
        "correct",
        2,
        "gold 2 of 3: same set of rows (the prediction is the gold's text: not run, the gold's result is its result)",
    )
    assert "|golds:defog|" in document["signature"]
    # Without it the gold fails; BIRD's script scores such an item 0 and counts it (issue 26, D7).
    result = run_cli(*arguments, "--json", tmp_path / "without.json")
    assert result.exit_code == 0, result.output
    item = json.loads((tmp_path / "without.json").read_text(encoding="utf-8"))["items"][0]
    assert (item["verdict"], item["reason"]) == (
        "incorrect",
        'the gold query failed: unrecognized token: "{" '
        "(BIRD's script scores an item whose gold query fails 0 and counts it)",
    )
