"""The typed values of the model (``answerkey.model``): booleans, numbers, strings, dates,
date-times, times, nil and failure tokens, immutable and hashable.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import Enum
from itertools import repeat
from typing import Any


def _built(cls: type, count: int, **fields: Iterable[Any]) -> list[Any]:
    """``count`` instances of the frozen slotted dataclass ``cls``, each slot set from its
    iterable in ``fields`` (every slot must be given). A frozen dataclass's ``__init__`` sets
    each field through ``object.__setattr__`` in Python, about 0.7 us a value; here each slot
    is set through its descriptor in a C-level loop, for the millions of values a large SQL
    result has. No checks run: the values must be what the constructor would have stored."""
    instances: list[Any] = list(map(object.__new__, repeat(cls, count)))
    for name, values in fields.items():
        # deque(maxlen=0) runs the map to its end in C (each descriptor call returns None).
        deque(map(getattr(cls, name).__set__, instances, values), maxlen=0)
    return instances


@dataclass(frozen=True, slots=True)
class Boolean:
    """``true`` / ``false`` (ATIS ``yes`` / ``no``)."""

    value: bool


@dataclass(frozen=True, slots=True)
class Number:
    """An integer or a real; remembers the text it was written as.

    Integers hold an ``int``, reals an exact ``Decimal``. Equality is by kind and value
    (``5.`` equals ``5.0`` but not ``5``); the text only affects printing.

    >>> Number.parse("5.").is_real, Number.parse("5.") == Number.parse("5.0")
    (True, True)
    >>> Number.of(3).text, Number.of(2.5).text
    ('3', '2.5')
    """

    value: int | Decimal
    is_real: bool
    text: str = field(compare=False)
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        # Cached: the comparator and the metrics hash the same values many times.
        cached = self._hash
        if cached is None:
            cached = hash((self.value, self.is_real))
            object.__setattr__(self, "_hash", cached)
        return cached

    @classmethod
    def parse(cls, text: str) -> Number:
        """Build a number from a CAS numeric literal (raises ``ValueError`` if it is not one)."""
        body = text.lstrip("+-")
        if body.isdigit() and body.isascii():
            return cls(int(text), False, text)
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise ValueError(f"not a number: {text!r}") from None
        if not value.is_finite():
            raise ValueError(f"not a finite number: {text!r}")
        return cls(value, True, text)

    @classmethod
    def of(cls, value: int | float | Decimal) -> Number:
        """Build a number from a Python number (floats become reals printed by ``repr``)."""
        if isinstance(value, bool):
            raise TypeError("a bool is a Boolean, not a Number")
        if isinstance(value, int):
            value = int(value)  # an int subclass (an IntEnum, say) as the plain integer
            return cls(value, False, str(value))
        if isinstance(value, float):
            text = float.__repr__(value)  # a NumPy float's own repr is 'np.float64(0.5)'
            return cls.parse(text if any(c in text for c in ".eEn") else text + ".0")
        if isinstance(value, Decimal):
            if not value.is_finite():
                raise ValueError(f"not a finite number: {value}")
            text = str(value)
            return cls(value, True, text if any(c in text for c in ".eE") else text + ".")
        raise TypeError(f"not a number: {value!r}")

    @classmethod
    def of_ints(cls, values: Sequence[int]) -> list[Number]:
        """``Number.of(v)`` for each ``int`` of ``values`` (plain ints, not bools), built in
        bulk: the adapters' path for a column of a large result, several times faster.

        >>> Number.of_ints([7, -20]) == [Number.of(7), Number.of(-20)]
        True
        """
        return _built(cls, len(values), value=values, is_real=repeat(False), text=map(str, values), _hash=repeat(None))

    @classmethod
    def of_floats(cls, values: Sequence[float]) -> list[Number]:
        """``Number.of(v)`` for each finite float of ``values`` (reals printed by ``repr``),
        built in bulk as ``of_ints``; ``ValueError`` if one is not finite.

        >>> [number.text for number in Number.of_floats([2.5, 1e16, -0.0])]
        ['2.5', '1e+16', '-0.0']
        >>> Number.of_floats([2.5, 0.1]) == [Number.of(2.5), Number.of(0.1)]
        True
        """
        # A finite float's repr is the shortest text that reads back as it, with a "." or an "e".
        texts = list(map(float.__repr__, values))
        if not all(map(math.isfinite, values)):
            raise ValueError(f"not a finite number: {next(t for t in texts if not math.isfinite(float(t)))!r}")
        return _built(cls, len(texts), value=map(Decimal, texts), is_real=repeat(True), text=texts, _hash=repeat(None))


@dataclass(frozen=True, slots=True)
class String:
    """A case-sensitive string."""

    text: str

    def __hash__(self) -> int:
        return hash(self.text)  # str caches its own hash; equality still checks the type

    @classmethod
    def of_texts(cls, texts: Sequence[str]) -> list[String]:
        """``String(text)`` for each of ``texts``, built in bulk as ``Number.of_ints``.

        >>> String.of_texts(["a", "b"])
        [String(text='a'), String(text='b')]
        """
        return _built(cls, len(texts), text=texts)


@dataclass(frozen=True, slots=True)
class Date:
    """A calendar date, compared by value whatever its spelling."""

    value: _dt.date

    def __hash__(self) -> int:
        return hash(self.value)


# The CAS spellings of a date-time and a time of day (ISO 8601 extended format): seconds
# always, a fraction of up to nine digits (``parse`` refuses more), then ``Z``, an offset
# ``+HH:MM`` / ``-HH:MM``, or nothing (a naive value). cas.lark's DATETIME and TIME terminals
# are these patterns with the grammar's lookahead.
TIME_PATTERN = r"[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?"
DATETIME_PATTERN = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T" + TIME_PATTERN
_TIME_TEXT = re.compile(TIME_PATTERN)
_DATETIME_TEXT = re.compile(DATETIME_PATTERN)
_SECONDS_PER_DAY = 86_400


def _fixed_offset(offset: _dt.timedelta) -> _dt.tzinfo:
    """The fixed-offset zone of ``offset`` (UTC itself for zero)."""
    return _dt.UTC if not offset else _dt.timezone(offset)


def _offset_text(offset: _dt.timedelta | None) -> str:
    """``Z`` for UTC, ``+HH:MM`` / ``-HH:MM`` for another offset, nothing for none."""
    if offset is None:
        return ""
    if not offset:
        return "Z"
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def _fraction_text(microsecond: int, nanosecond: int) -> str:
    """The seconds' fraction, ``.5`` for half a second, without trailing zeros; "" for none."""
    nanos = microsecond * 1000 + nanosecond
    return f".{nanos:09d}".rstrip("0") if nanos else ""


