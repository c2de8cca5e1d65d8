"""The files of an SDMX data-query evaluation, as pydantic models: the test case and the
selection record (``answerkey schema sdmx-case``, ``sdmx-selections``) and the report
(``answerkey schema sdmx-report``).

A test case follows the methodology's YAML schema (``id``, ``name``, ``tags``, ``comments``,
``conversation`` of turns whose ``target.indicator_selection`` lists the expected terms per
dataset and dimension); a selection record is what the system chose for one case. Unknown keys
are kept in the inputs (``extra="allow"``) so that suites written for other tools load
unchanged; the report's models are closed, as the report is answerkey's own. ``SdmxReport`` is
also what a ``SdmxRun`` builds its reports from: its fields are the JSON/YAML document
(keys in this order), and it lays out the summary table and the workbook.

>>> TestCase.model_validate({"id": "c1", "conversation": [{"role": "user", "content": "GDP?"}]}).tags
[]
>>> TestCase.model_validate({"id": 2024}).id
'2024'
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from answerkey.report import text_table
from answerkey.report.figures import ratio
from answerkey.report.schema import ReportModel, build
from answerkey.report.workbook import Chart, Column, Sheet, Workbook

OVERVIEW_HEADERS = (
    "id",
    "name",
    "query",
    "tags",
    "macro recall",
    "macro precision",
    "indicator selection details",
    "dimensions not in target",
)
STATISTICS_HEADERS = ("tag", "cases", "mean macro recall", "mean macro precision")
# The label of the whole suite's row, before the tags' rows.
ALL_CASES = "(all)"

# YAML reads `id: 2024` or `id: 001` as numbers; an id is text whatever it looks like.
_OPEN = ConfigDict(extra="allow", coerce_numbers_to_str=True)
_CLOSED = ConfigDict(extra="forbid")


class Term(BaseModel):
    """One term of a dimension (an indicator, a country, ...): its code and its label."""

    model_config = _OPEN
    id: str = Field(min_length=1, description="The term's code, e.g. NGDPD or MEX.")
    name: str = Field(description="The term's label; terms match only when id and name are both equal.")


class DimensionSelection(BaseModel):
    """The terms chosen for one dimension of a dataset."""

    model_config = _OPEN
    dimension_name: str = Field(min_length=1, description="The dimension, e.g. INDICATOR, COUNTRY, FREQUENCY.")
    values: list[Term] = Field(default_factory=list, description="The terms of this dimension.")


class DatasetSelection(BaseModel):
    """The dimensions chosen in one dataset."""

    model_config = _OPEN
    dataset_id: str = Field(min_length=1, description="The SDMX dataset, e.g. IMF.RES:WEO.")
    dimensions: list[DimensionSelection] = Field(default_factory=list)


class Target(BaseModel):
    """What a turn is expected to select."""

    model_config = _OPEN
    indicator_selection: list[DatasetSelection] = Field(default_factory=list)


class Turn(BaseModel):
    """One message of the conversation; user turns usually carry the target."""

    model_config = _OPEN
    role: str = Field(description="Who speaks: user, assistant, ...; the user turns make the query.")
    content: str = ""
    target: Target | None = Field(None, description="The expected selection; the targets of all turns are merged.")


class TestCase(BaseModel):
    """One test case of the suite (methodology, "Sample Test Case")."""

    __test__ = False  # not a pytest test class despite its name
    model_config = _OPEN
    id: str = Field(min_length=1, description="Unique case id; selection records name it.")
    name: str = ""
    tags: list[str] = Field(default_factory=list, description="Tags for per-tag figures and --tag.")
    comments: str | None = ""
    conversation: list[Turn] = Field(default_factory=list)


class SelectionRecord(BaseModel):
    """What the system selected for case ``id`` (one turn or tool call; several are merged)."""

    model_config = _OPEN
    id: str = Field(min_length=1, description="The test case this selection answers.")
    indicator_selection: list[DatasetSelection] = Field(description="The selected terms, per dataset and dimension.")


# ---------------------------------------------------------------------------------- the report


class TermReport(BaseModel):
    """A term in a report."""

    model_config = _CLOSED
    id: str
    name: str


class DimensionReport(BaseModel):
    """The outcome for one (dataset, dimension) of a case's target."""

    model_config = _CLOSED
    dataset_id: str
    dimension_name: str
    recall: float | None = Field(description="TP / (TP + FN).")
    precision: float | None = Field(description="TP / (TP + FP); null when nothing was selected here.")
    true_positives: list[TermReport] = Field(description="Target terms selected (target order).")
    false_negatives: list[TermReport] = Field(description="Target terms not selected (target order).")
    false_positives: list[TermReport] = Field(description="Selected terms not in the target (selection order).")


