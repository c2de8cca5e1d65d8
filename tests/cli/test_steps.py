"""`answerkey steps evaluate|aggregate`: the example corpus in examples/steps/, the report
options, and bad or hostile inputs (exit 2, one located line each, nothing written)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from answerkey.cli import cli
from answerkey.cli.schema import json_schema
from answerkey.steps import compute_aggregates

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = str(ROOT / "examples" / "steps" / "reference.yaml")
RESPONSES = str(ROOT / "examples" / "steps" / "responses.jsonl")
SIGNATURE_START = "eps:0.0001|answers:off|retrieval_k:reference|v:"

# What each example response shows (examples/steps/responses.jsonl), and its expected outcome.
EXPECTED = {
    "c10bbc8dce98a4b8832d125134a16153": ("success", 1.0),  # extra column, renamed variables, other row order
    "8bbea9a10876a04ad77a82fd2aedee40": ("success", 0.0),  # the URI column is missing
    "5a1e0c2f8b7d4e6a9c3b2d1e0f9a8b7c": ("success", 1.0),  # ASK true
    "6b2f1d3a9c8e5f7b0d4c3e2f1a0b9c8d": ("success", 0.0),  # DESCRIBE Turtle for an ASK
    "7c3a2e4b0d9f6a8c1e5d4f3a2b1c0d9e": ("success", 1.0),  # ordered, xsd:double within epsilon
    "8d4b3f5c1e0a7b9d2f6e5a4b3c2d1e0f": ("success", 0.0),  # ordered, wrong order
    "9e5c4a6d2f1b8c0e3a7f6b5c4d3e2f1a": ("success", 1.0),  # xsd:long 8 = xsd:integer 8
    "0f6d5b7e3a2c9d1f4b8a7c6d5e4f3a2b": ("error", None),  # the agent failed
    "1a7e6c8f4b3d0e2a5c9b8d7e6f5a4b3c": ("success", 0.5),  # retrieval recall@5
}
SMALL_REFERENCE = (
    "- template_id: t\n"
    "  questions:\n"
    "  - id: q1\n"
    "    question_text: Q\n"
    "    reference_steps: [[{name: calc, output: '1'}]]\n"
)


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, input=input)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def outcomes(results):
    return {r["question_id"]: (r["status"], r.get("steps_score")) for r in results}


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("steps")
    results = folder / "results.yaml"
    outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "-o", str(results), "--xlsx", str(folder / "r.xlsx"))
    return outcome, results, folder


def test_evaluate_example(evaluated):
    """Every example question gets its expected status and steps score; exit 0; the one-line
    summary on stderr as the README shows it, the table on stdout; the report validates."""
    outcome, results, _ = evaluated
    assert outcome.exit_code == 0, outcome.output
    document = yaml.safe_load(results.read_text(encoding="utf-8"))
    jsonschema.validate(document, json_schema("steps-results"))
    assert document["signature"].startswith(SIGNATURE_START)
    assert document["summary"] == {"questions": 9, "success": 8, "error": 1, "mean_steps_score": 0.5625}
    assert outcomes(document["results"]) == EXPECTED
    assert document["warnings"] == []
    assert outcome.stderr == f"9 questions: 8 success, 1 error; mean steps_score 0.5625 ({document['signature']})\n"
    assert outcome.stdout.startswith("template ")
    _, notes = outcome.stdout.split(f"signature: {document['signature']}\n")
    assert notes.startswith("\nmean steps_score 0.5625, 95% CI [")
    assert "failing: 5 of 9 questions\n" in notes


def test_evaluate_records_matches_and_reasons(evaluated):
    """Matched reference steps name the actual step; unmatched ones say why."""
    _, results, _ = evaluated
    by_id = {r["question_id"]: r for r in yaml.safe_load(results.read_text(encoding="utf-8"))["results"]}
    assert (
        by_id["c10bbc8dce98a4b8832d125134a16153"]["reference_steps"][-1][0]["matches"]
        == "call_3b3zHJnBXwYYSg04BiFGAAgO"
    )
    assert by_id["6b2f1d3a9c8e5f7b0d4c3e2f1a0b9c8d"]["reference_steps"][-1][0]["mismatch"].startswith(
        "call_b1: actual output: not SPARQL results JSON (a DESCRIBE or CONSTRUCT result?)"
    )
    assert (
        by_id["0f6d5b7e3a2c9d1f4b8a7c6d5e4f3a2b"]["error"]
        == "Recursion limit of 25 reached without hitting a stop condition."
    )


def test_workbook(evaluated):
    """--xlsx writes Overview (one row per question), Statistics (the aggregates, the signature
    below), Warnings and Step counts; text stays text."""
    from openpyxl import load_workbook

    _, results, folder = evaluated
    signature = yaml.safe_load(results.read_text(encoding="utf-8"))["signature"]
    workbook = load_workbook(folder / "r.xlsx")
    assert workbook.sheetnames == ["Overview", "Statistics", "Warnings", "Step counts"]
    overview = list(workbook["Overview"].values)
    assert overview[0][:8] == (
        "template_id",
        "question_id",
        "question_text",
        "status",
        "error",
        "steps_score",
        "matches",
        "mismatches",
    )
    assert len(overview) == 10
    assert overview[1][6] == "call_3b3zHJnBXwYYSg04BiFGAAgO"
    statistics = list(workbook["Statistics"].values)
    assert ("macro", None, "steps_score", None, 0.6, None, None, None) in statistics
    assert ("signature", signature, None, None, None, None, None, None) in statistics
    assert list(workbook["Warnings"].values) == [("warning",)]


def test_aggregate_command_matches_the_api(evaluated, tmp_path):
    """`steps aggregate` writes compute_aggregates of the results with their signature, as
    YAML (-o, --yaml) or JSON (-o FILE.json, --json); the workbook shows the signature."""
    from openpyxl import load_workbook

    _, results, _ = evaluated
    loaded = yaml.safe_load(results.read_text(encoding="utf-8"))
    outcome = run(
        "steps", "aggregate", str(results), "-o", str(tmp_path / "agg.yaml"), "--xlsx", str(tmp_path / "a.xlsx"), "-q"
    )
    assert (outcome.exit_code, outcome.stdout, outcome.stderr) == (0, "", "")
    document = yaml.safe_load((tmp_path / "agg.yaml").read_text(encoding="utf-8"))
    jsonschema.validate(document, json_schema("steps-aggregates"))
    assert document["signature"] == loaded["signature"]
    assert {key: document[key] for key in ("per_template", "micro", "macro")} == compute_aggregates(loaded["results"])
    assert document["macro"]["steps_score"] == {"mean": 0.6}
    assert document["micro"]["number_of_error_samples"] == 1
    for option, name in (("-o", "agg.json"), ("--json", "agg2.json")):
        outcome = run("steps", "aggregate", str(results), option, str(tmp_path / name))
        assert outcome.exit_code == 0
        assert json.loads((tmp_path / name).read_text(encoding="utf-8")) == document
    statistics = list(load_workbook(tmp_path / "a.xlsx")["Statistics"].values)
    assert ("signature", loaded["signature"], None, None, None, None, None, None) in statistics


def test_aggregate_bare_graphrag_eval_list(evaluated, tmp_path):
    """A bare list of results (graphrag-eval's output) is aggregated; its signature is unknown,
    in the report and in the workbook (never None)."""
    from openpyxl import load_workbook

    _, results, _ = evaluated
    bare = write(tmp_path, "bare.json", json.dumps(yaml.safe_load(results.read_text(encoding="utf-8"))["results"]))
    outcome = run("steps", "aggregate", bare, "--json", str(tmp_path / "agg.json"), "--xlsx", str(tmp_path / "a.xlsx"))
    assert outcome.exit_code == 0
    document = json.loads((tmp_path / "agg.json").read_text(encoding="utf-8"))
    assert document["signature"].startswith("eps:unknown|answers:unknown|retrieval_k:unknown|v:")
    [signature_row] = [row for row in load_workbook(tmp_path / "a.xlsx")["Statistics"].values if row[0] == "signature"]
    assert signature_row[1] == document["signature"]


def test_yaml_to_stdout_without_an_output_option():
    """With no -o, --json or --yaml the YAML report goes to standard output (also with --xlsx)."""
    outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "-q")
    assert outcome.exit_code == 0
    document = yaml.safe_load(outcome.stdout)
    assert outcomes(document["results"]) == EXPECTED
    assert outcome.stderr == ""  # -q: no summary line either
    outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "--json", "-")
    assert json.loads(outcome.stdout)["summary"]["questions"] == 9
    assert outcome.stderr.startswith("9 questions: 8 success, 1 error; mean steps_score 0.5625 (")


def test_responses_as_json_object_keyed_by_id(tmp_path):
    """Responses may be one JSON object keyed by question id; results may be written as JSON."""
    responses = {}
    for line in Path(RESPONSES).read_text(encoding="utf-8").splitlines():
        response = json.loads(line)
        responses[response["question_id"]] = response
    path = write(tmp_path, "responses.json", json.dumps(responses, indent=1))
    outcome = run("steps", "evaluate", REFERENCE, path, "-o", str(tmp_path / "results.json"), "-q")
    assert outcome.exit_code == 0
    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, json_schema("steps-results"))
    assert outcomes(document["results"]) == EXPECTED


@pytest.mark.parametrize(
    "reference, responses, message",
    [
        (
            SMALL_REFERENCE.replace(
                "[[{name: calc, output: '1'}]]",
                "\n    - - name: sparql_query\n"
                "        output: '{\"head\": {}}'\n"
                "        output_media_type: application/sparql-results+json",
            ),
            '{"question_id": "q1"}\n',
            "reference.yaml:6:9: questions.0.reference_steps.0.0: output: SPARQL results JSON needs "
            '"results": {"bindings": [...]} or "boolean"\n',
        ),
        (
            SMALL_REFERENCE,
            '{"question_id": "q1"}\n{"question_id": 5, "steps": 3}\n',
            "responses.jsonl:2:20: steps: should be a list, not an integer\n",
        ),
        (
            SMALL_REFERENCE,
            '{"question_id": "q1"}\n{"question_id": "q1"}\n',
            "responses.jsonl:2:2: a second response to question 'q1' (first at responses.jsonl:1)\n",
        ),
        (
            SMALL_REFERENCE,
            '{"question_id": "q1", "actual_steps": [{"name": "calc"}]}\n',
            "responses.jsonl:1:40: actual_steps.0.status: missing; this field is required\n",
        ),
        (SMALL_REFERENCE, "", "responses.jsonl: no responses in this file (an empty input is refused)\n"),
        (
            "",
            '{"question_id": "q1"}\n{"question_id": \n',
            "reference.yaml: the reference corpus has no templates (an empty input is refused)\n"
            "responses.jsonl:2:17: invalid JSON: Expecting value\n"
            "2 errors in input\n",
        ),
    ],
)
def test_bad_input_exits_2_with_location(tmp_path, reference, responses, message):
    """Bad files exit 2 with FILE:LINE:COL in answerkey's words (both files' problems at once),
    no traceback, nothing on stdout."""
    outcome = run(
        "steps", "evaluate", write(tmp_path, "reference.yaml", reference), write(tmp_path, "responses.jsonl", responses)
    )
    assert outcome.exit_code == 2
    assert outcome.stdout == ""
    assert outcome.stderr.replace(str(tmp_path) + "/", "") == message


def test_answers_flag_needs_the_endpoint(monkeypatch):
    """--answers without ANSWERKEY_JUDGE_URL is trouble (exit 2), never a silent skip."""
    monkeypatch.delenv("ANSWERKEY_JUDGE_URL", raising=False)
    outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "--answers")
    assert outcome.exit_code == 2
    assert outcome.stderr == "--answers needs ANSWERKEY_JUDGE_URL (an OpenAI-compatible API base URL)\n"
    assert outcome.stdout == ""


class _Judge(BaseHTTPRequestHandler):
    """A chat-completions endpoint that finds 1 of 2 claims matching and relevance 0.9."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        reply = "2\t2\t1\tOne matches." if "Reference answer:" in body["messages"][0]["content"] else "0.9"
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


