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
from typing import Any

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
            return cls(value, False, str(value))
        if isinstance(value, float):
            text = repr(value)
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
    """Map a Python value to a typed value: None → nil, bool, int, float, Decimal, str, date.

    >>> value_of(None) is NIL, value_of(True), value_of("x")
    (True, Boolean(value=True), String(text='x'))
    """
    if obj is None:
        return NIL
    if isinstance(obj, (Boolean, Number, String, Date, Nil, Failure)):
        return obj
    if isinstance(obj, bool):
        return Boolean(obj)
    if isinstance(obj, (int, float, Decimal)):
        return Number.of(obj)
    if isinstance(obj, str):
        return String(obj)
    if isinstance(obj, _dt.datetime):
        return String(obj.isoformat())
    if isinstance(obj, _dt.date):
        return Date(obj)
    raise TypeError(f"no CAS value for {type(obj).__name__}: {obj!r}")


# The CAS text of an answer, for reprs: set by ``answerkey.grammar.render`` when it is
# imported (it builds on this module, which therefore cannot import it).
CAS_RENDERER: Callable[[Any], str] | None = None


class Relation:
    """A set of equal-arity tuples of values (a list when ``ordered``).

    ``rows`` keeps the tuples as written, duplicates included; equality and hashing ignore
    order and duplicates unless the relation is ordered. ``scalar`` records that the answer
    was written as a bare value rather than ``((value))``.
    """

    __slots__ = ("rows", "arity", "ordered", "scalar", "_key", "_hash")

    rows: tuple[tuple[Value, ...], ...]
    arity: int
    ordered: bool
    scalar: bool
    _key: tuple[tuple[Value, ...], ...] | frozenset[tuple[Value, ...]] | None
    _hash: int | None

    def __init__(
        self,
        rows: Iterable[Sequence[Value]] = (),
        *,
        ordered: bool = False,
        scalar: bool = False,
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
        self._init(checked_rows, arity, ordered, scalar)

    @classmethod
    def checked(
        cls, rows: tuple[tuple[Value, ...], ...], arity: int, *, ordered: bool = False, scalar: bool = False
    ) -> Relation:
        """A relation of ``rows`` built without validating them again: for readers that have
        already checked that every row is a tuple of ``arity`` values and that each column
        holds one type (and nil). The parsers and adapters build every relation this way;
        anything else should call ``Relation(rows)``, which checks.

        >>> Relation.checked(((Number.of(1),),), 1) == Relation.from_rows([[1]])
        True
        """
        relation = cls.__new__(cls)
        relation._init(rows, arity, ordered, scalar)
        return relation

    def _init(self, rows: tuple[tuple[Value, ...], ...], arity: int, ordered: bool, scalar: bool) -> None:
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "arity", arity)
        object.__setattr__(self, "ordered", ordered)
        object.__setattr__(self, "scalar", scalar)
        object.__setattr__(self, "_key", None)
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name, value):
        raise AttributeError("Relation is immutable")

    def __delattr__(self, name):
        raise AttributeError("Relation is immutable")

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[object]], *, ordered: bool = False) -> Relation:
        """Build a relation from rows of Python values (see ``value_of``)."""
        return cls(([value_of(v) for v in row] for row in rows), ordered=ordered)

    @classmethod
    def of_scalar(cls, value: object) -> Relation:
        """A scalar answer: one tuple of one value that remembers it was written bare."""
        return cls([[value_of(value)]], scalar=True)

    @property
    def key(self) -> tuple[tuple[Value, ...], ...] | frozenset[tuple[Value, ...]]:
        """What equality compares: the tuple sequence if ordered, else the set of tuples."""
        key = self._key
        if key is None:
            key = self.rows if self.ordered else frozenset(self.rows)
            object.__setattr__(self, "_key", key)
        return key

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
        return f"Relation({self.rows!r}, ordered={self.ordered}, scalar={self.scalar})"


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
