"""Reading the JSON report of a run for ``answerkey compare``: its items and their figures.

One reader per workflow, registered in ``READERS`` (the first whose ``detect`` accepts the
document reads it). A reader gives, for each *measure* of the report (the verdict's
``accuracy``, each metric), every item's value: 1 or 0 for a verdict, the metric's value, or
None where the item does not count (a gold error in ``sql``, an excluded item in ``score``, a
metric that does not apply). Verdict measures are binary, and get McNemar's test.

======== ============ ========================================================= ==============
workflow items        measures                                                  headline
======== ============ ========================================================= ==============
sql      ``items``    ``accuracy`` (headline semantics), ``accuracy:NAME`` per  ``accuracy``
                      semantics, each metric
score    ``items``    ``accuracy`` (correct of scored: no_answer counts as      ``accuracy``
                      wrong, excluded items do not count), each metric
qatch    ``tests``    each metric                                               ``execution_accuracy``
sdmx     ``cases``    ``macro_recall``, ``macro_precision``                     ``macro_recall``
steps    ``results``  ``steps_score``, the answer metrics                       ``steps_score``
answers  ``rows``     ``answer_recall``, ``answer_precision``, ``answer_f1``    ``answer_f1``
======== ============ ========================================================= ==============
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from answerkey.errors import InputError
from answerkey.files import load_document, source_name


@dataclass(frozen=True)
class RunReport:
    """One run's report as ``compare`` reads it.

    ``ids`` are the item ids in report order; ``measures`` maps a measure's name to each item's
    value (None: the item does not count); ``binary`` names the verdict measures; ``headline``
    is the measure compared unless ``--measure`` says otherwise."""

    path: str
    workflow: str
    signature: str
    ids: tuple[str, ...]
    measures: dict[str, dict[str, float | None]]
    headline: str
    binary: frozenset[str] = field(default_factory=frozenset)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    return float(value)


def _verdict(value: Any) -> float | None:
    return {"correct": 1.0, "incorrect": 0.0, "no_answer": 0.0}.get(value) if isinstance(value, str) else None


def _metrics(items: list[Mapping[str, Any]], ids: list[str]) -> dict[str, dict[str, float | None]]:
    """Each metric of the items' ``metrics`` objects, by item id."""
    names: dict[str, None] = {}
    for item in items:
        names.update(dict.fromkeys(item.get("metrics") or {}))
    return {
        name: {id: _number((item.get("metrics") or {}).get(name)) for id, item in zip(ids, items)} for name in names
    }


def _fields(
    items: list[Mapping[str, Any]], ids: list[str], names: tuple[str, ...]
) -> dict[str, dict[str, float | None]]:
    return {name: {id: _number(item.get(name)) for id, item in zip(ids, items)} for name in names}


def _ids(items: list[Mapping[str, Any]], key: str | None) -> list[str]:
    """The items' ids (``key``), or their 1-based positions when ``key`` is None."""
    return [str(index) if key is None else str(item.get(key)) for index, item in enumerate(items, 1)]


def _read_sql(document: Mapping[str, Any]) -> tuple[list[str], dict[str, dict[str, float | None]], str, set[str]]:
    items = document["items"]
    ids = _ids(items, "id")
    measures: dict[str, dict[str, float | None]] = {
        "accuracy": {id: _verdict(item.get("verdict")) for id, item in zip(ids, items)}
    }
    names: dict[str, None] = {}
    for item in items:
        names.update(dict.fromkeys(item.get("verdicts") or {}))
    for name in names:
        measures[f"accuracy:{name}"] = {
            id: None if item.get("verdict") == "error" else _verdict((item.get("verdicts") or {}).get(name))
            for id, item in zip(ids, items)
        }
    measures.update(_metrics(items, ids))
    return ids, measures, "accuracy", {name for name in measures if name.startswith("accuracy")}


def _read_score(document: Mapping[str, Any]) -> tuple[list[str], dict[str, dict[str, float | None]], str, set[str]]:
    items = document["items"]
    ids = _ids(items, "id")
    measures = {"accuracy": {id: _verdict(item.get("verdict")) for id, item in zip(ids, items)}, **_metrics(items, ids)}
    return ids, measures, "accuracy", {"accuracy"}


def _read_qatch(document: Mapping[str, Any]) -> tuple[list[str], dict[str, dict[str, float | None]], str, set[str]]:
    items = document["tests"]
    ids = _ids(items, "id")
    measures = _metrics(items, ids)
    headline = "execution_accuracy" if "execution_accuracy" in measures else next(iter(measures), "")
    return ids, measures, headline, set()


def _read_sdmx(document: Mapping[str, Any]) -> tuple[list[str], dict[str, dict[str, float | None]], str, set[str]]:
    items = document["cases"]
    ids = _ids(items, "id")
    return ids, _fields(items, ids, ("macro_recall", "macro_precision")), "macro_recall", set()


def _read_steps(document: Mapping[str, Any]) -> tuple[list[str], dict[str, dict[str, float | None]], str, set[str]]:
    items = document["results"]
    ids = _ids(items, "question_id")
    names = ("steps_score", "answer_recall", "answer_precision", "answer_f1", "answer_relevance")
    return ids, _fields(items, ids, names), "steps_score", set()


def _read_answers(document: Mapping[str, Any]) -> tuple[list[str], dict[str, dict[str, float | None]], str, set[str]]:
    items = document["rows"]
    ids = _ids(items, None)
    return ids, _fields(items, ids, ("answer_recall", "answer_precision", "answer_f1")), "answer_f1", set()


def _has_items(key: str, *more: str) -> Callable[[Mapping[str, Any]], bool]:
    def detect(document: Mapping[str, Any]) -> bool:
        items = document.get(key)
        return (
            isinstance(items, list)
            and all(isinstance(item, Mapping) for item in items)
            and all(name in document for name in more)
        )

    return detect


Reader = Callable[[Mapping[str, Any]], tuple[list[str], dict[str, dict[str, float | None]], str, set[str]]]
READERS: dict[str, tuple[Callable[[Mapping[str, Any]], bool], Reader]] = {
    "sql": (_has_items("items", "layout"), _read_sql),
    "score": (_has_items("items"), _read_score),
    "qatch": (_has_items("tests"), _read_qatch),
    "sdmx": (_has_items("cases"), _read_sdmx),
    "steps": (_has_items("results"), _read_steps),
    "answers": (_has_items("rows"), _read_answers),
}
"""Workflow name -> (does a report document belong to it, read its items and measures)."""


def read_run(path: str) -> RunReport:
    """Read the JSON (or YAML) report at ``path``; ``InputError`` when it is not a run's report
    or holds an item id twice."""
    source = source_name(path)
    document = load_document(path).data
    if not isinstance(document, Mapping) or not isinstance(document.get("signature"), str):
        raise InputError("not a report of answerkey (no signature); give the --json report of a run", source=source)
    workflow = next((name for name, (detect, _) in READERS.items() if detect(document)), None)
    if workflow is None:
        raise InputError(
            "no items in this report: compare reads the --json reports of sql, score, qatch, sdmx, "
            "steps evaluate and answers",
            source=source,
        )
    ids, measures, headline, binary = READERS[workflow][1](document)
    seen: set[str] = set()
    for id in ids:
        if id in seen:
            raise InputError(f"item {id!r} appears twice in the report", source=source)
        seen.add(id)
    return RunReport(path, workflow, document["signature"], tuple(ids), measures, headline, frozenset(binary))