def test_answers_flag(monkeypatch, tmp_path):
    """`--answers` uses the endpoint from the environment; the signature says so."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        monkeypatch.setenv("ANSWERKEY_JUDGE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
        output = tmp_path / "results.yaml"
        outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "--answers", "-o", str(output))
    finally:
        server.shutdown()
        server.server_close()
    assert outcome.exit_code == 0, outcome.output
    document = yaml.safe_load(output.read_text(encoding="utf-8"))
    assert "|answers:llm|" in document["signature"]
    jsonschema.validate(document, json_schema("steps-results"))
    answered = [r for r in document["results"] if "actual_answer" in r]
    assert answered and all(r["answer_relevance"] == 0.9 and r["answer_recall"] == 0.5 for r in answered)
    assert all("answer_relevance" not in r for r in document["results"] if "actual_answer" not in r)


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("r.yaml", "- a: 1\n", "r.yaml:1:3: template_id: missing; this field is required"),
        (
            "r.yaml",
            "a: 1\n",
            "r.yaml:1:1: evaluation results are the report of `answerkey steps evaluate` "
            '(with "results") or a list of per-question results, not a mapping without "results"',
        ),
        ("r.jsonl", '{"template_id": "t"}\n{"template_id": \n', "r.jsonl:2:17: invalid JSON: Expecting value"),
        (
            "r.json",
            '[{"template_id": "t"}, 3]',
            "r.json:1:24: a per-question result is a mapping with template_id, not an integer",
        ),
        (
            "reference.yaml",
            SMALL_REFERENCE,
            "reference.yaml:1:1: this is a reference corpus (templates with questions), "
            "not evaluation results (the report of steps evaluate): run `answerkey steps evaluate REFERENCE RESPONSES` "
            "first, and aggregate the results it writes",
        ),
        ("r.json", "", "r.json: no results in this file (an empty input is refused)"),
        ("r.yaml", "[]\n", "r.yaml: no results in this file (an empty input is refused)"),
        # Issue 19 item 2: each was a traceback (TypeError, ValueError from fsum or int conversion).
        (
            "r.json",
            '[{"template_id": "t", "question_id": "q", "actual_steps": 7}]',
            "r.json:1:43: actual_steps: should be a list, not an integer",
        ),
        ("r.json", '[{"template_id": "t", "steps_score": Infinity}]', "r.json:1:38: Infinity is not a JSON number"),
        ("r.json", '[{"template_id": "t", "steps_score": -Infinity}]', "r.json:1:38: -Infinity is not a JSON number"),
        ("r.json", '[{"template_id": "t", "steps_score": NaN}]', "r.json:1:38: NaN is not a JSON number"),
        (
            "r.yaml",
            "- {template_id: t, steps_score: -.inf}\n",
            "r.yaml:1:33: -.inf is not a finite number",
        ),
        (
            "r.yaml",
            "- {template_id: t, steps_score: 2}\n",
            "r.yaml:1:33: steps_score: should be a number from 0 to 1, not 2",
        ),
        (
            "r.json",
            '[{"template_id": "t", "total_tokens": ' + "7" * 4400 + "}]",
            "r.json:1:39: an integer of 4,400 digits (more than 4,300)",
        ),
    ],
)
def test_aggregate_rejects_non_results(tmp_path, name, text, message):
    """A file that is not per-question results exits 2 with one located line, nothing written."""
    output = tmp_path / "agg.yaml"
    outcome = run("steps", "aggregate", write(tmp_path, name, text), "-o", str(output))
    assert outcome.exit_code == 2
    assert outcome.stderr.replace(str(tmp_path) + "/", "") == message + "\n"
    assert outcome.stdout == "" and not output.exists()


def test_huge_integer_in_responses(tmp_path):
    """A JSON integer of over 4,300 digits in responses is one located error, nothing written."""
    output = tmp_path / "r.yaml"
    responses = write(tmp_path, "responses.jsonl", '{"question_id": "q1", "input_tokens": ' + "1" * 5000 + "}\n")
    outcome = run("steps", "evaluate", write(tmp_path, "reference.yaml", SMALL_REFERENCE), responses, "-o", str(output))
    assert outcome.exit_code == 2
    assert outcome.stderr.replace(str(tmp_path) + "/", "") == (
        "responses.jsonl:1:39: an integer of 5,000 digits (more than 4,300)\n"
    )
    assert not output.exists()


@pytest.mark.parametrize(
    "name, text, place",
    [
        ("responses.json", '{"\\ud800": {"question_id": "q1"}}', "1:3"),
        ("responses.json", '[{"question_id": "q1", "actual_answer": "x\\ud800"}]', "1:43"),
        ("responses.jsonl", '{"question_id": "q1"}\n{"question_id": "\\udc00"}\n', "2:18"),
        (
            "responses.jsonl",
            '{"question_id": "q1", "actual_steps": [{"name": "calc", "status": "success", "output": "\\ud800"}]}\n',
            "1:89",
        ),
        ("responses.yaml", '- question_id: "\\ud800"\n', "1:"),
        ("responses.yaml", '- question_id: q1\n  actual_answer: "\\udfff"\n', "2:"),
        ("responses.yaml", '- question_id: q1\n  steps:\n  - {name: calc, status: success, output: "\\ud800"}\n', "3:"),
    ],
)
def test_lone_surrogates_in_responses(tmp_path, name, text, place):
    """A lone surrogate escape in a question id, an answer or a step output (JSON, JSON Lines,
    YAML) is refused at loading: exit 2, FILE:LINE:COL, one line, nothing written (issue 19 item 1)."""
    output, workbook = tmp_path / "r.json", tmp_path / "r.xlsx"
    outcome = run(
        "steps",
        "evaluate",
        write(tmp_path, "reference.yaml", SMALL_REFERENCE),
        write(tmp_path, name, text),
        "-o",
        str(output),
        "--xlsx",
        str(workbook),
    )
    assert outcome.exit_code == 2
    message = outcome.stderr.replace(str(tmp_path) + "/", "")
    assert message.startswith(f"{name}:{place}") and message.count("\n") == 1
    assert outcome.stdout == "" and not output.exists() and not workbook.exists()


@pytest.mark.parametrize(
    "text, place",
    [
        ('[{"template_id": "t", "question_id": "\\ud800"}]', "1:39"),
        ('{"signature": "x", "summary": {}, "results": [{"template_id": "\\udc00"}], "warnings": []}', "1:64"),
    ],
)
def test_lone_surrogates_in_results(tmp_path, text, place):
    """steps aggregate refuses a lone surrogate in its results: exit 2, located, nothing written
    (also not to standard output)."""
    outcome = run("steps", "aggregate", write(tmp_path, "r.json", text))
    assert outcome.exit_code == 2
    assert outcome.stderr.replace(str(tmp_path) + "/", "").startswith(f"r.json:{place}: ")
    assert outcome.stdout == ""


def test_unknown_question_ids_are_warned_about(tmp_path):
    """A response to a question the reference lacks is a warning at FILE:LINE, kept in the report."""
    responses = write(tmp_path, "responses.jsonl", '\n{"question_id": "zz", "actual_steps": []}\n')
    output = tmp_path / "r.json"
    outcome = run("steps", "evaluate", REFERENCE, responses, "-o", str(output))
    assert outcome.exit_code == 0
    lines = outcome.stderr.replace(str(tmp_path) + "/", "").splitlines()
    warning = "responses.jsonl:2: a response to question 'zz', which is not in the reference"
    assert lines[0] == f"warning: {warning}"
    assert lines[1].startswith("warning: no response in ")
    assert lines[2].startswith("warning: 9 questions of 9 in ")
    assert lines[3].startswith("9 questions: 0 success, 9 error;")
    warnings = json.loads(output.read_text(encoding="utf-8"))["warnings"]
    assert warnings[0] == f"{tmp_path}/{warning}"


@pytest.mark.parametrize(
    "options, message",
    [
        (["-o", "{tmp}"], "-o {tmp}: is a directory; give a file name"),
        (["-o", "/missing/dir/x.yaml"], "-o /missing/dir/x.yaml: no such directory /missing/dir"),
        (["--json", "/missing/dir/x.json"], "--json /missing/dir/x.json: no such directory /missing/dir"),
        (["--xlsx", "/missing/dir/x.xlsx"], "--xlsx /missing/dir/x.xlsx: no such directory /missing/dir"),
        (["--xlsx", "-"], "--xlsx needs a file name: a workbook cannot go to standard output"),
        (
            ["-o", "{tmp}/a.json", "--json", "{tmp}/b.json"],
            "-o {tmp}/a.json and --json {tmp}/b.json both ask for the JSON report; give one",
        ),
        (["-o", "{reference}"], "-o {reference}: this is the input REFERENCE; refusing to overwrite it"),
        (["--json", "{responses}"], "--json {responses}: this is the input RESPONSES; refusing to overwrite it"),
        (["--xlsx", "{reference}"], "--xlsx {reference}: this is the input REFERENCE; refusing to overwrite it"),
    ],
)
def test_bad_output_paths_are_refused_before_the_run(tmp_path, options, message):
    """Output paths are checked before anything is read or printed (issue 15 defect 1, issue 19
    item 7): exit 2, one line naming the option typed, the inputs untouched."""
    reference = write(tmp_path, "reference.yaml", SMALL_REFERENCE)
    responses = write(tmp_path, "responses.json", '[{"question_id": "q1"}]')
    names = {"tmp": str(tmp_path), "reference": reference, "responses": responses}
    outcome = run("steps", "evaluate", reference, responses, *(option.format(**names) for option in options))
    assert outcome.exit_code == 2
    assert (outcome.stdout, outcome.stderr) == ("", message.format(**names) + "\n")
    assert Path(reference).read_text(encoding="utf-8") == SMALL_REFERENCE
    assert Path(responses).read_text(encoding="utf-8") == '[{"question_id": "q1"}]'


@pytest.mark.parametrize("option", ["-o", "--yaml", "--xlsx"])
def test_aggregate_refuses_to_overwrite_its_results(evaluated, option):
    """`steps aggregate -o RESULTS` (or any report to RESULTS) is refused; the results stay."""
    _, results, _ = evaluated
    before = results.read_bytes()
    outcome = run("steps", "aggregate", str(results), option, str(results))
    assert outcome.exit_code == 2
    assert outcome.stderr == f"{option} {results}: this is the input RESULTS; refusing to overwrite it\n"
    assert results.read_bytes() == before


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("inf", "'inf' is not a number written in decimal digits (such as 0.001 or 1e-4)"),
        ("1e400", "must be a finite number >= 0 and <= 1, not '1e400'"),
        ("nan", "'nan' is not a number written in decimal digits (such as 0.001 or 1e-4)"),
        ("-1", "must be a finite number >= 0 and <= 1, not '-1'"),
    ],
)
def test_epsilon_must_be_finite(value, why):
    """--epsilon inf, 1e400, nan or a negative number is a usage error (exit 2) before any output."""
    outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "--epsilon", value)
    assert outcome.exit_code == 2
    assert outcome.stdout == ""
    assert outcome.stderr == (
        f"cli steps evaluate: Invalid value for '--epsilon' / '-e': {why} (see 'cli steps evaluate --help')\n"
    )


def test_epsilon_is_in_the_signature(tmp_path):
    """--epsilon changes scores and is in the signature, which lists only steps' options."""
    outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "--epsilon", "0.5", "--json", "-")
    assert json.loads(outcome.stdout)["signature"].startswith("eps:0.5|answers:off|retrieval_k:reference|v:")


