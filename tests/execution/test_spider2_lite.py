"""Spider 2.0-lite's layout (a gold folder of result files and ``spider2lite_eval.jsonl``,
predictions as ``<id>.sql`` or ``<id>.csv``), decided as Spider 2.0's evaluate.py decides it.

The expected scores in CASES are the official ones: each case was run through
``evaluate_single_exec_result_instance`` / ``evaluate_single_sql_instance`` of
spider2-lite/evaluation_suite/evaluate.py at commit e12c5f1e (pandas 3.1.1), on the same files."""

from __future__ import annotations

import json
import sqlite3

import pytest

from answerkey.errors import InputError, InputErrors
from answerkey.execution.load import load_inputs
from answerkey.execution.run import SqlOptions, run_sql
from answerkey.execution.spider2_lite import extract_sql, gold_condition_cols

# name: (eval entry (condition_cols, ignore_order), gold files, prediction file, its database, official score)
CASES = {
    # e12c5f1e's normalize: a missing value is 0 (so within 0.01 of 0.005, not of 0.02).
    "null-vs-zero": (([], False), {"": "a,b\n1,\n2,3\n"}, ("csv", "x,y\n1,0\n2,3\n"), None, 1),
    "null-vs-0.005": (([], False), {"": "a,b\n1,\n2,3\n"}, ("csv", "x,y\n1,0.005\n2,3\n"), None, 1),
    "null-vs-0.02": (([], False), {"": "a,b\n1,\n2,3\n"}, ("csv", "x,y\n1,0.02\n2,3\n"), None, 0),
    "text-null-vs-text-0": (([], False), {"": 'a\nabc\n""\n'}, ("csv", "x\nabc\n0\n"), None, 0),
    "na-spelling": (([], False), {"": "a\nNA\nz\n"}, ("csv", 'x\n""\nz\n'), None, 1),
    # Several golds (_a, _b): correct when one matches.
    "second-gold": (([], False), {"_a": "a\n1\n", "_b": "a\n2\n"}, ("csv", "x\n2\n"), None, 1),
    "no-gold-matches": (([], False), {"_a": "a\n1\n", "_b": "a\n2\n"}, ("csv", "x\n3\n"), None, 0),
    # condition_cols: flat for every gold, one list per gold, a lone _a gold takes the first element.
    "flat-cc-each-gold": (([1], False), {"_a": "a,b\n1,5\n", "_b": "a,b\n2,6\n"}, ("csv", "x\n6\n"), None, 1),
    "lone-a-takes-first": (([1, 0], False), {"_a": "a,b\n1,5\n"}, ("csv", "x\n5\n"), None, 1),
    "lone-a-first-only": (([1, 0], False), {"_a": "a,b\n1,5\n"}, ("csv", "x\n1\n"), None, 0),
    "per-gold-cc": (([[0], [1]], False), {"_a": "a,b\n1,5\n", "_b": "a,b\n2,6\n"}, ("csv", "x\n6\n"), None, 1),
    "per-gold-cc-miss": (([[0], [1]], False), {"_a": "a,b\n1,5\n", "_b": "a,b\n2,6\n"}, ("csv", "x\n5\n"), None, 0),
    # ignore_order, the absolute tolerance, pandas' typing of the texts.
    "ignore-order": (([], True), {"": "a,b\nx,1\ny,2\n"}, ("csv", "p,q\ny,2\nx,1\n"), None, 1),
    "row-order": (([], False), {"": "a,b\nx,1\ny,2\n"}, ("csv", "p,q\ny,2\nx,1\n"), None, 0),
    "tolerance": (([], False), {"": "a\n10.004\n"}, ("csv", "x\n10\n"), None, 1),
    "tolerance-beyond": (([], False), {"": "a\n10.02\n"}, ("csv", "x\n10\n"), None, 0),
    "digits-text": (([], False), {"": "a\n007\n"}, ("csv", "x\n7\n"), None, 1),
    "bool-vs-1": (([], False), {"": "a\nTrue\n"}, ("csv", "x\n1\n"), None, 1),
    "extra-pred-columns": (([], False), {"": "a\n1\n"}, ("csv", "x,y,z\n9,1,8\n"), None, 1),
    "fewer-rows": (([], False), {"": "a\n1\n2\n"}, ("csv", "x\n1\n"), None, 0),
    "mixed-column": (([], False), {"": "a\n1\nx\n"}, ("csv", "v\n1\nx\n"), None, 1),
    "ints-and-reals-frame": (([], False), {"": "a,b\n1,2.5\n"}, ("csv", "x,y\n1.0,2.5\n"), None, 1),
    # SQL predictions, run on the item's SQLite database (a fenced block is taken out).
    "sql-null": (([], False), {"": "a,b\n1,\n"}, ("sql", "```sql\nSELECT 1, NULL\n```"), "CREATE TABLE t(x);", 1),
    "sql-real": (
        ([], False),
        {"": "n\n2.5\n"},
        ("sql", "SELECT avg(x) FROM t"),
        "CREATE TABLE t(x); INSERT INTO t VALUES (2), (3);",
        1,
    ),
    "sql-int-vs-text": (([], False), {"": "n\n7\n"}, ("sql", "SELECT '007'"), "CREATE TABLE t(x);", 1),
    "sql-ignore-order": (
        ([], True),
        {"_a": "n\nb\na\n", "_b": "n\nz\n"},
        ("sql", "SELECT x FROM t ORDER BY x"),
        "CREATE TABLE t(x); INSERT INTO t VALUES ('b'), ('a');",
        1,
    ),
    "sql-fails": (([], False), {"": "n\n1\n"}, ("sql", "SELECT nope FROM t"), "CREATE TABLE t(x);", 0),
    "sql-empty-result": (([], False), {"": "n\n"}, ("sql", "SELECT x FROM t"), "CREATE TABLE t(x);", 1),
}
# The gold matched, where the item has several golds and the prediction matches one.
MATCHED = {"second-gold": 2, "flat-cc-each-gold": 2, "per-gold-cc": 2, "sql-ignore-order": 1}


