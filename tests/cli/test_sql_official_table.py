"""`answerkey sql --tables`: Spider's official table in the terminal and in every report,
with the figures test-suite-sql-eval's evaluation.py printed for the same files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import openpyxl
import pytest
import yaml

from answerkey.cli.schema import json_schema

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "spider_match"
OFFICIAL = json.loads((FIXTURES / "official_match.json").read_text(encoding="utf-8"))


@pytest.fixture
def spider(tmp_path):
    """A copy of the fixture folder (tests never touch fixtures)."""
    root = tmp_path / "spider"
    shutil.copytree(FIXTURES, root)
    return root


def arguments(root, *options):
    """The arguments of a run on ``root`` with its tables.json."""
    return (
        "sql",
        root / "gold.sql",
        root / "pred.sql",
        "--db",
        root / "database",
        "--tables",
        root / "tables.json",
        *options,
    )


def test_the_report_holds_the_official_table(run_cli, spider, tmp_path):
    """The JSON report's ``official`` equals evaluation.py's figures; it fits the report schema."""
    report = tmp_path / "report.json"
    result = run_cli(*arguments(spider, "--json", report))
    assert result.exit_code == 0, result.output
    document = json.loads(report.read_text(encoding="utf-8"))
    jsonschema.validate(document, json_schema("sql-report"))
    official = document["official"]
    for level in ("easy", "medium", "hard", "extra", "all"):
        assert official["levels"][level]["count"] == OFFICIAL["scores"][level]["count"]
        assert official["levels"][level]["exact"] == pytest.approx(OFFICIAL["scores"][level]["exact"], abs=1e-12)
        for name, figures in official["levels"][level]["components"].items():
            expected = OFFICIAL["scores"][level]["partial"][name]
            assert figures == pytest.approx(expected, abs=1e-12), (level, name)
    for turn in ("turn 1", "turn 2", "turn 3", "turn 4", "turn > 4"):
        assert official["turns"][turn]["count"] == OFFICIAL["scores"][turn]["count"]
        assert official["turns"][turn]["exact"] == pytest.approx(OFFICIAL["scores"][turn]["exact"], abs=1e-12)
    assert official["interactions"] == {"count": 2, "execution": 0.0, "exact": 0.0, "components": {}}
    assert official["unreadable_golds"] == 0
    assert [item["hardness"] for item in official["items"]] == [item["hardness"] for item in OFFICIAL["items"]]
    assert [int(item["exact"]) for item in official["items"]] == [item["exact"] for item in OFFICIAL["items"]]
    assert official["items"][29] == {
        "id": "29",
        "hardness": "easy",
        "exact": False,
        "reason": "prediction: no column as in the tables of the query",
    }


def test_the_terminal_shows_the_table_after_the_summary(run_cli, spider):
    """The summary ends with the official table: levels, then turns and interactions."""
    result = run_cli(*arguments(spider))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    lines = lines[: max(index for index, line in enumerate(lines) if line.startswith("accuracy ")) - 1]
    start = lines.index("Spider's official table (exact-set-match; golds left out: 0)")
    assert lines[start + 1].split() == ["easy", "medium", "hard", "extra", "all"]
    assert lines[start + 2].split() == ["count", "23", "17", "11", "3", "54"]
    assert lines[start + 4].split() == ["exact", "match", "0.565", "0.529", "0.545", "1.000", "0.574"]
    assert lines[-3].split() == ["count", "2", "2", "2", "2", "46", "2"]
    assert lines[-1].split() == ["exact", "match", "1.000", "1.000", "0.500", "1.000", "0.522", "0.000"]


def test_yaml_and_workbook_carry_the_table(run_cli, spider, tmp_path):
    """The YAML report has the same ``official``; the workbook has a Spider sheet."""
    result = run_cli(*arguments(spider, "--yaml", tmp_path / "r.yaml", "--xlsx", tmp_path / "r.xlsx"))
    assert result.exit_code == 0, result.output
    document = yaml.safe_load((tmp_path / "r.yaml").read_text(encoding="utf-8"))
    assert document["official"]["levels"]["all"]["count"] == 54
    sheet = openpyxl.load_workbook(tmp_path / "r.xlsx")["Spider"]
    rows = [row[:6] for row in sheet.iter_rows(values_only=True)]
    assert rows[0] == ("figure", "easy", "medium", "hard", "extra", "all")
    assert rows[1] == ("count", 23, 17, 11, 3, 54)


def test_a_gold_the_official_parser_cannot_read_is_listed(run_cli, spider, tmp_path):
    """Such an item is left out of the table and named on standard error; the exit status is kept."""
    (spider / "gold.sql").write_text("SELECT count(*) AS n FROM student\tschool\nSELECT name FROM student\tschool\n")
    (spider / "pred.sql").write_text("SELECT count(*) FROM student\nSELECT name FROM student\n")
    report = tmp_path / "report.json"
    result = run_cli(*arguments(spider, "--json", report))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1] == (
        f"{spider / 'gold.sql'}:1: item 0: left out of the official table: "
        "the official parser cannot read the gold: no column as in the tables of the query"
    )
    official = json.loads(report.read_text(encoding="utf-8"))["official"]
    assert official["unreadable_golds"] == 1
    assert official["levels"]["all"]["count"] == 1
    assert official["turns"] is None and official["interactions"] is None


def test_a_bad_tables_json_stops_before_anything_runs(run_cli, spider):
    """An unreadable tables.json is trouble (exit 2), with the file named."""
    (spider / "tables.json").write_text('[{"db_id": "school"}]')
    result = run_cli(*arguments(spider))
    assert result.exit_code == 2
    assert "tables.json: tables.json entry 1: missing 'column_names_original'" in result.stderr


def test_without_tables_the_report_has_no_official_table(run_cli, spider, tmp_path):
    """Without --tables, ``official`` is null and the terminal shows no official table."""
    report = tmp_path / "report.json"
    result = run_cli("sql", spider / "gold.sql", spider / "pred.sql", "--db", spider / "database", "--json", report)
    assert result.exit_code == 0, result.output
    assert json.loads(report.read_text(encoding="utf-8"))["official"] is None
