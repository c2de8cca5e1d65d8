"""``gold_results:`` in an answerkey corpus: golds given as result CSV files (relative to the
corpus file) in place of SQL; the prediction, SQL run on the item's database, is correct when
its result matches any of them, and the report says which (``gold_matched``)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from answerkey.execution.load import InputErrors, load_inputs
from answerkey.execution.run import SqlOptions, run_sql


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


@pytest.fixture
def files(tmp_path):
    """A database, gold result files in a folder beside the corpus, and predictions."""
    (tmp_path / "db" / "shop").mkdir(parents=True)
    with sqlite3.connect(tmp_path / "db" / "shop" / "shop.sqlite") as connection:
        connection.executescript(
            "CREATE TABLE item (name TEXT, qty INT, price REAL);"
            "INSERT INTO item VALUES ('pen', 5, 1.5), ('ink', 2, NULL);"
        )
    connection.close()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "names.csv").write_text("name\npen\nink\n", encoding="utf-8")
    (tmp_path / "results" / "pairs.csv").write_text("name,qty\npen,5\nink,2\n", encoding="utf-8")
    (tmp_path / "results" / "prices2.csv").write_text("name,price\npen,1.5\nink,\n", encoding="utf-8")
    write_jsonl(
        tmp_path / "gold.jsonl",
        [
            {"id": "one", "db_id": "shop", "gold_results": "results/names.csv"},
            {"id": "second", "db_id": "shop", "gold_results": ["results/prices2.csv", "results/pairs.csv"]},
            {"id": "none", "db_id": "shop", "gold_results": ["results/names.csv", "results/pairs.csv"]},
            {"id": "null", "db_id": "shop", "gold_results": ["results/prices2.csv"]},
            {"id": "sql", "db_id": "shop", "sql": "SELECT count(*) FROM item"},
        ],
    )
    write_jsonl(
        tmp_path / "pred.jsonl",
        [
            {"id": "one", "sql": "SELECT name FROM item"},
            {"id": "second", "sql": "SELECT qty, name FROM item"},
            {"id": "none", "sql": "SELECT price FROM item"},
            {"id": "null", "sql": "SELECT name, price FROM item"},
            {"id": "sql", "sql": "SELECT 2"},
        ],
    )
    return tmp_path


def test_the_corpus_reads_gold_results_typed_as_pandas_reads_them(files):
    """Each path becomes a result (columns, typed rows), relative to the corpus file."""
    items = load_inputs(files / "gold.jsonl", files / "pred.jsonl").items
    assert [len(item.gold_results) for item in items] == [1, 2, 2, 1, 0]
    first = items[1].gold_results[1]
    assert (first.columns, [str(value) for value in first.rows[0]]) == (
        ("name", "qty"),
        ["String(text='pen')", "Number(value=5, is_real=False, text='5')"],
    )
    assert first.source.endswith("results/pairs.csv")
    assert items[0].gold == "" and items[4].gold == "SELECT count(*) FROM item"


def test_the_prediction_runs_and_matches_any_gold_result(files):
    """Verdicts per semantics are any over the gold results; gold_matched numbers them from 1."""
    inputs = load_inputs(files / "gold.jsonl", files / "pred.jsonl")
    report = run_sql(inputs, SqlOptions(str(files / "db"), engine="sqlite", metrics=())).report()
    items = {item.id: item for item in report.items}
    assert [(key, item.verdict, item.gold_matched) for key, item in items.items()] == [
        ("one", "correct", None),
        ("second", "correct", 2),
        ("none", "incorrect", None),
        ("null", "correct", None),
        ("sql", "correct", None),
    ]
    assert items["second"].reason == "gold 2 of 2: the tuples match as sets"
    assert (
        items["none"].reason
        == "no mapping of canonical columns onto system columns gives the canonical tuples as a set"
    )
    assert items["one"].databases == 1
    assert report.summary.accuracy == pytest.approx(4 / 5)


def test_spider2_decides_gold_results_as_spider_2_does(files):
    """Under spider2 the first gold's missing price counts as 0, which no predicted column
    holds; the second gold's columns are each a predicted one."""
    inputs = load_inputs(files / "gold.jsonl", files / "pred.jsonl")
    report = run_sql(inputs, SqlOptions(str(files / "db"), engine="sqlite", semantics="spider2", metrics=())).report()
    items = {item.id: item for item in report.items}
    assert (items["second"].verdict, items["second"].gold_matched) == ("correct", 2)
    assert items["second"].reason == (
        "gold 2 of 2: each gold column equals a predicted column, in row order, numbers within 0.01"
    )


def test_bad_gold_results_are_located_errors(tmp_path):
    """A missing file at its place in the list, a bad CSV at its own line, sql and gold_results
    together or neither, a list of the wrong kind: one error each, nothing runs."""
    (tmp_path / "bad.csv").write_text("a,b\n1,2,3\n", encoding="utf-8")
    (tmp_path / "gold.jsonl").write_text(
        '{"id": "a", "db_id": "shop", "gold_results": ["bad.csv"]}\n'
        '{"id": "b", "db_id": "shop", "gold_results": ["nope.csv"]}\n'
        '{"id": "c", "db_id": "shop", "sql": "SELECT 1", "gold_results": "bad.csv"}\n'
        '{"id": "d", "db_id": "shop"}\n'
        '{"id": "e", "db_id": "shop", "gold_results": []}\n'
        '{"id": "f", "db_id": "shop", "gold_results": [3]}\n',
        encoding="utf-8",
    )
    (tmp_path / "pred.jsonl").write_text('{"id": "a", "sql": "SELECT 1"}\n', encoding="utf-8")
    with pytest.raises(InputErrors) as raised:
        load_inputs(tmp_path / "gold.jsonl", tmp_path / "pred.jsonl")
    assert [str(error).replace(str(tmp_path) + "/", "") for error in raised.value.errors] == [
        "bad.csv:2:1: the row has 3 cells but the header has 2 columns",
        "gold.jsonl:2:47: gold result 'nope.csv': no such file (nope.csv)",
        "gold.jsonl:3:1: an item gives its gold as sql or as gold_results (CSV files), and this one gives both",
        "gold.jsonl:4:1: an item gives its gold as sql or as gold_results (CSV files), and this one gives neither",
        "gold.jsonl:5:30: gold_results: a list of gold results holds 1 to 100 files, not 0",
        "gold.jsonl:6:30: gold_results: gold result 1 should be a file name, not an integer",
    ]
