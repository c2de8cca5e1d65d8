"""The absolute tolerance floor on SPARQL results of steps (graphrag-eval 4.0 rules)."""

import json

from answerkey.steps.run import StepsOptions, score_steps
from answerkey.steps.schema import ActualStep, ReferenceStep

DOUBLE = "http://www.w3.org/2001/XMLSchema#double"


def _results(value: str) -> str:
    binding = {"x": {"type": "literal", "value": value, "datatype": DOUBLE}}
    return json.dumps({"head": {"vars": ["x"]}, "results": {"bindings": [binding]}})


def test_a_tiny_real_matches_zero_only_with_the_floor():
    """0.0 against 1e-17 in SPARQL results scores 0 by default and 1 with abs_epsilon 1e-9."""
    media = "application/sparql-results+json"
    reference = ReferenceStep(name="sparql_query", output=_results("0.0"), output_media_type=media)
    actual = [ActualStep(name="sparql_query", id="a", status="success", output=_results("1e-17"))]
    assert score_steps([reference], actual).score == 0.0
    assert score_steps([reference], actual, abs_epsilon=1e-9).score == 1.0


def test_the_signature_names_the_floor_only_when_set():
    """StepsOptions' signature is unchanged without the floor and carries abs_eps with it."""
    assert str(StepsOptions().signature).startswith("eps:0.0001|answers:off|retrieval_k:reference|v:")
    assert str(StepsOptions(abs_epsilon=0.5).signature).startswith(
        "eps:0.0001|abs_eps:0.5|answers:off|retrieval_k:reference|v:"
    )
