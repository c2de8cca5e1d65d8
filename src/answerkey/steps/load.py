"""Reading the reference corpus, the responses and the results files, and writing results.

Every reader reports bad input as ``InputError`` at ``FILE:LINE:COL`` where the place is
known; the reference reader returns all the problems it found, not only the first.
"""

from __future__ import annotations

import json
import os
from typing import Any

from pydantic import ValidationError

from answerkey.errors import InputError
from answerkey.files import load_yaml, read_jsonl, read_text, validation_errors
from answerkey.steps.run import _check_depth, validate_responses
from answerkey.steps.schema import ReferenceCorpus, Response

__all__ = ["read_reference", "read_responses", "read_results", "dump_results", "ReferenceErrors"]


class ReferenceErrors(InputError):
    """Several located problems in one input file; ``errors`` lists them, ``str`` prints all."""

    def __init__(self, errors: list[InputError]) -> None:
        first = errors[0]
        super().__init__(first.message, source=first.source, line=first.line, column=first.column)
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(InputError.__str__(error) for error in self.errors)


def _json_document(text: str, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"invalid JSON: {error.msg}", source=source, line=error.lineno, column=error.colno) from None
    except RecursionError:
        raise InputError("nested too deeply", source=source) from None


def read_reference(path: str | os.PathLike) -> tuple[ReferenceCorpus, list]:
    """The reference corpus (YAML or JSON) as models and as the raw list of templates.

    Raises ``ReferenceErrors`` listing each problem at its place in the file.
    """
    source = os.fspath(path)
    document = load_yaml(read_text(path), source=source)
    if not isinstance(document.data, list):
        raise document.error("a reference corpus is a list of templates (each with template_id and questions)")
    try:
        _check_depth(document.data, "reference")
    except InputError as error:
        raise error.located(source) from None
    seen: dict[str, tuple] = {}
    duplicates = []
    for t, template in enumerate(document.data):
        questions = template.get("questions") if isinstance(template, dict) else None
        for q, question in enumerate(questions if isinstance(questions, list) else []):
            if isinstance(question, dict) and isinstance(question.get("id"), (str, int)):
                key = str(question["id"])
                if key in seen:
                    line, _ = document.locate(seen[key])
                    duplicates.append(
                        document.error(f"question id {key!r} appears twice (first at line {line})", (t, "questions", q, "id"))
                    )
                seen.setdefault(key, (t, "questions", q, "id"))
    if duplicates:
        raise ReferenceErrors(duplicates)
    try:
        corpus = ReferenceCorpus.model_validate(document.data)
    except ValidationError as error:
        raise ReferenceErrors(validation_errors(error, source=source, locate=document.locate)) from None
    return corpus, document.data


def read_responses(path: str | os.PathLike) -> dict[str, tuple[Response, dict]]:
    """Responses from a JSON object keyed by question id, a JSON list, or JSON Lines."""
    source = os.fspath(path)
    text = read_text(path)
    try:
        document: Any = json.loads(text)
    except json.JSONDecodeError as error:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1 and _is_json_object(lines[0]):
            return _read_jsonl(text, source)
        raise InputError(f"invalid JSON: {error.msg}", source=source, line=error.lineno, column=error.colno) from None
    except RecursionError:
        raise InputError("nested too deeply", source=source) from None
    if isinstance(document, dict) and isinstance(document.get("question_id"), str):
        document = [document]  # JSON Lines with a single response
    try:
        return validate_responses(document)
    except InputError as error:
        raise error.located(source) from None


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def _read_jsonl(text: str, source: str) -> dict[str, tuple[Response, dict]]:
    found: dict[str, tuple[Response, dict]] = {}
    for entry in read_jsonl(text, source=source):
        if entry.error is not None:
            raise entry.error
        try:
            [(question_id, response)] = validate_responses([entry.value]).items()
        except InputError as error:
            raise InputError(error.message.replace("responses.0", "response"), source=source, line=entry.line) from None
        if question_id in found:
            raise InputError(f"a second response to question {question_id!r}", source=source, line=entry.line)
        found[question_id] = response
    return found


_SIGNATURE_PREFIX = "# answerkey steps evaluate | "


def read_results(path: str | os.PathLike) -> tuple[list[dict], str | None]:
    """Evaluation results (YAML, JSON or JSON Lines, as written by ``answerkey steps
    evaluate``) and the signature in their first line, if there is one."""
    source = os.fspath(path)
    text = read_text(path)
    first_line = text.split("\n", 1)[0]
    signature = first_line[len(_SIGNATURE_PREFIX):].strip() if first_line.startswith(_SIGNATURE_PREFIX) else None
    locate = None
    if source.endswith(".jsonl"):
        data = []
        for entry in read_jsonl(text, source=source):
            if entry.error is not None:
                raise entry.error
            data.append(entry.value)
    elif source.endswith(".json") or text.lstrip().startswith("["):
        data = _json_document(text, source)
    else:
        document = load_yaml(text, source=source)
        data, locate = document.data, document
    if not isinstance(data, list):
        raise InputError("evaluation results are a list of per-question results", source=source, line=1, column=1)
    for index, result in enumerate(data):
        if not isinstance(result, dict) or "template_id" not in result:
            line, column = locate.locate((index,)) if locate is not None else (None, None)
            raise InputError(
                f"result {index + 1} is not a per-question result with a template_id",
                source=source, line=line, column=column,
            )
    return data, signature


def _dumper():
    import yaml

    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class ResultsDumper(base):  # type: ignore[misc, valid-type]
        """Multi-line strings (SPARQL queries and results) as literal blocks, as graphrag-eval writes them."""

    def represent_text(dumper, text: str):
        style = "|" if "\n" in text else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)

    ResultsDumper.add_representer(str, represent_text)
    return yaml, ResultsDumper


def dump_results(value: Any, path: str, *, comment: str = "") -> str:
    """``value`` as YAML, or as JSON when ``path`` ends in ``.json``; ``comment`` (the
    signature) becomes a leading ``#`` line in YAML, which no reader sees as data."""
    if path.endswith(".json"):
        return json.dumps(value, ensure_ascii=False, indent=2) + "\n"
    yaml, dumper = _dumper()
    text = yaml.dump(value, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100)
    return (f"# {comment}\n" if comment else "") + text
