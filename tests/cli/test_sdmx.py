"""``answerkey sdmx`` on the IMF example suite in examples/sdmx (issue #5, Command and Tests)."""

import json
import math
from fractions import Fraction
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from answerkey.cli import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sdmx"
CASES = str(EXAMPLES / "cases")
SELECTIONS = str(EXAMPLES / "selections.jsonl")
NAN = math.nan

# Expected macro (recall, precision) per case, worked out by hand from the example files:
# each comment names the branch of the metric the case exercises.
EXPECTED = {
    "chat-01-greeting": (NAN, NAN),  # empty target; the system's selection is "not in target"
    "conv-01-india-growth-then-prices": (Fraction(4, 5), 1),  # two turns, two datasets; FREQUENCY missed
    "cpi-01-mexico-food-prices": (Fraction(3, 4), Fraction(3, 4)),  # one dimension wholly wrong
    "cpi-02-us-canada-headline-monthly": (Fraction(2, 3), Fraction(5, 9)),  # extra country, wrong frequency
    "weo-01-mexico-population": (1, 1),  # exact
    "weo-02-real-growth-germany-france": (Fraction(3, 4), 1),  # one of two countries
    "weo-03-india-gdp-and-per-capita": (1, Fraction(5, 6)),  # methodology example: 0.67 on INDICATOR
    "weo-04-brazil-inflation": (Fraction(1, 2), Fraction(1, 2)),  # right id, wrong name
    "weo-05-spain-unemployment": (0, NAN),  # right dimensions in the wrong dataset
    "weo-06-debt-follow-up": (1, 1),  # two turns' targets and two records merged
    "weo-07-germany-current-account": (1, 1),  # plus a dimension not in the target
    "weo-08-nigeria-population": (0, NAN),  # no selection record at all
}


def run(*args):
    return CliRunner().invoke(cli, ["sdmx", *args], catch_exceptions=False)


def same(actual, expected):
    if isinstance(expected, float) and math.isnan(expected):
        return actual is None
    return actual == pytest.approx(float(expected), abs=1e-12)


def mean(values):
    defined = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    return sum(defined, Fraction(0)) / len(defined)


def test_example_suite_json(tmp_path):
    """Every case of the example suite gets its hand-computed figures; suite and tag means follow."""
    out = tmp_path / "report.json"
    result = run(CASES, SELECTIONS, "--json", str(out))
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    figures = {case["id"]: (case["macro_recall"], case["macro_precision"]) for case in document["cases"]}
    assert list(figures) == list(EXPECTED)
    for case_id, (recall, precision) in EXPECTED.items():
        assert same(figures[case_id][0], recall) and same(figures[case_id][1], precision), case_id
    summary = document["summary"]
    assert summary["cases"] == 12
    assert same(summary["macro_recall"], mean(r for r, _ in EXPECTED.values()))  # 0.68
    assert same(summary["macro_precision"], mean(p for _, p in EXPECTED.values()))  # 0.85
    assert summary["by_tag"]["multi-turn"] == {"cases": 2, "macro_recall": 0.9, "macro_precision": 1.0}
    assert summary["by_tag"]["smalltalk"] == {"cases": 1, "macro_recall": None, "macro_precision": None}
    assert document["signature"].startswith("match:id+name|v:")


def test_example_suite_stdout_and_warnings():
    """stdout holds the summary table and signature; the unknown case's selection is a warning."""
    result = run(CASES, SELECTIONS)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "tag         cases  macro recall  macro precision"
    assert lines[1] == "(all)          12          0.68             0.85"
    assert lines[4] == "multi-turn      2          0.90             1.00"
    assert lines[5] == "smalltalk       1             -                -"
    assert lines[-1].startswith("signature: match:id+name|v:")
    assert result.stderr == f"warning: {SELECTIONS}: selection for unknown case 'weo-99-retired-question'\n"


