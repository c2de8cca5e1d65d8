"""Properties of the steps score over generated SPARQL results (Hypothesis)."""

import json

from hypothesis import given, strategies as st

from answerkey.adapters.sparql import sparql_results_from_relation
from answerkey.model import Relation, String
from answerkey.steps import run_evaluation
from answerkey.testing.strategies import relations


def score(reference_results, actual_results, *, required=None, ordered=False):
    step = {
        "name": "sparql_query",
        "args": {},
        "output": json.dumps(reference_results),
        "output_media_type": "application/sparql-results+json",
        "ordered": ordered,
    }
    if required is not None:
        step["required_columns"] = required
    reference = [{"template_id": "t", "questions": [{"id": "q", "question_text": "Q", "reference_steps": [[step]]}]}]
    response = {
        "q": {
            "question_id": "q",
            "actual_steps": [
                {"name": "sparql_query", "id": "a", "status": "success", "output": json.dumps(actual_results)}
            ],
        }
    }
    [result] = run_evaluation(reference, response)
    return result["steps_score"]


@given(relations(min_rows=1, max_rows=6, max_cols=3, ordered=None), st.randoms(use_true_random=False), st.data())
def test_renamed_shuffled_and_widened_results_score_one(relation, rng, data):
    """The actual result may rename variables, reorder columns (and rows unless ordered) and
    add a column: it still scores 1."""
    names = [f"r{i}" for i in range(relation.arity)]
    reference = sparql_results_from_relation(relation, names)
    order = list(range(relation.arity))
    rng.shuffle(order)
    rows = [tuple(row[i] for i in order) + (String(f"<urn:extra:{n}>"),) for n, row in enumerate(relation.rows)]
    if not relation.ordered:
        rng.shuffle(rows)
    actual = sparql_results_from_relation(Relation(rows), [f"a{i}" for i in range(relation.arity + 1)])
    required = data.draw(st.sampled_from([None, names]))
    assert score(reference, actual, required=required, ordered=relation.ordered) == 1.0


@given(relations(min_rows=1, max_rows=5, max_cols=3, nil=False))
def test_dropping_a_required_column_scores_zero(relation):
    """An actual result without one of the required columns scores 0 (values are tagged with
    their column, so no other column can stand in for the missing one)."""
    names = [f"r{i}" for i in range(relation.arity)]
    tagged = Relation([tuple(String(f"{c}:{v!r}") for c, v in enumerate(row)) for row in relation.rows])
    reference = sparql_results_from_relation(tagged, names)
    kept = Relation([row[1:] for row in tagged.rows]) if relation.arity > 1 else Relation(())
    actual = sparql_results_from_relation(kept, names[1:] if relation.arity > 1 else [])
    assert score(reference, actual) == 0.0


outputs = st.one_of(
    st.text(max_size=30),
    st.builds(
        json.dumps,
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=4),
            lambda children: (
                st.lists(children, max_size=3)
                | st.dictionaries(
                    st.sampled_from(["head", "vars", "results", "bindings", "boolean", "id"]), children, max_size=3
                )
            ),
            max_leaves=12,
        ),
    ),
    st.none(),
    st.integers(),
)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["sparql_query", "lookup", "retrieval", "calc"]),
            st.sampled_from(["success", "error"]),
            outputs,
        ),
        max_size=5,
    )
)
def test_any_actual_outputs_score_between_0_and_1(steps):
    """Whatever the agent's steps hold, every question gets a score in [0, 1], never an exception."""
    group = [
        {
            "name": "sparql_query",
            "output": json.dumps({"head": {}, "boolean": True}),
            "output_media_type": "application/sparql-results+json",
        },
        {"name": "lookup", "output": '{"a": 1}', "output_media_type": "application/json"},
        {"name": "retrieval", "args": {"k": 2}, "output": '[{"id": 1}, {"id": 2}]'},
        {"name": "calc", "output": "42"},
    ]
    reference = [{"template_id": "t", "questions": [{"id": "q", "question_text": "Q", "reference_steps": [group]}]}]
    actual = [
        {"name": name, "id": f"s{i}", "status": status, "output": output}
        for i, (name, status, output) in enumerate(steps)
    ]
    [result] = run_evaluation(reference, {"q": {"question_id": "q", "actual_steps": actual}})
    assert 0.0 <= result["steps_score"] <= 1.0
    matched = [step["matches"] for step in result["reference_steps"][0] if "matches" in step]
    assert len(matched) == len(set(matched))
