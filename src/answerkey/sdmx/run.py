"""Term precision and recall per (dataset, dimension), NaN-aware macro averages per case and
per suite: the SDMX data-query methodology on the typed model.

``run_sdmx`` scores a suite into an ``SdmxRun``, the result its reports are written from
(its ``SdmxReport``, ``answerkey.sdmx.schema``); ``evaluate_case`` scores one case.

Selected dimensions outside the target have two readings (``NOT_IN_TARGET``, the
``not_in_target`` keyword, recorded in the signature): ``listed`` (the default, as the
reference implementation) lists them and leaves them out of the macro figures; ``scored``
(the methodology's text, "all selected terms are counted as false positives for that
dimension", macro figures "averaged across all dimensions") gives each precision 0 and counts
it in macro precision. Its recall, TP/(TP+FN) = 0/0, is undefined under both readings and so
left out of macro recall, as every undefined figure is.

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

from pydantic import BaseModel, ValidationError

from answerkey._deprecated import keep_old_names
from answerkey.errors import InputError, InputErrors, RunWarning, did_you_mean, plural
from answerkey.files import validation_errors
from answerkey.model import Relation
from answerkey.progress import progress
from answerkey.report import Reported
from answerkey.report.schema import build
from answerkey.sdmx.load import Cases, Selections
from answerkey.sdmx.schema import (
    CaseReport,
    DimensionNotInTargetReport,
    DimensionReport,
    Figures,
    SdmxReport,
    SelectionRecord,
    SummaryReport,
    TermReport,
    TestCase,
)
from answerkey.sdmx.terms import EMPTY, DimensionKey, Selection, TermPair, as_selection, merge, target_of
from answerkey.signature import Signature

LISTED = "listed"
SCORED = "scored"
# The readings of selected dimensions outside the target (``--not-in-target``), the default first.
NOT_IN_TARGET = {
    LISTED: "listed: listed apart with their false positives, left out of the macro figures "
    "(the reference implementation)",
    SCORED: "scored: precision 0 each (all their terms are false positives), counted in macro precision; "
    "their recall (0/0) undefined (the methodology's text)",
}


def signature_of(not_in_target: str = LISTED) -> Signature:
    """The signature of a run: terms match when both id and name are equal (methodology,
    "Notes"), and the reading of dimensions not in the target.

    >>> str(signature_of(SCORED))  # doctest: +ELLIPSIS
    'match:id+name|not_in_target:scored|v:...'
    """
    return Signature.of(match="id+name", not_in_target=not_in_target_reading(not_in_target))


def not_in_target_reading(not_in_target: str) -> str:
    """``not_in_target`` if it is a reading of ``NOT_IN_TARGET``; else a ``ValueError`` naming them.

    >>> not_in_target_reading("scored")
    'scored'
    >>> not_in_target_reading("literal")
    Traceback (most recent call last):
    ...
    ValueError: unknown reading of dimensions not in the target 'literal' (one of: listed, scored)
    """
    if not_in_target not in NOT_IN_TARGET:
        raise ValueError(
            f"unknown reading of dimensions not in the target {not_in_target!r} (one of: {', '.join(NOT_IN_TARGET)})"
        )
    return not_in_target


# The signature of the default reading: ``match:id+name|not_in_target:listed|v:...``.
SIGNATURE = signature_of(LISTED)


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
    filled by ``run_sdmx`` (empty from ``evaluate_case``); ``not_in_target`` is the reading of
    ``dimensions_not_in_target`` (``NOT_IN_TARGET``)."""

    dimensions: tuple[DimensionResult, ...] = ()
    dimensions_not_in_target: tuple[DimensionResult, ...] = ()
    id: str = ""
    name: str = ""
    query: str = ""
    tags: tuple[str, ...] = ()
    not_in_target: str = LISTED

    @property
    def scores_not_in_target(self) -> bool:
        """Whether the dimensions not in the target count in the macro figures (``scored``)."""
        return self.not_in_target == SCORED

    @property
    def scored_dimensions(self) -> tuple[DimensionResult, ...]:
        """The dimensions the macro figures average: the target's, then (``scored`` reading)
        the selected dimensions outside it."""
        if self.scores_not_in_target:
            return self.dimensions + self.dimensions_not_in_target
        return self.dimensions

    @property
    def macro_recall(self) -> float:
        """Mean recall over the scored dimensions (NaN ignored; NaN for an empty target).

        A dimension not in the target has no recall (0/0), so this is the same under both readings.
        """
        return nan_mean(dimension.recall for dimension in self.scored_dimensions)

    @property
    def macro_precision(self) -> float:
        """Mean precision over the scored dimensions (NaN ignored; NaN if none is defined).

        Under the ``scored`` reading a dimension not in the target has precision 0 and counts.
        """
        return nan_mean(dimension.precision for dimension in self.scored_dimensions)