def test_example_workbook(tmp_path):
    """The example's workbook: one Overview row per case with the methodology's detail block."""
    out = tmp_path / "sdmx.xlsx"
    assert run(CASES, SELECTIONS, "--xlsx", str(out), "-q").exit_code == 0
    workbook = openpyxl.load_workbook(out)
    rows = {row[0]: row for row in workbook["Overview"].iter_rows(min_row=2, values_only=True)}
    assert len(rows) == 12
    india = rows["weo-03-india-gdp-and-per-capita"]
    assert india[2:5] == ("Show me GDP and GDP per capita for India in US dollars.", "imf, weo", 1)
    assert india[5] == pytest.approx(5 / 6)
    assert "[recall: 1.00, precision: 0.67]\nTrue Positives [2]\n" in india[6]
    assert "False Positives [1]\n  * NGDP_R: Gross domestic product, constant prices, National currency" in india[6]
    assert rows["weo-07-germany-current-account"][7] == "IMF.RES:WEO / FREQUENCY\nFalse Positives [1]\n  * A: Annual"
    assert rows["conv-01-india-growth-then-prices"][2] == (
        "What is real GDP growth in India?\nAnd monthly consumer prices there?")
    statistics = list(workbook["Statistics"].iter_rows(values_only=True))
    assert statistics[0][0] == "Data Query Metrics"
    assert [row[0] for row in statistics[2:8]] == ["(all)", "cpi", "imf", "multi-turn", "smalltalk", "weo"]


def test_tag_filter(tmp_path):
    """--tag scores only the tagged cases; an unknown tag is warned about."""
    out = tmp_path / "r.yaml"
    result = run(CASES, SELECTIONS, "--tag", "cpi", "--tag", "nope", "--yaml", str(out))
    assert result.exit_code == 0
    assert "warning: no case has tag 'nope'\n" in result.stderr
    assert result.stdout.splitlines()[1].split() == ["(all)", "3", "0.74", "0.77"]
    assert "cases: 3\n" in out.read_text()


def test_json_to_stdout_replaces_the_table():
    """--json - writes the report on stdout, without the summary table."""
    result = run(CASES, SELECTIONS, "--json", "-")
    assert json.loads(result.stdout)["summary"]["cases"] == 12


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"c.yaml": "- id: a\n  tags: x\n"}, "{c}:2:9: tags: Input should be a valid list\n"),
        ({"c.yaml": "- id: a\n", "s.jsonl": '{"id": "a", "indicator_selection": 3}\n'},
         "{s}:1:1: indicator_selection: Input should be a valid list\n"),
        ({"c.yaml": "- id: a\n", "s.jsonl": "{\n"},
         "{s}:1:2: invalid JSON: Expecting property name enclosed in double quotes\n"),
    ],
    ids=["bad case", "bad record", "bad json"],
)
def test_input_errors_exit_2_with_location(tmp_path, files, expected):
    """Bad input prints FILE:LINE:COL messages and exits 2 without a traceback."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cases, selections = tmp_path / "c.yaml", tmp_path / "s.jsonl"
    if not selections.exists():
        selections.write_text("")
    result = run(str(cases), str(selections))
    assert result.exit_code == 2
    assert result.stderr == expected.format(c=cases, s=selections) + "1 error in input; nothing scored\n"


def test_missing_file_exits_2(tmp_path):
    """A missing cases path is an input error."""
    result = run(str(tmp_path / "absent.yaml"), SELECTIONS)
    assert result.exit_code == 2
    assert f"{tmp_path / 'absent.yaml'}: no such file" in result.stderr


def test_two_outputs_on_stdout_is_usage_trouble():
    """Only one report can go to stdout."""
    result = run(CASES, SELECTIONS, "--json", "-", "--yaml", "-")
    assert result.exit_code == 2
    assert "only one of --json and --yaml can write to standard output" in result.stderr


def test_schema_command_prints_the_case_schema():
    """`answerkey schema sdmx-case` prints the test-case JSON Schema, open to unknown keys."""
    result = CliRunner().invoke(cli, ["schema", "sdmx-case"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["title"] == "TestCase"
    assert schema["required"] == ["id"]
    assert schema["additionalProperties"] is True
    assert "indicator_selection" in schema["$defs"]["Target"]["properties"]


def test_unwritable_report_exits_2_naming_the_file(tmp_path):
    """A report that cannot be written is trouble, named by the path the user gave."""
    out = tmp_path / "missing-dir" / "r.json"
    result = run(CASES, SELECTIONS, "--json", str(out), "-q")
    assert result.exit_code == 2
    assert result.stderr.endswith(f"{out}: cannot write: No such file or directory\n")
    assert not out.parent.exists()
