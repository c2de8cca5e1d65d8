"""`answerkey steps evaluate|aggregate` on the example corpus in examples/steps/."""

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from answerkey.cli import cli
from answerkey.steps import compute_aggregates

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = str(ROOT / "examples" / "steps" / "reference.yaml")
RESPONSES = str(ROOT / "examples" / "steps" / "responses.jsonl")

# What each example response shows (examples/steps/responses.jsonl), and its expected outcome.
EXPECTED = {
    "c10bbc8dce98a4b8832d125134a16153": ("success", 1.0),  # extra column, renamed variables, other row order
    "8bbea9a10876a04ad77a82fd2aedee40": ("success", 0.0),  # the URI column is missing
    "5a1e0c2f8b7d4e6a9c3b2d1e0f9a8b7c": ("success", 1.0),  # ASK true
    "6b2f1d3a9c8e5f7b0d4c3e2f1a0b9c8d": ("success", 0.0),  # DESCRIBE Turtle for an ASK
    "7c3a2e4b0d9f6a8c1e5d4f3a2b1c0d9e": ("success", 1.0),  # ordered, xsd:double within epsilon
    "8d4b3f5c1e0a7b9d2f6e5a4b3c2d1e0f": ("success", 0.0),  # ordered, wrong order
    "9e5c4a6d2f1b8c0e3a7f6b5c4d3e2f1a": ("success", 1.0),  # xsd:long 8 = xsd:integer 8
    "0f6d5b7e3a2c9d1f4b8a7c6d5e4f3a2b": ("error", None),   # the agent failed
    "1a7e6c8f4b3d0e2a5c9b8d7e6f5a4b3c": ("success", 0.5),  # retrieval recall@5
}


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("steps")
    results = folder / "results.yaml"
    outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "-o", str(results), "--xlsx", str(folder / "r.xlsx"))
    return outcome, results, folder


def test_evaluate_example(evaluated):
    """Every example question gets its expected status and steps score; exit 0; a summary on stderr."""
    outcome, results, folder = evaluated
    assert outcome.exit_code == 0, outcome.output
    text = results.read_text(encoding="utf-8")
    assert text.startswith("# answerkey steps evaluate | eps:0.0001|scalars:atis|strings:exact|answers:off|v:")
    loaded = yaml.safe_load(text)
    assert {r["question_id"]: (r["status"], r.get("steps_score")) for r in loaded} == EXPECTED
    assert outcome.stdout == ""
    assert outcome.stderr.startswith("9 questions: 8 success, 1 error; mean steps_score 0.5625 (eps:0.0001|")


def test_evaluate_records_matches_and_reasons(evaluated):
    """Matched reference steps name the actual step; unmatched ones say why."""
    _, results, _ = evaluated
    by_id = {r["question_id"]: r for r in yaml.safe_load(results.read_text(encoding="utf-8"))}
    assert by_id["c10bbc8dce98a4b8832d125134a16153"]["reference_steps"][-1][0]["matches"] == "call_3b3zHJnBXwYYSg04BiFGAAgO"
    assert by_id["6b2f1d3a9c8e5f7b0d4c3e2f1a0b9c8d"]["reference_steps"][-1][0]["mismatch"].startswith(
        "call_b1: actual output: not SPARQL results JSON (a DESCRIBE or CONSTRUCT result?)")
    assert by_id["0f6d5b7e3a2c9d1f4b8a7c6d5e4f3a2b"]["error"] == "Recursion limit of 25 reached without hitting a stop condition."


def test_workbook(evaluated):
    """--xlsx writes one row per question, the aggregates and the signature; text stays text."""
    from openpyxl import load_workbook

    _, _, folder = evaluated
    workbook = load_workbook(folder / "r.xlsx")
    assert workbook.sheetnames == ["questions", "aggregates", "steps", "signature"]
    questions = list(workbook["questions"].values)
    assert questions[0][:7] == ("template_id", "question_id", "question_text", "status", "error", "steps_score", "matches")
    assert len(questions) == 10
    assert questions[1][6] == "call_3b3zHJnBXwYYSg04BiFGAAgO"
    aggregates = list(workbook["aggregates"].values)
    assert ("macro", None, "steps_score", None, 0.6, None, None, None) in aggregates
    assert workbook["signature"]["B1"].value.startswith("eps:0.0001|")


def test_aggregate_command_matches_the_api(evaluated, tmp_path):
    """`steps aggregate` writes compute_aggregates of the results, as YAML or JSON."""
    _, results, _ = evaluated
    loaded = yaml.safe_load(results.read_text(encoding="utf-8"))
    outcome = run("steps", "aggregate", str(results), "-o", str(tmp_path / "agg.yaml"), "--xlsx", str(tmp_path / "a.xlsx"))
    assert outcome.exit_code == 0
    text = (tmp_path / "agg.yaml").read_text(encoding="utf-8")
    assert text.startswith("# answerkey steps aggregate | eps:0.0001|scalars:atis|strings:exact|answers:off|v:")
    aggregates = yaml.safe_load(text)
    assert aggregates == compute_aggregates(loaded)
    assert aggregates["macro"]["steps_score"] == {"mean": 0.6}
    assert aggregates["micro"]["number_of_error_samples"] == 1
    outcome = run("steps", "aggregate", str(results), "-o", str(tmp_path / "agg.json"))
    assert json.loads((tmp_path / "agg.json").read_text(encoding="utf-8")) == aggregates
    assert (tmp_path / "a.xlsx").stat().st_size > 0


