"""The base of every report's pydantic model: one description of what a report holds.

A workflow's report model (``ScoreReport``, ``QatchReport``, ...) is what ``answerkey schema``
prints, what a result builds (``Reported.report``) and what every report is written from: its
fields are the JSON/YAML document, in their order; fields marked ``exclude=True`` (and left out
of the schema) are shown in the workbook only; its ``summary_table`` and ``workbook`` are the
terminal table and the Excel sheets. Results build their models with ``build``: the values are
the run's own (an integer stays an integer), not coerced by validation.

>>> class Figures(BaseModel):
...     items: int
...     accuracy: float | None = None
>>> build(Figures, items=2).model_dump(), build(Figures, accuracy=1, items=1).model_dump()
({'items': 2, 'accuracy': None}, {'items': 1, 'accuracy': 1})
>>> build(Figures, accuracy=0.5)
Traceback (most recent call last):
...
TypeError: Figures: unknown fields [], no value for ['items']
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from answerkey.report.workbook import Workbook

M = TypeVar("M", bound=BaseModel)
_set = object.__setattr__


@cache
def _fields(model: type[BaseModel]) -> tuple[tuple[str, ...], dict[str, Any], set[str]]:
    """``model``'s field names in order, the plain defaults of those that have one, and the
    set of all of them (shared by the instances given every field: none is ever unset)."""
    fields = model.model_fields
    defaults = {name: info.default for name, info in fields.items() if info.default is not PydanticUndefined}
    return tuple(fields), defaults, set(fields)


def build(model: type[M], **values: Any) -> M:
    """An instance of ``model`` holding ``values`` as they are (no validation, no coercion);
    fields not given take their plain defaults. ``model.model_construct`` does the same, but
    takes several times as long, and a report builds one model per item. The fields are kept
    in the model's order, which is the order its document has."""
    names, defaults, given = _fields(model)
    if tuple(values) != names:  # some fields left to their defaults, or given in another order
        given = set(values)
        unknown = sorted(given.difference(names))
        missing = [name for name in names if name not in values and name not in defaults]
        if unknown or missing:
            raise TypeError(f"{model.__name__}: unknown fields {unknown}, no value for {missing}")
        values = {name: values[name] if name in values else defaults[name] for name in names}
    instance = model.__new__(model)
    _set(instance, "__dict__", values)
    _set(instance, "__pydantic_fields_set__", given)
    _set(instance, "__pydantic_extra__", None)
    _set(instance, "__pydantic_private__", None)
    return instance


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
