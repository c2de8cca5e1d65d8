"""Judging one system answer against one canonical answer: the ``Verdict`` and its reasons.

Column numbers in explanations and in ``Verdict.document()`` count from 1, as the 1989 paper
numbers columns; ``Verdict.mapping`` is a Python tuple of 0-based indexes.

>>> verdict = judge("53200.0", "((53190.9))")
>>> print(verdict.explain())
incorrect: the scalar does not match
closest mapping: canonical column 1 -> system column 1
canonical tuples missing from the system answer (1):
  (53200.0)
system tuples not in the canonical answer (1):
  (53190.9)
numbers outside tolerance:
  53190.9 for 53200.0: off by 9.1, more than 5.32
>>> str(verdict.signature)  # doctest: +ELLIPSIS
'eps:0.0001|scalars:atis|strings:exact|v:...'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from answerkey.comparator.search import closest_mapping, find_mapping
from answerkey.comparator.sortkeys import KeyOrder, OutOfOrder, describe_sort_keys
from answerkey.comparator.values import (
    DEFAULT_ABS_EPSILON,
    DEFAULT_EPSILON,
    EXACT,
    KeyedColumn,
    MatchRule,
    format_epsilon,
    format_figure,
)
from answerkey.grammar import parse
from answerkey.grammar.render import render_value
from answerkey.model import Alternatives, Answer, NoAnswer, Number, Relation, Value
from answerkey.signature import Signature

# How a canonical scalar is matched: "atis" (ATIS v2, the default) accepts only a scalar or a
# one-value relation; "h89" (the 1989 reading) treats it as a one-column relation, extra
# columns allowed, which lets ((true false)) pass for true (H89-2019 section 3.4).
SCALAR_RULES = ("atis", "h89")

# Tuples of each kind an explanation lists before it only counts the rest.
SHOWN_TUPLES = 10

Row = tuple[Value, ...]


@dataclass(frozen=True)
class Explanation:
    """Why an incorrect answer is wrong, for the closest mapping of its columns.

    ``mapping`` (0-based, canonical column i -> system column ``mapping[i]``) is a mapping
    that leaves few tuples unmatched; ``missing`` are the canonical tuples the system answer
    lacks under it, ``extra`` the system tuples not in the canonical answer, and
    ``out_of_tolerance`` pairs (canonical number, system number) of a missing and an extra
    tuple that differ only in numbers beyond epsilon. ``alternative`` is the 0-based index of
    the ``OR`` alternative explained, if any. For a canonical answer with sort keys
    (``sort_keys``, 0-based) whose tuples the system answer holds but not in key order,
    ``mapping`` is a mapping under which the tuples match as sets and ``out_of_order`` the
    first system tuple out of key order under it.
    """

    mapping: tuple[int, ...]
    missing: tuple[Row, ...]
    extra: tuple[Row, ...]
    out_of_tolerance: tuple[tuple[Number, Number], ...]
    epsilon: Decimal
    alternative: int | None = None
    sort_keys: tuple[int, ...] | None = None
    out_of_order: OutOfOrder | None = None
    abs_epsilon: Decimal = Decimal(0)
    """The absolute floor of the tolerance (``MatchRule.abs_epsilon``)."""

    def lines(self) -> list[str]:
        """The explanation as text lines, as ``answerkey judge --explain`` prints it."""
        lines = ["closest mapping: " + describe_mapping(self.mapping)]
        for title, rows in (
            ("canonical tuples missing from the system answer", self.missing),
            ("system tuples not in the canonical answer", self.extra),
        ):
            if rows:
                lines.append(f"{title} ({len(rows)}):")
                lines.extend("  " + render_tuple(row) for row in rows[:SHOWN_TUPLES])
                if len(rows) > SHOWN_TUPLES:
                    lines.append(f"  ... and {len(rows) - SHOWN_TUPLES} more")
        if self.out_of_tolerance:
            lines.append("numbers outside tolerance:")
            lines.extend(
                "  " + _tolerance_text(c, s, self.epsilon, self.abs_epsilon)
                for c, s in self.out_of_tolerance[:SHOWN_TUPLES]
            )
        if self.sort_keys is not None and not (self.missing or self.extra):
            lines.append(f"out of key order ({describe_sort_keys(self.sort_keys)}):")
            if self.out_of_order is not None:
                lines.append(f"  {self.out_of_order}")
            else:
                lines.append("  the system tuples do not split into the canonical tie groups in order")
        return lines

    def document(self) -> dict[str, Any]:
        """The explanation as plain values; columns numbered from 1, tuples as CAS text."""
        return {
            "alternative": None if self.alternative is None else self.alternative + 1,
            "closest_mapping": mapping_document(self.mapping),
            "missing": [render_tuple(row) for row in self.missing],
            "extra": [render_tuple(row) for row in self.extra],
            "out_of_tolerance": [
                _tolerance_document(c, s, self.epsilon, self.abs_epsilon) for c, s in self.out_of_tolerance
            ],
            "out_of_order": None if self.out_of_order is None else self.out_of_order.document(),
        }


def render_tuple(row: Row) -> str:
    """A tuple in CAS spelling, e.g. ``(53200.0 "SMITH")``."""
    return "(" + " ".join(map(render_value, row)) + ")"


def describe_mapping(mapping: Sequence[int]) -> str:
    """``canonical column 1 -> system column 2, ...`` (columns numbered from 1)."""
    return ", ".join(f"canonical column {i + 1} -> system column {j + 1}" for i, j in enumerate(mapping))


def mapping_document(mapping: Sequence[int] | None) -> list[dict[str, int]] | None:
    """A mapping as ``[{"canonical": 1, "system": 2}, ...]`` (columns numbered from 1)."""
    if mapping is None:
        return None
    return [{"canonical": i + 1, "system": j + 1} for i, j in enumerate(mapping)]


def _difference(canonical: Number, system: Number, epsilon: Decimal, abs_epsilon: Decimal) -> tuple[Decimal, Decimal]:
    # For display: EXACT never traps (numbers at the bounds, 1e1000000, overflow the default
    # context), and rounds only differences of numbers thousands of places apart.
    difference = EXACT.subtract(Decimal(system.value), Decimal(canonical.value)).copy_abs()
    allowed = max(EXACT.multiply(Decimal(canonical.value).copy_abs(), epsilon), abs_epsilon)
    return difference, allowed


def _tolerance_text(canonical: Number, system: Number, epsilon: Decimal, abs_epsilon: Decimal) -> str:
    if not (canonical.is_real or system.is_real):
        return f"{system.text} for {canonical.text}: integers must be equal"
    difference, allowed = _difference(canonical, system, epsilon, abs_epsilon)
    return (
        f"{system.text} for {canonical.text}: off by {format_figure(difference)}, "
        f"more than {format_figure(allowed, normalise=True)}"
    )


def _tolerance_document(canonical: Number, system: Number, epsilon: Decimal, abs_epsilon: Decimal) -> dict[str, str]:
    difference, allowed = _difference(canonical, system, epsilon, abs_epsilon)
    exact = not (canonical.is_real or system.is_real)
    return {
        "canonical": canonical.text,
        "system": system.text,
        "difference": format_figure(difference),
        "allowed": "0" if exact else format_figure(allowed, normalise=True),
    }


def judge_signature(
    *,
    epsilon: float | str | Decimal = DEFAULT_EPSILON,
    scalars: str = "atis",
    strings: str = "exact",
    abs_epsilon: float | str | Decimal = DEFAULT_ABS_EPSILON,
) -> Signature:
    """The signature of verdicts made with these options (``abs_eps`` only when the absolute
    floor is set, so signatures made without it are unchanged).

    >>> str(judge_signature(epsilon=0.01))  # doctest: +ELLIPSIS
    'eps:0.01|scalars:atis|strings:exact|v:...'
    >>> str(judge_signature(abs_epsilon=1e-9))  # doctest: +ELLIPSIS
    'eps:0.0001|abs_eps:0.000000001|scalars:atis|strings:exact|v:...'
    """
    floor = MatchRule(epsilon=epsilon, abs_epsilon=abs_epsilon).describe().get("abs_epsilon")
    return Signature.of(
        epsilon=format_epsilon(Decimal(str(epsilon)) if isinstance(epsilon, float) else epsilon),
        **({} if floor is None else {"abs_epsilon": floor}),
        scalars=scalars,
        strings=strings,
    )


@dataclass(frozen=True)
class Verdict:
    """The comparator's answer: correct or incorrect, with the mapping or the reason.

    ``mapping[i]`` is the system column (0-based) that canonical column ``i`` was matched to;
    ``alternative`` the 0-based index of the ``OR`` alternative that matched.
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

    @property
    def signature(self) -> Signature:
        """The options this verdict was made with, and the version."""
        rule = self.rule or MatchRule()
        return judge_signature(
            epsilon=rule.exact_epsilon, scalars=self.scalars, strings=rule.strings, abs_epsilon=rule.exact_abs_epsilon
        )

    def explanations(self) -> list[Explanation]:
        """For an incorrect answer, why: one explanation (one per ``OR`` alternative that can
        be compared column by column); none for a correct answer or a shape mismatch."""
        if self.correct or self.rule is None:
            return []
        canonical, system = self.canonical, self.system
        if isinstance(canonical, Alternatives):
            found = []
            for index, option in enumerate(canonical.options):
                explanation = _explain(option, system, self.rule, self.scalars, index)
                if explanation is not None:
                    found.append(explanation)
            return found
        if isinstance(canonical, Relation):
            explanation = _explain(canonical, system, self.rule, self.scalars, None)
            return [explanation] if explanation is not None else []
        return []

    def explain(self) -> str:
        """Why: the mapping used, or for the closest mapping the canonical tuples missing, the
        system tuples extra and the numbers outside tolerance; for a canonical answer with
        sort keys whose tuples the system answer holds, the first tuple out of key order."""
        lines = [f"{self.label}: {self.reason}"]
        if self.mapping is not None:
            lines.append("mapping: " + describe_mapping(self.mapping))
        for explanation in self.explanations():
            if explanation.alternative is None:
                lines.extend(explanation.lines())
            else:
                lines.append(f"alternative {explanation.alternative + 1}:")
                lines.extend("  " + line for line in explanation.lines())
        return "\n".join(lines)

    def document(self, *, explain: bool = False) -> dict[str, Any]:
        """The verdict as plain values (``answerkey judge --json``): columns and alternatives
        numbered from 1; with ``explain``, the structured explanation too.

        >>> judge('((2341 "SMITH"))', '(("SMITH" 2341))').document()["mapping"]
        [{'canonical': 1, 'system': 2}, {'canonical': 2, 'system': 1}]
        """
        document: dict[str, Any] = {
            "verdict": self.label,
            "correct": self.correct,
            "reason": self.reason,
            "mapping": mapping_document(self.mapping),
            "alternative": None if self.alternative is None else self.alternative + 1,
            "signature": str(self.signature),
        }
        if explain:
            document["explanation"] = [explanation.document() for explanation in self.explanations()]
        return document


