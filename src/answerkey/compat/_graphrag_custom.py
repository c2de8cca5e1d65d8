"""graphrag-eval 6.x's custom evaluations (``custom_evaluations`` in its config): an LLM is
given the config's instructions and the chosen inputs of a question and its response, and
replies with one tab-separated value per output; each output becomes a result key, and a
failure the key ``{name}_error`` (the outputs then None). Read from graphrag-eval 6.6.1's
``custom_evaluation.py``; the prompt's wording is answerkey's, the reply format 6.x's.

>>> evaluation = CustomEvaluation(name="tone", inputs=["actual_answer"], instructions="Rate the tone.",
...     outputs={"tone": "0 to 1", "tone_reason": "why"})
>>> read_reply(evaluation, '0.5\\t"calm"')
{'tone': 0.5, 'tone_reason': 'calm'}
>>> read_reply(evaluation, "0.5")
{'tone': None, 'tone_reason': None, 'tone_error': 'expected 2 tab-separated values, got 1'}
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from answerkey.metrics.answers import AnswerJudge

# Result keys 6.x writes itself: a custom evaluation may not write them (nor `{name}_error`).
RESERVED_KEYS = frozenset(
    {
        "template_id",
        "question_id",
        "actual_answer",
        "actual_steps",
        "question_text",
        "reference_answer",
        "reference_steps",
        "status",
        "error",
        "answer_actual_claims_count",
        "answer_matching_claims_count",
        "answer_reference_claims_count",
        "answer_precision",
        "answer_recall",
        "answer_f1",
        "answer_correctness_reason",
        "answer_correctness_error",
        "answer_relevance",
        "answer_relevance_error",
        "steps_score",
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "elapsed_sec",
    }
)
Input = Literal["question", "reference_answer", "reference_steps", "actual_answer", "actual_steps"]
_HEADINGS = {
    "question": "Question",
    "reference_answer": "Reference answer",
    "reference_steps": "Reference steps",
    "actual_answer": "Actual answer",
    "actual_steps": "Actual steps",
}


class CustomEvaluation(BaseModel):
    """One of the config's ``custom_evaluations``: its ``name``, ``inputs``, ``instructions``
    and ``outputs`` (name -> description, the metrics it writes); with steps among the inputs,
    ``steps_name`` (which steps) and ``steps_keys`` (``args``, ``output``)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    inputs: list[Input] = Field(min_length=1)
    instructions: str
    outputs: dict[str, str]
    steps_name: str | None = None
    steps_keys: list[Literal["args", "output"]] | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _check(self) -> CustomEvaluation:
        if {"reference_steps", "actual_steps"} & set(self.inputs):
            for needed in ("steps_name", "steps_keys"):
                if getattr(self, needed) is None:
                    raise ValueError(f"{needed} is required when steps are in inputs")
        if f"{self.name}_error" in RESERVED_KEYS:
            raise ValueError(f"the name {self.name} is reserved")
        taken = sorted(set(self.outputs) & RESERVED_KEYS)
        if taken:
            raise ValueError(f"the output keys {', '.join(taken)} are reserved")
        return self


def _failed(evaluation: CustomEvaluation, message: str) -> dict[str, Any]:
    return {**dict.fromkeys(evaluation.outputs), f"{evaluation.name}_error": message}


def _steps_text(evaluation: CustomEvaluation, steps: Sequence[Any]) -> str:
    """The steps of ``steps_name``, only their ``steps_keys``, JSON text decoded, as JSON."""
    chosen = []
    for step in steps:
        if isinstance(step, str):
            step = json.loads(step)
        if not isinstance(step, Mapping) or step.get("name") != evaluation.steps_name:
            continue
        shown = {}
        for key in evaluation.steps_keys or ():
            value = step.get(key)
            if isinstance(value, str):
                with contextlib.suppress(ValueError):  # text that is not JSON stays text
                    value = json.loads(value)
            shown[key] = value
        chosen.append(shown)
    return json.dumps(chosen, indent=2, ensure_ascii=False)


def build_prompt(evaluation: CustomEvaluation, question: Mapping[str, Any], response: Mapping[str, Any]) -> str:
    """The prompt for one question (``ValueError`` naming what is missing). The config's
    text is inserted as it is, never used as a format template."""
    sources = {
        "question": (question, "question_text", "the reference has no question_text"),
        "reference_answer": (question, "reference_answer", "the reference has no reference_answer"),
        "reference_steps": (question, "reference_steps", "the reference has no reference_steps"),
        "actual_answer": (response, "actual_answer", "the response has no actual_answer"),
        "actual_steps": (response, "actual_steps", "the response has no actual_steps"),
    }
    blocks = []
    for name in evaluation.inputs:
        holder, key, missing = sources[name]
        if key not in holder:
            raise ValueError(missing)
        value = holder[key]
        try:
            if name == "reference_steps":
                value = "\n\n".join(_steps_text(evaluation, group) for group in value)
            elif name == "actual_steps":
                value = _steps_text(evaluation, value)
        except (ValueError, TypeError):
            raise ValueError(f"the {name.replace('_', ' ')} are not well-formed JSON") from None
        blocks.append(f"## {_HEADINGS[name]}\n{value}")
    wanted = "\n".join(f"{number}. {key}: {text}" for number, (key, text) in enumerate(evaluation.outputs.items(), 1))
    return "\n\n".join(
        [
            evaluation.instructions.strip(),
            "Reply with one line holding these values in this order, separated by tab characters:\n" + wanted,
            *blocks,
        ]
    )


def read_reply(evaluation: CustomEvaluation, reply: str) -> dict[str, Any]:
    """The outputs in a reply: one value per output, tab-separated, each read as JSON when it
    is JSON (``0.5``, ``"text"``) and kept as text otherwise."""
    values = reply.split("\t")
    if len(values) != len(evaluation.outputs):
        return _failed(evaluation, f"expected {len(evaluation.outputs)} tab-separated values, got {len(values)}")
    found: dict[str, Any] = {}
    for key, value in zip(evaluation.outputs, values):
        try:
            found[key] = json.loads(value)
        except (ValueError, RecursionError):
            found[key] = value
    return found


def run_custom(
    evaluation: CustomEvaluation, judge: AnswerJudge, question: Mapping[str, Any], response: Mapping[str, Any]
) -> dict[str, Any]:
    """One custom evaluation of one question: its outputs, or ``{name}_error`` (never raises)."""
    try:
        prompt = build_prompt(evaluation, question, response)
    except ValueError as error:
        return _failed(evaluation, str(error))
    try:
        reply = judge.complete(prompt)
    except RuntimeError as error:
        return _failed(evaluation, str(error))
    return read_reply(evaluation, reply)
