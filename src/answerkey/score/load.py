"""Corpus and answers files: loaders, errors at ``FILE:LINE:COL``.

A **corpus** is a YAML or JSON list of items, or JSON Lines with one item each
(``CorpusItemSchema``): an id, the query, the canonical CAS answer (``OR`` alternatives
allowed), an optional maximal answer (ATIS 1991-92 min/max), the H89-2019 section 5
category, tags, the earlier queries of a discourse item (H89 S-7), per-item ``epsilon`` /
``ordered`` overrides and ``order_by`` sort keys.

**Answers** (one system's) are records ``{"id": ..., "answer": "<CAS text>"}``
(``AnswerRecord``) in JSON Lines or a JSON/YAML list, a YAML or JSON mapping id -> CAS text,
or a directory of ``<id>.cas`` files. Formats are chosen by the file name's suffix (a
directory is a directory) or named explicitly. An empty file is an error, as for every input.

Loading checks the files' structure; the CAS text of canonical answers is parsed later,
while scoring (see ``answerkey.score.run.check_corpus``), so that a large corpus is parsed
once and in parallel.

>>> item = CorpusItem.validate({"id": 7, "answer": 52000, "category": 1})
>>> item.id, item.answer, item.category, item.scored
('7', '52000', '1', True)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from answerkey.errors import InputError, InputErrors, kind_of
from answerkey.files import Document, load_document, read_text, regular_files, source_name, validation_errors
from answerkey.score.schema import CATEGORIES as CATEGORIES, AnswerRecord, CorpusItemSchema, ValidationError, cas_text

# Format names the options take; each is read as this document format.
CORPUS_FORMATS = {"yaml": "yaml", "json": "json", "jsonl": "jsonl"}
ANSWER_FORMATS = {"jsonl": "jsonl", "json": "json", "yaml": "yaml", "dir": "dir"}
CAS_SUFFIX = ".cas"


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
    order_by: tuple[int, ...] | None = None
    written: frozenset[str] = frozenset()

    @property
    def scored(self) -> bool:
        """False for category X items, which are listed but not scored (H89-2019 section 5)."""
        return self.category != "X"

    @classmethod
    def validate(cls, value: object) -> CorpusItem:
        """The item ``value`` (a mapping as read from YAML or JSON) describes; raises pydantic's
        ``ValidationError`` when ``CorpusItemSchema`` rejects it."""
        model = CorpusItemSchema.model_validate(value)
        return cls(
            model.id,
            model.query,
            model.answer,
            model.max_answer,
            model.category,
            model.tags,
            model.context,
            model.epsilon,
            model.ordered,
            model.order_by,
            frozenset(model.model_fields_set),
        )


@dataclass
class Corpus:
    """The items of a corpus file, with where each item stands in it.

    ``problems`` lists the items that failed validation (they are not in ``items``); a
    corpus with problems is never scored.
    """

    source: str
    items: list[CorpusItem] = field(default_factory=list)
    paths: list[tuple[Any, ...]] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    document: Document | None = field(default=None, repr=False)

    def locate(self, index: int, field_name: str = "") -> tuple[int | None, int | None]:
        """The (line, column) of item ``index``, or of its field ``field_name`` when written."""
        if self.document is None:
            return (None, None)
        written = field_name and field_name in self.items[index].written
        return self.document.locate((*self.paths[index], field_name) if written else self.paths[index])

    def error(self, index: int, message: str, field_name: str = "") -> InputError:
        """An error located at item ``index`` (at its field ``field_name`` when written)."""
        line, column = self.locate(index, field_name)
        return InputError(message, source=self.source, line=line, column=column)


class SystemAnswer(NamedTuple):
    """One system answer as given: its CAS text (None for ``null``) and where it came from.

    ``origin`` is ``FILE:LINE`` (``FILE`` for a ``.cas`` file); ``embedded`` is True when the
    text sits inside a JSON or YAML file, so that positions in it are relative to the text.
    """

    text: str | None
    origin: str
    embedded: bool = True


@dataclass
class Answers:
    """One system's answers by item id, in file order."""

    source: str
    by_id: dict[str, SystemAnswer] = field(default_factory=dict)


