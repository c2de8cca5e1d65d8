"""graphrag-eval 6.x's evaluation of one question (``--graphrag-eval 6``): every group of
reference steps is matched, from the last group back, and the steps score is the mean of the
groups' scores; error responses are scored too. Read from graphrag-eval 6.4.1a0's
``graphrag_eval/steps/evaluation.py`` and ``graphrag_eval/evaluation.py`` (commit 7e6eae8),
written in our own words.

>>> groups = [[{"name": "a", "output": "1"}], [{"name": "b", "output": "2"}]]
>>> actual = [{"name": "b", "id": "s1", "status": "success", "output": "2"}]
>>> match_groups(groups, actual)
[(1, 0, 0, 1.0)]
>>> steps_score(groups, match_groups(groups, actual))
0.5
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from answerkey.steps.rules6 import compare_step

# (group index, reference step index, actual step index, score > 0)
Match = tuple[int, int, int, float]
# Response keys copied to the result when present, in 6.x's order (before the answer).
USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "elapsed_sec")


def _match_group(group: Sequence[Any], group_index: int, actual: Sequence[Any], before: int) -> list[Match]:
    """Each reference step of the group, last first, takes the latest unused successful actual
    step before index ``before`` that scores above 0."""
    used: set[int] = set()
    found: list[Match] = []
    for reference_index in range(len(group) - 1, -1, -1):
        for actual_index in range(min(before, len(actual)) - 1, -1, -1):
            step = actual[actual_index]
            if actual_index in used or not isinstance(step, Mapping) or step.get("status") != "success":
                continue
            reference = group[reference_index]
            score = compare_step(reference, step) if isinstance(reference, Mapping) else 0.0
            if score > 0.0:
                found.append((group_index, reference_index, actual_index, score))
                used.add(actual_index)
                break
    return found


def match_groups(groups: Sequence[Sequence[Any]], actual: Sequence[Any]) -> list[Match]:
    """6.x's matching: groups from the last to the first, each searching only the actual steps
    before the earliest step the later group matched; once a group is not fully matched, its
    matches are kept and the earlier groups are not searched (they score 0)."""
    matches: list[Match] = []
    before = len(actual)
    for group_index in range(len(groups) - 1, -1, -1):
        group = groups[group_index]
        found = _match_group(group, group_index, actual, before)
        matches.extend(found)
        if len(found) < len(group) or not found:
            break
        before = min(actual_index for _, _, actual_index, _ in found)
    return matches


def steps_score(groups: Sequence[Sequence[Any]], matches: Sequence[Match]) -> float:
    """The mean over the groups of (the scores matched in the group / the group's size)."""
    totals = [0.0] * len(groups)
    for group_index, _, _, score in matches:
        totals[group_index] += score
    return sum(total / len(group) for total, group in zip(totals, groups)) / len(groups)


def question_result(
    template_id: str,
    question: Mapping[str, Any],
    response: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """One question's result with 6.x's keys, in its order: ids and text, usage figures,
    answers, ``reference_steps`` (a copy, ``matches`` on every matched step), ``status`` and
    ``error``, ``actual_steps`` (only that key is read: ``[]`` without it) and
    ``steps_score`` (none when a group is empty). A response with an ``error`` key is an error sample, and still scored;
    a missing response is one with no steps and the error saying so."""
    if response is None:
        response = {"question_id": question["id"], "error": f"no response for question {question['id']!r}"}
    result: dict[str, Any] = {
        "template_id": template_id,
        "question_id": str(question["id"]),
        "question_text": question.get("question_text"),
    }
    for key in USAGE_KEYS:
        if key in response:
            result[key] = response[key]
    if "actual_answer" in response:
        result["actual_answer"] = response["actual_answer"]
    if "reference_answer" in question:
        result["reference_answer"] = question["reference_answer"]
    groups = copy.deepcopy(question.get("reference_steps"))
    if groups is not None:
        result["reference_steps"] = groups
    if "error" in response:
        result.update(status="error", error=response["error"])
    else:
        result["status"] = "success"
    actual = response.get("actual_steps")
    actual = copy.deepcopy(actual) if isinstance(actual, list) else []
    result["actual_steps"] = actual
    if groups and all(isinstance(group, list) and group for group in groups):  # 6.x fails on empty ones
        matches = match_groups(groups, actual)
        for group_index, reference_index, actual_index, _ in matches:
            groups[group_index][reference_index]["matches"] = actual[actual_index].get("id")
        result["steps_score"] = steps_score(groups, matches)
    return result
