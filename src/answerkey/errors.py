"""The documented error types, and the wording of every problem shown to a user.

Bad input raises ``InputError`` (CAS text: ``ParseError``), never anything else; several at
once are ``InputErrors``. A problem that does not stop a run is a ``RunWarning``. The helpers
below word messages the same way everywhere: positions as ``FILE:LINE:COL`` (1-based, from
``line_column``), counts with ``plural``, JSON/YAML kinds with ``kind_of`` (never Python type
names), misspelt names with ``did_you_mean``.

>>> str(InputError("duplicate id 'q1'", source="corpus.yaml", line=4, column=3))
"corpus.yaml:4:3: duplicate id 'q1'"
>>> plural(1, "error"), plural(3, "error"), kind_of([1]), did_you_mean("anwser", ["answer", "query"])
('1 error', '3 errors', 'a list', " (did you mean 'answer'?)")
"""

from __future__ import annotations

import bisect
import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = [
    "AnswerkeyError",
    "InputError",
    "InputErrors",
    "ParseError",
    "RunWarning",
]


class AnswerkeyError(Exception):
    """Base class of every error answerkey raises on purpose."""


class InputError(AnswerkeyError, ValueError):
    """Bad input at a place in a file: prints as ``FILE:LINE:COL: message`` like a compiler.

    >>> InputError("no such file", source="a.yaml").location
    'a.yaml'
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line
        self.column = column

    def located(self, source: str) -> InputError:
        """This error, attributed to ``source`` (a file name) unless it already names one."""
        if self.source is None:
            self.source = source
        return self

    @property
    def location(self) -> str:
        """``FILE:LINE:COL`` with whatever parts are known."""
        parts = [self.source or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def sort_key(self) -> tuple[str, int, int]:
        """Orders errors as they appear: by file, line, column."""
        return (self.source or "", self.line or 0, self.column or 0)

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only constructors do not pickle by default; --jobs sends errors between processes.
        return (_rebuild, (type(self), self.message, dict(self.__dict__)))


class InputErrors(InputError):
    """Several located input errors found in one pass; ``errors`` lists them in file order.

    ``str`` prints one per line; ``message`` counts them.

    >>> errors = InputErrors([InputError("b", source="f", line=2), InputError("a", source="f", line=1)])
    >>> errors.message, [error.message for error in errors.errors]
    ('2 errors in input', ['a', 'b'])
    """

    errors: list[InputError]

    def __init__(self, errors: Iterable[InputError]) -> None:
        found: list[InputError] = []
        for error in errors:
            found.extend(error.errors if isinstance(error, InputErrors) else [error])
        # Files in the order they were read, each in line order.
        files = {error.source or "": index for index, error in reversed(list(enumerate(found)))}
        found.sort(key=lambda error: (files[error.source or ""], error.line or 0, error.column or 0))
        first = found[0] if found else InputError("no errors")
        super().__init__(
            f"{plural(len(found), 'error')} in input", source=first.source, line=first.line, column=first.column
        )
        self.errors = found

    def __str__(self) -> str:
        return "\n".join(str(error) for error in self.errors)


class ParseError(InputError):
    """A syntax or typing error in CAS text.

    ``line`` and ``column`` are 1-based; ``expected`` names what would have been accepted,
    ``found`` what was there; ``context`` is the offending line with a caret under the column.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int,
        column: int,
        expected: tuple[str, ...] = (),
        found: str | None = None,
        context: str = "",
        source: str | None = None,
    ) -> None:
        super().__init__(message, source=source, line=line, column=column)
        self.expected = expected
        self.found = found
        self.context = context

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text}\n{self.context}" if self.context else text


def _rebuild(cls: type[InputError], message: str, state: dict[str, Any]) -> InputError:
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(state)
    return error


@dataclass(frozen=True)
class RunWarning:
    """A problem that did not stop a run, e.g. an answer for an id the corpus does not have.

    ``kind`` groups warnings of one cause, so that a display can show the first few of each
    and count the rest; reports keep every one. ``str`` is the message.
    """

    message: str
    kind: str = ""

    def __str__(self) -> str:
        return self.message


def line_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of character ``offset`` in ``text``.

    >>> line_column("ab\\ncd", 4)
    (2, 2)
    """
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


class LineIndex:
    """The line starts of ``text``, found once, so that the line and column of many offsets
    cost a binary search each instead of a count from the start (which made locating every
    item of a large file quadratic).

    >>> index = LineIndex("ab\\ncd\\n\\nef")
    >>> index.line_column(4), index.line_column(0), index.line_column(8)
    ((2, 2), (1, 1), (4, 2))
    """

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        starts = [0]
        find, position = text.find, text.find("\n")
        while position >= 0:
            starts.append(position + 1)
            position = find("\n", position + 1)
        self._starts = starts

    def line_column(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of character ``offset``, as ``line_column`` gives them."""
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun, singular or plural, with thousands separated.

    >>> plural(1, "item"), plural(2, "item"), plural(50000, "warning"), plural(2, "query", "queries")
    ('1 item', '2 items', '50,000 warnings', '2 queries')
    """
    return f"{count:,} {noun if count == 1 else (nouns or noun + 's')}"


_KINDS: dict[type, str] = {
    dict: "a mapping",
    list: "a list",
    tuple: "a list",
    str: "a string",
    int: "an integer",
    float: "a number",
    Decimal: "a number",
    bool: "a boolean",
    _dt.date: "a date",
    _dt.datetime: "a date and time",
}


def kind_of(value: object) -> str:
    """What a JSON or YAML value is called in messages (never a Python type name).

    >>> kind_of(None), kind_of({}), kind_of(2.5), kind_of(True), kind_of("x")
    ('null', 'a mapping', 'a number', 'a boolean', 'a string')
    """
    if value is None:
        return "null"
    for kind in type(value).__mro__:
        if kind in _KINDS:
            return _KINDS[kind]
    return f"a {type(value).__name__}"


def closest(word: str, known: Sequence[str] | Iterable[str]) -> str | None:
    """The known name closest to ``word``, or None when none is close.

    >>> closest("anwser", ["id", "answer"]), closest("x", ["answer"])
    ('answer', None)
    """
    import difflib  # only when a message needs it: it costs start-up time of every command

    close = difflib.get_close_matches(str(word), list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: str, known: Sequence[str] | Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known name, or ``""`` when none is close."""
    close = closest(word, known)
    return f" (did you mean {close!r}?)" if close is not None else ""
