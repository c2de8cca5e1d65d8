"""Sort keys in corpus items, ``order_by: [2]`` (issue 16, item 9): the canonical answer is
then ordered by those columns (numbered from 1), ties in any order."""

import textwrap

import pytest

from answerkey.errors import InputError, InputErrors
from answerkey.model import Alternatives, Relation
from answerkey.score.load import load_answers, load_corpus
from answerkey.score.run import canonical_answers, check_corpus, run_score

CORPUS = """\
- id: by-salary
  query: Who earns what, by salary?
  answer: (("JONES" 30000) ("SMITH" 40000) ("TAI" 40000) ("ADAMS" 52000))
  order_by: [2]
- id: by-salary-ordered
  answer: (("JONES" 30000) ("SMITH" 40000) ("TAI" 40000))
  ordered: true
  order_by: [2]
- id: keys-replaced
  answer: (ORDERED BY 1 ("JONES" 30000) ("SMITH" 40000) ("TAI" 40000))
  order_by: [2]
- id: keys-dropped
  answer: (ORDERED BY 2 ("JONES" 30000) ("SMITH" 40000))
  ordered: false
- id: either
  answer: ((("a" 1) ("b" 1) ("c" 2)) OR (("x" 1)))
  order_by: [2]
- id: minmax
  answer: ((1) (1) (2))
  max_answer: ((1 "a") (1 "b") (2 "c"))
  order_by: [1]
"""

ANSWERS = {
    "by-salary": '(("JONES" 30000) ("TAI" 40000) ("SMITH" 40000) ("ADAMS" 52000))',
    "by-salary-ordered": '((30000 "JONES") (40000 "TAI") (40000 "SMITH"))',
    "keys-replaced": '(("JONES" 30000) ("TAI" 40000) ("SMITH" 40000))',
    "keys-dropped": '(("SMITH" 40000) ("JONES" 30000))',
    "either": '(("b" 1) ("a" 1) ("c" 2))',
    "minmax": '((1 "b") (1 "a") (2 "c"))',
}


def score(tmp_path, corpus_text: str, answers: dict[str, str], name: str = "corpus.yaml"):
    corpus = tmp_path / name
    corpus.write_text(textwrap.dedent(corpus_text))
    records = tmp_path / "answers.yaml"
    records.write_text("".join(f"{key}: '{value}'\n" for key, value in answers.items()))
    return run_score(load_corpus(str(corpus)), load_answers(str(records)))


def test_order_by_lets_ties_come_in_any_order(tmp_path):
    """Each item's tied tuples come in another order than the canonical answer's: correct,
    with order_by on an unordered answer, with ordered: true, in place of the CAS text's BY,
    on every OR alternative, and on a minimal answer."""
    run = score(tmp_path, CORPUS, ANSWERS)
    assert {item.id: (item.verdict, item.reason) for item in run.items} == {
        "by-salary": ("correct", "the tuples match in key order (BY 2; ties as sets)"),
        "by-salary-ordered": ("correct", "the tuples match in key order (BY 2; ties as sets)"),
        "keys-replaced": ("correct", "the tuples match in key order (BY 2; ties as sets)"),
        "keys-dropped": ("correct", "the tuples match as sets"),
        "either": ("correct", "alternative 1 matches: the tuples match in key order (BY 2; ties as sets)"),
        "minmax": ("correct", "the minimal columns match and every system column is a column of the maximal answer"),
    }


def test_order_by_still_requires_the_key_order(tmp_path):
    """A tuple after one of a later key is incorrect, also on a minimal answer."""
    answers = {
        "by-salary": '(("JONES" 30000) ("TAI" 40000) ("ADAMS" 52000) ("SMITH" 40000))',
        "minmax": '((2 "c") (1 "b") (1 "a"))',
    }
    run = score(tmp_path, CORPUS, answers)
    verdicts = {item.id: (item.verdict, item.reason) for item in run.items if item.id in answers}
    assert verdicts == {
        "by-salary": (
            "incorrect",
            "no mapping of canonical columns onto system columns gives the canonical tuples in key order (BY 2)",
        ),
        "minmax": (
            "incorrect",
            "the minimal answer does not match: no mapping of canonical columns onto system columns gives the "
            "canonical tuples in key order (BY 1)",
        ),
    }


