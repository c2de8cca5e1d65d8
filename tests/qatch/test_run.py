"""answerkey.qatch.run: one test scored, a run over tests, its options and signature."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from answerkey.adapters.sql import Databases
from answerkey.qatch import run as run_module
from answerkey.qatch.run import (
    QatchOptions,
    QatchTest,
    TestOutcome,
    evaluate_test,
    needs_databases,
    run_qatch,
)
from answerkey.report import Result
from answerkey.signature import Signature

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "qatch"
MALFORMED = 'the prediction is not a table like [["wales", "scotland"], ["england"]]'


@pytest.fixture
def databases(tmp_path):
    """A copy of the examples' Spider-layout root (tests must not touch the examples)."""
    root = tmp_path / "databases"
    shutil.copytree(EXAMPLES / "databases", root)
    return root


def test_evaluate_test_separates_test_errors_from_prediction_errors(databases):
    """A target that cannot be evaluated is an error of the test (no scores); a prediction
    that is missing or malformed scores zeros."""
    dbs = Databases(databases)
    outcome = evaluate_test("[1, 2]", [["a"]], task="qa", metrics=["cell_recall"])
    assert outcome == TestOutcome({"cell_recall": None}, error="the target is not a table (a list of rows)")
    outcome = evaluate_test("SELECT 1", [["a"]], task="qa", metrics=["cell_recall"])
    assert outcome.error == "the target is a query, but no databases are given"
    outcome = evaluate_test("SELECT 1", "SELECT 1", task="sp", databases=dbs, metrics=["cell_recall"])
    assert outcome.error == "the target is a query, but the test has no db_id"
    outcome = evaluate_test("SELECT 1", None, task="sp", db_id="uk", databases=dbs, metrics=["cell_recall"])
    assert outcome == TestOutcome(
        {"cell_recall": 0.0}, prediction_error="the prediction query is missing (not SQL text)"
    )
    outcome = evaluate_test("SELECT nope", "SELECT 1", task="sp", db_id="uk", databases=dbs, metrics=["cell_recall"])
    assert outcome.error == "the target query failed: no such column: nope"
    with pytest.raises(ValueError, match="unknown task 'xx'"):
        evaluate_test("SELECT 1", "SELECT 1", task="xx")


@pytest.mark.parametrize(
    "target, order_applies",
    [
        ("SELECT name FROM country", False),
        ("SELECT name FROM country ORDER BY name", True),
        ("select name from country order\n  by name desc", True),
    ],
)
def test_tuple_order_only_where_the_target_is_ordered(databases, target, order_applies):
    """Tuple order has a value only when the target query has ORDER BY, also for a
    prediction that fails (0.0 then, None without ORDER BY)."""
    dbs = Databases(databases)
    metrics = ["tuple_order", "cell_recall"]
    good = evaluate_test(target, "SELECT name FROM country", task="sp", db_id="uk", databases=dbs, metrics=metrics)
    bad = evaluate_test(target, "SELECT nme FROM country", task="sp", db_id="uk", databases=dbs, metrics=metrics)
    assert good.scores["cell_recall"] == 1.0 and bad.scores["cell_recall"] == 0.0
    assert (good.scores["tuple_order"] is not None) is order_applies
    assert bad.scores["tuple_order"] == (0.0 if order_applies else None)


def test_a_table_target_always_gets_tuple_order():
    """A QA target given as a table is ordered: tuple order applies."""
    outcome = evaluate_test([["a"], ["b"]], '[["b"], ["a"]]', task="qa", metrics=["tuple_order"])
    assert outcome.scores == {"tuple_order": 0.0}
    assert evaluate_test([["a"]], "oops", task="qa", metrics=["tuple_order"]) == TestOutcome(
        {"tuple_order": 0.0}, prediction_error=MALFORMED
    )


