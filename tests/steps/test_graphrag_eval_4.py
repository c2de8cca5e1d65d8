"""graphrag-eval 4.0.0's own unit-test inputs, scored by answerkey: each gives graphrag-eval's
figure, except where the README's "Differences from graphrag-eval" says otherwise (marked
DIFFERENCE below, with answerkey's figure).

The inputs are those of graphrag-eval 4.0's tests/steps/test_steps.py (retrieval outputs as
id lists), tests/steps/test_sparql_evaluation.py (including the bindings whose values are JSON
numbers), tests/test_evaluation.py (matching) and tests/test_data/evaluation_summary_2.yaml
(aggregates of error samples only); the `text/uri` steps are those of its later fixture
tests/test_data/reference_3.yaml. The expected figures are graphrag-eval's assertions.
"""

import copy
import json

import pytest

from answerkey.steps import ActualStep, ReferenceStep, compute_aggregates, run_evaluation
from answerkey.steps.outputs import OutputComparer

SPARQL = "application/sparql-results+json"

# ---------------------------------------------------------------- tests/steps/test_steps.py

OSLO_EXPECTED = {
    "name": "sparql_query",
    "args": {"query": "select distinct ?transformer ?transformerName where { ... }"},
    "output": json.dumps(
        {
            "head": {"vars": ["transformer", "transformerName"]},
            "results": {
                "bindings": [
                    {
                        "transformer": {"type": "uri", "value": "urn:uuid:f1769de8-9aeb-11e5-91da-b8763fd99c5f"},
                        "transformerName": {"type": "literal", "value": "OSLO    T2"},
                    },
                    {
                        "transformer": {"type": "uri", "value": "urn:uuid:f1769dd6-9aeb-11e5-91da-b8763fd99c5f"},
                        "transformerName": {"type": "literal", "value": "OSLO    T1"},
                    },
                ]
            },
        }
    ),
    "output_media_type": SPARQL,
    "required_columns": ["transformer", "transformerName"],
    "ordered": False,
}
OSLO_ACTUAL = {
    "name": "sparql_query",
    "args": {"query": "SELECT ?transformer ?transformerName WHERE { ... }"},
    "id": "call_3b3zHJnBXwYYSg04BiFGAAgO",
    "status": "success",
    # Pretty-printed, as the agent returned it.
    "output": json.dumps(json.loads(OSLO_EXPECTED["output"]), indent=2),
}
_SERIES = {
    "name": "temperature_data",
    "tags": {"sensor": "sensor1", "location": "warehouse"},
    "columns": ["time", "_value", "_field", "_measurement"],
    "values": [
        ["2025-05-22T12:00:00Z", 22.5, "temperature", "temperature_data"],
        ["2025-05-22T12:05:00Z", 22.7, "temperature", "temperature_data"],
        ["2025-05-22T12:10:00Z", 22.9, "temperature", "temperature_data"],
    ],
}
INFLUX_EXPECTED = {
    "name": "influx_query",
    "args": {"query": 'from(bucket: "example_bucket") |> range(start: -1h)'},
    "output": json.dumps({"results": [{"series": [_SERIES]}]}),
    "output_media_type": "application/json",
}
INFLUX_ACTUAL = {
    "name": "influx_query",
    "args": INFLUX_EXPECTED["args"],
    "id": "call_3b3zHJnBXwYYSg04BiFGAAgO",
    "status": "success",
    # The same object with its keys in another order.
    "output": json.dumps(
        {
            "results": [
                {"series": [{**{k: v for k, v in _SERIES.items() if k != "columns"}, "columns": _SERIES["columns"]}]}
            ]
        }
    ),
}
CALCULATION_EXPECTED = {"name": "calculation", "args": {"x": 5, "y": 10}, "output": 15}
CALCULATION_ACTUAL = {
    "name": "calculation",
    "args": {"y": 6, "x": 10},
    "id": "call_4",
    "status": "success",
    "output": 16,
}
CONCATENATION_EXPECTED = {"name": "concatenation", "args": {"x": "5", "y": "10"}, "output": "510"}
CONCATENATION_ACTUAL = {
    "name": "concatenation",
    "args": {"x": "10", "y": "5"},
    "id": "call_4",
    "status": "success",
    "output": "105",
}
RETRIEVAL_EXPECTED = {
    "name": "retrieval",
    "args": {"question": "Why is the sky blue?", "k": 5},
    "output": [1, 3, 5, 7, 9],
}
RETRIEVAL_ACTUAL = {
    "name": "retrieval",
    "args": {"question": "Why is the sky blue?", "k": 5},
    "id": "call_4",
    "status": "success",
    "output": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
}
RETRIEVAL_ERROR = {
    "name": "retrieval",
    "args": {"question": "Why is the sky blue?", "k": 5},
    "id": "call_4",
    "status": "error",
    "error": "oops",
}


