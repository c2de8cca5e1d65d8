"""Fuzzing answer formatters and answerkey's own parsers, deterministically for a seed.

Hypothesis draws the examples (``answerkey[fuzz]``); runs never touch a ``.hypothesis/``
example database, and the same seed gives the same examples with the same Hypothesis.

- ``generate_answers(n, seed=, format=)``: random answers as text, for feeding your tools;
- ``roundtrip(argv, ...)``: send relations to a command, judge the CAS it prints, shrink the
  first failure to a minimal relation;
- ``run_command(argv, text)``: one call of a command, bounded in time and output, leaving no
  process behind (``answerkey.testing.commands``);
- ``fuzz_parser(name, ...)``: throw valid, near-miss and random text at a parser of
  ``PARSERS`` and report any exception that is not a documented ``InputError``
  (``answerkey.testing.parsers``).

This module gathers them: ``from answerkey.testing.fuzz import ...`` gives each.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from answerkey.adapters.rows import FORMATS, write_answer
from answerkey.comparator import DEFAULT_ABS_EPSILON, DEFAULT_EPSILON, judge
from answerkey.errors import InputError
from answerkey.grammar import parse
from answerkey.grammar.render import render
from answerkey.limits import FUZZ_MAX_OUTPUT_BYTES, FUZZ_TIMEOUT
from answerkey.model import Answer, Relation
from answerkey.testing.commands import Call, run_command
from answerkey.testing.parsers import (
    PARSERS as PARSERS,
    FuzzTarget as FuzzTarget,
    ParserReport as ParserReport,
    fuzz_parser as fuzz_parser,
)
from answerkey.testing.runs import printable, run_examples

DEFAULT_TIMEOUT = FUZZ_TIMEOUT
# Calls of the command allowed for shrinking a failure, on top of the N examples.
DEFAULT_SHRINK_CALLS = 300
# Further calls allowed after Hypothesis's shrinking, to drop whole tuples and columns.
FINISHING_CALLS = 50
# What a roundtrip keeps of each output it has judged: shrinking a formatter that prints
# megabytes would otherwise hold hundreds of them.
KEPT_OUTPUT_BYTES = 64 * 1024


# --------------------------------------------------------------------------- generate


def _answer_strategy(format: str) -> Any:
    from answerkey.testing import strategies  # imports Hypothesis (an optional package)

    if format == "cas":
        return strategies.answers()
    return strategies.relations(max_cols=4, max_rows=6)


def generate_answers(n: int, *, seed: int = 0, format: str = "cas") -> list[str]:
    """``n`` random answers written in ``format`` (see ``answerkey.adapters.rows.FORMATS``);
    the same ``seed`` gives the same answers.

    >>> texts = generate_answers(3, seed=1)
    >>> len(texts), texts == generate_answers(3, seed=1)
    (3, True)
    """
    texts: list[str] = []
    strategy = _answer_strategy(format)

    def collect(answer: Answer) -> None:
        if len(texts) < n:
            texts.append(write_answer(answer, format))

    attempt = 0
    while len(texts) < n:
        before = len(texts)
        run_examples(strategy, collect, examples=n - len(texts), seed=seed + attempt, shrink=False)
        attempt += 1
        if len(texts) == before:  # Hypothesis found no new example; cannot happen with these strategies
            break
    return texts


# --------------------------------------------------------------------------- roundtrip


@dataclass(frozen=True)
class RoundtripFailure:
    """The minimal relation the command got wrong, what it printed and why that is wrong."""

    relation: Relation
    call: Call
    reason: str

    def document(self) -> dict[str, Any]:
        """The failure as plain JSON-ready values (output decoded as UTF-8, any other byte
        as ``\\xNN``)."""
        call = self.call
        return {
            "relation": render(self.relation),
            "input": printable(call.input),
            "output": call.stdout.decode("utf-8", "backslashreplace"),
            "stderr": call.stderr.decode("utf-8", "backslashreplace"),
            "output_truncated": call.truncated,
            "ended": call.ended,
            "exit_status": call.status,
            "reason": self.reason,
        }


@dataclass
class RoundtripResult:
    """``examples`` relations tried (up to and including the first failure) in ``calls`` runs of
    the command (relations written alike are sent once); ``failure`` is None when all passed;
    ``trouble`` says why the command could not be run at all. The options it ran with are kept
    for its ``document()``."""

    calls: int = 0
    examples: int = 0
    failure: RoundtripFailure | None = None
    trouble: str | None = None
    seed: int = 0
    input_format: str = "jsonrows"
    epsilon: float = DEFAULT_EPSILON
    timeout: float = DEFAULT_TIMEOUT
    abs_epsilon: float = DEFAULT_ABS_EPSILON

    def document(self) -> dict[str, Any]:
        """The outcome as plain JSON-ready values: ``outcome`` (``ok`` or ``failure``), the
        options (``abs_epsilon`` only when set), the counts and the minimal failure (or null)."""
        floor = {"abs_epsilon": self.abs_epsilon} if self.abs_epsilon else {}
        return {
            "outcome": "ok" if self.failure is None else "failure",
            "seed": self.seed,
            "input_format": self.input_format,
            "epsilon": self.epsilon,
            **floor,
            "timeout": self.timeout,
            "examples": self.examples,
            "calls": self.calls,
            "failure": None if self.failure is None else self.failure.document(),
        }


class _Wrong(Exception):
    """Raised inside the Hypothesis test so that it shrinks the example."""

    def __init__(self, failure: RoundtripFailure) -> None:
        super().__init__(failure.reason)
        self.failure = failure


def _judge_call(
    expected: Relation, call: Call, epsilon: float, timeout: float, max_output: int, abs_epsilon: float = 0.0
) -> str | None:
    """Why the command's output is wrong for ``expected``, or None when it is right."""
    if call.overflow:
        return f"it printed more than {max_output:,} bytes (killed)"
    if call.status is None:
        return f"it did not finish within {timeout:g} s (killed)"
    if call.status != 0:
        return f"it exited with status {call.status}"
    try:
        text = call.stdout.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"its output is not UTF-8 (byte 0x{call.stdout[error.start]:02x} at offset {error.start})"
    try:
        system = parse(text, source="<stdout>", allow_alternatives=False)
    except InputError as error:
        return f"its output is not a CAS answer:\n{error}"
    verdict = judge(expected, system, epsilon=epsilon, abs_epsilon=abs_epsilon)
    return None if verdict.correct else verdict.explain()