def test_options_signature():
    """The signature holds every option that changes scores, the result limits included."""
    options = QatchOptions(task="qa", epsilon=0.01, strings="fold", timeout=2.5, max_rows=10, max_result_bytes=1000)
    assert isinstance(options.signature, Signature)
    fields = options.signature.fields
    fields.pop("version")
    assert fields == {
        "task": "qa",
        "epsilon": "0.01",
        "strings": "fold",
        "timeout": "2.5",
        "max_rows": "10",
        "max_result_bytes": "1000",
    }
    assert options.databases() is None
    databases = QatchOptions(task="sp", root="/r", timeout=2.5, max_rows=10, max_result_bytes=1000).databases()
    assert (databases.timeout, databases.max_rows, databases.max_result_bytes) == (2.5, 10, 1000)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"task": "xx"}, "unknown task 'xx'; known: qa, sp"),
        ({"task": "qa", "metrics": ("bleu",)}, "unknown metric 'bleu'"),
        ({"task": "qa", "timeout": math.nan}, "timeout must be a finite number of seconds above 0"),
        ({"task": "qa", "timeout": math.inf}, "timeout must be a finite number of seconds above 0"),
        ({"task": "qa", "timeout": 0}, "timeout must be a finite number of seconds above 0"),
        ({"task": "qa", "max_rows": 0}, "max_rows and max_result_bytes must be at least 1"),
        ({"task": "qa", "strings": "loose"}, "strings must be one of exact, trim, fold"),
        ({"task": "qa", "metrics": ("valid_efficiency_score",)}, "valid_efficiency_score applies only to task sp"),
        ({"task": "sp", "ves_runs": 0}, "runs must be a whole number, 1 or more, not 0"),
        ({"task": "sp", "ves_runs": 2.5}, "runs must be a whole number, 1 or more, not 2.5"),
    ],
)
def test_bad_options(options, message):
    """Options that cannot give scores are refused when made."""
    with pytest.raises(ValueError, match=message):
        QatchOptions(**options)


def sp_tests() -> list[QatchTest]:
    return [
        QatchTest("same", 1, "uk", "SELECT name FROM country", "SELECT name FROM country"),
        QatchTest(
            "ordered",
            2,
            "uk",
            "SELECT name FROM country ORDER BY population DESC",
            "SELECT name FROM country ORDER BY population",
        ),
        QatchTest("typo", 3, "uk", "SELECT name FROM country", "SELECT nme FROM country"),
        QatchTest("broken", 4, "uk", "SELECT nope FROM country", "SELECT name FROM country"),
        QatchTest("nowhere", 5, "mars", "SELECT 1", "SELECT 1"),
    ]


def test_run_means_counts_and_errors(databases):
    """Means are over the tests where a metric has a value: failing targets are left out, a
    failing prediction counts as 0, tuple order counts only the ordered target."""
    options = QatchOptions(task="sp", metrics=("cell_recall", "tuple_order"), root=str(databases))
    run = run_qatch(sp_tests(), options)
    assert isinstance(run, Result)
    assert run.signature == options.signature
    assert [result.test.id for result in run.results] == ["same", "ordered", "typo", "broken", "nowhere"]
    assert run.means == {"cell_recall": 2 / 3, "tuple_order": 0.0}
    assert run.metric_counts == {"cell_recall": 3, "tuple_order": 1}
    assert run.counts == {"tests": 5, "evaluated": 3, "errors": 2, "prediction_errors": 1}
    assert [result.test.id for result in run.failed] == ["broken", "nowhere"]
    assert run.results[4].outcome.error.startswith("the target query failed: no database 'mars'")
    assert run.warnings == []


def test_jobs_keep_file_order_and_results(databases):
    """Two processes give the same outcomes, in the order of the tests."""
    options = QatchOptions(task="sp", root=str(databases))
    tests = sp_tests() * 3
    one = run_qatch(tests, options, jobs=1)
    two = run_qatch(tests, options, jobs=2)
    assert one.results == two.results
    assert (one.means, one.counts) == (two.means, two.counts)


def test_a_metric_with_no_value_has_no_mean():
    """A metric that applies to no test has the mean None (not 0) over 0 tests."""
    run = run_qatch([QatchTest("t", 1, None, "[1]", [["a"]])], QatchOptions(task="qa", metrics=("cell_recall",)))
    assert run.means == {"cell_recall": None} and run.metric_counts == {"cell_recall": 0}


def test_needs_databases():
    """SP always runs SQL; QA only when some target is SQL."""
    table = QatchTest("1", 1, None, [["a"]], [["a"]])
    query = QatchTest("2", 2, "uk", "SELECT 1", [["1"]])
    assert needs_databases([table], "sp") is True
    assert needs_databases([table], "qa") is False
    assert needs_databases([table, query], "qa") is True


