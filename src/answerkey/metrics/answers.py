"""Optional LLM-judged answer metrics (answer correctness by claims, answer relevance) through
an OpenAI-compatible chat-completions endpoint. Off unless asked for; never needed for steps.

The endpoint is set by environment variables:

- ``ANSWERKEY_JUDGE_URL``: the API base, e.g. ``https://api.openai.com/v1`` (required);
- ``ANSWERKEY_JUDGE_MODEL``: the model name (default ``gpt-4o-mini``, graphrag-eval's);
- ``ANSWERKEY_JUDGE_API_KEY``: sent as a bearer token when set;
- ``ANSWERKEY_JUDGE_TIMEOUT``: seconds per request (default 60).

Correctness asks for the number of claims in the reference answer, in the actual answer and
matching, as graphrag-eval's prompt does, and derives ``answer_recall``,
``answer_precision`` and ``answer_f1``. Relevance asks for a score in [0, 1] directly (not
RAGAS's embedding-based score). A failed call gives ``answer_eval_error`` or
``answer_relevance_error`` instead of made-up numbers; costs are not reported.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["AnswerJudge", "ENVIRONMENT", "parse_claim_counts"]

ENVIRONMENT = {
    "url": "ANSWERKEY_JUDGE_URL",
    "model": "ANSWERKEY_JUDGE_MODEL",
    "api_key": "ANSWERKEY_JUDGE_API_KEY",
    "timeout": "ANSWERKEY_JUDGE_TIMEOUT",
}
_MAX_RESPONSE_BYTES = 4 * 1024 * 1024

CORRECTNESS_PROMPT = """\
You compare a candidate answer with a reference answer to a question.
Split the reference answer into atomic claims and the candidate answer into atomic claims,
then count the candidate claims that match a reference claim.
Reply with exactly one line of four tab-separated fields:
number of reference claims, number of candidate claims, number of matching claims, a one-sentence reason.

Question: {question}
Reference answer: {reference_answer}
Candidate answer: {actual_answer}
"""

RELEVANCE_PROMPT = """\
Rate how relevant the answer is to the question, from 0 (unrelated or evasive) to 1 (answers
exactly what was asked). Reply with the number only.

Question: {question}
Answer: {actual_answer}
"""


def parse_claim_counts(reply: str) -> tuple[int, int, int, str]:
    """The claim counts and reason in a correctness reply; ``ValueError`` if malformed.

    >>> parse_claim_counts("2\\t3\\t2\\tOne extra claim.")
    (2, 3, 2, 'One extra claim.')
    """
    fields = reply.strip().split("\t")
    if len(fields) < 4:
        raise ValueError(f"expected 4 tab-separated fields, got: {reply.strip()[:200]!r}")
    try:
        reference, actual, matching = (int(field.strip()) for field in fields[:3])
    except ValueError:
        raise ValueError(f"claim counts must be integers, got: {fields[:3]!r}") from None
    if reference < 1 or actual < 1 or not 0 <= matching <= min(reference, actual):
        raise ValueError(f"impossible claim counts: {reference}, {actual}, {matching}")
    return reference, actual, matching, "\t".join(fields[3:]).strip()


@dataclass(frozen=True)
class AnswerJudge:
    """A client for an OpenAI-compatible chat-completions endpoint (standard library only)."""

    url: str
    model: str = "gpt-4o-mini"
    api_key: str | None = None
    timeout: float = 60.0

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"{ENVIRONMENT['url']} must be an http:// or https:// URL, not {self.url!r}")

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> AnswerJudge | None:
        """The judge configured by the environment, or None when ``ANSWERKEY_JUDGE_URL`` is unset."""
        environ = os.environ if environ is None else environ
        url = environ.get(ENVIRONMENT["url"], "").strip()
        if not url:
            return None
        timeout_text = environ.get(ENVIRONMENT["timeout"], "").strip()
        try:
            timeout = float(timeout_text) if timeout_text else 60.0
        except ValueError:
            raise ValueError(f"{ENVIRONMENT['timeout']} must be a number of seconds, not {timeout_text!r}") from None
        return cls(
            url=url,
            model=environ.get(ENVIRONMENT["model"], "").strip() or "gpt-4o-mini",
            api_key=environ.get(ENVIRONMENT["api_key"]) or None,
            timeout=timeout,
        )

    def complete(self, prompt: str) -> str:
        """The model's reply to one user message (``RuntimeError`` if the call fails)."""
        body = json.dumps(
            {"model": self.model, "temperature": 0, "messages": [{"role": "user", "content": prompt}]}
        ).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.url.rstrip("/") + "/chat/completions", data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read(_MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"the judge endpoint answered HTTP {error.code}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise RuntimeError(f"the judge endpoint could not be reached: {reason}") from None
        if len(raw) > _MAX_RESPONSE_BYTES:
            raise RuntimeError("the judge endpoint's reply is too large")
        try:
            return json.loads(raw)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise RuntimeError("the judge endpoint's reply is not a chat completion") from None

    def correctness(self, question: str, reference_answer: str, actual_answer: str) -> dict[str, Any]:
        """graphrag-eval's answer-correctness keys for one answer."""
        try:
            if not all(text.strip() for text in (question, reference_answer, actual_answer)):
                raise ValueError("the question, the reference answer or the actual answer is blank")
            reply = self.complete(
                CORRECTNESS_PROMPT.format(
                    question=question, reference_answer=reference_answer, actual_answer=actual_answer
                )
            )
            reference, actual, matching, reason = parse_claim_counts(reply)
        except (RuntimeError, ValueError) as error:
            return {"answer_eval_error": str(error)}
        recall, precision = matching / reference, matching / actual
        f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
        return {
            "answer_reference_claims_count": reference,
            "answer_actual_claims_count": actual,
            "answer_matching_claims_count": matching,
            "answer_correctness_reason": reason,
            "answer_recall": recall,
            "answer_precision": precision,
            "answer_f1": f1,
        }

    def relevance(self, question: str, actual_answer: str) -> dict[str, Any]:
        """``answer_relevance`` in [0, 1] for one answer (or ``answer_relevance_error``)."""
        try:
            reply = self.complete(RELEVANCE_PROMPT.format(question=question, actual_answer=actual_answer))
            score = float(reply.strip())
            if not 0.0 <= score <= 1.0:
                raise ValueError(f"relevance must be between 0 and 1, got {reply.strip()[:50]!r}")
        except (RuntimeError, ValueError) as error:
            return {"answer_relevance_error": str(error)}
        return {"answer_relevance": score}

    def evaluate(self, question: Any, actual_answer: str) -> dict[str, Any]:
        """The answer keys for a question model (``question_text``, ``reference_answer``)."""
        found: dict[str, Any] = {}
        if question.reference_answer is not None:
            found.update(self.correctness(question.question_text, question.reference_answer, actual_answer))
        found.update(self.relevance(question.question_text, actual_answer))
        return found
