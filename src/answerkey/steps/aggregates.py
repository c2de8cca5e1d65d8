"""Aggregates of evaluation results: per template, micro (over all questions) and macro
(the mean of the per-template means), in graphrag-eval's layout.

>>> results = [
...     {"template_id": "a", "status": "success", "steps_score": 1.0},
...     {"template_id": "a", "status": "success", "steps_score": 0.0},
...     {"template_id": "b", "status": "success", "steps_score": 1.0},
...     {"template_id": "b", "status": "error", "error": "timeout"},
... ]
>>> aggregates = compute_aggregates(results)
>>> aggregates["micro"]["steps_score"]["mean"], aggregates["macro"]["steps_score"]["mean"]
(0.6666666666666666, 0.75)
>>> aggregates["per_template"]["b"]["number_of_error_samples"]
1
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Mapping
from typing import Any

from answerkey.errors import InputError
from answerkey.steps.load import validate_results
from answerkey.steps.schema import METRICS

__all__ = ["compute_aggregates", "aggregate_results", "METRICS", "series_statistics"]

# `steps` (the step-count summary) goes before this metric, as in graphrag-eval's example.
_STEPS_BEFORE = "steps_score"


def series_statistics(values: list[int | float]) -> dict[str, int | float]:
    """``sum``, ``mean``, ``median``, ``min`` and ``max`` of a non-empty series of finite numbers.

    Raises ``InputError`` when the sum is too large for a float (so the mean cannot be given).

    >>> series_statistics([1, 0, 1])
    {'sum': 2, 'mean': 0.6666666666666666, 'median': 1, 'min': 0, 'max': 1}
    """
    try:
        figures = {
            "sum": sum(values),
            "mean": _int_mean(values) if all(isinstance(v, int) for v in values) else statistics.fmean(values),
            "median": statistics.median(values),
            "min": min(values),
            "max": max(values),
        }
        if not all(map(math.isfinite, figures.values())):
            raise OverflowError
    except OverflowError:
        raise InputError("the values are too large to add up: their sum is beyond a float's range") from None
    return figures


def _int_mean(values: list[int | float]) -> int | float:
    # Keep an exact integer mean an integer (206455.9 stays a float, 147188 an int).
    total = sum(values)
    return total // len(values) if total % len(values) == 0 else total / len(values)


def _is_error(result: Mapping[str, Any]) -> bool:
    return result.get("status") == "error" or "error" in result


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _bindings_empty(output: object) -> bool:
    """True when a step output is SPARQL results JSON with no bindings."""
    if isinstance(output, (str, bytes)):
        try:
            output = json.loads(output)
        except (ValueError, RecursionError):
            return False
    if not isinstance(output, Mapping):
        return False
    results = output.get("results")
    return isinstance(results, Mapping) and isinstance(results.get("bindings"), list) and not results["bindings"]


def _count_steps(results: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    summary: dict[str, dict[str, int]] = {"total": {}, "once_per_sample": {}, "empty_results": {}, "errors": {}}

    def add(kind: str, name: str) -> None:
        summary[kind][name] = summary[kind].get(name, 0) + 1

    for result in results:
        seen: set[str] = set()
        steps = result.get("actual_steps")
        for step in steps if isinstance(steps, list) else []:
            if not isinstance(step, Mapping) or not isinstance(step.get("name"), str):
                continue
            name = step["name"]
            add("total", name)
            if name not in seen:
                seen.add(name)
                add("once_per_sample", name)
            if step.get("status") == "error":
                add("errors", name)
            elif _bindings_empty(step.get("output")):
                add("empty_results", name)
    return {kind: counts for kind, counts in summary.items() if counts}


def _metric_block(results: list[Mapping[str, Any]], *, with_steps: bool) -> dict[str, Any]:
    block: dict[str, Any] = {}
    for metric in METRICS:
        if with_steps and metric == _STEPS_BEFORE:
            steps = _count_steps(results)
            if steps:
                block["steps"] = steps
        values = [result[metric] for result in results if _number(result.get(metric))]
        if values:
            try:
                block[metric] = series_statistics(values)
            except InputError as error:
                raise InputError(f"{metric}: {error.message}") from None
    return block


def compute_aggregates(results: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``per_template``, ``micro`` and ``macro`` aggregates of ``run_evaluation`` results.

    Error samples are counted and otherwise left out. Each metric present in some successful
    result gets ``sum/mean/median/min/max``; ``steps`` counts the actual steps per name
    (``total``, ``once_per_sample``, ``empty_results``, ``errors``; empty counts are left
    out). Templates appear in the order of their first result. Raises ``InputError`` for a
    result that is not one (a ``steps_score`` outside [0, 1], ``actual_steps`` that are not a
    list, ...), naming it (``results.3.steps_score: ...``).
    """
    return aggregate_results(validate_results(results))


def aggregate_results(results: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``compute_aggregates`` of results already checked against ``QuestionResult`` (as
    ``answerkey.steps.load`` reads them)."""
    by_template: dict[str, list[Mapping[str, Any]]] = {}
    errors: dict[str, int] = {}
    for result in results:
        template_id = str(result.get("template_id"))
        by_template.setdefault(template_id, [])
        errors.setdefault(template_id, 0)
        if _is_error(result):
            errors[template_id] += 1
        else:
            by_template[template_id].append(result)
    per_template: dict[str, Any] = {}
    for template_id, successes in by_template.items():
        per_template[template_id] = {
            "number_of_error_samples": errors[template_id],
            "number_of_success_samples": len(successes),
            **_metric_block(successes, with_steps=True),
        }
    all_successes = [result for successes in by_template.values() for result in successes]
    micro = {
        "number_of_error_samples": sum(errors.values()),
        "number_of_success_samples": len(all_successes),
        **_metric_block(all_successes, with_steps=False),
    }
    macro: dict[str, Any] = {}
    for metric in METRICS:
        means = [block[metric]["mean"] for block in per_template.values() if metric in block]
        if means:
            try:
                macro[metric] = {"mean": statistics.fmean(means)}
            except OverflowError:
                raise InputError(f"{metric}: the per-template means are too large to add up") from None
    return {"per_template": per_template, "micro": micro, "macro": macro}
