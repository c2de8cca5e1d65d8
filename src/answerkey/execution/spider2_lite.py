"""Spider 2.0-lite's evaluation layout, read as its ``evaluate.py`` reads it (spider2-lite/
evaluation_suite/evaluate.py at commit e12c5f1e): gold result files, several per item, and
predictions as SQL files or as result files.

**The gold** is a folder holding ``spider2lite_eval.jsonl`` (one ``{instance_id,
condition_cols, ignore_order}`` a line; other keys ignored) and ``exec_result/``, the gold
results: ``<id>.csv`` alone, or else ``<id>_a.csv``, ``<id>_b.csv``... (one lower-case letter,
in name order), each an acceptable gold (``resolve_gold_paths``, lines 209-223). Each gold's
condition columns are resolved as ``compare_multi_pandas_table`` resolves them (lines 67-81,
``gold_condition_cols``); the golds it never reaches (it raises at an earlier one, scoring 0)
are left out with a warning. The databases of ``local*`` items are named by ``spider2-lite.jsonl``
(``{instance_id, db, ...}`` a line), looked for in the gold folder, then two folders up (where
the official script finds it, beside ``evaluation_suite/``).

**The predictions** are a folder of ``<id>.sql`` files (``--mode sql``; a fenced ```` ```sql ````
block is taken out of the text as ``extract_sql_query`` does, lines 200-206), run on the
item's SQLite database, or of ``<id>.csv`` result files (``--mode exec_result``), read as the
gold's (``answerkey.execution.result_csv``); one folder may mix them, one file per item. As
the official script, only the gold items that have a prediction are evaluated (the others are
counted in one warning); an SQL prediction for an item that is not ``local*`` (BigQuery,
Snowflake) cannot run here and is left out with a warning of its own.

Every problem is an ``InputError`` at ``FILE:LINE:COL``, collected and raised together.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

from answerkey.adapters.sql import db_id_problem
from answerkey.errors import InputError, InputErrors, RunWarning, kind_of, plural
from answerkey.execution.result_csv import ResultFile, read_result_csv
from answerkey.files import Document, load_document, read_text
from answerkey.limits import MAX_QUERY_CHARS

EVAL_FILE = "spider2lite_eval.jsonl"
"""The file that makes a folder Spider 2.0-lite's gold."""
GOLD_RESULTS = "exec_result"
METADATA_FILE = "spider2-lite.jsonl"
_SQL_FENCE = re.compile(r"```sql\n(.*?)\n```", re.DOTALL)  # evaluate.py line 201


@dataclass(frozen=True)
class LiteItem:
    """One evaluated item: its golds (each with its resolved condition columns), its
    prediction (SQL, or a result) and where its line of the eval file is."""

    id: str
    db_id: str
    golds: tuple[ResultFile, ...]
    predicted: str | None
    predicted_result: ResultFile | None
    ignore_order: bool
    source: str
    line: int | None


@dataclass
class LiteInputs:
    """The items of a Spider 2.0-lite folder, in the eval file's order, and the warnings."""

    items: list[LiteItem]
    warnings: list[RunWarning] = field(default_factory=list)