@dataclass(frozen=True)
class Summary:
    """Suite figures: how many cases, and the means of their macro figures (NaN ignored)."""

    cases: int
    macro_recall: float
    macro_precision: float

    @classmethod
    def of(cls, results: Iterable[CaseResult]) -> Summary:
        """The summary of some case results."""
        scored = list(results)
        return cls(
            len(scored),
            nan_mean(result.macro_recall for result in scored),
            nan_mean(result.macro_precision for result in scored),
        )


@dataclass(frozen=True)
class SdmxRun(Reported):
    """The cases' results, the overall summary, one summary per tag (sorted by tag), the
    signature, the warnings of the run (an ``answerkey.report.Result``) and the reading of
    dimensions not in the target (``NOT_IN_TARGET``; the signature records it too)."""

    cases: tuple[CaseResult, ...]
    summary: Summary
    by_tag: dict[str, Summary] = field(default_factory=dict)
    signature: Signature = SIGNATURE
    warnings: tuple[RunWarning, ...] = ()
    not_in_target: str = LISTED

    @property
    def not_in_target_rule(self) -> str:
        """What the reading of dimensions not in the target does, in words (for the reports)."""
        return NOT_IN_TARGET[self.not_in_target]

    def report(self) -> SdmxReport:
        """The report (``answerkey schema sdmx-report``): undefined figures (NaN) are None."""
        return build(
            SdmxReport,
            signature=str(self.signature),
            summary=_figures(self.summary, SummaryReport, by_tag={tag: _figures(s) for tag, s in self.by_tag.items()}),
            cases=[case_report(case) for case in self.cases],
            warnings=[str(warning) for warning in self.warnings],
            not_in_target_rule=self.not_in_target_rule,
        )


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _terms(terms: Iterable[TermPair]) -> list[TermReport]:
    return [build(TermReport, id=term.id, name=term.name) for term in terms]


def _figures(summary: Summary, model: type[Figures] = Figures, **more: Any) -> Any:
    """``summary``'s figures as a ``model`` (``SummaryReport`` takes ``more``: the tags)."""
    return build(
        model,
        cases=summary.cases,
        macro_recall=_number(summary.macro_recall),
        macro_precision=_number(summary.macro_precision),
        **more,
    )


def dimension_report(dimension: DimensionResult) -> DimensionReport:
    """One target dimension's outcome as in the report (NaN as None)."""
    return build(
        DimensionReport,
        dataset_id=dimension.dataset_id,
        dimension_name=dimension.dimension_name,
        recall=_number(dimension.recall),
        precision=_number(dimension.precision),
        true_positives=_terms(dimension.true_positives),
        false_negatives=_terms(dimension.false_negatives),
        false_positives=_terms(dimension.false_positives),
    )


def case_report(case: CaseResult) -> CaseReport:
    """One case's figures and terms as in the report (NaN as None)."""
    return build(
        CaseReport,
        id=case.id,
        name=case.name,
        query=case.query,
        tags=list(case.tags),
        macro_recall=_number(case.macro_recall),
        macro_precision=_number(case.macro_precision),
        dimensions=[dimension_report(dimension) for dimension in case.dimensions],
        dimensions_not_in_target=[
            build(
                DimensionNotInTargetReport,
                dataset_id=d.dataset_id,
                dimension_name=d.dimension_name,
                precision=_number(d.precision) if case.scores_not_in_target else None,
                false_positives=_terms(d.false_positives),
            )
            for d in case.dimensions_not_in_target
        ],
        scores_not_in_target=case.scores_not_in_target,
    )


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


def _plain(rows: Iterable[tuple[Any, ...]]) -> tuple[TermPair, ...]:
    return tuple(TermPair(row[0].text, row[1].text) for row in rows)


