"""Steps score and per-question results (answerkey.steps.run_evaluation), graphrag-eval 4.0 layout."""

import copy
import json

import pytest

from answerkey.adapters.sparql import XSD
from answerkey.errors import InputError, InputErrors
from answerkey.steps import run_evaluation

SPARQL = "application/sparql-results+json"


def uri(value):
    return {"type": "uri", "value": value}


def lit(value, datatype=None):
    term = {"type": "literal", "value": value}
    if datatype:
        term["datatype"] = XSD + datatype
    return term


def select(variables, rows):
    return json.dumps(
        {
            "head": {"vars": variables},
            "results": {
                "bindings": [{name: term for name, term in zip(variables, row) if term is not None} for row in rows]
            },
        }
    )


def ask(value):
    return json.dumps({"head": {}, "boolean": value})


def sparql_step(output, **options):
    return {
        "name": "sparql_query",
        "args": {"query": "SELECT ..."},
        "output": output,
        "output_media_type": SPARQL,
        **options,
    }


def actual(step_id, output, name="sparql_query", status="success", **extra):
    return {"name": name, "args": extra.pop("args", {}), "id": step_id, "status": status, "output": output, **extra}


def corpus(*groups, question_id="q1", template_id="t1"):
    return [
        {
            "template_id": template_id,
            "questions": [{"id": question_id, "question_text": "Q?", "reference_steps": list(groups)}],
        }
    ]


def evaluate(reference_group, actual_steps, **options):
    [result] = run_evaluation(
        corpus(reference_group), {"q1": {"question_id": "q1", "actual_steps": actual_steps}}, **options
    )
    return result


# graphrag-eval 4.0 README, "Example Reference Corpus" (OSLO) and "Example Evaluation Results".
OSLO_REFERENCE = select(
    ["transformer", "transformerName"],
    [
        [uri("urn:uuid:f1769de8-9aeb-11e5-91da-b8763fd99c5f"), lit("OSLO T2")],
        [uri("urn:uuid:f1769dd6-9aeb-11e5-91da-b8763fd99c5f"), lit("OSLO T1")],
    ],
)
OSLO_ACTUAL_STEPS = [
    actual(
        "call_3wIrBHIsInzAWzo8qwwYAkDD",
        json.dumps(
            {
                "head": {"vars": ["iri", "name", "rank"]},
                "results": {
                    "bindings": [
                        {
                            "iri": uri("urn:uuid:f176963c-9aeb-11e5-91da-b8763fd99c5f"),
                            "name": lit("OSLO"),
                            "rank": lit("0.01185", "float"),
                        }
                    ]
                },
            },
            indent=2,
        ),
        name="autocomplete_search",
        args={"query": "OSLO", "result_class": "cim:Substation"},
    ),
    actual("call_3b3zHJnBXwYYSg04BiFGAAgO", json.dumps(json.loads(OSLO_REFERENCE), indent=2)),
]


def test_readme_example_result():
    """The README's OSLO question: steps_score 1 and `matches` names the SPARQL call, in the
    documented key order."""
    reference = [
        {
            "template_id": "list_all_transformers_within_Substation_SUBSTATION",
            "questions": [
                {
                    "id": "c10bbc8dce98a4b8832d125134a16153",
                    "question_text": "List all transformers within Substation OSLO",
                    "reference_answer": "OSLO T1, OSLO T2",
                    "reference_steps": [
                        [sparql_step(OSLO_REFERENCE, required_columns=["transformer", "transformerName"])]
                    ],
                }
            ],
        }
    ]
    response = {
        "question_id": "c10bbc8dce98a4b8832d125134a16153",
        "input_tokens": 221339,
        "output_tokens": 212,
        "total_tokens": 221551,
        "elapsed_sec": 6.601679801940918,
        "actual_steps": OSLO_ACTUAL_STEPS,
        "actual_answer": "OSLO T2 and OSLO T1",
    }
    [result] = run_evaluation(reference, {response["question_id"]: response})
    assert list(result) == [
        "template_id",
        "question_id",
        "question_text",
        "reference_answer",
        "reference_steps",
        "status",
        "actual_answer",
        "actual_steps",
        "steps_score",
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "elapsed_sec",
    ]
    assert result["steps_score"] == 1.0
    assert result["reference_steps"][-1][0]["matches"] == "call_3b3zHJnBXwYYSg04BiFGAAgO"
    assert result["actual_steps"] == OSLO_ACTUAL_STEPS
    assert "answer_relevance" not in result  # no judge configured: answer fields absent, not faked


