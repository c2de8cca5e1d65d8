"""Comparing single values: the epsilon rule for reals, exact matching for everything else.

>>> from answerkey.model import Number
>>> rule = MatchRule(epsilon=0.0001)
>>> rule.match(Number.parse("53200.0"), Number.parse("53198.8"))
True
>>> rule.match(Number.parse("53200.0"), Number.parse("53190.9"))
False
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Iterable, Sequence, Set
from dataclasses import dataclass, field
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, ROUND_UP, Context, Decimal, Inexact
from operator import attrgetter

from answerkey.model import Date, DateTime, Nil, Number, String, Time, Value

DEFAULT_EPSILON = 0.0001
"""The relative tolerance for reals: ``|s - c| <= |c| * epsilon``."""
DEFAULT_ABS_EPSILON = 0.0
"""The absolute tolerance floor for reals (off): ``|s - c| <= max(|c| * epsilon, abs_epsilon)``."""

_text = attrgetter("text")
_value = attrgetter("value")
_is_real = attrgetter("is_real")

# Plain values (as SQLite returns them) and the types of the values the model makes of them
# (answerkey.adapters.sql.sql_value): NULL is nil, an int an integer, a float a real.
_PLAIN_KINDS: dict[type, type] = {type(None): Nil, int: Number, float: Number, str: String}
# Below this magnitude a float prints (repr) as its exact value when it is an integer, so an
# int equals it exactly when the int equals the number the model makes of it.
_FLOATS_PRINTED_EXACTLY = 2.0**53

# Decimal arithmetic for the epsilon test: with binary floats, |1.1 - 1.0| <= 1.0 * 0.1 is
# False. No exponent the grammar accepts (|e| <= 10^6) overflows these contexts, and none
# traps: the default context's Emax (999,999) makes 1e1000000 - 1 raise Overflow. 5,000
# digits hold any product of two numbers of up to 1,000 digits and the difference of two
# such numbers up to about 4,000 places apart; further apart, EXACT rounds (see
# ``within_epsilon`` for the exact test).
EXACT = Context(prec=5000, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])
# EXACT, but raising Inexact where it would round, and directed roundings for bounds.
_CHECKED = Context(prec=5000, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[Inexact])
_FLOOR = Context(prec=5000, rounding=ROUND_FLOOR, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])
_CEILING = Context(prec=5000, rounding=ROUND_CEILING, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])
_TOWARD_ZERO = Context(prec=5000, rounding=ROUND_DOWN, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])
_AWAY_FROM_ZERO = Context(prec=5000, rounding=ROUND_UP, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])
# Beyond this many digits an exact difference is not computed (only exponents far outside
# the grammar's bounds need it; see _within_epsilon_rounded).
_MAX_EXACT_DIGITS = 10_000_000


def within_epsilon(canonical: Decimal, system: Decimal, epsilon: Decimal) -> bool:
    """``|system - canonical| <= |canonical| * epsilon``, decided exactly for any finite
    decimals, however far apart their exponents (and never raising).

    >>> within_epsilon(Decimal("53200.0"), Decimal("53198.8"), Decimal("0.0001"))
    True
    >>> within_epsilon(Decimal("1e1000000"), Decimal("1e999999"), Decimal("0.0001"))
    False
    >>> within_epsilon(Decimal("1e6"), Decimal("-1e-1000000"), Decimal(1))  # off by 1e6 and a little more
    False
    """
    try:
        return _CHECKED.subtract(system, canonical).copy_abs() <= _CHECKED.multiply(canonical.copy_abs(), epsilon)
    except Inexact:
        return _within_epsilon_rounded(canonical, system, epsilon)


def _digits(value: Decimal) -> int:
    return len(value.as_tuple().digits)


def _within_epsilon_rounded(canonical: Decimal, system: Decimal, epsilon: Decimal) -> bool:
    """``within_epsilon`` where 5,000 digits do not hold the difference or the product: the
    product exactly, then ``_difference_within``."""
    allowed = Context(prec=_digits(canonical) + _digits(epsilon), Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[]).multiply(
        canonical.copy_abs(), epsilon
    )
    return _difference_within(canonical, system, allowed)


def within_absolute(canonical: Decimal, system: Decimal, allowed: Decimal) -> bool:
    """``|system - canonical| <= allowed``, decided exactly for any finite decimals (and
    never raising): the absolute floor of the tolerance.

    >>> within_absolute(Decimal("0.0"), Decimal("1e-17"), Decimal("1e-9"))
    True
    >>> within_absolute(Decimal("0.0"), Decimal("-1e-9"), Decimal("1e-9"))
    True
    >>> within_absolute(Decimal(0), Decimal("1.0000000001e-9"), Decimal("1e-9"))
    False
    """
    try:
        return _CHECKED.subtract(system, canonical).copy_abs() <= allowed
    except Inexact:
        return _difference_within(canonical, system, allowed)


def _difference_within(canonical: Decimal, system: Decimal, allowed: Decimal) -> bool:
    """``|system - canonical| <= allowed`` where 5,000 digits do not hold the difference: the
    difference between two bounds; only when ``allowed`` falls between the bounds is the
    difference computed with all its digits."""
    if _AWAY_FROM_ZERO.subtract(system, canonical).copy_abs() <= allowed:
        return True
    if _TOWARD_ZERO.subtract(system, canonical).copy_abs() > allowed:
        return False
    lowest = min(system.adjusted() - _digits(system), canonical.adjusted() - _digits(canonical))
    digits = max(system.adjusted(), canonical.adjusted()) - lowest + 2
    if digits > _MAX_EXACT_DIGITS:
        return False  # exponents near Decimal's own limits (no reader makes them): say no
    exact = Context(prec=digits, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[]).subtract(system, canonical)
    return exact.copy_abs() <= allowed


def tolerance_window(
    value: Decimal,
    epsilon: Decimal,
    *,
    canonical: bool,
    magnitude: Decimal | None = None,
    abs_epsilon: Decimal = Decimal(0),
) -> tuple[Decimal, Decimal] | None:
    """Bounds (low, high) holding every number that may match ``value`` under the epsilon rule
    (rounded outwards, so a little wide): the system numbers matching a canonical ``value``
    (``canonical=True``; with ``magnitude``, those within ``magnitude * epsilon`` of it), or
    the canonical numbers a system ``value`` matches; None when there is no bound (epsilon 1
    or more, for a system value: then 0 matches anything). ``abs_epsilon``, the absolute
    floor, widens the window by as much on each side.

    >>> tolerance_window(Decimal(100), Decimal("0.01"), canonical=True)
    (Decimal('99.00'), Decimal('101.00'))
    >>> tolerance_window(Decimal(0), Decimal("0.01"), canonical=False, abs_epsilon=Decimal("0.5"))
    (Decimal('-0.5'), Decimal('0.5'))
    """
    if magnitude is None:
        magnitude = value.copy_abs()
    if canonical:
        reach = _CEILING.multiply(magnitude, epsilon)
    else:
        # |s - c| <= |c| eps puts |c| <= |s| / (1 - eps), so |s - c| <= |s| eps / (1 - eps).
        if epsilon >= 1:
            return None
        reach = _CEILING.divide(_CEILING.multiply(magnitude, epsilon), _FLOOR.subtract(1, epsilon))
    if abs_epsilon:
        # Within the floor or within the relative reach: the sum bounds both.
        reach = _CEILING.add(reach, abs_epsilon)
    return _FLOOR.subtract(value, reach), _CEILING.add(value, reach)


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


def _to_decimal(epsilon: float | str | Decimal, name: str = "epsilon") -> Decimal:
    # str() keeps 1e-4 as 0.0001 rather than the float's binary expansion.
    value = epsilon if isinstance(epsilon, Decimal) else Decimal(str(epsilon))
    if not value.is_finite() or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, not {epsilon!r}")
    return value


@dataclass(frozen=True, slots=True)
class KeyedColumn:
    """A column as the comparator's search sees it: the types of its values (nil included),
    whether one of them is a real, and each value's key (``MatchRule.key``). Made from typed
    values (``MatchRule.keyed``) or straight from a database driver's (``MatchRule.keyed_plain``)."""

    kinds: frozenset[type]
    reals: bool
    keys: Sequence[object]
    bounds: tuple[object, object] | None = None
    """The smallest and the largest key, when already known (else the search finds them)."""


