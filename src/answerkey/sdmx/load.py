"""Reading test cases and system selections from files, with errors at FILE:LINE:COL.

Test cases: a YAML file holding one case or a list of them, or a directory of such files
(read in sorted path order, hidden entries skipped). Selections: JSON Lines (``.jsonl``, or
any file whose first character is ``{``) or YAML/JSON (one record or a list of records).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from answerkey.errors import InputError
from answerkey.files import Document, load_yaml, read_jsonl, read_text, validation_errors
from answerkey.sdmx.run import target_of
from answerkey.sdmx.schema import SelectionRecord, TestCase

__all__ = ["load_cases", "load_selections", "case_files"]

_YAML_SUFFIXES = {".yaml", ".yml"}


def case_files(path: str | os.PathLike) -> list[Path]:
    """The YAML files of a suite: ``path`` itself, or every ``*.yaml``/``*.yml`` under it."""
    root = Path(path)
    if not root.is_dir():
        return [root]
    found = []
    for directory, subdirectories, files in os.walk(root):  # symlinked directories are not followed
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
        found.extend(
            Path(directory, name)
            for name in files
            if not name.startswith(".") and Path(name).suffix.lower() in _YAML_SUFFIXES
        )
    if not found:
        raise InputError("no *.yaml or *.yml test case files in this directory", source=str(root))
    return sorted(found)


_KINDS = {dict: "mapping", list: "list", str: "string", int: "number", float: "number", bool: "boolean"}


def _kind(value: Any) -> str:
    """How a YAML/JSON value is called in messages."""
    return "null" if value is None else _KINDS.get(type(value), type(value).__name__)


def _report(error: InputError, errors: list[InputError] | None) -> None:
    if errors is None:
        raise error
    errors.append(error)


def _items(doc: Document, what: str) -> list[tuple[tuple, Any]]:
    """A document holding one mapping or a list of mappings -> (path, item) pairs."""
    if doc.data is None:
        return []
    if isinstance(doc.data, dict):
        return [((), doc.data)]
    if isinstance(doc.data, list):
        return [((index,), item) for index, item in enumerate(doc.data)]
    raise doc.error(f"expected {what} or a list of them, found a {_kind(doc.data)}")


def _validate(model: type[BaseModel], item: Any, *, source: str, locate, errors) -> BaseModel | None:
    if not isinstance(item, dict):
        line, column = locate(())
        _report(InputError(f"expected a mapping, found a {_kind(item)}",
                           source=source, line=line, column=column), errors)
        return None
    try:
        return model.model_validate(item)
    except ValidationError as error:
        for found in validation_errors(error, source=source, locate=locate):
            _report(found, errors)
        return None


def load_cases(path: str | os.PathLike, *, errors: list[InputError] | None = None) -> list[TestCase]:
    """Load a suite of test cases from a YAML file or a directory of them.

    Invalid cases, conflicting term names in a target and duplicate case ids raise
    ``InputError`` at their place; with an ``errors`` list they are appended there instead and
    the valid cases are returned.
    """
    cases: list[TestCase] = []
    first_seen: dict[str, str] = {}
    for file in case_files(path):
        source = str(file)
        try:
            doc = load_yaml(read_text(file), source=source)
            items = _items(doc, "a test case")
        except InputError as error:
            _report(error, errors)
            continue
        for prefix, item in items:
            def locate(loc, prefix=prefix):
                return doc.locate(prefix + tuple(loc))

            case = _validate(TestCase, item, source=source, locate=locate, errors=errors)
            if case is None:
                continue
            if case.id in first_seen:
                _report(doc.error(f"duplicate case id {case.id!r} (first in {first_seen[case.id]})",
                                  prefix + ("id",)), errors)
                continue
            first_seen[case.id] = f"{source}:{locate(('id',))[0]}"
            try:
                target_of(case)
            except InputError as error:
                line, column = locate(getattr(error, "path", ()))
                _report(InputError(error.message, source=source, line=line, column=column), errors)
                continue
            cases.append(case)
    return cases


def _is_jsonl(path: str, text: str) -> bool:
    suffix = Path(path).suffix.lower()
    if suffix in _YAML_SUFFIXES:
        return False
    return suffix == ".jsonl" or text.lstrip().startswith("{")


def load_selections(
    path: str | os.PathLike, *, errors: list[InputError] | None = None
) -> list[SelectionRecord]:
    """Load system selection records (JSONL, or YAML/JSON with one record or a list), in file
    order; ``-`` reads standard input. Errors as in ``load_cases``."""
    source = os.fspath(path)
    records: list[SelectionRecord] = []
    try:
        text = read_text(path)
        if _is_jsonl(source, text):
            lines = read_jsonl(text, source=source)
            entries = []
            for entry in lines:
                if entry.error is not None:
                    _report(entry.error, errors)
                else:
                    entries.append((lambda loc, line=entry.line: (line, 1), entry.value))
        else:
            doc = load_yaml(text, source=source)
            entries = [
                (lambda loc, prefix=prefix: doc.locate(prefix + tuple(loc)), item)
                for prefix, item in _items(doc, "a selection record")
            ]
    except InputError as error:
        _report(error, errors)
        return records
    for locate, item in entries:
        record = _validate(SelectionRecord, item, source=source, locate=locate, errors=errors)
        if record is not None:
            records.append(record)
    return records
