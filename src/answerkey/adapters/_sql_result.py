"""What a SQL query gives back, on every engine: ``QueryResult``, its values as the driver gave
them, and the typed rows made from them when first asked for (``answerkey.adapters.sql``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from answerkey.adapters.sqltext import OuterOrder
from answerkey.gc_pause import gc_paused
from answerkey.model import NIL, Number, Relation, String, Value

# Rows are read, sent on by a helper process, and typed in chunks of this many.
CHUNK_ROWS = 10_000
# What every cell of a result counts towards the byte limit, on every engine and whatever its
# value (NULL, a number, a text, a blob): the size of one reference to it, so that the limit
# bounds a result of many empty texts as it does one of many NULLs. A text counts its UTF-8
# length on top, a blob its length; a number or NULL counts this alone.
CELL_BYTES = 8
# The older name: what a number or NULL counts (one cell, nothing on top).
SCALAR_BYTES = CELL_BYTES


class ColumnFacts:
    """The set of the types of a column's driver values, and its smallest and largest value
    while every chunk has held numbers only or texts only, no NULL (None otherwise), found
    chunk by chunk as the rows come in: while a helper reads the next chunk, this process
    would only wait, and the judgement needs them.

    >>> facts = ColumnFacts()
    >>> facts.add([3, 1.5]); facts.add([2]); sorted(kind.__name__ for kind in facts.types), facts.bounds
    (['float', 'int'], (1.5, 3))
    >>> facts.add(["a"]); facts.bounds is None
    True
    """

    __slots__ = ("types", "bounds", "_ordered")

    def __init__(self) -> None:
        self.types: set[type] = set()
        self.bounds: tuple[Any, Any] | None = None
        self._ordered: frozenset[type] | None = None  # the types the bounds are of, while kept

    def add(self, values: Sequence[object]) -> None:
        """Take in the next values of the column."""
        if not values:
            return
        kinds = set(map(type, values))
        first = not self.types
        self.types |= kinds
        ordered = _NUMBERS if kinds <= _NUMBERS else _TEXTS if kinds == _TEXTS else None
        if ordered is None or (not first and ordered is not self._ordered):
            self._ordered, self.bounds = None, None
            return
        low, high = min(values), max(values)  # type: ignore[type-var]
        if first:
            self._ordered, self.bounds = ordered, (low, high)
        elif self.bounds is not None:
            self.bounds = (min(self.bounds[0], low), max(self.bounds[1], high))


# The types a column's bounds are kept for: numbers (ints and floats compare exactly) or texts.
_NUMBERS = frozenset({int, float})
_TEXTS = frozenset({str})


class QueryResult:
    """The rows a query produced (typed values, as SQLite returned them) or its error.

    ``seconds`` is how long the query took, from executing it to reading its last row,
    measured in the process that ran it (opening the database and sending the rows back
    are not counted): what a valid efficiency score compares. None when the query did not
    run to completion. A measurement, not part of the result: equality ignores it.

    A result read from SQLite (or from DuckDB or PostgreSQL, when its values are all plain:
    NULL, integers, finite floats, text) keeps the values as the driver gave them, by column
    (``driver_columns``), and makes its typed ``rows`` from them when they are first asked
    for: a million-row result judged from its driver values never makes its millions of
    typed values (see ``answerkey.execution.semantics``). Immutable, as a frozen dataclass.

    ``outer_order`` is the query's outer ORDER BY as the process that ran it read it, when
    asked (``answerkey.adapters.sql.run_file_each``), else None; like ``seconds``, not part
    of the result (equality, the cache and pickling leave it out).

    >>> result = QueryResult.of_driver_columns(([1, 2], ["a", None]), ("n", "s"))
    >>> result.row_count, result.driver_columns
    (2, ([1, 2], ['a', None]))
    >>> result.rows[1], result.driver_columns
    ((Number(value=2, is_real=False, text='2'), Nil()), None)
    """

    __slots__ = ("_rows", "_driver", "_facts", "_count", "columns", "error", "seconds", "outer_order")

    _rows: tuple[tuple[Value, ...], ...] | None
    _driver: tuple[list[object], ...] | None
    _facts: tuple[ColumnFacts, ...] | None
    _count: int
    columns: tuple[str, ...]
    error: str | None
    seconds: float | None
    outer_order: OuterOrder | None

    def __init__(
        self,
        rows: tuple[tuple[Value, ...], ...] = (),
        columns: tuple[str, ...] = (),
        error: str | None = None,
        seconds: float | None = None,
    ) -> None:
        for name, value in (
            ("_rows", rows),
            ("_driver", None),
            ("_facts", None),
            ("_count", len(rows)),
            ("columns", columns),
            ("error", error),
            ("seconds", seconds),
            ("outer_order", None),
        ):
            object.__setattr__(self, name, value)

    @classmethod
    def of_driver_columns(
        cls,
        driver: tuple[list[object], ...],
        columns: tuple[str, ...],
        seconds: float | None = None,
        count: int = 0,
        facts: tuple[ColumnFacts, ...] | None = None,
        outer_order: OuterOrder | None = None,
    ) -> QueryResult:
        """A result of the values a driver returned, by column, typed as SQLite's are
        (``sql_value``: None, int, float, str, bytes; other engines give only the first four
        here, which they type alike); ``count`` rows when there are no columns; ``facts``,
        each column's, when the reader found them; ``outer_order``, the query's, when read."""
        # Made without __init__ (one result per query run: each slot set once).
        result = object.__new__(cls)
        setattr_ = object.__setattr__
        setattr_(result, "_rows", None)
        setattr_(result, "_driver", driver)
        setattr_(result, "_facts", facts)
        setattr_(result, "_count", len(driver[0]) if driver else count)
        setattr_(result, "columns", columns)
        setattr_(result, "error", None)
        setattr_(result, "seconds", seconds)
        setattr_(result, "outer_order", outer_order)
        return result

    @property
    def rows(self) -> tuple[tuple[Value, ...], ...]:
        """The rows as typed values (made on first use from the driver's values, which
        are then dropped)."""
        rows = self._rows
        if rows is None:
            driver = self._driver
            if driver is None:  # another thread has just made them (it sets them first)
                return self._rows  # type: ignore[return-value]
            with gc_paused():
                typed = TypedRows()
                typed.add_columns(self._count, driver)
                rows = typed.rows()
            object.__setattr__(self, "_rows", rows)
            object.__setattr__(self, "_driver", None)
            object.__setattr__(self, "_facts", None)
        return rows

    def outer_order_of(self, sql: str, dialect: str) -> OuterOrder | None:
        """``outer_order`` when it is the reading of ``sql`` in ``dialect`` (a result may be
        judged against another text than its own, which must then be read again), else None."""
        read = self.outer_order
        return read if read is not None and read.of(sql, dialect) else None

    @property
    def driver_columns(self) -> tuple[list[object], ...] | None:
        """The values as the driver returned them, by column, while the typed rows have not
        been made (None after, and for results typed as they were read)."""
        return self._driver

    @property
    def driver_facts(self) -> tuple[ColumnFacts, ...] | None:
        """What the reader found of each driver column while the rows came in (None when it
        did not, or the driver values are gone)."""
        return self._facts

    @property
    def row_count(self) -> int:
        """The number of rows (without making the typed rows)."""
        return self._count

    @property
    def ok(self) -> bool:
        """True when the query ran to completion."""
        return self.error is None

    def relation(self) -> Relation:
        """The rows as a ``Relation`` (``ValueError`` if the query failed or a column mixes
        types, which SQLite allows)."""
        if self.error is not None:
            raise ValueError(f"the query failed: {self.error}")
        return Relation(self.rows)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a QueryResult is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a QueryResult is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not QueryResult:
            return NotImplemented
        return (self.rows, self.columns, self.error) == (other.rows, other.columns, other.error)

    def __hash__(self) -> int:
        return hash((self.rows, self.columns, self.error))

    def __repr__(self) -> str:
        return (
            f"QueryResult(rows={self.rows!r}, columns={self.columns!r}, error={self.error!r}, seconds={self.seconds!r})"
        )

    def __reduce__(self) -> tuple[type[QueryResult], tuple[object, ...]]:
        return QueryResult, (self.rows, self.columns, self.error, self.seconds)


def sql_value(value: object) -> Value:
    """The typed value of one SQLite value: NULL is nil, a blob its ``X'..'`` literal, and
    infinities (SQLite's ``Inf``) strings, as the typed model has no infinite numbers.

    >>> sql_value(None), sql_value(b"\\x01\\xff"), sql_value(3)
    (Nil(), String(text="X'01FF'"), Number(value=3, is_real=False, text='3'))
    """
    converter = _CONVERTERS.get(type(value))
    if converter is None:
        raise TypeError(f"not an SQLite value: {value!r}")
    return converter(value)


def _real(value: float) -> Value:
    if math.isfinite(value):
        return Number.of(value)
    if math.isnan(value):
        return NIL
    return String("Inf" if value > 0 else "-Inf")


_CONVERTERS: dict[type, Callable[[Any], Value]] = {
    type(None): lambda value: NIL,
    int: lambda value: Number(value, False, str(value)),
    float: _real,
    str: String,
    bytes: lambda value: String(f"X'{value.hex().upper()}'"),
}


# Bulk conversions of a column holding values of one type (and NULLs).
_BULK: dict[type, Callable[[Any], Sequence[Value]]] = {
    int: Number.of_ints,
    float: Number.of_floats,
    str: String.of_texts,
}


class TypedRows:
    """SQLite's values as typed rows (``sql_value`` of each), converted ``CHUNK_ROWS`` rows
    at a time, column by column.

    A column whose values (NULLs aside) have one type is converted in bulk (``Number.of_ints``
    and the like, several times faster than one value at a time), and its values are shared:
    each distinct value is made once, for every row that holds it (a category, a date, a
    quantity: faster again, and much smaller). A column whose chunks, after its first, bring
    mostly values not seen before is not shared any more: its values do not repeat. Other
    columns (SQLite lets a column mix types) are converted one value at a time.

    >>> rows = TypedRows()
    >>> rows.add_columns(2, [(1, 2), ("a", None)])
    >>> rows.rows()
    ((Number(value=1, is_real=False, text='1'), String(text='a')), (Number(value=2, is_real=False, text='2'), Nil()))
    """

    def __init__(self) -> None:
        self._rows: list[tuple[Value, ...]] = []
        # By column and bulk conversion: the values made so far by raw value (None once the
        # column's values are seen not to repeat). By conversion, that is by type, as 1 and
        # 1.0 are one key but two values.
        self._shared: dict[tuple[int, Callable[[Any], Sequence[Value]]], dict[object, Value] | None] = {}

    def add_columns(self, count: int, columns: Sequence[list[object]]) -> None:
        """Convert the next ``count`` rows, given by column, ``CHUNK_ROWS`` at a time."""
        if not columns:
            self._rows.extend(() for _ in range(count))
        for start in range(0, count if columns else 0, CHUNK_ROWS):
            chunk = [self._column(i, values[start : start + CHUNK_ROWS]) for i, values in enumerate(columns)]
            self._rows.extend(zip(*chunk))

    def rows(self) -> tuple[tuple[Value, ...], ...]:
        """The rows converted so far."""
        return tuple(self._rows)

    def _column(self, index: int, values: Sequence[object]) -> Sequence[Value]:
        kinds = set(map(type, values))
        kinds.discard(type(None))
        if len(kinds) == 1:
            kind = kinds.pop()
            bulk = _BULK.get(kind)
            if bulk is not None:
                try:
                    return self._bulk(index, bulk, values)
                except ValueError:
                    pass  # an infinity among the reals: it becomes a string, one value at a time
        convert = _CONVERTERS
        return [convert[type(value)](value) for value in values]

    def _bulk(self, index: int, bulk: Callable[[Any], Sequence[Value]], values: Sequence[object]) -> Sequence[Value]:
        made = self._shared.setdefault((index, bulk), {None: NIL})
        # 0.0 and -0.0 are one key, but two texts: a chunk of reals holding a zero is not shared.
        # (Compared by ==: each reading of Number.of_floats makes a new bound method.)
        if made is not None and not (bulk == Number.of_floats and 0.0 in values):
            new = list(dict.fromkeys(values).keys() - made.keys())
            if len(made) == 1 or len(new) * 2 <= len(values):
                if new:
                    made.update(zip(new, bulk(new)))
                return list(map(made.__getitem__, values))
            self._shared[index, bulk] = None
        if None not in values:
            return bulk(values)
        present = iter(bulk([value for value in values if value is not None]))
        return [NIL if value is None else next(present) for value in values]
