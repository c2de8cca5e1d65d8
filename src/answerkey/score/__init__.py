"""Scoring one system's answers against a corpus of canonical answers.

The workflow: ``schema`` (the file formats), ``load`` (corpus and answers files), ``run``
(verdicts, ATIS figures, graded metrics: a ``ScoreRun``) and ``report`` (its JSON, YAML,
workbook and summary table).
"""

from answerkey.score.load import Answers, Corpus, CorpusItem, SystemAnswer, load_answers, load_corpus
from answerkey.score.run import ItemResult, ScoreOptions, ScoreRun, run_score

__all__ = [
    "load_corpus",
    "load_answers",
    "Corpus",
    "CorpusItem",
    "Answers",
    "SystemAnswer",
    "ScoreOptions",
    "run_score",
    "ScoreRun",
    "ItemResult",
]
