"""test-suite-sql-eval's --plug_value: the predictions made with the gold's values, and the
verdicts of `answerkey sql --semantics test-suite --plug-value`, against the official code's
output on the same texts and databases (tests/fixtures/plug_value, its notes say how made)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from answerkey.execution.rewards import ExecutionJudge
from answerkey.execution.run import SqlOptions
from answerkey.execution.semantics import semantics_named
from answerkey.execution.semantics._plug_value import plugged_predictions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "plug_value"
PLUGGED = json.loads((FIXTURES / "official_plugged.json").read_text(encoding="utf-8"))["cases"]
VERDICTS = json.loads((FIXTURES / "official_plug_value.json").read_text(encoding="utf-8"))["items"]


@pytest.mark.parametrize("case", PLUGGED, ids=range(len(PLUGGED)))
def test_the_predictions_are_the_official_ones(case):
    """The count and the predictions (as a sorted list: the official order is a set's) equal
    get_all_preds_for_execution's."""
    count, predictions = plugged_predictions(case["gold"], case["predicted"])
    assert count == case["count"]
    assert sorted(predictions) == case["predictions"]


def test_the_order_follows_the_gold_and_the_first_place_varies_slowest():
    """The gold's values in the order found (strings, then decimals, then integers)."""
    count, predictions = plugged_predictions(
        "SELECT a FROM t WHERE b = 'x' AND c > 2.5 AND d < 7", "select a from t where b = 'y' and c > 1"
    )
    assert count == 9
    assert list(predictions)[:4] == [
        "select a from t where b = 'x' and c > 'x'",
        "select a from t where b = 'x' and c > 2.5",
        "select a from t where b = 'x' and c > 7",
        "select a from t where b = 2.5 and c > 'x'",
    ]


def test_no_place_gives_one_prediction_and_no_gold_value_none():
    """len(values) ** places: one rewritten prediction without places; none when the gold has no value."""
    assert [list(found) for found in [plugged_predictions("SELECT 1 FROM t WHERE a = 3", "SELECT  A FROM t")[1]]] == [
        ["select a from t"]
    ]
    count, predictions = plugged_predictions("SELECT a FROM t", "SELECT a FROM t WHERE b = 'x'")
    assert (count, list(predictions)) == (0, [])


def test_the_pair_holds_the_alternatives_with_the_year_replaced_after():
    """YEAR(CURDATE()) is replaced in each prediction after the values are put in (2020 is no place)."""
    pair = semantics_named("test-suite").rewritten_pair(
        "SELECT a FROM t WHERE b = 5", "SELECT a FROM t WHERE b < YEAR(CURDATE()) - 3", frozenset({"plug_value"})
    )
    assert pair is not None
    assert (pair.plugged, pair.alternatives) == (1, ("select a from t where b < 2020- 5",))
    assert semantics_named("test-suite").rewritten_pair("SELECT 1", "SELECT 1", frozenset({"plug_value"})) is not None


def test_plug_value_is_an_option_of_test_suite_in_the_signature():
    """Recorded in the signature; refused for another semantics."""
    options = SqlOptions("dbs", engine="sqlite", semantics="test-suite", semantics_options=("test-suite:plug_value",))
    assert "|test_suite:plug_value|" in str(options.signature)
    with pytest.raises(ValueError, match="the bird semantics has no option 'plug_value'"):
        SqlOptions("dbs", engine="sqlite", semantics_options=("bird:plug_value",))


@pytest.fixture
def fixture(tmp_path):
    """A copy of the fixture folder (tests never touch fixtures)."""
    root = tmp_path / "plug_value"
    shutil.copytree(FIXTURES, root)
    return root


def test_the_verdicts_are_the_official_ones(run_cli, fixture, tmp_path):
    """Item by item, test-suite with --plug-value decides as eval_exec_match(plug_value=True),
    and without it as plug_value=False; the winning prediction is named."""
    for option, key in (("--plug-value", "plug_value"), (None, "default")):
        report = tmp_path / f"{key}.json"
        arguments = ["sql", fixture / "gold.sql", fixture / "pred.sql", "--db", fixture / "database"]
        arguments += ["--semantics", "test-suite", "--json", report, *([option] if option else [])]
        result = run_cli(*arguments)
        assert result.exit_code == 0, result.output
        items = json.loads(report.read_text(encoding="utf-8"))["items"]
        assert [item["verdict"] == "correct" for item in items] == [bool(item[key]) for item in VERDICTS]
    items = json.loads((tmp_path / "plug_value.json").read_text(encoding="utf-8"))["items"]
    assert items[1]["reason"] == (
        "same bag of rows (queries run as test-suite-sql-eval with --plug_value); prediction 2 of 4 with the "
        "gold's values plugged in: select name from singer where country = 'France' and age > 30 "
        "(correct on each of the 2 databases)"
    )
    assert items[3]["reason"] == (
        "on 'concert': the gold has 4 rows, the prediction 0 (queries run as test-suite-sql-eval with "
        "--plug_value); and none of the 1 prediction with the gold's values plugged in is correct"
    )
    # Correct as written on concert.sqlite only: the reason is the last database's, naming the
    # prediction that held on both.
    assert items[16]["reason"] == (
        "both results are empty (queries run as test-suite-sql-eval with --plug_value); prediction 1 of 1 with "
        "the gold's values plugged in: select name from singer where age > 50 (correct on each of the 2 databases)"
    )
    signature = json.loads((tmp_path / "plug_value.json").read_text(encoding="utf-8"))["signature"]
    assert "test_suite:plug_value" in str(signature)


def test_the_judge_refuses_plug_value(tmp_path):
    """ExecutionJudge decides one prediction per call: plug_value is answerkey sql's only."""
    with pytest.raises(ValueError, match="test-suite's plug_value is an option of answerkey sql, not of the judge"):
        ExecutionJudge(tmp_path, semantics="test-suite", semantics_options=("test-suite:plug_value",))
