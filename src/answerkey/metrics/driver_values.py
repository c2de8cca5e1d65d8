"""Typed values back to the values of a Python database driver, as the official scripts
compare them (BIRD's, Spider's, and soft F1's): ``driver_value`` of one value,
``driver_rows`` of a whole ``QueryResult``.

>>> from answerkey.model import Relation
>>> driver_rows(QueryResult(rows=Relation.from_rows([[1, 2.5, "x", None]]).rows))
[(1, 2.5, 'x', None)]
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

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
    if plain is not None and all(map(plain_values, plain)):
        return list(zip(*plain)) if plain else [() for _ in range(result.row_count)]
    return [tuple(map(driver_value, row)) for row in result.rows]
