"""Spider's official table for an ``answerkey sql`` run (``--tables tables.json``).

Each item's gold and prediction are matched as test-suite-sql-eval's ``evaluation.py``
does (``answerkey.execution.spider_match``), on the schema of ``DIR/<db_id>/<db_id>.sqlite``
(the file the official script reads, evaluation.py line 572) and the foreign keys of
``tables.json``; the execution column is the run's verdict under its headline semantics.
An item whose gold the official parser cannot read is left out of the table (the official
script stops on it) and listed with the reason.
"""

from __future__ import annotations

from pathlib import Path

from answerkey.errors import InputError
from answerkey.execution.load import SqlItem
from answerkey.execution.official_schema import SpiderItem, SpiderOfficial, official_model
from answerkey.execution.spider_match import (
    SpiderSchema,
    SpiderTable,
    TableRow,
    match_item,
    read_foreign_keys,
    schema_of_sqlite as read_schema,
)
from answerkey.report.schema import build


def spider_official(items: list[tuple[SqlItem, str]], tables: str, location: str) -> SpiderOfficial:
    """The official table of ``items`` (each with its verdict: correct, incorrect or error).

    ``tables`` is Spider's tables.json, ``location`` the ``--db`` folder. Raises
    ``InputError`` for a tables.json that cannot be read.
    """
    keys = read_foreign_keys(tables)
    schemas: dict[str, SpiderSchema | str] = {}
    rows: list[TableRow] = []
    reports: list[SpiderItem] = []
    sessions = {item.session for item, _ in items if item.session is not None}
    for item, verdict in items:
        schema = schemas.get(item.db_id)
        if schema is None:
            schema = schemas[item.db_id] = _schema(location, item.db_id)
        if isinstance(schema, str):
            reports.append(build(SpiderItem, id=item.id, hardness=None, exact=None, reason=schema))
            continue
        if item.db_id not in keys:
            reason = f"db_id {item.db_id} is not in {tables}"
            reports.append(build(SpiderItem, id=item.id, hardness=None, exact=None, reason=reason))
            continue
        result = match_item(item.gold, item.predicted or "", schema, keys[item.db_id])
        if result.hardness is None or result.exact is None:
            reason = f"the official parser cannot read the gold: {result.gold_error}"
            reports.append(build(SpiderItem, id=item.id, hardness=None, exact=None, reason=reason))
            continue
        why = None if result.prediction_error is None else f"prediction: {result.prediction_error}"
        reports.append(build(SpiderItem, id=item.id, hardness=result.hardness, exact=result.exact, reason=why))
        rows.append(
            TableRow(
                result.hardness,
                execution=verdict == "correct",
                exact=result.exact,
                components=result.components,
                turn=item.turn,
                session=item.session,
            )
        )
    table = SpiderTable.of(rows, sessions=len(sessions) or 1)
    unreadable = sum(report.hardness is None for report in reports)
    return official_model(table, reports, unreadable)


def _schema(location: str, db_id: str) -> SpiderSchema | str:
    """The schema of the database the official script reads, or why there is none."""
    path = Path(location) / db_id / f"{db_id}.sqlite"
    if not path.is_file():
        return f"no database file {path} (the official script reads this one)"
    try:
        return read_schema(path)
    except InputError as error:
        return str(error)