def as_actual(step):
    """A reference step given where graphrag-eval's test passes it as the actual step."""
    return {"status": "success", **step}


def compare(reference, actual, **options):
    """graphrag-eval's compare_steps_outputs(reference, actual)."""
    comparer = OutputComparer(**options)
    return comparer.compare(ReferenceStep.model_validate(reference), ActualStep.model_validate(actual)).score


def steps_score(groups, actual_steps, **options):
    """graphrag-eval's evaluate_steps(groups, actual_steps), through run_evaluation."""
    reference = [
        {
            "template_id": "t",
            "questions": [{"id": "q", "question_text": "Q?", "reference_steps": copy.deepcopy(groups)}],
        }
    ]
    [result] = run_evaluation(reference, {"q": {"question_id": "q", "actual_steps": actual_steps}}, **options)
    return result


@pytest.mark.parametrize(
    "reference, actual, score",
    [
        (OSLO_EXPECTED, OSLO_ACTUAL, 1.0),
        (INFLUX_EXPECTED, INFLUX_ACTUAL, 1.0),
        (CALCULATION_EXPECTED, as_actual(CALCULATION_EXPECTED), 1.0),
        (CALCULATION_EXPECTED, CALCULATION_ACTUAL, 0.0),
        (CONCATENATION_EXPECTED, as_actual(CONCATENATION_EXPECTED), 1.0),
        (CONCATENATION_EXPECTED, CONCATENATION_ACTUAL, 0.0),
        (RETRIEVAL_EXPECTED, as_actual(RETRIEVAL_EXPECTED), 1.0),
        (RETRIEVAL_EXPECTED, RETRIEVAL_ACTUAL, 0.6),
    ],
)
def test_compare_steps_outputs(reference, actual, score):
    """compare_steps_outputs: SPARQL results, JSON, numbers, strings and retrieval id lists
    score as graphrag-eval 4.0 scores them."""
    assert compare(reference, actual) == pytest.approx(score)


def test_retrieval_k_is_the_reference_one():
    """The agent asks for 10 documents where the reference says k=5: recall@5 = 0.6 (graphrag-eval
    4.0's rule, the default); the actual step's k (the other rule) would give 1.0."""
    asks_for_more = {**RETRIEVAL_ACTUAL, "args": {**RETRIEVAL_ACTUAL["args"], "k": 10}}
    assert compare(RETRIEVAL_EXPECTED, asks_for_more) == pytest.approx(0.6)
    assert compare(RETRIEVAL_EXPECTED, asks_for_more, retrieval_k="actual") == 1.0
    result = steps_score([[RETRIEVAL_EXPECTED]], [asks_for_more])
    assert result["steps_score"] == pytest.approx(0.6)
    assert result["reference_steps"][0][0]["mismatch"] == "call_4: recall@5 = 0.6"
    assert steps_score([[RETRIEVAL_EXPECTED]], [asks_for_more], retrieval_k="actual")["steps_score"] == 1.0