def test_only_one_input_from_stdin():
    """REFERENCE and RESPONSES cannot both be standard input."""
    outcome = run("steps", "evaluate", "-", "-", input="")
    assert (outcome.exit_code, outcome.stderr) == (
        2,
        "only one of REFERENCE and RESPONSES can be read from standard input\n",
    )


def test_responses_from_stdin(tmp_path):
    """RESPONSES may be standard input (JSON Lines, sniffed); errors name it <stdin>."""
    text = Path(RESPONSES).read_text(encoding="utf-8")
    outcome = run("steps", "evaluate", REFERENCE, "-", "--json", "-", input=text)
    assert outcome.exit_code == 0
    assert outcomes(json.loads(outcome.stdout)["results"]) == EXPECTED
    outcome = run("steps", "evaluate", REFERENCE, "-", input='{"question_id": 1.5}\n')
    assert (outcome.exit_code, outcome.stderr) == (
        2,
        "<stdin>:1:2: question_id: an id is a string or an integer, not a number with a fraction\n",
    )


def test_old_yaml_results_keep_their_signature(tmp_path):
    """Results written by earlier answerkey versions (a YAML list under a signature comment) are
    aggregated with that signature."""
    text = (
        "# answerkey steps evaluate | eps:0.001|scalars:atis|strings:exact|answers:off|v:0.0.9\n"
        "- {template_id: t, question_id: q1, status: success, steps_score: 1.0}\n"
    )
    outcome = run("steps", "aggregate", write(tmp_path, "old.yaml", text), "--json", "-")
    assert outcome.exit_code == 0
    assert json.loads(outcome.stdout)["signature"] == "eps:0.001|scalars:atis|strings:exact|answers:off|v:0.0.9"


