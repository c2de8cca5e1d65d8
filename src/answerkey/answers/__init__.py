"""Answer correctness by claims over a TSV of questions (graphrag-eval's ``answer-correctness``).

The workflow: ``schema`` (the TSV columns and the report), ``load`` (the TSV file, every
problem located), ``run`` (each row judged by the LLM judge of ``answerkey.metrics.answers``:
an ``AnswersRun``) and ``report`` (the output TSV, the JSON, YAML, workbook and summary table).
"""

from answerkey.answers.load import AnswerRow, AnswerTable, load_table
from answerkey.answers.run import AnswersRun, RowJudgement, run_answers

__all__ = [
    "load_table",
    "AnswerTable",
    "AnswerRow",
    "run_answers",
    "AnswersRun",
    "RowJudgement",
]