def test_retrieval_outputs_as_json_text():
    """The same id lists given as JSON text, or as lists of objects with an "id" (graphrag-eval's
    later format), score the same."""
    as_text = {**RETRIEVAL_EXPECTED, "output": json.dumps(RETRIEVAL_EXPECTED["output"])}
    as_objects = {**RETRIEVAL_ACTUAL, "output": json.dumps([{"id": str(i)} for i in RETRIEVAL_ACTUAL["output"]])}
    assert compare(as_text, RETRIEVAL_ACTUAL) == pytest.approx(0.6)
    assert compare(RETRIEVAL_EXPECTED, as_objects) == pytest.approx(0.6)


@pytest.mark.parametrize(
    "actual_steps, score",
    [
        ([RETRIEVAL_ACTUAL, OSLO_ACTUAL], 0.6),
        ([RETRIEVAL_ACTUAL], 0.6),
        ([OSLO_ACTUAL], 0.0),
        ([OSLO_ACTUAL, RETRIEVAL_ACTUAL], 0.6),
        ([CALCULATION_ACTUAL], 0.0),
        ([RETRIEVAL_ERROR], 0.0),
        ([], 0.0),
    ],
)
def test_evaluate_steps_groups(actual_steps, score):
    """evaluate_steps with two groups: only the last one (retrieval) is scored."""
    result = steps_score([[OSLO_EXPECTED], [RETRIEVAL_EXPECTED]], actual_steps)
    assert result["steps_score"] == pytest.approx(score)


@pytest.mark.parametrize(
    "actual_steps, score",
    [
        ([RETRIEVAL_ACTUAL, OSLO_ACTUAL], 0.8),
        ([RETRIEVAL_ACTUAL], 0.3),
        ([OSLO_ACTUAL], 0.5),
        ([OSLO_ACTUAL, RETRIEVAL_ACTUAL], 0.8),
        ([CALCULATION_ACTUAL], 0.0),
        ([RETRIEVAL_ERROR], 0.0),
        ([], 0.0),
    ],
)
def test_evaluate_steps_last_group(actual_steps, score):
    """evaluate_steps with one group of a SPARQL and a retrieval step: the mean of their scores."""
    result = steps_score([[OSLO_EXPECTED, RETRIEVAL_EXPECTED]], actual_steps)
    assert result["steps_score"] == pytest.approx(score)


# ------------------------------------------------------------ tests/test_evaluation.py


def named(name, output, status="success", step_id=None):
    step = (
        {"name": name, "output": output, "status": status}
        if status == "success"
        else {
            "name": name,
            "error": output,
            "status": status,
        }
    )
    if step_id is not None:
        step["id"] = step_id
    return step


def doc(number):
    return f"http://example.com/resource/doc/{number}"


GROUP_A = [named("step_a", "result_a_1"), named("step_a", "result_a_2")]


@pytest.mark.parametrize(
    "last_group, actual_steps, score, matches",
    [
        (
            [named("step_b", "result_b_2")],
            [
                named("step_a", "result_a_1", step_id=doc(1)),
                named("step_b", "error", "error", doc(2)),
                named("step_b", "error", "error", doc(3)),
                named("step_a", "result_a", step_id=doc(4)),
                named("step_b", "error", "error", doc(5)),
            ],
            0.0,
            [None],
        ),
        (
            [named("step_b", "result_b_2")],
            [
                named("step_a", "result_a_1", step_id=doc(1)),
                named("step_b", "result_b_2", step_id=doc(2)),
                named("step_b", "error", "error", doc(3)),
                named("step_a", "result_a", step_id=doc(4)),
                named("step_b", "result_b_1", step_id=doc(5)),
            ],
            1.0,
            [doc(2)],
        ),
        (
            [named("step_b", "result_b_1"), named("step_b", "result_b_2")],
            [
                named("step_b", "result_b_2", step_id=doc(1)),
                named("step_b", "error", "error", doc(2)),
                named("step_a", "result_a", step_id=doc(3)),
                named("step_b", "result_b_1", step_id=doc(4)),
            ],
            1.0,
            [doc(4), doc(1)],
        ),
        (
            [named("step_b", "result_b_1"), named("step_b", "result_b_2")],
            [
                named("step_b", "result_b_24", step_id=doc(1)),
                named("step_b", "error", "error", doc(2)),
                named("step_a", "result_a", step_id=doc(3)),
                named("step_b", "result_b_1", step_id=doc(4)),
            ],
            0.5,
            [doc(4), None],
        ),
    ],
)
def test_get_steps_matches(last_group, actual_steps, score, matches):
    """The matching cases of graphrag-eval's test_get_steps_matches: the same score and the same
    matched step ids (extra keys such as `status` on reference steps are kept)."""
    result = steps_score([GROUP_A, last_group], actual_steps)
    assert result["steps_score"] == score
    assert [step.get("matches") for step in result["reference_steps"][-1]] == matches


