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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import Enum
from itertools import groupby
from typing import Any, cast

__all__ = [
    "Boolean",
    "Number",
    "String",
    "Date",
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


@dataclass(frozen=True, slots=True)
class String:
    """A case-sensitive string."""

    text: str

    def __hash__(self) -> int:
        return hash(self.text)  # str caches its own hash; equality still checks the type


@dataclass(frozen=True, slots=True)
class Date:
    """A calendar date, compared by value whatever its spelling."""

    value: _dt.date

    def __hash__(self) -> int:
        return hash(self.value)


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


Value = Boolean | Number | String | Date | Nil | Failure

_TYPE_NAMES = {Boolean: "boolean", Number: "number", String: "string", Date: "date", Failure: "failure"}


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
      midnight → a string of the ISO date-time, as the SPARQL adapter writes ``xsd:dateTime``
      (the model has no date-time): time-zone-aware ones in UTC with ``Z``, digits below the
      microsecond kept (``2020-01-01T12:00:00.000000001``);
    - complex numbers, byte strings, durations, arrays and anything else raise ``TypeError``.

    NumPy and pandas are recognised by type, never imported here.

    >>> value_of(None) is NIL, value_of(True), value_of("x")
    (True, Boolean(value=True), String(text='x'))
    >>> value_of(float("nan")) is NIL, value_of(2.5)
    (True, Number(value=Decimal('2.5'), is_real=True, text='2.5'))
    >>> tz = _dt.timezone(_dt.timedelta(hours=1))
    >>> value_of(_dt.datetime(2020, 1, 1, 12, tzinfo=tz))
    String(text='2020-01-01T11:00:00Z')
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
    if isinstance(obj, (Boolean, Number, String, Date, Nil, Failure)):
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
        return String(_date_time_text(obj, _finer_digits(getattr(obj, "nanosecond", 0), 3)))
    if isinstance(obj, _dt.date):
        return Date(obj if kind is _dt.date else _dt.date(obj.year, obj.month, obj.day))
    raise TypeError(_refusal(obj))


def _date_time_text(moment: _dt.datetime, finer: str = "") -> str:
    """The ISO text of a date-time as the SPARQL adapter writes ``xsd:dateTime``: aware ones
    in UTC with ``Z``; ``finer`` holds the digits below the microsecond (pandas, NumPy)."""
    # A plain datetime: pandas' Timestamp prints itself differently.
    plain = _dt.datetime(
        *(moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second, moment.microsecond),
        tzinfo=moment.tzinfo,
        fold=moment.fold,
    )
    zone = ""
    if plain.utcoffset() is not None:
        try:
            plain = plain.astimezone(_dt.UTC)
        except OverflowError:  # 0001-01-01T00:00:00+01:00 has no UTC time in Python's range
            return plain.isoformat()
        zone = "Z"
    return plain.replace(tzinfo=None).isoformat(timespec="microseconds" if finer else "auto") + finer + zone


def _finer_digits(count: int, digits: int) -> str:
    """``count`` units of ``10**-digits`` of a microsecond as digits, trailing ``000`` groups
    dropped: ``_finer_digits(1, 3)`` is ``"001"``; zero is ``""``."""
    text = f"{count:0{digits}d}" if count else ""
    while text.endswith("000"):
        text = text[:-3]
    return text


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
        return String(_date_time_text(moment))
    if isinstance(moment, _dt.date):
        return Date(moment)
    if unit in _FINER_UNITS:
        digits = _FINER_UNITS[unit]
        microseconds, finer = divmod(moment * int(step or 1), 10**digits)
        try:
            start = _dt.datetime(1970, 1, 1) + _dt.timedelta(microseconds=microseconds)
        except OverflowError:
            pass
        else:
            return String(_date_time_text(start, _finer_digits(finer, digits)))
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
    return f"no CAS value for {shown} (CAS holds nil, booleans, numbers, strings and dates)"


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