def _clock(text: str, whole: str) -> tuple[int, int, int, int, int, _dt.timedelta | None]:
    """Hours, minutes, seconds, microseconds, nanoseconds and UTC offset (None: naive) of the
    time part ``text`` of ``whole`` (a pattern above matched it; ``whole`` names it, as
    ``time 10:30:00``); ``ValueError`` saying what is out of range."""
    hour, minute, second = int(text[0:2]), int(text[3:5]), int(text[6:8])
    if hour > 23:
        raise ValueError(f"no hour {hour} in {whole} (hours run 00-23)")
    if minute > 59:
        raise ValueError(f"no minute {minute} in {whole} (minutes run 00-59)")
    if second > 59:
        raise ValueError(f"no second {second} in {whole} (seconds run 00-59; a leap second has no CAS value)")
    rest = text[8:]
    fraction = ""
    if rest.startswith("."):
        digits = len(rest) - len(rest[1:].lstrip("0123456789"))
        fraction, rest = rest[1:digits], rest[digits:]
        if len(fraction) > 9:
            raise ValueError(f"more than 9 digits after the seconds in {whole} (the finest is a nanosecond)")
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    offset = None
    if rest == "Z":
        offset = _dt.timedelta(0)
    elif rest:
        hours, minutes = int(rest[1:3]), int(rest[4:6])
        if hours > 23 or minutes > 59:
            raise ValueError(f"no UTC offset {rest} in {whole} (offsets run from -23:59 to +23:59)")
        offset = _dt.timedelta(hours=hours, minutes=minutes) * (-1 if rest[0] == "-" else 1)
    return hour, minute, second, nanos // 1000, nanos % 1000, offset


def _whole_minutes(offset: _dt.timedelta | None) -> bool:
    return offset is None or not offset % _dt.timedelta(minutes=1)


def _check_nanosecond(nanosecond: object) -> None:
    if type(nanosecond) is not int or not 0 <= nanosecond <= 999:
        raise ValueError(f"nanosecond must be an integer from 0 to 999, not {nanosecond!r}")


def _hold(
    instance: DateTime | Time, plain: _dt.datetime | _dt.time, offset: _dt.timedelta | None, seconds: int
) -> None:
    """Set a DateTime's or a Time's ``value`` (``plain``) and its ``moment``, from the whole
    ``seconds`` since its origin (in UTC when it has an ``offset``)."""
    object.__setattr__(instance, "value", plain)
    moment = (seconds * 1_000_000 + plain.microsecond) * 1000 + instance.nanosecond
    object.__setattr__(instance, "moment", (offset is not None, moment))


