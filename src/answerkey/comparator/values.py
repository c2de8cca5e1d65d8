"""Comparing single values: the epsilon rule for reals, exact matching for everything else.

>>> from answerkey.model import Number
>>> rule = MatchRule(epsilon=0.0001)
>>> rule.match(Number.parse("53200.0"), Number.parse("53198.8"))
True
>>> rule.match(Number.parse("53200.0"), Number.parse("53190.9"))
False
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from operator import attrgetter

from answerkey.model import Date, Number, String, Value

__all__ = ["MatchRule", "STRING_MODES", "DEFAULT_EPSILON", "EXACT", "format_epsilon"]

DEFAULT_EPSILON = 0.0001

_text = attrgetter("text")
_value = attrgetter("value")

# Exact arithmetic for the epsilon test: with binary floats, |1.1 - 1.0| <= 1.0 * 0.1 is False.
EXACT = Context(prec=5000, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])


def _normalise_exact(text: str) -> str:
    return text


def _normalise_trim(text: str) -> str:
    return text.strip()


def _normalise_fold(text: str) -> str:
    return unicodedata.normalize("NFC", text.strip()).casefold()


# String comparison modes by name: the CLI, the signature and the docs list them from here.
STRING_MODES = {
    "exact": _normalise_exact,
    "trim": _normalise_trim,
    "fold": _normalise_fold,
}


def _to_decimal(epsilon: float | str | Decimal) -> Decimal:
    # str() keeps 1e-4 as 0.0001 rather than the float's binary expansion.
    value = epsilon if isinstance(epsilon, Decimal) else Decimal(str(epsilon))
    if not value.is_finite() or value < 0:
        raise ValueError(f"epsilon must be a finite number >= 0, not {epsilon!r}")
    return value


@dataclass(frozen=True)
class MatchRule:
    """How a system value is matched against a canonical value.

    Reals: system ``s`` matches canonical ``c`` iff ``|s - c| <= |c| * epsilon`` (computed
    exactly); integer against integer is exact; an integer against a real uses the real rule.
    Strings are compared after the ``strings`` normaliser (``exact``, ``trim``, ``fold``).
    Everything else matches by value; different types never match.
    """

    epsilon: float | str | Decimal = DEFAULT_EPSILON
    strings: str = "exact"
    exact_epsilon: Decimal = field(init=False, repr=False, compare=False)
    """``epsilon`` as an exact decimal (``0.0001``, not the float's binary expansion)."""
    normalise: Callable[[str], str] = field(init=False, repr=False, compare=False)
    """The ``strings`` normaliser: strings match when their normalised texts are equal."""

    def __post_init__(self) -> None:
        if self.strings not in STRING_MODES:
            raise ValueError(f"strings must be one of {', '.join(STRING_MODES)}, not {self.strings!r}")
        object.__setattr__(self, "exact_epsilon", _to_decimal(self.epsilon))
        object.__setattr__(self, "normalise", STRING_MODES[self.strings])

    @property
    def tolerant(self) -> bool:
        """True when reals are matched within a tolerance rather than exactly."""
        return self.exact_epsilon != 0

    def match(self, canonical: Value, system: Value) -> bool:
        """True iff ``system`` matches ``canonical`` under this rule."""
        if type(canonical) is not type(system):
            return False
        if type(canonical) is Number:
            if not (canonical.is_real or system.is_real):
                return canonical.value == system.value
            return self.numbers_close(canonical.value, system.value)
        if type(canonical) is String:
            normalise = self.normalise
            return normalise(canonical.text) == normalise(system.text)  # type: ignore[union-attr]
        return canonical == system

    def numbers_close(self, canonical: int | Decimal, system: int | Decimal) -> bool:
        """The epsilon test on two numeric values, exactly."""
        difference = EXACT.subtract(Decimal(system), Decimal(canonical)).copy_abs()
        allowed = EXACT.multiply(Decimal(canonical).copy_abs(), self.exact_epsilon)
        return difference <= allowed

    def key(self, value: Value) -> object:
        """A hashable key such that, for values that are not reals compared with tolerance,
        ``match(a, b)`` iff ``key(a) == key(b)``: a number's ``int`` or ``Decimal``, a
        string's normalised text, a date's ``datetime.date``, any other value itself (keys
        of different types never compare equal, so different types keep different keys)."""
        kind = type(value)
        if kind is Number or kind is Date:
            return value.value
        if kind is String:
            return self.normalise(value.text)
        return value

    def keys(self, values: Iterable[Value]) -> list:
        """``key`` of each value, with C-level maps when all are strings or all numbers.

        >>> MatchRule(strings="fold").keys([String(" A"), String("a")])
        ['a', 'a']
        """
        values = values if isinstance(values, (list, tuple)) else list(values)
        kinds = set(map(type, values))
        if kinds == {String}:
            texts = map(_text, values)
            return list(texts if self.strings == "exact" else map(self.normalise, texts))
        if kinds == {Number} or kinds == {Date}:
            return list(map(_value, values))
        return list(map(self.key, values))

    def describe(self) -> dict[str, str]:
        """The options of this rule as they appear in a signature.

        >>> MatchRule(epsilon=1e-4).describe()
        {'epsilon': '0.0001', 'strings': 'exact'}
        """
        return {"epsilon": format_epsilon(self.exact_epsilon), "strings": self.strings}


def format_epsilon(epsilon: Decimal | float) -> str:
    """An epsilon as a signature shows it: plain decimal notation, no trailing zeros.

    >>> format_epsilon(Decimal("1E-4")), format_epsilon(0.5)
    ('0.0001', '0.5')
    """
    value = epsilon if isinstance(epsilon, Decimal) else _to_decimal(epsilon)
    return format(value.normalize(), "f")
