"""The Comparator: is a system answer correct against the canonical answer?

>>> bool(judge("53200.0", "53198.8")), bool(judge("53200.0", "53190.9"))
(True, False)
>>> verdict = judge('((2341 "SMITH"))', '(("TAI" 2341 "SMITH" 45))')
>>> verdict.correct, verdict.mapping
(True, (1, 2))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from answerkey.comparator.search import closest_mapping, find_mapping, ordered_equivalent, project
from answerkey.comparator.tuples import missing
from answerkey.comparator.values import DEFAULT_EPSILON, STRING_MODES, MatchRule
from answerkey.model import Alternatives, Answer, NoAnswer, Number, Relation

__all__ = ["judge", "Verdict", "MatchRule", "SCALAR_RULES", "STRING_MODES", "DEFAULT_EPSILON", "judge_signature"]

# How a canonical scalar is matched: "atis" (ATIS v2, the default) accepts only a scalar or a
# one-value relation; "h89" (the 1989 reading) treats it as a one-column relation, extra
# columns allowed, which lets ((true false)) pass for true (H89-2019 section 3.4).
SCALAR_RULES = ("atis", "h89")

_SHOWN_TUPLES = 10


@dataclass(frozen=True)
class Verdict:
    """The comparator's answer: correct or incorrect, with the mapping or the reason.

    ``mapping[i]`` is the system column (0-based) that canonical column ``i`` was matched to.
    ``bool(verdict)`` is ``verdict.correct``.
    """

    correct: bool
    reason: str
    mapping: tuple[int, ...] | None = None
    alternative: int | None = None
    canonical: Answer | None = field(default=None, repr=False, compare=False)
    system: Answer | None = field(default=None, repr=False, compare=False)
    rule: MatchRule | None = field(default=None, repr=False, compare=False)
    scalars: str = field(default="atis", repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.correct

    @property
    def label(self) -> str:
        """``correct`` or ``incorrect``."""
        return "correct" if self.correct else "incorrect"

    def explain(self) -> str:
        """Why: the mapping used, or for the closest mapping the canonical tuples missing, the
        system tuples extra and the numbers outside tolerance."""
        lines = [f"{self.label}: {self.reason}"]
        if self.mapping is not None:
            lines.append("mapping: " + _describe_mapping(self.mapping))
        if self.correct:
            return "\n".join(lines)
        canonical, system = self.canonical, self.system
        if isinstance(canonical, Alternatives):
            for index, option in enumerate(canonical.options, start=1):
                detail = _explain_relations(option, system, self.rule, self.scalars)
                if detail:
                    lines.append(f"alternative {index}:")
                    lines.extend("  " + line for line in detail)
        elif isinstance(canonical, Relation):
            lines.extend(_explain_relations(canonical, system, self.rule, self.scalars))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """A JSON-ready summary (the ``--json`` output of ``answerkey judge``)."""
        return {
            "verdict": self.label,
            "correct": self.correct,
            "reason": self.reason,
            "mapping": list(self.mapping) if self.mapping is not None else None,
            "alternative": self.alternative,
        }


def _describe_mapping(mapping: tuple[int, ...]) -> str:
    return ", ".join(f"canonical column {i + 1} -> system column {j + 1}" for i, j in enumerate(mapping))


def _explain_relations(canonical: Relation, system, rule: MatchRule | None, scalars: str) -> list[str]:
    from answerkey.grammar.render import render_value

    if rule is None or not isinstance(system, Relation) or not canonical.rows or not system.rows:
        return []
    if canonical.arity > system.arity:
        return []
    if canonical.scalar and scalars == "atis" and (system.arity != 1 or len(set(system.rows)) != 1):
        return []
    mapping, absent, extra = closest_mapping(canonical.rows, system.rows, rule)
    lines = ["closest mapping: " + _describe_mapping(mapping)]

    def show(title: str, rows: list) -> None:
        if not rows:
            return
        lines.append(f"{title} ({len(rows)}):")
        for row in rows[:_SHOWN_TUPLES]:
            lines.append("  (" + " ".join(map(render_value, row)) + ")")
        if len(rows) > _SHOWN_TUPLES:
            lines.append(f"  ... and {len(rows) - _SHOWN_TUPLES} more")

    show("canonical tuples missing from the system answer", absent)
    show("system tuples not in the canonical answer", extra)
    # Numbers outside tolerance: a missing tuple and an extra tuple equal but for numbers.
    out_of_tolerance = []
    for row in absent:
        for other in extra:
            differing = [i for i, (c, s) in enumerate(zip(row, other)) if not rule.match(c, s)]
            if differing and all(isinstance(row[i], Number) and isinstance(other[i], Number) for i in differing):
                out_of_tolerance.extend(_tolerance_line(row[i], other[i], rule) for i in differing)
                break
    if out_of_tolerance:
        lines.append("numbers outside tolerance:")
        lines.extend(out_of_tolerance[:_SHOWN_TUPLES])
    return lines


def _tolerance_line(canonical: Number, system: Number, rule: MatchRule) -> str:
    difference = abs(Decimal(system.value) - Decimal(canonical.value))
    allowed = abs(Decimal(canonical.value)) * rule._epsilon
    if not (canonical.is_real or system.is_real):
        return f"  {system.text} for {canonical.text}: integers must be equal"
    return f"  {system.text} for {canonical.text}: off by {difference}, more than {allowed.normalize():f}"


def _as_answer(answer, *, canonical: bool) -> Answer:
    if isinstance(answer, str):
        from answerkey.grammar import parse

        return parse(answer, allow_alternatives=canonical)
    if isinstance(answer, (Relation, Alternatives, NoAnswer)):
        return answer
    raise TypeError(f"expected CAS text or a parsed answer, not {type(answer).__name__}")


def _judge_relation(canonical: Relation, system: Relation, rule: MatchRule, scalars: str) -> Verdict:
    def verdict(correct: bool, reason: str, mapping=None) -> Verdict:
        return Verdict(correct, reason, mapping, None, canonical, system, rule, scalars)

    if not canonical.rows:
        if system.rows:
            return verdict(False, f"the canonical answer is empty; the system answer has {len(system.rows)} tuple(s)")
        return verdict(True, "both answers are empty")
    if not system.rows:
        return verdict(False, "the system answer is empty")
    if canonical.scalar and scalars == "atis":
        distinct = set(system.rows)
        if system.arity != 1 or len(distinct) != 1:
            shape = f"{len(distinct)} distinct tuple(s) of {system.arity} value(s)"
            return verdict(False, f"the canonical answer is a scalar; the system answer has {shape}")
        if rule.match(canonical.rows[0][0], system.rows[0][0]):
            return verdict(True, "the scalar matches", (0,))
        return verdict(False, "the scalar does not match")
    if canonical.arity > system.arity:
        return verdict(
            False, f"the canonical answer has {canonical.arity} columns; the system answer only {system.arity}"
        )
    mapping = find_mapping(canonical.rows, system.rows, rule, ordered=canonical.ordered)
    if mapping is None:
        what = "in order" if canonical.ordered else "as a set"
        return verdict(False, f"no mapping of canonical columns onto system columns gives the canonical tuples {what}")
    how = "in order" if canonical.ordered else "as sets"
    return verdict(True, f"the tuples match {how}", mapping)


def judge(
    canonical: str | Answer,
    system: str | Answer,
    *,
    epsilon: float = DEFAULT_EPSILON,
    scalars: str = "atis",
    strings: str = "exact",
) -> Verdict:
    """Judge ``system`` against ``canonical`` (CAS text or parsed answers).

    Reals match when ``|s - c| <= |c| * epsilon``; system answers may have extra columns in
    any order; tuples are compared as sets (in order for ordered canonical answers);
    ``NO_ANSWER`` never matches; a canonical ``(A OR B)`` is matched by either alternative.
    CAS text that does not parse raises ``ParseError``; ``OR`` in a system answer is one.

    >>> judge("true", "((true false))").correct, judge("true", "((true false))", scalars="h89").correct
    (False, True)
    """
    if scalars not in SCALAR_RULES:
        raise ValueError(f"scalars must be one of {', '.join(SCALAR_RULES)}, not {scalars!r}")
    rule = MatchRule(epsilon=epsilon, strings=strings)
    canonical = _as_answer(canonical, canonical=True)
    system = _as_answer(system, canonical=False)
    if isinstance(system, Alternatives):
        raise ValueError("OR alternatives are only allowed in canonical answers, not in a system answer")
    if isinstance(system, NoAnswer):
        return Verdict(False, "the system gave no answer (NO_ANSWER)", None, None, canonical, system, rule, scalars)
    if isinstance(canonical, NoAnswer):
        return Verdict(False, "the canonical answer is NO_ANSWER, which nothing matches", None, None,
                       canonical, system, rule, scalars)
    if isinstance(canonical, Alternatives):
        reasons = []
        for index, option in enumerate(canonical.options):
            result = _judge_relation(option, system, rule, scalars)
            if result.correct:
                return Verdict(True, f"alternative {index + 1} matches: {result.reason}", result.mapping, index,
                               canonical, system, rule, scalars)
            reasons.append(f"alternative {index + 1}: {result.reason}")
        return Verdict(False, "no alternative matches (" + "; ".join(reasons) + ")", None, None,
                       canonical, system, rule, scalars)
    return _judge_relation(canonical, system, rule, scalars)


def judge_signature(*, epsilon: float = DEFAULT_EPSILON, scalars: str = "atis", strings: str = "exact") -> str:
    """The signature of verdicts made with these options, e.g.
    ``eps:0.0001|scalars:atis|strings:exact|v:0.1.0``."""
    from answerkey.signature import make_signature

    described = MatchRule(epsilon=epsilon, strings=strings).describe()
    return make_signature(eps=described["eps"], scalars=scalars, strings=strings)