def _records(document: Document) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, value) of each record of a document that is a list of records."""
    for index, value in enumerate(document.data):
        yield (index,), value


def load_corpus(path: str | os.PathLike[str], *, format: str | None = None) -> Corpus:
    """Read and validate a corpus file (YAML, JSON or JSONL; ``-`` reads stdin).

    Unreadable files and files without items raise ``InputError``. Invalid items and duplicate
    ids are collected in ``Corpus.problems`` (every one, located) and left out of
    ``Corpus.items``.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp(), "c.yaml")
    >>> _ = path.write_text("- {id: q1, answer: 5}\\n- {id: q1, anwser: 6}\\n- {id: q1, answer: 7}\\n")
    >>> corpus = load_corpus(path)
    >>> [item.answer for item in corpus.items]
    ['5']
    >>> for problem in corpus.problems: print(problem.line, problem.column, problem.message)
    2 20 anwser: unknown field (did you mean 'answer'?)
    3 8 duplicate id 'q1' (first on line 1)
    """
    source = source_name(path)
    if format is not None and format not in CORPUS_FORMATS:
        raise InputError(f"unknown corpus format {format!r}; known: {', '.join(CORPUS_FORMATS)}", source=source)
    document = load_document(path, format=CORPUS_FORMATS.get(format or ""))
    corpus = Corpus(source, document=document, problems=list(document.problems))
    if document.format != "jsonl" and document.data is not None and not isinstance(document.data, list):
        raise document.error(f"a corpus is a list of items, not {kind_of(document.data)}")
    if not document.data:
        if corpus.problems:
            raise InputErrors(corpus.problems)
        raise InputError("the corpus has no items (an empty input is refused)", source=source)
    first_seen: dict[str, tuple[Any, ...]] = {}
    for item_path, value in _records(document):
        if not isinstance(value, dict):
            corpus.problems.append(document.error(f"a corpus item is a mapping, not {kind_of(value)}", item_path))
            continue
        try:
            item = CorpusItem.validate(value)
        except ValidationError as error:
            corpus.problems.extend(
                validation_errors(
                    error, source=source, locate=document.locate, model=CorpusItemSchema, prefix=item_path
                )
            )
            continue
        if item.id in first_seen:
            first_line = document.locate((*first_seen[item.id], "id"))[0]
            corpus.problems.append(
                document.error(f"duplicate id {item.id!r} (first on line {first_line})", (*item_path, "id"))
            )
            continue
        first_seen[item.id] = item_path
        corpus.items.append(item)
        corpus.paths.append(item_path)
    corpus.problems.sort(key=InputError.sort_key)
    # The items hold what scoring needs; the decoded values would only take memory.
    corpus.document = replace(document, data=None)
    return corpus


def _answer_records(document: Document, problems: list[InputError]) -> Iterator[tuple[str, SystemAnswer, tuple]]:
    """(id, answer, path of the id) of each record of a list of answer records."""
    for record_path, value in _records(document):
        line = document.locate(record_path)[0]
        origin = f"{document.source}:{line}" if line is not None else document.source
        if not isinstance(value, dict):
            problems.append(document.error(f"an answer record is a mapping, not {kind_of(value)}", record_path))
            continue
        try:
            record = AnswerRecord.model_validate(value)
        except ValidationError as error:
            problems.extend(
                validation_errors(
                    error, source=document.source, locate=document.locate, model=AnswerRecord, prefix=record_path
                )
            )
            continue
        yield record.id, SystemAnswer(record.answer, origin), (*record_path, "id")


def _answer_mapping(document: Document, problems: list[InputError]) -> Iterator[tuple[str, SystemAnswer, tuple]]:
    """(id, answer, path) of each entry of a mapping id -> CAS text."""
    for key, value in document.data.items():
        line, column = document.locate((key,))
        origin = f"{document.source}:{line}" if line is not None else document.source
        try:
            text = cas_text(value)
        except ValueError as error:
            problems.append(InputError(f"{key}: {error}", source=document.source, line=line, column=column))
            continue
        if text is not None and not isinstance(text, str):
            problems.append(
                InputError(
                    f"{key}: the answer must be CAS text, not {kind_of(value)}",
                    source=document.source,
                    line=line,
                    column=column,
                )
            )
            continue
        yield str(key), SystemAnswer(text, origin), (key,)


def _answer_directory(path: str, problems: list[InputError]) -> Iterator[tuple[str, SystemAnswer, tuple]]:
    directory = Path(path)
    if not directory.is_dir():
        raise InputError("not a directory (the 'dir' answers format is a directory of <id>.cas files)", source=path)
    files, skipped = regular_files(directory, [""], recursive=False)
    for entry, why in skipped:
        # A stray entry may be an answer under the wrong name: never skip it silently.
        problems.append(InputError(f"not a <id>.cas file ({why})", source=str(entry)))
    for entry in files:
        if entry.suffix.lower() != CAS_SUFFIX:
            # A stray file may be an answer under the wrong name: never skip it silently.
            problems.append(
                InputError(
                    "not a <id>.cas file: an answers directory holds only <id>.cas files (hidden ones are skipped)",
                    source=str(entry),
                )
            )
            continue
        try:
            text = read_text(entry)
        except InputError as error:
            problems.append(error)
            continue
        yield entry.stem, SystemAnswer(text, str(entry), embedded=False), ()


def load_answers(path: str | os.PathLike[str], *, format: str | None = None) -> Answers:
    """Read one system's answers: records (JSON Lines, or a JSON/YAML list), a YAML or JSON
    mapping id -> CAS text, or a directory of ``<id>.cas`` files (``-`` reads standard input).

    Every structural problem (bad JSON, a missing id, an id given twice) is collected and
    raised together as ``InputErrors``; the CAS text itself is parsed while scoring.
    """
    name = os.fspath(path)
    source = source_name(name)
    if format is not None and format not in ANSWER_FORMATS:
        raise InputError(f"unknown answers format {format!r}; known: {', '.join(ANSWER_FORMATS)}", source=source)
    if format is None and name != "-" and Path(name).is_dir():
        format = "dir"
    problems: list[InputError] = []
    document = None
    if format == "dir":
        entries = _answer_directory(name, problems)
    else:
        document = load_document(path, format=ANSWER_FORMATS.get(format or ""))
        problems.extend(document.problems)
        if isinstance(document.data, dict):
            entries = _answer_mapping(document, problems)
        elif isinstance(document.data, list):
            entries = _answer_records(document, problems)
        elif document.data is None:
            entries = iter(())
        else:
            raise document.error(
                "an answers file is a list of {id, answer} records or a mapping id: CAS text, "
                f"not {kind_of(document.data)}"
            )
    answers = Answers(source)
    first_seen: dict[str, str] = {}
    for item_id, answer, id_path in entries:
        if item_id in answers.by_id:
            line, column = document.locate(id_path) if document is not None else (None, None)
            problems.append(
                InputError(
                    f"a second answer for id {item_id!r} (first at {first_seen[item_id]})",
                    source=source if answer.embedded else answer.origin,
                    line=line,
                    column=column,
                )
            )
            continue
        first_seen[item_id] = answer.origin
        answers.by_id[item_id] = answer
    if problems:
        raise InputErrors(problems)
    if not answers.by_id:
        what = "no <id>.cas files in this directory" if format == "dir" else "no answers in this file"
        raise InputError(f"{what} (an empty input is refused)", source=source)
    return answers
