"""Optional LLM-judged answer metrics (answer correctness by claims, answer relevance) through
an OpenAI-compatible chat-completions endpoint. Off unless asked for; never needed for steps.

The endpoint is set by environment variables:

- ``ANSWERKEY_JUDGE_URL``: the API base, e.g. ``https://api.openai.com/v1`` (required);
- ``ANSWERKEY_JUDGE_MODEL``: the model name (default ``gpt-4o-mini``, graphrag-eval's);
- ``ANSWERKEY_JUDGE_API_KEY``: sent as a bearer token when set, to that endpoint only: a
  redirect is not followed (it is an error naming where it points), so the key never reaches
  another address;
- ``ANSWERKEY_JUDGE_TIMEOUT``: seconds per request, connection and the whole reply included
  (default 60);
- ``ANSWERKEY_JUDGE_RETRIES``: how many times a call is made again after a failure that may
  pass (default 2, as the OpenAI client graphrag-eval uses: a rate limit or time-out reply,
  408, 409, 429 or 5xx; no reply in time; no connection), after the ``Retry-After`` the
  endpoint asks for (at most a minute) or 0.5 s, then 1, 2, 4, 8 s;
- ``ANSWERKEY_JUDGE_CACHE``: a directory where each reply is kept, by endpoint, model and
  prompt, and read back instead of asking again (a run stopped half-way, run again, pays
  only for the rows it had not judged; the same replies give the same figures). Entries are
  those of answerkey's one disk cache (``answerkey.files.EntryCache``, which ``sql --cache``
  uses too: a key, a SHA-256 checksum, written atomically). Only chat completions are kept,
  never a failure; an entry that cannot be read back is asked again and rewritten; one that
  cannot be written is a problem noted in ``cache_problems``.

Correctness asks for the number of claims in the reference answer, in the actual answer and
matching, as graphrag-eval's prompt does, and derives ``answer_recall``,
``answer_precision`` and ``answer_f1`` (``Correctness`` holds one judgement). Relevance asks
for a score in [0, 1] directly (not RAGAS's embedding-based score). A failed call (no
connection, an HTTP error, no reply within the timeout, a reply that is not a chat completion
or not in the asked format) gives ``answer_eval_error`` or ``answer_relevance_error`` instead
of made-up numbers, never an exception; costs are not reported.

>>> Correctness(2, 3, 2, "One extra claim.").f1
0.8
>>> Correctness(error="the judge endpoint answered HTTP 500").result_keys()
{'answer_eval_error': 'the judge endpoint answered HTTP 500'}
"""

from __future__ import annotations

import contextlib
import http.client
import json
import math
import os
import re
import socket
import string
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from answerkey.errors import RunWarning
from answerkey.files import EntryCache

ENVIRONMENT = {
    "url": "ANSWERKEY_JUDGE_URL",
    "model": "ANSWERKEY_JUDGE_MODEL",
    "api_key": "ANSWERKEY_JUDGE_API_KEY",
    "timeout": "ANSWERKEY_JUDGE_TIMEOUT",
    "retries": "ANSWERKEY_JUDGE_RETRIES",
    "cache": "ANSWERKEY_JUDGE_CACHE",
}
_MAX_RESPONSE_BYTES = 4 * 1024 * 1024
DEFAULT_RETRIES = 2
_MAX_RETRIES = 10
# HTTP statuses after which a call is made again (the OpenAI client's): the request timed out,
# a conflict, a rate limit; and every server error (500 and above).
_RETRIED_STATUSES = frozenset({408, 409, 429})
# Waits between attempts: the first, doubled each time up to the longest; a Retry-After the
# endpoint sends is followed up to its own longest.
_FIRST_WAIT = 0.5
_LONGEST_WAIT = 8.0
_LONGEST_RETRY_AFTER = 60.0
_sleep = time.sleep  # replaced in tests that count the waits
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

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

