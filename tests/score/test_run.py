"""Scoring a corpus (issue #3, "Scoring"): verdicts, ATIS figures, graded metrics hook, errors."""

import math
import textwrap
from fractions import Fraction

import pytest

from answerkey.comparator import MatchRule
from answerkey.grammar import parse
from answerkey.score.load import InputErrors, load_answers, load_corpus
from answerkey.score.run import GroupSummary, ItemResult, ScoreOptions, item_metrics, run_score

CORPUS = """\
- {id: right, answer: ((1 "a") (2 "b")), tags: [relation]}
- {id: wrong, answer: ((1 "a") (2 "b")), tags: [relation]}
- {id: missing, answer: "5", tags: [scalar]}
- {id: declined, answer: "5", tags: [scalar]}
- {id: null-answer, answer: "5", category: 1, tags: [scalar]}
- {id: broken, answer: "5", category: 1}
- {id: either, answer: (3 OR 4), category: 2}
- {id: minmax, answer: ((1) (2)), max_answer: ((1 "a") (2 "b")), category: 3}
- {id: loose, answer: "100.0", epsilon: 0.1}
- {id: in-order, answer: ((1) (2)), ordered: true}
- {id: excluded, category: X, tags: [scalar]}
"""

ANSWERS = """\
{"id": "right", "answer": "((\\"b\\" 2 true) (\\"a\\" 1 false))"}
{"id": "wrong", "answer": "((1 \\"a\\"))"}
{"id": "declined", "answer": "NO_ANSWER"}
{"id": "null-answer", "answer": null}
{"id": "broken", "answer": "((5"}
{"id": "either", "answer": "4"}
{"id": "minmax", "answer": "((1 7) (2 8))"}
{"id": "loose", "answer": "91.0"}
{"id": "in-order", "answer": "((2) (1))"}
{"id": "excluded", "answer": "anything"}
{"id": "stranger", "answer": "1"}
"""

EXPECTED_VERDICTS = {
    "right": ("correct", "the tuples match as sets"),
    "wrong": ("incorrect", "no mapping of canonical columns onto system columns gives the canonical tuples as a set"),
    "missing": ("no_answer", "no answer for this item in the answers file"),
    "declined": ("no_answer", "the system gave no answer (NO_ANSWER)"),
    "null-answer": ("no_answer", "the system gave no answer (null)"),
    "broken": (
        "incorrect",
        "unparseable system answer: {answers}:5 (at 1:4 of the answer text): "
        "unexpected end of input; expected ')' or a value",
    ),
    "either": ("correct", "alternative 2 matches: the scalar matches"),
    "minmax": ("incorrect", "system column 2 matches no column of the maximal answer"),
    "loose": ("correct", "the scalar matches"),
    "in-order": (
        "incorrect",
        "no mapping of canonical columns onto system columns gives the canonical tuples in order",
    ),
    "excluded": ("excluded", "category X: listed, not scored (H89-2019 section 5)"),
}


@pytest.fixture
def files(tmp_path):
    corpus = tmp_path / "corpus.yaml"
    corpus.write_text(CORPUS)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(ANSWERS)
    return str(corpus), str(answers)


def run(files, jobs=1, **options):
    corpus, answers = files
    return run_score(load_corpus(corpus), load_answers(answers), ScoreOptions(**options), jobs=jobs)


def test_every_verdict_kind(files):
    """Each item gets its verdict and reason, in corpus order; category X is listed as excluded."""
    result = run(files)
    expected = {key: (verdict, reason.format(answers=files[1])) for key, (verdict, reason) in EXPECTED_VERDICTS.items()}
    assert {item.id: (item.verdict, item.reason) for item in result.items} == expected
    assert [item.id for item in result.items] == list(EXPECTED_VERDICTS)


def test_unknown_ids_are_warnings(files):
    """An answer whose id is not in the corpus is reported, never silently dropped."""
    warnings = run(files).warnings
    assert [(str(warning), warning.kind) for warning in warnings] == [
        (f"{files[1]}:11: answer for id 'stranger', which is not in the corpus", "unknown-id")
    ]


def test_ids_that_differ_only_in_case_are_pointed_out(tmp_path):
    """Answers keyed Q1 for a corpus keyed q1: one warning each, and one saying what likely went wrong."""
    corpus = tmp_path / "c.yaml"
    corpus.write_text("".join(f"- {{id: q{index}, answer: 1}}\n" for index in range(3)))
    answers = tmp_path / "a.jsonl"
    answers.write_text("".join(f'{{"id": "Q{index}", "answer": "1"}}\n' for index in range(3)))
    warnings = run_score(load_corpus(str(corpus)), load_answers(str(answers))).warnings
    assert [warning.kind for warning in warnings] == ["unknown-id"] * 3 + ["unknown-id-case"]
    assert str(warnings[-1]) == (
        "3 answer ids of 3 not in the corpus match a corpus id but for case (e.g. 'Q0'); ids are compared exactly"
    )


