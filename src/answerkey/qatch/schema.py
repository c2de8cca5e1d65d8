"""The file formats of ``answerkey qatch``, as pydantic models: a test (one row of a tests
file) and the report (``answerkey schema qatch-tests``, ``answerkey schema qatch-report``).

``QatchReport`` is also what a ``QatchRun`` builds its reports from: its fields are the
JSON/YAML document (keys in this order), and it lays out the summary table and the workbook.

``answerkey.qatch.load`` reads tests files by the rules ``QatchTestRow`` describes; the
column names of the target and the prediction are options there (``--target-col``,
``--prediction-col``), so the model describes the default names ``query`` and ``prediction``.

>>> row = QatchTestRow.model_validate({"id": 7, "db_id": "uk", "query": "SELECT 1", "prediction": None})
>>> row.id, row.db_id, row.query, row.prediction
('7', 'uk', 'SELECT 1', None)
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from answerkey.errors import plural
from answerkey.files import read_id
from answerkey.report import text_table
from answerkey.report.figures import RATIO_DECIMALS, ratio
from answerkey.report.schema import ReportModel
from answerkey.report.workbook import Chart, Column, Sheet, Workbook

# Decimals of the means in the summary table: the rule of every command.
MEAN_DIGITS = RATIO_DECIMALS


def _read_db_id(value: Any) -> Any:
    return read_id(value, "a db_id")


_TEXT_OR_INTEGER = WithJsonSchema({"type": ["string", "integer"], "minLength": 1})
TestId = Annotated[str, BeforeValidator(read_id), Field(min_length=1), _TEXT_OR_INTEGER]
DbId = Annotated[str, BeforeValidator(_read_db_id), Field(min_length=1), _TEXT_OR_INTEGER]
# A metric's value: in [0, 1], except valid_efficiency_score (0 or more: sqrt(2) for a
# correct prediction twice as fast as the target).
Score = Annotated[float, Field(ge=0)]


class QatchTestRow(BaseModel):
    """One test: one line of a JSON Lines tests file, one element of a JSON or YAML list, or
    one row of a CSV file under its header row.

    The target is in the column ``query`` and the prediction in ``prediction`` unless
    ``--target-col`` / ``--prediction-col`` name other columns. Other columns (the question,
    notes) are allowed and ignored.
    """

    model_config = ConfigDict(extra="allow", title="QatchTest")

    id: TestId | None = Field(
        None, description="Unique test id (a string or an integer); default: the test's position in the file, from 1."
    )
    db_id: DbId | None = Field(
        None,
        description="The test's database, ROOT/<db_id>/<db_id>.sqlite under --db ROOT. Required when the target "
        "is SQL (always with --task sp).",
    )
    query: Annotated[str, Field(min_length=1)] | list[list[Any]] = Field(
        description="The target, in the column --target-col names (default query): SQL text, run on the test's "
        "database; with --task qa also a table: a list of rows, or its JSON text."
    )
    prediction: Any = Field(
        description="The prediction, in the column --prediction-col names (default prediction): SQL text with "
        '--task sp; with --task qa a table, a list of rows like [["wales", "scotland"], ["england"]] or its JSON '
        "text. A prediction that is not one (null included) scores 0 on every metric."
    )


_STRICT = ConfigDict(extra="forbid")


class QatchSummary(BaseModel):
    """Counts and metric means of a run."""

    model_config = _STRICT
    tests: int = Field(ge=0)
    evaluated: int = Field(ge=0, description="Tests whose target could be evaluated.")
    errors: int = Field(ge=0, description="Tests whose target failed (errors of the tests, left out of the means).")
    prediction_errors: int = Field(ge=0, description="Predictions malformed or failing (scored 0).")
    means: dict[str, Score | None] = Field(
        description="Mean of each metric over the tests where it has a value; null where it has none. Each is in "
        "[0, 1] but valid_efficiency_score, which is 0 or more."
    )
    counts: dict[str, int] = Field(description="How many tests each metric's mean is over.")


class QatchTestReport(BaseModel):
    """One test's scores."""

    model_config = _STRICT
    id: str
    line: int | None = Field(description="Line of the test in the tests file.")
    db_id: str | None
    metrics: dict[str, Score | None] = Field(
        description="Each metric's value, in [0, 1] (valid_efficiency_score: 0 or more); null where it does not "
        "apply (tuple order when the target has no ORDER BY) or the target failed."
    )
    error: str | None = Field(description="Why the target could not be evaluated (an error of the test).")
    prediction_error: str | None = Field(description="Why the prediction scored zeros.")
    # Shown in the workbook only: not in the document, nor in its schema.
    target: SkipJsonSchema[Any] = Field(None, exclude=True)
    prediction: SkipJsonSchema[Any] = Field(None, exclude=True)


