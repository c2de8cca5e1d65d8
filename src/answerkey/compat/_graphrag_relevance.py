"""graphrag-eval 6.x's answer relevance (its config's ``answer_relevance``, with
``llm.embedding``): questions the answer would answer are written by the LLM, and the answer is
as relevant as those questions are close to the one asked (the mean cosine similarity of their
embeddings), 0 for a noncommittal answer. 6.x computes it with RAGAS's ``AnswerRelevancy``
(``graphrag_eval/answer_relevance.py``, 6.6.1); the prompt here is answerkey's own.

>>> cosine([1.0, 0.0], [1.0, 1.0])
0.7071067811865475
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from answerkey.metrics.answers import AnswerJudge

# How many questions are asked for (RAGAS's default strictness).
QUESTIONS = 3
RELEVANCE_PROMPT_6 = """\
Write {count} different questions that the answer below answers, and say whether the answer is
noncommittal (evasive, vague or a refusal: 1) or not (0).
Reply with one JSON object and nothing else: {{"questions": [...], "noncommittal": 0 or 1}}

Answer: {answer}
"""


def cosine(left: Sequence[float], right: Sequence[float]) -> float:
    """The cosine similarity of two vectors (0.0 when either is zero)."""
    norms = math.sqrt(sum(x * x for x in left)) * math.sqrt(sum(y * y for y in right))
    return sum(x * y for x, y in zip(left, right)) / norms if norms else 0.0


def answer_relevance(judge: AnswerJudge, embedder: AnswerJudge, question: str, answer: str) -> dict[str, Any]:
    """``answer_relevance`` in [-1, 1] (in practice [0, 1]) or ``answer_relevance_error``;
    never raises."""
    try:
        reply = json.loads(judge.complete(RELEVANCE_PROMPT_6.format(count=QUESTIONS, answer=answer)))
        questions = reply.get("questions") if isinstance(reply, dict) else None
        noncommittal = reply.get("noncommittal") if isinstance(reply, dict) else None
        if not isinstance(questions, list) or not questions or not all(isinstance(q, str) for q in questions):
            raise ValueError('the reply has no list of "questions"')
        if noncommittal not in (0, 1) or isinstance(noncommittal, bool):
            raise ValueError('the reply\'s "noncommittal" is not 0 or 1')
        vectors = embedder.embed([question, *questions])
    except (ValueError, RecursionError, RuntimeError) as error:
        message = "the judge's reply is not JSON" if isinstance(error, json.JSONDecodeError) else str(error)
        return {"answer_relevance_error": message}
    if noncommittal:
        return {"answer_relevance": 0.0}
    asked, *written = vectors
    return {"answer_relevance": sum(cosine(asked, vector) for vector in written) / len(written)}