def test_summary_figures(files):
    """Counts, accuracy = correct / scored, ATIS weighted error = 2 %F + %NA, score = 100 - it."""
    summary = run(files).summary
    assert (summary.items, summary.scored, summary.correct, summary.incorrect, summary.no_answer) == (11, 10, 3, 4, 3)
    assert summary.accuracy == pytest.approx(float(Fraction(3, 10)))
    assert summary.weighted_error == pytest.approx(2 * 40 + 30)
    assert summary.score == pytest.approx(100 - 110)


def test_per_category_and_tag(files):
    """Groups are computed the same way; a group with nothing scored has no figures."""
    result = run(files)
    figures = {
        name: (group.items, group.scored, group.correct, group.incorrect, group.no_answer, group.accuracy)
        for name, group in {**result.by_category, **{f"tag {tag}": g for tag, g in result.by_tag.items()}}.items()
    }
    assert figures == {
        "0": (6, 6, 2, 2, 2, pytest.approx(1 / 3)),
        "1": (2, 2, 0, 1, 1, 0.0),
        "2": (1, 1, 1, 0, 0, 1.0),
        "3": (1, 1, 0, 1, 0, 0.0),
        "X": (1, 0, 0, 0, 0, None),
        "tag relation": (2, 2, 1, 1, 0, 0.5),
        "tag scalar": (4, 3, 0, 0, 3, 0.0),
    }
    assert result.by_category["X"].weighted_error is None and result.by_category["X"].score is None
    assert list(result.by_category) == ["0", "1", "2", "3", "X"]


def test_run_options_change_verdicts_and_signature(files):
    """The run's epsilon applies where an item has none; the signature records run options."""
    strict = run(files, epsilon=0)
    assert str(strict.signature).startswith("eps:0|scalars:atis|strings:exact|v:")
    assert strict.signature.fields["epsilon"] == "0"
    loose = {item.id: item.verdict for item in strict.items}["loose"]
    assert loose == "correct"  # the item's own epsilon 0.1 wins over the run's 0


def test_jobs_give_the_same_results(files):
    """--jobs 2 scores in two processes with the same results in the same order."""
    assert run(files, jobs=2).items == run(files, jobs=1).items


def test_graded_metrics_from_the_registry(files, monkeypatch):
    """Per item metrics come from the registry; no-answer and unparseable items score 0.0;
    alternatives take the best value; category X items have none; summaries take means."""
    calls = []

    def matched_rows(target, prediction, *, rule=None):
        calls.append(rule)
        return len(set(target.rows) & set(prediction.rows)) / max(len(set(target.rows)), 1)

    monkeypatch.setattr("answerkey.score.run.relation_metrics", lambda: {"matched_rows": matched_rows})
    result = run(files, metrics=("matched_rows",))
    values = {item.id: item.metrics for item in result.items}
    assert values == {
        "right": {"matched_rows": 0.0},  # different columns: the metric sees no common row
        "wrong": {"matched_rows": 0.5},
        "missing": {"matched_rows": 0.0},
        "declined": {"matched_rows": 0.0},
        "null-answer": {"matched_rows": 0.0},
        "broken": {"matched_rows": 0.0},
        "either": {"matched_rows": 1.0},  # best over (3 OR 4)
        "minmax": {"matched_rows": 0.0},
        "loose": {"matched_rows": 0.0},
        "in-order": {"matched_rows": 1.0},
        "excluded": {},
    }
    assert result.summary.metrics == {"matched_rows": pytest.approx(2.5 / 10)}
    assert result.by_category["X"].metrics == {"matched_rows": None}
    assert MatchRule(epsilon=0.1) in calls  # the item's epsilon reaches the metric's rule


def test_no_metrics_when_registry_is_empty(files, monkeypatch):
    """With nothing registered the run has no metric values at all."""
    monkeypatch.setattr("answerkey.score.run.relation_metrics", lambda: {})
    result = run(files)
    assert all(item.metrics == {} for item in result.items)
    assert result.summary.metrics == {}


def test_unknown_metric_is_refused(monkeypatch):
    """Asking for a metric the registry does not have is an error."""
    monkeypatch.setattr("answerkey.score.run.relation_metrics", lambda: {"a": None})
    with pytest.raises(ValueError, match="unknown metric 'b'; known: a"):
        ScoreOptions(metrics=("b",))


def test_registered_table_metrics_on_scalars_and_relations():
    """With the QATCH metrics registered, a scalar is a one-tuple relation."""
    from answerkey.score.run import relation_metrics

    names = tuple(relation_metrics())
    if not names:
        pytest.skip("no relation metrics registered")
    values = item_metrics(parse("5"), parse("((5))"), MatchRule(), names)
    assert {name: value for name, value in values.items() if name != "tuple_order"} == dict.fromkeys(
        [name for name in names if name != "tuple_order"], 1.0
    )
    assert math.isnan(values["tuple_order"])  # a scalar is not ordered: order does not apply