class QatchReport(ReportModel):
    """The report of ``answerkey qatch`` (``--json`` / ``--yaml``)."""

    model_config = _STRICT
    signature: str = Field(description="Options that change scores, and the version.")
    task: Literal["qa", "sp"]
    metrics: list[str] = Field(description="The metrics computed, in the order of the report.")
    summary: QatchSummary
    tests: list[QatchTestReport] = Field(description="Every test, in file order.")
    warnings: list[str]

    def _counts_line(self) -> str:
        summary = self.summary
        return (
            f"{plural(summary.tests, 'test')}: {summary.evaluated:,} evaluated, "
            f"{plural(summary.prediction_errors, 'prediction error')} (scored 0), "
            f"{plural(summary.errors, 'test error')}"
        )

    def summary_table(self) -> str:
        """Each metric's mean and the number of tests it is over; the counts; the signature.
        A mean is ``-`` when the metric has a value for no test."""
        means, counts = self.summary.means, self.summary.counts
        rows = [(name, ratio(means.get(name)), counts.get(name, 0)) for name in self.metrics]
        return "\n".join(
            [text_table(("metric", "mean", "tests"), rows), "", self._counts_line(), f"signature: {self.signature}"]
        )

    def workbook(self) -> Workbook:
        """``Overview``: one row per test (its metrics, errors, target and prediction as text);
        ``Statistics``: each metric's mean and the tests it is over, the counts below."""
        names = list(self.metrics)
        overview = Sheet(
            "Overview",
            [
                Column("id", 14, "id"),
                Column("line", 7, "integer"),
                Column("db_id", 16, "text"),
                *(Column(name, 12, "ratio") for name in names),
                Column("prediction_error", 40, "text", wrap=True),
                Column("error", 40, "text", wrap=True),
                Column("target", 50, "text", wrap=True),
                Column("prediction", 50, "text", wrap=True),
            ],
            [
                [
                    test.id,
                    test.line,
                    test.db_id,
                    *(test.metrics.get(name) for name in names),
                    test.prediction_error,
                    test.error,
                    _text(test.target),
                    _text(test.prediction),
                ]
                for test in self.tests
            ],
        )
        summary = self.summary
        statistics = Sheet(
            "Statistics",
            [
                Column("metric", 22, "text"),
                Column("mean", 10, "ratio"),
                Column("tests", 8, "integer"),
            ],
            [[name, summary.means.get(name), summary.counts.get(name, 0)] for name in names],
            charts=[Chart("Mean per metric", 0, (1,), 0, len(names) - 1, axis_title="mean over tests")]
            if names
            else [],
            notes=[
                ("tests", summary.tests),
                ("evaluated", summary.evaluated),
                ("prediction errors", summary.prediction_errors),
                ("test errors", summary.errors),
            ],
        )
        return Workbook(overview, statistics)


def _text(value: object) -> str | None:
    """A target or prediction as the text of a cell: SQL and JSON text as given, a table
    read from JSON or YAML as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)