@dataclass(frozen=True, slots=True)
class DateTime:
    """A date and a time of day (SQL ``TIMESTAMP``, ``xsd:dateTime``), naive or with a UTC
    offset; CAS ``1989-07-04T10:30:00Z``, ``1989-07-04T10:30:00.5+02:00``, ``1989-07-04T10:30:00``.

    ``value`` holds it to the microsecond, with its offset as written (a fixed-offset
    ``datetime.timezone``; ``datetime.UTC`` for zero) or none; ``nanosecond`` the digits below
    the microsecond (0-999), as pandas and NumPy keep them. Equality compares ``moment``:
    date-times with offsets are equal when they are the same instant (``10:30:00+02:00``
    equals ``08:30:00Z``); naive ones when they read the same; a naive date-time never equals
    one with an offset (which instant a naive one means depends on a time zone nobody wrote
    down). The offset written only affects printing. Any time zone given is kept as its fixed
    offset at that date-time; one that is not whole minutes (an old local mean time) is
    converted to UTC, as CAS writes offsets in minutes.

    >>> DateTime.parse("1989-07-04T10:30:00+02:00") == DateTime.parse("1989-07-04T08:30:00Z")
    True
    >>> DateTime.parse("1989-07-04T08:30:00") == DateTime.parse("1989-07-04T08:30:00Z")
    False
    >>> DateTime(_dt.datetime(1989, 7, 4, 10, 30, 0, 500000), nanosecond=1)
    DateTime.parse('1989-07-04T10:30:00.500000001')
    """

    value: _dt.datetime = field(compare=False)
    nanosecond: int = field(default=0, compare=False)
    moment: tuple[bool, int] = field(init=False, repr=False)
    """What equality compares, and an order: (has an offset, nanoseconds since
    0001-01-01T00:00:00, in UTC for a date-time with an offset). Sorting by it orders
    date-times with offsets by instant, naive ones by their reading, naive ones first."""

    def __post_init__(self) -> None:
        value = self.value
        if not isinstance(value, _dt.datetime):
            raise TypeError(f"a DateTime holds a datetime, not {value!r}")
        _check_nanosecond(self.nanosecond)
        offset = value.utcoffset()
        if not _whole_minutes(offset):
            try:
                value = value.astimezone(_dt.UTC)
            except OverflowError:
                raise ValueError(
                    f"no CAS value for {value.isoformat()}: its UTC time is outside the years 1 to 9999"
                ) from None
            offset = _dt.timedelta(0)
        # A plain datetime (not pandas' Timestamp) in a fixed-offset zone.
        plain = _dt.datetime(
            *(value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond),
            tzinfo=None if offset is None else _fixed_offset(offset),
        )
        seconds = plain.toordinal() * _SECONDS_PER_DAY + plain.hour * 3600 + plain.minute * 60 + plain.second
        if offset is not None:
            seconds -= int(offset.total_seconds())
        _hold(self, plain, offset, seconds)

    def __hash__(self) -> int:
        return hash(self.moment)

    def __repr__(self) -> str:
        return f"DateTime.parse({self.isoformat()!r})"

    @classmethod
    def parse(cls, text: str) -> DateTime:
        """The date-time of its CAS spelling (``DATETIME_PATTERN``); ``ValueError`` saying
        what is wrong otherwise.

        >>> DateTime.parse("2024-02-30T00:00:00")
        Traceback (most recent call last):
        ValueError: no such date-time: 2024-02-30T00:00:00 (no day 30 in 2024-02)
        """
        if not _DATETIME_TEXT.fullmatch(text):
            raise ValueError(f"not a date-time: {text!r} (CAS writes 1989-07-04T10:30:00, then Z or +HH:MM)")
        year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
        if not 1 <= month <= 12:
            raise ValueError(f"no month {text[5:7]} in date-time {text}")
        if year == 0:
            raise ValueError(f"no year 0 in date-time {text} (years run 0001-9999)")
        hour, minute, second, microsecond, nanosecond, offset = _clock(text[11:], f"date-time {text}")
        try:
            moment = _dt.datetime(year, month, day, hour, minute, second, microsecond)
        except ValueError:
            raise ValueError(f"no such date-time: {text} (no day {text[8:10]} in {text[:7]})") from None
        return cls(moment if offset is None else moment.replace(tzinfo=_fixed_offset(offset)), nanosecond)

    def isoformat(self) -> str:
        """The CAS spelling: ISO 8601, the fraction without trailing zeros, the offset as
        held (``Z`` for UTC).

        >>> DateTime.parse("1989-07-04T10:30:00.500+00:00").isoformat()
        '1989-07-04T10:30:00.5Z'
        """
        value = self.value
        return (
            f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
            + _fraction_text(value.microsecond, self.nanosecond)
            + _offset_text(value.utcoffset())
        )


