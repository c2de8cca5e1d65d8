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

A template whose questions all failed has no usage figures, and answerkey's macro means leave
it out; ``missing_usage="zero"`` counts its ``input_tokens``, ``output_tokens``,
``total_tokens`` and ``elapsed_sec`` as 0, as graphrag-eval 4.0 does:

>>> results = [{"template_id": "a", "status": "success", "input_tokens": 100},
...            {"template_id": "b", "status": "error", "error": "timeout"}]
>>> compute_aggregates(results)["macro"]["input_tokens"]
{'mean': 100.0}
>>> compute_aggregates(results, missing_usage="zero")["macro"]["input_tokens"]
{'mean': 50.0}
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Mapping
from typing import Any

from answerkey.errors import InputError
from answerkey.steps.aggregates6 import aggregate_results_6
from answerkey.steps.load import validate_results
from answerkey.steps.schema import METRICS

# `steps` (the step-count summary) goes before this metric, as in graphrag-eval's example.
_STEPS_BEFORE = "steps_score"
# The figures graphrag-eval 4.0 always reports, as zeros where no question has them.
USAGE_METRICS = ("input_tokens", "output_tokens", "total_tokens", "elapsed_sec")
# How a usage figure that a template (or the whole run) lacks is read: left out of the
# aggregates and the macro means (answerkey's default), or counted as 0 (graphrag-eval 4.0).
MISSING_USAGE_RULES = ("omit", "zero")
_ZERO_STATISTICS = {"sum": 0, "mean": 0, "median": 0, "min": 0, "max": 0}


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


def _metric_block(results: list[Mapping[str, Any]], *, with_steps: bool, zero_usage: bool) -> dict[str, Any]:
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
        elif zero_usage and metric in USAGE_METRICS:
            block[metric] = dict(_ZERO_STATISTICS)
    return block


def compute_aggregates(
    results: Iterable[Mapping[str, Any]], *, missing_usage: str = "omit", graphrag_eval: int = 4
) -> dict[str, Any]:
    """``per_template``, ``micro`` and ``macro`` aggregates of ``run_evaluation`` results.

    Error samples are counted and otherwise left out. Each metric present in some successful
    result gets ``sum/mean/median/min/max``; ``steps`` counts the actual steps per name
    (``total``, ``once_per_sample``, ``empty_results``, ``errors``; empty counts are left
    out). Templates appear in the order of their first result. ``macro`` is the mean of the
    per-template means of the templates that have the metric.

    ``missing_usage`` says what a usage figure (``USAGE_METRICS``: tokens and
    ``elapsed_sec``) that a template lacks, typically because none of its questions
    succeeded, counts for: ``"omit"`` (default) leaves it out; ``"zero"`` gives it 0 for
    every statistic, in ``per_template``, in ``micro`` and in the macro mean, as graphrag-eval
    4.0 does. Raises ``InputError`` for a result that is not one (a ``steps_score`` outside
    [0, 1], ``actual_steps`` that are not a list, ...), naming it (``results.3.steps_score:
    ...``), and ``ValueError`` for another ``missing_usage``. ``graphrag_eval=6`` aggregates
    by graphrag-eval 6.x's rules (``answerkey.steps.aggregates6``; ``missing_usage`` plays
    no part).
    """
    return aggregate_results(validate_results(results), missing_usage=missing_usage, graphrag_eval=graphrag_eval)


def aggregate_results(
    results: Iterable[Mapping[str, Any]],
    *,
    missing_usage: str = "omit",
    graphrag_eval: int = 4,
    custom_metrics: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``compute_aggregates`` of results already checked against ``QuestionResult`` (as
    ``answerkey.steps.load`` reads them)."""
    if graphrag_eval == 6:
        return aggregate_results_6(results, custom_metrics)
    if missing_usage not in MISSING_USAGE_RULES:
        raise ValueError(
            f"missing_usage must be one of {', '.join(map(repr, MISSING_USAGE_RULES))}, not {missing_usage!r}"
        )
    zero_usage = missing_usage == "zero"
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
            **_metric_block(successes, with_steps=True, zero_usage=zero_usage),
        }
    all_successes = [result for successes in by_template.values() for result in successes]
    micro = {
        "number_of_error_samples": sum(errors.values()),
        "number_of_success_samples": len(all_successes),
        **_metric_block(all_successes, with_steps=False, zero_usage=zero_usage),
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