def test_inputs_are_not_modified():
    """`matches` is written on a copy; the caller's corpus and responses stay as they were."""
    reference = corpus([sparql_step(OSLO_REFERENCE)])
    responses = {"q1": {"question_id": "q1", "actual_steps": copy.deepcopy(OSLO_ACTUAL_STEPS)}}
    before = copy.deepcopy((reference, responses))
    [result] = run_evaluation(reference, responses)
    assert result["reference_steps"][0][0]["matches"] == "call_3b3zHJnBXwYYSg04BiFGAAgO"
    assert (reference, responses) == before


TRANSFORMERS = [[uri("urn:t:2"), lit("T2"), lit("110", "integer")], [uri("urn:t:1"), lit("T1"), lit("220", "integer")]]


@pytest.mark.parametrize(
    "required, variables, rows, ordered, expected",
    [
        # Required columns only; the actual result has extra columns, other names, another order.
        (
            ["t", "name"],
            ["kv", "label", "x"],
            [[lit("220", "integer"), lit("T1"), uri("urn:t:1")], [lit("110", "integer"), lit("T2"), uri("urn:t:2")]],
            False,
            1.0,
        ),
        # Missing a required column.
        (["t", "name"], ["label"], [[lit("T1")], [lit("T2")]], False, 0.0),
        # A URI is not the literal with the same text.
        (["t"], ["t"], [[lit("urn:t:2")], [lit("urn:t:1")]], False, 0.0),
        # Unordered: any row order; duplicates follow set semantics.
        (["name"], ["name"], [[lit("T1")], [lit("T2")], [lit("T1")]], False, 1.0),
        # An extra row is wrong.
        (["name"], ["name"], [[lit("T1")], [lit("T2")], [lit("T3")]], False, 0.0),
        # Ordered: the same order passes, the reverse fails.
        (
            ["name", "kv"],
            ["name", "kv"],
            [[lit("T2"), lit("110", "integer")], [lit("T1"), lit("220", "integer")]],
            True,
            1.0,
        ),
        (
            ["name", "kv"],
            ["name", "kv"],
            [[lit("T1"), lit("220", "integer")], [lit("T2"), lit("110", "integer")]],
            True,
            0.0,
        ),
        # Numbers compare by value across integer types; a number is not its text.
        (["kv"], ["kv"], [[lit("110", "long")], [lit("220", "short")]], False, 1.0),
        (["kv"], ["kv"], [[lit("110")], [lit("220")]], False, 0.0),
    ],
)
def test_sparql_select_comparison(required, variables, rows, ordered, expected):
    """SELECT results are judged by the comparator on the required columns (issue #6)."""
    reference = select(["t", "name", "kv"], TRANSFORMERS)
    result = evaluate(
        [sparql_step(reference, required_columns=required, ordered=ordered)], [actual("a1", select(variables, rows))]
    )
    assert result["steps_score"] == expected


def test_reals_within_epsilon():
    """Reals match within the relative epsilon (default 1e-4), and the epsilon is an option."""
    reference = select(["km"], [[lit("126.4", "decimal")]])
    close = [actual("a1", select(["len"], [[lit("1.2640001E2", "double")]]))]
    far = [actual("a1", select(["len"], [[lit("126.5", "double")]]))]
    assert evaluate([sparql_step(reference)], close)["steps_score"] == 1.0
    assert evaluate([sparql_step(reference)], far)["steps_score"] == 0.0
    assert evaluate([sparql_step(reference)], far, epsilon=0.001)["steps_score"] == 1.0