def test_ves_runs_are_in_the_signature_only_with_ves():
    """ves_runs changes scores only when the VES is computed, so only then is it signed."""
    assert "ves_runs" not in QatchOptions(task="sp", ves_runs=7).signature.fields
    fields = QatchOptions(task="sp", metrics=("valid_efficiency_score",), ves_runs=7).signature.fields
    assert fields["ves_runs"] == "7"
    assert str(QatchOptions(task="sp", metrics=("execution_accuracy", "valid_efficiency_score")).signature).endswith(
        "|max_result_bytes:67108864|ves_runs:100|v:" + fields["version"]
    )


def test_ves_of_sp_tests(databases):
    """A wrong or failing prediction has VES exactly 0; a correct one a measured VES above 0;
    the VES does not need execution accuracy asked for; QA refuses it."""
    dbs = Databases(databases)
    metrics = ["valid_efficiency_score"]
    wrong = evaluate_test(
        "SELECT name FROM country", "SELECT capital FROM country", task="sp", db_id="uk", databases=dbs, metrics=metrics
    )
    assert wrong == TestOutcome({"valid_efficiency_score": 0.0})
    failing = evaluate_test(
        "SELECT name FROM country", "SELECT nme FROM country", task="sp", db_id="uk", databases=dbs, metrics=metrics
    )
    assert failing.scores == {"valid_efficiency_score": 0.0}
    assert failing.prediction_error == "the prediction query failed: no such column: nme"
    correct = evaluate_test(
        "SELECT name FROM country ORDER BY population DESC",
        "SELECT name FROM country ORDER BY name",
        task="sp",
        db_id="uk",
        databases=dbs,
        metrics=["tuple_order", "valid_efficiency_score"],
        ves_runs=5,
    )
    assert correct.scores["tuple_order"] < 1
    assert 0 < correct.scores["valid_efficiency_score"] < math.inf
    assert correct.error is None and correct.prediction_error is None and correct.ves_error is None
    with pytest.raises(ValueError, match="valid_efficiency_score applies only to task sp"):
        evaluate_test([["a"]], [["a"]], task="qa", metrics=metrics)
    with pytest.raises(ValueError, match=r"unknown metric 'bleu'; known: cell_precision, .*, valid_efficiency_score$"):
        evaluate_test([["a"]], [["a"]], task="qa", metrics=["bleu"])


def test_a_failing_timed_run_is_a_warning(databases, monkeypatch):
    """When a timed run fails after the first runs succeeded, the VES is 0 and the run warns
    with the test and the reason."""
    monkeypatch.setattr(run_module, "time_runs", lambda *args: "a timed run of the target query failed: too slow")
    options = QatchOptions(task="sp", metrics=("execution_accuracy", "valid_efficiency_score"), root=str(databases))
    run = run_qatch(sp_tests()[:1], options)
    assert run.results[0].outcome.scores == {"execution_accuracy": 1.0, "valid_efficiency_score": 0.0}
    assert run.results[0].outcome.ves_error == "a timed run of the target query failed: too slow"
    assert [(warning.kind, str(warning)) for warning in run.warnings] == [
        ("ves", "test same: a timed run of the target query failed: too slow, so its valid_efficiency_score is 0")
    ]


def test_ves_with_jobs_warns_that_times_are_noisier(databases):
    """Timing while several processes run tests is allowed, with a warning; the other
    metrics are the same as with one process."""
    options = QatchOptions(
        task="sp", metrics=("cell_recall", "valid_efficiency_score"), root=str(databases), ves_runs=3
    )
    two = run_qatch(sp_tests(), options, jobs=2)
    assert [warning.kind for warning in two.warnings] == ["ves-jobs"]
    assert str(two.warnings[0]) == (
        "valid_efficiency_score timed queries while 2 processes ran tests at once: the times are noisier "
        "(time with --jobs 1)"
    )
    one = run_qatch(sp_tests(), options)
    assert one.warnings == []
    assert [result.outcome.scores["cell_recall"] for result in one.results] == [
        result.outcome.scores["cell_recall"] for result in two.results
    ]
    scores = [result.outcome.scores["valid_efficiency_score"] for result in one.results]
    assert scores[0] > 0 and scores[1] > 0 and scores[2:] == [0.0, None, None]