def evaluate_case(target: Any, selected: Any, *, not_in_target: str = LISTED) -> CaseResult:
    """Score one case: ``target`` and ``selected`` are selections, mappings from
    ``(dataset_id, dimension_name)`` to ``(id, name)`` pairs, or ``indicator_selection`` lists.

    A dimension without terms counts as absent, in the target (methodology, "Notes") as in the
    selection: a dimension in neither is no dimension of the case, under both readings.
    Selected dimensions outside the target are listed in ``dimensions_not_in_target``, all
    their terms false positives; ``not_in_target`` says whether they stay outside the macro
    averages (``"listed"``) or count with precision 0 (``"scored"``).

    >>> r = evaluate_case({("ds1", "d1"): [("t1", "a")]}, {("ds2", "d1"): [("t1", "a")]})
    >>> r.macro_recall, r.macro_precision, r.dimensions_not_in_target[0].dataset_id
    (0.0, nan, 'ds2')
    >>> r = evaluate_case({("ds1", "d1"): [("t1", "a")]}, {("ds2", "d1"): [("t1", "a")]}, not_in_target="scored")
    >>> r.macro_recall, r.macro_precision
    (0.0, 0.0)
    """
    expected = {key: terms for key, terms in as_selection(target).items() if len(terms)}
    chosen = as_selection(selected)
    return CaseResult(
        dimensions=tuple(score_dimension(key, terms, chosen.get(key, EMPTY)) for key, terms in expected.items()),
        dimensions_not_in_target=tuple(
            score_dimension(key, EMPTY, terms) for key, terms in chosen.items() if key not in expected and len(terms)
        ),
        not_in_target=not_in_target_reading(not_in_target),
    )


def query_of(case: TestCase) -> str:
    """The user turns of the conversation, one per line."""
    return "\n".join(turn.content for turn in case.conversation if turn.role == "user")


def _model(model: type[BaseModel], value: Any, source: str) -> Any:
    """``value`` as ``model`` (a model already is one); a bad mapping is an ``InputErrors``."""
    if isinstance(value, model):
        return value
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise InputErrors(
            validation_errors(error, source=source, locate=lambda path: (None, None), model=model)
        ) from None


def _cases(cases: Iterable[Any]) -> tuple[list[TestCase], list[RunWarning], str]:
    """The case models, the warnings of their loading and the suite's source ("" when the
    cases were not read from a file)."""
    if isinstance(cases, Cases):
        return list(cases.cases), list(cases.warnings), cases.source
    return [_model(TestCase, case, f"cases[{index}]") for index, case in enumerate(cases)], [], ""


def _selections_by_case(selections: Any) -> tuple[dict[str, Selection], dict[str, str]]:
    """The merged selection of each case id, and where each case id's first record stands
    (``FILE:LINE``, or "" when not read from a file)."""
    if isinstance(selections, Mapping):
        return {str(case_id): as_selection(chosen) for case_id, chosen in selections.items()}, {}
    pairs: Iterable[tuple[SelectionRecord, Any, str]]
    if isinstance(selections, Selections):
        # The decoded selections (``merge`` reads them as they are), not the models', which
        # would hold every record's models at once.
        pairs = (
            (record, decoded["indicator_selection"], origin)
            for record, decoded, origin in zip(selections.records, selections.decoded, selections.origins)
        )
    else:
        models = [_model(SelectionRecord, record, f"selections[{index}]") for index, record in enumerate(selections)]
        pairs = ((record, record.indicator_selection, "") for record in models)
    groups: dict[str, list[Any]] = {}
    origins: dict[str, str] = {}
    for record, chosen, origin in pairs:
        groups.setdefault(record.id, []).append(chosen)
        origins.setdefault(record.id, origin)
    return {case_id: merge(lists) for case_id, lists in groups.items()}, origins


def _at(origin: str, message: str) -> str:
    return f"{origin}: {message}" if origin else message


def _unknown_cases(chosen: dict[str, Selection], origins: dict[str, str], known: set[str]) -> list[RunWarning]:
    """A warning for each case id of the selections that is not in the suite; when many of
    them match a case id but for case, or none is known, one more saying so."""
    unknown = [case_id for case_id in chosen if case_id not in known]
    warnings = [
        RunWarning(_at(origins.get(case_id, ""), f"selection for unknown case {case_id!r}"), "unknown-case")
        for case_id in unknown
    ]
    if unknown:
        folded = {case_id.casefold() for case_id in known}
        by_case = [case_id for case_id in unknown if case_id.casefold() in folded]
        if by_case:
            warnings.append(
                RunWarning(
                    f"{len(by_case):,} of the {plural(len(unknown), 'unknown case id')} of the selections match "
                    f"a case id but for case (e.g. {by_case[0]!r}); ids are compared exactly",
                    "unknown-case-case",
                )
            )
        elif len(unknown) == len(chosen) and len(chosen) > 1:
            warnings.append(
                RunWarning(
                    "no selection names a case of the suite: are these the selections for these test cases?",
                    "unknown-case-all",
                )
            )
    return warnings


