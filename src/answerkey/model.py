"""The typed answer model: values, relations and answers.

Everything answerkey reads (CAS text, JSON rows, SPARQL results, SQL rows) becomes these
objects, and everything it computes (verdicts, metrics) reads them. They are immutable and
hashable.

>>> rel = Relation.from_rows([[1, "SMITH"], [2, "JONES"]])
>>> rel.arity, len(rel)
(2, 2)
>>> Relation.from_rows([[2, "JONES"], [1, "SMITH"]]) == rel
True
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import Enum
from itertools import groupby, repeat
from typing import Any, cast

__all__ = [
    "Boolean",
    "Number",
    "String",
    "Date",
    "DateTime",
    "Time",
    "DATETIME_PATTERN",
    "TIME_PATTERN",
    "Nil",
    "NIL",
    "Failure",
    "FailureKind",
    "Value",
    "Relation",
    "RelationKey",
    "rows_of",
    "Alternatives",
    "NoAnswer",
    "NO_ANSWER",
    "Answer",
    "value_of",
    "type_name",
]


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


class FailureKind(Enum):
    """The two kinds of presupposition failure of H89-2019 section 3.3."""

    CONTINGENT = "contingent-failure"
    NECESSARY = "necessary-failure"


@dataclass(frozen=True, slots=True)
class Failure:
    """A presupposition-failure token (an extension atom)."""

    kind: FailureKind


Value = Boolean | Number | String | Date | DateTime | Time | Nil | Failure

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


def value_of(obj: object) -> Value:
    """Map a Python, NumPy or pandas value to a typed value: the one conversion every entry
    point uses (``Relation.from_rows``, the table metrics, the adapters).

    - ``None``, a NaN (float, NumPy float or ``Decimal``; pandas writes missing numbers as NaN),
      pandas ``NA`` and ``NaT``, NumPy ``NaT`` → nil;
    - ``bool``, ``numpy.bool_`` → boolean (never a number);
    - ``int``, NumPy integers → integer; ``float``, NumPy floats (widened exactly to 64 bits),
      ``Decimal`` → real (infinities raise ``ValueError``);
    - ``str``, ``numpy.str_`` → string;
    - ``datetime.date``, ``datetime64`` in days (or weeks, months, years: their first day) →
      date;
    - ``datetime.datetime``, pandas ``Timestamp``, ``datetime64`` in hours or finer, even at
      midnight → ``DateTime``: naive ones naive, time-zone-aware ones with their UTC offset at
      that moment, nanoseconds kept (pandas, NumPy); NumPy's finer units refuse a value with
      digits below the nanosecond (``ValueError``);
    - ``datetime.time`` → ``Time`` (with its offset, when its zone has a fixed one);
    - complex numbers, byte strings, durations, arrays and anything else raise ``TypeError``.

    NumPy and pandas are recognised by type, never imported here.

    >>> value_of(None) is NIL, value_of(True), value_of("x")
    (True, Boolean(value=True), String(text='x'))
    >>> value_of(float("nan")) is NIL, value_of(2.5)
    (True, Number(value=Decimal('2.5'), is_real=True, text='2.5'))
    >>> tz = _dt.timezone(_dt.timedelta(hours=1))
    >>> value_of(_dt.datetime(2020, 1, 1, 12, tzinfo=tz)), value_of(_dt.time(10, 30))
    (DateTime.parse('2020-01-01T12:00:00+01:00'), Time.parse('10:30:00'))
    """
    kind = type(obj)
    # The plain Python types first, by exact type: this runs once per cell of every table.
    if kind is str:
        return String(cast(str, obj))
    if obj is None:
        return NIL
    if kind is int:
        return Number(cast(int, obj), False, str(obj))
    if kind is float:
        return NIL if obj != obj else Number.of(cast(float, obj))  # NaN is nil
    if kind is bool:
        return Boolean(cast(bool, obj))
    if isinstance(obj, (Boolean, Number, String, Date, DateTime, Time, Nil, Failure)):
        return obj
    module = kind.__module__
    if module.startswith("numpy"):
        return _numpy_value(obj)
    if module.startswith("pandas") and kind.__name__ in ("NAType", "NaTType"):
        return NIL  # NaT is a datetime subclass: caught before the datetimes below
    # Subclasses (IntEnum, StrEnum, ...) as their plain values, so texts never show a class name.
    if isinstance(obj, int):
        return Number.of(int(obj))
    if isinstance(obj, float):
        return value_of(float(obj))
    if isinstance(obj, Decimal):
        return NIL if obj.is_nan() else Number.of(obj)
    if isinstance(obj, str):
        return String(str.__str__(obj))
    if isinstance(obj, _dt.datetime):
        # pandas' Timestamp holds its nanoseconds apart (a datetime subclass keeps microseconds).
        return DateTime(obj, getattr(obj, "nanosecond", 0))
    if isinstance(obj, _dt.date):
        return Date(obj if kind is _dt.date else _dt.date(obj.year, obj.month, obj.day))
    if isinstance(obj, _dt.time):
        return Time(obj)
    raise TypeError(_refusal(obj))


# datetime64 units finer than Python's microsecond: the digits they add below it.
_FINER_UNITS = {"ns": 3, "ps": 6, "fs": 9, "as": 12}


def _numpy_value(obj: Any) -> Value:
    """A NumPy scalar's typed value, read by its dtype (NumPy is not imported)."""
    dtype = getattr(obj, "dtype", None)
    if dtype is None or any(cls.__name__ == "ndarray" for cls in type(obj).__mro__):
        raise TypeError(_refusal(obj))
    kind = dtype.kind
    if kind == "b":
        return Boolean(bool(obj))
    if kind in "iu":
        return Number.of(int(obj))
    if kind == "f":
        return value_of(float(obj))  # float16/32 widen exactly; longdouble rounds to 64 bits
    if kind == "U":
        return String(str(obj))
    if kind == "M":
        return _datetime64_value(obj, dtype.name)
    raise TypeError(_refusal(obj))


