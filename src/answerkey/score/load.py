"""Corpus and answers files: loaders, errors at ``FILE:LINE:COL``.

A **corpus** is a YAML list of items or JSON Lines, one item each (``CorpusItem``): an id,
the query, the canonical CAS answer (``OR`` alternatives allowed), an optional maximal
answer (ATIS 1991-92 min/max), the H89-2019 section 5 category, tags, the earlier queries of
a discourse item (H89 S-7) and per-item ``epsilon`` / ``ordered`` overrides.

**Answers** (one system's) are JSON Lines ``{"id": ..., "answer": "<CAS text>"}``
(``AnswerRecord``), a YAML mapping id -> CAS text, or a directory of ``<id>.cas`` files.
Formats are chosen by extension (a directory is a directory), or named explicitly.

The pydantic models ``CorpusItemSchema`` and ``AnswerRecord`` are the file formats: they
decide what is accepted and word every error. An item or record written in its plain form
(strings as strings, lists of strings, a float epsilon: what the schema keeps unchanged) is
read without them; anything else goes through them. Most files are plain throughout, and
then pydantic is never imported (it takes about 0.1 s of every run).

Loading checks the files' structure; the CAS text of canonical answers is parsed later,
while scoring (see ``answerkey.score.run.check_corpus``), so that a large corpus is parsed
once and in parallel.

>>> item = CorpusItem.validate({"id": 7, "answer": 52000, "category": 1})
>>> item.id, item.answer, item.category, item.scored
('7', '52000', '1', True)
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from answerkey.gc_pause import PAUSE_FROM_CHARS, gc_paused
from answerkey.errors import InputError
from answerkey.files import load_yaml, read_jsonl, read_text, validation_errors

__all__ = [
    "CATEGORIES",
    "CorpusItem",
    "CorpusItemSchema",
    "AnswerRecord",
    "Corpus",
    "SystemAnswer",
    "Answers",
    "InputErrors",
    "CORPUS_FORMATS",
    "ANSWER_FORMATS",
    "load_corpus",
    "load_answers",
]

# H89-2019 section 5: 0 no context, 1 local reference to the previous query, 2 ellipsis,
# 3 non-local reference, X excluded from scoring.
CATEGORIES = ("0", "1", "2", "3", "X")


def __getattr__(name: str) -> Any:
    # The schemas import pydantic: only when asked for (see the module docstring).
    if name in ("CorpusItemSchema", "AnswerRecord"):
        from answerkey.score import schema as _corpus_schema

        return getattr(_corpus_schema, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class InputErrors(InputError):
    """Several located input errors found in one pass; ``errors`` lists them in file order."""

    def __init__(self, errors: list[InputError]) -> None:
        first = errors[0] if errors else InputError("no errors")
        super().__init__(first.message, source=first.source, line=first.line, column=first.column)
        self.errors = list(errors)

    def __str__(self) -> str:
        return "\n".join(str(error) for error in self.errors)


def _cas_text(value: Any) -> Any:
    """YAML and JSON read ``5``, ``2.5``, ``yes`` and ``2024-01-01`` as numbers, booleans and
    dates: turn them back into the CAS text they were written as."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("a number in CAS text must be finite")
        return repr(value)
    if isinstance(value, _dt.datetime):
        raise ValueError("a date and time is not CAS text; quote it")
    if isinstance(value, _dt.date):
        return value.isoformat()
    return value