def test_order_by_in_json_lines(tmp_path):
    """JSON corpora take order_by as a list of integers too; the item keeps it as a tuple."""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "q", "answer": "((1 a) (1 b) (2 c))", "order_by": [1]}\n')
    loaded = load_corpus(str(corpus))
    assert loaded.items[0].order_by == (1,)
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "q", "answer": "((1 b) (1 a) (2 c))"}\n')
    assert run_score(loaded, load_answers(str(answers))).items[0].verdict == "correct"


@pytest.mark.parametrize(
    "field, line, column, message",
    [
        ("order_by: [0]", 3, 13, "order_by: column 0: columns are numbered from 1"),
        ("order_by: []", 3, 13, "order_by: should list at least one column number (from 1)"),
        ("order_by: 2", 3, 13, "order_by: should be a list of column numbers (from 1), not an integer"),
        ("order_by: ['2']", 3, 13, "order_by: a column number is an integer from 1, not a string"),
        ("order_by: [true]", 3, 13, "order_by: a column number is an integer from 1, not a boolean"),
        ("order_by: [1.5]", 3, 13, "order_by: a column number is an integer from 1, not a number"),
        ("order_by: [2, 1, 2]", 3, 13, "order_by: column 2 is listed twice"),
        (
            "order_by: [1]\n  ordered: false",
            1,
            3,
            "order_by: sort keys order the answer; they cannot go with ordered: false",
        ),
    ],
)
def test_bad_order_by_values_are_located(tmp_path, field, line, column, message):
    """Every bad order_by is an error at its place, worded for the user; the item is left out."""
    corpus = tmp_path / "c.yaml"
    corpus.write_text(f"- id: q\n  answer: ((1 2))\n  {field}\n")
    loaded = load_corpus(str(corpus))
    assert loaded.items == []
    assert [str(problem) for problem in loaded.problems] == [f"{corpus}:{line}:{column}: {message}"]


def test_unusable_order_by_stops_the_run_with_located_errors(tmp_path):
    """A key beyond the answer's columns, on a scalar, and keys on a maximal answer are
    corpus problems at the field, found when the canonical answers are parsed."""
    corpus = tmp_path / "c.yaml"
    corpus.write_text(
        textwrap.dedent("""\
        - id: beyond
          answer: ((1 2))
          order_by: [3]
        - id: beyond-alternative
          answer: (((1 2)) OR ((1)))
          order_by: [2]
        - id: scalar
          answer: 5
          order_by: [1]
        - id: keyed-maximal
          answer: ((1))
          max_answer: (ORDERED BY 2 (1 2))
        - id: empty
          answer: ()
          order_by: [4]
        """)
    )
    problems = check_corpus(load_corpus(str(corpus)))
    assert [str(problem) for problem in problems] == [
        f"{corpus}:3:13: item 'beyond': order_by: column 3 is beyond the 2 columns of the answer",
        f"{corpus}:6:13: item 'beyond-alternative': order_by: column 2 is beyond the 1 column of alternative 2 "
        "of the answer",
        f"{corpus}:9:13: item 'scalar': order_by: the answer is a scalar, which has no columns to sort by",
        f"{corpus}:12:15: item 'keyed-maximal': max_answer: sort keys (ORDERED BY) go on the minimal answer in "
        "'answer', whose columns they number",
    ]
    answers = tmp_path / "a.yaml"
    answers.write_text("beyond: ((1 2))\n")
    with pytest.raises(InputErrors) as caught:
        run_score(load_corpus(str(corpus)), load_answers(str(answers)))
    assert len(caught.value.errors) == 4


def test_canonical_answers_applies_order_by_as_zero_based_keys():
    """The library call gives the parsed answer its keys (columns from 1 in, from 0 in the model)."""
    answer, maximal = canonical_answers("((1 2) (3 4))", order_by=(2, 1))
    assert isinstance(answer, Relation) and answer.order_by == (1, 0) and maximal is None
    alternatives, _ = canonical_answers("(((1 2)) OR ((3 4)))", order_by=(1,))
    assert isinstance(alternatives, Alternatives)
    assert [option.order_by for option in alternatives.options] == [(0,), (0,)]
    with pytest.raises(InputError, match="order_by: column 3 is beyond the 2 columns of the answer"):
        canonical_answers("((1 2))", order_by=(3,))
