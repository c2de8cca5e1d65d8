"""What the outputs of an answers run hold: the output TSV, the JSON/YAML document, the summary
table and the workbook's sheets (``answerkey.report`` writes the last three).

The TSV is written as graphrag-eval writes its own (Python's ``csv`` module, tab-separated,
lines ending in CRLF, a cell quoted only when it holds a tab, a line break or a quote). Each
row is the input's cells, then ``#Reference``, ``#PTarget``, ``#Matching`` (integers),
``Reasoning``, ``Error`` and ``Recall``, ``Precision``, ``F1`` (as Python prints a float:
``0.5``, ``0.6666666666666666``). A judged row has an empty ``Error``; a row with an error has
empty counts and figures, and a ``Reasoning`` only when the model's reply had one.

The document has the shape of ``AnswersReport`` (``answerkey schema answers-report``):

    {"signature": str,
     "summary": {"rows", "judged", "errors", "answer_recall", "answer_precision", "answer_f1"},
     "rows": [{"line", "question_text", "reference_answer", "actual_answer",
               "answer_reference_claims_count", "answer_actual_claims_count",
               "answer_matching_claims_count", "answer_correctness_reason",
               "answer_recall", "answer_precision", "answer_f1", "answer_eval_error"}],
     "warnings": [str]}
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING, Any

from answerkey.answers.schema import output_header
from answerkey.report import figure, text_table
from answerkey.report.workbook import Column, Sheet, Workbook

if TYPE_CHECKING:
    from answerkey.answers.run import AnswersRun, RowJudgement

__all__ = ["document", "summary_table", "workbook", "tsv_text", "FIGURES"]

# The figures of the summary, in the order tables show them.
FIGURES = ("rows", "judged", "errors", "recall", "precision", "F1")


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def _judgement_cells(judgement: RowJudgement) -> list[str]:
    """graphrag-eval's five cells of one row."""
    correctness = judgement.correctness
    return [
        _cell(correctness.reference_claims),
        _cell(correctness.actual_claims),
        _cell(correctness.matching_claims),
        _cell(correctness.reason),
        _cell(correctness.error),
    ]


def tsv_text(run: AnswersRun, layout: str = "all") -> str:
    """The output TSV: with ``layout`` ``"all"`` the input's cells, graphrag-eval's five and
    the three figures; with ``"graphrag-eval"`` graphrag-eval's five alone."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, dialect="excel-tab")
    writer.writerow(output_header(run.header, layout))
    for judgement in run.rows:
        cells = _judgement_cells(judgement)
        if layout == "all":
            correctness = judgement.correctness
            figures = (correctness.recall, correctness.precision, correctness.f1)
            cells = [*judgement.row.cells, *cells, *map(_cell, figures)]
        writer.writerow(cells)
    return buffer.getvalue()


def _row(judgement: RowJudgement) -> dict[str, Any]:
    correctness, row = judgement.correctness, judgement.row
    return {
        "line": row.line,
        "question_text": row.question,
        "reference_answer": row.reference_answer,
        "actual_answer": row.actual_answer,
        "answer_reference_claims_count": correctness.reference_claims,
        "answer_actual_claims_count": correctness.actual_claims,
        "answer_matching_claims_count": correctness.matching_claims,
        "answer_correctness_reason": correctness.reason,
        "answer_recall": correctness.recall,
        "answer_precision": correctness.precision,
        "answer_f1": correctness.f1,
        "answer_eval_error": correctness.error,
    }


def document(run: AnswersRun) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``AnswersReport`` shape."""
    return {
        "signature": str(run.signature),
        "summary": {
            "rows": len(run.rows),
            "judged": run.judged,
            "errors": run.errors,
            "answer_recall": run.recall,
            "answer_precision": run.precision,
            "answer_f1": run.f1,
        },
        "rows": [_row(judgement) for judgement in run.rows],
        "warnings": [str(warning) for warning in run.warnings],
    }


def summary_table(run: AnswersRun) -> str:
    """One line of counts and mean figures (over the judged rows), then the signature."""
    table = text_table(
        FIGURES,
        [(len(run.rows), run.judged, run.errors, figure(run.recall), figure(run.precision), figure(run.f1))],
        "r" * len(FIGURES),
    )
    return f"{table}\n\nsignature: {run.signature}"


def workbook(run: AnswersRun) -> Workbook:
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
                judgement.row.line,
                judgement.row.question,
                judgement.row.reference_answer,
                judgement.row.actual_answer,
                judgement.correctness.reference_claims,
                judgement.correctness.actual_claims,
                judgement.correctness.matching_claims,
                judgement.correctness.recall,
                judgement.correctness.precision,
                judgement.correctness.f1,
                judgement.correctness.reason,
                judgement.correctness.error,
            ]
            for judgement in run.rows
        ],
    )
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
        [[len(run.rows), run.judged, run.errors, run.recall, run.precision, run.f1]],
        notes=(("means", "over the judged rows: a row with an error is left out of them"),),
    )
    return Workbook(overview, statistics)