@dataclass(frozen=True)
class MatchRule:
    """How a system value is matched against a canonical value.

    Reals: system ``s`` matches canonical ``c`` iff ``|s - c| <= max(|c| * epsilon,
    abs_epsilon)`` (computed exactly; ``abs_epsilon``, the absolute floor, is 0 by default,
    leaving the relative rule alone); integer against integer is exact; an integer against a real uses the real rule.
    Strings are compared after the ``strings`` normaliser (``exact``, ``trim``, ``fold``).
    Everything else matches by value (date-times and times with UTC offsets by instant, see
    ``answerkey.model.DateTime``); different types never match.
    """

    epsilon: float | str | Decimal = DEFAULT_EPSILON
    strings: str = "exact"
    abs_epsilon: float | str | Decimal = DEFAULT_ABS_EPSILON
    exact_epsilon: Decimal = field(init=False, repr=False, compare=False)
    """``epsilon`` as an exact decimal (``0.0001``, not the float's binary expansion)."""
    exact_abs_epsilon: Decimal = field(init=False, repr=False, compare=False)
    """``abs_epsilon`` as an exact decimal."""
    normalise: Callable[[str], str] = field(init=False, repr=False, compare=False)
    """The ``strings`` normaliser: strings match when their normalised texts are equal."""

    def __post_init__(self) -> None:
        if self.strings not in STRING_MODES:
            raise ValueError(f"strings must be one of {', '.join(STRING_MODES)}, not {self.strings!r}")
        object.__setattr__(self, "exact_epsilon", _to_decimal(self.epsilon))
        object.__setattr__(self, "exact_abs_epsilon", _to_decimal(self.abs_epsilon, "abs_epsilon"))
        object.__setattr__(self, "normalise", STRING_MODES[self.strings])

    @property
    def tolerant(self) -> bool:
        """True when reals are matched within a tolerance rather than exactly."""
        return self.exact_epsilon != 0 or self.exact_abs_epsilon != 0

    def match(self, canonical: Value, system: Value) -> bool:
        """True iff ``system`` matches ``canonical`` under this rule."""
        if type(canonical) is not type(system):
            return False
        if isinstance(canonical, Number) and isinstance(system, Number):
            if not (canonical.is_real or system.is_real):
                return canonical.value == system.value
            return self.numbers_close(canonical.value, system.value)
        if isinstance(canonical, String) and isinstance(system, String):
            normalise = self.normalise
            return normalise(canonical.text) == normalise(system.text)
        return canonical == system

    def numbers_close(self, canonical: int | Decimal, system: int | Decimal) -> bool:
        """The epsilon test on two numeric values, exactly (see ``within_epsilon`` and, for
        the absolute floor, ``within_absolute``).

        >>> MatchRule(abs_epsilon="1e-9").numbers_close(Decimal("0.0"), Decimal("1e-17"))
        True
        """
        canonical, system = Decimal(canonical), Decimal(system)
        if within_epsilon(canonical, system, self.exact_epsilon):
            return True
        return bool(self.exact_abs_epsilon) and within_absolute(canonical, system, self.exact_abs_epsilon)

    def allowed(self, canonical: int | Decimal) -> Decimal:
        """The largest difference a system number may have from ``canonical``:
        ``max(|canonical| * epsilon, abs_epsilon)``, exactly.

        >>> MatchRule(epsilon="0.01", abs_epsilon="0.5").allowed(Decimal(100)), MatchRule(abs_epsilon="0.5").allowed(0)
        (Decimal('1.00'), Decimal('0.5'))
        """
        relative = EXACT.multiply(Decimal(canonical).copy_abs(), self.exact_epsilon)
        return max(relative, self.exact_abs_epsilon)

    def window(
        self, value: Decimal, *, canonical: bool, magnitude: Decimal | None = None
    ) -> tuple[Decimal, Decimal] | None:
        """``tolerance_window`` under this rule's epsilon and absolute floor."""
        return tolerance_window(
            value, self.exact_epsilon, canonical=canonical, magnitude=magnitude, abs_epsilon=self.exact_abs_epsilon
        )

    def key(self, value: Value) -> object:
        """A hashable key such that, for values that are not reals compared with tolerance,
        ``match(a, b)`` iff ``key(a) == key(b)``: a number's ``int`` or ``Decimal``, a
        string's normalised text, a date's ``datetime.date``, any other value itself (a
        date-time or a time equals another at the same instant; keys of different types
        never compare equal, so different types keep different keys)."""
        if isinstance(value, (Number, Date)):
            return value.value
        if isinstance(value, String):
            return self.normalise(value.text)
        return value

    def keys(self, values: Iterable[Value], kinds: Set[type] | None = None) -> list:
        """``key`` of each value, with C-level maps when all are strings or all numbers
        (``kinds``, when the caller has it, is the set of the values' types).

        >>> MatchRule(strings="fold").keys([String(" A"), String("a")])
        ['a', 'a']
        """
        values = values if isinstance(values, (list, tuple)) else list(values)
        if kinds is None:
            kinds = set(map(type, values))
        if kinds == {String}:
            texts = map(_text, values)
            return list(texts if self.strings == "exact" else map(self.normalise, texts))
        if kinds in ({Number}, {Date}):
            return list(map(_value, values))
        if kinds in ({DateTime}, {Time}):
            return list(values)  # their own keys
        return list(map(self.key, values))

    def keyed(self, values: Sequence[Value]) -> KeyedColumn:
        """A column of typed values as the search sees it.

        >>> column = MatchRule().keyed([Number.of(2), Number.of(2.5)])
        >>> column.kinds == {Number}, column.reals, column.keys
        (True, True, [2, Decimal('2.5')])
        """
        kinds = frozenset(map(type, values))
        if kinds == {Number}:
            reals = any(map(_is_real, values))
        else:
            reals = Number in kinds and any(isinstance(value, Number) and value.is_real for value in values)
        return KeyedColumn(kinds, reals, self.keys(values, kinds))

    def keyed_plain(
        self, values: Sequence[object], plain_types: Set[type] | None = None, bounds: tuple | None = None
    ) -> KeyedColumn | None:
        """``keyed`` of the typed values a column of plain values (None, int, float, str: as
        SQLite returns them) stands for, without making them: the same types and reals, and
        keys equal exactly where those of the typed values are (a real's key is its float,
        not the decimal it prints as: equal floats print alike, and floats order as their
        decimals do). None where that does not hold or the typed column would be refused:
        another type, a real that is not finite or of magnitude 2**53 or more (there its
        decimal is rounded, and an int could equal one and not the other), a column mixing types.
        ``plain_types`` (the set of the values' types) and ``bounds`` (the smallest and the
        largest value of a column without NULLs), when the caller has them, are not found again.

        >>> rule = MatchRule(strings="fold")
        >>> rule.keyed_plain([2, None, 2.5]).keys, rule.keyed_plain([" A", "a"]).keys
        ([2, None, 2.5], ['a', 'a'])
        >>> rule.keyed_plain([1, "a"]), rule.keyed_plain([float("inf")]), rule.keyed_plain([b"x"])
        (None, None, None)
        """
        plain = frozenset(map(type, values)) if plain_types is None else frozenset(plain_types)
        if type(None) in plain:
            bounds = None
        try:
            kinds = frozenset(map(_PLAIN_KINDS.__getitem__, plain))
        except KeyError:
            return None
        if len(kinds - {Nil}) > 1:
            return None
        reals = float in plain
        if reals:
            floats = values if plain == {float} else [value for value in values if type(value) is float]
            if not all(map(math.isfinite, floats)):  # type: ignore[arg-type]
                return None
            pure = bounds is not None and plain == {float}  # the bounds are the floats'
            largest = max(-bounds[0], bounds[1]) if pure else max(map(abs, floats))  # type: ignore[arg-type, index]
            if largest >= _FLOATS_PRINTED_EXACTLY:
                return None
        keys = values if isinstance(values, list) else list(values)
        if str in plain and self.strings != "exact":
            normalise = self.normalise
            keys = list(map(normalise, keys)) if plain == {str} else [_normalised(value, normalise) for value in keys]
            bounds = None  # the values', not the keys'
        return KeyedColumn(kinds, reals, keys, bounds)

    def describe(self) -> dict[str, str]:
        """The options of this rule as they appear in a signature.

        ``abs_epsilon`` appears only when set, so signatures made without it are unchanged.

        >>> MatchRule(epsilon=1e-4).describe()
        {'epsilon': '0.0001', 'strings': 'exact'}
        >>> MatchRule(abs_epsilon=1e-9).describe()
        {'epsilon': '0.0001', 'strings': 'exact', 'abs_epsilon': '0.000000001'}
        """
        described = {"epsilon": format_epsilon(self.exact_epsilon), "strings": self.strings}
        if self.exact_abs_epsilon:
            described["abs_epsilon"] = format_epsilon(self.exact_abs_epsilon)
        return described


