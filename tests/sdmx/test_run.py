"""Term precision/recall per dimension and their NaN-aware macro averages (issue #5, methodology
"Metrics" and "Example"); the suite result and its warnings (issue 15: one Result, warnings
with FILE:LINE)."""

import json
import math
import sys

import pytest
from hypothesis import given, strategies as st

from answerkey.errors import InputError, InputErrors, RunWarning
from answerkey.model import Relation
from answerkey.report import Result
from answerkey.sdmx import (
    NOT_IN_TARGET,
    SIGNATURE,
    SdmxRun,
    Summary,
    TermPair,
    as_selection,
    evaluate_case,
    load_cases,
    load_selections,
    nan_mean,
    run_sdmx,
    signature_of,
)
from answerkey.signature import Signature
from answerkey.version import __version__

NAN = math.nan
D1 = ("ds1", "d1")
D2 = ("ds1", "d2")
T1 = ("t1", "term one")
T2 = ("t2", "term two")
T3 = ("t3", "term three")
GDP = ("GDP", "gross domestic product")
GDPPC = ("GDPPC", "GDP per capita")
GDP_CONST = ("GDP_CONST", "gross domestic product constant prices")
INDICATOR = ("IMF.RES:WEO", "INDICATOR")


def same(actual: float, expected: float) -> bool:
    return math.isnan(actual) if math.isnan(expected) else actual == pytest.approx(expected, abs=1e-12)


# (target, selected, macro recall, macro precision), each from the issue's list of vectors.
VECTORS = {
    "identical single term": ({D1: [T1]}, {D1: [T1]}, 1.0, 1.0),
    "same id, different name": ({D1: [T1]}, {D1: [("t1", "another name")]}, 0.0, 0.0),
    "right dimension, wrong dataset": ({("ds1", "d1"): [T1]}, {("ds2", "d1"): [T1]}, 0.0, NAN),
    "one of two target terms": ({D1: [T1, T2]}, {D1: [T1]}, 0.5, 1.0),
    "one right, one wrong": ({D1: [T1, T2]}, {D1: [T1, T3]}, 0.5, 0.5),
    "only d1 of d1, d2 correct": ({D1: [T1], D2: [T1]}, {D1: [T1]}, 0.5, 1.0),
    "empty target": ({}, {D1: [T1]}, NAN, NAN),
    "methodology example": ({INDICATOR: [GDP, GDPPC]}, {INDICATOR: [GDP, GDPPC, GDP_CONST]}, 1.0, 2 / 3),
}


@pytest.mark.parametrize(("target", "selected", "recall", "precision"), VECTORS.values(), ids=VECTORS)
def test_issue_vectors(target, selected, recall, precision):
    """Each documented vector gives exactly its macro recall and precision."""
    result = evaluate_case(target, selected)
    assert same(result.macro_recall, recall), result.macro_recall
    assert same(result.macro_precision, precision), result.macro_precision


# (target, selected, macro recall, macro precision) under each reading of dimensions not in the
# target: "listed" (the reference implementation) and "scored" (methodology, "Test Case Metrics":
# "all selected terms are counted as false positives for that dimension", averaged "across all
# dimensions"); recall of such a dimension is 0/0, undefined, so left out under both.
READINGS = {
    "empty target": ({}, {D1: [T1]}, (NAN, NAN), (NAN, 0.0)),
    "right dimension, wrong dataset": ({D1: [T1]}, {("ds2", "d1"): [T1]}, (0.0, NAN), (0.0, 0.0)),
    "an extra dimension": ({D1: [T1]}, {D1: [T1], D2: [T2]}, (1.0, 1.0), (1.0, 0.5)),
    "two extra dimensions": ({D1: [T1, T2]}, {D1: [T1], D2: [T2], ("ds2", "d1"): [T1]}, (0.5, 1.0), (0.5, 1 / 3)),
    "neither target nor selection": ({}, {}, (NAN, NAN), (NAN, NAN)),
    "an extra dimension without terms": ({D1: [T1]}, {D1: [T1], D2: []}, (1.0, 1.0), (1.0, 1.0)),
    "empty target, empty selected dimension": ({D1: []}, {D1: []}, (NAN, NAN), (NAN, NAN)),
    "no extra dimension": ({D1: [T1, T2]}, {D1: [T1, T3]}, (0.5, 0.5), (0.5, 0.5)),
}