def test_tuple_order_applies_only_to_ordered_canonical_answers():
    """An unordered answer has no order to score (NaN, null in reports, out of the means);
    an ordered one gets QATCH's tuple order, 0.0 when the system declined."""
    rule = MatchRule()
    assert math.isnan(item_metrics(parse("((1) (2))"), parse("((2) (1))"), rule, ["tuple_order"])["tuple_order"])
    assert item_metrics(parse("(ORDERED (1) (2))"), parse("((2) (1))"), rule, ["tuple_order"]) == {"tuple_order": 0.0}
    assert item_metrics(parse("(ORDERED (1) (2))"), None, rule, ["tuple_order"]) == {"tuple_order": 0.0}
    assert math.isnan(item_metrics(parse("((1) (2))"), None, rule, ["tuple_order"])["tuple_order"])


def test_bad_corpus_items_stop_the_run(tmp_path):
    """Invalid fields and unusable CAS text are all listed, located, and nothing is scored."""
    corpus = tmp_path / "c.yaml"
    corpus.write_text(
        textwrap.dedent("""\
        - id: ok
          answer: ((1))
        - id: bad-cas
          answer: ((1) (2 3))
        - id: bad-field
          answer: 1
          epsilon: lots
        - id: bad-max
          answer: ((1 2))
          max_answer: ((1 3))
        - id: x
          category: X
          answer: ((
        """)
    )
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "ok", "answer": "((1))"}\n')
    with pytest.raises(InputErrors) as caught:
        run_score(load_corpus(str(corpus)), load_answers(str(answers)))
    assert [str(error) for error in caught.value.errors] == [
        f"{corpus}:4:11: item 'bad-cas': answer: tuple 2 has 2 values; the relation's tuples have 1 "
        "(at 1:6 of the answer text)",
        f"{corpus}:7:12: epsilon: should be a number, not a string",
        f"{corpus}:10:15: item 'bad-max': max_answer: does not contain the minimal answer "
        "(no columns of it give the minimal answer's tuples)",
        f"{corpus}:13:11: item 'x': answer: unexpected end of input; expected '(' or ')' or ORDERED or a value (at 1:3 of the answer text)",
    ]


def test_group_summary_of_nothing():
    """An empty group has zero counts and no figures."""
    group = GroupSummary.of([], ["m"])
    assert (group.items, group.accuracy, group.weighted_error, group.score, group.metrics) == (
        0,
        None,
        None,
        None,
        {"m": None},
    )


def test_group_summary_averages_a_metric_over_the_items_that_have_it():
    """An item without a metric, or with NaN, is left out of that metric's mean only;
    excluded items count in no mean."""
    results = [
        ItemResult("a", "correct", "", "0", (), {"m": 1.0, "n": 0.5}),
        ItemResult("b", "incorrect", "", "0", (), {"m": 0.0}),
        ItemResult("c", "incorrect", "", "0", (), {"m": 0.5, "n": math.nan}),
        ItemResult("d", "excluded", "", "X", (), {"m": 9.0, "n": 9.0}),
    ]
    assert GroupSummary.of(results, ["m", "n"]).metrics == {"m": 0.5, "n": 0.5}


def test_item_result_scored_flag():
    """Only excluded items are unscored."""
    item = ItemResult("q", "no_answer", "", "0", (), {})
    assert item.scored and not ItemResult("q", "excluded", "", "X", (), {}).scored


@pytest.mark.parametrize(
    "canonical, system",
    [
        ('((1 "a") (2 "b"))', '(("b" 2 9) ("a" 1 9))'),  # extra column, shuffled
        ("((53200.0) (1.5))", "((53198.8) (1.5) (7.0))"),  # reals within epsilon, an extra tuple
        ("(ORDERED (1) (2) (3))", "((3) (2) (1))"),
        ("5", "((5 6))"),
    ],
)
def test_shared_table_scores_equal_each_metric(canonical, system):
    """Computing the table metrics together gives each registered metric's own value."""
    from answerkey.score.run import relation_metrics

    functions = relation_metrics()
    if not functions:
        pytest.skip("no relation metrics registered")
    rule = MatchRule()
    target, prediction = parse(canonical), parse(system)
    expected = {name: function(target, prediction, rule=rule) for name, function in functions.items()}
    if not target.ordered:
        expected["tuple_order"] = math.nan
    assert str(item_metrics(target, prediction, rule, tuple(functions))) == str(expected)


def test_check_corpus_lists_problems_without_answers(tmp_path):
    """check_corpus validates a corpus on its own: field problems and unusable CAS, located."""
    from answerkey.score.run import check_corpus

    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        '{"id": "a", "answer": "((1)"}\n{"id": "b", "answer": "1"}\n{"id": "c", "answer": "NO_ANSWER"}\n{"id": "d"}\n'
    )
    problems = check_corpus(load_corpus(str(corpus)), jobs=1)
    assert [str(problem) for problem in problems] == [
        f"{corpus}:1:13: item 'a': answer: unexpected end of input; expected '(' or ')' (at 1:5 of the answer text)",
        f"{corpus}:3:13: item 'c': answer: NO_ANSWER cannot be a canonical answer (nothing matches it; use "
        "category X to list an item without scoring it)",
        f"{corpus}:4:1: answer: required unless the item is in category X (excluded from scoring)",
    ]