def test_typed_decimals_35_and_35_0_are_equal():
    """Difference from graphrag-eval (documented): "35" and "35.0" typed xsd:decimal are the same number."""
    reference = select(["x"], [[lit("35", "decimal")]])
    result = evaluate([sparql_step(reference)], [actual("a1", select(["x"], [[lit("35.0", "decimal")]]))])
    assert result["steps_score"] == 1.0


@pytest.mark.parametrize(
    "reference, output, score, mismatch",
    [
        (ask(True), ask(True), 1.0, None),
        (ask(True), ask(False), 0.0, "a1: ASK result false; expected true"),
        (
            ask(False),
            select(["x"], []),
            0.0,
            "a1: an ASK result (a boolean) was expected; the actual output is a SELECT result",
        ),
        (
            select(["x"], [[lit("1")]]),
            ask(True),
            0.0,
            "a1: a SELECT result was expected; the actual output is an ASK result",
        ),
        (
            ask(True),
            "@prefix cim: <https://cim.ucaiug.io/ns#> .\n<urn:a> cim:b <urn:c> .",
            0.0,
            "a1: actual output: not SPARQL results JSON (a DESCRIBE or CONSTRUCT result?): Expecting value",
        ),
        (ask(True), '{"head": ', 0.0, "a1: actual output: not SPARQL results JSON: Expecting value"),
        (select(["x"], []), select(["y", "z"], []), 1.0, None),
    ],
)
def test_ask_describe_and_invalid_outputs(reference, output, score, mismatch):
    """ASK compares the boolean; a DESCRIBE/CONSTRUCT string or invalid JSON scores 0 with a reason."""
    result = evaluate([sparql_step(reference)], [actual("a1", output)])
    assert result["steps_score"] == score
    assert result["reference_steps"][0][0].get("mismatch") == mismatch


@pytest.mark.parametrize(
    "reference, output, score",
    [
        ('{"a": [1, 2.0], "b": null}', '{"b": null, "a": [1.0, 2]}', 1.0),
        ('{"a": 1}', '{"a": true}', 0.0),
        ('{"a": 1}', '{"a": "1"}', 0.0),
        ("[1, 2]", "[2, 1]", 0.0),
        ("[1, 2]", "not json", 0.0),
    ],
)
def test_json_outputs_deep_equality(reference, output, score):
    """application/json compares decoded values: 1 == 1.0, but true is not 1."""
    step = {"name": "lookup", "args": {}, "output": reference, "output_media_type": "application/json"}
    assert evaluate([step], [actual("a1", output, name="lookup")])["steps_score"] == score


def test_retrieval_recall_at_k_takes_the_reference_k_first():
    """retrieval steps score recall@k with the reference step's args.k, then the actual step's,
    then the whole list; retrieval_k="actual" takes the actual step's first."""
    step = {"name": "retrieval", "args": {"k": 2}, "output": json.dumps([{"id": 1}, {"id": 3}, {"id": 5}, {"id": 6}])}
    retrieved = json.dumps([{"id": i} for i in [1, 4, 3, 5, 7]])
    result = evaluate([step], [actual("r1", retrieved, name="retrieval", args={"k": 5})])
    assert result["steps_score"] == 0.25
    assert result["reference_steps"][0][0]["mismatch"] == "r1: recall@2 = 0.25"
    assert result["reference_steps"][0][0]["matches"] == "r1"
    both = evaluate([step], [actual("r1", retrieved, name="retrieval", args={"k": 5})], retrieval_k="actual")
    assert both["steps_score"] == 0.75
    assert evaluate([step], [actual("r1", retrieved, name="retrieval")], retrieval_k="actual")["steps_score"] == 0.25
    without_k = {**step, "args": {}}
    assert evaluate([without_k], [actual("r1", retrieved, name="retrieval", args={"k": 1})])["steps_score"] == 0.25
    assert evaluate([without_k], [actual("r1", retrieved, name="retrieval")])["steps_score"] == 0.75