def is_spider2_lite(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder holding ``spider2lite_eval.jsonl``."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, EVAL_FILE))


def extract_sql(text: str) -> str:
    """The SQL of a prediction file as ``extract_sql_query`` takes it: the first fenced
    ```` ```sql ```` block, stripped, or else the whole text as it is.

    >>> extract_sql("Here:\\n```sql\\nSELECT 1\\n```\\n"), extract_sql(" SELECT 2\\n")
    ('SELECT 1', ' SELECT 2\\n')
    """
    match = _SQL_FENCE.search(text)
    return match.group(1).strip() if match else text


def _columns(value: Any) -> tuple[int, ...] | None:
    """One gold's condition columns as ``compare_pandas_table`` takes them (lines 113-116):
    none when empty, one index alone as a list of it."""
    if not value:
        return None
    if type(value) is int:
        return (value,)
    if isinstance(value, list) and all(type(index) is int for index in value):
        return tuple(value)
    raise ValueError(f"{value!r} is not a list of column indexes")


def gold_condition_cols(value: Any, golds: int, single: bool) -> list[tuple[int, ...] | None]:
    """Each gold's condition columns (None: all) from the eval file's ``condition_cols``, as
    evaluate.py resolves them for ``golds`` gold files (``single``: ``<id>.csv`` alone):
    a single gold takes the value; several ``_a``, ``_b``... golds take one list each when
    every element is a list, else all the same value, and a lone ``_a`` gold takes the first
    element (so ``[1, 0]`` checks column 1 only).

    The official comparison tries the golds in order and raises at the first one whose
    columns it cannot take (no list left for it, a list that is not of indexes), scoring the
    item 0: so only the golds before it can match, and only their columns are returned
    (fewer than ``golds``). ``ValueError`` when it raises at the first gold.

    >>> gold_condition_cols([1, 2], 1, True), gold_condition_cols([[0], [1, 2]], 2, False)
    ([(1, 2)], [(0,), (1, 2)])
    >>> gold_condition_cols([1, 0], 2, False), gold_condition_cols([1, 0], 1, False)
    ([(1, 0), (1, 0)], [(1,)])
    >>> gold_condition_cols([[0], [1]], 3, False)
    [(0,), (1,)]
    """
    if single:
        return [_columns(value)]
    if value in (None, [], [[]], [None]):
        return [None] * golds
    if not isinstance(value, list):
        raise ValueError(f"{value!r} is not a list")
    if golds > 1 and not all(isinstance(each, list) for each in value):
        return [_columns(value)] * golds
    found: list[tuple[int, ...] | None] = []
    for each in value[:golds]:
        try:
            found.append(_columns(each))
        except ValueError:
            if not found:
                raise
            break
    return found


def _gold_files(folder: str) -> set[str]:
    """The names of the ``.csv`` files of the gold results folder, without the suffix."""
    with os.scandir(folder) as entries:
        return {entry.name[:-4] for entry in entries if entry.name.endswith(".csv") and entry.is_file()}


def _golds_of(instance_id: str, names: set[str]) -> tuple[list[str], bool]:
    """The gold file names of ``instance_id`` (``resolve_gold_paths``) and whether it is the single one."""
    if instance_id in names:
        return [instance_id], True
    return sorted(name for name in names if re.fullmatch(rf"{re.escape(instance_id)}_[a-z]", name)), False


def _predictions(folder: str) -> tuple[dict[str, str], list[InputError]]:
    """The prediction files of ``folder`` by instance id (``.sql`` or ``.csv``), and the ids given twice."""
    found: dict[str, str] = {}
    problems: list[InputError] = []
    try:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries if entry.is_file() and entry.name.endswith((".sql", ".csv")))
    except NotADirectoryError:
        raise InputError(
            "Spider 2.0-lite's predictions are a folder of <id>.sql or <id>.csv files, not a file", source=folder
        ) from None
    except OSError as error:
        raise InputError(error.strerror or str(error), source=folder) from None
    for name in names:
        stem = name[:-4]
        if stem in found:
            problems.append(
                InputError(
                    f"both {stem}.csv and {stem}.sql: give one prediction per item", source=os.path.join(folder, name)
                )
            )
            continue
        found[stem] = name
    return found, problems


def _metadata(gold: str) -> dict[str, str]:
    """The database of each instance id, from ``spider2-lite.jsonl`` (empty when there is none)."""
    for place in (gold, os.path.join(gold, os.pardir, os.pardir)):
        path = os.path.join(place, METADATA_FILE)
        if os.path.isfile(path):
            document = load_document(path, format="jsonl")
            if document.problems:
                raise InputErrors(document.problems)
            return {
                str(record["instance_id"]): record["db"]
                for record in document.data
                if isinstance(record, dict) and isinstance(record.get("db"), str) and "instance_id" in record
            }
    return {}


def _reachable(golds: tuple[ResultFile, ...]) -> int:
    """How many golds come before the first (after the first) whose condition columns go
    beyond its columns: evaluate.py's comparison raises there (``iloc``), scoring the item 0,
    so the golds from it on can never match. (Beyond the first gold's, the item is an error
    of the test, as under every semantics.)"""
    for number, gold in enumerate(golds[1:], 1):
        if any(column >= len(gold.columns) for column in gold.condition_cols or ()):
            return number
    return len(golds)


def _unreachable(document: Document, index: int, files: list[str], reachable: int) -> RunWarning:
    """The warning for the gold files from ``files[reachable]`` on, which evaluate.py never compares."""
    line = document.locate((index,))[0]
    return RunWarning(
        f"{document.source}:{line}: the condition_cols of gold file {files[reachable]}.csv are not columns "
        f"evaluate.py can take: its comparison stops there, scoring 0, so "
        f"{plural(len(files) - reachable, 'gold file')} from it on {'is' if len(files) - reachable == 1 else 'are'} "
        "left out",
        "spider2-condition-cols",
    )


def _record(document: Document, index: int, problems: list[InputError]) -> tuple[str, Any, bool] | None:
    """(instance id, condition_cols, ignore_order) of line ``index`` of the eval file, or None."""
    record = document.data[index]
    if not isinstance(record, dict):
        problems.append(document.error(f"a line is an object {{instance_id, ...}}, not {kind_of(record)}", (index,)))
        return None
    instance_id = record.get("instance_id")
    if not isinstance(instance_id, str) or db_id_problem(instance_id) is not None:
        problems.append(document.error(f"instance_id: not an instance id: {instance_id!r}", (index, "instance_id")))
        return None
    ignore_order = record.get("ignore_order", False)
    if ignore_order is not None and not isinstance(ignore_order, bool):
        problems.append(
            document.error(f"ignore_order: true or false, not {kind_of(ignore_order)}", (index, "ignore_order"))
        )
        return None
    return instance_id, record.get("condition_cols"), bool(ignore_order)