class DimensionNotInTargetReport(BaseModel):
    """A (dataset, dimension) selected although the target has no terms there: all its terms
    are false positives. The ``listed`` reading leaves it out of the macro figures; the
    ``scored`` reading (the signature's ``not_in_target``) gives it precision 0 and counts it
    in macro precision (its recall, 0/0, is undefined under both)."""

    model_config = _CLOSED
    dataset_id: str
    dimension_name: str
    precision: float | None = Field(
        description="0 under the scored reading (it counts in macro precision); null under listed (not scored)."
    )
    false_positives: list[TermReport]


class Figures(BaseModel):
    """The figures of a group of cases: means of the cases' macro figures, undefined ones left out."""

    model_config = _CLOSED
    cases: int = Field(ge=0)
    macro_recall: float | None = Field(description="Mean macro recall; null when no case has one.")
    macro_precision: float | None = Field(description="Mean macro precision; null when no case has one.")


class SummaryReport(Figures):
    """The figures of all cases scored, then of each tag."""

    by_tag: dict[str, Figures]


class CaseReport(BaseModel):
    """One test case's figures and terms."""

    model_config = _CLOSED
    id: str
    name: str
    query: str = Field(description="The user turns of the conversation, one per line.")
    tags: list[str]
    macro_recall: float | None = Field(description="Mean recall over the target's dimensions.")
    macro_precision: float | None = Field(
        description="Mean precision over the target's dimensions where defined, and under the scored reading "
        "over the dimensions not in the target too (precision 0 each)."
    )
    dimensions: list[DimensionReport]
    dimensions_not_in_target: list[DimensionNotInTargetReport]
    # Shown in the workbook only: not in the document, nor in its schema.
    scores_not_in_target: SkipJsonSchema[bool] = Field(False, exclude=True)


