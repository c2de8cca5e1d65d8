"""Each report is described once: a workflow's result builds the pydantic model that
`answerkey schema` prints, and its document, summary table and workbook all come from it."""

from pathlib import Path

import jsonschema
import pytest
from pydantic import BaseModel

from answerkey.answers.load import AnswerRow
from answerkey.answers.run import AnswersRun, RowJudgement
from answerkey.cli.schema import SCHEMAS, json_schema
from answerkey.compare import RunReport, compare_runs
from answerkey.execution.load import load_inputs
from answerkey.execution.run import SqlOptions, run_sql
from answerkey.metrics.answers import Correctness
from answerkey.qatch.load import load_tests
from answerkey.qatch.run import QatchOptions, run_qatch
from answerkey.report import Reported, Result
from answerkey.report.schema import ReportModel
from answerkey.score.load import load_answers, load_corpus
from answerkey.score.run import ScoreOptions, run_score
from answerkey.sdmx.load import load_suite
from answerkey.sdmx.run import SCORED, run_sdmx
from answerkey.signature import Signature
from answerkey.steps.load import EvaluationResults, read_reference, read_responses
from answerkey.steps.run import aggregate_steps, run_steps

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _score():
    corpus = load_corpus(EXAMPLES / "personnel" / "corpus.yaml")
    answers = load_answers(EXAMPLES / "personnel" / "answers.jsonl")
    return run_score(corpus, answers, ScoreOptions(metrics=("cell_recall", "tuple_order")))


def _qatch():
    tests = load_tests(EXAMPLES / "qatch" / "qa-tests.csv", task="qa")
    return run_qatch(tests, QatchOptions(task="qa", root=str(EXAMPLES / "qatch" / "databases")))


def _sdmx():
    return run_sdmx(
        *load_suite(EXAMPLES / "sdmx" / "cases", EXAMPLES / "sdmx" / "selections.jsonl"), not_in_target=SCORED
    )


def _steps():
    return run_steps(
        read_reference(EXAMPLES / "steps" / "reference.yaml"), read_responses(EXAMPLES / "steps" / "responses.jsonl")
    )


def _steps_aggregates():
    run = _steps()
    return aggregate_steps(EvaluationResults("results.json", run.results, run.signature))


def _sql():
    spider = EXAMPLES / "sql" / "spider"
    inputs = load_inputs(spider / "gold.sql", spider / "pred.sql")
    return run_sql(inputs, SqlOptions(str(spider / "database")))


def _answers():
    row = AnswerRow(2, ("Q", "R", "A"), "Q", "R", "A")
    return AnswersRun(
        Signature.of(model="stub"),
        "in.tsv",
        ["Question", "Reference answer", "Actual answer"],
        [RowJudgement(row, Correctness(2, 1, 1, "one of two")), RowJudgement(row, Correctness(error="timed out"))],
    )


def _compare():
    def run(path, verdicts):
        values = {str(index): verdict for index, verdict in enumerate(verdicts)}
        return RunReport(path, "sql", "s", tuple(values), {"accuracy": values}, "accuracy", frozenset({"accuracy"}))

    return compare_runs([run("a.json", [1.0, 0.0, None]), run("b.json", [1.0, 1.0, 0.0])], resamples=20)


RUNS = {
    "compare-report": _compare,
    "score-report": _score,
    "qatch-report": _qatch,
    "sdmx-report": _sdmx,
    "steps-results": _steps,
    "steps-aggregates": _steps_aggregates,
    "sql-report": _sql,
    "answers-report": _answers,
}


def test_every_report_schema_has_a_run_here():
    """Every report model `answerkey schema` lists is a ReportModel, and is tried below."""
    reports = {name for name, entry in SCHEMAS.items() if issubclass(entry.model, ReportModel)}
    assert reports == set(RUNS)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_result_builds_the_model_answerkey_schema_prints(name):
    """The result's report is an instance of the very model of `answerkey schema NAME`; the
    result's document, table and workbook are the model's, and the document fits the schema."""
    run = RUNS[name]()
    assert isinstance(run, Reported) and isinstance(run, Result)
    report = run.report()
    assert type(report) is SCHEMAS[name].model
    document = run.document()
    assert document == report.document()
    assert list(document) == [field for field, info in type(report).model_fields.items() if not info.exclude]
    jsonschema.validate(document, json_schema(name))
    assert run.summary_table() == report.summary_table()
    assert run.workbook() == report.workbook()


HIDDEN = {
    "score-report": {"query", "canonical", "max_answer", "system", "context", "aligned"},
    "qatch-report": {"target", "prediction"},
    "sdmx-report": {"scores_not_in_target", "not_in_target_rule"},
    "steps-results": {"aggregates"},
    "steps-aggregates": {"results"},
    "sql-report": {
        "question",
        "gold",
        "predicted",
        "gold_rows",
        "predicted_rows",
        "aligned_rows",
        "decided_semantics",
        "rows_shown",
        "suites_shown",
    },
    "answers-report": set(),
    "compare-report": {"binary", "shown"},
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_fields_shown_in_the_workbook_only_are_in_neither_the_document_nor_the_schema(name):
    """A model's hidden fields (exclude=True) are the ones listed here, and stay out of its
    JSON/YAML document and of its schema."""
    hidden = {
        field for model in _models(SCHEMAS[name].model) for field, info in model.model_fields.items() if info.exclude
    }
    assert hidden == HIDDEN[name]
    described = json_schema(name)
    properties = {
        field for model in [described, *described.get("$defs", {}).values()] for field in model.get("properties", {})
    }
    assert not hidden & properties


def _models(model, found=None):
    """``model`` and every model its fields hold, however nested in lists and dicts."""
    found = [] if found is None else found
    if model in found:
        return found
    found.append(model)
    for info in model.model_fields.values():
        pending = [info.annotation]
        while pending:
            kind = pending.pop()
            pending.extend(getattr(kind, "__args__", ()))
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                _models(kind, found)
    return found


def test_a_hidden_field_is_what_the_workbook_shows():
    """The score workbook's query column comes from the item's hidden `query` field."""
    run = _score()
    report = run.report()
    overview = report.workbook().overview
    assert overview.header[1] == "query"
    assert [row[1] for row in overview.rows] == [item.query for item in run.items]
    assert "query" not in report.document()["items"][0]