# graphrag-eval 6.x asks for the same counts as a JSON object (its prompts/template.md and
# AnswerCorrectnessResult in answer_correctness.py, 6.6.1); the wording here is answerkey's.
CORRECTNESS_PROMPT_JSON = """\
You compare a candidate answer with a reference answer to a question.
Split the reference answer into atomic claims and the candidate answer into atomic claims,
then count the candidate claims that match a reference claim.
Reply with one JSON object and nothing else, with these fields:
"reference_claims_count" (at least 1), "actual_claims_count" (at least 1),
"matching_claims_count" (from 0 to the smaller of the two) and "reason" (one sentence).

Question: {question}
Reference answer: {reference_answer}
Candidate answer: {actual_answer}
"""
# The placeholders a correctness prompt may hold (a 6.x config's `answer_correctness.prompt`).
PROMPT_FIELDS = ("question", "reference_answer", "actual_answer")
_JSON_FIELDS = ("reference_claims_count", "actual_claims_count", "matching_claims_count", "reason")

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


def parse_claim_counts_json(reply: str) -> tuple[int, int, int, str]:
    """The claim counts and reason in a graphrag-eval 6.x correctness reply, a JSON object with
    exactly ``reference_claims_count``, ``actual_claims_count``, ``matching_claims_count`` and
    a non-empty ``reason``; ``ValueError`` if malformed.

    >>> parse_claim_counts_json('{"reference_claims_count": 2, "actual_claims_count": 3, '
    ...     '"matching_claims_count": 2, "reason": "One extra claim."}')
    (2, 3, 2, 'One extra claim.')
    """
    try:
        value = json.loads(reply)
    except (ValueError, RecursionError):
        raise ValueError(f"expected a JSON object, got: {reply.strip()[:200]!r}") from None
    if not isinstance(value, dict) or set(value) != set(_JSON_FIELDS):
        raise ValueError(f"expected a JSON object with exactly {', '.join(_JSON_FIELDS)}, got: {reply.strip()[:200]!r}")
    counts = [value[name] for name in _JSON_FIELDS[:3]]
    if not all(type(count) is int for count in counts):
        raise ValueError(f"claim counts must be integers, got: {counts!r}")
    reference, actual, matching = counts
    if reference < 1 or actual < 1 or not 0 <= matching <= min(reference, actual):
        raise ValueError(f"impossible claim counts: {reference}, {actual}, {matching}")
    reason = value["reason"]
    if not isinstance(reason, str) or not reason:
        raise ValueError("the reason must be a non-empty string")
    return reference, actual, matching, reason


def check_prompt(prompt: str) -> None:
    """Raise ``ValueError`` unless ``prompt`` holds only the placeholders ``{question}``,
    ``{reference_answer}`` and ``{actual_answer}`` (``{{`` and ``}}`` for braces), as plain
    names: no index, attribute, conversion or format specification.

    >>> check_prompt("Q: {question} {{x}}")
    >>> check_prompt("{question.upper}")
    Traceback (most recent call last):
    ...
    ValueError: a correctness prompt holds only {question}, {reference_answer}, {actual_answer}: not {question.upper}
    """
    try:
        pieces = list(string.Formatter().parse(prompt))
    except ValueError as error:
        raise ValueError(f"a correctness prompt is a format template: {error}") from None
    for _, name, spec, conversion in pieces:
        if name is None:
            continue
        if name not in PROMPT_FIELDS or spec or conversion:
            shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            raise ValueError(
                f"a correctness prompt holds only {{question}}, {{reference_answer}}, {{actual_answer}}: not {shown}"
            )


def _reason(reply: str) -> str | None:
    """The reason field of a reply with at least four tab-separated fields, else None."""
    fields = reply.strip().split("\t")
    return "\t".join(fields[3:]).strip() if len(fields) >= 4 else None