@pytest.mark.parametrize(("target", "selected", "listed", "scored"), READINGS.values(), ids=READINGS)
def test_readings_of_dimensions_not_in_target(target, selected, listed, scored):
    """Each vector gives exactly its macro (recall, precision) under "listed" (the default) and "scored"."""
    for reading, (recall, precision) in (("listed", listed), ("scored", scored)):
        result = evaluate_case(target, selected, not_in_target=reading)
        assert result.not_in_target == reading
        assert same(result.macro_recall, recall), (reading, result.macro_recall)
        assert same(result.macro_precision, precision), (reading, result.macro_precision)
    default = evaluate_case(target, selected)
    assert (default.not_in_target, same(default.macro_precision, listed[1])) == ("listed", True)


def test_scored_dimension_not_in_target_has_precision_zero_and_no_recall():
    """Under "scored" a dimension not in the target keeps its false positives, has precision 0 and
    recall NaN, and joins the target's dimensions in ``scored_dimensions``; under "listed" it does not."""
    scored = evaluate_case({D1: [T1]}, {D1: [T1], D2: [T2, T3]}, not_in_target="scored")
    [extra] = scored.dimensions_not_in_target
    assert extra.false_positives == (TermPair(*T2), TermPair(*T3))
    assert extra.precision == 0.0 and math.isnan(extra.recall)
    assert scored.scores_not_in_target
    assert [(d.dataset_id, d.dimension_name) for d in scored.scored_dimensions] == [D1, D2]
    listed = evaluate_case({D1: [T1]}, {D1: [T1], D2: [T2, T3]})
    assert not listed.scores_not_in_target
    assert listed.dimensions_not_in_target == scored.dimensions_not_in_target
    assert [(d.dataset_id, d.dimension_name) for d in listed.scored_dimensions] == [D1]


def test_unknown_reading_is_a_value_error():
    """A reading other than "listed" or "scored" is refused by evaluate_case and run_sdmx, naming both."""
    message = "unknown reading of dimensions not in the target 'literal' (one of: listed, scored)"
    with pytest.raises(ValueError) as raised:
        evaluate_case({D1: [T1]}, {D1: [T1]}, not_in_target="literal")
    assert str(raised.value) == message
    with pytest.raises(ValueError) as raised:
        run_sdmx([], [], not_in_target="literal")
    assert str(raised.value) == message


def test_methodology_example_lists_terms():
    """GDP, GDPPC vs GDP, GDPPC, GDP_CONST: two true positives, GDP_CONST a false positive."""
    [dimension] = evaluate_case({INDICATOR: [GDP, GDPPC]}, {INDICATOR: [GDP, GDPPC, GDP_CONST]}).dimensions
    assert dimension.true_positives == (TermPair(*GDP), TermPair(*GDPPC))
    assert dimension.false_negatives == ()
    assert dimension.false_positives == (TermPair(*GDP_CONST),)
    assert (dimension.recall, round(dimension.precision, 2)) == (1.0, 0.67)


def test_wrong_dataset_is_listed_as_not_in_target():
    """A dimension selected outside the target holds only false positives and stays out of the means."""
    result = evaluate_case({("ds1", "d1"): [T1]}, {("ds2", "d1"): [T1, T2]})
    [extra] = result.dimensions_not_in_target
    assert (extra.dataset_id, extra.dimension_name) == ("ds2", "d1")
    assert extra.false_positives == (TermPair(*T1), TermPair(*T2))
    assert extra.true_positives == extra.false_negatives == ()
    [dimension] = result.dimensions
    assert dimension.false_negatives == (TermPair(*T1),)
    assert math.isnan(dimension.precision)


def test_target_dimension_without_terms_counts_as_absent():
    """An empty value list in the target is the same as no target for that dimension (methodology, Notes)."""
    result = evaluate_case({D1: [T1], D2: []}, {D1: [T1], D2: [T2]})
    assert [(d.dataset_id, d.dimension_name) for d in result.dimensions] == [D1]
    assert [d.false_positives for d in result.dimensions_not_in_target] == [(TermPair(*T2),)]
    assert (result.macro_recall, result.macro_precision) == (1.0, 1.0)


