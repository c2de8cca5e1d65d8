"""Reading the reference corpus, the responses and evaluation results.

From files (``read_reference``, ``read_responses``, ``read_results``): JSON, JSON Lines or
YAML (by the file name's suffix, else by the first character), every problem an
``InputError`` at ``FILE:LINE:COL`` (several at once: ``InputErrors``), in answerkey's words.
An empty file is an error, as for every input; so is a file of another kind (a reference
corpus given as results, say), which is named as what it is.

From Python values given to the API (``validate_reference``, ``validate_responses``,
``validate_results``): the same models, each problem named by its path
(``reference.0.questions.1.id: ...``).

>>> validate_responses([{"question_id": "q1", "steps": 3}])
Traceback (most recent call last):
...
answerkey.errors.InputError: <input>: responses.0.steps: should be a list, not an integer
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from pydantic import BaseModel, ValidationError

from answerkey.errors import InputError, InputErrors, kind_of
from answerkey.files import Document, load_document, read_text, source_name, validation_errors
from answerkey.limits import MAX_JSON_DEPTH
from answerkey.signature import Signature
from answerkey.steps.schema import (
    GRAPHRAG_EVAL_6,
    QuestionResult,
    ReferenceCorpus,
    Response,
    ResultsReport,
    Template,
    shown_number,
)

# A response's values are written this many levels deeper in a results report (the report,
# its list of results), which may nest only MAX_JSON_DEPTH levels like any input.
RESULT_DEPTH = 2
# What a file of each kind is called when it is given in the wrong place.
_KINDS = {
    "reference": "a reference corpus (templates with questions)",
    "responses": "an agent's responses",
    "results": "evaluation results (the report of steps evaluate)",
    "aggregates": "an aggregates report (the report of steps aggregate)",
}
# A results report written by answerkey before its reports were documents began with this comment.
_OLD_SIGNATURE_COMMENT = "# answerkey steps evaluate | "


@dataclass
class Reference:
    """A reference corpus read from a file: the models, and the templates as read (copied to
    the results unchanged)."""

    source: str
    corpus: ReferenceCorpus
    templates: list[Any]
    document: Document | None = field(default=None, repr=False)

    def origin(self, path: tuple[Any, ...]) -> str:
        """``FILE:LINE`` of the value at ``path`` in the corpus (``FILE`` when unknown)."""
        return _origin(self.document, self.source, path)


def _origin(document: Document | None, source: str, path: tuple[Any, ...]) -> str:
    """``FILE:LINE`` of the value at ``path`` (``FILE`` when its line is unknown)."""
    line = document.locate(path)[0] if document is not None else None
    return f"{source}:{line}" if line is not None else source


@dataclass
class Responses:
    """An agent's responses read from a file: ``by_id`` maps a question id to (model, the
    response as read); ``origin(question_id)`` says where it stands."""

    source: str
    by_id: dict[str, tuple[Response, Mapping[str, Any]]] = field(default_factory=dict)
    paths: dict[str, tuple[Any, ...]] = field(default_factory=dict, repr=False)
    document: Document | None = field(default=None, repr=False)

    def origin(self, question_id: str) -> str:
        """``FILE:LINE`` of the response to ``question_id`` (located only when asked: warnings
        are few, and placing every line of a large file is not free)."""
        return _origin(self.document, self.source, self.paths.get(question_id, ()))

    def step_origin(self, question_id: str, index: int) -> str:
        """``FILE:LINE`` of the output of actual step ``index`` of the response to ``question_id``."""
        where = self.paths.get(question_id)
        if where is None:
            return self.source
        raw = self.by_id[question_id][1]
        key = "actual_steps" if "actual_steps" in raw else "steps"
        return _origin(self.document, self.source, (*where, key, index, "output"))


@dataclass
class EvaluationResults:
    """Per-question results read from a file, and the signature of the run that wrote them
    (None when the file has none, e.g. graphrag-eval's); ``origin(index)`` says where a
    result stands."""

    source: str
    results: list[dict[str, Any]] = field(default_factory=list)
    signature: Signature | None = None
    paths: list[tuple[Any, ...]] = field(default_factory=list, repr=False)
    document: Document | None = field(default=None, repr=False)

    def origin(self, index: int) -> str:
        """``FILE:LINE`` of result ``index``."""
        return _origin(self.document, self.source, self.paths[index] if index < len(self.paths) else ())


@dataclass
class _Input:
    """A file read for one of the loaders: its name, text and document, and the error that
    says it holds nothing."""

    source: str
    text: str
    document: Document
    empty: InputError


def _read_input(path: str | os.PathLike[str], nothing: str) -> _Input:
    """The document in ``path``. A blank file, or one whose document holds nothing (and no
    line that could not be read), raises ``InputError`` ``nothing (an empty input is
    refused)``: one rule for every input."""
    source = source_name(path)
    text = read_text(path)
    empty = InputError(f"{nothing} (an empty input is refused)", source=source)
    if not text.strip():
        raise empty
    document = load_document(path, text=text)
    if _empty(document.data) and not document.problems:
        raise empty
    return _Input(source, text, document, empty)


def _raise(problems: Sequence[InputError]) -> NoReturn:
    """Raise the one problem as it is (one line), or all of them in file order."""
    if len(problems) == 1:
        raise problems[0]
    raise InputErrors(problems)


# What a YAML text holds when it may have a value that is not JSON's: a NaN or an infinity
# (.nan, .Inf), a tag (!!binary, !!set, !!float nan), a date (2024-01-01).
_MAYBE_NOT_JSON = re.compile(r"\.(?:nan|inf)\b|!|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}", re.IGNORECASE)


def _plain_values(document: Document, text: str) -> list[InputError]:
    """Make the values of a YAML document ``text`` ones the reports can hold, as they are
    copied there: a date or a time (``2024-01-01``) becomes its ISO text; NaN, infinities,
    binary data and sets are problems, located. JSON documents hold nothing else (their
    readers refuse NaN)."""
    if document.format != "yaml" or not _MAYBE_NOT_JSON.search(text):
        return []
    problems = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), document.data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, (_dt.date, _dt.datetime)):
                    value[key] = item.isoformat()
                else:
                    stack.append(((*path, key), item))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, (_dt.date, _dt.datetime)):
                    value[index] = item.isoformat()
                else:
                    stack.append(((*path, index), item))
        elif isinstance(value, float) and not math.isfinite(value):
            problems.append(
                document.error(
                    f"{shown_number(value)} is not a finite number, and the reports (JSON) can hold only finite ones",
                    path,
                )
            )
        elif not (value is None or isinstance(value, (str, int, float))):
            what = "binary data" if isinstance(value, bytes) else "a set" if isinstance(value, set) else kind_of(value)
            problems.append(document.error(f"{what} cannot be written to the reports (JSON); give text instead", path))
    return problems


def _merge(problems: list[InputError], more: Iterable[InputError]) -> list[InputError]:
    """``problems`` and those of ``more`` at places none of them is reported at."""
    places = {(problem.line, problem.column) for problem in problems}
    return [*problems, *(problem for problem in more if (problem.line, problem.column) not in places)]


def _empty(data: Any) -> bool:
    return data is None or (isinstance(data, (list, Mapping)) and not data)


def nesting(value: Any) -> int:
    """How many levels of lists and mappings ``value`` has (0 for a plain value).

    >>> nesting("x"), nesting([]), nesting({"a": [1, {"b": []}]})
    (0, 1, 4)
    """
    deepest = 0
    # Containers shared by several parents (YAML aliases, Python objects) are walked again
    # only when met deeper than before: a cycle or a lattice of shared lists costs no more.
    walked: dict[int, int] = {}
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, Mapping):
            children: Iterable[Any] = current.values()
        elif isinstance(current, (list, tuple)):
            children = current
        else:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH or walked.get(id(current), 0) >= depth:
            continue  # deeper than any file may nest: refused whatever lies below
        walked[id(current)] = depth
        stack.extend((child, depth + 1) for child in children)
    return deepest


def document_kind(data: Any) -> str | None:
    """What a document looks like: ``reference``, ``responses``, ``results``, ``aggregates``,
    or None when it is none of them.

    >>> document_kind([{"template_id": "t", "questions": []}]), document_kind({"q1": {"question_id": "q1"}})
    ('reference', 'responses')
    """
    if isinstance(data, Mapping):
        if {"per_template", "micro", "macro"} <= data.keys():
            return "aggregates"
        if {"results", "summary"} <= data.keys():
            return "results"
        if "question_id" in data:
            return "responses"
        values = list(data.values())
        if values and all(isinstance(value, Mapping) and "question_id" in value for value in values):
            return "responses"
        return None
    if isinstance(data, list) and data and all(isinstance(value, Mapping) for value in data):
        if all("questions" in value and "question_id" not in value for value in data):
            return "reference"
        if all("template_id" in value and "question_id" in value for value in data):
            return "results"
        if all("question_id" in value and "template_id" not in value for value in data):
            return "responses"
    return None


def _wrong_kind(document: Document, wanted: str, advice: str = "") -> None:
    found = document_kind(document.data)
    if found is not None and found != wanted:
        where = (0,) if document.format == "jsonl" else ()
        raise document.error(f"this is {_KINDS[found]}, not {_KINDS[wanted]}{advice}", where)


# ---------------------------------------------------------------------------------- files


def read_reference(path: str | os.PathLike[str], *, graphrag_eval: int = 4) -> Reference:
    """The reference corpus in ``path`` (YAML, JSON or JSON Lines of templates);
    ``graphrag_eval=6`` reads it as graphrag-eval 6.x does (steps without ``output``).

    Raises ``InputError`` (``InputErrors`` for several) listing every problem at its place:
    a bad template, question or step, a question id given twice, an empty corpus.
    """
    given = _read_input(path, "the reference corpus has no templates")
    source, text, document = given.source, given.text, given.document
    if document.problems:
        _raise(document.problems)
    data = document.data
    _wrong_kind(document, "reference")
    if not isinstance(data, list):
        raise document.error(
            f"a reference corpus is a list of templates (each with template_id and questions), not {kind_of(data)}"
        )
    plain = _plain_values(document, text)
    problems: list[InputError] = []
    templates: list[Template] = []
    for index, value in enumerate(data):
        if not isinstance(value, Mapping):
            problems.append(
                document.error(
                    f"a template is a mapping with template_id and questions, not {kind_of(value)}", (index,)
                )
            )
            continue
        try:
            templates.append(Template.model_validate(value, context=_context(graphrag_eval)))
        except ValidationError as error:
            problems.extend(
                validation_errors(error, source=source, locate=document.locate, model=Template, prefix=(index,))
            )
    problems = _merge([*problems, *_duplicate_question_ids(document)], plain)
    if problems:
        _raise(sorted(problems, key=InputError.sort_key))
    corpus = ReferenceCorpus.model_construct(root=templates)
    if not corpus.question_ids():
        raise InputError("the reference corpus has no questions (an empty input is refused)", source=source)
    return Reference(source, corpus, data, document)


def _duplicate_question_ids(document: Document) -> list[InputError]:
    first_seen: dict[str, tuple[Any, ...]] = {}
    problems = []
    for t, template in enumerate(document.data):
        questions = template.get("questions") if isinstance(template, Mapping) else None
        for q, question in enumerate(questions if isinstance(questions, list) else []):
            if not isinstance(question, Mapping):
                continue
            question_id = question.get("id")
            if isinstance(question_id, bool) or not isinstance(question_id, (str, int)):
                continue
            key, where = str(question_id), (t, "questions", q, "id")
            if key in first_seen:
                line = document.locate(first_seen[key])[0]
                problems.append(document.error(f"question id {key!r} appears twice (first at line {line})", where))
            else:
                first_seen[key] = where
    return problems


def _response_entries(document: Document) -> list[tuple[tuple[Any, ...], str | None, Any]]:
    """(path, the key it is filed under or None, value) of each response in a document."""
    data = document.data
    prefix: tuple[Any, ...] = ()
    if document.format == "jsonl" and len(data) == 1 and isinstance(data[0], Mapping) and "question_id" not in data[0]:
        # An object keyed by question id, on one line (standard input is read as JSON Lines then).
        data, prefix = data[0], (0,)
    if isinstance(data, Mapping):
        if "question_id" in data:
            return [(prefix, None, data)]  # a single response
        return [((*prefix, key), key, value) for key, value in data.items()]
    if isinstance(data, list):
        return [((index,), None, value) for index, value in enumerate(data)]
    raise document.error(
        f"responses are an object keyed by question id, a list of responses or JSON Lines, not {kind_of(data)}"
    )


def read_responses(path: str | os.PathLike[str]) -> Responses:
    """The responses in ``path``: a JSON or YAML object keyed by question id, a list of
    responses, or JSON Lines with one response per line.

    Raises ``InputError`` (``InputErrors`` for several) for every bad response, a response
    filed under another question's id, two responses to one question, an empty file.
    """
    given = _read_input(path, "no responses in this file")
    source, text, document, empty = given.source, given.text, given.document, given.empty
    problems = list(document.problems)
    _wrong_kind(document, "responses")
    plain = _plain_values(document, text)
    responses = Responses(source, document=document)
    limit = MAX_JSON_DEPTH - RESULT_DEPTH
    for where, key, raw in _response_entries(document):
        if not isinstance(raw, Mapping):
            problems.append(document.error(f"a response is a mapping with question_id, not {kind_of(raw)}", where))
            continue
        if nesting(raw) > limit:
            problems.append(
                document.error(
                    f"a response may nest at most {limit} levels: the results hold it {RESULT_DEPTH} levels deeper, "
                    f"and a file may nest at most {MAX_JSON_DEPTH}",
                    where,
                )
            )
            continue
        try:
            model = Response.model_validate(raw)
        except ValidationError as error:
            problems.extend(
                validation_errors(error, source=source, locate=document.locate, model=Response, prefix=where)
            )
            continue
        if key is not None and model.question_id != key:
            problems.append(
                document.error(
                    f"keyed by {key!r} but its question_id is {model.question_id!r}", (*where, "question_id")
                )
            )
            continue
        if model.question_id in responses.by_id:
            first = responses.origin(model.question_id)
            message = f"a second response to question {model.question_id!r} (first at {first})"
            problems.append(document.error(message, (*where, "question_id")))
            continue
        responses.by_id[model.question_id] = (model, raw)
        responses.paths[model.question_id] = where
    problems = _merge(problems, plain)
    if problems:
        _raise(sorted(problems, key=InputError.sort_key))
    if not responses.by_id:
        raise empty
    return responses


def read_evaluation_inputs(
    reference: str | os.PathLike[str], responses: str | os.PathLike[str], *, graphrag_eval: int = 4
) -> tuple[Reference, Responses]:
    """Both inputs of an evaluation; the problems of both files are raised together."""
    problems: list[InputError] = []
    loaded_reference = loaded_responses = None
    try:
        loaded_reference = read_reference(reference, graphrag_eval=graphrag_eval)
    except InputError as error:
        problems.append(error)
    try:
        loaded_responses = read_responses(responses)
    except InputError as error:
        problems.append(error)
    if problems:
        _raise(problems)
    assert loaded_reference is not None and loaded_responses is not None
    return loaded_reference, loaded_responses


def _envelope_signature(document: Document, problems: list[InputError]) -> Signature | None:
    text = document.data.get("signature")
    if not isinstance(text, str):
        return None  # reported by the model
    try:
        return Signature.parse(text)
    except ValueError:
        problems.append(
            document.error(
                f"signature: not an answerkey signature (name:value|...|v:VERSION): {text[:80]!r}", ("signature",)
            )
        )
        return None


def _comment_signature(text: str) -> Signature | None:
    first_line = text.split("\n", 1)[0]
    if not first_line.startswith(_OLD_SIGNATURE_COMMENT):
        return None
    try:
        return Signature.parse(first_line[len(_OLD_SIGNATURE_COMMENT) :])
    except ValueError:
        return None


def read_results(path: str | os.PathLike[str]) -> EvaluationResults:
    """Per-question results in ``path``: the report ``answerkey steps evaluate`` writes (JSON
    or YAML), or a bare list of results as graphrag-eval writes them (JSON, JSON Lines, YAML).

    Raises ``InputError`` (``InputErrors`` for several) for every result that is not one (a
    ``steps_score`` outside [0, 1], ``actual_steps`` that are not a list, ...), for a file of
    another kind (a reference corpus: run ``steps evaluate`` first) and for an empty file.
    """
    given = _read_input(path, "no results in this file")
    source, text, document, empty = given.source, given.text, given.document, given.empty
    problems = list(document.problems)
    data = document.data
    _wrong_kind(
        document,
        "results",
        ": run `answerkey steps evaluate REFERENCE RESPONSES` first, and aggregate the results it writes"
        if document_kind(data) == "reference"
        else "",
    )
    plain = _plain_values(document, text)
    loaded = EvaluationResults(source, document=document)
    prefix: tuple[Any, ...] = ()
    if isinstance(data, Mapping):
        if "results" not in data:
            raise document.error(
                'evaluation results are the report of `answerkey steps evaluate` (with "results") '
                'or a list of per-question results, not a mapping without "results"'
            )
        try:
            ResultsReport.model_validate({**data, "results": []})
        except ValidationError as error:
            problems.extend(validation_errors(error, source=source, locate=document.locate, model=ResultsReport))
        if not isinstance(data["results"], list):
            _raise(
                [*problems, document.error(f"results: should be a list, not {kind_of(data['results'])}", ("results",))]
            )
        loaded.signature = _envelope_signature(document, problems)
        records, prefix = data["results"], ("results",)
    elif isinstance(data, list):
        records = data
        loaded.signature = _comment_signature(text) if document.format == "yaml" else None
    else:
        raise document.error(f"evaluation results are a list of per-question results, not {kind_of(data)}")
    for index, record in enumerate(records):
        where = (*prefix, index)
        if not isinstance(record, Mapping):
            problems.append(
                document.error(f"a per-question result is a mapping with template_id, not {kind_of(record)}", where)
            )
            continue
        try:
            QuestionResult.model_validate(record)
        except ValidationError as error:
            problems.extend(
                validation_errors(error, source=source, locate=document.locate, model=QuestionResult, prefix=where)
            )
            continue
        loaded.results.append(dict(record))
        loaded.paths.append(where)
    problems = _merge(problems, plain)
    if problems:
        _raise(sorted(problems, key=InputError.sort_key))
    if not loaded.results:
        raise empty
    return loaded


# ---------------------------------------------------------------------------------- Python values


def _check_nesting(value: Any, where: str) -> None:
    # Results are deep copies written out recursively: refuse what no file reader would accept.
    if nesting(value) > MAX_JSON_DEPTH:
        raise InputError(f"{where}: nested deeper than {MAX_JSON_DEPTH} levels")


def _api_error(error: ValidationError, where: str, model: type[BaseModel]) -> InputError:
    """A pydantic error about a Python value as ``InputError``(s) named by their path from ``where``."""
    found = []
    details = error.errors(include_url=False)
    for detail, problem in zip(
        details, validation_errors(error, source="", locate=lambda _: (None, None), model=model)
    ):
        located = any(not (isinstance(part, str) and "[" in part) for part in detail.get("loc", ()))
        found.append(InputError(f"{where}.{problem.message}" if located else f"{where}: {problem.message}"))
    return found[0] if len(found) == 1 else InputErrors(found)


def _context(graphrag_eval: int) -> dict[str, int] | None:
    if graphrag_eval not in (4, 6):
        raise ValueError(f"graphrag_eval must be 4 or 6, not {graphrag_eval!r}")
    return GRAPHRAG_EVAL_6 if graphrag_eval == 6 else None


def validate_reference(reference_qas: Any, *, graphrag_eval: int = 4) -> ReferenceCorpus:
    """The reference corpus as models (a ``ReferenceCorpus`` is returned as is). Raises
    ``InputError`` naming each bad place, e.g. ``reference.0.questions.1.id: ...``;
    ``graphrag_eval=6`` reads it as graphrag-eval 6.x does (steps without ``output``)."""
    context = _context(graphrag_eval)
    if isinstance(reference_qas, ReferenceCorpus):
        return reference_qas
    _check_nesting(reference_qas, "reference")
    try:
        return ReferenceCorpus.model_validate(reference_qas, context=context)
    except ValidationError as error:
        raise _api_error(error, "reference", ReferenceCorpus) from None


def validate_responses(responses: Any) -> dict[str, tuple[Response, Mapping[str, Any]]]:
    """Responses keyed by question id, each as ``(model, the response as given)``.

    Accepts a mapping of question id to response (graphrag-eval's form) or a sequence of
    responses with ``question_id``. Raises ``InputError`` for bad responses or duplicate ids.
    """
    items: Iterable[tuple[str, Any]]
    if isinstance(responses, Mapping):
        items = ((str(key), value) for key, value in responses.items())
    elif isinstance(responses, Sequence) and not isinstance(responses, (str, bytes)):
        items = ((str(index), value) for index, value in enumerate(responses))
    else:
        raise InputError("responses must be an object keyed by question id or a list of responses")
    found: dict[str, tuple[Response, Mapping[str, Any]]] = {}
    for where, raw in items:
        if isinstance(raw, Response):
            model, raw = raw, raw.model_dump(exclude_unset=True)
        else:
            _check_nesting(raw, f"responses.{where}")
            try:
                model = Response.model_validate(raw)
            except ValidationError as error:
                raise _api_error(error, f"responses.{where}", Response) from None
        if isinstance(responses, Mapping) and model.question_id != where:
            raise InputError(f"responses.{where}: keyed by {where!r} but its question_id is {model.question_id!r}")
        if model.question_id in found:
            raise InputError(f"responses.{where}: a second response to question {model.question_id!r}")
        found[model.question_id] = (model, raw)
    return found


def validate_results(results: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The per-question results as a list, each checked against ``QuestionResult``. Raises
    ``InputError`` naming the first bad one, e.g. ``results.3.steps_score: ...``."""
    if isinstance(results, (str, bytes, Mapping)) or not isinstance(results, Iterable):
        raise InputError(f"results must be a list of per-question results, not {kind_of(results)}")
    checked = []
    for index, result in enumerate(results):
        if not isinstance(result, Mapping):
            raise InputError(f"results.{index}: a per-question result is a mapping, not {kind_of(result)}")
        try:
            QuestionResult.model_validate(result)
        except ValidationError as error:
            raise _api_error(error, f"results.{index}", QuestionResult) from None
        checked.append(result)
    return checked
