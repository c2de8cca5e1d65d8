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
from typing import Any

from answerkey.adapters.engines import Engine, NoDatabase
from answerkey.errors import plural
from answerkey.execution.load import SqlItem
from answerkey.grammar.render import render_value

SHOW_ROWS_MAX = 1000
"""The most rows of each side ``--show-rows`` keeps per item."""

Sides = tuple[str | None, str | None]  # the gold's rows, the prediction's rows, as text


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


def _side(engine: Engine, database: Any, query: str | None, shown: int) -> str | None:
    if query is None:
        return None
    result = engine.run(database, query)
    if result.error is not None:
        return f"(the query failed: {result.error})"
    return rows_text(result.columns, result.rows, shown)


def result_rows(engine: Engine, items: Iterable[SqlItem], shown: int) -> list[Sides]:
    """For each item, in order: the first ``shown`` rows of its gold and of its prediction on
    its db_id's first database (None: no prediction, or no database)."""
    found: list[Sides] = []
    for item in items:
        if not item.needs_database:
            found.append((_gold_side(engine, None, item, shown), _predicted_side(engine, None, item, shown)))
            continue
        try:
            database = engine.databases(item.db_id)[0]
        except (NoDatabase, IndexError):
            found.append((None, None))
            continue
        found.append((_gold_side(engine, database, item, shown), _predicted_side(engine, database, item, shown)))
    return found


def _gold_side(engine: Engine, database: Any, item: SqlItem, shown: int) -> str | None:
    if item.gold_results:  # the first gold result file, as the first gold query is shown
        gold = item.gold_results[0]
        return rows_text(gold.columns, gold.rows, shown)
    return _side(engine, database, item.gold, shown)


def _predicted_side(engine: Engine, database: Any, item: SqlItem, shown: int) -> str | None:
    if item.predicted_result is not None:
        return rows_text(item.predicted_result.columns, item.predicted_result.rows, shown)
    return _side(engine, database, item.predicted, shown)