def test_duplicate_selected_terms_count_once():
    """Terms are a set: selecting a term twice is one true positive, not a false positive."""
    result = evaluate_case({D1: [T1, T2]}, {D1: [T1, T1]})
    assert (result.macro_recall, result.macro_precision) == (0.5, 1.0)


def test_indicator_selection_lists_are_accepted():
    """``evaluate_case`` reads the file shape as well as mappings of (id, name) pairs."""
    target = [
        {"dataset_id": "ds1", "dimensions": [{"dimension_name": "d1", "values": [{"id": "t1", "name": "term one"}]}]}
    ]
    assert evaluate_case(target, {D1: [T1, T2]}).macro_precision == 0.5


def dataset(name, dimension, *terms):
    return {
        "dataset_id": name,
        "dimensions": [{"dimension_name": dimension, "values": [{"id": i, "name": n} for i, n in terms]}],
    }


def case(case_id, tags, *terms):
    return {
        "id": case_id,
        "name": case_id,
        "tags": list(tags),
        "conversation": [
            {
                "role": "user",
                "content": f"question {case_id}",
                "target": {"indicator_selection": [dataset("ds1", "d1", *terms)]},
            }
        ],
    }


def record(case_id, *terms):
    return {"id": case_id, "indicator_selection": [dataset("ds1", "d1", *terms)]}


def test_suite_means_ignore_nan_and_group_by_tag():
    """Suite and per-tag figures are means of the cases' macro figures, NaN left out."""
    cases = [case("a", ["x"], T1, T2), case("b", ["x", "y"], T1), case("c", ["y"], T1), {"id": "e", "tags": ["y"]}]
    suite = run_sdmx(cases, [record("a", T1), record("b", T1), record("b", T2), record("zz", T1)])
    # a: 0.5 / 1.0; b: 1.0 / 0.5; c: no record -> 0.0 / NaN; e: empty target -> NaN / NaN
    assert [(r.id, r.macro_recall) for r in suite.cases][:3] == [("a", 0.5), ("b", 1.0), ("c", 0.0)]
    assert suite.summary == Summary(4, 0.5, 0.75)
    assert suite.by_tag == {"x": Summary(2, 0.75, 0.75), "y": Summary(3, 0.5, 0.5)}
    assert suite.warnings == (RunWarning("selection for unknown case 'zz'", "unknown-case"),)


def test_suite_result_is_a_result_with_a_signature_object():
    """The suite result implements the Result protocol; its signature is a Signature naming the match rule."""
    suite = run_sdmx([case("a", ["x"], T1)], [record("a", T1)])
    assert isinstance(suite, Result)
    assert isinstance(suite.signature, Signature) and suite.signature == SIGNATURE
    assert suite.signature.fields["match"] == "id+name"
    assert suite.signature.fields["not_in_target"] == "listed"
    assert str(suite.signature).startswith("match:id+name|not_in_target:listed|v:")
    assert json.loads(json.dumps(suite.document()))["signature"] == str(SIGNATURE)


