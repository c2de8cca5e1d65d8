"""The files of an SDMX data-query evaluation, as pydantic models: the test case and the
selection record (``answerkey schema sdmx-case``, ``sdmx-selections``) and the report
(``answerkey schema sdmx-report``).

A test case follows the methodology's YAML schema (``id``, ``name``, ``tags``, ``comments``,
``conversation`` of turns whose ``target.indicator_selection`` lists the expected terms per
dataset and dimension); a selection record is what the system chose for one case. Unknown keys
are kept in the inputs (``extra="allow"``) so that suites written for other tools load
unchanged; the report's models are closed, as the report is answerkey's own.

>>> TestCase.model_validate({"id": "c1", "conversation": [{"role": "user", "content": "GDP?"}]}).tags
[]
>>> TestCase.model_validate({"id": 2024}).id
'2024'
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Term",
    "DimensionSelection",
    "DatasetSelection",
    "Target",
    "Turn",
    "TestCase",
    "SelectionRecord",
    "TermReport",
    "DimensionReport",
    "DimensionNotInTargetReport",
    "Figures",
    "SummaryReport",
    "CaseReport",
    "SdmxReport",
]

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


class SdmxReport(BaseModel):
    """The report of ``answerkey sdmx`` (``--json`` / ``--yaml``)."""

    model_config = _CLOSED
    signature: str = Field(
        description="How terms match, the reading of dimensions not in the target (not_in_target), and the version."
    )
    summary: SummaryReport
    cases: list[CaseReport]
    warnings: list[str] = Field(description="Problems that did not stop the run (files skipped, unknown cases).")
