"""Selections on the typed model: relations of (id, name) terms, merged per (dataset, dimension);
targets refuse one id named two ways (issue #5, methodology "Term Matching")."""

import pytest

from answerkey.model import Relation, String
from answerkey.sdmx import TermConflict, TestCase, as_selection, evaluate_case, merge, target_of

D1 = ("ds1", "d1")
T1 = ("t1", "term one")
T2 = ("t2", "term two")
T3 = ("t3", "term three")


def dataset(name, dimension, *terms):
    return {
        "dataset_id": name,
        "dimensions": [{"dimension_name": dimension, "values": [{"id": i, "name": n} for i, n in terms]}],
    }


def test_selection_is_a_relation_of_id_name_strings():
    """The typed model: a dimension's terms are a relation of (String id, String name) tuples."""
    relation = as_selection({D1: [T1]})[D1]
    assert isinstance(relation, Relation)
    assert relation.rows == ((String("t1"), String("term one")),)


def test_relation_of_non_strings_is_rejected():
    """A term relation must hold (String id, String name) tuples."""
    with pytest.raises(ValueError, match=r"terms of \('ds1', 'd1'\) must be \(id, name\) pairs of strings"):
        as_selection({D1: Relation.from_rows([[1, "one"]])})


def test_merge_is_a_union_per_dimension_key():
    """Turns and records are merged by union per (dataset, dimension), keeping first-seen order."""
    merged = merge([[dataset("ds1", "d1", T1)], [dataset("ds1", "d1", T2, T1), dataset("ds2", "d1", T3)]])
    assert list(merged) == [("ds1", "d1"), ("ds2", "d1")]
    assert [row[0].text for row in merged[("ds1", "d1")].rows] == ["t1", "t2"]


def test_target_conflict_names_case_and_term():
    """One term id with two names across the turns of a target is an error naming the case and term,
    with the path of the second name inside the case."""
    case = TestCase.model_validate(
        {
            "id": "c7",
            "conversation": [
                {"role": "user", "content": "a", "target": {"indicator_selection": [dataset("ds1", "d1", T1)]}},
                {"role": "assistant", "content": "b"},
                {
                    "role": "user",
                    "content": "c",
                    "target": {"indicator_selection": [dataset("ds1", "d1", ("t1", "other"))]},
                },
            ],
        }
    )
    with pytest.raises(TermConflict) as caught:
        target_of(case)
    assert caught.value.message == "case 'c7': term 't1' of ds1 / d1 is named both 'term one' and 'other'"
    assert caught.value.path == ("conversation", 2, "target", "indicator_selection", 0, "dimensions", 0, "values", 0)


def test_selection_with_two_names_for_one_id_is_scored_not_rejected():
    """In a system selection the wrong spelling is just a false positive."""
    selected = merge([[dataset("ds1", "d1", T1)], [dataset("ds1", "d1", ("t1", "other"))]])
    result = evaluate_case({D1: [T1]}, selected)
    assert (result.macro_recall, result.macro_precision) == (1.0, 0.5)
