"""Several golds per item (an answerkey corpus's ``sql`` list): correct when the prediction
matches any gold, under each semantics; the report says which gold (``gold_matched``)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from answerkey import limits
from answerkey.execution import schema
from answerkey.execution.load import InputErrors, load_inputs
from answerkey.execution.run import SqlOptions, run_sql


@pytest.fixture
def files(tmp_path):
    """A database and a corpus whose items have one, two or three golds, with predictions."""
    (tmp_path / "db" / "shop").mkdir(parents=True)
    with sqlite3.connect(tmp_path / "db" / "shop" / "shop.sqlite") as connection:
        connection.executescript(
            "CREATE TABLE item (name TEXT, qty INT, price REAL);"
            "INSERT INTO item VALUES ('pen', 5, 1.5), ('ink', 2, 3.0), ('pad', 7, 2.0);"
        )
    connection.close()
    corpus = [
        {"id": "one", "db_id": "shop", "sql": "SELECT name FROM item WHERE qty > 3"},
        {"id": "second", "db_id": "shop", "sql": ["SELECT price FROM item", "SELECT name, qty FROM item"]},
        {"id": "first", "db_id": "shop", "sql": ["SELECT count(*) FROM item", "SELECT 0"]},
        {"id": "none", "db_id": "shop", "sql": ["SELECT 1", "SELECT 2", "SELECT 3"]},
        {"id": "fails", "db_id": "shop", "sql": ["SELECT 1", "SELECT x FROM nope"]},
    ]
    predictions = [
        {"id": "one", "sql": "SELECT name FROM item WHERE qty > 3"},
        {"id": "second", "sql": "SELECT qty, name FROM item"},
        {"id": "first", "sql": "SELECT 3"},
        {"id": "none", "sql": "SELECT 4"},
        {"id": "fails", "sql": "SELECT 5"},
    ]
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps(item) + "\n" for item in corpus), encoding="utf-8")
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(item) + "\n" for item in predictions), encoding="utf-8")
    return tmp_path


def test_the_corpus_reads_a_list_of_golds(files):
    """The first gold is ``gold``, the others ``other_golds``; one gold has none."""
    items = load_inputs(files / "gold.jsonl", files / "pred.jsonl").items
    assert (items[0].gold, items[0].other_golds) == ("SELECT name FROM item WHERE qty > 3", ())
    assert (items[1].gold, items[1].other_golds) == ("SELECT price FROM item", ("SELECT name, qty FROM item",))


def test_a_bad_list_of_golds_is_one_located_error(tmp_path):
    """Not text nor a list, an empty list, an empty gold in it, an empty text: one error each."""
    (tmp_path / "gold.jsonl").write_text(
        '{"id": "a", "db_id": "shop", "sql": 5}\n{"id": "b", "db_id": "shop", "sql": []}\n'
        '{"id": "c", "db_id": "shop", "sql": ["x", ""]}\n{"id": "d", "db_id": "shop", "sql": ""}\n',
        encoding="utf-8",
    )
    (tmp_path / "pred.jsonl").write_text('{"id": "a", "sql": "SELECT 1"}\n', encoding="utf-8")
    with pytest.raises(InputErrors) as raised:
        load_inputs(tmp_path / "gold.jsonl", tmp_path / "pred.jsonl")
    assert [str(error).split("gold.jsonl:")[1] for error in raised.value.errors] == [
        "1:30: sql: should be a string, not an integer",
        "2:30: sql: a list of golds holds 1 to 100 queries, not 0",
        "3:30: sql: gold 2 should be SQL text, not empty",
        "4:30: sql: should not be empty",
    ]


def test_the_bound_on_golds_is_in_the_limits_and_still_in_the_schema():
    """``MAX_GOLDS`` is in ``answerkey.limits`` (the run reads it without pydantic), and its
    old home ``answerkey.execution.schema`` still gives it."""
    assert schema.MAX_GOLDS is limits.MAX_GOLDS == 100


def test_the_item_is_correct_when_one_gold_matches_and_the_report_says_which(files):
    """Verdicts per semantics are any over the golds; gold_matched numbers the headline's from 1."""
    inputs = load_inputs(files / "gold.jsonl", files / "pred.jsonl")
    report = run_sql(inputs, SqlOptions(str(files / "db"), engine="sqlite", metrics=())).report()
    items = {item.id: item for item in report.items}
    assert [(key, items[key].verdict, items[key].gold_matched) for key in items] == [
        ("one", "correct", None),
        ("second", "correct", 2),
        ("first", "correct", 1),
        ("none", "incorrect", None),
        ("fails", "error", None),
    ]
    assert items["second"].reason == "gold 2 of 2: the tuples match as sets"
    assert items["second"].verdicts == {
        "answerkey": "correct",
        "test-suite": "correct",
        "bird": "incorrect",
        "spider2": "correct",
    }
    assert items["first"].reason.startswith("gold 1 of 2: ")
    assert items["none"].reason == (
        "no mapping of canonical columns onto system columns gives the canonical tuples as a set"
    )  # the first gold's, unnumbered
    assert items["fails"].reason.startswith("the gold query failed on 'shop': no such table: nope")
    document = report.model_dump(mode="json")
    assert document["items"][1]["gold_matched"] == 2
    assert report.summary.accuracy == pytest.approx(3 / 4)
