"""graphrag-eval 6.x mode (``graphrag_eval=6``, ``--graphrag-eval 6``): the fixture in
tests/steps/data6 (written for these tests) and the cases below give the figures graphrag-eval
6.6.1 gives for them, run live while writing them (its execution_timestamp given as a
datetime, which 6.6.1 needs); each case says which 6.x rule it pins. Where 6.6.1 stops with an
exception (a missing key), answerkey scores 0.0: those cases say so.
"""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from answerkey.cli import cli
from answerkey.errors import InputError
from answerkey.steps import compute_aggregates, run_evaluation
from answerkey.steps.evaluate6 import match_groups, steps_score
from answerkey.steps.rules6 import compare_step, sparql_score, term_value, times_equal

DATA = Path(__file__).parent / "data6"
SPARQL = "application/sparql-results+json"


def _reference():
    return yaml.safe_load((DATA / "reference.yaml").read_text(encoding="utf-8"))


def _responses():
    lines = (DATA / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["question_id"]: record for record in map(json.loads, lines)}


@pytest.fixture(scope="module")
def results():
    return {result["question_id"]: result for result in run_evaluation(_reference(), _responses(), graphrag_eval=6)}


def _select(variable, *values, datatype=None):
    terms = [{"type": "literal", "value": v, **({"datatype": datatype} if datatype else {})} for v in values]
    return json.dumps({"head": {"vars": [variable]}, "results": {"bindings": [{variable: t} for t in terms]}})


@pytest.mark.parametrize(
    ("question", "score", "matches"),
    [
        # time series and data points without output, compared on args; iri_discovery by autocomplete_search
        ("ts1", 1.0, [["a1"], ["a2"], ["a3"]]),
        # a relative actual start for an absolute reference start: the last group fails, earlier ones not searched
        ("ts2", 0.0, [[None], [None]]),
        # ignore_duplicates: false counts repeated rows
        ("dup", 0.0, [[None]]),
        # every group scored: the first unmatched, the second matched (reals cut at 5 decimals)
        ("groups", 0.5, [[None], ["d2"]]),
        # a generic step matches an equal output whatever its name
        ("generic", 1.0, [["e1"]]),
        # retrieval: k from the actual step cuts the relevant ids too (5 of the first 5)
        ("docs", 1.0, [["f1"]]),
        # an error response is scored
        ("failed", 1.0, [["g1"]]),
        # only actual_steps is read, not 4.0's `steps`
        ("old", 0.0, [[None]]),
    ],
)
def test_fixture_scores_and_matches(results, question, score, matches):
    """Each question's steps_score and the `matches` on each reference step are 6.6.1's."""
    result = results[question]
    assert result["steps_score"] == score
    assert [[step.get("matches") for step in group] for group in result["reference_steps"]] == matches


def test_result_keys_and_error_samples(results):
    """Results carry 6.x's keys in its order; an error sample keeps its steps and score."""
    failed = results["failed"]
    assert list(failed) == [
        "template_id",
        "question_id",
        "question_text",
        "input_tokens",
        "reference_steps",
        "status",
        "error",
        "actual_steps",
        "steps_score",
    ]
    assert (failed["status"], failed["error"]) == ("error", "the agent timed out")
    assert results["old"]["actual_steps"] == []
    assert "mismatch" not in results["dup"]["reference_steps"][0][0]


def test_aggregates_are_6x(results):
    """Error samples count in the means, usage figures are zero-filled, micro ends with steps."""
    aggregates = compute_aggregates(list(results.values()), graphrag_eval=6)
    micro = aggregates["micro"]
    assert (micro["number_of_error_samples"], micro["number_of_success_samples"]) == (1, 7)
    assert micro["steps_score"] == {"sum": 4.5, "mean": 0.5625, "median": 0.75, "min": 0.0, "max": 1.0}
    assert micro["input_tokens"] == {"sum": 180, "mean": 60, "median": 50, "min": 30, "max": 100}
    assert micro["output_tokens"] == {"sum": 0, "mean": 0, "median": 0, "min": 0, "max": 0}
    assert list(micro)[-1] == "steps"
    assert micro["steps"]["total"]["sparql_query"] == 3
    assert micro["steps"]["once_per_sample"]["retrieve_data_points"] == 2
    assert aggregates["macro"]["steps_score"] == {"mean": 0.5416666666666667}
    assert aggregates["macro"]["input_tokens"] == {"mean": 52.5}