# ----------------------------------------------------- tests/steps/test_sparql_evaluation.py


def uri(number):
    return {"type": "uri", "value": f"http://example.com/Person/{number}"}


def lit(value, datatype=None):
    term = {"type": "literal", "value": value}
    if datatype is not None:
        term["datatype"] = f"http://www.w3.org/2001/XMLSchema#{datatype}"
    return term


def select(variables, rows):
    return {
        "head": {"vars": variables},
        "results": {"bindings": [{k: v for k, v in zip(variables, row) if v is not None} for row in rows]},
    }


PEOPLE = select(["person", "personName"], [[uri(1), lit("Alice")], [uri(2), lit("Bob")]])
PEOPLE_RENAMED = select(["x", "y"], [[uri(1), lit("Alice")], [uri(2), lit("Bob")]])
PEOPLE_SWAPPED_NAMES = select(["person", "personName"], [[uri(2), lit("Alice")], [uri(1), lit("Bob")]])
PEOPLE_REORDERED = select(["person", "personName"], [[uri(2), lit("Bob")], [uri(1), lit("Alice")]])
EMPTY_PEOPLE = select(["person", "personName"], [])
AGES = select(
    ["person", "personName", "personAge"],
    [[uri(1), lit("Alice"), lit("30", "integer")], [uri(2), lit("Bob"), lit("35", "integer")]],
)
AGES_OTHER = select(
    ["person", "personAge", "gender"],
    [[uri(2), lit("35", "integer"), lit("male")], [uri(1), lit("30", "integer"), lit("female")]],
)
UNBOUND = select(
    ["x", "y"],
    [[uri(2), lit("B")], [uri(1), None], [uri(3), lit("A")], [uri(6), None], [uri(5), lit("A")]],
)
UNBOUND_ELSEWHERE = select(
    ["c", "p"],
    [[uri(2), None], [uri(1), lit("B")], [uri(3), lit("A")], [uri(6), None], [uri(5), lit("A")]],
)
NAMES_AGES = select(
    ["person", "personName", "Age"], [[uri(1), lit("Neli"), lit("100")], [uri(1), lit("Reni"), lit("101")]]
)
NAMES_AGES_OTHER = select(["x", "y", "z"], [[uri(1), lit("Reni"), lit("101")], [uri(1), lit("Neli"), lit("100")]])
# JSON numbers as term values: graphrag-eval compares them truncated to 5 decimals, integers
# as floats; answerkey reads them as typed values (reals within epsilon) and warns.
WEIGHTS = select(
    ["weight", "personName", "Age"],
    [[lit(40.123456789), lit("Neli"), lit(100)], [lit(41.123456789), lit("Reni"), lit(101)]],
)
WEIGHTS_OTHER = select(
    ["x", "y", "z"], [[lit(41.12345678), lit("Reni"), lit(101.0)], [lit(40.12345678), lit("Neli"), lit(100.0)]]
)
AVERAGE = select(["average_person_age"], [[lit("35", "decimal")]])
AVERAGE_OTHER = select(["avg"], [[lit("35", "decimal")]])

