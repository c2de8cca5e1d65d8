"""`answerkey sql --show-rows N` (answerkey.execution.result_rows): the first N rows of the gold's
and the prediction's results, kept for the workbook's Overview and the HTML detail view, never
in the JSON report."""

import json
import sqlite3

import pytest

from answerkey.adapters.engines import open_engine
from answerkey.execution.load import SqlItem
from answerkey.execution.result_rows import shown_rows


@pytest.fixture
def root(tmp_path):
    """A Spider-layout root with one database, `league`: scores(name, points), 4 rows."""
    directory = tmp_path / "database" / "league"
    directory.mkdir(parents=True)
    connection = sqlite3.connect(directory / "league.sqlite")
    connection.execute("CREATE TABLE scores (name TEXT, points INTEGER)")
    connection.executemany("INSERT INTO scores VALUES (?, ?)", [("a", 10), ("b", 8), ("c", 8), ("d", 5)])
    connection.commit()
    connection.close()
    return tmp_path / "database"


def test_each_side_keeps_its_first_rows_and_says_what_it_left_out(root):
    """Header, the first N rows as CAS values, then how many more; a failing query says why; no
    prediction or no database: None."""
    engine = open_engine(str(root))
    items = [
        SqlItem("1", "league", "SELECT name, points FROM scores ORDER BY points DESC", "SELECT name FROM scores"),
        SqlItem("2", "league", "SELECT count(*) AS n FROM scores", "SELECT nme FROM scores"),
        SqlItem("3", "league", "SELECT name FROM scores WHERE points > 99", None),
        SqlItem("4", "nowhere", "SELECT 1", "SELECT 1"),
    ]
    try:
        assert [(rows.gold, rows.predicted) for rows in shown_rows(engine, items, 2)] == [
            (
                'name | points\n"a" | 10\n"b" | 8\n... and 2 more rows (--show-rows shows 2)',
                'name\n"a"\n"b"\n... and 2 more rows (--show-rows shows 2)',
            ),
            ("n\n4", "(the query failed: no such column: nme)"),
            ("name\n(no rows)", None),
            (None, None),
        ]
    finally:
        engine.close()


def test_sql_show_rows_fills_the_workbook_and_leaves_the_json_alone(run_cli, root, tmp_path):
    """With --show-rows 1 the Overview gets `gold rows` and `predicted rows` beside the SQL; the
    JSON report is the same as without it; without it the workbook has no such columns."""
    openpyxl = pytest.importorskip("openpyxl")
    gold = tmp_path / "gold.sql"
    gold.write_text("SELECT name FROM scores ORDER BY name\tleague\n")
    predictions = tmp_path / "pred.sql"
    predictions.write_text("SELECT name FROM scores ORDER BY name DESC\n")
    base = ["sql", gold, predictions, "--db", root, "-q"]
    shown = run_cli(*base, "--show-rows", "1", "--xlsx", tmp_path / "shown.xlsx", "--json", tmp_path / "shown.json")
    plain = run_cli(*base, "--xlsx", tmp_path / "plain.xlsx", "--json", tmp_path / "plain.json")
    assert shown.exit_code == plain.exit_code == 0, shown.stderr
    assert json.loads((tmp_path / "shown.json").read_text()) == json.loads((tmp_path / "plain.json").read_text())
    sheet = openpyxl.load_workbook(tmp_path / "shown.xlsx")["Overview"]
    header = [cell.value for cell in sheet[1]]
    assert header[6:10] == ["gold SQL", "predicted SQL", "gold rows", "predicted rows"]
    row = [cell.value for cell in sheet[2]]
    assert row[8:10] == [
        'name\n"a"\n... and 3 more rows (--show-rows shows 1)',
        'name\n"d"\n... and 3 more rows (--show-rows shows 1)',
    ]
    plain_header = [cell.value for cell in openpyxl.load_workbook(tmp_path / "plain.xlsx")["Overview"][1]]
    assert "gold rows" not in plain_header
    too_many = run_cli(*base, "--show-rows", "1001")
    assert too_many.exit_code == 2 and "1001" in too_many.stderr
