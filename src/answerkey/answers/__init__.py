"""Answer correctness by claims over a TSV of questions (graphrag-eval's ``answer-correctness``)."""