def test_scored_reading_suite_figures_and_signature():
    """``not_in_target="scored"`` changes the case and suite macro precision (not recall), and the
    signature and the result record the reading."""
    cases = [case("a", ["x"], T1), case("b", ["x"], T1), {"id": "e", "tags": ["y"]}]
    records = [
        record("a", T1),
        {"id": "b", "indicator_selection": [dataset("ds1", "d1", T1), dataset("ds1", "d2", T2)]},
        record("e", T1),
    ]
    listed = run_sdmx(cases, records)
    scored = run_sdmx(cases, records, not_in_target="scored")
    # a: 1.0 / 1.0 both; b: 1.0 / 1.0 listed, 1.0 / 0.5 scored; e: NaN / NaN listed, NaN / 0.0 scored
    assert listed.summary == Summary(3, 1.0, 1.0)
    assert scored.summary == Summary(3, 1.0, 0.5)
    assert listed.by_tag["x"] == Summary(2, 1.0, 1.0)
    assert math.isnan(listed.by_tag["y"].macro_recall) and math.isnan(listed.by_tag["y"].macro_precision)
    assert scored.by_tag["x"] == Summary(2, 1.0, 0.75)
    assert math.isnan(scored.by_tag["y"].macro_recall) and scored.by_tag["y"].macro_precision == 0.0
    assert (listed.not_in_target, scored.not_in_target) == ("listed", "scored")
    assert [result.not_in_target for result in scored.cases] == ["scored"] * 3
    assert str(scored.signature) == f"match:id+name|not_in_target:scored|v:{__version__}"
    assert str(listed.signature) == f"match:id+name|not_in_target:listed|v:{__version__}"
    assert scored.signature == signature_of("scored") and listed.signature == SIGNATURE == signature_of()
    assert scored.not_in_target_rule == NOT_IN_TARGET["scored"]
    assert list(NOT_IN_TARGET) == ["listed", "scored"]


def test_tag_filter_keeps_matching_cases_without_warning_about_the_others():
    """``tags`` scores only the tagged cases; selections of filtered-out cases are not 'unknown'."""
    suite = run_sdmx([case("a", ["x"], T1), case("b", ["y"], T1)], [record("a", T1), record("b", T1)], tags=["y"])
    assert [r.id for r in suite.cases] == ["b"]
    assert suite.warnings == ()
    assert list(suite.by_tag) == ["y"]


def test_unknown_tags_are_warnings_with_a_suggestion():
    """A --tag no case has is a warning, suggesting the tag meant (a case-only difference said so)."""
    suite = run_sdmx([case("a", ["weo"], T1), case("b", ["cpi"], T1)], [], tags=["CPI", "wo", "zzz", "weo"])
    assert [r.id for r in suite.cases] == ["a"]
    assert suite.warnings == (
        RunWarning("no case has tag 'CPI' (did you mean 'cpi'? tags are compared exactly)", "unknown-tag"),
        RunWarning("no case has tag 'wo' (did you mean 'weo'?)", "unknown-tag"),
        RunWarning("no case has tag 'zzz'", "unknown-tag"),
    )


def test_warnings_from_files_name_file_and_line(tmp_path):
    """Read from files, an unknown case's selection is located at its record's line and an unknown
    tag at the cases file."""
    cases_path = tmp_path / "cases.yaml"
    cases_path.write_text("- id: a\n  tags: [x]\n")
    selections_path = tmp_path / "s.jsonl"
    selections_path.write_text(
        "".join(
            json.dumps(r) + "\n" for r in [record("a", T1), record("gone", T1), record("gone", T2), record("A2", T1)]
        )
    )
    suite = run_sdmx(load_cases(cases_path), load_selections(selections_path), tags=["y"])
    assert [str(warning) for warning in suite.warnings] == [
        f"{selections_path}:2: selection for unknown case 'gone'",
        f"{selections_path}:4: selection for unknown case 'A2'",
        f"{cases_path}: no case has tag 'y'",
    ]


def test_ids_differing_only_in_case_get_a_hint():
    """Selections whose ids match case ids but for case are each warned about, then explained once."""
    suite = run_sdmx([case("a", [], T1), case("b", [], T1)], [record("A", T1), record("B", T1)])
    assert [warning.kind for warning in suite.warnings] == ["unknown-case", "unknown-case", "unknown-case-case"]
    assert str(suite.warnings[-1]) == (
        "2 of the 2 unknown case ids of the selections match a case id but for case (e.g. 'A'); "
        "ids are compared exactly"
    )


def test_selections_for_no_case_of_the_suite_get_a_hint():
    """When no selection names a case of the suite, one more warning asks whether the files belong together."""
    suite = run_sdmx([case("a", [], T1)], [record("x", T1), record("y", T1)])
    assert suite.warnings[-1] == RunWarning(
        "no selection names a case of the suite: are these the selections for these test cases?", "unknown-case-all"
    )