def _explain(
    canonical: Relation, system: Answer | None, rule: MatchRule, scalars: str, alternative: int | None
) -> Explanation | None:
    if not isinstance(system, Relation) or not canonical.rows or not system.rows:
        return None
    if canonical.arity > system.arity:
        return None
    if canonical.scalar and scalars == "atis" and (system.arity != 1 or len(set(system.rows)) != 1):
        return None
    keys = canonical.order_by
    if keys is not None:
        # The tuples may match as sets, only not in key order: say where the order breaks.
        as_sets = find_mapping(canonical.rows, system.rows, rule)
        if as_sets is not None:
            reduced = [tuple(row[j] for j in as_sets) for row in system.rows]
            out_of_order = KeyOrder(canonical.rows, keys, rule).first_break(reduced)
            return Explanation(
                as_sets, (), (), (), rule.exact_epsilon, alternative, keys, out_of_order, rule.exact_abs_epsilon
            )
    mapping, absent, extra = closest_mapping(canonical.rows, system.rows, rule)
    return Explanation(
        mapping,
        tuple(absent),
        tuple(extra),
        tuple(_out_of_tolerance(absent, extra, rule)),
        rule.exact_epsilon,
        alternative,
        keys,
        abs_epsilon=rule.exact_abs_epsilon,
    )