SPARQL_CASES = [
    # (reference, actual, required_columns, ordered, graphrag-eval 4.0's score, answerkey's if it differs)
    (PEOPLE, EMPTY_PEOPLE, ["personName", "person"], False, 0.0, None),
    (EMPTY_PEOPLE, select(["x", "y"], []), ["personName", "person"], False, 1.0, None),
    (EMPTY_PEOPLE, select(["x", "y", "z"], []), ["personName", "person"], False, 1.0, None),
    # DIFFERENCE "Empty results": two empty SELECT results match whatever their variables.
    (EMPTY_PEOPLE, select(["x"], []), ["personName", "person"], False, 0.0, 1.0),
    (EMPTY_PEOPLE, select(["x"], []), ["person"], False, 1.0, None),
    ({"head": {}, "boolean": True}, {"head": {}, "boolean": True}, [], False, 1.0, None),
    ({"head": {}, "boolean": False}, {"head": {}, "boolean": True}, [], False, 0.0, None),
    ({"head": {}, "boolean": True}, {"head": {}, "boolean": False}, [], False, 0.0, None),
    ({"head": {}, "boolean": False}, {"head": {}, "boolean": False}, [], False, 1.0, None),
    *[
        (PEOPLE, actual, columns, ordered, 1.0, None)
        for actual in (PEOPLE, PEOPLE_RENAMED)
        for columns in (["person", "personName"], ["personName"], [])
        for ordered in (False, True)
    ],
    (AVERAGE, AVERAGE_OTHER, ["average_person_age"], False, 1.0, None),
    (PEOPLE, PEOPLE_SWAPPED_NAMES, ["person", "personName"], False, 0.0, None),
    (PEOPLE, PEOPLE_SWAPPED_NAMES, ["person", "personName"], True, 0.0, None),
    (PEOPLE, PEOPLE_REORDERED, ["person", "personName"], False, 1.0, None),
    (PEOPLE, PEOPLE_REORDERED, ["person", "personName"], True, 0.0, None),
    (AGES, AGES_OTHER, ["person", "personAge"], False, 1.0, None),
    (AGES, AGES_OTHER, ["person", "personAge"], True, 0.0, None),
    (UNBOUND, UNBOUND_ELSEWHERE, ["x", "y"], False, 0.0, None),
    (UNBOUND, copy.deepcopy(UNBOUND), ["x", "y"], False, 1.0, None),
    (
        select(["person"], [[uri(2)], [uri(3)]]),
        select(["p", "n"], [[uri(3), lit("Alice")], [uri(2), lit("Bob")]]),
        ["person"],
        False,
        1.0,
        None,
    ),
    (NAMES_AGES, NAMES_AGES_OTHER, ["person", "personName", "Age"], False, 1.0, None),
    (WEIGHTS, WEIGHTS_OTHER, ["weight", "personName", "Age"], False, 1.0, None),
]


@pytest.mark.parametrize("reference, actual, columns, ordered, theirs, ours", SPARQL_CASES)
def test_compare_sparql_results(reference, actual, columns, ordered, theirs, ours):
    """Every compare_sparql_results case of graphrag-eval 4.0 gives its score, or answerkey's
    documented one (two empty results match whatever their variables)."""
    step = {
        "name": "sparql_query",
        "output": json.dumps(reference),
        "output_media_type": SPARQL,
        "required_columns": columns,
        "ordered": ordered,
    }
    actual_step = {"name": "sparql_query", "status": "success", "output": json.dumps(actual)}
    assert compare(step, actual_step) == (theirs if ours is None else ours)


def test_json_number_values_load_with_a_note():
    """The reference and the actual step with JSON numbers as term values load and match, and
    say how many values were read leniently (the CLI turns this into counted warnings)."""
    step = ReferenceStep.model_validate(
        {"name": "sparql_query", "output": json.dumps(WEIGHTS), "output_media_type": SPARQL}
    )
    assert step.reading_note == (
        "4 term values are JSON numbers or booleans, not text (the first: binding 1, variable 'weight': "
        "40.123456789); read as typed values"
    )
    result = steps_score(
        [[step.model_dump(exclude_unset=True)]],
        [{"name": "sparql_query", "id": "s1", "status": "success", "output": json.dumps(WEIGHTS_OTHER)}],
    )
    assert result["steps_score"] == 1.0