def _kept(call: Call) -> Call:
    """The call with at most ``KEPT_OUTPUT_BYTES`` of each output."""
    if len(call.stdout) <= KEPT_OUTPUT_BYTES and len(call.stderr) <= KEPT_OUTPUT_BYTES:
        return call
    return dataclasses.replace(
        call, stdout=call.stdout[:KEPT_OUTPUT_BYTES], stderr=call.stderr[:KEPT_OUTPUT_BYTES], truncated=True
    )


def roundtrip(
    argv: list[str],
    *,
    examples: int = 100,
    seed: int = 0,
    input_format: str = "jsonrows",
    timeout: float = DEFAULT_TIMEOUT,
    epsilon: float = DEFAULT_EPSILON,
    shrink_calls: int = DEFAULT_SHRINK_CALLS,
    max_output: int = FUZZ_MAX_OUTPUT_BYTES,
    on_call: Callable[[int], None] | None = None,
    abs_epsilon: float = DEFAULT_ABS_EPSILON,
) -> RoundtripResult:
    """Send random relations to ``argv`` in ``input_format``, judge the CAS it prints against
    each, and shrink the first failure to a minimal relation.

    The command is run at most ``examples + shrink_calls + min(shrink_calls, FINISHING_CALLS)``
    times, each for at most ``timeout`` seconds and ``max_output`` bytes of output (see
    ``run_command``); ``shrink_calls=0`` reports the first failure as found. The relation it
    is judged against is the input read back in ``input_format`` (what the command was
    actually told). The failure keeps the first ``KEPT_OUTPUT_BYTES`` of each output.
    ``epsilon`` and ``abs_epsilon`` are the judge's tolerance for reals (``MatchRule``).
    """
    from answerkey.testing import strategies  # imports Hypothesis (an optional package)

    answer_format = FORMATS[input_format]
    result = RoundtripResult(
        seed=seed, input_format=input_format, epsilon=epsilon, timeout=timeout, abs_epsilon=abs_epsilon
    )
    seen: dict[str, RoundtripFailure | None] = {}
    budget = [examples + shrink_calls]

    def evaluate(relation: Relation) -> RoundtripFailure | None:
        """The failure for ``relation``, from the cache or a new call; None if it passes or
        the budget is spent (an unseen candidate then counts as passing, so shrinking stops)."""
        text = answer_format.write(relation)
        if text in seen:
            return seen[text]
        if result.calls >= budget[0] or result.trouble:
            return None
        expected = answer_format.read(text)
        assert isinstance(expected, Relation)
        call = run_command(argv, text, timeout=timeout, max_output=max_output)
        result.calls += 1
        if on_call:
            on_call(result.calls)
        if call.error:
            result.trouble = call.error
            return None
        reason = _judge_call(expected, call, epsilon, timeout, max_output, abs_epsilon)
        seen[text] = RoundtripFailure(expected, _kept(call), reason) if reason else None
        return seen[text]

    def check(relation: Relation) -> None:
        if not any(seen.values()):
            result.examples += 1
        outcome = evaluate(relation)
        if outcome is not None:
            raise _Wrong(outcome)

    try:
        run_examples(strategies.relations(max_cols=4, max_rows=6), check, examples=examples, seed=seed)
    except _Wrong as wrong:
        result.failure = wrong.failure
    except BaseException as error:
        # Hypothesis reports a failure it could not reproduce as Flaky; report the smallest one seen.
        failures = [outcome for outcome in seen.values() if outcome is not None]
        if not failures or isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        result.failure = min(failures, key=lambda failure: len(failure.call.input))
    if result.failure is not None:
        budget[0] = result.calls + min(FINISHING_CALLS, shrink_calls)
        result.failure = _fewer_rows_and_columns(result.failure, evaluate)
    return result


def _smaller(relation: Relation) -> Iterator[Relation]:
    """The relation without one of its tuples, or without one of its columns."""
    rows = relation.rows
    if len(rows) > 1:
        for index in range(len(rows)):
            yield Relation(rows[:index] + rows[index + 1 :])
    if relation.arity > 1:
        for column in range(relation.arity):
            yield Relation([row[:column] + row[column + 1 :] for row in rows])


def _fewer_rows_and_columns(
    failure: RoundtripFailure, evaluate: Callable[[Relation], RoundtripFailure | None]
) -> RoundtripFailure:
    """Finish Hypothesis's shrinking: drop whole tuples and columns while the failure stays."""
    improved = True
    while improved:
        improved = False
        for candidate in _smaller(failure.relation):
            outcome = evaluate(candidate)
            if outcome is not None:
                failure, improved = outcome, True
                break
    return failure
