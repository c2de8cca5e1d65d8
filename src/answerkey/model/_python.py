"""Python, NumPy and pandas values as typed values (``answerkey.model.value_of``): the one
conversion every entry point uses.
"""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal
from typing import Any, cast

from answerkey.model._values import NIL, Boolean, Date, DateTime, Failure, Nil, Number, String, Time, Value


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