def test_help_documents_the_output_alias():
    """`-o` is documented as the compatible alias of --yaml/--json."""
    outcome = run("steps", "evaluate", "--help")
    assert "Same as --yaml FILE, or --json FILE when FILE ends in .json" in " ".join(outcome.stdout.split())


def test_schema_steps_reference():
    """`answerkey schema steps-reference` prints the corpus JSON Schema."""
    outcome = run("schema", "steps-reference")
    assert outcome.exit_code == 0
    schema = json.loads(outcome.stdout)
    assert schema["type"] == "array"
    assert "ReferenceStep" in schema["$defs"]


@pytest.mark.parametrize("name", ["steps-responses", "steps-results", "steps-aggregates"])
def test_schemas_print(name):
    """Every steps format has a whole-file JSON Schema with $schema and $id."""
    outcome = run("schema", name)
    assert outcome.exit_code == 0
    schema = json.loads(outcome.stdout)
    assert schema["$id"] == f"urn:answerkey:schema:{name}"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_yaml_nan_in_responses_is_refused_before_writing(tmp_path):
    """A YAML .nan copied from a response would make the JSON report fail at the end of the
    run: it is refused at loading instead (exit 2, located, nothing written)."""
    output = tmp_path / "r.json"
    responses = write(
        tmp_path,
        "responses.yaml",
        "- question_id: q1\n  actual_steps:\n  - {name: calc, status: success, output: .nan}\n",
    )
    outcome = run("steps", "evaluate", write(tmp_path, "reference.yaml", SMALL_REFERENCE), responses, "-o", str(output))
    assert outcome.exit_code == 2
    assert outcome.stderr.replace(str(tmp_path) + "/", "") == ("responses.yaml:3:43: .nan is not a finite number\n")
    assert not output.exists()