def _datetime64_value(obj: Any, name: str) -> Value:
    """A ``datetime64`` by its unit: days and coarser are dates, finer units date-times."""
    moment = obj.item()  # None for NaT; a date or datetime when Python can hold it; else a count
    if moment is None:
        return NIL
    unit = name.partition("[")[2].rstrip("]")
    step = unit.rstrip("YMWDhmsunpfa")
    unit = unit[len(step) :]
    if isinstance(moment, _dt.datetime):
        return DateTime(moment)
    if isinstance(moment, _dt.date):
        return Date(moment)
    if unit in _FINER_UNITS:
        digits = _FINER_UNITS[unit]
        microseconds, finer = divmod(moment * int(step or 1), 10**digits)
        nanoseconds, below = divmod(finer, 10 ** (digits - 3))
        if below:
            raise ValueError(f"a date-time finer than a nanosecond has no CAS value ({obj})")
        try:
            start = _dt.datetime(1970, 1, 1) + _dt.timedelta(microseconds=microseconds)
        except OverflowError:
            pass
        else:
            return DateTime(start, nanoseconds)
    raise ValueError("a date or time outside the years 1 to 9999 has no CAS value")


def _refusal(obj: Any) -> str:
    """Why ``obj`` has no CAS value, in the user's words (no Python class names)."""
    if isinstance(obj, complex) or getattr(getattr(obj, "dtype", None), "kind", "") == "c":
        return f"a complex number has no CAS value: {complex(obj)}"
    if isinstance(obj, (bytes, bytearray, memoryview)) or getattr(getattr(obj, "dtype", None), "kind", "") == "S":
        return "a byte string has no CAS value (decode it to text first)"
    if isinstance(obj, _dt.timedelta) or getattr(getattr(obj, "dtype", None), "kind", "") == "m":
        return "a duration has no CAS value"
    if any(cls.__name__ == "ndarray" for cls in type(obj).__mro__):
        return "an array has no CAS value (a cell holds one value)"
    if getattr(getattr(obj, "dtype", None), "kind", "") == "V":
        return "a record has no CAS value (a cell holds one value)"
    if isinstance(obj, dict):
        return "a mapping has no CAS value"
    if isinstance(obj, (list, tuple, set, frozenset)):
        return "a list has no CAS value (a cell holds one value)"
    shown = repr(obj)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"no CAS value for {shown} (CAS holds nil, booleans, numbers, strings, dates, date-times and times)"


