"""What the semantics read of a result besides its values: its width, and its error on one line.
(The values as the driver gives them are ``answerkey.metrics.driver_values``', which soft F1
reads too.)"""

from __future__ import annotations

from answerkey.adapters.sql import QueryResult

__all__ = ["result_width", "one_line"]


def result_width(result: QueryResult) -> int:
    """The number of columns: named ones, or those of the first row."""
    if result.columns:
        return len(result.columns)
    return len(result.rows[0]) if result.rows else 0


def one_line(text: str) -> str:
    """``text`` on one line: its lines stripped, the empty ones dropped, joined by spaces."""
    return " ".join(line.strip() for line in str(text).splitlines() if line.strip())