def test_4_0_mode_refuses_steps_without_output():
    """Without graphrag_eval=6 a reference step needs an output, as before."""
    with pytest.raises(InputError, match="output: missing"):
        run_evaluation(_reference(), _responses())


def test_retrieval_k_differs_between_modes():
    """10 relevant, the first 5 retrieved with k 5: 6.x 1.0, answerkey's 4.0 rule 0.5."""
    ids = [{"id": f"d{n}"} for n in range(1, 11)]
    reference = [
        {
            "template_id": "t",
            "questions": [
                {"id": "q", "question_text": "?", "reference_steps": [[{"name": "retrieval", "output": ids}]]}
            ],
        }
    ]
    actual = {"name": "retrieval", "id": "r", "status": "success", "args": {"k": 5}, "output": ids[:5]}
    responses = {"q": {"question_id": "q", "actual_steps": [actual]}}
    assert run_evaluation(reference, responses, graphrag_eval=6)[0]["steps_score"] == 1.0
    assert run_evaluation(reference, responses)[0]["steps_score"] == 0.5


@pytest.mark.parametrize(
    ("reference", "actual", "score"),
    [
        # iri_discovery found as a substring of a sparql_query step's output
        ({"name": "iri_discovery", "output": "urn:a"}, {"name": "sparql_query", "output": "x <urn:a> y"}, 1.0),
        # ... and not by a step of another name
        ({"name": "iri_discovery", "output": "urn:a"}, {"name": "lookup", "output": "urn:a"}, 0.0),
        # a literal equal to a URI's text is the same value (6.x's flaw, kept)
        (
            {
                "name": "sparql_query",
                "output_media_type": SPARQL,
                "required_columns": ["v"],
                "output": _select("v", "urn:a"),
            },
            {
                "name": "sparql_query",
                "output": json.dumps(
                    {"head": {"vars": ["v"]}, "results": {"bindings": [{"v": {"type": "uri", "value": "urn:a"}}]}}
                ),
            },
            1.0,
        ),
        # a reference step without output against a step of another name with no output: equal (None == None)
        ({"name": "retrieve_time_series", "args": {"mrid": "m"}}, {"name": "other", "output": None}, 1.0),
        # a data-points step without execution_timestamp cannot be compared (6.x stops): 0.0
        (
            {"name": "retrieve_data_points", "args": {"external_id": "e"}},
            {"name": "retrieve_data_points", "args": {"external_id": "e"}, "output": "[]"},
            0.0,
        ),
        # actual output that is not JSON for SPARQL results: 0.0
        (
            {"name": "sparql_query", "output_media_type": SPARQL, "required_columns": [], "output": _select("v", "a")},
            {"name": "sparql_query", "output": "not json"},
            0.0,
        ),
        # time series: a list of mrids in any order; a limit only when the reference gives one
        (
            {"name": "retrieve_time_series", "args": {"mrid": ["b", "a"]}},
            {"name": "retrieve_time_series", "args": {"mrid": ["a", "b"], "limit": 5}, "output": "[]"},
            1.0,
        ),
        (
            {"name": "retrieve_time_series", "args": {"limit": 5}},
            {"name": "retrieve_time_series", "args": {"mrid": "a", "limit": 5}, "output": "[]"},
            0.0,
        ),
    ],
)
def test_compare_step_cases(reference, actual, score):
    """compare_step gives 6.6.1's score (each case run through its compare_steps)."""
    assert compare_step(reference, actual) == score