class SdmxReport(ReportModel):
    """The report of ``answerkey sdmx`` (``--json`` / ``--yaml``)."""

    model_config = _CLOSED
    signature: str = Field(
        description="How terms match, the reading of dimensions not in the target (not_in_target), and the version."
    )
    summary: SummaryReport
    cases: list[CaseReport]
    warnings: list[str] = Field(description="Problems that did not stop the run (files skipped, unknown cases).")
    # Shown in the workbook only: not in the document, nor in its schema.
    not_in_target_rule: SkipJsonSchema[str] = Field("", exclude=True)

    def _groups(self) -> list[tuple[str, Figures]]:
        return [(ALL_CASES, self.summary), *self.summary.by_tag.items()]

    def summary_table(self) -> str:
        """The suite figures, overall then per tag, and the signature."""
        rows = [
            (tag, summary.cases, ratio(summary.macro_recall), ratio(summary.macro_precision))
            for tag, summary in self._groups()
        ]
        return text_table(("tag", "cases", "macro recall", "macro precision"), rows) + f"\nsignature: {self.signature}"

    def workbook(self) -> Workbook:
        """``Overview``: one row per case (methodology, "Overview Sheet"); ``Statistics``: the
        "Data Query Metrics" rows, all cases then each tag, with a chart of mean macro recall and
        precision per tag (of all cases when none has a tag)."""
        overview = Sheet(
            "Overview",
            [
                Column(OVERVIEW_HEADERS[0], 38, "text"),
                Column(OVERVIEW_HEADERS[1], 32, "text", wrap=True),
                Column(OVERVIEW_HEADERS[2], 48, "text", wrap=True),
                Column(OVERVIEW_HEADERS[3], 16, "text", wrap=True),
                Column(OVERVIEW_HEADERS[4], 14, "ratio"),
                Column(OVERVIEW_HEADERS[5], 16, "ratio"),
                Column(OVERVIEW_HEADERS[6], 64, "text", wrap=True),
                Column(OVERVIEW_HEADERS[7], 44, "text", wrap=True),
            ],
            [
                [
                    case.id,
                    case.name or None,
                    case.query or None,
                    ", ".join(case.tags) or None,
                    case.macro_recall,
                    case.macro_precision,
                    details_text(case) or None,
                    not_in_target_text(case) or None,
                ]
                for case in self.cases
            ],
        )
        groups = self._groups()
        # Rows (from 0): all cases, then the tags; chart the tags, or all cases when there are none.
        first, last = (1, len(groups) - 1) if self.summary.by_tag else (0, 0)
        statistics = Sheet(
            "Statistics",
            [
                Column(STATISTICS_HEADERS[0], 24, "text"),
                Column(STATISTICS_HEADERS[1], 8, "integer"),
                Column(STATISTICS_HEADERS[2], 20, "ratio"),
                Column(STATISTICS_HEADERS[3], 22, "ratio"),
            ],
            [[tag, summary.cases, summary.macro_recall, summary.macro_precision] for tag, summary in groups],
            charts=[
                Chart(
                    "Data Query Metrics: mean macro recall and precision per tag",
                    0,
                    (2, 3),
                    first,
                    last,
                    axis_title="mean over cases",
                ),
            ],
            notes=[
                (
                    "Data Query Metrics",
                    "each figure is the mean over the cases of their macro figure; "
                    "undefined figures are left out and shown empty",
                ),
                ("Dimensions not in target", self.not_in_target_rule),
            ],
        )
        return Workbook(overview, statistics)


# ---------------------------------------------------------------------------------- workbook cells


def block_figure(value: float | None) -> str:
    """A figure of the details block: two decimals, ``n/a`` when undefined (methodology format).

    >>> block_figure(2 / 3), block_figure(1.0), block_figure(None), block_figure(float("nan"))
    ('0.67', '1.00', 'n/a', 'n/a')
    """
    return "n/a" if value is None or math.isnan(value) else f"{value:.2f}"


def _term_lines(title: str, terms: Sequence[TermReport]) -> list[str]:
    return [f"{title} [{len(terms)}]"] + [f"  * {term.id}: {term.name}" for term in terms]


def dimension_block(dimension: DimensionReport) -> str:
    """Header line, then figures and the three term lists of one target dimension."""
    lines = [
        f"{dimension.dataset_id} / {dimension.dimension_name}",
        f"[recall: {block_figure(dimension.recall)}, precision: {block_figure(dimension.precision)}]",
        *_term_lines("True Positives", dimension.true_positives),
        *_term_lines("False Negatives", dimension.false_negatives),
        *_term_lines("False Positives", dimension.false_positives),
    ]
    return "\n".join(lines)


def details_text(case: CaseReport) -> str:
    """The "indicator selection details" cell: one block per target dimension."""
    return "\n\n".join(dimension_block(dimension) for dimension in case.dimensions)


def not_in_target_text(case: CaseReport) -> str:
    """The "dimensions not in target" cell: each such dimension and its (false positive) terms;
    under the ``scored`` reading, the whole block of a scored dimension (precision 0; no
    recall, 0/0, and no true positives or false negatives: the target has no terms there)."""
    if case.scores_not_in_target:
        return "\n\n".join(
            dimension_block(
                build(
                    DimensionReport,
                    dataset_id=d.dataset_id,
                    dimension_name=d.dimension_name,
                    recall=None,
                    precision=d.precision,
                    true_positives=[],
                    false_negatives=[],
                    false_positives=d.false_positives,
                )
            )
            for d in case.dimensions_not_in_target
        )
    return "\n\n".join(
        "\n".join([f"{d.dataset_id} / {d.dimension_name}", *_term_lines("False Positives", d.false_positives)])
        for d in case.dimensions_not_in_target
    )