# The CAS text of an answer, for reprs: set by ``answerkey.grammar.render`` when it is
# imported (it builds on this module, which therefore cannot import it).
CAS_RENDERER: Callable[[Any], str] | None = None

# What a relation's equality compares (``Relation.key``): the set of its tuples, their
# sequence, or with sort keys the key columns and the sequence of tie groups.
RelationKey = (
    frozenset[tuple[Value, ...]]
    | tuple[tuple[Value, ...], ...]
    | tuple[frozenset[int], tuple[frozenset[tuple[Value, ...]], ...]]
)


def _checked_sort_keys(keys: tuple[int, ...], arity: int | None) -> tuple[int, ...]:
    """``Relation``'s ``order_by``, checked: 0-based column indexes, at least one, none twice,
    each below ``arity`` (None: no tuples, nothing to check against)."""
    if not keys:
        raise ValueError("order_by needs at least one column")
    for key in keys:
        if type(key) is not int:
            raise TypeError(f"a sort key is a 0-based column index, not {key!r}")
        if key < 0:
            raise ValueError(f"sort key {key} is not a column index (they count from 0)")
        if arity is not None and key >= arity:
            raise ValueError(f"sort key {key} is not a column index of a relation of {arity} columns")
    if len(set(keys)) != len(keys):
        raise ValueError(f"a sort key is given twice: {keys}")
    return keys


