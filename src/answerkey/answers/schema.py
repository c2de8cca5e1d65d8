"""The file formats of ``answerkey answers``: the TSV columns it reads and writes, and the
report as a pydantic model (``answerkey schema answers-report``).

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

from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "QUESTION",
    "REFERENCE_ANSWER",
    "ACTUAL_ANSWER",
    "INPUT_COLUMNS",
    "JUDGEMENT_COLUMNS",
    "FIGURE_COLUMNS",
    "OUTPUT_LAYOUTS",
    "output_header",
    "RowReport",
    "AnswersSummary",
    "AnswersReport",
]

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


class AnswersReport(BaseModel):
    """The report of ``answerkey answers`` (``--json`` / ``--yaml``)."""

    model_config = _STRICT
    signature: str = Field(description="The judge's model, and the version.")
    summary: AnswersSummary
    rows: list[RowReport] = Field(description="One per row of the input, in its order.")
    warnings: list[str]
