"""The report of ``answerkey compare`` as a pydantic model (``answerkey schema compare-report``).

``CompareReport`` is what ``CompareRun.report`` builds and what its JSON/YAML document, terminal
table and workbook are written from, as every workflow's report model.

>>> report = build(
...     CompareReport,
...     signature="measure:accuracy|resamples:10|seed:1|v:0",
...     workflow="sql",
...     measure="accuracy",
...     runs=[],
...     comparisons=[],
...     items=[],
...     warnings=[],
...     binary=True,
... )
>>> sorted(report.document())
['comparisons', 'items', 'measure', 'runs', 'signature', 'warnings', 'workflow']
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from answerkey.errors import plural
from answerkey.report import figure
from answerkey.report.figures import RATIO_DECIMALS
from answerkey.report.schema import ReportModel, build as build
from answerkey.report.workbook import Chart, Column, Sheet, Workbook

_STRICT = ConfigDict(extra="forbid")
Count = Annotated[int, Field(ge=0)]
Probability = Annotated[float, Field(ge=0, le=1)]


class ComparedRun(BaseModel):
    """One run compared: its report's path, its signature, and how many items it has."""

    model_config = _STRICT
    path: str = Field(description="The run's JSON report, as given.")
    signature: str = Field(description="The signature of the run's report.")
    items: Count


class ComparisonReport(BaseModel):
    """One run (``system``) against the first (``baseline``) on the measure."""

    model_config = _STRICT
    baseline: str = Field(description="The first run's path.")
    system: str = Field(description="This run's path.")
    items: Count = Field(description="Items that count in both runs (a null value in either leaves an item out).")
    baseline_mean: float | None = Field(description="The mean over those items in the baseline; null if none.")
    system_mean: float | None = Field(description="The same in this run.")
    difference: float | None = Field(description="system_mean - baseline_mean.")
    low: float | None = Field(description="The 95% paired bootstrap interval's lower end.")
    high: float | None = Field(description="Its upper end.")
    p_randomization: Probability = Field(description="The approximate-randomization p-value (two-sided).")
    p_mcnemar: Probability | None = Field(description="McNemar's exact p-value; null for a measure that is no verdict.")
    better: list[str] = Field(description="Ids of the items whose value went up (fixed, for a verdict).")
    worse: list[str] = Field(description="Ids of the items whose value went down (broken, for a verdict).")


class ItemValues(BaseModel):
    """One item's value of the measure in each run, in the runs' order (null: does not count)."""

    model_config = _STRICT
    id: str
    values: list[float | None]


def _signed(value: float | None) -> str:
    # A difference of ratios shows as many decimals as the ratios (answerkey.report.figures).
    return "-" if value is None else f"{value:+.{RATIO_DECIMALS}f}"


def sample(ids: list[str], count: int) -> str:
    """The first ``count`` of ``ids``, quoted, and how many more there are.

    >>> sample(["1", "2", "3"], 2)
    "'1', '2' and 1 more"
    """
    shown = ", ".join(repr(id) for id in ids[:count])
    return shown + (f" and {len(ids) - count} more" if len(ids) > count else "")


class CompareReport(ReportModel):
    """The report of ``answerkey compare`` (``--json`` / ``--yaml``)."""

    model_config = _STRICT
    signature: str = Field(description="The measure, the resampling rounds and seed, and the version.")
    workflow: str = Field(description="The workflow of the runs compared (sql, score, qatch, sdmx, steps, answers).")
    measure: str = Field(description="The measure compared.")
    runs: list[ComparedRun] = Field(description="The runs, the baseline first.")
    comparisons: list[ComparisonReport] = Field(description="Each run after the first against the first.")
    items: list[ItemValues] = Field(description="Every item of the baseline, in its order.")
    warnings: list[str]
    binary: SkipJsonSchema[bool] = Field(False, exclude=True)
    shown: SkipJsonSchema[int] = Field(10, exclude=True)

    def summary_table(self) -> str:
        """One line per comparison, then the first changed items each way, then the signature."""
        up, down = ("fixed", "broken") if self.binary else ("better", "worse")
        lines = []
        for comparison in self.comparisons:
            mcnemar = "" if comparison.p_mcnemar is None else f", McNemar p = {comparison.p_mcnemar:.4f}"
            lines.append(
                f"{comparison.system} vs {comparison.baseline}: {self.measure} "
                f"{figure(comparison.baseline_mean)} -> {figure(comparison.system_mean)}, "
                f"{_signed(comparison.difference)} [95% CI {_signed(comparison.low)}, {_signed(comparison.high)}], "
                f"randomization p = {comparison.p_randomization:.4f}{mcnemar}; "
                f"{up} {len(comparison.better)}, {down} {len(comparison.worse)} of {plural(comparison.items, 'item')}"
            )
            for word, ids in ((up, comparison.better), (down, comparison.worse)):
                if ids and self.shown:
                    lines.append(f"  {word}: {sample(ids, self.shown)}")
        lines.append(f"signature: {self.signature}")
        return "\n".join(lines)

    def workbook(self) -> Workbook:
        """``Overview``: each item's value in each run; ``Statistics``: one row per comparison."""
        number = "integer" if self.binary else "ratio"
        overview = Sheet(
            "Overview",
            [Column("id", 14, "id"), *(Column(run.path, 14, number) for run in self.runs)],
            [[item.id, *item.values] for item in self.items],
        )
        statistics = Sheet(
            "Statistics",
            [
                Column("system", 30, "text"),
                Column("baseline", 30, "text"),
                Column("items", 8, "integer"),
                *(Column(name, 12, "ratio") for name in ("baseline mean", "system mean", "difference")),
                *(Column(name, 10, "ratio") for name in ("95% low", "95% high")),
                Column("randomization p", 14, "ratio"),
                Column("McNemar p", 12, "ratio"),
                Column("better", 8, "integer"),
                Column("worse", 8, "integer"),
            ],
            [
                [
                    c.system,
                    c.baseline,
                    c.items,
                    c.baseline_mean,
                    c.system_mean,
                    c.difference,
                    c.low,
                    c.high,
                    c.p_randomization,
                    c.p_mcnemar,
                    len(c.better),
                    len(c.worse),
                ]
                for c in self.comparisons
            ],
            charts=[
                Chart(
                    f"{self.measure}: baseline and system means",
                    0,
                    (3, 4),
                    0,
                    len(self.comparisons) - 1,
                    axis_title="mean over items",
                    scale=(0.0, 1.0) if self.binary else None,
                )
            ]
            if self.comparisons
            else [],
        )
        return Workbook(overview, statistics)