def test_retrieval_k_rule_is_checked():
    """An unknown retrieval_k rule is a ValueError naming the known ones."""
    with pytest.raises(ValueError, match="retrieval_k must be one of 'reference', 'actual', not 'mine'"):
        evaluate([{"name": "calc", "output": "1"}], [], retrieval_k="mine")


@pytest.mark.parametrize(
    "reference, output, score",
    [
        ([1, 3, 5], [3, 4, 1], 2 / 3),
        ('["d1", "d2"]', ["d2"], 0.5),
        ([7, "8"], '[{"id": "7"}, {"id": 8}]', 1.0),
        ('[{"id": "a"}]', ["a"], 1.0),
        ([1, 2], "[[1], 2]", 0.0),
        ([1, 2], '{"id": 1}', 0.0),
    ],
)
def test_retrieval_outputs_are_id_lists_or_objects(reference, output, score):
    """A retrieval output is a list of ids (graphrag-eval 4.0) or of objects with an "id", as a
    list or its JSON text; 7 and "7" are one id; anything else scores 0 with the reason."""
    step = {"name": "retrieval", "args": {}, "output": reference}
    result = evaluate([step], [actual("r1", output, name="retrieval")])
    assert result["steps_score"] == pytest.approx(score)
    if score == 0.0:
        assert result["reference_steps"][0][0]["mismatch"].startswith("r1: actual output: ")


@pytest.mark.parametrize("output, score", [("3.14", 1.0), ("3.140", 0.0), (3.14, 0.0)])
def test_other_outputs_exact_equality(output, score):
    """Without a media type (and not retrieval), outputs must be identical."""
    step = {"name": "calc", "args": {}, "output": "3.14"}
    assert evaluate([step], [actual("c1", output, name="calc")])["steps_score"] == score


def test_only_successful_steps_with_the_same_name_are_candidates():
    """An error step or a step of another name never matches, even with the right output."""
    reference = select(["x"], [[lit("1")]])
    steps = [actual("e1", reference, status="error"), actual("o1", reference, name="other_tool")]
    result = evaluate([sparql_step(reference)], steps)
    assert result["steps_score"] == 0.0
    assert result["reference_steps"][0][0]["mismatch"] == "no successful sparql_query step left to match"
    result = evaluate([sparql_step(reference)], [actual("o1", reference, name="other_tool")])
    assert result["reference_steps"][0][0]["mismatch"] == "no sparql_query step was executed"


def test_only_the_last_group_is_scored():
    """Earlier groups are not scored (graphrag-eval 4.0)."""
    first = {"name": "autocomplete_search", "args": {}, "output": "never produced"}
    reference = select(["x"], [[lit("1")]])
    [result] = run_evaluation(
        corpus([first], [sparql_step(reference)]),
        {"q1": {"question_id": "q1", "actual_steps": [actual("a1", reference)]}},
    )
    assert result["steps_score"] == 1.0
    assert "matches" not in result["reference_steps"][0][0]


def test_each_actual_step_matches_at_most_once_and_score_is_a_fraction():
    """Two identical reference steps need two actual steps; one gives 1/2."""
    reference = select(["x"], [[lit("1")]])
    group = [sparql_step(reference), sparql_step(reference)]
    half = evaluate(group, [actual("a1", reference)])
    assert half["steps_score"] == 0.5
    assert [step.get("matches") for step in half["reference_steps"][0]] == ["a1", None]
    full = evaluate(group, [actual("a1", reference), actual("a2", reference)])
    assert full["steps_score"] == 1.0
    # graphrag-eval's rule: the first reference step takes the latest candidate.
    assert [step["matches"] for step in full["reference_steps"][0]] == ["a2", "a1"]


