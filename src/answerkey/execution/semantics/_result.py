"""A result's width, and the words of reasons: an error on one line, names listed. (The values
as the driver gives them are ``answerkey.metrics.driver_values``', which soft F1 reads too.)"""

from __future__ import annotations

from collections.abc import Sequence

from answerkey.adapters.sql import QueryResult


def result_width(result: QueryResult) -> int:
    """The number of columns: named ones, or those of the first row."""
    if result.columns:
        return len(result.columns)
    return len(result.rows[0]) if result.rows else 0


def one_line(text: str) -> str:
    """``text`` on one line: its lines stripped, the empty ones dropped, joined by spaces."""
    return " ".join(line.strip() for line in str(text).splitlines() if line.strip())


def listed(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