def build(root, cases):
    """A Spider 2.0-lite folder (gold/, pred/, dbs/<db>/<db>.sqlite) of ``cases``; returns the ids by case."""
    gold, pred = root / "gold", root / "pred"
    (gold / "exec_result").mkdir(parents=True)
    pred.mkdir()
    entries, metadata, ids = [], [], {}
    for number, (name, (standard, golds, prediction, database, _)) in enumerate(cases.items(), 1):
        instance_id = ids[name] = f"local{number:03d}"
        for suffix, text in golds.items():
            (gold / "exec_result" / f"{instance_id}{suffix}.csv").write_text(text, encoding="utf-8")
        condition_cols, ignore_order = standard
        entries.append({"instance_id": instance_id, "condition_cols": condition_cols, "ignore_order": ignore_order})
        kind, text = prediction
        (pred / f"{instance_id}.{kind}").write_text(text, encoding="utf-8")
        if database is not None:
            (root / "dbs" / f"db{number}").mkdir(parents=True)
            with sqlite3.connect(root / "dbs" / f"db{number}" / f"db{number}.sqlite") as connection:
                connection.executescript(database)
            connection.close()
            metadata.append({"instance_id": instance_id, "db": f"db{number}", "question": "?"})
    write_jsonl(gold / "spider2lite_eval.jsonl", entries)
    write_jsonl(gold / "spider2-lite.jsonl", metadata)
    (root / "dbs").mkdir(exist_ok=True)
    return ids


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


def test_the_verdicts_are_evaluate_py_s(tmp_path):
    """Every case scores under spider2 as evaluate.py scores it; gold_matched says which gold."""
    ids = build(tmp_path, CASES)
    inputs = load_inputs(tmp_path / "gold", tmp_path / "pred")
    assert inputs.layout == "spider2-lite" and inputs.warnings == []
    report = run_sql(
        inputs, SqlOptions(str(tmp_path / "dbs"), engine="sqlite", semantics="spider2", metrics=())
    ).report()
    verdicts = {item.id: (item.verdict, item.gold_matched) for item in report.items}
    expected = {ids[name]: ("correct" if case[-1] else "incorrect", MATCHED.get(name)) for name, case in CASES.items()}
    assert verdicts == expected


