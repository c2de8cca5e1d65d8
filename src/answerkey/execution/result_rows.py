"""The result rows of each side, for the HTML detail view and the workbook (``answerkey sql
--show-rows N``): the gold and the predicted query run once more on the item's first database,
read-only within the run's limits, and the first N rows of each kept as text.

The run itself keeps no rows (an item's outcome is its verdicts and reasons), so this is a
second pass over the items, only when asked for: it costs up to two more queries per item.

>>> from answerkey.model import Number, String
>>> print(rows_text(("name", "age"), [(String("Ann"), Number.of(30)), (String("Bob"), Number.of(41))], 1))
name | age
"Ann" | 30
... and 1 more row (--show-rows shows 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from answerkey.adapters.engines import Engine, NoDatabase
from answerkey.adapters.sql import QueryResult
from answerkey.comparator import MatchRule
from answerkey.errors import plural
from answerkey.execution.load import SqlItem
from answerkey.execution.result_csv import ResultFile
from answerkey.grammar.render import render_value
from answerkey.report.alignment import aligned_document, column_mapping

SHOW_ROWS_MAX = 1000
"""The most rows of each side ``--show-rows`` keeps per item."""


class ShownRows(NamedTuple):
    """One item's rows as ``--show-rows`` keeps them: each side's first rows as text, and
    both results aligned for the HTML page (``answerkey.report.alignment``; None when a
    query failed or did not run, or the gold has more columns than the prediction)."""

    gold: str | None
    predicted: str | None
    aligned: dict[str, Any] | None = None


NO_ROWS = ShownRows(None, None)
"""An item's rows when none are shown."""


def rows_text(columns: Sequence[str], rows: Sequence[tuple[Any, ...]], shown: int) -> str:
    """A header line of column names, then the first ``shown`` rows, one a line, values as CAS
    separated by `` | ``, and how many rows were left out."""
    lines = [" | ".join(columns)] if columns else []
    lines += [" | ".join(render_value(value) for value in row) for row in rows[:shown]]
    if len(rows) > shown:
        lines.append(f"... and {plural(len(rows) - shown, 'more row')} (--show-rows shows {shown})")
    if not rows:
        lines.append("(no rows)")
    return "\n".join(lines)


def _side(result: QueryResult | None, shown: int) -> str | None:
    if result is None:
        return None
    if result.error is not None:
        return f"(the query failed: {result.error})"
    return rows_text(result.columns, result.rows, shown)


def _aligned(gold: QueryResult, predicted: QueryResult, rule: MatchRule, shown: int) -> dict[str, Any] | None:
    """Both results aligned under the comparator's mapping as sets (the answerkey semantics'),
    the first ``shown`` lines kept."""
    mapping = column_mapping(gold.rows, predicted.rows, rule)
    if mapping is None:
        if gold.rows and predicted.rows:
            return None
        mapping = ()  # a side has no rows: the other's are all missing, or all extra
    columns = (gold.columns, predicted.columns)
    return aligned_document(gold.rows, predicted.rows, mapping, rule, shown, columns, ("gold", "predicted"))


def shown_rows(engine: Engine, items: Iterable[SqlItem], shown: int, rule: MatchRule | None = None) -> list[ShownRows]:
    """For each item, in order: the first ``shown`` rows of its gold and of its prediction on
    its db_id's first database (None: no prediction, or no database), and both results
    aligned, the first ``shown`` lines (values matched by ``rule``, default ``MatchRule()``).
    A side given as a result file is shown as read (the first gold file, as the first gold
    query is shown), and not aligned."""
    rule = rule or MatchRule()
    found: list[ShownRows] = []
    for item in items:
        database: Any = None
        if item.needs_database:
            try:
                database = engine.databases(item.db_id)[0]
            except (NoDatabase, IndexError):
                found.append(NO_ROWS)
                continue
        gold = None if item.gold_results or item.gold is None else engine.run(database, item.gold)
        predicted = None
        if item.predicted_result is None and item.predicted is not None:
            predicted = engine.run(database, item.predicted)
        aligned = None
        if gold is not None and predicted is not None and gold.error is None and predicted.error is None:
            aligned = _aligned(gold, predicted, rule, shown)
        gold_text = _file_side(item.gold_results[0], shown) if item.gold_results else _side(gold, shown)
        predicted_text = _side(predicted, shown)
        if item.predicted_result is not None:
            predicted_text = _file_side(item.predicted_result, shown)
        found.append(ShownRows(gold_text, predicted_text, aligned))
    return found


def _file_side(result: ResultFile, shown: int) -> str:
    return rows_text(result.columns, result.rows, shown)
