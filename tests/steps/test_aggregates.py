"""Aggregates of evaluation results (answerkey.steps.compute_aggregates), graphrag-eval layout."""

import json
import statistics

import pytest
from hypothesis import given, strategies as st

from answerkey.errors import InputError
from answerkey.steps import compute_aggregates

EMPTY = json.dumps({"head": {"vars": ["iri"]}, "results": {"bindings": []}})
ONE = json.dumps({"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "literal", "value": "1"}}]}})


def sample(template, score, tokens, steps, **extra):
    return {
        "template_id": template,
        "question_id": f"{template}-{tokens}",
        "status": "success",
        "actual_steps": steps,
        "steps_score": score,
        "input_tokens": tokens,
        "elapsed_sec": tokens / 10,
        **extra,
    }


def step(name, status="success", output=ONE):
    return {"name": name, "status": status, "output": output, "id": "x"}


RESULTS = [
    sample("a", 1.0, 10, [step("autocomplete_search", output=EMPTY), step("sparql_query")]),
    sample("a", 0.0, 20, [step("sparql_query", status="error"), step("sparql_query"), step("sparql_query")]),
    sample("b", 0.5, 30, [step("retrieval", output="not json")], answer_relevance=0.9),
    {"template_id": "b", "question_id": "b-err", "status": "error", "error": "timeout"},
]


def test_documented_layout_exactly():
    """per_template, micro, macro with the documented keys, order and values."""
    assert compute_aggregates(RESULTS) == {
        "per_template": {
            "a": {
                "number_of_error_samples": 0,
                "number_of_success_samples": 2,
                "steps": {
                    "total": {"autocomplete_search": 1, "sparql_query": 4},
                    "once_per_sample": {"autocomplete_search": 1, "sparql_query": 2},
                    "empty_results": {"autocomplete_search": 1},
                    "errors": {"sparql_query": 1},
                },
                "steps_score": {"sum": 1.0, "mean": 0.5, "median": 0.5, "min": 0.0, "max": 1.0},
                "input_tokens": {"sum": 30, "mean": 15, "median": 15.0, "min": 10, "max": 20},
                "elapsed_sec": {"sum": 3.0, "mean": 1.5, "median": 1.5, "min": 1.0, "max": 2.0},
            },
            "b": {
                "number_of_error_samples": 1,
                "number_of_success_samples": 1,
                "answer_relevance": {"sum": 0.9, "mean": 0.9, "median": 0.9, "min": 0.9, "max": 0.9},
                "steps": {"total": {"retrieval": 1}, "once_per_sample": {"retrieval": 1}},
                "steps_score": {"sum": 0.5, "mean": 0.5, "median": 0.5, "min": 0.5, "max": 0.5},
                "input_tokens": {"sum": 30, "mean": 30, "median": 30, "min": 30, "max": 30},
                "elapsed_sec": {"sum": 3.0, "mean": 3.0, "median": 3.0, "min": 3.0, "max": 3.0},
            },
        },
        "micro": {
            "number_of_error_samples": 1,
            "number_of_success_samples": 3,
            "answer_relevance": {"sum": 0.9, "mean": 0.9, "median": 0.9, "min": 0.9, "max": 0.9},
            "steps_score": {"sum": 1.5, "mean": 0.5, "median": 0.5, "min": 0.0, "max": 1.0},
            "input_tokens": {"sum": 60, "mean": 20, "median": 20, "min": 10, "max": 30},
            "elapsed_sec": {"sum": 6.0, "mean": 2.0, "median": 2.0, "min": 1.0, "max": 3.0},
        },
        "macro": {
            "answer_relevance": {"mean": 0.9},
            "steps_score": {"mean": 0.5},
            "input_tokens": {"mean": 22.5},
            "elapsed_sec": {"mean": 2.25},
        },
    }
    assert list(compute_aggregates(RESULTS)["per_template"]["a"]) == [
        "number_of_error_samples",
        "number_of_success_samples",
        "steps",
        "steps_score",
        "input_tokens",
        "elapsed_sec",
    ]


def test_readme_example_micro_and_macro_steps_score():
    """graphrag-eval README example: per-template steps_score means 0.8, 0, 1, 0 over 10, 10, 9, 10
    successful samples give micro mean 17/39 and macro mean 0.45."""
    results = []
    for template, scores, errors in [
        ("t1", [1] * 8 + [0] * 2, 0),
        ("t2", [0] * 10, 0),
        ("t3", [1] * 9, 1),
        ("t4", [0] * 10, 0),
    ]:
        results += [{"template_id": template, "status": "success", "steps_score": s} for s in scores]
        results += [{"template_id": template, "status": "error", "error": "x"}] * errors
    aggregates = compute_aggregates(results)
    assert aggregates["micro"]["steps_score"] == {"sum": 17, "mean": 17 / 39, "median": 0, "min": 0, "max": 1}
    assert aggregates["micro"]["number_of_error_samples"] == 1
    assert aggregates["macro"]["steps_score"]["mean"] == pytest.approx(0.45)
    assert aggregates["per_template"]["t1"]["steps_score"] == {"sum": 8, "mean": 0.8, "median": 1.0, "min": 0, "max": 1}


def test_no_results():
    """No results: empty per-template, zero counts, nothing else."""
    assert compute_aggregates([]) == {
        "per_template": {},
        "micro": {"number_of_error_samples": 0, "number_of_success_samples": 0},
        "macro": {},
    }


results_strategy = st.lists(
    st.fixed_dictionaries(
        {
            "template_id": st.sampled_from(["a", "b", "c"]),
            "status": st.sampled_from(["success", "success", "error"]),
            "steps_score": st.sampled_from([0.0, 0.5, 1.0]),
            "input_tokens": st.integers(0, 1000),
        }
    ),
    max_size=20,
)


@given(results_strategy)
def test_micro_and_macro_are_consistent_with_per_template(results):
    """Micro sums the per-template sums; macro is the mean of the per-template means."""
    aggregates = compute_aggregates(results)
    per_template = aggregates["per_template"]
    assert sum(t["number_of_success_samples"] + t["number_of_error_samples"] for t in per_template.values()) == len(
        results
    )
    for metric in ("steps_score", "input_tokens"):
        blocks = [t[metric] for t in per_template.values() if metric in t]
        if not blocks:
            assert metric not in aggregates["micro"] and metric not in aggregates["macro"]
            continue
        assert aggregates["micro"][metric]["sum"] == pytest.approx(sum(b["sum"] for b in blocks))
        assert aggregates["macro"][metric]["mean"] == pytest.approx(statistics.fmean(b["mean"] for b in blocks))
        assert aggregates["micro"][metric]["min"] == min(b["min"] for b in blocks)


@pytest.mark.parametrize(
    "results, message",
    [
        ([{"template_id": "t", "actual_steps": 5}], "results.0.actual_steps: should be a list, not an integer"),
        (
            [{"template_id": "t", "steps_score": float("inf")}],
            "results.0.steps_score: should be a number from 0 to 1, not infinity",
        ),
        (
            [{"template_id": "t", "steps_score": 1.0}, {"template_id": "t", "steps_score": float("-inf")}],
            "results.1.steps_score: should be a number from 0 to 1, not -infinity",
        ),
        (
            [{"template_id": "t", "steps_score": float("nan")}],
            "results.0.steps_score: should be a number from 0 to 1, not NaN",
        ),
        ([{"template_id": "t", "steps_score": 1.5}], "results.0.steps_score: should be a number from 0 to 1, not 1.5"),
        (
            [{"template_id": "t", "input_tokens": 10**400}],
            "results.0.input_tokens: should be a finite number of at least 0, not an integer of 401 digits",
        ),
        ([{"template_id": "t", "status": "Success"}], "results.0.status: should be 'success' or 'error'"),
        ([{"steps_score": 1.0}], "results.0.template_id: missing; this field is required"),
        ([3], "results.0: a per-question result is a mapping, not an integer"),
        ({"template_id": "t"}, "results must be a list of per-question results, not a mapping"),
    ],
)
def test_bad_results_are_input_errors(results, message):
    """Results that are not results (issue 19: numeric actual_steps, infinite or out-of-range
    scores) raise InputError naming the place, never TypeError or ValueError from fsum."""
    with pytest.raises(InputError) as raised:
        compute_aggregates(results)
    assert raised.value.message == message


def test_sums_beyond_a_float_are_input_errors():
    """Figures whose sum a float cannot hold are refused with the metric's name, not written as inf."""
    results = [{"template_id": "t", "status": "success", "elapsed_sec": 1.7e308}] * 2
    with pytest.raises(InputError) as raised:
        compute_aggregates(results)
    assert (
        raised.value.message == "elapsed_sec: the values are too large to add up: their sum is beyond a float's range"
    )
