"""``answerkey sdmx`` on the IMF example suite in examples/sdmx (issue #5, Command and Tests), on
the spine's options and reports (issue 15) and with hostile inputs (issue 19 items 6 and 7)."""

import json
import math
import os
import re
from fractions import Fraction
from pathlib import Path

import openpyxl
import pytest
import yaml
from click.testing import CliRunner

from answerkey.cli import cli
from answerkey.cli.schema import json_schema
from answerkey.sdmx import NOT_IN_TARGET
from answerkey.version import __version__

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "sdmx"
CASES = str(EXAMPLES / "cases")
SELECTIONS = str(EXAMPLES / "selections.jsonl")
SIGNATURE = re.compile(r"match:id\+name\|not_in_target:listed\|v:\S+")
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
UNKNOWN_CASE = f"warning: {SELECTIONS}:14: selection for unknown case 'weo-99-retired-question'\n"
# Under --not-in-target scored (the methodology's text), a selected dimension outside the target
# has precision 0 and counts in macro precision; recall is unchanged (0/0 there, left out).
EXPECTED_SCORED = {
    **EXPECTED,
    "chat-01-greeting": (NAN, 0),  # its one selected dimension: precision 0
    "weo-05-spain-unemployment": (0, 0),  # target dimensions: nothing selected (undefined); IMF.STA:LS ones: 0, 0
    "weo-07-germany-current-account": (1, Fraction(2, 3)),  # INDICATOR 1, COUNTRY 1, FREQUENCY 0
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
    """Every case of the example suite gets its hand-computed figures; suite and tag means follow;
    the report validates against `answerkey schema sdmx-report` and keeps the warning."""
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
    assert SIGNATURE.fullmatch(document["signature"])
    assert document["warnings"] == [UNKNOWN_CASE.removeprefix("warning: ").rstrip("\n")]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(document, json_schema("sdmx-report"))


def test_example_suite_stdout_and_warnings():
    """stdout holds the README's summary table and signature; the unknown case's selection is a
    warning on stderr at its line."""
    result = run(CASES, SELECTIONS)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[:7] == [
        "tag         cases  macro recall  macro precision",
        "(all)          12        0.6788           0.8488",
        "cpi             3        0.7389           0.7685",
        "imf            11        0.6788           0.8488",
        "multi-turn      2        0.9000           1.0000",
        "smalltalk       1             -                -",
        "weo             9        0.6722           0.9048",
    ]
    assert SIGNATURE.fullmatch(lines[7].removeprefix("signature: "))
    # Under the summary: the means with their intervals, then the cases below 1.
    assert lines[8:12] == [
        "",
        "mean macro recall 0.6788, 95% CI [0.4584, 0.8992] (standard error, 11 items)",
        "mean macro precision 0.8488, 95% CI [0.7157, 0.9818] (standard error, 9 items)",
        "failing: 8 of 12 cases",
    ]
    assert lines[12] == "  conv-01-india-growth-then-prices   macro recall 0.8000, macro precision 1.0000"
    assert len(lines) == 20
    assert result.stderr == UNKNOWN_CASE


def test_example_suite_scored_json(tmp_path):
    """--not-in-target scored: each case gets its hand-computed figures, the suite's macro precision
    is 263/396 (0.66, not 0.85) and its macro recall stays 0.68; the signature names the reading."""
    out = tmp_path / "report.json"
    result = run(CASES, SELECTIONS, "--not-in-target", "scored", "--json", str(out))
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    figures = {case["id"]: (case["macro_recall"], case["macro_precision"]) for case in document["cases"]}
    assert list(figures) == list(EXPECTED_SCORED)
    for case_id, (recall, precision) in EXPECTED_SCORED.items():
        assert same(figures[case_id][0], recall) and same(figures[case_id][1], precision), case_id
    summary = document["summary"]
    assert mean(p for _, p in EXPECTED_SCORED.values()) == Fraction(263, 396)
    assert mean(p for _, p in EXPECTED.values()) == Fraction(275, 324)  # 0.85 under listed
    assert same(summary["macro_precision"], Fraction(263, 396))  # 0.66
    assert mean(r for r, _ in EXPECTED_SCORED.values()) == mean(r for r, _ in EXPECTED.values()) == Fraction(112, 165)
    assert same(summary["macro_recall"], Fraction(112, 165))  # 0.68, as under listed
    assert summary["by_tag"]["smalltalk"] == {"cases": 1, "macro_recall": None, "macro_precision": 0.0}
    assert document["signature"] == f"match:id+name|not_in_target:scored|v:{__version__}"
    weo07 = next(case for case in document["cases"] if case["id"] == "weo-07-germany-current-account")
    assert weo07["dimensions_not_in_target"] == [
        {
            "dataset_id": "IMF.RES:WEO",
            "dimension_name": "FREQUENCY",
            "precision": 0.0,
            "false_positives": [{"id": "A", "name": "Annual"}],
        }
    ]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(document, json_schema("sdmx-report"))


def test_example_suite_scored_stdout():
    """--not-in-target scored prints the lower precisions (0.6641 for all cases, 0.0000 for small talk)
    and the signature with not_in_target:scored; --not-in-target listed is the default, byte for byte."""
    result = run(CASES, SELECTIONS, "--not-in-target", "scored")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "tag         cases  macro recall  macro precision",
        "(all)          12        0.6788           0.6641",
        "cpi             3        0.7389           0.7685",
        "imf            11        0.6788           0.7306",
        "multi-turn      2        0.9000           1.0000",
        "smalltalk       1             -           0.0000",
        "weo             9        0.6722           0.7500",
        f"signature: match:id+name|not_in_target:scored|v:{__version__}",
        "",
        "mean macro recall 0.6788, 95% CI [0.4584, 0.8992] (standard error, 11 items)",
        "mean macro precision 0.6641, 95% CI [0.4424, 0.8859] (standard error, 11 items)",
        "failing: 10 of 12 cases",
        "  chat-01-greeting                   macro recall -, macro precision 0.0000",
        "  conv-01-india-growth-then-prices   macro recall 0.8000, macro precision 1.0000",
        "  cpi-01-mexico-food-prices          macro recall 0.7500, macro precision 0.7500",
        "  cpi-02-us-canada-headline-monthly  macro recall 0.6667, macro precision 0.5556",
        "  weo-02-real-growth-germany-france  macro recall 0.7500, macro precision 1.0000",
        "  weo-03-india-gdp-and-per-capita    macro recall 1.0000, macro precision 0.8333",
        "  weo-04-brazil-inflation            macro recall 0.5000, macro precision 0.5000",
        "  weo-05-spain-unemployment          macro recall 0.0000, macro precision 0.0000",
        "  weo-07-germany-current-account     macro recall 1.0000, macro precision 0.6667",
        "  weo-08-nigeria-population          macro recall 0.0000, macro precision -",
    ]
    assert result.stderr == UNKNOWN_CASE
    default, listed = run(CASES, SELECTIONS), run(CASES, SELECTIONS, "--not-in-target", "listed")
    assert default.stdout == listed.stdout
    assert default.stdout.splitlines()[1] == "(all)          12        0.6788           0.8488"
    assert default.stdout.splitlines()[7] == f"signature: match:id+name|not_in_target:listed|v:{__version__}"