def test_the_reasons_say_what_decided(tmp_path):
    """The reasons of a few cases, word for word."""
    ids = build(tmp_path, CASES)
    inputs = load_inputs(tmp_path / "gold", tmp_path / "pred")
    report = run_sql(
        inputs, SqlOptions(str(tmp_path / "dbs"), engine="sqlite", semantics="spider2", metrics=())
    ).report()
    reasons = {item.id: item.reason for item in report.items}
    assert reasons[ids["second-gold"]] == (
        "gold 2 of 2: each gold column equals a predicted column, in row order, numbers within 0.01"
    )
    assert reasons[ids["per-gold-cc-miss"]] == "gold column 1 (a) matches no predicted column"
    assert reasons[ids["lone-a-takes-first"]] == (
        "each of gold columns 2 (b) equals a predicted column, in row order, numbers within 0.01"
    )
    assert reasons[ids["sql-fails"]] == "the predicted query failed: no such column: nope"
    items = {item.id: item for item in report.items}
    assert (items[ids["null-vs-zero"]].databases, items[ids["sql-null"]].databases) == (0, 1)


@pytest.mark.parametrize(
    ("value", "golds", "single", "expected"),
    [
        (None, 1, True, [None]),
        ([], 1, True, [None]),
        (2, 1, True, [(2,)]),
        ([1, 2], 1, True, [(1, 2)]),
        ([[]], 2, False, [None, None]),
        ([None], 3, False, [None, None, None]),
        ([1], 2, False, [(1,), (1,)]),
        ([[1], [0, 2]], 2, False, [(1,), (0, 2)]),
        ([[1], [], [0]], 3, False, [(1,), None, (0,)]),
        ([1, 0], 1, False, [(1,)]),
        ([[1, 2, 3], [1, 2, 3], [0]], 2, False, [(1, 2, 3), (1, 2, 3)]),
        # The comparison raises at a gold without a list of indexes: only the golds before it count.
        ([[0], [1]], 3, False, [(0,), (1,)]),
        ([[1], ["x"], [0]], 3, False, [(1,)]),
    ],
)
def test_condition_columns_per_gold_as_compare_multi_pandas_table(value, golds, single, expected):
    """evaluate.py lines 67-81 and 113-116: which columns of each gold are checked."""
    assert gold_condition_cols(value, golds, single) == expected


@pytest.mark.parametrize(
    ("value", "golds", "single", "message"),
    [
        ([[0]], 1, True, "[[0]] is not a list of column indexes"),
        ([["x"], [1]], 2, False, "['x'] is not a list of column indexes"),
        ("0", 2, False, "'0' is not a list"),
    ],
)
def test_condition_columns_the_official_comparison_fails_on(value, golds, single, message):
    """Where evaluate.py's comparison raises (scoring 0), a ValueError saying why."""
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        gold_condition_cols(value, golds, single)


def test_extract_sql_takes_the_fenced_block_as_extract_sql_query():
    """The first ```sql block, stripped; otherwise the text untouched (evaluate.py lines 200-206)."""
    assert extract_sql("Answer:\n```sql\n SELECT 1 \n```\n```sql\nSELECT 2\n```") == "SELECT 1"
    assert extract_sql("```SQL\nSELECT 1\n```") == "```SQL\nSELECT 1\n```"
    assert extract_sql("  SELECT 3;\n") == "  SELECT 3;\n"


def small_folder(root):
    """Spider 2.0-lite's places: root/spider2-lite.jsonl (naming local001's database),
    root/evaluation_suite/gold with three items (local001, bq001, sf_bq002), and root/pred
    (empty); returns the gold and the predictions folders."""
    gold = root / "evaluation_suite" / "gold"
    (gold / "exec_result").mkdir(parents=True)
    (root / "pred").mkdir()
    for instance_id in ("local001", "bq001", "sf_bq002"):
        (gold / "exec_result" / f"{instance_id}.csv").write_text("n\n1\n", encoding="utf-8")
    write_jsonl(
        gold / "spider2lite_eval.jsonl",
        [
            {"instance_id": name, "condition_cols": [], "ignore_order": True}
            for name in ("local001", "bq001", "sf_bq002")
        ],
    )
    write_jsonl(root / "spider2-lite.jsonl", [{"instance_id": "local001", "db": "shop"}])
    return gold, root / "pred"


