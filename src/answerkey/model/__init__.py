"""The typed answer model: values, relations and answers.

Everything answerkey reads (CAS text, JSON rows, SPARQL results, SQL rows) becomes these
objects, and everything it computes (verdicts, metrics) reads them. They are immutable and
hashable.

>>> rel = Relation.from_rows([[1, "SMITH"], [2, "JONES"]])
>>> rel.arity, len(rel)
(2, 2)
>>> Relation.from_rows([[2, "JONES"], [1, "SMITH"]]) == rel
True

This module holds the relations and answers; the values are in ``_values`` and the
conversion of Python, NumPy and pandas values in ``_python``, both re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any, cast

from answerkey.model._python import value_of
from answerkey.model._values import (
    DATETIME_PATTERN as DATETIME_PATTERN,
    NIL,
    TIME_PATTERN as TIME_PATTERN,
    Boolean,
    Date,
    DateTime,
    Failure,
    FailureKind,
    Nil,
    Number,
    String,
    Time,
    Value,
    type_name,
)

__all__ = [
    "Boolean",
    "Number",
    "String",
    "Date",
    "DateTime",
    "Time",
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
]


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
"""The one ``NoAnswer``: the system declined to answer (``no_answer`` in CAS)."""

Answer = Relation | Alternatives | NoAnswer
"""What an answer file holds: a relation, alternatives (canonical only) or ``NO_ANSWER``."""
