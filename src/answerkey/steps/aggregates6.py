"""graphrag-eval 6.x's aggregates (``--graphrag-eval 6``): error samples count in every
metric, usage figures are always given (zeros without any), retrieval steps' LLM metrics are
aggregated, and ``micro`` ends with the ``steps`` counts. Read from graphrag-eval 6.4.1a0's
``graphrag_eval/aggregation.py`` (commit 7e6eae8), written in our own words.

>>> results = [{"template_id": "a", "status": "success", "steps_score": 1.0},
...            {"template_id": "a", "status": "error", "error": "timeout", "steps_score": 0.0}]
>>> aggregates = aggregate_results_6(results)
>>> aggregates["micro"]["steps_score"]["mean"], aggregates["micro"]["input_tokens"]["sum"]
(0.5, 0)
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from answerkey.errors import InputError

# The per-question figures 6.x aggregates, in its order; custom metrics follow them.
METRICS_6 = (
    "answer_recall",
    "answer_precision",
    "answer_relevance",
    "answer_f1",
    "steps_score",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "elapsed_sec",
)
# Figures given even when no question has them (all zero then).
_ALWAYS = ("input_tokens", "output_tokens", "total_tokens", "elapsed_sec")
# Figures written on actual steps of a name (by the LLM-based retrieval metrics).
STEP_METRICS_6 = {
    "retrieval": (
        "retrieval_answer_precision",
        "retrieval_answer_recall",
        "retrieval_answer_f1",
        "retrieval_context_recall",
        "retrieval_context_precision",
        "retrieval_context_f1",
    )
}


def _statistics(values: Sequence[int | float]) -> dict[str, int | float]:
    # statistics.mean (exact, an int for an exact mean of ints), as 6.x, not fmean.
    if not values:
        return {"sum": 0, "mean": 0, "median": 0, "min": 0, "max": 0}
    try:
        return {
            "sum": sum(values),
            "mean": statistics.mean(values),
            "median": statistics.median(values),
            "min": min(values),
            "max": max(values),
        }
    except OverflowError:
        raise InputError("the values are too large to add up: their sum is beyond a float's range") from None


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _empty_bindings(output: object) -> bool:
    if not isinstance(output, (str, bytes)):
        return False
    try:
        decoded = json.loads(output)
    except (ValueError, RecursionError):
        return False
    results = decoded.get("results") if isinstance(decoded, Mapping) else None
    return isinstance(results, Mapping) and "bindings" in results and not results["bindings"]


def _steps(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    steps = result.get("actual_steps")
    if not isinstance(steps, list):
        return []
    return [step for step in steps if isinstance(step, Mapping) and isinstance(step.get("name"), str)]


def _count_steps(results: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Step counts per name, the kinds in the order 6.x first meets them."""
    counts: dict[str, dict[str, int]] = {}

    def add(kind: str, name: str) -> None:
        counts.setdefault(kind, {})
        counts[kind][name] = counts[kind].get(name, 0) + 1

    for result in results:
        seen: set[str] = set()
        for step in _steps(result):
            name = step["name"]
            add("total", name)
            if step.get("status") == "error":
                add("errors", name)
            if name not in seen:
                seen.add(name)
                add("once_per_sample", name)
            if step.get("status") != "error" and _empty_bindings(step.get("output")):
                add("empty_results", name)
    return counts


def _step_values(results: Iterable[Mapping[str, Any]]) -> dict[str, list[int | float]]:
    values: dict[str, list[int | float]] = {}
    for result in results:
        for step in _steps(result):
            for metric in STEP_METRICS_6.get(step["name"], ()):
                if _number(step.get(metric)):
                    values.setdefault(metric, []).append(step[metric])
    return values


def _metrics(results: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> dict[str, Any]:
    block: dict[str, Any] = {}
    for metric in metrics:
        values = [result[metric] for result in results if _number(result.get(metric))]
        if values or metric in _ALWAYS:
            try:
                block[metric] = _statistics(values)
            except InputError as error:
                raise InputError(f"{metric}: {error.message}") from None
    return block


def aggregate_results_6(results: Iterable[Mapping[str, Any]], custom_metrics: Sequence[str] = ()) -> dict[str, Any]:
    """``per_template``, ``micro`` and ``macro`` by 6.x's rules. A result with an ``error`` key
    is an error sample (counted as such, its figures aggregated all the same); templates in
    the order of their first result; ``custom_metrics`` are the ``outputs`` of the config's
    custom evaluations."""
    metrics = (*METRICS_6, *(name for name in custom_metrics if name not in METRICS_6))
    by_template: dict[str, list[Mapping[str, Any]]] = {}
    for result in results:
        by_template.setdefault(str(result.get("template_id")), []).append(result)
    per_template: dict[str, Any] = {}
    for template_id, members in by_template.items():
        errors = sum(1 for result in members if "error" in result)
        block: dict[str, Any] = {"number_of_error_samples": errors, "number_of_success_samples": len(members) - errors}
        block.update(_metrics(members, metrics))
        steps: dict[str, Any] = dict(_count_steps(members))
        if steps:
            steps.update({metric: _statistics(values) for metric, values in _step_values(members).items()})
            block["steps"] = steps
        per_template[template_id] = block
    everything = [result for members in by_template.values() for result in members]
    errors = sum(1 for result in everything if "error" in result)
    micro: dict[str, Any] = {"number_of_error_samples": errors, "number_of_success_samples": len(everything) - errors}
    micro.update(_metrics(everything, metrics))
    micro.update({metric: _statistics(values) for metric, values in _step_values(everything).items()})
    steps = _count_steps(everything)
    if steps:
        micro["steps"] = steps
    macro: dict[str, Any] = {}
    for metric in metrics:
        means = [block[metric]["mean"] for block in per_template.values() if metric in block]
        if means:
            macro[metric] = {"mean": statistics.mean(means)}
    step_means: dict[str, list[int | float]] = {}
    for block in per_template.values():
        for metric, figures in block.get("steps", {}).items():
            if "mean" in figures:
                step_means.setdefault(metric, []).append(figures["mean"])
    for metric, means in step_means.items():
        macro[metric] = {"mean": statistics.mean(means)}
    return {"per_template": per_template, "micro": micro, "macro": macro}