def test_example_workbook_scored(tmp_path):
    """--not-in-target scored in the workbook: the case's lower macro precision, the whole block of
    the dimension not in the target, the suite's 0.66, the reading's note and the signature."""
    out = tmp_path / "sdmx.xlsx"
    result = run(CASES, SELECTIONS, "--not-in-target", "scored", "--xlsx", str(out), "-q")
    assert result.exit_code == 0
    workbook = openpyxl.load_workbook(out)
    rows = {row[0]: row for row in workbook["Overview"].iter_rows(min_row=2, values_only=True)}
    weo07 = rows["weo-07-germany-current-account"]
    assert weo07[4:6] == (1, pytest.approx(2 / 3))
    assert weo07[7] == (
        "IMF.RES:WEO / FREQUENCY\n[recall: n/a, precision: 0.00]\n"
        "True Positives [0]\nFalse Negatives [0]\nFalse Positives [1]\n  * A: Annual"
    )
    assert rows["chat-01-greeting"][4:6] == (None, 0)
    table = list(workbook["Statistics"].iter_rows(values_only=True))
    assert table[1][:3] == ("(all)", 12, pytest.approx(112 / 165))
    assert table[1][3] == pytest.approx(263 / 396)
    notes = {row[0]: row[1] for row in table[7:] if row[0] is not None}
    assert notes["Dimensions not in target"] == NOT_IN_TARGET["scored"]
    assert notes["signature"] == f"match:id+name|not_in_target:scored|v:{__version__}"