def test_figures_too_large_to_add_up(tmp_path):
    """Figures whose sum no float holds are trouble naming the file and the figure (exit 2),
    not an infinity in the report or a traceback."""
    reference = write(
        tmp_path, "reference.yaml", SMALL_REFERENCE + SMALL_REFERENCE.split("\n", 2)[2].replace("q1", "q2")
    )
    responses = write(
        tmp_path,
        "responses.jsonl",
        '{"question_id": "q1", "elapsed_sec": 1.7e308}\n{"question_id": "q2", "elapsed_sec": 1.7e308}\n',
    )
    outcome = run("steps", "evaluate", reference, responses, "--json", str(tmp_path / "r.json"))
    assert outcome.exit_code == 2
    assert outcome.stderr.replace(str(tmp_path) + "/", "") == (
        "responses.jsonl: elapsed_sec: the values are too large to add up: their sum is beyond a float's range\n"
    )
    assert not (tmp_path / "r.json").exists()


# graphrag-eval 4.0's formats: a retrieval output as a YAML list of ids, the agent asking for
# more documents than the reference's k.
RETRIEVAL_REFERENCE = (
    "- template_id: sky\n"
    "  questions:\n"
    "  - id: q1\n"
    "    question_text: Why is the sky blue?\n"
    "    reference_steps:\n"
    "    - - name: retrieval\n"
    "        args: {question: Why is the sky blue?, k: 5}\n"
    "        output: [1, 3, 5, 7, 9]\n"
)
RETRIEVAL_RESPONSE = json.dumps(
    {
        "question_id": "q1",
        "steps": [
            {"name": "retrieval", "args": {"k": 10}, "id": "r1", "status": "success", "output": list(range(1, 11))}
        ],
    }
)


