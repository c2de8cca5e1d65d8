"""Assertions for the tests of a QA system: judge its answer against the canonical one and fail
with the explanation ``answerkey judge --explain`` prints, or fail under a threshold.

Plain functions, usable with any test runner; the pytest plugin (``answerkey.testing.pytest_plugin``)
adds a session-wide log of verdicts and ``--answerkey-fail-under``.

>>> assert_correct('((2341 "SMITH"))', '(("SMITH" 2341 44))').correct
True
>>> assert_correct("53200.0", "53190.9")
Traceback (most recent call last):
...
AssertionError: incorrect: the scalar does not match
...
  53190.9 for 53200.0: off by 9.1, more than 5.32
>>> assert_at_least(0.75, 0.8, what="execution accuracy")
Traceback (most recent call last):
...
AssertionError: execution accuracy 0.7500 is under 0.8
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from answerkey.comparator import DEFAULT_ABS_EPSILON, DEFAULT_EPSILON, SCALAR_RULES, STRING_MODES, Verdict, judge
from answerkey.model import Answer
from answerkey.report.figures import ratio

__all__ = ["VerdictLog", "assert_at_least", "assert_correct"]


def assert_correct(
    canonical: str | Answer,
    system: str | Answer,
    *,
    epsilon: float | str | Decimal = DEFAULT_EPSILON,
    scalars: str = SCALAR_RULES[0],
    strings: str = next(iter(STRING_MODES)),
    abs_epsilon: float | str | Decimal = DEFAULT_ABS_EPSILON,
) -> Verdict:
    """Judge ``system`` against ``canonical`` (CAS text or parsed answers, the options of
    ``answerkey judge``) and return the verdict when it is correct; otherwise raise
    ``AssertionError`` whose message is the explanation ``answerkey judge --explain`` prints."""
    __tracebackhide__ = True  # pytest shows the test's line, not this one
    verdict = judge(canonical, system, epsilon=epsilon, scalars=scalars, strings=strings, abs_epsilon=abs_epsilon)
    if not verdict.correct:
        raise AssertionError(verdict.explain())
    return verdict


def assert_at_least(figure: float | None, threshold: float, *, what: str = "accuracy") -> None:
    """Raise ``AssertionError`` when ``figure`` (a run's accuracy, say) is below ``threshold``
    or undefined (None or NaN: nothing was scored)."""
    __tracebackhide__ = True
    if figure is None or figure != figure:
        raise AssertionError(f"{what} is undefined (nothing was scored), so not at least {threshold:g}")
    if figure < threshold:
        raise AssertionError(f"{what} {ratio(figure)} is under {threshold:g}")


@dataclass(frozen=True)
class JudgedAnswer:
    """One verdict in a ``VerdictLog``, with the name it was recorded under."""

    name: str
    verdict: Verdict


@dataclass
class VerdictLog:
    """The verdicts of a test session, for a threshold on their accuracy rather than a
    failure per answer: ``judge`` records and returns a verdict, and never raises for an
    incorrect answer.

    >>> log = VerdictLog()
    >>> log.judge("((1))", "((1))", name="q1").correct, log.judge("((1))", "((2))", name="q2").correct
    (True, False)
    >>> log.accuracy, log.summary()
    (0.5, '1 of 2 answers correct, accuracy 0.5000')
    """

    answers: list[JudgedAnswer] = field(default_factory=list)

    def judge(
        self,
        canonical: str | Answer,
        system: str | Answer,
        *,
        name: str = "",
        epsilon: float | str | Decimal = DEFAULT_EPSILON,
        scalars: str = SCALAR_RULES[0],
        strings: str = next(iter(STRING_MODES)),
        abs_epsilon: float | str | Decimal = DEFAULT_ABS_EPSILON,
    ) -> Verdict:
        """Judge ``system`` against ``canonical`` as ``assert_correct`` does, record the verdict
        under ``name`` and return it."""
        verdict = judge(canonical, system, epsilon=epsilon, scalars=scalars, strings=strings, abs_epsilon=abs_epsilon)
        self.answers.append(JudgedAnswer(name or f"answer {len(self.answers) + 1}", verdict))
        return verdict

    @property
    def correct(self) -> int:
        """How many recorded answers are correct."""
        return sum(1 for answer in self.answers if answer.verdict.correct)

    @property
    def accuracy(self) -> float | None:
        """The share of recorded answers that are correct; None when none was recorded."""
        return self.correct / len(self.answers) if self.answers else None

    def summary(self) -> str:
        """``7 of 8 answers correct, accuracy 0.8750``."""
        return f"{self.correct} of {len(self.answers)} answers correct, accuracy {ratio(self.accuracy)}"

    def incorrect(self) -> list[JudgedAnswer]:
        """The recorded answers that are incorrect, in the order they were judged."""
        return [answer for answer in self.answers if not answer.verdict.correct]