def test_invalid_mappings_are_input_errors_in_answerkeys_words():
    """Cases and records given as mappings are validated with answerkey's messages, naming the entry."""
    with pytest.raises(InputErrors) as caught:
        run_sdmx([{"id": "a", "tags": "x"}], [])
    assert [str(error) for error in caught.value.errors] == ["cases[0]: tags: should be a list, not a string"]
    with pytest.raises(InputErrors) as caught:
        run_sdmx([case("a", [], T1)], [record("a", T1), {"id": "a"}])
    assert [str(error) for error in caught.value.errors] == [
        "selections[1]: indicator_selection: missing; this field is required"
    ]


@pytest.mark.parametrize(("quiet", "drawn"), [(False, True), (True, False)])
def test_progress_bar_on_a_terminal(monkeypatch, quiet, drawn, fake_terminal):
    """A large suite draws a progress bar on a terminal's stderr unless quiet."""
    terminal = fake_terminal
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr("answerkey.progress.PROGRESS_THRESHOLD", 3)
    run_sdmx([case(name, [], T1) for name in "abcd"], [], quiet=quiet)
    assert ("sdmx [" in terminal.text and "4/4" in terminal.text) is drawn


def test_duplicate_case_id_is_an_error():
    """Two cases with one id cannot both be scored."""
    with pytest.raises(InputError, match="duplicate case id 'a'"):
        run_sdmx([case("a", [], T1), case("a", [], T2)], [])


def test_case_metadata_and_query_are_filled():
    """``run_sdmx`` copies id, name, tags and the user turns (the query) into each result."""
    multi = case("m", ["t"], T1)
    multi["conversation"] += [{"role": "assistant", "content": "answer"}, {"role": "user", "content": "more?"}]
    [result] = run_sdmx([multi], {}).cases
    assert (result.id, result.name, result.tags, result.query) == ("m", "m", ("t",), "question m\nmore?")
    assert isinstance(run_sdmx([multi], {}), SdmxRun)


def test_nan_mean_of_nothing_is_nan():
    """No defined value: the mean is NaN rather than 0."""
    assert math.isnan(nan_mean([]))


# Property tests: small alphabets so that overlaps (and name clashes) are frequent.
keys = st.tuples(st.sampled_from(["ds1", "ds2"]), st.sampled_from(["d1", "d2", "d3"]))
terms = st.tuples(st.sampled_from(["t1", "t2", "t3", "t4"]), st.sampled_from(["a", "b"]))
selections = st.dictionaries(keys, st.lists(terms, max_size=5), max_size=4)


def in_unit_or_nan(value: float) -> bool:
    return math.isnan(value) or 0.0 <= value <= 1.0


@given(selections, selections)
def test_figures_are_in_unit_interval_or_nan(target, selected):
    """Every recall and precision, per dimension and macro, is in [0, 1] or NaN."""
    result = evaluate_case(target, selected)
    figures = [result.macro_recall, result.macro_precision]
    for dimension in result.dimensions + result.dimensions_not_in_target:
        figures += [dimension.recall, dimension.precision]
    assert all(in_unit_or_nan(value) for value in figures)


@given(selections)
def test_selecting_exactly_the_target_scores_one(target):
    """Selecting the target itself gives 1/1 (NaN/NaN only when the target has no terms)."""
    result = evaluate_case(target, target)
    if any(target.values()):
        assert (result.macro_recall, result.macro_precision) == (1.0, 1.0)
    else:
        assert math.isnan(result.macro_recall) and math.isnan(result.macro_precision)
    assert result.dimensions_not_in_target == ()


@given(selections, selections)
def test_terms_are_partitioned(target, selected):
    """Per target dimension, TP + FN is the target's distinct terms and TP + FP the selection's."""
    result = evaluate_case(target, selected)
    chosen = as_selection(selected)
    for dimension in result.dimensions:
        key = (dimension.dataset_id, dimension.dimension_name)
        expected = {TermPair(*t) for t in target[key]}
        picked = {TermPair(r[0].text, r[1].text) for r in chosen.get(key, Relation()).rows}
        assert set(dimension.true_positives) | set(dimension.false_negatives) == expected
        assert set(dimension.true_positives) | set(dimension.false_positives) == picked
        assert not set(dimension.false_negatives) & set(dimension.false_positives)