@pytest.mark.parametrize(
    "options, score, rule",
    [
        ([], 0.6, "reference"),
        (["--retrieval-k", "reference"], 0.6, "reference"),
        (["--retrieval-k", "actual"], 1.0, "actual"),
    ],
)
def test_retrieval_k_option(tmp_path, options, score, rule):
    """--retrieval-k: the reference's k by default (graphrag-eval 4.0: recall@5 = 0.6), the
    actual step's with `actual` (recall@10 = 1.0); the rule is in the signature."""
    reference = write(tmp_path, "reference.yaml", RETRIEVAL_REFERENCE)
    responses = write(tmp_path, "responses.jsonl", RETRIEVAL_RESPONSE + "\n")
    outcome = run("steps", "evaluate", reference, responses, "--json", "-", *options)
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(outcome.stdout)
    assert document["results"][0]["steps_score"] == pytest.approx(score)
    assert document["signature"].startswith(f"eps:0.0001|answers:off|retrieval_k:{rule}|v:")


def test_retrieval_k_option_is_checked(tmp_path):
    """An unknown --retrieval-k rule is a usage error (exit 2) naming the choices."""
    outcome = run("steps", "evaluate", REFERENCE, RESPONSES, "--retrieval-k", "agent")
    assert outcome.exit_code == 2
    assert "'agent' is not one of 'reference', 'actual'" in outcome.stderr


