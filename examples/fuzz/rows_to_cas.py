"""A formatter a QA system might use: JSON rows on stdin -> a CAS answer on stdout.

Standard library only, the way a user would write it. Try it against answerkey:

    answerkey fuzz roundtrip --cmd "python examples/fuzz/rows_to_cas.py" -n 200
"""

import json
import re
import sys

# A quoted string of one of these shapes reads as a date in CAS, so a string column must escape it.
DATE_SHAPE = re.compile(r"[0-9]{2}-[A-Za-z]{3}-([12][0-9]{3}|[0-9]{2})|[0-9]{4}-[0-9]{2}-[0-9]{2}")
ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


class Number(str):
    """A JSON number, kept as the text it was written as."""


def quote(text):
    body = "".join(
        ESCAPES.get(char) or (f"\\u{ord(char):04x}" if char < " " or char == "\x7f" else char) for char in text
    )
    if DATE_SHAPE.fullmatch(body):
        body = f"\\u{ord(body[0]):04x}" + body[1:]
    return f'"{body}"'


def number(text):
    return str(text)


def is_date(text):
    if not ISO_DATE.fullmatch(text):
        return False
    import datetime

    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def cas_value(value, date_column, quote=quote, number=number):
    if value is None:
        return "NIL"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, Number):
        return number(value)
    if date_column:
        return value  # ISO dates are CAS dates as they are
    return quote(value)


def render_rows(rows, quote=quote, number=number):
    """CAS text for rows of JSON values (a column of ISO date strings is a date column)."""
    if rows and isinstance(rows[0], dict):
        rows = [list(row.values()) for row in rows]
    width = len(rows[0]) if rows else 0
    date_columns = []
    for column in range(width):
        cells = [row[column] for row in rows if row[column] is not None]
        date_columns.append(
            bool(cells) and all(isinstance(c, str) and not isinstance(c, Number) and is_date(c) for c in cells)
        )
    tuples = (
        "(" + " ".join(cas_value(v, date_columns[i], quote, number) for i, v in enumerate(row)) + ")" for row in rows
    )
    return "(" + " ".join(tuples) + ")"


def read_rows(stream):
    return json.load(stream, parse_int=Number, parse_float=Number)


if __name__ == "__main__":
    print(render_rows(read_rows(sys.stdin)))
