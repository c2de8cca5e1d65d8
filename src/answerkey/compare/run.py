"""``compare``: two or more runs on the same items, each against the first.

For each run after the first (the baseline) and the chosen measure: both means over the items
that count in both runs, their difference with a 95% paired bootstrap interval, an
approximate-randomization p-value, McNemar's exact p-value for verdicts, and the items whose
value changed each way (``answerkey.compare.stats`` says how each figure is drawn).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from answerkey.compare.load import RunReport
from answerkey.compare.schema import ComparedRun, CompareReport, ComparisonReport, ItemValues, build, sample
from answerkey.compare.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    approximate_randomization,
    mcnemar_exact,
    paired_bootstrap,
)
from answerkey.errors import InputError, RunWarning, plural
from answerkey.report import Reported
from answerkey.signature import Signature


class CompareError(InputError):
    """Runs that cannot be compared: different item sets, signatures or measures."""


@dataclass(frozen=True)
class Comparison:
    """One run against the baseline on one measure."""

    baseline: str
    system: str
    items: int
    baseline_mean: float
    system_mean: float
    difference: float
    low: float
    high: float
    p_randomization: float
    p_mcnemar: float | None
    better: tuple[str, ...]
    worse: tuple[str, ...]


def check_comparable(runs: Sequence[RunReport], *, allow_different_signature: bool = False) -> None:
    """Raise ``CompareError`` naming exactly what differs between the first run and another:
    the workflow, the item ids, or (unless allowed) the signature's fields."""
    first = runs[0]
    for run in runs[1:]:
        if run.workflow != first.workflow:
            raise CompareError(f"{run.path} is a {run.workflow} report and {first.path} a {first.workflow} report")
        if set(run.ids) != set(first.ids):
            known = set(first.ids)
            extra = [id for id in run.ids if id not in known]
            missing = [id for id in first.ids if id not in set(run.ids)]
            parts = []
            if missing:
                parts.append(f"{plural(len(missing), 'item')} of {first.path} missing ({sample(missing, 5)})")
            if extra:
                parts.append(f"{plural(len(extra), 'item')} not in {first.path} ({sample(extra, 5)})")
            raise CompareError(f"{run.path} is over other items: {'; '.join(parts)}")
        if run.signature != first.signature and not allow_different_signature:
            raise CompareError(
                f"{run.path} and {first.path} have different signatures: {_signature_difference(first, run)} "
                "(--allow-different-signature compares them anyway)"
            )


def _signature_difference(first: RunReport, other: RunReport) -> str:
    try:
        a, b = Signature.parse(first.signature).fields, Signature.parse(other.signature).fields
    except ValueError:
        return f"{first.signature!r} against {other.signature!r}"
    names = [*a, *(name for name in b if name not in a)]
    return ", ".join(
        f"{name} {a.get(name, '(absent)')} against {b.get(name, '(absent)')}"
        for name in names
        if a.get(name) != b.get(name)
    )


def compare_pair(baseline: RunReport, system: RunReport, measure: str, *, resamples: int, seed: int) -> Comparison:
    """``system`` against ``baseline`` on ``measure``, over the items that count in both."""
    a_values, b_values = baseline.measures[measure], system.measures[measure]
    ids = [id for id in baseline.ids if a_values.get(id) is not None and b_values.get(id) is not None]
    a = [a_values[id] or 0.0 for id in ids]
    b = [b_values[id] or 0.0 for id in ids]
    difference, low, high = paired_bootstrap(a, b, resamples=resamples, seed=seed)
    return Comparison(
        baseline=baseline.path,
        system=system.path,
        items=len(ids),
        baseline_mean=math.fsum(a) / len(a) if a else math.nan,
        system_mean=math.fsum(b) / len(b) if b else math.nan,
        difference=difference,
        low=low,
        high=high,
        p_randomization=approximate_randomization(a, b, resamples=resamples, seed=seed),
        p_mcnemar=mcnemar_exact(a, b) if measure in baseline.binary else None,
        better=tuple(id for id, x, y in zip(ids, a, b) if y > x),
        worse=tuple(id for id, x, y in zip(ids, a, b) if y < x),
    )


@dataclass
class CompareRun(Reported):
    """The comparisons of several runs with the first; a ``Result`` like every run's, whose
    reports all come from its ``CompareReport``."""

    runs: list[RunReport]
    measure: str
    comparisons: list[Comparison]
    signature: Signature
    shown: int = 10
    warnings: list[RunWarning] = field(default_factory=list)

    @property
    def binary(self) -> bool:
        """Whether the measure is a verdict (1 correct, 0 not)."""
        return self.measure in self.runs[0].binary

    def report(self) -> CompareReport:
        """The report model: the runs, one entry per comparison (every changed item), and each
        item's value in each run."""
        return build(
            CompareReport,
            signature=str(self.signature),
            workflow=self.runs[0].workflow,
            measure=self.measure,
            runs=[build(ComparedRun, path=run.path, signature=run.signature, items=len(run.ids)) for run in self.runs],
            comparisons=[
                build(
                    ComparisonReport,
                    baseline=c.baseline,
                    system=c.system,
                    items=c.items,
                    baseline_mean=_plain(c.baseline_mean),
                    system_mean=_plain(c.system_mean),
                    difference=_plain(c.difference),
                    low=_plain(c.low),
                    high=_plain(c.high),
                    p_randomization=c.p_randomization,
                    p_mcnemar=c.p_mcnemar,
                    better=list(c.better),
                    worse=list(c.worse),
                )
                for c in self.comparisons
            ],
            items=[
                build(ItemValues, id=id, values=[run.measures[self.measure].get(id) for run in self.runs])
                for id in self.runs[0].ids
            ],
            warnings=[str(warning) for warning in self.warnings],
            binary=self.binary,
            shown=self.shown,
        )


def _plain(value: float) -> float | None:
    return None if value != value else value


def compare_runs(
    runs: Sequence[RunReport],
    *,
    measure: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    allow_different_signature: bool = False,
    shown: int = 10,
) -> CompareRun:
    """Compare each run after the first with the first, on ``measure`` (default: the
    workflow's headline). ``CompareError`` when they cannot be compared."""
    if len(runs) < 2:
        raise CompareError("compare needs at least two runs")
    check_comparable(runs, allow_different_signature=allow_different_signature)
    chosen = measure or runs[0].headline
    for run in runs:
        if chosen not in run.measures:
            known = ", ".join(run.measures) or "none"
            raise CompareError(f"{run.path}: no measure {chosen!r} in this {run.workflow} report (known: {known})")
    signature = Signature.of(measure=chosen, resamples=resamples, seed=seed)
    comparisons = [compare_pair(runs[0], run, chosen, resamples=resamples, seed=seed) for run in runs[1:]]
    warnings = []
    if any(run.signature != runs[0].signature for run in runs[1:]):
        warnings.append(RunWarning("the runs have different signatures (--allow-different-signature)", "signature"))
    return CompareRun(list(runs), chosen, comparisons, signature, shown=shown, warnings=warnings)
