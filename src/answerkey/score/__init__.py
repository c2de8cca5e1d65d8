"""Scoring one system's answers against a corpus of canonical answers.

The workflow: ``schema`` (the file formats), ``load`` (corpus and answers files), ``run``
(verdicts, ATIS figures, graded metrics: a ``ScoreRun``) and ``report`` (its JSON, YAML,
workbook and summary table).
"""
