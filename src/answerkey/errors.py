"""The documented error types. Bad input raises one of these, never anything else."""

from __future__ import annotations

__all__ = ["AnswerkeyError", "InputError", "ParseError"]


class AnswerkeyError(Exception):
    """Base class of every error answerkey raises on purpose."""


class InputError(AnswerkeyError, ValueError):
    """Bad input at a place in a file: prints as ``FILE:LINE:COL: message`` like a compiler.

    >>> str(InputError("duplicate id 'q1'", source="corpus.yaml", line=4, column=3))
    "corpus.yaml:4:3: duplicate id 'q1'"
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

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"

    def __reduce__(self):
        # Keyword-only constructors do not pickle by default; --jobs sends errors between processes.
        return (_rebuild, (type(self), self.message, dict(self.__dict__)))


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


def _rebuild(cls, message, state):
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(state)
    return error
