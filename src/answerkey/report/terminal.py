"""What every command prints under its summary table: the headline figures with their 95%
confidence intervals, and the first failing items with a one-line reason, as pytest's short
summary does.

Both are read from what every run already describes: its JSON document and its workbook's
``Overview`` sheet. The intervals are the HTML overview's (``answerkey.report.html.
headline_figures``): Wilson's for an accuracy, the mean ± 1.96 standard errors for a mean.
An item fails when its verdict is not ``correct`` (``sql``, ``score``: incorrect, no answer,
an error), when a figure of it is below 1 (``qatch``'s metrics, ``sdmx``'s macro recall and
precision, ``steps``' steps score, ``answers``' F1) or when it could not be scored.

>>> document = {"items": [{"id": "q1", "verdict": "correct", "reason": "same rows"},
...                       {"id": "q2", "verdict": "incorrect", "reason": "1 row missing\\n(3)"}]}
>>> failing_items(document)
[('q2', 'incorrect: 1 row missing')]
>>> print(failures_text(document, 10))
failing: 1 of 2 items
  q2  incorrect: 1 row missing
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from answerkey.errors import plural
from answerkey.report.figures import figure
from answerkey.report.html import headline_figures
from answerkey.report.workbook import Sheet

FAILURES_SHOWN = 10
"""Failing items listed under a summary unless ``--show-failures`` says otherwise."""
LINE_CHARS = 120
"""A failing item's line (its id and the first line of its reason) is cut to this many characters."""

Failure = tuple[str, str]  # the item's id, why it fails (one line)
_METHODS = {"Wilson": "Wilson", "SE": "standard error"}


def one_line(text: object) -> str:
    """The first line of ``text``.

    >>> one_line(" a\\nb")
    'a'
    """
    return str(text).strip().split("\n", 1)[0].strip()


def _cut(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


def _below_one(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value and value < 1


def _verdicts(items: Sequence[Mapping[str, Any]]) -> list[Failure]:
    # sql and score: an item fails unless it is correct (or left out of the score).
    return [
        (str(item.get("id")), f"{item.get('verdict')}: {one_line(item.get('reason', ''))}")
        for item in items
        if item.get("verdict") not in ("correct", "excluded")
    ]


def _tests(items: Sequence[Mapping[str, Any]]) -> list[Failure]:
    found = []
    for item in items:
        if item.get("error"):
            reason = f"error: {one_line(item['error'])}"
        elif item.get("prediction_error"):
            reason = f"prediction: {one_line(item['prediction_error'])}"
        else:
            low = [
                f"{name} {figure(value)}" for name, value in (item.get("metrics") or {}).items() if _below_one(value)
            ]
            if not low:
                continue
            reason = "below 1: " + ", ".join(low)
        found.append((str(item.get("id")), reason))
    return found


def _cases(items: Sequence[Mapping[str, Any]]) -> list[Failure]:
    return [
        (
            str(item.get("id")),
            f"macro recall {figure(item.get('macro_recall'))}, macro precision {figure(item.get('macro_precision'))}",
        )
        for item in items
        if _below_one(item.get("macro_recall")) or _below_one(item.get("macro_precision"))
    ]


def _results(items: Sequence[Mapping[str, Any]]) -> list[Failure]:
    found = []
    for item in items:
        if item.get("status") == "error":
            found.append(
                (str(item.get("question_id")), f"error: {one_line(item.get('error') or 'the response failed')}")
            )
        elif _below_one(item.get("steps_score")):
            found.append((str(item.get("question_id")), f"steps score {figure(item['steps_score'])}"))
    return found


def _rows(items: Sequence[Mapping[str, Any]]) -> list[Failure]:
    found = []
    for item in items:
        if item.get("answer_eval_error"):
            reason = f"error: {one_line(item['answer_eval_error'])}"
        elif _below_one(item.get("answer_f1")):
            why = item.get("answer_correctness_reason")
            reason = f"F1 {figure(item['answer_f1'])}" + (f": {one_line(why)}" if why else "")
        else:
            continue
        found.append((f"line {item.get('line')}", reason))
    return found


# The key of a report's per-item list -> (what an entry is called, its failing entries).
FAILING: dict[str, tuple[str, Callable[[Sequence[Mapping[str, Any]]], list[Failure]]]] = {
    "items": ("item", _verdicts),
    "tests": ("test", _tests),
    "cases": ("case", _cases),
    "results": ("question", _results),
    "rows": ("row", _rows),
}


def _entries(document: Mapping[str, Any]) -> tuple[str, Sequence[Mapping[str, Any]], list[Failure]]:
    for key, (noun, failing) in FAILING.items():
        items = document.get(key)
        if isinstance(items, list) and all(isinstance(item, Mapping) for item in items):
            return noun, items, failing(items)
    return "item", [], []


def failing_items(document: Mapping[str, Any]) -> list[Failure]:
    """The failing entries of a run's report document, in its order: (id, one-line reason)."""
    return _entries(document)[2]


def failures_text(document: Mapping[str, Any], shown: int | None) -> str:
    """How many entries fail, then the first ``shown`` of them (None: all), one per line;
    empty when none fails.

    >>> print(failures_text({"cases": [{"id": "c1", "macro_recall": 0.5, "macro_precision": None}]}, 0))
    failing: 1 of 1 case (--show-failures N lists them)
    """
    noun, items, failures = _entries(document)
    if not failures:
        return ""
    listed = failures if shown is None else failures[:shown]
    head = f"failing: {len(failures)} of {plural(len(items), noun)}"
    if len(listed) < len(failures):
        head += f" (the first {len(listed)}; --show-failures all lists them all)" if listed else ""
        head += "" if listed else " (--show-failures N lists them)"
    width = max((len(id) for id, _ in listed), default=0)
    return "\n".join([head, *(_cut(f"  {id.ljust(width)}  {reason}") for id, reason in listed)])


def intervals_text(document: Mapping[str, Any], overview: Sheet) -> str:
    """The headline figures with their 95% intervals, one per line (empty when there is none):
    the accuracy when the run has one (``sql``, ``score``), else the mean of each figure.

    >>> from answerkey.report.workbook import Column
    >>> overview = Sheet("Overview", [Column("id", 5, "text"), Column("f1", 5, "ratio")], [["a", 1.0], ["b", 0.5]])
    >>> print(intervals_text({"summary": {"accuracy": 0.8, "correct": 8, "evaluated": 10}}, overview))
    accuracy 0.8000, 95% CI [0.4902, 0.9433] (Wilson, 10 items)
    >>> print(intervals_text({}, overview))
    mean f1 0.7500, 95% CI [0.2600, 1.0000] (standard error, 2 items)
    """
    figures = headline_figures(document, overview)
    if figures and figures[0]["name"] == "accuracy":
        figures = figures[:1]
    return "\n".join(
        f"{found['name']} {figure(found['value'])}, 95% CI [{figure(found['low'])}, {figure(found['high'])}] "
        f"({_METHODS.get(found['method'], found['method'])}, {plural(found['n'], 'item')})"
        for found in figures
    )