def read_spider2_lite(gold: str | os.PathLike[str], predictions: str | os.PathLike[str]) -> LiteInputs:
    """The items of Spider 2.0-lite's gold folder ``gold`` that have a prediction in the
    folder ``predictions`` (see the module). ``InputErrors`` with every problem found."""
    gold, predictions = os.fspath(gold), os.fspath(predictions)
    document = load_document(os.path.join(gold, EVAL_FILE), format="jsonl")
    problems: list[InputError] = list(document.problems)
    results_folder = os.path.join(gold, GOLD_RESULTS)
    try:
        names = _gold_files(results_folder)
    except OSError as error:
        raise InputError(f"the gold results folder: {error.strerror or error}", source=results_folder) from None
    predicted, more = _predictions(predictions)
    problems += more
    databases: dict[str, str] | None = None
    warnings: list[RunWarning] = []
    items: list[LiteItem] = []
    seen: dict[str, int | None] = {}
    unpredicted: list[str] = []
    for index in range(len(document.data)):
        found = _record(document, index, problems)
        if found is None:
            continue
        instance_id, condition_cols, ignore_order = found
        line = document.locate((index,))[0]
        if instance_id in seen:
            problems.append(
                document.error(f"duplicate instance_id {instance_id!r} (first on line {seen[instance_id]})", (index,))
            )
            continue
        seen[instance_id] = line
        name = predicted.get(instance_id)
        if name is None:
            unpredicted.append(instance_id)
            continue
        files, single = _golds_of(instance_id, names)
        if not files:
            problems.append(
                document.error(
                    f"no gold result for {instance_id!r} in {results_folder} ({instance_id}.csv, or "
                    f"{instance_id}_a.csv, {instance_id}_b.csv...)",
                    (index,),
                )
            )
            continue
        try:
            columns = gold_condition_cols(condition_cols, len(files), single)
        except ValueError as error:
            problems.append(
                document.error(
                    f"condition_cols: {error}: evaluate.py's comparison fails on it (scoring the item 0)",
                    (index, "condition_cols"),
                )
            )
            continue
        if len(columns) < len(files):
            warnings.append(_unreachable(document, index, files, len(columns)))
            files = files[: len(columns)]
        prediction_path = os.path.join(predictions, name)
        sql: str | None = None
        result: ResultFile | None = None
        try:
            golds = tuple(
                replace(read_result_csv(os.path.join(results_folder, f"{file}.csv")), condition_cols=cols or ())
                for file, cols in zip(files, columns)
            )
            if name.endswith(".csv"):
                result = read_result_csv(prediction_path)
            else:
                sql = extract_sql(read_text(prediction_path, max_bytes=4 * MAX_QUERY_CHARS))
        except InputError as error:
            problems.append(error)
            continue
        reachable = _reachable(golds)
        if reachable < len(golds):
            warnings.append(_unreachable(document, index, files, reachable))
            golds = golds[:reachable]
        if databases is None:
            databases = _metadata(gold)
        db_id = databases.get(instance_id, "")
        if sql is not None and (not instance_id.startswith("local") or not db_id):
            why = (
                "its database is not SQLite (BigQuery or Snowflake): export its result "
                f"as {instance_id}.csv to evaluate it here"
                if not instance_id.startswith("local")
                else f"no {METADATA_FILE} names its database (looked for in {gold} and two folders up)"
            )
            warnings.append(RunWarning(f"{prediction_path}: not evaluable here: {why}", "not-evaluable"))
            continue
        items.append(LiteItem(instance_id, db_id, golds, sql, result, ignore_order, document.source, line))
    for stem, name in predicted.items():
        if stem not in seen and not problems:
            warnings.append(
                RunWarning(
                    f"{os.path.join(predictions, name)}: a prediction for {stem!r}, which {EVAL_FILE} does not list",
                    "unknown-id",
                )
            )
    if problems:
        raise InputErrors(sorted(problems, key=InputError.sort_key))
    if unpredicted:
        warnings.append(
            RunWarning(
                f"{plural(len(unpredicted), 'item')} of {EVAL_FILE} have no prediction in {predictions}: left out, "
                f"as evaluate.py leaves them out (its 'Real score' counts each as 0), e.g. {unpredicted[0]!r}",
                "no-prediction",
            )
        )
    if not items and not warnings:
        raise InputError(f"no item of {EVAL_FILE} has a prediction in this folder", source=predictions)
    return LiteInputs(items, warnings)