@dataclass(frozen=True)
class Correctness:
    """One answer judged by claims: the claim counts of the reference answer, of the actual
    answer and matching, with the model's reason; or ``error`` when there is no judgement
    (``reason`` may then still hold the reason of a reply whose counts were unusable)."""

    reference_claims: int | None = None
    actual_claims: int | None = None
    matching_claims: int | None = None
    reason: str | None = None
    error: str | None = None

    @property
    def recall(self) -> float | None:
        """Matching claims / reference claims (None without a judgement)."""
        if self.error is not None or self.matching_claims is None or not self.reference_claims:
            return None
        return self.matching_claims / self.reference_claims

    @property
    def precision(self) -> float | None:
        """Matching claims / actual claims (None without a judgement)."""
        if self.error is not None or self.matching_claims is None or not self.actual_claims:
            return None
        return self.matching_claims / self.actual_claims

    @property
    def f1(self) -> float | None:
        """The harmonic mean of recall and precision, 0.0 when both are 0 (as graphrag-eval)."""
        recall, precision = self.recall, self.precision
        if recall is None or precision is None:
            return None
        return 2 * recall * precision / (recall + precision) if recall + precision else 0.0

    def result_keys(self, error_key: str = "answer_eval_error") -> dict[str, Any]:
        """graphrag-eval's answer-correctness keys: the counts, reason and figures, or only
        the error, under ``error_key`` (4.0's ``answer_eval_error``; 6.x writes
        ``answer_correctness_error``)."""
        if self.error is not None:
            return {error_key: self.error}
        return {
            "answer_reference_claims_count": self.reference_claims,
            "answer_actual_claims_count": self.actual_claims,
            "answer_matching_claims_count": self.matching_claims,
            "answer_correctness_reason": self.reason,
            "answer_recall": self.recall,
            "answer_precision": self.precision,
            "answer_f1": self.f1,
        }


def _entry_bytes(key: dict[str, Any]) -> int:
    """The most bytes an entry of ``key`` may hold: its prompt (in the key) and a reply, each
    character written in at most 6 bytes (a JSON escape), and room for the rest."""
    return 6 * (len(key["prompt"]) + _MAX_RESPONSE_BYTES) + 6 * len(key["url"] + key["model"]) + 1024


def _kept_reply(entries: EntryCache, key: dict[str, Any]) -> str | None:
    """The reply kept for ``key``; None when there is none, or it cannot be read back as one
    (another format, another key, a file cut short or edited, not a regular file, too large)."""
    try:
        entry = entries.read(key, _entry_bytes(key))
    except (OSError, ValueError, RecursionError):
        return None
    reply = entry.get("reply")
    return reply if isinstance(reply, str) else None