def test_documented_cases_agree_with_greedy_latest_first():
    """Where graphrag-eval's greedy choice is optimal, the matches are the same as its own:
    the latest successful candidate wins (the README's STAVANGER case: error, then success)."""
    reference = select(["x"], [[lit("1")]])
    steps = [
        actual("call_DbMk", None, status="error", error="prefix urn undefined"),
        actual("call_Qm1m", reference),
        actual("call_late", reference),
    ]
    result = evaluate([sparql_step(reference)], steps)
    assert result["reference_steps"][0][0]["matches"] == "call_late"
    assert result["steps_score"] == 1.0


def test_optimal_assignment_beats_greedy():
    """Greedy would give A the latest step (which B needs) and leave B unmatched; we score 1."""
    a = select(["x"], [[lit("1")]])
    both = select(["x", "y"], [[lit("1"), lit("2")]])
    b = select(["y"], [[lit("2")]])
    group = [sparql_step(a, required_columns=["x"]), sparql_step(b)]
    steps = [actual("s1", a), actual("s2", both)]
    result = evaluate(group, steps)
    assert result["steps_score"] == 1.0
    assert [step["matches"] for step in result["reference_steps"][0]] == ["s1", "s2"]


def test_step_without_id_is_matched_by_index():
    """An actual step without an id is recorded by its position in actual_steps."""
    reference = select(["x"], [[lit("1")]])
    step = {"name": "sparql_query", "args": {}, "status": "success", "output": reference}
    result = evaluate([sparql_step(reference)], [actual("e", None, status="error"), step])
    assert result["reference_steps"][0][0]["matches"] == 1


@pytest.mark.parametrize(
    "response, error",
    [
        ({"question_id": "q1", "status": "error", "error": "Recursion limit"}, "Recursion limit"),
        ({"question_id": "q1", "error": "timeout"}, "timeout"),
        ({"question_id": "q1", "status": "error"}, "the response has status error (no error message)"),
        ({"question_id": "q1", "status": "error", "error": None}, "the response has status error (no error message)"),
        ({"question_id": "q1", "error": ""}, "the response has an empty error message"),
    ],
)
def test_error_responses(response, error):
    """An error response (status error, or an error message) is an error sample: status
    error, its message or why, no steps_score; graphrag-eval 4.0 scores one without an
    `error` key as a success."""
    [result] = run_evaluation(corpus([sparql_step(ask(True))]), {"q1": response})
    assert result["status"] == "error" and result["error"] == error
    assert "steps_score" not in result


def test_missing_response_is_an_error_sample():
    """A question without a response is an error sample with a clear reason, not a crash."""
    [result] = run_evaluation(corpus([sparql_step(ask(True))]), {})
    assert (result["status"], result["error"]) == ("error", "no response for question 'q1'")


@pytest.mark.parametrize(
    "steps, error",
    [
        (None, "no reference_steps to score"),
        ([], "reference_steps is empty"),
        ([[{"name": "a", "output": "x"}], []], "the last group of reference_steps is empty"),
    ],
)
def test_nothing_to_score_is_an_error_for_that_question(steps, error):
    """No reference steps or an empty last group: a clear error for that question only."""
    question = {"id": "q1", "question_text": "Q?"}
    if steps is not None:
        question["reference_steps"] = steps
    reference = [
        {
            "template_id": "t",
            "questions": [
                question,
                {"id": "q2", "question_text": "Q2?", "reference_steps": [[{"name": "a", "output": "x"}]]},
            ],
        }
    ]
    responses = [
        {"question_id": "q1", "actual_steps": []},
        {"question_id": "q2", "actual_steps": [{"name": "a", "status": "success", "output": "x"}]},
    ]
    first, second = run_evaluation(reference, responses)
    assert (first["status"], first["error"]) == ("error", error)
    assert second["steps_score"] == 1.0