@pytest.mark.parametrize("value", ["literal", "Scored", ""])
def test_bad_not_in_target_is_a_usage_error(value):
    """A --not-in-target other than listed or scored is a usage error (exit 2) naming both, before any run."""
    result = run(CASES, SELECTIONS, "--not-in-target", value)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"cli sdmx: Invalid value for '--not-in-target': {value!r} is not one of 'listed', 'scored'. "
        "(see 'cli sdmx --help')\n"
    )


def test_example_workbook(tmp_path):
    """The example's workbook: one Overview row per case with the methodology's detail block,
    the Data Query Metrics per tag, the warning on the Warnings sheet."""
    out = tmp_path / "sdmx.xlsx"
    result = run(CASES, SELECTIONS, "--xlsx", str(out), "-q")
    assert result.exit_code == 0
    assert result.stdout == ""
    workbook = openpyxl.load_workbook(out)
    assert workbook.sheetnames == ["Overview", "Statistics", "Warnings"]
    rows = {row[0]: row for row in workbook["Overview"].iter_rows(min_row=2, values_only=True)}
    assert len(rows) == 12
    india = rows["weo-03-india-gdp-and-per-capita"]
    assert india[2:5] == ("Show me GDP and GDP per capita for India in US dollars.", "imf, weo", 1)
    assert india[5] == pytest.approx(5 / 6)
    assert "[recall: 1.00, precision: 0.67]\nTrue Positives [2]\n" in india[6]
    assert "False Positives [1]\n  * NGDP_R: Gross domestic product, constant prices, National currency" in india[6]
    assert rows["weo-07-germany-current-account"][7] == "IMF.RES:WEO / FREQUENCY\nFalse Positives [1]\n  * A: Annual"
    assert rows["conv-01-india-growth-then-prices"][2] == (
        "What is real GDP growth in India?\nAnd monthly consumer prices there?"
    )
    statistics = workbook["Statistics"]
    table = list(statistics.iter_rows(values_only=True))
    assert table[0] == ("tag", "cases", "mean macro recall", "mean macro precision")
    assert [row[0] for row in table[1:7]] == ["(all)", "cpi", "imf", "multi-turn", "smalltalk", "weo"]
    assert table[4] == ("multi-turn", 2, 0.9, 1.0)
    assert statistics.freeze_panes == "A2" and statistics["C2"].number_format == "0.0000"
    assert len(statistics._charts) == 1
    assert workbook["Warnings"]["A2"].value == UNKNOWN_CASE.removeprefix("warning: ").rstrip("\n")


def test_tag_filter(tmp_path):
    """--tag scores only the tagged cases; a tag no case has is a warning with a suggestion."""
    out = tmp_path / "r.yaml"
    result = run(CASES, SELECTIONS, "--tag", "cpi", "--tag", "CPI", "--yaml", str(out))
    assert result.exit_code == 0
    assert result.stderr == UNKNOWN_CASE + (
        f"warning: {CASES}: no case has tag 'CPI' (did you mean 'cpi'? tags are compared exactly)\n"
    )
    assert result.stdout.splitlines()[1].split() == ["(all)", "3", "0.7389", "0.7685"]
    document = yaml.safe_load(out.read_text())
    assert document["summary"]["cases"] == 3
    assert len(document["warnings"]) == 2


def test_json_to_stdout_replaces_the_table():
    """--json - writes the report alone on stdout."""
    result = run(CASES, SELECTIONS, "--json", "-")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["summary"]["cases"] == 12


