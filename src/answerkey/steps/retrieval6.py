"""graphrag-eval 6.x's LLM-judged retrieval metrics (``--graphrag-eval 6`` with a judge): how
much of a reference (the reference answer, or the reference step's contexts) the retrieved
contexts support (recall), and how well the useful contexts are ranked (precision, the mean
of precision@k at each useful context), with their F1. 6.x computes them with RAGAS's
``ContextRecall`` and ``ContextPrecision`` (``graphrag_eval/steps/retrieval_answer.py`` and
``retrieval_context_texts.py``, 6.6.1); these prompts and replies are answerkey's own.

>>> ranked_precision([1, 0, 1])
0.8333333333333333
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from answerkey.metrics.answers import AnswerJudge

RECALL_PROMPT = """\
Split the reference below into its statements, and say how many of them the retrieved contexts
support (a statement is supported when it can be inferred from the contexts).
Reply with one JSON object and nothing else:
{{"statements": <number of statements, at least 1>, "supported": <number supported>}}

Question: {question}

Reference:
{reference}

Retrieved contexts:
{contexts}
"""

PRECISION_PROMPT = """\
For each retrieved context below, say whether it is useful to arrive at the reference for the
question (1) or not (0).
Reply with one JSON object and nothing else: {{"verdicts": [one 0 or 1 per context, in order]}}

Question: {question}

Reference:
{reference}

Retrieved contexts:
{contexts}
"""


def ranked_precision(verdicts: Sequence[int]) -> float:
    """The mean, over the useful contexts, of the precision at their rank (0.0 when none is
    useful)."""
    useful = 0
    total = 0.0
    for rank, verdict in enumerate(verdicts, start=1):
        if verdict:
            useful += 1
            total += useful / rank
    return total / useful if useful else 0.0


def _numbered(contexts: Sequence[str]) -> str:
    return "\n".join(f"[{number}] {text}" for number, text in enumerate(contexts, start=1))


def _reply(judge: AnswerJudge, prompt: str) -> Mapping[str, Any]:
    try:
        value = json.loads(judge.complete(prompt))
    except (ValueError, RecursionError):
        raise ValueError("the judge's reply is not a JSON object") from None
    if not isinstance(value, Mapping):
        raise ValueError("the judge's reply is not a JSON object")
    return value


def _recall(judge: AnswerJudge, question: str, reference: str, contexts: Sequence[str]) -> float:
    reply = _reply(judge, RECALL_PROMPT.format(question=question, reference=reference, contexts=_numbered(contexts)))
    statements, supported = reply.get("statements"), reply.get("supported")
    if type(statements) is not int or type(supported) is not int or not 0 <= supported <= statements or statements < 1:
        raise ValueError(f"impossible statement counts: {statements!r}, {supported!r}")
    return supported / statements


def _precision(judge: AnswerJudge, question: str, reference: str, contexts: Sequence[str]) -> float:
    prompt = PRECISION_PROMPT.format(question=question, reference=reference, contexts=_numbered(contexts))
    verdicts = _reply(judge, prompt).get("verdicts")
    if not isinstance(verdicts, list) or len(verdicts) != len(contexts) or any(v not in (0, 1) for v in verdicts):
        raise ValueError(f"expected {len(contexts)} verdicts of 0 or 1")
    return ranked_precision([int(v) for v in verdicts])


def retrieval_figures(
    judge: AnswerJudge, prefix: str, question: str, reference: str, contexts: Sequence[str]
) -> dict[str, Any]:
    """``{prefix}_recall``, ``{prefix}_precision`` (each or its ``_error``) and, with both,
    ``{prefix}_f1``; never raises."""
    found: dict[str, Any] = {}
    for metric, measure in (("recall", _recall), ("precision", _precision)):
        try:
            found[f"{prefix}_{metric}"] = measure(judge, question, reference, contexts)
        except (ValueError, RuntimeError) as error:
            found[f"{prefix}_{metric}_error"] = str(error)
    recall, precision = found.get(f"{prefix}_recall"), found.get(f"{prefix}_precision")
    if recall is not None and precision is not None:
        found[f"{prefix}_f1"] = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return found


def context_texts(output: Any) -> list[str]:
    """The ``text`` of each context of a retrieval output (a list of objects, or its JSON
    text); ``ValueError`` when it is not one."""
    contexts = json.loads(output) if isinstance(output, (str, bytes)) else output
    if not isinstance(contexts, list) or not all(isinstance(c, Mapping) and "text" in c for c in contexts):
        raise ValueError('a retrieval output is a list of contexts with a "text"')
    return [str(context["text"]) for context in contexts]