def test_which_items_are_evaluated_and_the_warnings(tmp_path):
    """Items without a prediction are left out (one warning), an SQL prediction on BigQuery or
    Snowflake is not evaluable here (one warning each), a result file is evaluable anywhere,
    a prediction the eval file does not list is a warning; spider2-lite.jsonl is found two
    folders up from the gold folder, as evaluate.py finds it."""
    gold, pred = small_folder(tmp_path)
    (pred / "local001.sql").write_text("SELECT 1", encoding="utf-8")
    (pred / "bq001.sql").write_text("SELECT 1", encoding="utf-8")
    (pred / "sf_bq002.csv").write_text("n\n1\n", encoding="utf-8")
    (pred / "local999.csv").write_text("n\n1\n", encoding="utf-8")
    inputs = load_inputs(gold, pred)
    assert [(item.id, item.db_id, item.predicted, item.predicted_result is not None) for item in inputs.items] == [
        ("local001", "shop", "SELECT 1", False),
        ("sf_bq002", "", None, True),
    ]
    assert [str(warning) for warning in inputs.warnings] == [
        f"{pred}/bq001.sql: not evaluable here: its database is not SQLite (BigQuery or Snowflake): export its "
        "result as bq001.csv to evaluate it here",
        f"{pred}/local999.csv: a prediction for 'local999', which spider2lite_eval.jsonl does not list",
    ]
    (pred / "bq001.sql").unlink()
    (pred / "sf_bq002.csv").unlink()
    inputs = load_inputs(gold, pred)
    assert [str(warning) for warning in inputs.warnings][-1] == (
        f"2 items of spider2lite_eval.jsonl have no prediction in {pred}: left out, as evaluate.py leaves them "
        "out (its 'Real score' counts each as 0), e.g. 'bq001'"
    )


def test_a_local_item_without_a_named_database_is_not_evaluable(tmp_path):
    """No spider2-lite.jsonl beside the gold nor two folders up: a warning, not a traceback."""
    gold, pred = small_folder(tmp_path)
    (tmp_path / "spider2-lite.jsonl").unlink()
    (pred / "local001.sql").write_text("SELECT 1", encoding="utf-8")
    (pred / "bq001.csv").write_text("n\n1\n", encoding="utf-8")
    inputs = load_inputs(gold, pred)
    assert [item.id for item in inputs.items] == ["bq001"]
    assert str(inputs.warnings[0]) == (
        f"{pred}/local001.sql: not evaluable here: no spider2-lite.jsonl names its database "
        f"(looked for in {gold} and two folders up)"
    )