@dataclass(slots=True)
class CorpusItem:
    """One valid corpus item (its fields as ``CorpusItemSchema`` describes them).

    ``written`` names the fields the file gives, which errors point at.
    """

    id: str
    query: str = ""
    answer: str | None = None
    max_answer: str | None = None
    category: str = "0"
    tags: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    epsilon: float | None = None
    ordered: bool | None = None
    written: frozenset[str] = frozenset()

    @property
    def scored(self) -> bool:
        """False for category X items, which are listed but not scored (H89-2019 section 5)."""
        return self.category != "X"

    @classmethod
    def validate(cls, value: object) -> CorpusItem:
        """The item ``value`` (a mapping as read from YAML or JSON) describes; raises pydantic's
        ``ValidationError`` when ``CorpusItemSchema`` rejects it."""
        item = _plain_item(value)
        if item is None:
            from answerkey.score.schema import CorpusItemSchema

            item = _schema_item(CorpusItemSchema.model_validate(value))
        return item


_ITEM_FIELDS = frozenset(("id", "query", "answer", "max_answer", "category", "tags", "context", "epsilon", "ordered"))
_UNWRITTEN: list = []  # a list field the item does not give: plain, and never kept (items get copies)
_STR = {str}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _strings(value: object) -> bool:
    return type(value) is list and (not value or set(map(type, value)) == _STR)


def _plain_id(value: object) -> bool:
    # The schema measures an id's length, which fails on a lone surrogate (JSON allows the
    # escape): such an id is the schema's to reject.
    return type(value) is str and value != "" and (value.isascii() or not _SURROGATE.search(value))


def _plain_item(value: object) -> CorpusItem | None:
    """``value`` as an item when each field is in the form the schema keeps unchanged; None
    when the schema must decide (a number for a string, ``x`` for ``X``, an error, ...).
    ``tests/test_corpus_plain.py`` checks it against the schema."""
    if type(value) is not dict or not value.keys() <= _ITEM_FIELDS:
        return None
    get = value.get
    item_id, query, answer, max_answer = get("id"), get("query", ""), get("answer"), get("max_answer")
    category, tags, context = get("category", "0"), get("tags", _UNWRITTEN), get("context", _UNWRITTEN)
    epsilon, ordered = get("epsilon"), get("ordered")
    plain = (
        _plain_id(item_id) and type(query) is str
        and type(category) is str and category in CATEGORIES
        # No answer only for a category X item, and then no maximal answer.
        and (type(answer) is str or answer is None and category == "X" and max_answer is None)
        and (max_answer is None or type(max_answer) is str)
        and _strings(tags) and _strings(context)
        and (epsilon is None or type(epsilon) is float and 0 <= epsilon < math.inf)
        and (ordered is None or type(ordered) is bool)
    )
    if not plain:
        return None
    return CorpusItem(item_id, query, answer, max_answer, category, list(tags), list(context), epsilon, ordered,
                      frozenset(value))


def _schema_item(model: Any) -> CorpusItem:
    """A ``CorpusItemSchema`` instance as an item."""
    return CorpusItem(model.id, model.query, model.answer, model.max_answer, model.category, model.tags,
                      model.context, model.epsilon, model.ordered, frozenset(model.model_fields_set))


class _Record(NamedTuple):
    """A valid answer record (one JSONL line): the item id and the CAS text, None for null."""

    id: str
    answer: str | None


def _plain_answer(value: object) -> _Record | None:
    """``value`` as a record when it is in the form ``AnswerRecord`` keeps unchanged (other
    keys are allowed and ignored); None when the schema must decide."""
    if type(value) is not dict or "answer" not in value:
        return None
    item_id, text = value.get("id"), value["answer"]
    if _plain_id(item_id) and (type(text) is str or text is None):
        return _Record(item_id, text)
    return None


@dataclass
class Corpus:
    """The items of a corpus file, with where each item and field starts.

    ``problems`` lists the items that failed validation (they are not in ``items``); a
    corpus with problems is never scored.
    """

    source: str
    items: list[CorpusItem] = field(default_factory=list)
    # Per item (same order as ``items``): locate(path) -> (line, column) of the item (path
    # ``()``) or of one of its fields (``("answer",)``), computed only when an error needs it.
    locators: list[Callable[[tuple], tuple[int | None, int | None]]] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)

    def error(self, index: int, message: str, field_name: str = "") -> InputError:
        """An error located at item ``index`` (at its field ``field_name`` when written)."""
        written = field_name and field_name in self.items[index].written
        line, column = self.locators[index]((field_name,) if written else ())
        return InputError(message, source=self.source, line=line, column=column)


