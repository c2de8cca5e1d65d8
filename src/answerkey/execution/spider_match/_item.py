"""One item's exact-set-match and hardness, and the files it needs (a database's schema, tables.json)."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from answerkey.errors import InputError
from answerkey.execution.spider_match._match import (
    ComponentScore,
    ForeignKeyError,
    OfficialStop,
    check_conditions,
    empty_query,
    foreign_key_map,
    hardness,
    match,
)
from answerkey.execution.spider_match._parse import SpiderParseError, SpiderSchema, parse_query


def schema_of_sqlite(path: str | os.PathLike[str]) -> SpiderSchema:
    """The tables and columns of a SQLite file, lower-cased, as the official parser reads them.

    Opened read-only; tables in ``sqlite_master`` order, columns in ``PRAGMA table_info``
    order (process_sql.py lines 79-100).
    """
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as error:
        raise InputError(f"cannot open the database: {error}", source=str(path)) from None
    try:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        tables: dict[str, list[str]] = {}
        for name in names:
            quoted = '"' + str(name).replace('"', '""') + '"'
            tables[str(name).lower()] = [
                str(row[1]).lower() for row in connection.execute(f"PRAGMA table_info({quoted})")
            ]
    except sqlite3.Error as error:
        raise InputError(f"cannot read the database's schema: {error}", source=str(path)) from None
    finally:
        connection.close()
    return SpiderSchema(tables)


def read_foreign_keys(path: str | os.PathLike[str]) -> dict[str, dict[str, str]]:
    """Each database's foreign-key map from Spider's ``tables.json`` (evaluation.py lines 906-912).

    Raises ``InputError`` naming the file and the entry for anything it cannot read.
    """
    source = str(path)
    try:
        with open(path, encoding="utf-8") as handle:
            entries = json.load(handle)
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read tables.json: {error}", source=source) from None
    if not isinstance(entries, list):
        raise InputError("tables.json must be a list of databases", source=source)
    maps: dict[str, dict[str, str]] = {}
    for position, entry in enumerate(entries):
        try:
            columns = [(int(table), str(column)) for table, column in entry["column_names_original"]]
            tables = [str(table) for table in entry["table_names_original"]]
            keys = [[int(index) for index in key] for key in entry["foreign_keys"]]
            maps[str(entry["db_id"])] = foreign_key_map(columns, tables, keys)
        except (KeyError, TypeError, ValueError, IndexError) as error:
            detail = f"missing {error}" if isinstance(error, KeyError) else str(error)
            raise InputError(f"tables.json entry {position + 1}: {detail}", source=source) from None
        except ForeignKeyError as error:
            raise InputError(f"tables.json entry {position + 1}: {error}", source=source) from None
    return maps


@dataclass(frozen=True)
class ItemMatch:
    """One item's exact-set-match.

    ``gold_error`` is set (and nothing else) when the official parser cannot read the gold:
    the official script stops there. ``prediction_error`` says why an unparseable prediction
    was scored as an empty query (wrong, as officially).
    """

    hardness: str | None
    exact: bool | None
    components: Mapping[str, ComponentScore] | None
    gold_error: str | None = None
    prediction_error: str | None = None


def match_item(gold: str, prediction: str, schema: SpiderSchema, keys: Mapping[str, str]) -> ItemMatch:
    """Exact-set-match of one prediction against its gold, with the gold's hardness.

    As officially (evaluation.py line 569), every ``value`` in the prediction becomes ``1``
    first.

    >>> schema = SpiderSchema({"singer": ["singer_id", "name", "age"]})
    >>> gold = "SELECT name FROM singer WHERE age > 20"
    >>> result = match_item(gold, "SELECT name FROM singer WHERE age > value", schema, {})
    >>> result.hardness, result.exact
    ('easy', True)
    >>> match_item("SELECT nme FROM singer", "SELECT name FROM singer", schema, {}).gold_error
    'no column nme in the tables of the query'
    """
    try:
        parsed_gold = parse_query(schema, gold)
        check_conditions(parsed_gold)
    except (SpiderParseError, OfficialStop) as error:
        return ItemMatch(None, None, None, gold_error=str(error))
    level = hardness(parsed_gold)
    prediction_error = None
    parsed_prediction: dict[str, Any]
    try:
        parsed_prediction = parse_query(schema, prediction.replace("value", "1"))
        check_conditions(parsed_prediction)
    except SpiderParseError as error:
        prediction_error = str(error)
        parsed_prediction = empty_query()
    except OfficialStop as error:
        # The official script stops here; the prediction is scored wrong, with the reason.
        return ItemMatch(level, False, None, prediction_error=f"the official script stops on it: {error}")
    try:
        result = match(parsed_prediction, parsed_gold, schema, keys)
    except OfficialStop as error:
        return ItemMatch(level, False, None, prediction_error=f"the official script stops on it: {error}")
    return ItemMatch(level, result.exact, result.components, prediction_error=prediction_error)