def _unknown_tags(tags: Iterable[str], known: set[str], source: str) -> list[RunWarning]:
    """A warning for each of ``tags`` that no case has, with the closest tag that one has."""
    by_fold = {tag.casefold(): tag for tag in sorted(known)}
    warnings = []
    for tag in dict.fromkeys(tags):
        if tag in known:
            continue
        hint = (
            f" (did you mean {by_fold[tag.casefold()]!r}? tags are compared exactly)"
            if tag.casefold() in by_fold
            else did_you_mean(tag, sorted(known))
        )
        warnings.append(RunWarning(_at(source, f"no case has tag {tag!r}{hint}"), "unknown-tag"))
    return warnings


def run_sdmx(
    cases: Iterable[Any],
    selections: Any,
    *,
    tags: Iterable[str] | None = None,
    not_in_target: str = LISTED,
    quiet: bool = True,
) -> SdmxRun:
    """Score a suite. ``cases`` are ``load_cases``' result, or ``TestCase`` models (or
    mappings of that shape); ``selections`` are ``load_selections``' result, a list of
    ``SelectionRecord`` (or mappings), or a mapping case id -> selection. Several records of
    one case are merged. A case without a selection scores as nothing selected.

    With ``tags``, only the cases carrying one of them are scored. ``not_in_target`` is the
    reading of selected dimensions outside the target (``NOT_IN_TARGET``): ``"listed"``
    leaves them out of the macro figures, ``"scored"`` counts each with precision 0; the
    signature records it. Warnings (``FILE:LINE:`` first when the place is known): the
    loaders' (directory entries skipped, unknown keys that look misspelt), selections for
    ids that are not cases, tags that no case has.
    ``quiet=False`` draws a progress bar on a terminal for a large suite.

    >>> case = {"id": "c1", "tags": ["weo"], "conversation": [{"role": "user", "content": "GDP?",
    ...     "target": {"indicator_selection": [{"dataset_id": "WEO", "dimensions": [
    ...         {"dimension_name": "INDICATOR", "values": [{"id": "GDP", "name": "GDP"}]}]}]}}]}
    >>> suite = run_sdmx([case], [{"id": "c1", "indicator_selection": []}, {"id": "c9", "indicator_selection": []}])
    >>> suite.summary, [str(warning) for warning in suite.warnings]
    (Summary(cases=1, macro_recall=0.0, macro_precision=nan), ["selection for unknown case 'c9'"])
    """
    not_in_target = not_in_target_reading(not_in_target)
    models, warnings, source = _cases(cases)
    chosen, origins = _selections_by_case(selections)
    wanted = set(tags) if tags is not None else None
    seen: set[str] = set()
    results = []
    for case in progress(models, total=len(models), label="sdmx", quiet=quiet):
        if case.id in seen:  # load_cases refuses these at their place; this is for models given directly
            raise InputError(f"duplicate case id {case.id!r}")
        seen.add(case.id)
        if wanted is not None and wanted.isdisjoint(case.tags):
            continue
        result = evaluate_case(target_of(case), chosen.get(case.id, {}), not_in_target=not_in_target)
        results.append(
            dataclasses.replace(result, id=case.id, name=case.name, query=query_of(case), tags=tuple(case.tags))
        )
    by_tag = {
        tag: Summary.of(result for result in results if tag in result.tags)
        for tag in sorted({tag for result in results for tag in result.tags})
    }
    if isinstance(selections, Selections):
        warnings += selections.warnings
    warnings += _unknown_cases(chosen, origins, seen)
    if tags is not None:
        warnings += _unknown_tags(tags, {tag for case in models for tag in case.tags}, source)
    return SdmxRun(
        tuple(results), Summary.of(results), by_tag, signature_of(not_in_target), tuple(warnings), not_in_target
    )


# The names these had before one naming scheme for every workflow, kept for one release.
keep_old_names(globals(), {"evaluate": "run_sdmx", "SuiteResult": "SdmxRun"})