def test_problems_are_located_and_listed_together(tmp_path):
    """A bad eval line, a missing gold, a bad condition_cols, a ragged CSV, a prediction given
    twice: every problem at FILE:LINE:COL, nothing runs."""
    gold, pred = small_folder(tmp_path)
    with open(gold / "spider2lite_eval.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"instance_id": "local002", "condition_cols": [[0], [1]]}\n')
        handle.write('{"instance_id": "local003"}\n')
        handle.write('{"instance_id": "../x"}\n')
        handle.write('{"instance_id": "local004", "ignore_order": "yes"}\n')
    (gold / "exec_result" / "local002.csv").write_text("n\n1\n", encoding="utf-8")
    (gold / "exec_result" / "local001.csv").write_text("n,m\n1,2,3\n", encoding="utf-8")
    for name in ("local001.csv", "local002.csv", "local003.csv", "bq001.sql", "bq001.csv"):
        (pred / name).write_text("n\n1\n", encoding="utf-8")
    with pytest.raises(InputErrors) as raised:
        load_inputs(gold, pred)
    assert [str(error).replace(f"{tmp_path}/evaluation_suite/", "") for error in raised.value.errors] == [
        "gold/exec_result/local001.csv:2:1: the row has 3 cells but the header has 2 columns",
        "gold/spider2lite_eval.jsonl:4:29: condition_cols: [[0], [1]] is not a list of column indexes: evaluate.py's "
        "comparison fails on it (scoring the item 0)",
        "gold/spider2lite_eval.jsonl:5:1: no gold result for 'local003' in gold/exec_result (local003.csv, or "
        "local003_a.csv, local003_b.csv...)",
        "gold/spider2lite_eval.jsonl:6:2: instance_id: not an instance id: '../x'",
        "gold/spider2lite_eval.jsonl:7:29: ignore_order: true or false, not a string",
        f"{tmp_path}/pred/bq001.sql: both bq001.csv and bq001.sql: give one prediction per item",
    ]


def test_a_gold_folder_without_its_results_folder_is_one_error(tmp_path):
    """No exec_result/ beside spider2lite_eval.jsonl: one line saying which folder."""
    gold, pred = small_folder(tmp_path)
    (gold / "exec_result").rename(tmp_path / "elsewhere")
    with pytest.raises(InputError) as raised:
        load_inputs(gold, pred)
    assert str(raised.value) == f"{gold}/exec_result: the gold results folder: No such file or directory"


def test_a_condition_column_beyond_the_gold_is_an_error_of_the_test(tmp_path):
    """condition_cols [3] of a one-column gold: evaluate.py's iloc raises (score 0); here the
    item is an error of the test, naming the gold file."""
    ids = build(tmp_path, {"beyond": (([3], False), {"": "a\n1\n"}, ("csv", "x\n1\n"), None, 0)})
    inputs = load_inputs(tmp_path / "gold", tmp_path / "pred")
    report = run_sql(
        inputs, SqlOptions(str(tmp_path / "dbs"), engine="sqlite", semantics="spider2", metrics=())
    ).report()
    item = report.items[0]
    assert (item.id, item.verdict, item.database, item.databases) == (ids["beyond"], "error", None, 0)
    assert item.reason == (
        f"on the gold result {tmp_path / 'gold' / 'exec_result' / 'local001.csv'}: condition column 3 is not a "
        "column of the gold result, which has 1 column (condition columns count from 0)"
    )


# Official scores (evaluate.py at e12c5f1e): 0 ("positional indexers are out-of-bounds": gold _b's
# column 5, though _c matches), 1, 0 ("list index out of range": no list for gold _b), 1 (a short
# gold row ends in NaN, which counts as 0).
TRUNCATED = {
    "later-beyond": (
        ([[0], [5], [0]], False),
        {"_a": "a\n1\n", "_b": "a,b\n2,3\n", "_c": "a\n9\n"},
        ("csv", "x\n9\n"),
        None,
        0,
    ),
    "later-in": (
        ([[0], [1], [0]], False),
        {"_a": "a\n1\n", "_b": "a,b\n2,3\n", "_c": "a\n9\n"},
        ("csv", "x\n3\n"),
        None,
        1,
    ),
    "too-few-lists": (([[0]], False), {"_a": "a\n1\n", "_b": "a\n2\n"}, ("csv", "x\n2\n"), None, 0),
    "short-row": (([], False), {"": "a,b\n1,2\n3\n"}, ("csv", "x,y\n1,2\n3,0\n"), None, 1),
}


def test_golds_the_official_comparison_never_reaches_are_left_out_with_a_warning(tmp_path):
    """Where evaluate.py raises at a later gold (its condition columns beyond it, or no list
    for it), scoring 0, the golds from it on are left out, with a warning: the verdicts are
    the script's."""
    ids = build(tmp_path, TRUNCATED)
    inputs = load_inputs(tmp_path / "gold", tmp_path / "pred")
    eval_file = tmp_path / "gold" / "spider2lite_eval.jsonl"
    assert [str(warning) for warning in inputs.warnings] == [
        f"{eval_file}:1: the condition_cols of gold file local001_b.csv are not columns evaluate.py can take: its "
        "comparison stops there, scoring 0, so 2 gold files from it on are left out",
        f"{eval_file}:3: the condition_cols of gold file local003_b.csv are not columns evaluate.py can take: its "
        "comparison stops there, scoring 0, so 1 gold file from it on is left out",
    ]
    report = run_sql(
        inputs, SqlOptions(str(tmp_path / "dbs"), engine="sqlite", semantics="spider2", metrics=())
    ).report()
    verdicts = {item.id: item.verdict for item in report.items}
    assert verdicts == {ids[name]: "correct" if case[-1] else "incorrect" for name, case in TRUNCATED.items()}