_NUMBER = object()  # stands for any number in a tuple's shape


def _shape(row: Row, rule: MatchRule) -> tuple:
    """A tuple with its numbers blanked out: two tuples equal but for numbers have one shape."""
    return tuple(_NUMBER if type(value) is Number else rule.key(value) for value in row)


def _out_of_tolerance(absent: list[Row], extra: list[Row], rule: MatchRule) -> list[tuple[Number, Number]]:
    """For each missing tuple, the numbers that differ from the first extra tuple equal to it
    but for numbers (pairs found by shape, not by trying every pair: both lists may be long)."""
    first_of_shape: dict[tuple, Row] = {}
    for other in extra:
        first_of_shape.setdefault(_shape(other, rule), other)
    pairs: list[tuple[Number, Number]] = []
    for row in absent:
        partner = first_of_shape.get(_shape(row, rule))
        if partner is not None:
            # A missing and an extra tuple never match, so some number differs.
            pairs.extend((c, s) for c, s in zip(row, partner) if not rule.match(c, s))  # type: ignore[misc]
    return pairs


def as_answer(answer: str | Answer, *, canonical: bool) -> Answer:
    """CAS text parsed (``OR`` allowed only when ``canonical``), or a parsed answer as it is."""
    if isinstance(answer, str):
        return parse(answer, allow_alternatives=canonical)
    if isinstance(answer, (Relation, Alternatives, NoAnswer)):
        return answer
    raise TypeError(f"expected CAS text or a parsed answer, not {type(answer).__name__}")