def test_quiet_prints_nothing_on_stdout(tmp_path):
    """-q: no summary table on stdout; warnings still go to stderr and reports are written."""
    out = tmp_path / "r.json"
    result = run(CASES, SELECTIONS, "-q", "--json", str(out))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", UNKNOWN_CASE)
    assert json.loads(out.read_text())["summary"]["cases"] == 12


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"c.yaml": "- id: a\n  tags: x\n"}, ["{c}:2:9: tags: should be a list, not a string"]),
        (
            {"c.yaml": "- id: a\n", "s.jsonl": '{"id": "a", "indicator_selection": 3}\n'},
            ["{s}:1:13: indicator_selection: should be a list, not an integer"],
        ),
        (
            {"c.yaml": "- id: a\n", "s.jsonl": "{\n"},
            ["{s}:1:2: invalid JSON: Expecting property name enclosed in double quotes"],
        ),
        (
            {"c.yaml": "- id: a\n  tags: x\n", "s.jsonl": '{"id": "a"}\n'},
            [
                "{c}:2:9: tags: should be a list, not a string",
                "{s}:1:1: indicator_selection: missing; this field is required",
            ],
        ),
        (
            {"c.yaml": "", "s.jsonl": ""},
            [
                "{c}: no test cases in this file (an empty input is refused)",
                "{s}: no selection records in this file (an empty input is refused)",
            ],
        ),
    ],
    ids=["bad case", "bad record", "bad json", "both files", "empty inputs"],
)
def test_input_errors_exit_2_with_location(tmp_path, files, expected):
    """Bad input prints every problem of both files as FILE:LINE:COL (then a count, if several), and exits 2
    without a traceback or any report."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cases, selections = tmp_path / "c.yaml", tmp_path / "s.jsonl"
    if not selections.exists():
        selections.write_text('{"id": "a", "indicator_selection": []}\n')
    result = run(str(cases), str(selections), "--json", str(tmp_path / "r.json"))
    assert result.exit_code == 2
    count = [f"{len(expected)} errors in input"] if len(expected) > 1 else []  # one problem, one line
    assert result.stderr.splitlines() == [line.format(c=cases, s=selections) for line in expected] + count
    assert result.stdout == ""
    assert not (tmp_path / "r.json").exists()


def test_missing_file_exits_2(tmp_path):
    """A missing cases path is an input error naming it."""
    result = run(str(tmp_path / "absent.yaml"), SELECTIONS)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"{tmp_path / 'absent.yaml'}: no such file"]


def test_fifo_and_symlink_loop_in_cases_directory_are_skipped(tmp_path, within):
    """A FIFO, a symlink loop and a dangling link in CASES do not hang the run: each is a warning
    (stderr, JSON report), the regular files are scored."""
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "a.yaml").write_text(
        "id: a\nconversation: [{role: user, content: q, target: {indicator_selection: "
        "[{dataset_id: d, dimensions: [{dimension_name: D, values: [{id: t, name: n}]}]}]}}]\n"
    )
    os.mkfifo(cases / "pipe.yaml")
    os.symlink("loop.yaml", cases / "loop.yaml")
    os.symlink("missing.yaml", cases / "dangling.yaml")
    selections = tmp_path / "s.jsonl"
    selections.write_text(
        '{"id": "a", "indicator_selection": [{"dataset_id": "d", "dimensions": '
        '[{"dimension_name": "D", "values": [{"id": "t", "name": "n"}]}]}]}\n'
    )
    out = tmp_path / "r.json"
    with within(60):  # a guard: opening the FIFO would wait for ever
        result = run(str(cases), str(selections), "--json", str(out))
    assert result.exit_code == 0
    skipped = [
        f"{cases / 'dangling.yaml'}: skipped, not a regular file (no such file or directory)",
        f"{cases / 'loop.yaml'}: skipped, not a regular file (too many levels of symbolic links)",
        f"{cases / 'pipe.yaml'}: skipped, not a regular file (a FIFO)",
    ]
    assert result.stderr.splitlines() == [f"warning: {line}" for line in skipped]
    document = json.loads(out.read_text())
    assert document["warnings"] == skipped
    assert document["summary"] == {"cases": 1, "macro_recall": 1.0, "macro_precision": 1.0, "by_tag": {}}


@pytest.mark.parametrize("option", ["--json", "--yaml", "--xlsx"])
def test_reports_never_overwrite_an_input(tmp_path, option):
    """SELECTIONS, CASES or a case file inside a CASES directory given as a report path is refused
    before anything is read, and left unchanged."""
    cases = tmp_path / "cases"
    cases.mkdir()
    case_file = cases / "a.yaml"
    case_file.write_text("id: a\n")
    selections = tmp_path / "s.jsonl"
    selections.write_text('{"id": "a", "indicator_selection": []}\n')
    for target, name in ((selections, "SELECTIONS"), (case_file, "CASES file a.yaml")):
        before = target.read_bytes()
        result = run(str(cases), str(selections), option, str(target))
        assert result.exit_code == 2
        assert result.stderr == f"{option} {target}: this is the input {name}; refusing to overwrite it\n"
        assert target.read_bytes() == before


def test_two_outputs_on_stdout_is_usage_trouble():
    """Only one report can go to stdout."""
    result = run(CASES, SELECTIONS, "--json", "-", "--yaml", "-")
    assert result.exit_code == 2
    assert result.stderr == "only one of --json and --yaml can write to standard output ('-')\n"


def test_both_inputs_from_stdin_is_trouble():
    """CASES and SELECTIONS cannot both be standard input."""
    result = run("-", "-")
    assert result.exit_code == 2
    assert result.stderr == "only one of CASES and SELECTIONS can be read from standard input\n"


def test_cases_from_stdin(tmp_path):
    """CASES '-' reads a YAML suite from standard input."""
    selections = tmp_path / "s.jsonl"
    selections.write_text('{"id": "a", "indicator_selection": []}\n')
    result = CliRunner().invoke(cli, ["sdmx", "-", str(selections), "--json", "-"], input="- id: a\n- id: b\n")
    assert result.exit_code == 0
    assert [case["id"] for case in json.loads(result.stdout)["cases"]] == ["a", "b"]


def test_unwritable_report_exits_2_before_the_run(tmp_path):
    """A report in a missing directory is refused before anything is read, naming the user's path."""
    out = tmp_path / "missing-dir" / "r.json"
    result = run(CASES, SELECTIONS, "--json", str(out), "-q")
    assert result.exit_code == 2
    assert result.stderr == f"--json {out}: no such directory {out.parent}\n"
    assert not out.parent.exists()


