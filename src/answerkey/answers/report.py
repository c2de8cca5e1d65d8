"""The outputs of an answers run, kept as an import path: an ``AnswersRun`` builds its
``AnswersReport`` (``answerkey.answers.schema``), which holds the document, the summary table
and the workbook's sheets (``answerkey.report`` writes them); ``tsv_text`` writes the output
TSV as graphrag-eval does (``answerkey.answers.schema.tsv_text``).

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

from typing import Any

from answerkey.answers.run import AnswersRun
from answerkey.answers.schema import FIGURES as FIGURES
from answerkey.report import Result
from answerkey.report.workbook import Workbook


def tsv_text(run: AnswersRun, layout: str = "all") -> str:
    """The output TSV: with ``layout`` ``"all"`` the input's cells, graphrag-eval's five and
    the three figures; with ``"graphrag-eval"`` graphrag-eval's five alone."""
    return run.tsv_text(layout)


def document(run: Result) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``AnswersReport`` shape."""
    return run.document()


def summary_table(run: Result) -> str:
    """One line of counts and mean figures (over the judged rows), then the signature."""
    return run.summary_table()


def workbook(run: Result) -> Workbook:
    """``Overview``: one row per input row; ``Statistics``: the counts and the mean figures."""
    return run.workbook()
