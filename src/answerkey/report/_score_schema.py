"""The score report's schema (pydantic): what ``answerkey schema score-report`` prints.

Apart from ``answerkey.report.score_report`` (which re-exports these models) so that
writing a report does not import pydantic.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["GroupFigures", "Summary", "ItemReport", "ScoreReport"]

_STRICT = ConfigDict(extra="forbid")


class GroupFigures(BaseModel):
    """Counts and figures of a group of items."""

    model_config = _STRICT
    items: int = Field(ge=0, description="Items in the group, category X included.")
    scored: int = Field(ge=0, description="Items scored (category X excluded).")
    correct: int = Field(ge=0)
    incorrect: int = Field(ge=0)
    no_answer: int = Field(ge=0)
    accuracy: float | None = Field(description="correct / scored; null when nothing is scored.")
    weighted_error: float | None = Field(description="ATIS: 2 x %incorrect + %no_answer (percentage points).")
    score: float | None = Field(description="ATIS: 100 - weighted_error.")
    metrics: dict[str, float | None] = Field(description="Mean of each graded metric over the scored items.")


class Summary(GroupFigures):
    """The whole run, then per category and per tag."""

    by_category: dict[str, GroupFigures]
    by_tag: dict[str, GroupFigures]


class ItemReport(BaseModel):
    """One corpus item's verdict."""

    model_config = _STRICT
    id: str
    verdict: Literal["correct", "incorrect", "no_answer", "excluded"]
    reason: str
    category: Literal["0", "1", "2", "3", "X"]
    tags: list[str]
    metrics: dict[str, float | None] = Field(description="Graded metric values (empty for category X).")


class ScoreReport(BaseModel):
    """The report of ``answerkey score`` (``--json`` / ``--yaml``)."""

    model_config = _STRICT
    signature: str = Field(description="Options that change verdicts, and the version.")
    summary: Summary
    items: list[ItemReport]
    warnings: list[str]