@dataclass(frozen=True, slots=True)
class Time:
    """A time of day (SQL ``TIME``, ``xsd:time``), naive or with a UTC offset; CAS
    ``10:30:00``, ``10:30:00.25``, ``10:30:00Z``, ``10:30:00-05:00``.

    As ``DateTime``: ``value`` to the microsecond with its offset as written, ``nanosecond``
    below it. Times with offsets are equal when they are the same time of day in UTC, round
    the clock (``10:30:00+02:00`` equals ``08:30:00Z``, ``01:00:00+02:00`` equals
    ``23:00:00Z``); naive ones when they read the same; a naive time never equals one with an
    offset.

    >>> Time.parse("01:00:00+02:00") == Time.parse("23:00:00Z"), Time.parse("10:30:00") == Time.parse("10:30:00Z")
    (True, False)
    """

    value: _dt.time = field(compare=False)
    nanosecond: int = field(default=0, compare=False)
    moment: tuple[bool, int] = field(init=False, repr=False)
    """What equality compares, and an order: (has an offset, nanoseconds since midnight, in
    UTC for a time with an offset)."""

    def __post_init__(self) -> None:
        value = self.value
        if not isinstance(value, _dt.time):
            raise TypeError(f"a Time holds a time, not {value!r}")
        _check_nanosecond(self.nanosecond)
        offset = value.utcoffset()
        if value.tzinfo is not None and offset is None:
            raise ValueError(f"no CAS value for the time {value} in a time zone without a fixed UTC offset")
        seconds = value.hour * 3600 + value.minute * 60 + value.second
        if not _whole_minutes(offset):
            assert offset is not None
            seconds = (seconds - int(offset.total_seconds())) % _SECONDS_PER_DAY
            value = _dt.time(seconds // 3600, seconds // 60 % 60, seconds % 60, value.microsecond)
            offset = _dt.timedelta(0)
        plain = _dt.time(
            value.hour,
            value.minute,
            value.second,
            value.microsecond,
            tzinfo=None if offset is None else _fixed_offset(offset),
        )
        if offset is not None:
            seconds = (seconds - int(offset.total_seconds())) % _SECONDS_PER_DAY
        _hold(self, plain, offset, seconds)

    def __hash__(self) -> int:
        return hash(self.moment)

    def __repr__(self) -> str:
        return f"Time.parse({self.isoformat()!r})"

    @classmethod
    def parse(cls, text: str) -> Time:
        """The time of its CAS spelling (``TIME_PATTERN``); ``ValueError`` saying what is
        wrong otherwise.

        >>> Time.parse("24:00:01")
        Traceback (most recent call last):
        ValueError: no hour 24 in time 24:00:01 (hours run 00-23)
        """
        if not _TIME_TEXT.fullmatch(text):
            raise ValueError(f"not a time: {text!r} (CAS writes 10:30:00, then Z or +HH:MM)")
        hour, minute, second, microsecond, nanosecond, offset = _clock(text, f"time {text}")
        clock = _dt.time(hour, minute, second, microsecond, tzinfo=None if offset is None else _fixed_offset(offset))
        return cls(clock, nanosecond)

    def isoformat(self) -> str:
        """The CAS spelling, as ``DateTime.isoformat``.

        >>> Time.parse("10:30:00.250-05:00").isoformat()
        '10:30:00.25-05:00'
        """
        value = self.value
        return (
            f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
            + _fraction_text(value.microsecond, self.nanosecond)
            + _offset_text(value.utcoffset())
        )


@dataclass(frozen=True, slots=True)
class Nil:
    """A missing value (``NIL``); fits a column of any type."""


NIL = Nil()
"""The one ``Nil``: a missing value (``nil`` in CAS)."""


class FailureKind(Enum):
    """The two kinds of presupposition failure of H89-2019 section 3.3."""

    CONTINGENT = "contingent-failure"
    NECESSARY = "necessary-failure"


@dataclass(frozen=True, slots=True)
class Failure:
    """A presupposition-failure token (an extension atom)."""

    kind: FailureKind


Value = Boolean | Number | String | Date | DateTime | Time | Nil | Failure
"""Any one value of a tuple."""

_TYPE_NAMES = {
    Boolean: "boolean",
    Number: "number",
    String: "string",
    Date: "date",
    DateTime: "datetime",
    Time: "time",
    Failure: "failure",
}


def type_name(value: Value) -> str | None:
    """The column type of a value, or None for nil (which fits any column).

    >>> type_name(Number.of(1)), type_name(NIL)
    ('number', None)
    """
    return _TYPE_NAMES.get(type(value))