def test_responses_as_list_and_steps_key():
    """Responses may be a list; `steps` is accepted for `actual_steps`, and kept as given."""
    reference = select(["x"], [[lit("1")]])
    [result] = run_evaluation(
        corpus([sparql_step(reference)]), [{"question_id": "q1", "steps": [actual("a1", reference)]}]
    )
    assert result["steps_score"] == 1.0 and result["actual_steps"][0]["id"] == "a1"


@pytest.mark.parametrize(
    "reference, responses, message",
    [
        (
            corpus([sparql_step("@prefix x: <y> .")]),
            {},
            "reference.0.questions.0.reference_steps.0.0: output: not SPARQL results JSON "
            "(a DESCRIBE or CONSTRUCT result?): Expecting value",
        ),
        (
            corpus([sparql_step(select(["a"], []), required_columns=["a", "b"])]),
            {},
            "reference.0.questions.0.reference_steps.0.0: output: required_columns: no variable b in the "
            "reference result (it has a)",
        ),
        (
            corpus([{"name": "retrieval", "args": {"k": 0}, "output": [1]}]),
            {},
            "reference.0.questions.0.reference_steps.0.0: args.k: a retrieval step's k is a positive integer, not 0",
        ),
        (
            corpus([{"name": "retrieval", "args": {"k": "5"}, "output": [1]}]),
            {},
            "reference.0.questions.0.reference_steps.0.0: args.k: a retrieval step's k is a positive integer, "
            "not a string",
        ),
        (
            corpus([{"name": "retrieval", "output": [1, 2.5]}]),
            {},
            "reference.0.questions.0.reference_steps.0.0: output: document 2 of the retrieval output: an id is "
            "text or an integer, not a number",
        ),
        (
            corpus([{"name": "x", "output": "y"}]) + corpus([{"name": "x", "output": "y"}]),
            {},
            "reference: question id 'q1' appears twice",
        ),
        (
            [{"template_id": "t", "questions": [{"id": 1.5, "question_text": "Q"}]}],
            {},
            "reference.0.questions.0.id: an id is a string or an integer, not a number with a fraction",
        ),
        (
            corpus([{"name": "x", "output": "y"}]),
            {"q1": {"question_id": "q2"}},
            "responses.q1: keyed by 'q1' but its question_id is 'q2'",
        ),
        (
            corpus([{"name": "x", "output": "y"}]),
            [{"question_id": "q1"}, {"question_id": "q1"}],
            "responses.1: a second response to question 'q1'",
        ),
        (
            corpus([{"name": "x", "output": "y"}]),
            [{"question_id": "q1", "steps": [], "actual_steps": []}],
            'responses.0: give the steps as "actual_steps" or as "steps", not both',
        ),
        (
            corpus([{"name": "x", "output": "y"}]),
            [{"question_id": "q1", "actual_steps": [{"name": "x"}]}],
            "responses.0.actual_steps.0.status: missing; this field is required",
        ),
        (
            corpus([{"name": "x", "output": "y"}]),
            [{"question_id": "q1", "steps": 3}],
            "responses.0.steps: should be a list, not an integer",
        ),
        (
            corpus([{"name": "x", "output": "y"}]),
            [{"question_id": "q1", "elapsed_sec": float("inf")}],
            "responses.0.elapsed_sec: should be a finite number of at least 0, not infinity",
        ),
        (
            corpus([{"name": "x", "output": "y"}]),
            [{"question_id": "q1", "input_tokens": True}],
            "responses.0.input_tokens: should be a finite number of at least 0, not a boolean",
        ),
        (
            corpus([{"name": "x", "output": "y"}]),
            "q1",
            "responses must be an object keyed by question id or a list of responses",
        ),
    ],
)
def test_bad_input_is_an_input_error(reference, responses, message):
    """Bad corpora and responses raise InputError naming the place in answerkey's words
    (no pydantic jargon), never a traceback."""
    with pytest.raises(InputError) as raised:
        run_evaluation(reference, responses)
    assert raised.value.message == message
    assert raised.value.source is None