@pytest.mark.parametrize("name", ["sdmx-case", "sdmx-selections", "sdmx-report"])
def test_schema_command_prints_the_sdmx_schemas(name):
    """`answerkey schema` prints each SDMX format's whole-file JSON Schema."""
    result = CliRunner().invoke(cli, ["schema", name])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["$id"] == f"urn:answerkey:schema:{name}"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_case_schema_is_open_to_unknown_keys_and_accepts_the_example():
    """The test-case schema requires only an id, keeps unknown keys, and accepts the example files."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json_schema("sdmx-case")
    case = schema["$defs"]["TestCase"]
    assert case["required"] == ["id"]
    assert case["additionalProperties"] is True
    assert "indicator_selection" in schema["$defs"]["Target"]["properties"]
    for path in sorted(Path(CASES).rglob("*.yaml")):
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)
    selections = [json.loads(line) for line in Path(SELECTIONS).read_text().splitlines() if line.strip()]
    jsonschema.validate(selections, json_schema("sdmx-selections"))


def test_help_teaches_the_formats_and_the_metric():
    """--help names the input shapes, the matching rule, the figures, an example and the exit status."""
    result = CliRunner().invoke(cli, ["sdmx", "--help"])
    assert result.exit_code == 0
    for phrase in (
        "indicator_selection",
        "id and name are both equal",
        "recall = TP/(TP+FN)",
        "--tag TAG",
        "--xlsx OUT",
        "--not-in-target [listed|scored]",
        "[default: listed]",
        "(the methodology's text: \"all selected terms are counted as false",
        "answerkey sdmx cases/ selections.jsonl --not-in-target scored",
        "answerkey sdmx examples/sdmx/cases examples/sdmx/selections.jsonl",
        "Exit status: 0 scored, 2 trouble",
    ):
        assert phrase in result.stdout, phrase
