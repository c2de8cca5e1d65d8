"""Evaluating responses against a reference corpus: one result dict per question, in
graphrag-eval's output layout.

>>> reference = [{"template_id": "t", "questions": [{"id": "q1", "question_text": "Pi?",
...     "reference_steps": [[{"name": "calc", "args": {}, "output": "3.14"}]]}]}]
>>> responses = {"q1": {"question_id": "q1", "actual_steps": [
...     {"name": "calc", "args": {}, "id": "c1", "status": "success", "output": "3.14"}]}}
>>> [result] = run_evaluation(reference, responses)
>>> result["steps_score"], result["reference_steps"][0][0]["matches"]
(1.0, 'c1')
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from answerkey.errors import InputError
from answerkey.steps.matching import best_matching
from answerkey.steps.schema import ActualStep, Question, ReferenceCorpus, ReferenceStep, Response
from answerkey.steps.outputs import OutputComparer

__all__ = ["run_evaluation", "score_steps", "StepsScore", "validate_reference", "validate_responses"]

# Response keys copied to the result when present (graphrag-eval's order).
_USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "elapsed_sec")


@dataclass(frozen=True)
class StepsScore:
    """The steps score of one question: the score, the matches and why steps did not match.

    ``matches`` maps a reference step's index in the last group to ``(actual index, score)``;
    ``reasons`` maps each reference step scored below 1 to why.
    """

    score: float
    matches: dict[int, tuple[int, float]]
    reasons: dict[int, str]


def _path_message(error: ValidationError, prefix: str) -> InputError:
    details = error.errors(include_url=False)
    first = details[0]
    where = ".".join(str(part) for part in (prefix, *first.get("loc", ())) if part != "")
    more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
    return InputError(f"{where}: {first['msg']}{more}")


# Deeper JSON/YAML than this is refused: results are deep-copied and written out recursively.
MAX_DEPTH = 100


def _check_depth(value: Any, where: str) -> None:
    """Raise ``InputError`` if ``value`` nests lists/dicts deeper than ``MAX_DEPTH``."""
    stack = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, Mapping):
            children = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        if depth >= MAX_DEPTH:
            raise InputError(f"{where}: nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)


def validate_reference(reference_qas: Any) -> ReferenceCorpus:
    """The reference corpus as models (a ``ReferenceCorpus`` is returned as is). Raises
    ``InputError`` naming the first bad place, e.g. ``reference.0.questions.1.id: ...``."""
    if isinstance(reference_qas, ReferenceCorpus):
        return reference_qas
    _check_depth(reference_qas, "reference")
    try:
        return ReferenceCorpus.model_validate(reference_qas)
    except ValidationError as error:
        raise _path_message(error, "reference") from None


def validate_responses(responses: Any) -> dict[str, tuple[Response, Mapping]]:
    """Responses keyed by question id, each as ``(model, the raw dict)``.

    Accepts a mapping of question id to response (graphrag-eval's form) or a sequence of
    responses with ``question_id``. Raises ``InputError`` for bad responses or duplicate ids.
    """
    if isinstance(responses, Mapping):
        items: Iterable[tuple[str, Any]] = ((str(key), value) for key, value in responses.items())
    elif isinstance(responses, Sequence) and not isinstance(responses, (str, bytes)):
        items = ((str(index), value) for index, value in enumerate(responses))
    else:
        raise InputError("responses must be an object keyed by question id or a list of responses")
    found: dict[str, tuple[Response, Mapping]] = {}
    for where, raw in items:
        if isinstance(raw, Response):
            model, raw = raw, raw.model_dump(exclude_unset=True)
        else:
            _check_depth(raw, f"responses.{where}")
            try:
                model = Response.model_validate(raw)
            except ValidationError as error:
                raise _path_message(error, f"responses.{where}") from None
        if isinstance(responses, Mapping) and model.question_id != where:
            raise InputError(f"responses.{where}: keyed by {where!r} but its question_id is {model.question_id!r}")
        if model.question_id in found:
            raise InputError(f"responses.{where}: a second response to question {model.question_id!r}")
        found[model.question_id] = (model, raw)
    return found


def score_steps(
    last_group: Sequence[ReferenceStep], actual_steps: Sequence[ActualStep], *, epsilon: float = 1e-4
) -> StepsScore:
    """Score the actual steps against the reference's last group of steps.

    Candidates for a reference step are the successful actual steps with its name; each actual
    step matches at most one reference step, chosen to maximise the total score. The score is
    that total / the size of the group.

    >>> reference = ReferenceStep(name="calc", output="42")
    >>> actual = [ActualStep(name="calc", id="c1", status="success", output="41"),
    ...           ActualStep(name="calc", id="c2", status="success", output="42")]
    >>> scored = score_steps([reference], actual)
    >>> scored.score, scored.matches
    (1.0, {0: (1, 1.0)})
    """
    if not last_group:
        raise ValueError("the last group of reference steps is empty")
    comparer = OutputComparer(epsilon=epsilon)
    names = {step.name for step in last_group}
    candidates = [
        index for index, step in enumerate(actual_steps) if step.status == "success" and step.name in names
    ]
    reasons: dict[int, list[str]] = {index: [] for index in range(len(last_group))}

    def score(reference_index: int, actual_index: int) -> float:
        reference, actual = last_group[reference_index], actual_steps[actual_index]
        if reference.name != actual.name:
            return 0.0
        comparison = comparer.compare(reference, actual)
        if comparison.score < 1.0:
            label = actual.id if actual.id is not None else f"step {actual_index}"
            reasons[reference_index].append(f"{label}: {comparison.reason}")
        return comparison.score

    matches = best_matching(len(last_group), candidates, score)
    total = sum(value for _, value in matches.values())
    why: dict[int, str] = {}
    for index, step in enumerate(last_group):
        if index in matches and matches[index][1] >= 1.0:
            continue
        if index in matches:
            actual_index = matches[index][0]
            label = actual_steps[actual_index].id or f"step {actual_index}"
            why[index] = next((r for r in reasons[index] if r.startswith(f"{label}: ")), "partial match")
        elif reasons[index]:
            why[index] = "; ".join(dict.fromkeys(reasons[index]))
        elif any(s.name == step.name for s in actual_steps):
            why[index] = f"no successful {step.name} step left to match"
        else:
            why[index] = f"no {step.name} step was executed"
    return StepsScore(total / len(last_group), matches, why)


def _steps_error(question: Question) -> str | None:
    if question.reference_steps is None:
        return "no reference_steps to score"
    if not question.reference_steps:
        return "reference_steps is empty"
    if not question.reference_steps[-1]:
        return "the last group of reference_steps is empty"
    return None


def run_evaluation(
    reference_qas: Any,
    responses: Any,
    *,
    epsilon: float = 1e-4,
    answer_judge: Any = None,
    on_question: Callable[[], None] | None = None,
) -> list[dict[str, Any]]:
    """Evaluate ``responses`` against ``reference_qas``: one result dict per question, in
    corpus order, with graphrag-eval's keys (``steps_score``, ``status``, ``reference_steps``
    with ``matches`` on matched steps, ...). The inputs are not modified.

    ``reference_qas`` is the corpus (a list of templates, as dicts or a ``ReferenceCorpus``);
    ``responses`` maps question id to response, or is a list of responses. A question without
    a response, or whose response is an error, gives ``status: error``. ``answer_judge`` (see
    ``answerkey.steps.answers``) adds the answer metrics; without it they are absent.
    """
    corpus = validate_reference(reference_qas)
    raw_templates = (
        reference_qas.model_dump(exclude_unset=True) if isinstance(reference_qas, ReferenceCorpus) else
        [t.model_dump(exclude_unset=True) if isinstance(t, BaseModel) else t for t in reference_qas]
    )
    by_id = validate_responses(responses)
    results = []
    for template, raw_template in zip(corpus.root, raw_templates):
        for question, raw_question in zip(template.questions, raw_template["questions"]):
            results.append(
                _evaluate_question(template.template_id, question, raw_question, by_id.get(question.id), epsilon, answer_judge)
            )
            if on_question is not None:
                on_question()
    return results


def _evaluate_question(
    template_id: str,
    question: Question,
    raw_question: Mapping,
    response: tuple[Response, Mapping] | None,
    epsilon: float,
    answer_judge: Any,
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "template_id": template_id,
        "question_id": question.id,
        "question_text": question.question_text,
    }
    if question.reference_answer is not None:
        result["reference_answer"] = question.reference_answer
    if "reference_steps" in raw_question:
        # A deep copy: `matches` is written on the copy, never on the caller's corpus.
        result["reference_steps"] = copy.deepcopy(raw_question["reference_steps"])
    if response is None:
        result.update(status="error", error=f"no response for question {question.id!r}")
        return result
    model, raw = response
    if model.is_error:
        result.update(status="error", error=model.error or "the response has status error")
        return result
    steps_error = _steps_error(question)
    if steps_error is not None and not (question.reference_steps is None and answer_judge is not None):
        result.update(status="error", error=steps_error)
        return result
    result["status"] = "success"
    if model.actual_answer is not None:
        result["actual_answer"] = model.actual_answer
        if answer_judge is not None:
            result.update(answer_judge.evaluate(question, model.actual_answer))
    actual_steps = model.actual_steps or []
    raw_steps = raw.get("actual_steps", raw.get("steps"))
    if raw_steps is not None:
        result["actual_steps"] = copy.deepcopy(raw_steps)
    if steps_error is None:
        last_group = question.reference_steps[-1]
        scored = score_steps(last_group, actual_steps, epsilon=epsilon)
        output_group = result["reference_steps"][-1]
        for index, (actual_index, _) in scored.matches.items():
            actual = actual_steps[actual_index]
            output_group[index]["matches"] = actual.id if actual.id is not None else actual_index
        for index, reason in scored.reasons.items():
            output_group[index]["mismatch"] = reason
        result["steps_score"] = scored.score
    for key in _USAGE_KEYS:
        if key in raw:
            result[key] = raw[key]
    return result