def weights(*rows):
    """SPARQL results whose literal values are JSON numbers (graphrag-eval 4.0's tests)."""
    return json.dumps(
        {
            "head": {"vars": ["w", "a"]},
            "results": {
                "bindings": [
                    {"w": {"type": "literal", "value": w}, "a": {"type": "literal", "value": a}} for w, a in rows
                ]
            },
        }
    )


def test_json_number_values_are_read_with_counted_warnings(tmp_path):
    """SPARQL term values that are JSON numbers load and score (reals within epsilon); each
    reference output and each actual output read so is a warning at FILE:LINE, the first 5
    shown and the rest counted, all of them in the report."""
    questions = "".join(
        f"  - id: q{n}\n"
        f"    question_text: Q{n}\n"
        "    reference_steps:\n"
        "    - - name: sparql_query\n"
        "        output_media_type: application/sparql-results+json\n"
        f"        output: '{weights((40.123456789, 100), (41.123456789, 101))}'\n"
        for n in range(1, 4)
    )
    reference = write(tmp_path, "reference.yaml", "- template_id: t\n  questions:\n" + questions)
    responses = write(
        tmp_path,
        "responses.jsonl",
        "".join(
            json.dumps(
                {
                    "question_id": f"q{n}",
                    "actual_steps": [
                        {
                            "name": "sparql_query",
                            "id": f"s{n}",
                            "status": "success",
                            "output": weights((41.12345678, 101.0), (40.12345678, 100.0)),
                        }
                    ],
                }
            )
            + "\n"
            for n in range(1, 4)
        ),
    )
    output = tmp_path / "results.json"
    outcome = run("steps", "evaluate", reference, responses, "--json", str(output), "-q")
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(output.read_text(encoding="utf-8"))
    assert [result["steps_score"] for result in document["results"]] == [1.0, 1.0, 1.0]
    note = "4 term values are JSON numbers or booleans, not text (the first: binding 1, variable 'w': {}); read as typed values"
    expected = [
        *(
            f"reference.yaml:{2 + 6 * n}: question 'q{n}': reference output: {note.format(40.123456789)}"
            for n in range(1, 4)
        ),
        *(f"responses.jsonl:{n}: question 'q{n}', s{n}: {note.format(41.12345678)}" for n in range(1, 4)),
    ]
    assert [warning.replace(str(tmp_path) + "/", "") for warning in document["warnings"]] == expected
    lines = outcome.stderr.replace(str(tmp_path) + "/", "").splitlines()
    assert lines[:5] == [f"warning: {warning}" for warning in expected[:5]]
    assert lines[5] == "warning: ... and 1 more warning like these (all are in the reports)"


