"""Results of steps runs (answerkey.steps.run, .report): documents valid against their JSON
Schemas, signatures, summary tables and workbook sheets."""

import json
from pathlib import Path

import jsonschema
import pytest

from answerkey.cli.schema import json_schema
from answerkey.files import load_document
from answerkey.report import Result, json_text, yaml_text
from answerkey.signature import Signature
from answerkey.steps import compute_aggregates
from answerkey.steps.load import EvaluationResults, read_reference, read_responses
from answerkey.steps.run import UNKNOWN_SIGNATURE, StepsOptions, aggregate_steps, run_steps
from answerkey.steps.schema import METRICS, MacroFigures, QuestionResult, SampleFigures

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "steps"


@pytest.fixture(scope="module")
def example_run():
    return run_steps(read_reference(EXAMPLES / "reference.yaml"), read_responses(EXAMPLES / "responses.jsonl"))


def validate(document, name):
    jsonschema.validate(document, json_schema(name))


def test_example_inputs_validate_against_their_schemas():
    """The bundled reference and responses are valid steps-reference and steps-responses documents."""
    validate(load_document(EXAMPLES / "reference.yaml").data, "steps-reference")
    validate(load_document(EXAMPLES / "responses.jsonl").data, "steps-responses")
    responses = {r["question_id"]: r for r in load_document(EXAMPLES / "responses.jsonl").data}
    validate(responses, "steps-responses")


def test_results_document(example_run):
    """steps evaluate's document: signature (epsilon, answers and retrieval_k only), summary,
    graphrag-eval results, warnings; valid against steps-results, also after a JSON and YAML
    round trip."""
    assert isinstance(example_run, Result)
    document = example_run.document()
    assert list(document) == ["signature", "summary", "results", "warnings"]
    assert document["signature"] == str(Signature.of(epsilon="0.0001", answers="off", retrieval_k="reference"))
    assert Signature.parse(document["signature"]).fields.keys() == {"epsilon", "answers", "retrieval_k", "version"}
    assert document["summary"] == {"questions": 9, "success": 8, "error": 1, "mean_steps_score": 0.5625}
    assert document["warnings"] == []
    assert [r["question_id"] for r in document["results"]][:2] == [
        "c10bbc8dce98a4b8832d125134a16153",
        "8bbea9a10876a04ad77a82fd2aedee40",
    ]
    validate(document, "steps-results")
    validate(json.loads(json_text(document)), "steps-results")
    validate(load_document("-", format="yaml", text=yaml_text(document)).data, "steps-results")


def test_aggregates_document(example_run):
    """steps aggregate's document: the results' signature and graphrag-eval's aggregates; valid
    against steps-aggregates."""
    results = EvaluationResults("r.json", example_run.results, example_run.signature)
    run = aggregate_steps(results)
    document = run.document()
    assert list(document) == ["signature", "per_template", "micro", "macro", "warnings"]
    assert document["signature"] == str(example_run.signature)
    assert {key: document[key] for key in ("per_template", "micro", "macro")} == compute_aggregates(example_run.results)
    assert document["macro"]["steps_score"] == {"mean": 0.6}
    validate(document, "steps-aggregates")
    validate(json.loads(json_text(document)), "steps-aggregates")


def test_aggregates_of_results_without_signature():
    """Results without a signature (graphrag-eval's) give aggregates whose options are unknown,
    and a warning for a question with two results."""
    results = [{"template_id": "t", "question_id": "q", "status": "success", "steps_score": 1}] * 2
    run = aggregate_steps(
        EvaluationResults(
            "r.json", results, paths=[(0,), (1,)], document=load_document("r.json", text=json.dumps(results, indent=0))
        )
    )
    assert run.signature == UNKNOWN_SIGNATURE
    assert str(run.signature).startswith("eps:unknown|answers:unknown|retrieval_k:unknown|v:")
    assert [str(warning) for warning in run.warnings] == [
        "r.json:8: a second result for question 'q' (first at r.json:2); both are aggregated"
    ]
    assert run.document()["warnings"] == [str(run.warnings[0])]