# ------------------------------------------------- text/uri steps (tests/test_data/reference_3.yaml)

NO1 = "urn:uuid:83aa03e5-5fd0-431c-b8dd-acc08c21ed6a"
NO3 = "urn:uuid:0f094148-164b-427a-a8e8-0c5f334688ae"
IRI_DISCOVERY = [
    {
        "args": {"query": "NO1"},
        "name": "iri_discovery",
        "output": NO1,
        "output_media_type": "text/uri",
        "required_columns": ["uri"],
    },
    {
        "args": {"query": "NO3"},
        "name": "iri_discovery",
        "output": NO3,
        "output_media_type": "text/uri",
        "required_columns": ["uri"],
    },
]
MRID_STEP = {
    "args": {"query": "SELECT ?mrid WHERE { ... }"},
    "name": "sparql_query",
    "output": json.dumps(select(["mrid"], [[lit("9bb00fb1-4e7f-831a-e040-1e828c94e833")]]), indent=2),
    "output_media_type": SPARQL,
    "required_columns": ["mrid"],
}


def iri_step(step_id, output):
    return {"name": "iri_discovery", "args": {}, "id": step_id, "status": "success", "output": output}


@pytest.mark.parametrize(
    "groups, actual_steps, score",
    [
        # text/uri steps in an earlier group load; only the last group is scored.
        (
            [IRI_DISCOVERY, [MRID_STEP]],
            [{"name": "sparql_query", "id": "s", "status": "success", "output": MRID_STEP["output"]}],
            1.0,
        ),
        # In the last group they compare identical outputs, as graphrag-eval's fallback does.
        ([IRI_DISCOVERY], [iri_step("i1", NO1), iri_step("i2", NO3)], 1.0),
        ([IRI_DISCOVERY], [iri_step("i1", NO1), iri_step("i2", NO3 + " ")], 0.5),
        ([IRI_DISCOVERY], [iri_step("i1", f"<{NO1}>")], 0.0),
    ],
)
def test_text_uri_steps(groups, actual_steps, score):
    """Reference steps with output_media_type text/uri load, in any group, and compare as
    identical outputs (graphrag-eval's fallback for any other media type)."""
    assert steps_score(groups, actual_steps)["steps_score"] == score


@pytest.mark.parametrize("media_type", ["text/plain", "application/xml", "Application/JSON", ""])
def test_any_other_media_type_compares_identical_outputs(media_type):
    """Any other output_media_type (even a known one in other case) compares identical outputs."""
    step = {"name": "lookup", "output": '{"a": 1}', "output_media_type": media_type}
    assert compare(step, {"name": "lookup", "status": "success", "output": '{"a": 1}'}) == 1.0
    assert compare(step, {"name": "lookup", "status": "success", "output": '{"a":1}'}) == 0.0


# ------------------------------------------------------------------------- aggregates


def error_samples(template_id, count):
    return [{"template_id": template_id, "status": "error", "error": "Error"} for _ in range(count)]


ZERO = {"sum": 0, "mean": 0, "median": 0, "min": 0, "max": 0}
ZERO_USAGE = {metric: ZERO for metric in ("input_tokens", "output_tokens", "total_tokens", "elapsed_sec")}
ALL_ERRORS = [
    *error_samples("list_all_transformers_within_Substation_SUBSTATION", 10),
    *error_samples("list_all_substations_within_bidding_zone_REGION", 10),
]


def test_aggregates_of_error_samples_only():
    """evaluation_summary_2.yaml: with missing_usage="zero" every template, micro and macro get
    zero usage figures, as graphrag-eval 4.0 gives them; by default they are left out."""
    expected = {
        "per_template": {
            "list_all_transformers_within_Substation_SUBSTATION": {
                "number_of_error_samples": 10,
                "number_of_success_samples": 0,
                **ZERO_USAGE,
            },
            "list_all_substations_within_bidding_zone_REGION": {
                "number_of_error_samples": 10,
                "number_of_success_samples": 0,
                **ZERO_USAGE,
            },
        },
        "micro": {"number_of_error_samples": 20, "number_of_success_samples": 0, **ZERO_USAGE},
        "macro": {metric: {"mean": 0} for metric in ZERO_USAGE},
    }
    assert compute_aggregates(ALL_ERRORS, missing_usage="zero") == expected
    assert compute_aggregates(ALL_ERRORS) == {
        "per_template": {
            template: {"number_of_error_samples": 10, "number_of_success_samples": 0}
            for template in expected["per_template"]
        },
        "micro": {"number_of_error_samples": 20, "number_of_success_samples": 0},
        "macro": {},
    }