class _Passing(RuntimeError):
    """A failed call that may pass if made again; ``retry_after``: the seconds the endpoint
    asked to wait, if it did."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _retry_after(value: str | None) -> float | None:
    """The seconds of a ``Retry-After`` header given in seconds (at most a minute); None for
    none, or a date.

    >>> _retry_after("2"), _retry_after("600"), _retry_after("Wed, 21 Oct 2015 07:28:00 GMT")
    (2.0, 60.0, None)
    """
    try:
        seconds = float(value) if value is not None else math.nan
    except ValueError:
        return None
    return min(max(seconds, 0.0), _LONGEST_RETRY_AFTER) if math.isfinite(seconds) else None


def _origin_of(location: str | None) -> str:
    """`` to ORIGIN`` for a redirect's ``Location`` (scheme, host and port only: the rest
    may hold anything), or nothing when it names none.

    >>> _origin_of("https://other.example:8443/v1/chat/completions?x=1"), _origin_of(None)
    (' to https://other.example:8443', '')
    """
    try:
        parts = urllib.parse.urlsplit(location or "")
    except ValueError:
        return ""
    origin = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}" if parts.scheme and parts.netloc else ""
    return f" to {origin}" if origin and origin.isascii() and origin.isprintable() and len(origin) <= 200 else ""


@dataclass(frozen=True)
class AnswerJudge:
    """A client for an OpenAI-compatible chat-completions endpoint (standard library only)."""

    url: str
    model: str = "gpt-4o-mini"
    api_key: str | None = field(default=None, repr=False)  # a secret: never shown
    timeout: float = 60.0
    retries: int = DEFAULT_RETRIES
    cache: str | None = None
    cache_problems: list[str] = field(default_factory=list, compare=False, repr=False)
    """Why replies could not be kept in ``cache`` (each once)."""
    graphrag_eval: int = 4
    """4: the reply is four tab-separated fields, errors are ``answer_eval_error``; 6:
    graphrag-eval 6.x's JSON object reply and ``answer_correctness_error``."""
    correctness_prompt: str | None = None
    """The correctness prompt (a 6.x config's ``answer_correctness.prompt``), else answerkey's
    own for the reply format."""

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"{ENVIRONMENT['url']} must be an http:// or https:// URL, not {self.url!r}")
        if self.api_key is not None and not (self.api_key.isascii() and self.api_key.isprintable()):
            # Never shown: the key is a secret.
            raise ValueError(f"{ENVIRONMENT['api_key']} must be printable ASCII, without spaces around it")
        if not (math.isfinite(self.timeout) and self.timeout > 0):
            raise ValueError(f"{ENVIRONMENT['timeout']} must be a number of seconds above 0, not {self.timeout:g}")
        if self.graphrag_eval not in (4, 6):
            raise ValueError(f"graphrag_eval must be 4 or 6, not {self.graphrag_eval!r}")
        if self.correctness_prompt is not None:
            check_prompt(self.correctness_prompt)
        if type(self.retries) is not int or not 0 <= self.retries <= _MAX_RETRIES:
            raise ValueError(
                f"{ENVIRONMENT['retries']} must be a whole number from 0 to {_MAX_RETRIES}, not {self.retries!r}"
            )

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
            timeout = math.nan
        if not (math.isfinite(timeout) and timeout > 0):
            raise ValueError(f"{ENVIRONMENT['timeout']} must be a number of seconds above 0, not {timeout_text!r}")
        retries_text = environ.get(ENVIRONMENT["retries"], "").strip()
        retries = DEFAULT_RETRIES
        if retries_text:
            whole = retries_text.isascii() and retries_text.isdigit() and len(retries_text) <= 3
            if not whole or int(retries_text) > _MAX_RETRIES:
                raise ValueError(
                    f"{ENVIRONMENT['retries']} must be a whole number from 0 to {_MAX_RETRIES}, not {retries_text!r}"
                )
            retries = int(retries_text)
        return cls(
            url=url,
            model=environ.get(ENVIRONMENT["model"], "").strip() or "gpt-4o-mini",
            api_key=environ.get(ENVIRONMENT["api_key"], "").strip() or None,
            timeout=timeout,
            retries=retries,
            cache=environ.get(ENVIRONMENT["cache"], "").strip() or None,
        )

    def complete(self, prompt: str) -> str:
        """The model's reply to one user message (``RuntimeError`` if the call fails, after
        ``retries`` more attempts where the failure may pass): the one kept in ``cache``
        when there is one."""
        if self.cache is None:
            return self._asked(prompt)
        key = {"url": self.url, "model": self.model, "prompt": prompt}
        entries = EntryCache(self.cache, another="the entry is for another prompt")
        kept = _kept_reply(entries, key)
        if kept is not None:
            return kept
        reply = self._asked(prompt)
        try:
            entries.write(key, {"reply": reply}, _entry_bytes(key))
        except OSError as error:
            problem = f"{error.strerror or error} ({self.cache})"
            if problem not in self.cache_problems:
                self.cache_problems.append(problem)
        return reply

    def unreachable(self) -> str | None:
        """Why no connection to the endpoint opens within ``timeout`` (one line), or None when
        one does: checked once before a run, since a failed connection is not worth a retry
        per row (``answerkey answers`` stops at once)."""
        target = urllib.parse.urlsplit(self.url)
        try:
            address = (target.hostname or "", target.port or (443 if target.scheme == "https" else 80))
            with socket.create_connection(address, timeout=self.timeout):
                return None
        except ValueError:
            return f"the judge endpoint cannot be reached: is {ENVIRONMENT['url']} a valid URL?"
        except OSError as error:
            why = f"no connection within {self.timeout:g} seconds" if isinstance(error, TimeoutError) else error
            origin = f"{target.scheme}://{target.netloc.rpartition('@')[2]}"  # never a user or password
            return f"the judge endpoint at {ENVIRONMENT['url']} ({origin}) could not be reached: {why}"

    def cache_warnings(self) -> list[RunWarning]:
        """A warning for each reason replies could not be kept in ``cache``."""
        return [
            RunWarning(f"the judge's replies could not be kept in {ENVIRONMENT['cache']}: {problem}", "judge-cache")
            for problem in self.cache_problems
        ]

    def embed(self, texts: list[str]) -> list[list[float]]:
        """The embedding of each text, from the endpoint's OpenAI-compatible ``/embeddings``
        (``RuntimeError`` if the call fails, after the same retries as ``complete``; not
        cached)."""
        return self._retried(lambda: self._attempt_embedding(texts))

    def _attempt_embedding(self, texts: list[str]) -> list[list[float]]:
        body = json.dumps({"model": self.model, "input": texts}).encode("utf-8")
        raw = self._checked_post(body, "/embeddings")
        try:
            items = json.loads(raw)["data"]
            vectors = [item["embedding"] for item in sorted(items, key=lambda item: item.get("index", 0))]
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            vectors = None
        numbers = (int, float)
        if (
            not isinstance(vectors, list)
            or len(vectors) != len(texts)
            or not all(isinstance(v, list) and v and all(isinstance(x, numbers) for x in v) for v in vectors)
        ):
            raise RuntimeError("the endpoint's reply is not one embedding per text")
        return [[float(x) for x in vector] for vector in vectors]

    def _asked(self, prompt: str) -> str:
        """``complete`` without the cache."""
        return self._retried(lambda: self._attempt(prompt))

    def _retried(self, call: Callable[[], Any]) -> Any:
        """``call()``, made again after a failure that may pass, ``retries`` times at most."""
        for attempt in range(self.retries + 1):
            try:
                return call()
            except _Passing as failure:
                if attempt == self.retries:
                    tries = f" ({attempt + 1} attempts)" if attempt else ""
                    raise RuntimeError(f"{failure}{tries}") from None
                wait = failure.retry_after
                _sleep(min(_FIRST_WAIT * 2**attempt, _LONGEST_WAIT) if wait is None else wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _attempt(self, prompt: str) -> str:
        """One call: the reply, ``_Passing`` for a failure that may pass, else ``RuntimeError``."""
        body = json.dumps(
            {"model": self.model, "temperature": 0, "messages": [{"role": "user", "content": prompt}]}
        ).encode("utf-8")
        raw = self._checked_post(body, "/chat/completions")
        try:
            content = json.loads(raw)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError, RecursionError):
            content = None
        if not isinstance(content, str):
            raise RuntimeError("the judge endpoint's reply is not a chat completion")
        # JSON may spell a lone surrogate (\ud800), which no file or terminal can encode.
        return _LONE_SURROGATE.sub("\ufffd", content)

    def _checked_post(self, body: bytes, route: str) -> bytes:
        """POST ``body`` to ``route`` under the endpoint: the reply's body, ``_Passing`` for a
        failure that may pass, else ``RuntimeError``."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        status, reply_headers, raw = self._post(body, headers, route)
        if 300 <= status < 400:
            # urllib would follow it and send the key wherever it points: answerkey sends the
            # key to the configured endpoint only, so it follows no redirect at all.
            raise RuntimeError(
                f"the judge endpoint answered HTTP {status}, a redirect{_origin_of(reply_headers.get('Location'))};"
                f" answerkey follows no redirect: set {ENVIRONMENT['url']} to the address it points to"
            )
        if not 200 <= status < 300:
            message = f"the judge endpoint answered HTTP {status}"
            if status in _RETRIED_STATUSES or status >= 500:
                raise _Passing(message, _retry_after(reply_headers.get("Retry-After")))
            raise RuntimeError(message)
        if len(raw) > _MAX_RESPONSE_BYTES:
            raise RuntimeError("the judge endpoint's reply is too large")
        return raw

    def _post(
        self, body: bytes, headers: dict[str, str], route: str = "/chat/completions"
    ) -> tuple[int, dict[str, str], bytes]:
        """POST ``body`` to ``route`` under the endpoint (chat completions by default): the
        status, the headers and at most ``_MAX_RESPONSE_BYTES + 1`` bytes of the body, all within
        one ``timeout`` (a socket's own time-out is per read, which an endpoint that trickles its
        reply never reaches).
        ``_Passing`` or ``RuntimeError`` when that fails."""
        target = urllib.parse.urlsplit(self.url.rstrip("/") + route)
        expired = threading.Event()
        try:
            connection_type = http.client.HTTPSConnection if target.scheme == "https" else http.client.HTTPConnection
            connection = connection_type(target.hostname or "", target.port, timeout=self.timeout)
        except (ValueError, http.client.InvalidURL):
            # A URL http.client refuses; its words may quote the key, so they are not shown.
            raise RuntimeError(f"the request could not be sent: is {ENVIRONMENT['url']} a valid URL?") from None

        def expire() -> None:
            expired.set()  # before the socket is looked at: see the check after connect()
            if connection.sock is not None:
                with contextlib.suppress(OSError):
                    connection.sock.shutdown(socket.SHUT_RDWR)

        deadline = threading.Timer(self.timeout, expire)
        deadline.daemon = True
        deadline.start()
        try:
            connection.connect()
            if expired.is_set():
                raise TimeoutError
            path = target.path + (f"?{target.query}" if target.query else "")
            connection.request("POST", path, body=body, headers=headers)
            response = connection.getresponse()
            raw = response.read(_MAX_RESPONSE_BYTES + 1)
            if expired.is_set():  # the body cut short at the deadline
                raise TimeoutError
            return response.status, {name.title(): value for name, value in response.getheaders()}, raw
        except (OSError, http.client.HTTPException) as error:
            if expired.is_set() or isinstance(error, TimeoutError):
                raise _Passing(f"the judge endpoint did not answer within {self.timeout:g} seconds") from None
            if isinstance(error, OSError):
                raise _Passing(f"the judge endpoint could not be reached: {error}") from None
            # A status line or body that is not HTTP: the endpoint is not what the URL promised.
            raise RuntimeError("the judge endpoint's reply is not valid HTTP") from None
        except (ValueError, UnicodeError):
            raise RuntimeError(f"the request could not be sent: is {ENVIRONMENT['url']} a valid URL?") from None
        finally:
            deadline.cancel()
            connection.close()

    def judge_correctness(self, question: str, reference_answer: str, actual_answer: str) -> Correctness:
        """One answer judged by claims; a blank text, a failed call or a malformed reply gives
        a ``Correctness`` with ``error`` (never an exception)."""
        if not all(text.strip() for text in (question, reference_answer, actual_answer)):
            return Correctness(error="the question, the reference answer or the actual answer is blank")
        default = CORRECTNESS_PROMPT_JSON if self.graphrag_eval == 6 else CORRECTNESS_PROMPT
        prompt = self.correctness_prompt if self.correctness_prompt is not None else default
        try:
            reply = self.complete(
                prompt.format(question=question, reference_answer=reference_answer, actual_answer=actual_answer)
            )
        except RuntimeError as error:
            return Correctness(error=str(error))
        if self.graphrag_eval == 6:
            try:
                return Correctness(*parse_claim_counts_json(reply))
            except ValueError as error:
                return Correctness(error=str(error))
        try:
            reference, actual, matching, reason = parse_claim_counts(reply)
        except ValueError as error:
            # As graphrag-eval: the reason of a reply with unusable counts is kept beside the error.
            return Correctness(reason=_reason(reply), error=str(error))
        return Correctness(reference, actual, matching, reason)

    def correctness(self, question: str, reference_answer: str, actual_answer: str) -> dict[str, Any]:
        """graphrag-eval's answer-correctness keys for one answer (see ``Correctness.result_keys``)."""
        error_key = "answer_correctness_error" if self.graphrag_eval == 6 else "answer_eval_error"
        return self.judge_correctness(question, reference_answer, actual_answer).result_keys(error_key)

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