def test_other_media_types_load_and_compare_identical_outputs(tmp_path):
    """text/uri (or any other) media types load in any group and compare identical outputs; a
    known type written in another case is warned about at its line."""
    reference = write(
        tmp_path,
        "reference.yaml",
        "- template_id: t\n"
        "  questions:\n"
        "  - id: q1\n"
        "    question_text: Power flow from NO1 to NO3\n"
        "    reference_steps:\n"
        "    - - {name: iri_discovery, args: {query: NO1}, output: 'urn:uuid:83aa', output_media_type: text/uri}\n"
        "    - - name: lookup\n"
        "        output: '{\"a\": 1}'\n"
        "        output_media_type: Application/JSON\n",
    )
    responses = write(
        tmp_path,
        "responses.jsonl",
        json.dumps(
            {"question_id": "q1", "steps": [{"name": "lookup", "id": "l1", "status": "success", "output": '{"a": 1}'}]}
        )
        + "\n",
    )
    outcome = run("steps", "evaluate", reference, responses, "--json", "-", "-q")
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(outcome.stdout)
    assert document["results"][0]["steps_score"] == 1.0
    warning = (
        "reference.yaml:9: output_media_type 'Application/JSON' is not 'application/json' as written, so the "
        "outputs are compared as identical text; write 'application/json' to compare them as such"
    )
    assert [w.replace(str(tmp_path) + "/", "") for w in document["warnings"]] == [warning]


ALL_ERRORS_RESULTS = [
    {"template_id": "a", "question_id": "a1", "status": "success", "steps_score": 1.0, "input_tokens": 300},
    {"template_id": "b", "question_id": "b1", "status": "error", "error": "Recursion limit"},
]


@pytest.mark.parametrize(
    "options, macro, signature_end",
    [
        ([], {"steps_score": {"mean": 1.0}, "input_tokens": {"mean": 300.0}}, "retrieval_k:unknown|v:"),
        (
            ["--missing-usage", "zero"],
            {
                "steps_score": {"mean": 1.0},
                "input_tokens": {"mean": 150.0},
                "output_tokens": {"mean": 0.0},
                "total_tokens": {"mean": 0.0},
                "elapsed_sec": {"mean": 0.0},
            },
            "retrieval_k:unknown|missing_usage:zero|v:",
        ),
    ],
)
def test_missing_usage_option(tmp_path, options, macro, signature_end):
    """--missing-usage zero: a template without usage figures counts 0 in the macro means, as
    graphrag-eval 4.0 does, and the signature says so; by default it is left out."""
    results = write(tmp_path, "results.json", json.dumps(ALL_ERRORS_RESULTS))
    outcome = run("steps", "aggregate", results, "--json", "-", *options)
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(outcome.stdout)
    jsonschema.validate(document, json_schema("steps-aggregates"))
    assert document["macro"] == macro
    assert signature_end in document["signature"]
    assert document["signature"][: document["signature"].index("|v:") + 3].endswith(signature_end)