def _normalised(value: object, normalise: Callable[[str], str]) -> object:
    return normalise(value) if type(value) is str else value


def format_epsilon(epsilon: Decimal | float | str) -> str:
    """An epsilon as a signature shows it: plain decimal notation, no trailing zeros.

    >>> format_epsilon(Decimal("1E-4")), format_epsilon(0.5)
    ('0.0001', '0.5')
    """
    value = epsilon if isinstance(epsilon, Decimal) else _to_decimal(epsilon)
    return format(EXACT.normalize(value), "f")


# Figures in explanations: plain notation for exponents within this many places of the
# point and at most this many characters, scientific beyond (1e999996 is not shown as a
# million digits, nor 40 digits after 30 zeros), and at most this many significant digits.
_PLAIN_PLACES = 30
_PLAIN_CHARS = 45
_SHOWN_DIGITS = 40
_SHOWN = Context(prec=_SHOWN_DIGITS, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])


def format_figure(value: Decimal, *, normalise: bool = False) -> str:
    """A number in an explanation: as ``str`` gives it (without trailing zeros when
    ``normalise``), in plain notation near the point and scientific notation far from it or
    where plain notation would be long; rounded to 40 significant digits (and trailing zeros
    dropped) with ``about`` before it when it has more.

    >>> format_figure(Decimal("9.10")), format_figure(Decimal("5.3200"), normalise=True)
    ('9.10', '5.32')
    >>> format_figure(Decimal("1E+999996"), normalise=True), format_figure(Decimal(2 ** 200))
    ('1E+999996', 'about 1.606938044258990275541962092341162602522E+60')
    >>> format_figure(Decimal("1" + "0" * 60 + ".5"))
    'about 1E+60'
    >>> format_figure(Decimal("1." + "2" * 45 + "E-30"))
    'about 1.222222222222222222222222222222222222222E-30'
    """
    prefix = ""
    if _digits(value) > _SHOWN_DIGITS:
        value, prefix = _SHOWN.normalize(value), "about "
    elif normalise:
        value = EXACT.normalize(value)
    if -_PLAIN_PLACES <= value.adjusted() <= _PLAIN_PLACES:
        plain = format(value, "f")
        if len(plain) <= _PLAIN_CHARS:
            return prefix + plain
    return prefix + str(value)