class SystemAnswer(NamedTuple):
    """One system answer as given: its CAS text (None for ``null``) and where it came from.

    ``origin`` is ``FILE:LINE`` (``FILE`` for a ``.cas`` file); ``embedded`` is True when the
    text sits inside a JSONL or YAML file, so that positions in it are relative to the text.
    """

    text: str | None
    origin: str
    embedded: bool = True


@dataclass
class Answers:
    """One system's answers by item id, in file order."""

    source: str
    by_id: dict[str, SystemAnswer] = field(default_factory=dict)


# ---------------------------------------------------------------- format choice

_JSONL_SUFFIXES = {".jsonl", ".ndjson"}
_YAML_SUFFIXES = {".yaml", ".yml", ".json"}


def _sniff(path: str, text: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in _JSONL_SUFFIXES:
        return "jsonl"
    if suffix in _YAML_SUFFIXES:
        return "yaml"
    return "jsonl" if text.lstrip().startswith("{") else "yaml"


def _key_column(line_text: str, key: object) -> int:
    """The column of ``"key"`` in a JSONL line (1 when it is not written there)."""
    index = line_text.find(f'"{key}"')
    return index + 1 if index >= 0 else 1


# json.loads without its wrapper (a third of its time on short lines). A line it would read
# but this refuses (one starting with a blank) takes the careful path, with the same result.
_decode = json.JSONDecoder().raw_decode


def _jsonl_entries(
    text: str, source: str, problems: list[InputError], read: Callable[[object, str], object | None]
) -> Iterator[tuple[object, Callable]]:
    """(value, locate) for each JSONL line, bad JSON going to ``problems``. ``read(value,
    line)`` gives the line's record when the line is valid, and then the record comes back;
    any other line comes back as its JSON value, to be validated and reported at its place."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue

        def locate(loc: tuple, line_number=number, line_text=line) -> tuple[int, int]:
            return (line_number, _key_column(line_text, loc[0]) if loc else 1)

        try:
            value, end = _decode(line)
            if end != len(line) and not line[end:].isspace():
                value = None
        except (ValueError, RecursionError):
            value = None
        record = read(value, line)
        if record is not None:
            yield record, locate
            continue
        for entry in read_jsonl(line, source=source):
            if entry.error is not None:
                entry.error.line = number
                problems.append(entry.error)
            else:
                yield entry.value, locate


# ---------------------------------------------------------------- corpus


def _read_corpus_yaml(text: str, source: str, problems: list[InputError]):
    doc = load_yaml(text, source=source)
    if doc.data is None:
        return
    if not isinstance(doc.data, list):
        raise doc.error(f"a corpus is a list of items, not a {type(doc.data).__name__}")
    for index, value in enumerate(doc.data):
        yield value, (lambda loc, index=index: doc.locate((index, *loc)))


def _corpus_line(value: object, line: str) -> CorpusItem | None:
    item = _plain_item(value)
    if item is None:
        from answerkey.score.schema import CorpusItemSchema, ValidationError

        try:  # pydantic reads the line itself: its JSON reading is the schema's
            item = _schema_item(CorpusItemSchema.model_validate_json(line))
        except ValidationError:
            return None
    return item


def _read_corpus_jsonl(text: str, source: str, problems: list[InputError]):
    yield from _jsonl_entries(text, source, problems, _corpus_line)


# Corpus format name -> reader yielding (raw or validated item, locate(loc) -> (line, column)).
CORPUS_FORMATS: dict[str, Callable] = {"yaml": _read_corpus_yaml, "jsonl": _read_corpus_jsonl}


def load_corpus(path: str | os.PathLike, *, format: str | None = None) -> Corpus:
    """Read and validate a corpus file (YAML list or JSONL; ``-`` reads stdin).

    Unreadable files raise ``InputError``. Invalid items and duplicate ids are collected in
    ``Corpus.problems`` (every one, located) and left out of ``Corpus.items``.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp(), "c.yaml")
    >>> _ = path.write_text("- {id: q1, answer: 5}\\n- {id: q1, answr: 6}\\n- {id: q1, answer: 7}\\n")
    >>> corpus = load_corpus(path)
    >>> [item.answer for item in corpus.items]
    ['5']
    >>> [(problem.line, problem.column, problem.message) for problem in corpus.problems]
    [(2, 19, 'answr: Extra inputs are not permitted'), (3, 8, "duplicate id 'q1' (first on line 1)")]
    """
    source = "<stdin>" if os.fspath(path) == "-" else os.fspath(path)
    text = read_text(path)
    chosen = format or _sniff(source, text)
    if chosen not in CORPUS_FORMATS:
        raise InputError(f"unknown corpus format {chosen!r}; known: {', '.join(CORPUS_FORMATS)}", source=source)
    with gc_paused(len(text) >= PAUSE_FROM_CHARS):
        corpus = _validated_corpus(CORPUS_FORMATS[chosen], text, source)
    if not corpus.items and not corpus.problems:
        raise InputError("the corpus has no items", source=source)
    corpus.problems.sort(key=lambda error: (error.line or 0, error.column or 0))
    return corpus


def _validated_corpus(reader: Callable, text: str, source: str) -> Corpus:
    corpus = Corpus(source)
    first_seen: dict[str, Callable] = {}  # id -> locate of its first item
    for value, locate in reader(text, source, corpus.problems):
        if isinstance(value, CorpusItem):
            item = value
        elif not isinstance(value, dict):
            line, column = locate(())
            corpus.problems.append(InputError(
                f"a corpus item is a mapping, not a {type(value).__name__}", source=source, line=line, column=column
            ))
            continue
        elif (item := _plain_item(value)) is None:
            from answerkey.score.schema import CorpusItemSchema, ValidationError

            try:
                item = _schema_item(CorpusItemSchema.model_validate(value))
            except ValidationError as error:
                corpus.problems.extend(validation_errors(error, source=source, locate=locate))
                continue
        if item.id in first_seen:
            line, column = locate(("id",))
            corpus.problems.append(InputError(
                f"duplicate id {item.id!r} (first on line {first_seen[item.id](('id',))[0]})",
                source=source, line=line, column=column,
            ))
            continue
        first_seen[item.id] = locate
        corpus.items.append(item)
        corpus.locators.append(locate)
    return corpus


# ---------------------------------------------------------------- answers


def _answer_line(value: object, line: str) -> _Record | None:
    record = _plain_answer(value)
    if record is None:
        from answerkey.score.schema import AnswerRecord, ValidationError

        try:
            model = AnswerRecord.model_validate_json(line)
        except ValidationError:
            return None
        record = _Record(model.id, model.answer)
    return record


def _answers_jsonl(path: str, text: str | None, source: str, problems: list[InputError]):
    for value, locate in _jsonl_entries(text, source, problems, _answer_line):
        line = locate(())[0]
        if isinstance(value, _Record):
            record = value
        elif not isinstance(value, dict):
            problems.append(InputError(
                f"an answer record is a JSON object, not {type(value).__name__}", source=source, line=line, column=1
            ))
            continue
        else:
            from answerkey.score.schema import AnswerRecord, ValidationError

            try:
                model = AnswerRecord.model_validate(value)
            except ValidationError as error:
                problems.extend(validation_errors(error, source=source, locate=locate))
                continue
            record = _Record(model.id, model.answer)
        yield record.id, SystemAnswer(record.answer, f"{source}:{line}"), locate(("id",))


def _answers_yaml(path: str, text: str | None, source: str, problems: list[InputError]):
    doc = load_yaml(text, source=source)
    if doc.data is None:
        return
    if not isinstance(doc.data, dict):
        raise doc.error(f"a YAML answers file maps ids to CAS text, not a {type(doc.data).__name__}")
    for key, value in doc.data.items():
        line, column = doc.locate((str(key),)) if (str(key),) in doc.positions else doc.locate(())
        try:
            text = _cas_text(value)
        except ValueError as error:
            problems.append(InputError(f"{key}: {error}", source=source, line=line, column=column))
            continue
        if text is not None and not isinstance(text, str):
            problems.append(InputError(
                f"{key}: the answer must be CAS text, not a {type(value).__name__}",
                source=source, line=line, column=column,
            ))
            continue
        yield str(key), SystemAnswer(text, f"{source}:{line}"), (line, column)


_CAS_SUFFIX = ".cas"


def _answers_directory(path: str, text: str | None, source: str, problems: list[InputError]):
    directory = Path(path)
    if not directory.is_dir():
        raise InputError("not a directory (the 'dir' answers format is a directory of <id>.cas files)", source=source)
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith("."):
            continue  # .git, .DS_Store and editors' files
        if entry.suffix.lower() != _CAS_SUFFIX or not entry.is_file():
            # A stray file may be an answer under the wrong name: never skip it silently.
            problems.append(InputError(
                "not a <id>.cas file: an answers directory holds only <id>.cas files (hidden ones are skipped)",
                source=str(entry),
            ))
            continue
        try:
            text = read_text(entry)
        except InputError as error:
            problems.append(error)
            continue
        yield entry.stem, SystemAnswer(text, str(entry), embedded=False), (None, None)


# Answers format name -> reader(path, text, source, problems) yielding (id, SystemAnswer,
# (line, column) of the id). ``text`` is the file's text (None for a directory).
ANSWER_FORMATS: dict[str, Callable] = {"jsonl": _answers_jsonl, "yaml": _answers_yaml, "dir": _answers_directory}


def load_answers(path: str | os.PathLike, *, format: str | None = None) -> Answers:
    """Read one system's answers: JSONL records, a YAML mapping, or a directory of
    ``<id>.cas`` files (``-`` reads JSONL or YAML from stdin).

    Every structural problem (bad JSON, a missing id, an id given twice) is collected and
    raised together as ``InputErrors``; the CAS text itself is parsed while scoring.
    """
    name = os.fspath(path)
    source = "<stdin>" if name == "-" else name
    is_directory = name != "-" and Path(name).is_dir()
    if format is None and is_directory:
        format = "dir"
    text = None if format == "dir" or (format is None and is_directory) else read_text(path)
    if format is None:
        format = _sniff(source, text)
    if format not in ANSWER_FORMATS:
        raise InputError(f"unknown answers format {format!r}; known: {', '.join(ANSWER_FORMATS)}", source=source)
    with gc_paused(text is None or len(text) >= PAUSE_FROM_CHARS):
        answers, problems = _collected_answers(ANSWER_FORMATS[format], name, text, source)
    if problems:
        raise InputErrors(sorted(problems, key=lambda error: (error.source or "", error.line or 0, error.column or 0)))
    return answers


def _collected_answers(reader: Callable, name: str, text: str | None, source: str):
    answers = Answers(source)
    problems: list[InputError] = []
    first_seen: dict[str, str] = {}
    for item_id, answer, (line, column) in reader(name, text, source, problems):
        if item_id in answers.by_id:
            problems.append(InputError(
                f"a second answer for id {item_id!r} (first at {first_seen[item_id]})",
                source=source if answer.embedded else answer.origin, line=line, column=column,
            ))
            continue
        first_seen[item_id] = answer.origin
        answers.by_id[item_id] = answer
    return answers, problems