class Relation:
    """A set of equal-arity tuples of values (a list when ``ordered``).

    ``rows`` keeps the tuples as written, duplicates included; equality and hashing ignore
    order and duplicates unless the relation is ordered. ``scalar`` records that the answer
    was written as a bare value rather than ``((value))``.

    ``order_by`` (an extension, CAS ``(ORDERED BY 2 ...)``) orders the relation by sort keys:
    the **0-based** indexes of its key columns, as written (CAS text numbers them from 1). Its
    tuples then form tie groups, the runs of consecutive tuples with equal values in the key
    columns: the groups are in order, the tuples of a group a set (equality compares the key
    columns as a set, and the groups so). ``order_by`` makes the relation ordered; the keys
    are checked against the arity when there are tuples.

    >>> rows = Relation.from_rows([["ADAMS", 40000], ["BAKER", 40000], ["CLARK", 52000]]).rows
    >>> by_salary = Relation(rows, order_by=[1])
    >>> by_salary
    Relation((ORDERED BY 2 ("ADAMS" 40000) ("BAKER" 40000) ("CLARK" 52000)))
    >>> by_salary == Relation([rows[1], rows[0], rows[2]], order_by=[1])
    True
    >>> by_salary == Relation([rows[2], rows[0], rows[1]], order_by=[1])
    False
    """

    __slots__ = ("rows", "arity", "ordered", "scalar", "order_by", "_key", "_hash")

    rows: tuple[tuple[Value, ...], ...]
    arity: int
    ordered: bool
    scalar: bool
    order_by: tuple[int, ...] | None
    _key: RelationKey | None
    _hash: int | None

    def __init__(
        self,
        rows: Iterable[Sequence[Value]] = (),
        *,
        ordered: bool = False,
        scalar: bool = False,
        order_by: Iterable[int] | None = None,
    ) -> None:
        checked_rows: tuple[tuple[Value, ...], ...] = tuple(tuple(row) for row in rows)
        arity = len(checked_rows[0]) if checked_rows else 0
        column_types: list[str | None] = [None] * arity
        for index, row in enumerate(checked_rows):
            if len(row) != arity or not row:
                raise ValueError(f"tuple {index + 1} has {len(row)} values; expected {arity}")
            for column, value in enumerate(row):
                kind = type_name(value)
                if kind is None:
                    if not isinstance(value, Nil):
                        raise TypeError(f"not a CAS value: {value!r}")
                    continue
                if column_types[column] is None:
                    column_types[column] = kind
                elif column_types[column] != kind:
                    raise ValueError(
                        f"tuple {index + 1}, column {column + 1}: a {kind} in a column of {column_types[column]}s"
                    )
        if scalar and (len(checked_rows) != 1 or arity != 1):
            raise ValueError("a scalar is exactly one tuple of one value")
        keys = None if order_by is None else _checked_sort_keys(tuple(order_by), arity if checked_rows else None)
        if keys is not None and scalar:
            raise ValueError("a scalar has no sort keys")
        self._init(checked_rows, arity, ordered or keys is not None, scalar, keys)

    @classmethod
    def checked(
        cls,
        rows: tuple[tuple[Value, ...], ...],
        arity: int,
        *,
        ordered: bool = False,
        scalar: bool = False,
        order_by: tuple[int, ...] | None = None,
    ) -> Relation:
        """A relation of ``rows`` built without validating them again: for readers that have
        already checked that every row is a tuple of ``arity`` values and that each column
        holds one type (and nil). The parsers and adapters build every relation this way;
        anything else should call ``Relation(rows)``, which checks. ``order_by``: 0-based key
        columns, distinct and below ``arity`` (checked by the caller); it makes the relation
        ordered.

        >>> Relation.checked(((Number.of(1),),), 1) == Relation.from_rows([[1]])
        True
        """
        relation = cls.__new__(cls)
        relation._init(rows, arity, ordered or order_by is not None, scalar, order_by)
        return relation

    def _init(
        self,
        rows: tuple[tuple[Value, ...], ...],
        arity: int,
        ordered: bool,
        scalar: bool,
        order_by: tuple[int, ...] | None = None,
    ) -> None:
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "arity", arity)
        object.__setattr__(self, "ordered", ordered)
        object.__setattr__(self, "scalar", scalar)
        object.__setattr__(self, "order_by", order_by)
        object.__setattr__(self, "_key", None)
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name, value):
        raise AttributeError("Relation is immutable")

    def __delattr__(self, name):
        raise AttributeError("Relation is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling (results sent back by worker processes) cannot set attributes one by one.
        return (_unpickled_relation, (self.rows, self.arity, self.ordered, self.scalar, self.order_by))

    @classmethod
    def from_rows(cls, rows: object, *, ordered: bool = False) -> Relation:
        """Build a relation from rows of Python, NumPy or pandas values, each read by
        ``value_of`` (NaN, ``pd.NA`` and ``NaT`` are nil; ``ValueError`` / ``TypeError`` for
        a value without a CAS reading or a column of mixed types).

        ``rows`` is a table as ``rows_of`` reads it: lists, tuples, NumPy rows of ``df.values``
        (which turns a frame of integers and floats into floats only),
        ``df.itertuples(index=False)`` (which keeps each column's type), or a DataFrame itself
        (read without its index). Plain ``df.itertuples()`` yields the index first, and so
        makes it the first column; a string is not a row.

        >>> import datetime
        >>> Relation.from_rows([(1, float("nan"), datetime.date(1989, 7, 4))]).rows
        ((Number(value=1, is_real=False, text='1'), Nil(), Date(value=datetime.date(1989, 7, 4))),)
        """
        return cls(([value_of(v) for v in row] for row in rows_of(rows)), ordered=ordered)

    @classmethod
    def of_scalar(cls, value: object) -> Relation:
        """A scalar answer: one tuple of one value that remembers it was written bare; the
        value is read by ``value_of``, as in ``from_rows``.

        >>> from decimal import Decimal
        >>> Relation.of_scalar(Decimal("2.50")).rows
        ((Number(value=Decimal('2.50'), is_real=True, text='2.50'),),)
        """
        return cls([[value_of(value)]], scalar=True)

    @property
    def key(self) -> RelationKey:
        """What equality compares: the set of tuples; the tuple sequence if ordered; with sort
        keys, the set of key columns and the sequence of tie groups, each a set of tuples."""
        key = self._key
        if key is None:
            if self.order_by is not None:
                key = (frozenset(self.order_by), tuple(map(frozenset, self._tie_groups())))
            else:
                key = self.rows if self.ordered else frozenset(self.rows)
            object.__setattr__(self, "_key", key)
        return key

    def _tie_groups(self) -> list[tuple[tuple[Value, ...], ...]]:
        """The runs of consecutive tuples with equal values in the sort-key columns."""
        columns = self.order_by or ()
        return [tuple(run) for _, run in groupby(self.rows, key=lambda row: tuple(row[c] for c in columns))]

    @property
    def columns(self) -> list[tuple[Value, ...]]:
        """The relation's columns, each as a tuple of values in row order."""
        return [tuple(row[i] for row in self.rows) for i in range(self.arity)]

    def distinct_rows(self) -> list[tuple[Value, ...]]:
        """The tuples without duplicates, in first-occurrence order."""
        return list(dict.fromkeys(self.rows))

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[tuple[Value, ...]]:
        return iter(self.rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Relation):
            return NotImplemented
        return self.ordered == other.ordered and self.scalar == other.scalar and self.key == other.key

    def __hash__(self) -> int:
        cached = self._hash
        if cached is None:
            cached = hash((self.ordered, self.scalar, self.key))
            object.__setattr__(self, "_hash", cached)
        return cached

    def __repr__(self) -> str:
        if CAS_RENDERER is not None:
            return f"Relation({CAS_RENDERER(self)})"
        keys = "" if self.order_by is None else f", order_by={self.order_by}"
        return f"Relation({self.rows!r}, ordered={self.ordered}, scalar={self.scalar}{keys})"


def _unpickled_relation(
    rows: tuple[tuple[Value, ...], ...], arity: int, ordered: bool, scalar: bool, order_by: tuple[int, ...] | None
) -> Relation:
    return Relation.checked(rows, arity, ordered=ordered, scalar=scalar, order_by=order_by)


def rows_of(table: object) -> Sequence[Sequence[object]]:
    """The rows of a table of Python values; ``TypeError`` if it is not one.

    A table is a ``Relation``, any iterable of rows (lists, tuples, NumPy arrays such as
    ``df.values``, ``df.itertuples(index=False)``), or a pandas DataFrame, read as
    ``df.itertuples(index=False)``: its index is not part of the table. Rows are taken as
    given: ``df.itertuples()`` with its index puts the index in the first column.

    >>> rows_of([(1, "a")]), rows_of(((2,),))
    ([(1, 'a')], [(2,)])
    >>> rows_of("ab")
    Traceback (most recent call last):
    TypeError: a table is a list of rows, not a string
    >>> rows_of(["ab"])
    Traceback (most recent call last):
    TypeError: a row is a list of cells, not a string
    """
    if isinstance(table, Relation):
        return table.rows
    kind = type(table)
    if kind.__name__ == "DataFrame" and kind.__module__.startswith("pandas"):
        return list(cast(Any, table).itertuples(index=False, name=None))
    if isinstance(table, (str, bytes)) or not isinstance(table, Iterable):
        raise TypeError(f"a table is a list of rows, not {_shown_kind(table)}")
    rows = list(table)
    for row in rows:
        if (
            type(row) is not list
            and type(row) is not tuple
            and (isinstance(row, (str, bytes)) or not isinstance(row, Iterable))
        ):
            raise TypeError(f"a row is a list of cells, not {_shown_kind(row)}")
    return rows


def _shown_kind(obj: object) -> str:
    # What a non-table is called in messages (never a class name).
    return "a string" if isinstance(obj, str) else "a byte string" if isinstance(obj, bytes) else "one value"


@dataclass(frozen=True, slots=True)
class Alternatives:
    """``(A OR B ...)``: a canonical answer with several acceptable readings (ATIS v2)."""

    options: tuple[Relation, ...]

    def __post_init__(self) -> None:
        if len(self.options) < 2:
            raise ValueError("alternatives need at least two answers")


@dataclass(frozen=True, slots=True)
class NoAnswer:
    """``NO_ANSWER``: the system declined to answer. Never matches anything."""


NO_ANSWER = NoAnswer()

Answer = Relation | Alternatives | NoAnswer
