"""Term precision/recall per dimension and their NaN-aware macro averages (issue #5, methodology
"Metrics" and "Example")."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from answerkey.errors import InputError
from answerkey.model import Relation, String
from answerkey.sdmx import (
    SIGNATURE,
    Summary,
    TermConflict,
    TermPair,
    TestCase,
    as_selection,
    evaluate,
    evaluate_case,
    merge,
    nan_mean,
    target_of,
)

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
    target = [{"dataset_id": "ds1", "dimensions": [{"dimension_name": "d1", "values": [{"id": "t1", "name": "term one"}]}]}]
    assert evaluate_case(target, {D1: [T1, T2]}).macro_precision == 0.5


def test_selection_is_a_relation_of_id_name_strings():
    """The typed model: a dimension's terms are a relation of (String id, String name) tuples."""
    relation = as_selection({D1: [T1]})[D1]
    assert isinstance(relation, Relation)
    assert relation.rows == ((String("t1"), String("term one")),)


def dataset(name, dimension, *terms):
    return {"dataset_id": name, "dimensions": [
        {"dimension_name": dimension, "values": [{"id": i, "name": n} for i, n in terms]}]}


def test_merge_is_a_union_per_dimension_key():
    """Turns and records are merged by union per (dataset, dimension), keeping first-seen order."""
    merged = merge([[dataset("ds1", "d1", T1)], [dataset("ds1", "d1", T2, T1), dataset("ds2", "d1", T3)]])
    assert list(merged) == [("ds1", "d1"), ("ds2", "d1")]
    assert [row[0].text for row in merged[("ds1", "d1")].rows] == ["t1", "t2"]


def test_target_conflict_names_case_and_term():
    """One term id with two names across the turns of a target is an error naming the case and term."""
    case = TestCase.model_validate({"id": "c7", "conversation": [
        {"role": "user", "content": "a", "target": {"indicator_selection": [dataset("ds1", "d1", T1)]}},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c", "target": {"indicator_selection": [dataset("ds1", "d1", ("t1", "other"))]}},
    ]})
    with pytest.raises(TermConflict) as caught:
        target_of(case)
    assert caught.value.message == "case 'c7': term 't1' of ds1 / d1 is named both 'term one' and 'other'"
    assert caught.value.path == (
        "conversation", 2, "target", "indicator_selection", 0, "dimensions", 0, "values", 0
    )


def test_selection_with_two_names_for_one_id_is_scored_not_rejected():
    """In a system selection the wrong spelling is just a false positive."""
    selected = merge([[dataset("ds1", "d1", T1)], [dataset("ds1", "d1", ("t1", "other"))]])
    result = evaluate_case({D1: [T1]}, selected)
    assert (result.macro_recall, result.macro_precision) == (1.0, 0.5)


def case(case_id, tags, *terms):
    return {"id": case_id, "name": case_id, "tags": list(tags), "conversation": [
        {"role": "user", "content": f"question {case_id}",
         "target": {"indicator_selection": [dataset("ds1", "d1", *terms)]}}]}


def record(case_id, *terms):
    return {"id": case_id, "indicator_selection": [dataset("ds1", "d1", *terms)]}


def test_suite_means_ignore_nan_and_group_by_tag():
    """Suite and per-tag figures are means of the cases' macro figures, NaN left out."""
    cases = [case("a", ["x"], T1, T2), case("b", ["x", "y"], T1), case("c", ["y"], T1), {"id": "e", "tags": ["y"]}]
    suite = evaluate(cases, [record("a", T1), record("b", T1), record("b", T2), record("zz", T1)])
    # a: 0.5 / 1.0; b: 1.0 / 0.5; c: no record -> 0.0 / NaN; e: empty target -> NaN / NaN
    assert [(r.id, r.macro_recall) for r in suite.cases][:3] == [("a", 0.5), ("b", 1.0), ("c", 0.0)]
    assert suite.summary == Summary(4, 0.5, 0.75)
    assert suite.by_tag == {"x": Summary(2, 0.75, 0.75), "y": Summary(3, 0.5, 0.5)}
    assert suite.warnings == ("selection for unknown case 'zz'",)
    assert suite.signature == SIGNATURE and SIGNATURE.startswith("match:id+name|v:")


def test_tag_filter_keeps_matching_cases_without_warning_about_the_others():
    """``tags`` scores only the tagged cases; selections of filtered-out cases are not 'unknown'."""
    suite = evaluate([case("a", ["x"], T1), case("b", ["y"], T1)], [record("a", T1), record("b", T1)], tags=["y"])
    assert [r.id for r in suite.cases] == ["b"]
    assert suite.warnings == ()
    assert list(suite.by_tag) == ["y"]


def test_duplicate_case_id_is_an_error():
    """Two cases with one id cannot both be scored."""
    with pytest.raises(InputError, match="duplicate case id 'a'"):
        evaluate([case("a", [], T1), case("a", [], T2)], [])


def test_case_metadata_and_query_are_filled():
    """``evaluate`` copies id, name, tags and the user turns (the query) into each result."""
    multi = case("m", ["t"], T1)
    multi["conversation"] += [{"role": "assistant", "content": "answer"}, {"role": "user", "content": "more?"}]
    [result] = evaluate([multi], {}).cases
    assert (result.id, result.name, result.tags, result.query) == ("m", "m", ("t",), "question m\nmore?")


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


def test_relation_of_non_strings_is_rejected():
    """A term relation must hold (String id, String name) tuples."""
    with pytest.raises(ValueError, match=r"terms of \('ds1', 'd1'\) must be \(id, name\) pairs of strings"):
        evaluate_case({D1: Relation.from_rows([[1, "one"]])}, {})