def test_macro_means_with_a_template_without_successes():
    """A template whose questions all failed: graphrag-eval averages 0 into the macro usage
    means (missing_usage="zero"), answerkey's default leaves it out; steps_score is left out by
    both."""
    results = [
        {
            "template_id": "a",
            "status": "success",
            "steps_score": 1.0,
            "input_tokens": 300,
            "output_tokens": 30,
            "total_tokens": 330,
            "elapsed_sec": 1.5,
        },
        {
            "template_id": "a",
            "status": "success",
            "steps_score": 0.5,
            "input_tokens": 100,
            "output_tokens": 10,
            "total_tokens": 110,
            "elapsed_sec": 0.5,
        },
        *error_samples("b", 2),
    ]
    zero = compute_aggregates(results, missing_usage="zero")
    assert zero["macro"] == {
        "steps_score": {"mean": 0.75},
        "input_tokens": {"mean": 100.0},
        "output_tokens": {"mean": 10.0},
        "total_tokens": {"mean": 110.0},
        "elapsed_sec": {"mean": 0.5},
    }
    assert zero["per_template"]["b"] == {"number_of_error_samples": 2, "number_of_success_samples": 0, **ZERO_USAGE}
    omit = compute_aggregates(results)
    assert omit["macro"] == {
        "steps_score": {"mean": 0.75},
        "input_tokens": {"mean": 200.0},
        "output_tokens": {"mean": 20.0},
        "total_tokens": {"mean": 220.0},
        "elapsed_sec": {"mean": 1.0},
    }
    assert omit["per_template"]["b"] == {"number_of_error_samples": 2, "number_of_success_samples": 0}
    assert zero["micro"] == omit["micro"]


def test_missing_usage_rule_is_checked():
    """An unknown missing_usage rule is a ValueError naming the known ones."""
    with pytest.raises(ValueError, match="missing_usage must be one of 'omit', 'zero', not 'nil'"):
        compute_aggregates(ALL_ERRORS, missing_usage="nil")


# -------------------------------------------------------------------------- error responses


def test_status_error_without_error_key_is_an_error_sample():
    """A response with status error and no `error` key is an error sample here; graphrag-eval
    4.0 only looks for the `error` key, so it scores the response's steps as a success."""
    reference = [
        {
            "template_id": "t",
            "questions": [{"id": "q", "question_text": "Q?", "reference_steps": [[CONCATENATION_EXPECTED]]}],
        }
    ]
    response = {"question_id": "q", "status": "error", "actual_steps": [as_actual(CONCATENATION_EXPECTED)]}
    [result] = run_evaluation(reference, {"q": response})
    assert (result["status"], result["error"]) == ("error", "the response has status error (no error message)")
    assert "steps_score" not in result
    aggregates = compute_aggregates([result])
    assert aggregates["micro"]["number_of_error_samples"] == 1


def test_null_error_is_no_error():
    """`error: null` on a response is no error (graphrag-eval counts any `error` key): its steps
    are scored."""
    reference = [
        {
            "template_id": "t",
            "questions": [{"id": "q", "question_text": "Q?", "reference_steps": [[CONCATENATION_EXPECTED]]}],
        }
    ]
    response = {"question_id": "q", "error": None, "actual_steps": [as_actual(CONCATENATION_EXPECTED)]}
    [result] = run_evaluation(reference, {"q": response})
    assert (result["status"], result["steps_score"]) == ("success", 1.0)
