"""Term precision and recall per (dataset, dimension), NaN-aware macro averages per case and
per suite: the SDMX data-query methodology on the typed model.

>>> target = {("IMF.RES:WEO", "INDICATOR"): [("GDP", "gross domestic product"), ("GDPPC", "GDP per capita")]}
>>> chosen = dict(target)
>>> chosen[("IMF.RES:WEO", "INDICATOR")] = target[("IMF.RES:WEO", "INDICATOR")] + [("GDP_CONST", "constant")]
>>> result = evaluate_case(target, chosen)
>>> round(result.macro_precision, 2), result.macro_recall
(0.67, 1.0)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from answerkey.errors import InputError
from answerkey.model import Relation
from answerkey.signature import Signature
from answerkey.sdmx.schema import SelectionRecord, TestCase
from answerkey.sdmx.terms import EMPTY, DimensionKey, Selection, TermPair, as_selection, merge

__all__ = [
    "SIGNATURE",
    "DimensionResult",
    "CaseResult",
    "Summary",
    "SuiteResult",
    "ratio",
    "nan_mean",
    "score_dimension",
    "evaluate_case",
    "target_of",
    "query_of",
    "evaluate",
]

# Terms match when both id and name are equal (methodology, "Notes").
SIGNATURE = Signature.of(match="id+name")


def ratio(numerator: int, denominator: int) -> float:
    """``numerator / denominator``, NaN for 0/0 (a figure that is not defined).

    >>> ratio(1, 2), math.isnan(ratio(0, 0))
    (0.5, True)
    """
    return numerator / denominator if denominator else math.nan


def nan_mean(values: Iterable[float]) -> float:
    """The mean of the values that are not NaN; NaN when there are none.

    >>> nan_mean([1.0, math.nan, 0.0]), math.isnan(nan_mean([math.nan]))
    (0.5, True)
    """
    defined = [value for value in values if not math.isnan(value)]
    return math.fsum(defined) / len(defined) if defined else math.nan


@dataclass(frozen=True)
class DimensionResult:
    """The outcome for one (dataset, dimension): which terms were found, missed, added."""

    dataset_id: str
    dimension_name: str
    true_positives: tuple[TermPair, ...] = ()
    false_negatives: tuple[TermPair, ...] = ()
    false_positives: tuple[TermPair, ...] = ()

    @property
    def recall(self) -> float:
        """TP / (TP + FN); NaN when the target has no terms here."""
        return ratio(len(self.true_positives), len(self.true_positives) + len(self.false_negatives))

    @property
    def precision(self) -> float:
        """TP / (TP + FP); NaN when nothing was selected here."""
        return ratio(len(self.true_positives), len(self.true_positives) + len(self.false_positives))


@dataclass(frozen=True)
class CaseResult:
    """Everything computed for one test case; ``id``, ``name``, ``query`` and ``tags`` are
    filled by ``evaluate`` (empty from ``evaluate_case``)."""

    dimensions: tuple[DimensionResult, ...] = ()
    dimensions_not_in_target: tuple[DimensionResult, ...] = ()
    id: str = ""
    name: str = ""
    query: str = ""
    tags: tuple[str, ...] = ()

    @property
    def macro_recall(self) -> float:
        """Mean recall over the target dimensions (NaN ignored; NaN for an empty target)."""
        return nan_mean(dimension.recall for dimension in self.dimensions)

    @property
    def macro_precision(self) -> float:
        """Mean precision over the target dimensions (NaN ignored; NaN if none is defined)."""
        return nan_mean(dimension.precision for dimension in self.dimensions)


@dataclass(frozen=True)
class Summary:
    """Suite figures: how many cases, and the means of their macro figures (NaN ignored)."""

    cases: int
    macro_recall: float
    macro_precision: float

    @classmethod
    def of(cls, results: Iterable[CaseResult]) -> Summary:
        """The summary of some case results."""
        results = list(results)
        return cls(
            len(results),
            nan_mean(result.macro_recall for result in results),
            nan_mean(result.macro_precision for result in results),
        )


@dataclass(frozen=True)
class SuiteResult:
    """The cases' results, the overall summary, one summary per tag (sorted by tag), the
    signature, and warnings (selections for unknown cases)."""

    cases: tuple[CaseResult, ...]
    summary: Summary
    by_tag: dict[str, Summary] = field(default_factory=dict)
    signature: str = SIGNATURE
    warnings: tuple[str, ...] = ()


def score_dimension(key: DimensionKey, target: Relation, selected: Relation) -> DimensionResult:
    """Compare the terms of one dimension as sets of (id, name) tuples.

    True positives and false negatives keep the target's order, false positives the
    selection's, so reports are deterministic.
    """
    # Ordered and distinct, with set-speed membership: each tuple is hashed twice in all.
    expected = dict.fromkeys(target.rows)
    chosen = dict.fromkeys(selected.rows)
    return DimensionResult(
        key[0],
        key[1],
        true_positives=_plain(row for row in expected if row in chosen),
        false_negatives=_plain(row for row in expected if row not in chosen),
        false_positives=_plain(row for row in chosen if row not in expected),
    )


def _plain(rows) -> tuple[TermPair, ...]:
    return tuple(TermPair(row[0].text, row[1].text) for row in rows)


def evaluate_case(target: Any, selected: Any) -> CaseResult:
    """Score one case: ``target`` and ``selected`` are selections, mappings from
    ``(dataset_id, dimension_name)`` to ``(id, name)`` pairs, or ``indicator_selection`` lists.

    A target dimension without terms counts as absent (methodology, "Notes"); selected
    dimensions outside the target are listed in ``dimensions_not_in_target``, all their terms
    false positives, outside the macro averages.

    >>> r = evaluate_case({("ds1", "d1"): [("t1", "a")]}, {("ds2", "d1"): [("t1", "a")]})
    >>> r.macro_recall, r.macro_precision, r.dimensions_not_in_target[0].dataset_id
    (0.0, nan, 'ds2')
    """
    target = {key: terms for key, terms in as_selection(target).items() if len(terms)}
    selected = as_selection(selected)
    return CaseResult(
        dimensions=tuple(score_dimension(key, terms, selected.get(key, EMPTY)) for key, terms in target.items()),
        dimensions_not_in_target=tuple(
            score_dimension(key, EMPTY, terms)
            for key, terms in selected.items()
            if key not in target and len(terms)
        ),
    )


def target_of(case: TestCase) -> Selection:
    """The union of the targets of all turns of ``case``.

    Raises ``TermConflict`` if one term id has two names in a dimension; its ``path`` is
    relative to the case (``("conversation", turn, "target", "indicator_selection", ...)``).
    """
    turns = [(index, turn) for index, turn in enumerate(case.conversation) if turn.target is not None]
    try:
        return merge((turn.target.indicator_selection for _, turn in turns), strict=True, case_id=case.id)
    except InputError as error:
        path = getattr(error, "path", ())
        if path:
            error.path = ("conversation", turns[path[0]][0], "target", "indicator_selection") + path[1:]
        raise


def query_of(case: TestCase) -> str:
    """The user turns of the conversation, one per line."""
    return "\n".join(turn.content for turn in case.conversation if turn.role == "user")


def _selections_by_case(selections: Any) -> dict[str, Selection]:
    if isinstance(selections, Mapping):
        return {str(case_id): as_selection(chosen) for case_id, chosen in selections.items()}
    groups: dict[str, list] = {}
    for record in selections:
        record = record if isinstance(record, SelectionRecord) else SelectionRecord.model_validate(record)
        groups.setdefault(record.id, []).append(record.indicator_selection)
    return {case_id: merge(lists) for case_id, lists in groups.items()}


def evaluate(cases: Iterable[Any], selections: Any, *, tags: Iterable[str] | None = None) -> SuiteResult:
    """Score a suite. ``cases`` are ``TestCase`` models (or dicts of that shape);
    ``selections`` maps case id -> selection, or is a list of ``SelectionRecord`` (or dicts),
    several records of one case being merged. A case without a selection scores as nothing
    selected; selections for ids that are not cases become warnings. With ``tags``, only the
    cases carrying one of them are scored.

    >>> case = {"id": "c1", "tags": ["weo"], "conversation": [{"role": "user", "content": "GDP?",
    ...     "target": {"indicator_selection": [{"dataset_id": "WEO", "dimensions": [
    ...         {"dimension_name": "INDICATOR", "values": [{"id": "GDP", "name": "GDP"}]}]}]}}]}
    >>> suite = evaluate([case], [{"id": "c1", "indicator_selection": []}, {"id": "c9", "indicator_selection": []}])
    >>> suite.summary, suite.warnings
    (Summary(cases=1, macro_recall=0.0, macro_precision=nan), ("selection for unknown case 'c9'",))
    """
    chosen = _selections_by_case(selections)
    wanted = set(tags) if tags is not None else None
    seen: set[str] = set()
    results = []
    for case in cases:
        case = case if isinstance(case, TestCase) else TestCase.model_validate(case)
        if case.id in seen:
            raise InputError(f"duplicate case id {case.id!r}")
        seen.add(case.id)
        if wanted is not None and wanted.isdisjoint(case.tags):
            continue
        result = evaluate_case(target_of(case), chosen.get(case.id, {}))
        results.append(dataclasses.replace(
            result, id=case.id, name=case.name, query=query_of(case), tags=tuple(case.tags)
        ))
    by_tag = {
        tag: Summary.of(result for result in results if tag in result.tags)
        for tag in sorted({tag for result in results for tag in result.tags})
    }
    warnings = tuple(f"selection for unknown case {case_id!r}" for case_id in chosen if case_id not in seen)
    return SuiteResult(tuple(results), Summary.of(results), by_tag, SIGNATURE, warnings)
