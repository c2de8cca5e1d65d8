"""The files of an SDMX data-query evaluation, as pydantic models.

A test case follows the methodology's YAML schema (``id``, ``name``, ``tags``, ``comments``,
``conversation`` of turns whose ``target.indicator_selection`` lists the expected terms per
dataset and dimension); a selection record is what the system chose for one case. Unknown keys
are kept (``extra="allow"``) so that suites written for other tools load unchanged.

>>> TestCase.model_validate({"id": "c1", "conversation": [{"role": "user", "content": "GDP?"}]}).tags
[]
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Term", "DimensionSelection", "DatasetSelection", "Target", "Turn", "TestCase", "SelectionRecord"]

# YAML reads `id: 2024` or `id: 001` as numbers; an id is text whatever it looks like.
_OPEN = ConfigDict(extra="allow", coerce_numbers_to_str=True)


class Term(BaseModel):
    """One term of a dimension (an indicator, a country, ...): its code and its label."""

    model_config = _OPEN
    id: str = Field(min_length=1)
    name: str


class DimensionSelection(BaseModel):
    """The terms chosen for one dimension of a dataset."""

    model_config = _OPEN
    dimension_name: str = Field(min_length=1)
    values: list[Term] = Field(default_factory=list)


class DatasetSelection(BaseModel):
    """The dimensions chosen in one dataset."""

    model_config = _OPEN
    dataset_id: str = Field(min_length=1)
    dimensions: list[DimensionSelection] = Field(default_factory=list)


class Target(BaseModel):
    """What a turn is expected to select."""

    model_config = _OPEN
    indicator_selection: list[DatasetSelection] = Field(default_factory=list)


class Turn(BaseModel):
    """One message of the conversation; user turns usually carry the target."""

    model_config = _OPEN
    role: str
    content: str = ""
    target: Target | None = None


class TestCase(BaseModel):
    """One test case of the suite (methodology, "Sample Test Case")."""

    __test__ = False  # not a pytest test class despite its name
    model_config = _OPEN
    id: str = Field(min_length=1)
    name: str = ""
    tags: list[str] = Field(default_factory=list)
    comments: str | None = ""
    conversation: list[Turn] = Field(default_factory=list)


class SelectionRecord(BaseModel):
    """What the system selected for case ``id`` (one turn or tool call; several are merged)."""

    model_config = _OPEN
    id: str = Field(min_length=1)
    indicator_selection: list[DatasetSelection]
