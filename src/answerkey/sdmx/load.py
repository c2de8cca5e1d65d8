"""Test cases and system selections from files, every problem at ``FILE:LINE:COL``.

**Test cases** (``CASES``): a YAML file holding one case or a list of them, or a directory of
such files (every ``*.yaml``/``*.yml`` below it, in sorted path order; hidden entries are
passed over). Only regular files are read: a FIFO, a device or a broken or looping link in
the directory would hang or fail a read, so it is skipped with a warning (kind
``skipped-file``) that the run's result carries. Every case is checked against ``TestCase``;
ids are unique in the suite, and a term id has one name within a case's target.

**Selections** (``SELECTIONS``): ``SelectionRecord`` records ``{"id": CASE_ID,
"indicator_selection": [...]}`` as JSON Lines, or a JSON or YAML list of them (or one record).
The format is chosen by the file name's suffix, else by the first character; ``-`` reads
standard input.

Problems are collected and raised together as ``InputErrors``; an input without any case or
record is an error, as for every command.

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp(), "s.jsonl")
>>> _ = path.write_text('{"id": "c1", "indicator_selection": []}\\n{"id": "c2", "indicator_selection": 5}\\n')
>>> load_selections(path)
Traceback (most recent call last):
...
answerkey.errors.InputErrors: ...s.jsonl:2:14: indicator_selection: should be a list, not an integer
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from pydantic import BaseModel, ValidationError

from answerkey.errors import InputError, InputErrors, RunWarning, did_you_mean, kind_of, plural
from answerkey.files import DOCUMENT_SUFFIXES, Document, load_document, regular_files, source_name, validation_errors
from answerkey.sdmx.schema import SelectionRecord, TestCase
from answerkey.sdmx.terms import TermConflict, target_of

# The files of a cases directory that are read.
CASE_SUFFIXES = (".yaml", ".yml")


@dataclass
class Cases:
    """The test cases of a suite, in file order; iterating gives the ``TestCase`` models.

    ``origins[i]`` is ``FILE:LINE`` of case ``i``'s id; ``warnings`` name the directory
    entries that were not read (kind ``skipped-file``) and unknown keys that look like a
    misspelt field (kind ``unknown-key``).
    """

    source: str
    cases: list[TestCase] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    warnings: list[RunWarning] = field(default_factory=list)

    def __iter__(self) -> Iterator[TestCase]:
        return iter(self.cases)

    def __len__(self) -> int:
        return len(self.cases)

    def __getitem__(self, index: int) -> TestCase:
        return self.cases[index]


class _RecordModels(Sequence[SelectionRecord]):
    """The ``SelectionRecord`` of each decoded record, made when asked for."""

    def __init__(self, decoded: list[dict[str, Any]]) -> None:
        self._decoded = decoded

    def __len__(self) -> int:
        return len(self._decoded)

    @overload
    def __getitem__(self, index: int) -> SelectionRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[SelectionRecord]: ...
    def __getitem__(self, index: int | slice) -> SelectionRecord | list[SelectionRecord]:
        if isinstance(index, slice):
            return [SelectionRecord.model_validate(value) for value in self._decoded[index]]
        return SelectionRecord.model_validate(self._decoded[index])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(mine == theirs for mine, theirs in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # equal by value, and not immutable

    def __repr__(self) -> str:
        return f"<{len(self):,} selection records>"


@dataclass
class Selections:
    """A system's selection records, in file order; iterating gives the ``SelectionRecord``
    models. ``origins[i]`` is ``FILE:LINE`` of record ``i``'s id; ``warnings`` name unknown
    keys that look like a misspelt field (kind ``unknown-key``).

    The records are kept as decoded (``decoded``, each already checked against the model)
    and a record's model is made when it is asked for: a model of a small record and its
    parts takes about three times the memory of the decoded record, and a file of 100,000
    records held them all (the memory factor of ``reports.md``'s limits).
    """

    source: str
    decoded: list[dict[str, Any]] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    warnings: list[RunWarning] = field(default_factory=list)

    @property
    def records(self) -> Sequence[SelectionRecord]:
        """The ``SelectionRecord`` models, each made when read."""
        return _RecordModels(self.decoded)

    def __iter__(self) -> Iterator[SelectionRecord]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.decoded)

    def __getitem__(self, index: int) -> SelectionRecord:
        return self.records[index]


def _listing(path: str) -> tuple[bool, list[Path], list[tuple[Path, str]]]:
    """(is a directory, the files to read, (entry, why) of each entry skipped)."""
    if path == "-" or not Path(path).is_dir():
        return False, [Path(path)], []
    files, skipped = regular_files(path, CASE_SUFFIXES)
    return True, files, skipped


def case_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files a suite is read from: ``path`` itself, or the regular ``*.yaml``/``*.yml``
    files under the directory ``path`` (sorted; hidden entries and anything that is not a
    regular file left out).

    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.yml", "a.yaml", "notes.txt", ".hidden.yaml"): _ = (root / name).write_text("")
    >>> [file.name for file in case_files(root)]
    ['a.yaml', 'b.yml']
    """
    return _listing(os.fspath(path))[1]


def _location(document: Document, path: tuple[Any, ...]) -> str:
    # A JSON Lines record's line is known without reading inside it (a pass over the line per
    # record: 16 s of a 100,000-line file).
    line = document.locate(path[:1] if document.format == "jsonl" else path)[0]
    return f"{document.source}:{line}" if line is not None else document.source


def _entries(document: Document, what: str, problems: list[InputError]) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, value) of each entry of a document holding one mapping or a list of them."""
    data = document.data
    if data is None:
        return []
    if isinstance(data, dict):
        return [((), data)]
    if isinstance(data, list):
        return [((index,), value) for index, value in enumerate(data)]
    problems.append(document.error(f"{what}, not {kind_of(data)}"))
    return []


@functools.cache
def _own_fields(model: type[BaseModel]) -> tuple[str, ...]:
    # Read once per class: pydantic's ``model_fields`` is a property that costs a few
    # microseconds a read, and every part of every record was asking.
    return tuple(model.model_fields)


def _misspelt(model: BaseModel, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str, str]]:
    """(path, key, hint) of each unknown key of ``model`` and its parts that is close to a
    field name: kept like any unknown key, but likely a typo that leaves the field empty."""
    fields = _own_fields(type(model))
    for key in model.__pydantic_extra__ or {}:
        hint = did_you_mean(key, list(fields))
        if hint:
            yield (*path, key), key, hint
    for name in fields:
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            yield from _misspelt(value, (*path, name))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, BaseModel):
                    yield from _misspelt(item, (*path, name, index))


def _validated(
    model: type[BaseModel],
    document: Document,
    path: tuple[Any, ...],
    value: Any,
    what: str,
    problems: list[InputError],
    warnings: list[RunWarning],
) -> Any:
    """``value`` as ``model``, or None with its problems appended to ``problems``; unknown
    keys that look like misspelt fields are appended to ``warnings``."""
    if not isinstance(value, dict):
        problems.append(document.error(f"{what} is a mapping, not {kind_of(value)}", path))
        return None
    try:
        valid = model.model_validate(value)
    except ValidationError as error:
        # A missing field's message names a misspelt key given instead (answerkey.files does it for every format).
        problems.extend(
            validation_errors(error, source=document.source, locate=document.locate, model=model, prefix=path)
        )
        return None
    for key_path, key, hint in _misspelt(valid, path):
        warnings.append(
            RunWarning(f"{_location(document, key_path)}: unknown key {key!r} is not read{hint}", "unknown-key")
        )
    return valid


def _skipped(entry: Path, why: str) -> RunWarning:
    reason = why[:1].lower() + why[1:]
    return RunWarning(f"{entry}: skipped, not a regular file ({reason})", "skipped-file")


def load_cases(path: str | os.PathLike[str]) -> Cases:
    """Read the test cases of a YAML file (one case or a list) or of a directory of them
    (``-`` reads standard input).

    Every invalid case, duplicate case id and target term named two ways is collected and
    raised together as ``InputErrors``; an input without any case raises ``InputError``.
    Directory entries that are not regular files are not read: ``Cases.warnings`` names them.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "cases.yaml")
    >>> _ = path.write_text("- id: c1\\n  tags: [weo]\\n- id: c2\\n")
    >>> cases = load_cases(path)
    >>> [case.id for case in cases], [origin.rsplit("/", 1)[1] for origin in cases.origins]
    (['c1', 'c2'], ['cases.yaml:1', 'cases.yaml:3'])
    """
    name = os.fspath(path)
    source = source_name(name)
    directory, files, skipped = _listing(name)
    suite = Cases(source, warnings=[_skipped(entry, why) for entry, why in skipped])
    if directory and not files:
        also = f"; {plural(len(skipped), 'entry', 'entries')} skipped, not regular files" if skipped else ""
        raise InputError(
            f"no *.yaml or *.yml test case files in this directory{also} (an empty input is refused)", source=source
        )
    problems: list[InputError] = []
    first_seen: dict[str, str] = {}
    for file in files:
        try:
            # YAML unless the name says JSON: YAML reads JSON too, and a flow mapping `{id: c1}` is no JSON.
            document = load_document(file, format=DOCUMENT_SUFFIXES.get(file.suffix.lower(), "yaml"))
        except InputError as error:
            problems.append(error)
            continue
        problems.extend(document.problems)
        for prefix, value in _entries(document, "a cases file holds a test case or a list of them", problems):
            case = _validated(TestCase, document, prefix, value, "a test case", problems, suite.warnings)
            if case is None:
                continue
            if case.id in first_seen:
                problems.append(
                    document.error(f"duplicate case id {case.id!r} (first in {first_seen[case.id]})", (*prefix, "id"))
                )
                continue
            try:
                target_of(case)
            except TermConflict as conflict:
                problems.append(document.error(conflict.message, (*prefix, *conflict.path)))
                continue
            first_seen[case.id] = _location(document, (*prefix, "id"))
            suite.cases.append(case)
            suite.origins.append(first_seen[case.id])
    if problems:
        raise InputErrors(problems)
    if not suite.cases:
        where = "these files" if directory else "this file"
        raise InputError(f"no test cases in {where} (an empty input is refused)", source=source)
    return suite


def load_selections(path: str | os.PathLike[str]) -> Selections:
    """Read a system's selection records: JSON Lines, or a JSON or YAML list of records (or
    one record); ``-`` reads standard input.

    Every bad line or record is collected and raised together as ``InputErrors``; a file
    without any record raises ``InputError``.
    """
    source = source_name(path)
    document = load_document(path)
    problems = list(document.problems)
    selections = Selections(source)
    what = "a selections file holds selection records (a list of them, or one)"
    entries = _entries(document, what, problems)
    # Each record's model is let go once checked (``Selections`` keeps the decoded value) and
    # the document lets go of the values: each record is held once.
    document.data = None
    for index, (prefix, value) in enumerate(entries):
        entries[index] = ((), None)
        record = _validated(
            SelectionRecord, document, prefix, value, "a selection record", problems, selections.warnings
        )
        if record is not None:
            selections.decoded.append(value)
            selections.origins.append(_location(document, (*prefix, "id")))
        del value, record
    if problems:
        raise InputErrors(problems)
    if not selections.decoded:
        raise InputError("no selection records in this file (an empty input is refused)", source=source)
    return selections


def load_suite(cases: str | os.PathLike[str], selections: str | os.PathLike[str]) -> tuple[Cases, Selections]:
    """``load_cases(cases)`` and ``load_selections(selections)``, the problems of both files
    raised together (``InputErrors``), so that one run lists them all."""
    problems: list[InputError] = []
    loaded_cases: Cases | None = None
    loaded_selections: Selections | None = None
    try:
        loaded_cases = load_cases(cases)
    except InputError as error:
        problems.append(error)
    try:
        loaded_selections = load_selections(selections)
    except InputError as error:
        problems.append(error)
    if problems or loaded_cases is None or loaded_selections is None:
        raise InputErrors(problems)
    return loaded_cases, loaded_selections
