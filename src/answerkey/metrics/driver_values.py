"""Typed values back to the values of a Python database driver, as the official scripts
compare them (BIRD's, Spider's, and soft F1's): ``driver_value`` of one value,
``driver_rows`` of a whole ``QueryResult``; ``same_driver_values`` of two.

>>> from answerkey.model import Relation
>>> driver_rows(QueryResult(rows=Relation.from_rows([[1, 2.5, "x", None]]).rows))
[(1, 2.5, 'x', None)]
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from answerkey.adapters._sql_result import ColumnFacts
from answerkey.adapters.engines import plain_values
from answerkey.adapters.sql import QueryResult
from answerkey.grammar.render import render_value
from answerkey.model import Boolean, Date, Nil, Number, String, Value


@dataclass(frozen=True)
class OtherValue:
    """A value with no Python driver reading here (a model type this module does not know):
    compared by its type and its CAS text, which ``str`` gives."""

    kind: str
    text: str

    def __str__(self) -> str:
        return self.text


def driver_value(value: Value) -> object:
    """The Python value a database driver gives for a typed value, as the official scripts
    compare them: an integer ``int``, a real ``float`` (``sqlite3`` gives REAL as ``float``;
    an exact decimal becomes the nearest ``float``), text ``str``, NIL ``None``, a boolean
    ``bool``, a date ``datetime.date``; a value holding a ``datetime``/``time`` (``value``)
    that; anything else an ``OtherValue`` (its type and CAS text).

    >>> from answerkey.model import NIL
    >>> driver_value(Number.parse("2.50")), driver_value(Number.of(3)), driver_value(NIL), driver_value(String("x"))
    (2.5, 3, None, 'x')
    """
    if isinstance(value, Number):
        return float(value.value) if value.is_real else value.value
    if isinstance(value, String):
        return value.text
    if isinstance(value, Nil):
        return None
    if isinstance(value, (Boolean, Date)):
        return value.value
    inner = getattr(value, "value", None)
    if isinstance(inner, (_dt.date, _dt.time)):
        return inner
    try:
        text = render_value(value)
    except TypeError:
        text = repr(value)
    return OtherValue(type(value).__name__, text)


def driver_rows(result: QueryResult) -> list[tuple[object, ...]]:
    """``driver_value`` of each typed value of the result's rows: its driver values as they
    are where typing them and back changes none (no blob, no infinity), which spares making
    the typed values."""
    plain = result.driver_columns
    if plain is not None and _plain(result):
        return list(zip(*plain)) if plain else [() for _ in range(result.row_count)]
    return [tuple(map(driver_value, row)) for row in result.rows]


def _plain(result: QueryResult) -> bool:
    """Whether the result's driver values (it holds them) are all plain (``plain_values``)."""
    plain = result.driver_columns or ()
    return all(map(_plain_column, plain, result.driver_facts or [None] * len(plain)))


def equal_driver_rows(gold: QueryResult, predicted: QueryResult) -> bool:
    """True when both results hold plain driver values (``plain_values``), at least one
    column, and equal ones by ``==`` column by column: then ``driver_rows`` of each are equal
    row by row, without being made (``==`` is transitive on plain values: Python compares an
    int with a float exactly, so dropping duplicate rows keeps equal lists too). Types may
    differ (1 and 1.0), unlike ``same_driver_values``.

    >>> def result(*columns):
    ...     return QueryResult.of_driver_columns([list(column) for column in columns], ("n",) * len(columns))
    >>> equal_driver_rows(result([1, 2], ["a", None]), result([1.0, 2], ["a", None]))
    True
    >>> equal_driver_rows(result([1]), result([2])), equal_driver_rows(result([float("inf")]), result([float("inf")]))
    (False, False)
    """
    gold_columns, predicted_columns = gold.driver_columns, predicted.driver_columns
    return bool(gold_columns) and gold_columns == predicted_columns and _plain(gold) and _plain(predicted)


# The types of plain values (``plain_values``), floats when finite.
_PLAIN_TYPES = frozenset({type(None), int, float, str})


def _plain_column(values: list[object], facts: ColumnFacts | None) -> bool:
    """``plain_values`` of a column, from the types its reader found where it holds no float
    (whose finiteness only its values tell)."""
    if facts is not None and float not in facts.types:
        return facts.types <= _PLAIN_TYPES
    return plain_values(values)


def same_driver_values(gold: QueryResult, predicted: QueryResult) -> bool:
    """True when both results hold rows, the same number of columns, and the same plain
    driver values (``plain_values``) in the same places, each of the same type, none of them
    a float zero. Every rule then sees the same values, the same types and the same texts on
    both sides, which the fast paths of the semantics and metrics of a correct prediction
    rely on (most predictions of a text-to-SQL run are correct). Equal values of two types
    (``1`` and ``1.0``) and the float zeros (``0.0 == -0.0``, written apart) are not the
    same: the official rules compare the types and the texts of the values.

    >>> def result(*columns):
    ...     return QueryResult.of_driver_columns([list(column) for column in columns], ("n",) * len(columns))
    >>> same_driver_values(result([1, 2], ["a", None]), result([1, 2], ["a", None]))
    True
    >>> same_driver_values(result([1, 2]), result([1.0, 2])), same_driver_values(result([0.0]), result([-0.0]))
    (False, False)
    """
    gold_columns, predicted_columns = gold.driver_columns, predicted.driver_columns
    if not gold_columns or not predicted_columns or not gold.row_count or gold_columns != predicted_columns:
        return False
    for gold_column, predicted_column in zip(gold_columns, predicted_columns):
        kinds = list(map(type, gold_column))
        if kinds != list(map(type, predicted_column)) or not plain_values(gold_column):
            return False
        if float in kinds and 0.0 in gold_column:  # also true for an int 0: the fast paths are only skipped
            return False
    return True
