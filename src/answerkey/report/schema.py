"""The base of every report's pydantic model: one description of what a report holds.

A workflow's report model (``ScoreReport``, ``QatchReport``, ...) is what ``answerkey schema``
prints, what a result builds (``Reported.report``) and what every report is written from: its
fields are the JSON/YAML document, in their order; fields marked ``exclude=True`` (and left out
of the schema) are shown in the workbook only; its ``summary_table`` and ``workbook`` are the
terminal table and the Excel sheets. Results build their models with ``model_construct``: the
values are the run's own (an integer stays an integer), not coerced by validation.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from answerkey.report.workbook import Workbook

__all__ = ["ReportModel"]


class ReportModel(BaseModel):
    """A report: its document (the fields) and how it is shown (``summary_table``, ``workbook``)."""

    def document(self) -> dict[str, Any]:
        """The JSON/YAML report: plain values, keys in field order, hidden fields left out."""
        return self.model_dump()

    def summary_table(self) -> str:
        """The figures as a plain-text table."""
        raise NotImplementedError(f"{type(self).__name__} has no summary table")

    def workbook(self) -> Workbook:
        """The Excel report's sheets."""
        raise NotImplementedError(f"{type(self).__name__} has no workbook")
