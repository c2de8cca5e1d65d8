"""The file formats of ``answerkey answers``: the TSV columns it reads and writes, and the
report as a pydantic model (``answerkey schema answers-report``).

The output TSV (``tsv_text``) is written as graphrag-eval writes its own (Python's ``csv``
module, tab-separated, lines ending in CRLF, a cell quoted only when it holds a tab, a line
break or a quote). Each row is the input's cells, then ``#Reference``, ``#PTarget``,
``#Matching`` (integers), ``Reasoning``, ``Error`` and ``Recall``, ``Precision``, ``F1`` (as
Python prints a float: ``0.5``, ``0.6666666666666666``). A judged row has an empty ``Error``;
a row with an error has empty counts and figures, and a ``Reasoning`` only when the model's
reply had one. ``AnswersReport`` is what an ``AnswersRun`` builds its other reports from: its
fields are the JSON/YAML document (keys in this order), and it lays out the summary table and
the workbook.

The input is graphrag-eval's: a TSV file whose header names the columns ``Question``,
``Reference answer`` and ``Actual answer`` (other columns are allowed and copied). The output
is the input's columns followed by graphrag-eval's five (``JUDGEMENT_COLUMNS``) and the three
figures (``FIGURE_COLUMNS``); ``--columns graphrag-eval`` writes graphrag-eval's five alone.

>>> INPUT_COLUMNS
('Question', 'Reference answer', 'Actual answer')
>>> output_header(["Id", *INPUT_COLUMNS], "graphrag-eval")
['#Reference', '#PTarget', '#Matching', 'Reasoning', 'Error']
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from answerkey.report import text_table
from answerkey.report.figures import ratio
from answerkey.report.schema import ReportModel
from answerkey.report.workbook import Chart, Column, Sheet, Workbook

# The figures of the summary, in the order tables show them.
FIGURES = ("rows", "judged", "errors", "recall", "precision", "F1")

# graphrag-eval 4.0's input columns (its answer-correctness command reads them by these names).
QUESTION = "Question"
REFERENCE_ANSWER = "Reference answer"
ACTUAL_ANSWER = "Actual answer"
INPUT_COLUMNS = (QUESTION, REFERENCE_ANSWER, ACTUAL_ANSWER)
# graphrag-eval 4.0's output columns, in its order: the claim counts of the reference answer,
# of the actual ("predicted target") answer and matching, the model's reason, the error.
JUDGEMENT_COLUMNS = ("#Reference", "#PTarget", "#Matching", "Reasoning", "Error")
# answerkey's additions: the figures graphrag-eval computes from the counts in its library.
FIGURE_COLUMNS = ("Recall", "Precision", "F1")
# --columns: "all" keeps the input's columns and adds the figures; "graphrag-eval" writes
# exactly the columns graphrag-eval 4.0 writes.
OUTPUT_LAYOUTS = ("all", "graphrag-eval")


def output_header(input_header: Sequence[str], layout: str = "all") -> list[str]:
    """The output's header for an input with ``input_header`` and a ``--columns`` layout.

    >>> output_header(list(INPUT_COLUMNS))[3:]
    ['#Reference', '#PTarget', '#Matching', 'Reasoning', 'Error', 'Recall', 'Precision', 'F1']
    """
    if layout not in OUTPUT_LAYOUTS:
        raise ValueError(f"unknown column layout {layout!r}; known: {', '.join(OUTPUT_LAYOUTS)}")
    if layout == "graphrag-eval":
        return list(JUDGEMENT_COLUMNS)
    return [*input_header, *JUDGEMENT_COLUMNS, *FIGURE_COLUMNS]


_STRICT = ConfigDict(extra="forbid")
Ratio = Annotated[float, Field(ge=0, le=1)]
Count = Annotated[int, Field(ge=0)]


class RowReport(BaseModel):
    """One judged row, with graphrag-eval's answer-correctness keys (null where there is no
    judgement: then ``answer_eval_error`` says why)."""

    model_config = _STRICT
    line: int = Field(ge=1, description="The line of the input where the row starts.")
    question_text: str
    reference_answer: str
    actual_answer: str
    answer_reference_claims_count: Count | None
    answer_actual_claims_count: Count | None
    answer_matching_claims_count: Count | None
    answer_correctness_reason: str | None = Field(
        description="The model's reason (kept beside an error when the reply's counts were unusable)."
    )
    answer_recall: Ratio | None = Field(description="Matching claims / reference claims.")
    answer_precision: Ratio | None = Field(description="Matching claims / actual claims.")
    answer_f1: Ratio | None = Field(description="Harmonic mean of recall and precision.")
    answer_eval_error: str | None = Field(description="Why the row has no judgement, or null.")


class AnswersSummary(BaseModel):
    """Counts, and the mean figures over the judged rows (null when none was judged)."""

    model_config = _STRICT
    rows: Count
    judged: Count
    errors: Count
    answer_recall: Ratio | None
    answer_precision: Ratio | None
    answer_f1: Ratio | None


class AnswersReport(ReportModel):
    """The report of ``answerkey answers`` (``--json`` / ``--yaml``)."""

    model_config = _STRICT
    signature: str = Field(description="The judge's model, and the version.")
    summary: AnswersSummary
    rows: list[RowReport] = Field(description="One per row of the input, in its order.")
    warnings: list[str]

    def summary_table(self) -> str:
        """One line of counts and mean figures (over the judged rows), then the signature."""
        summary = self.summary
        table = text_table(
            FIGURES,
            [
                (
                    summary.rows,
                    summary.judged,
                    summary.errors,
                    ratio(summary.answer_recall),
                    ratio(summary.answer_precision),
                    ratio(summary.answer_f1),
                )
            ],
            "r" * len(FIGURES),
        )
        return f"{table}\n\nsignature: {self.signature}"

    def workbook(self) -> Workbook:
        """``Overview``: one row per input row (texts, counts, figures, reason, error);
        ``Statistics``: the counts and the mean figures."""
        overview = Sheet(
            "Overview",
            [
                Column("line", 7, "integer"),
                Column("question", 40, "text", wrap=True),
                Column("reference answer", 40, "text", wrap=True),
                Column("actual answer", 40, "text", wrap=True),
                Column("#Reference", 11, "integer"),
                Column("#PTarget", 10, "integer"),
                Column("#Matching", 10, "integer"),
                Column("recall", 9, "ratio"),
                Column("precision", 10, "ratio"),
                Column("F1", 9, "ratio"),
                Column("reason", 50, "text", wrap=True),
                Column("error", 40, "text", wrap=True),
            ],
            [
                [
                    row.line,
                    row.question_text,
                    row.reference_answer,
                    row.actual_answer,
                    row.answer_reference_claims_count,
                    row.answer_actual_claims_count,
                    row.answer_matching_claims_count,
                    row.answer_recall,
                    row.answer_precision,
                    row.answer_f1,
                    row.answer_correctness_reason,
                    row.answer_eval_error,
                ]
                for row in self.rows
            ],
        )
        summary = self.summary
        statistics = Sheet(
            "Statistics",
            [
                Column("rows", 8, "integer"),
                Column("judged", 8, "integer"),
                Column("errors", 8, "integer"),
                Column("recall", 10, "ratio"),
                Column("precision", 10, "ratio"),
                Column("F1", 10, "ratio"),
            ],
            [
                [
                    summary.rows,
                    summary.judged,
                    summary.errors,
                    summary.answer_recall,
                    summary.answer_precision,
                    summary.answer_f1,
                ]
            ],
            charts=[Chart("Mean recall, precision and F1", None, (3, 4, 5), 0, 0, axis_title="mean over judged rows")],
            notes=(("means", "over the judged rows: a row with an error is left out of them"),),
        )
        return Workbook(overview, statistics)


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def tsv_text(input_header: Sequence[str], rows: Iterable[tuple[Sequence[str], RowReport]], layout: str = "all") -> str:
    """The output TSV of judged ``rows`` (each: the input's cells and its ``RowReport``): with
    ``layout`` ``"all"`` the input's cells, graphrag-eval's five and the three figures; with
    ``"graphrag-eval"`` graphrag-eval's five alone."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, dialect="excel-tab")
    writer.writerow(output_header(input_header, layout))
    for cells, row in rows:
        judgement = [
            _cell(row.answer_reference_claims_count),
            _cell(row.answer_actual_claims_count),
            _cell(row.answer_matching_claims_count),
            _cell(row.answer_correctness_reason),
            _cell(row.answer_eval_error),
        ]
        if layout == "all":
            figures = (row.answer_recall, row.answer_precision, row.answer_f1)
            judgement = [*cells, *judgement, *map(_cell, figures)]
        writer.writerow(judgement)
    return buffer.getvalue()
