"""Printing answers back as canonical CAS text, so that ``parse(render(a)) == a``.

Canonical form: booleans ``true``/``false``; keywords ``NIL``, ``NO_ANSWER``, ``OR``,
``ORDERED``, ``BY`` in capitals; numbers exactly as written; sort keys as plain column
numbers (from 1) in the order written; strings always double-quoted; dates in ISO
``YYYY-MM-DD``; date-times and times in ISO 8601 (``1989-07-04T10:30:00.5+02:00``,
``10:30:00Z``: the fraction without trailing zeros, the UTC offset as held, ``Z`` for UTC,
none for a naive value); one space between elements; tuples in the order written.

>>> from answerkey.grammar import parse
>>> render(parse("( ( 2341  smith )(5573 \\"JONES\\") ) ; two employees"))
'((2341 "smith") (5573 "JONES"))'
>>> render(parse("(yes OR No)"))
'(true OR false)'
>>> render(parse("(ordered by 02 (1 10) (2 10))"))
'(ORDERED BY 2 (1 10) (2 10))'
"""

from __future__ import annotations

from answerkey import model
from answerkey.grammar.atoms import QUOTED_VALUE_SHAPE
from answerkey.model import (
    Alternatives,
    Answer,
    Boolean,
    Date,
    DateTime,
    Failure,
    Nil,
    NoAnswer,
    Number,
    Relation,
    String,
    Time,
    Value,
)

_ESCAPED = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _quote(text: str) -> str:
    parts = []
    for char in text:
        escaped = _ESCAPED.get(char)
        if escaped is None and (char < " " or char == "\x7f" or "\ud800" <= char <= "\udfff"):
            escaped = f"\\u{ord(char):04x}"
        parts.append(escaped or char)
    body = "".join(parts)
    if QUOTED_VALUE_SHAPE.fullmatch(body):
        # A quoted string shaped like a date, date-time or time reads as one; escaping its
        # first digit keeps it a string.
        body = f"\\u{ord(body[0]):04x}" + body[1:]
    return f'"{body}"'


def render_value(value: Value) -> str:
    """One value in canonical CAS spelling.

    >>> render_value(String('say "hi"')), render_value(Number.parse("5."))
    ('"say \\\\"hi\\\\""', '5.')
    """
    if isinstance(value, Number):
        return value.text
    if isinstance(value, String):
        return _quote(value.text)
    if isinstance(value, Boolean):
        return "true" if value.value else "false"
    if isinstance(value, Date):
        return value.value.isoformat()
    if isinstance(value, (DateTime, Time)):
        return value.isoformat()
    if isinstance(value, Nil):
        return "NIL"
    if isinstance(value, Failure):
        return value.kind.value
    raise TypeError(f"not a CAS value: {value!r}")


def _render_relation(relation: Relation) -> str:
    if relation.scalar:
        return render_value(relation.rows[0][0])
    tuples = " ".join("(" + " ".join(map(render_value, row)) + ")" for row in relation.rows)
    if relation.ordered:
        head = "ORDERED"
        if relation.order_by is not None:
            head += " BY " + " ".join(str(column + 1) for column in relation.order_by)
        return f"({head} {tuples})" if tuples else f"({head})"
    return f"({tuples})"


def render(answer: Answer) -> str:
    """The canonical CAS text of an answer."""
    if isinstance(answer, Relation):
        return _render_relation(answer)
    if isinstance(answer, Alternatives):
        return "(" + " OR ".join(_render_relation(option) for option in answer.options) + ")"
    if isinstance(answer, NoAnswer):
        return "NO_ANSWER"
    raise TypeError(f"not an answer: {answer!r}")


model.CAS_RENDERER = render
