"""answerkey.compat.graphrag_eval: graphrag-eval 6.x's API names and signatures. The figures
are those graphrag-eval 6.6.1 gave for the same inputs, run live while writing these tests."""

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from answerkey.compat.graphrag_eval import (
    average_precision,
    compute_aggregates,
    evaluate_steps,
    read_config,
    recall_at_k,
    run_evaluation,
)
from answerkey.errors import InputError
from answerkey.metrics import recall_at_k as trec_recall_at_k

DATA = Path(__file__).parent.parent / "steps" / "data6"

CONFIG = """\
llm:
  generation: {provider: openai, model: m}
custom_evaluations:
  - name: rel
    inputs: [question]
    instructions: Rate the answer.
    outputs: {relevance: how relevant, relevance_reason: why}
answer_correctness: {enabled: false}
"""

RESULTS = [
    {
        "template_id": "a",
        "question_id": "1",
        "status": "success",
        "steps_score": 1.0,
        "relevance": 0.5,
        "actual_steps": [
            {
                "name": "retrieval",
                "status": "success",
                "output": "[]",
                "retrieval_answer_recall": 0.5,
                "retrieval_answer_precision": 1.0,
            }
        ],
    },
    {
        "template_id": "a",
        "question_id": "2",
        "status": "error",
        "error": "x",
        "steps_score": 0.0,
        "relevance": 1,
        "actual_steps": [{"name": "retrieval", "status": "error", "output": "boom"}],
    },
    {
        "template_id": "b",
        "question_id": "3",
        "status": "success",
        "steps_score": 0.5,
        "actual_steps": [
            {
                "name": "sparql_query",
                "status": "success",
                "output": '{"head": {"vars": []}, "results": {"bindings": []}}',
            },
            {"name": "retrieval", "status": "success", "output": "[]", "retrieval_answer_recall": 1.0},
        ],
    },
]


def _responses():
    lines = (DATA / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["question_id"]: record for record in map(json.loads, lines)}


def test_run_evaluation_is_a_coroutine_with_6x_figures():
    """`await run_evaluation(qa_dataset, responses_dict)` gives 6.x's steps scores."""
    reference = yaml.safe_load((DATA / "reference.yaml").read_text(encoding="utf-8"))
    results = asyncio.run(run_evaluation(reference, _responses()))
    assert [result["steps_score"] for result in results] == [1.0, 0.0, 0.0, 0.5, 1.0, 1.0, 1.0, 0.0]


def test_compute_aggregates_with_custom_metrics(tmp_path):
    """config_file_path adds the custom evaluations' outputs to the metrics aggregated."""
    config = tmp_path / "conf.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    aggregates = compute_aggregates(RESULTS, config_file_path=str(config))
    micro = aggregates["micro"]
    assert micro["relevance"] == {"sum": 1.5, "mean": 0.75, "median": 0.75, "min": 0.5, "max": 1}
    assert micro["retrieval_answer_recall"] == {"sum": 1.5, "mean": 0.75, "median": 0.75, "min": 0.5, "max": 1.0}
    assert micro["steps"] == {
        "total": {"retrieval": 3, "sparql_query": 1},
        "once_per_sample": {"retrieval": 3, "sparql_query": 1},
        "errors": {"retrieval": 1},
        "empty_results": {"sparql_query": 1},
    }
    assert list(aggregates["per_template"]["a"]["steps"]) == [
        "total",
        "once_per_sample",
        "errors",
        "retrieval_answer_precision",
        "retrieval_answer_recall",
    ]
    assert aggregates["macro"]["relevance"] == {"mean": 0.75}
    assert "relevance" not in compute_aggregates(RESULTS)["micro"]


def test_config_checks(tmp_path):
    """The config is checked as 6.x checks it, located at its line; LLM metrics are refused."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "custom_evaluations:\n  - {name: r, inputs: [question], instructions: i, outputs: {a: b}}\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"bad.yaml:1:1: llm config is required if custom_evaluations are provided"):
        read_config(bad)
    reserved = tmp_path / "reserved.yaml"
    reserved.write_text(CONFIG.replace("relevance_reason: why", "steps_score: why"), encoding="utf-8")
    with pytest.raises(
        InputError, match=r"reserved.yaml:4:5: custom_evaluations.0: the output keys steps_score are reserved"
    ):
        read_config(reserved)
    config = tmp_path / "conf.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    assert read_config(config).custom_metrics == ("relevance", "relevance_reason")
    relevance = tmp_path / "relevance.yaml"
    relevance.write_text(
        "answer_relevance: {enabled: true}\nllm:\n  generation: {provider: p, model: m}\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"relevance.yaml:1:1: llm config including embedding is required"):
        read_config(relevance)


def test_evaluate_steps_signature():
    """evaluate_steps(reference, actual, ragas_llm) writes matches on the reference, as 6.x."""
    reference = {"reference_steps": [[{"name": "a", "output": "1"}], [{"name": "b", "output": "2"}]]}
    actual = {"actual_steps": [{"name": "b", "id": "s", "status": "success", "output": "2"}]}
    result = asyncio.run(evaluate_steps(reference, actual, None))
    assert result == {"actual_steps": actual["actual_steps"], "steps_score": 0.5}
    assert reference["reference_steps"][1][0]["matches"] == "s"
    assert "matches" not in reference["reference_steps"][0][0]
    assert asyncio.run(evaluate_steps({}, {}, None)) == {"actual_steps": []}


def test_recall_and_average_precision_keywords():
    """relevant_ids/retrieved_ids work; 6.x's recall cuts the relevant ids at k, trec_eval's not."""
    relevant, retrieved = [f"d{n}" for n in range(10)], [f"d{n}" for n in range(5)]
    assert recall_at_k(relevant_ids=relevant, retrieved_ids=retrieved, k=5) == 1.0
    assert trec_recall_at_k(relevant_ids=relevant, retrieved_ids=retrieved, k=5) == 0.5
    assert recall_at_k([], [1]) == 0.0
    assert average_precision(relevant_ids=[1, 3, 5, 6], retrieved_ids=[1, 4, 3, 5, 7]) == pytest.approx(
        0.6041666666666666
    )
    # a repeated retrieved id counts again in 6.x
    assert average_precision([1], [1, 1]) == 2.0