def test_responses_as_json_object_keyed_by_id(tmp_path):
    """Responses may be one JSON object keyed by question id; results may be written as JSON."""
    responses = {}
    for line in Path(RESPONSES).read_text(encoding="utf-8").splitlines():
        response = json.loads(line)
        responses[response["question_id"]] = response
    path = tmp_path / "responses.json"
    path.write_text(json.dumps(responses, indent=1), encoding="utf-8")
    outcome = run("steps", "evaluate", REFERENCE, str(path), "-o", str(tmp_path / "results.json"), "-q")
    assert outcome.exit_code == 0
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert {r["question_id"]: (r["status"], r.get("steps_score")) for r in results} == EXPECTED


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("reference, responses, message", [
    ("- template_id: t\n  questions:\n  - id: q1\n    question_text: Q\n    reference_steps:\n"
     "    - - name: sparql_query\n        output: '{\"head\": {}}'\n        output_media_type: application/sparql-results+json\n",
     "", "reference.yaml:6:9: 0.questions.0.reference_steps.0.0: Value error, output: SPARQL results JSON needs "
         "\"results\": {\"bindings\": [...]} or \"boolean\""),
    ("- template_id: t\n  questions:\n  - id: q1\n    question_text: Q\n  - id: q1\n    question_text: R\n",
     "", "reference.yaml:5:9: question id 'q1' appears twice (first at line 3)"),
    ("template_id: t\n", "", "reference.yaml:1:1: a reference corpus is a list of templates"),
    ("- template_id: t\n  questions: []\n", '{"question_id": "q1"}\n{"question_id": 5, "steps": 3}\n',
     "responses.jsonl:2: response.actual_steps: Input should be a valid list\n"),
    ("- template_id: t\n  questions: []\n", '{"question_id": "q1"}\n{"question_id": "q1"}\n',
     "responses.jsonl:2: a second response to question 'q1'"),
    ("- template_id: t\n  questions: []\n", '{"q1": {"question_id": "q1"},\n  "q2": }',
     "responses.jsonl:2:9: invalid JSON: Expecting value"),
])
def test_bad_input_exits_2_with_location(tmp_path, reference, responses, message):
    """Bad files exit 2 with FILE:LINE:COL and no traceback."""
    outcome = run("steps", "evaluate", write(tmp_path, "reference.yaml", reference),
                  write(tmp_path, "responses.jsonl", responses or "[]"))
    assert outcome.exit_code == 2
    assert outcome.stderr.replace(str(tmp_path) + "/", "").startswith(message)


def test_answers_flag_needs_the_endpoint(monkeypatch):
    """--answers without ANSWERKEY_JUDGE_URL is trouble (exit 2), never a silent skip."""
    monkeypatch.delenv("ANSWERKEY_JUDGE_URL", raising=False)
    outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "--answers")
    assert outcome.exit_code == 2
    assert "--answers needs ANSWERKEY_JUDGE_URL" in outcome.stderr


@pytest.mark.parametrize("name, text, message", [
    ("r.yaml", "- a: 1\n", "r.yaml:1:3: result 1 is not a per-question result with a template_id"),
    ("r.yaml", "a: 1\n", "r.yaml:1:1: evaluation results are a list of per-question results"),
    ("r.jsonl", '{"template_id": "t"}\n{"template_id": \n', "r.jsonl:2:17: invalid JSON: Expecting value"),
    ("r.json", '[{"template_id": "t"}, 3]', "r.json: result 2 is not a per-question result with a template_id"),
])
def test_aggregate_rejects_non_results(tmp_path, name, text, message):
    """A file that is not a list of per-question results exits 2 with its place."""
    outcome = run("steps", "aggregate", write(tmp_path, name, text))
    assert outcome.exit_code == 2
    assert outcome.stderr.replace(str(tmp_path) + "/", "") == message + "\n"


def test_schema_steps_reference():
    """`answerkey schema steps-reference` prints the corpus JSON Schema."""
    outcome = run("schema", "steps-reference")
    assert outcome.exit_code == 0
    schema = json.loads(outcome.stdout)
    assert schema["type"] == "array"
    assert "ReferenceStep" in schema["$defs"]


def test_deeply_nested_input_is_refused(tmp_path):
    """Nesting past 100 levels (in an output, say) is an input error, not a RecursionError."""
    deep = "[" * 150 + '"x"' + "]" * 150
    responses = write(tmp_path, "responses.json",
                      '[{"question_id": "q1", "actual_steps": [{"name": "a", "status": "success", "output": ' + deep + "}]}]")
    reference = write(tmp_path, "reference.yaml", "- template_id: t\n  questions: []\n")
    outcome = run("steps", "evaluate", reference, responses)
    assert outcome.exit_code == 2
    assert outcome.stderr.replace(str(tmp_path) + "/", "") == "responses.json: responses.0: nested deeper than 100 levels\n"
    nested = "- template_id: t\n  questions: []\n  extra: " + "[" * 150 + "1" + "]" * 150 + "\n"
    outcome = run("steps", "evaluate", write(tmp_path, "deep.yaml", nested), responses)
    assert outcome.exit_code == 2
    assert outcome.stderr.replace(str(tmp_path) + "/", "") == "deep.yaml: reference: nested deeper than 100 levels\n"


def test_unknown_question_ids_are_warned_about(tmp_path):
    """A response to a question the reference lacks is reported on stderr and otherwise ignored."""
    responses = write(tmp_path, "responses.jsonl", '{"question_id": "zz", "actual_steps": []}\n')
    outcome = run("steps", "evaluate", REFERENCE, responses, "-o", str(tmp_path / "r.yaml"))
    assert outcome.exit_code == 0
    lines = outcome.stderr.replace(str(tmp_path) + "/", "").splitlines()
    assert lines[0] == "warning: responses.jsonl: a response to question 'zz', which is not in the reference"
    assert lines[1].startswith("9 questions: 0 success, 9 error;")