def test_summary_table(example_run):
    """Per template, micro and macro: success, error and mean steps score; then the signature."""
    assert example_run.summary_table() == (
        "template                                            success  error  mean steps_score\n"
        "list_all_transformers_within_Substation_SUBSTATION        2      0            0.5000\n"
        "is_substation_SUBSTATION_in_bidding_zone_REGION           2      0            0.5000\n"
        "longest_N_ac_lines_connected_to_SUBSTATION                2      0            0.5000\n"
        "how_many_substations_in_bidding_zone_REGION               1      1            1.0000\n"
        "grid_code_requirements_for_TOPIC                          1      0            0.5000\n"
        "micro (all questions)                                     8      1            0.5625\n"
        "macro (mean of templates)                                                     0.6000\n"
        "\n"
        f"signature: {example_run.signature}"
    )
    assert (
        example_run.summary_line()
        == f"9 questions: 8 success, 1 error; mean steps_score 0.5625 ({example_run.signature})"
    )


def test_workbook_sheets(example_run):
    """Overview has one row per question (matches and mismatches of the last group), Statistics
    the aggregates, Step counts the executed steps."""
    workbook = example_run.workbook()
    overview, statistics = workbook.overview, workbook.statistics
    assert overview.header[:8] == [
        "template_id",
        "question_id",
        "question_text",
        "status",
        "error",
        "steps_score",
        "matches",
        "mismatches",
    ]
    assert len(overview.rows) == 9
    first = dict(zip(overview.header, overview.rows[0]))
    assert (first["status"], first["steps_score"], first["matches"], first["mismatches"]) == (
        "success",
        1.0,
        "call_3b3zHJnBXwYYSg04BiFGAAgO",
        None,
    )
    assert first["input_tokens"] == 221339
    error = dict(zip(overview.header, overview.rows[7]))
    assert (error["status"], error["steps_score"]) == ("error", None)
    assert statistics.header == ["scope", "template_id", "metric", "sum", "mean", "median", "min", "max"]
    assert ["macro", None, "steps_score", None, 0.6, None, None, None] in statistics.rows
    assert ["micro", None, "number_of_error_samples", 1, None, None, None, None] in statistics.rows
    [steps] = workbook.task_sheets
    assert steps.name == "Step counts"
    assert ["list_all_transformers_within_Substation_SUBSTATION", "total", "sparql_query", 3] in steps.rows


def test_warnings_are_located(tmp_path):
    """Responses to unknown questions are warnings at FILE:LINE, with a hint when ids differ by
    case; questions without a response are counted in one warning."""
    reference = tmp_path / "reference.yaml"
    reference.write_text(
        "- template_id: t\n  questions:\n  - {id: Q1, question_text: Q, reference_steps: "
        "[[{name: a, output: x}]]}\n  - {id: q2, question_text: R}\n",
        encoding="utf-8",
    )
    responses = tmp_path / "responses.jsonl"
    responses.write_text('{"question_id": "q1", "steps": []}\n{"question_id": "zz"}\n', encoding="utf-8")
    run = run_steps(read_reference(reference), read_responses(responses), StepsOptions(epsilon=0))
    assert [(warning.kind, str(warning).replace(f"{tmp_path}/", "")) for warning in run.warnings] == [
        ("unknown-question", "responses.jsonl:1: a response to question 'q1', which is not in the reference"),
        ("unknown-question", "responses.jsonl:2: a response to question 'zz', which is not in the reference"),
        (
            "unknown-question-case",
            "1 response of 2 to questions not in the reference name a question id but for "
            "case (e.g. 'q1'); ids are compared exactly",
        ),
        ("no-response", "2 questions of 2 in reference.yaml have no response in responses.jsonl (error samples)"),
    ]
    assert run.document()["warnings"] == [str(warning) for warning in run.warnings]
    assert str(run.signature).startswith("eps:0|answers:off|")


def test_report_models_cover_every_metric():
    """Every aggregated metric has a field in the result model and in the aggregates models."""
    assert set(METRICS) <= set(QuestionResult.model_fields)
    assert set(METRICS) == set(SampleFigures.model_fields) - {"number_of_error_samples", "number_of_success_samples"}
    assert set(METRICS) == set(MacroFigures.model_fields)