def _judge_relation(canonical: Relation, system: Relation, rule: MatchRule, scalars: str) -> Verdict:
    def verdict(correct: bool, reason: str, mapping: tuple[int, ...] | None = None) -> Verdict:
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
    if canonical.order_by is not None:
        return _judge_sorted(canonical, system, rule, canonical.order_by, verdict)
    mapping = find_mapping(canonical.rows, system.rows, rule, ordered=canonical.ordered)
    if mapping is None:
        return verdict(False, _no_mapping("in order" if canonical.ordered else "as a set"))
    return verdict(True, _IN_ORDER if canonical.ordered else _AS_SETS, mapping)


_IN_ORDER = "the tuples match in order"
_AS_SETS = "the tuples match as sets"


def _no_mapping(how: str) -> str:
    return f"no mapping of canonical columns onto system columns gives the canonical tuples {how}"


def judge_keyed(
    canonical: Sequence[Row],
    system: Sequence[Row],
    keyed: tuple[Sequence[KeyedColumn], Sequence[KeyedColumn]],
    rule: MatchRule,
    relations: Callable[[], tuple[Relation, Relation]],
) -> Verdict:
    """``judge``'s verdict on the relations of ``canonical`` and ``system`` rows (neither
    empty, no order, no sort keys, the system's as wide at least), found from their keyed
    columns (``find_mapping``'s ``keyed``), so rows made on demand may never be made. A
    correct verdict holds no answers (it has nothing to explain); an incorrect one holds the
    relations, made by ``relations`` then, which it explains itself from.

    >>> rule = MatchRule()
    >>> canonical, system = [(Number.of(1),), (Number.of(2),)], [(Number.of(2),), (Number.of(1),)]
    >>> keyed = ([rule.keyed([Number.of(1), Number.of(2)])], [rule.keyed_plain([2, 1])])
    >>> judge_keyed(canonical, system, keyed, rule, lambda: (Relation(canonical), Relation(system)))
    Verdict(correct=True, reason='the tuples match as sets', mapping=(0,), alternative=None)
    """
    mapping = find_mapping(canonical, system, rule, keyed=keyed)
    if mapping is None:
        canonical_relation, system_relation = relations()
        return Verdict(False, _no_mapping("as a set"), None, None, canonical_relation, system_relation, rule)
    return Verdict(True, _AS_SETS, mapping, None, None, None, rule)