def test_sparql_values_and_duplicates():
    """Reals are cut at 5 decimals; repeats count only with ignore_duplicates false."""
    double = "http://www.w3.org/2001/XMLSchema#double"
    assert (
        sparql_score(_select("x", "0.123456", datatype=double), _select("x", "0.123459", datatype=double), ["x"]) == 1.0
    )
    assert (
        sparql_score(_select("x", "0.12345", datatype=double), _select("x", "0.12346", datatype=double), ["x"]) == 0.0
    )
    assert sparql_score(_select("x", "a"), _select("x", "a", "a"), ["x"], ignore_duplicates=False) == 0.0
    assert sparql_score(_select("x", "a"), _select("x", "a", "a"), ["x"]) == 1.0
    assert (
        term_value({"type": "literal", "value": "TRUE", "datatype": "http://www.w3.org/2001/XMLSchema#boolean"}) is True
    )


def test_relative_times():
    """A relative reference time matches an absolute one within 60 s of the anchor's offset."""
    anchor = datetime(2025, 3, 10, 12, tzinfo=UTC)
    assert times_equal("2d-ago", "2025-03-08T12:01:00Z", anchor)
    assert not times_equal("2d-ago", "2025-03-08T12:01:01Z", anchor)
    assert times_equal("48h-ago", "2d-ago", anchor)
    assert times_equal(None, None, anchor) and not times_equal(None, "now", anchor)


def test_matching_in_order():
    """Groups are matched last first; an earlier group searches only before the later match."""
    groups = [[{"name": "a", "output": "1"}], [{"name": "b", "output": "2"}]]
    ok = {"status": "success"}
    after = [{**ok, "name": "b", "output": "2"}, {**ok, "name": "a", "output": "1"}]
    before = [{**ok, "name": "a", "output": "1"}, {**ok, "name": "b", "output": "2"}]
    assert match_groups(groups, after) == [(1, 0, 0, 1.0)]
    assert steps_score(groups, match_groups(groups, after)) == 0.5
    assert match_groups(groups, before) == [(1, 0, 1, 1.0), (0, 0, 0, 1.0)]
    assert steps_score(groups, match_groups(groups, before)) == 1.0


def test_cli_evaluate_and_aggregate(tmp_path):
    """`steps evaluate --graphrag-eval 6` writes 6.x's figures and signature; `aggregate` reads
    the version from that signature."""
    results = tmp_path / "results.json"
    runner = CliRunner()
    outcome = runner.invoke(
        cli,
        [
            "steps",
            "evaluate",
            str(DATA / "reference.yaml"),
            str(DATA / "responses.jsonl"),
            "--graphrag-eval",
            "6",
            "--json",
            str(results),
            "-q",
        ],
        catch_exceptions=False,
    )
    assert outcome.exit_code == 0, outcome.output
    report = json.loads(results.read_text(encoding="utf-8"))
    assert report["signature"].startswith("answers:off|graphrag_eval:6|v:")
    assert [r["steps_score"] for r in report["results"]] == [1.0, 0.0, 0.0, 0.5, 1.0, 1.0, 1.0, 0.0]
    aggregates = tmp_path / "aggregates.json"
    outcome = runner.invoke(
        cli, ["steps", "aggregate", str(results), "--json", str(aggregates), "-q"], catch_exceptions=False
    )
    assert outcome.exit_code == 0, outcome.output
    micro = json.loads(aggregates.read_text(encoding="utf-8"))["micro"]
    assert micro["steps_score"]["mean"] == 0.5625
    assert "steps" in micro
    outcome = runner.invoke(
        cli,
        ["steps", "aggregate", str(results), "--graphrag-eval", "4", "--json", str(aggregates), "-q"],
        catch_exceptions=False,
    )
    micro = json.loads(aggregates.read_text(encoding="utf-8"))["micro"]
    assert micro["steps_score"]["mean"] == 3.5 / 7 and "steps" not in micro


def test_cli_4_0_default_refuses_6x_reference():
    """Without --graphrag-eval 6, a 6.x reference step without output is refused, exit 2."""
    outcome = CliRunner().invoke(
        cli, ["steps", "evaluate", str(DATA / "reference.yaml"), str(DATA / "responses.jsonl")]
    )
    assert outcome.exit_code == 2
    assert (
        "reference.yaml:12:9: questions.0.reference_steps.1.0.output: missing; this field is required" in outcome.output
    )