def test_several_bad_places_are_all_named():
    """Every problem of a bad corpus is raised at once (InputErrors), each named by its path."""
    reference = [{"template_id": "t", "questions": [{"id": "q1"}, {"id": "q2", "question_text": 5}]}]
    with pytest.raises(InputErrors) as raised:
        run_evaluation(reference, {})
    assert [error.message for error in raised.value.errors] == [
        "reference.0.questions.0.question_text: missing; this field is required",
        "reference.0.questions.1.question_text: should be a string, not an integer",
    ]


def test_nesting_past_the_file_limit_is_refused():
    """Python values nested deeper than any file may be are an InputError, not a RecursionError."""
    deep: list = []
    for _ in range(150):
        deep = [deep]
    with pytest.raises(InputError) as raised:
        run_evaluation(corpus([{"name": "x", "output": "y"}]), [{"question_id": "q1", "extra": deep}])
    assert raised.value.message == "responses.0: nested deeper than 100 levels"


def test_cyclic_values_are_refused_at_once():
    """A list that holds itself twice (2^100 paths to walk) is refused as too deep, at once."""
    cyclic: list = []
    cyclic.extend([cyclic, cyclic])
    with pytest.raises(InputError) as raised:
        run_evaluation(corpus([{"name": "x", "output": "y"}]), [{"question_id": "q1", "actual_steps": cyclic}])
    assert raised.value.message == "responses.0: nested deeper than 100 levels"


def test_huge_integer_in_an_output_scores_zero_with_a_reason():
    """An output holding an integer Python will not convert (over 4,300 digits) scores 0 with
    the reason; in the reference it is an InputError."""
    huge = '{"a": ' + "1" * 5000 + "}"
    step = {"name": "lookup", "args": {}, "output": '{"a": 1}', "output_media_type": "application/json"}
    result = evaluate([step], [actual("a1", huge, name="lookup")])
    assert result["steps_score"] == 0.0
    assert (
        result["reference_steps"][0][0]["mismatch"] == "a1: actual output: holds an integer of more than 4,300 digits"
    )
    huge_sparql = select(["x"], [[lit("1", "integer")]]).replace('"1"', "1" * 5000)
    result = evaluate([sparql_step(ask(True))], [actual("a1", huge_sparql)])
    assert result["reference_steps"][0][0]["mismatch"] == (
        "a1: actual output: SPARQL results JSON with an integer of more than 4,300 digits"
    )
    with pytest.raises(InputError, match=r"output: holds an integer of more than 4,300 digits$"):
        run_evaluation(corpus([{**step, "output": huge}]), {})


def test_rows_are_tuples_not_joined_strings():
    """Difference from graphrag-eval (documented): it joins a row's values into one string, so
    ("ab", "c") would equal ("a", "bc"); tuples of values do not."""
    reference = select(["x", "y"], [[lit("ab"), lit("c")]])
    result = evaluate([sparql_step(reference)], [actual("a1", select(["x", "y"], [[lit("a"), lit("bc")]]))])
    assert result["steps_score"] == 0.0


def test_empty_required_columns_means_all_variables():
    """Difference from graphrag-eval (documented): `required_columns: []` requires every reference
    variable (graphrag-eval scores any non-empty result 1)."""
    reference = select(["x", "y"], [[lit("1"), lit("2")]])
    step = sparql_step(reference, required_columns=[])
    assert evaluate([step], [actual("a1", select(["x"], [[lit("1")]]))])["steps_score"] == 0.0
    assert evaluate([step], [actual("a1", select(["y", "x"], [[lit("2"), lit("1")]]))])["steps_score"] == 1.0