def _judge_sorted(canonical: Relation, system: Relation, rule: MatchRule, keys: tuple[int, ...], verdict) -> Verdict:
    """A canonical answer with sort keys: some mapping must give the system tuples in key
    order (see ``answerkey.comparator.sortkeys``). Key order implies set equivalence, so the
    search for mappings prunes as for sets and checks the order of each complete mapping."""
    order = KeyOrder(canonical.rows, keys, rule)

    def in_key_order(mapping: tuple[int, ...]) -> bool:
        return order.holds([tuple(row[j] for j in mapping) for row in system.rows])

    mapping = find_mapping(canonical.rows, system.rows, rule, accept=in_key_order)
    by = describe_sort_keys(keys)
    if mapping is None:
        return verdict(
            False,
            f"no mapping of canonical columns onto system columns gives the canonical tuples in key order ({by})",
        )
    return verdict(True, f"the tuples match in key order ({by}; ties as sets)", mapping)


def judge(
    canonical: str | Answer,
    system: str | Answer,
    *,
    epsilon: float | str | Decimal = DEFAULT_EPSILON,
    scalars: str = "atis",
    strings: str = "exact",
    abs_epsilon: float | str | Decimal = DEFAULT_ABS_EPSILON,
) -> Verdict:
    """Judge ``system`` against ``canonical`` (CAS text or parsed answers).

    Reals match when ``|s - c| <= max(|c| * epsilon, abs_epsilon)`` (``abs_epsilon``, an
    absolute floor, is 0 by default); system answers may have extra columns in
    any order; tuples are compared as sets (in order for ordered canonical answers; in order
    of the key columns, ties as sets, for canonical answers with sort keys);
    ``NO_ANSWER`` never matches; a canonical ``(A OR B)`` is matched by either alternative.
    CAS text that does not parse raises ``ParseError``; ``OR`` in a system answer is one.

    >>> judge("true", "((true false))").correct, judge("true", "((true false))", scalars="h89").correct
    (False, True)
    """
    if scalars not in SCALAR_RULES:
        raise ValueError(f"scalars must be one of {', '.join(SCALAR_RULES)}, not {scalars!r}")
    rule = MatchRule(epsilon=epsilon, strings=strings, abs_epsilon=abs_epsilon)
    canonical = as_answer(canonical, canonical=True)
    system = as_answer(system, canonical=False)
    if isinstance(system, Alternatives):
        raise ValueError("OR alternatives are only allowed in canonical answers, not in a system answer")
    if isinstance(system, NoAnswer):
        return Verdict(False, "the system gave no answer (NO_ANSWER)", None, None, canonical, system, rule, scalars)
    if isinstance(canonical, NoAnswer):
        return Verdict(
            False,
            "the canonical answer is NO_ANSWER, which nothing matches",
            None,
            None,
            canonical,
            system,
            rule,
            scalars,
        )
    if isinstance(canonical, Alternatives):
        reasons = []
        for index, option in enumerate(canonical.options):
            result = _judge_relation(option, system, rule, scalars)
            if result.correct:
                return Verdict(
                    True,
                    f"alternative {index + 1} matches: {result.reason}",
                    result.mapping,
                    index,
                    canonical,
                    system,
                    rule,
                    scalars,
                )
            reasons.append(f"alternative {index + 1}: {result.reason}")
        return Verdict(
            False, "no alternative matches (" + "; ".join(reasons) + ")", None, None, canonical, system, rule, scalars
        )
    return _judge_relation(canonical, system, rule, scalars)
