"""The file formats of ``answerkey score``, as pydantic models: the corpus item, the answer
record and the report (``answerkey schema corpus``, ``answers``, ``score-report``).

These models decide what a file may hold and word what is wrong with it. ``ScoreReport`` is
also what a ``ScoreRun`` builds its reports from: its fields are the JSON/YAML document (keys
in this order), and it lays out the summary table and the workbook.

>>> item = CorpusItemSchema.model_validate({"id": 7, "answer": 52000, "category": 1})
>>> item.id, item.answer, item.category
('7', '52000', '1')
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError as ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from answerkey.errors import kind_of
from answerkey.files import read_id
from answerkey.report import text_table
from answerkey.report.figures import points, ratio
from answerkey.report.schema import ReportModel
from answerkey.report.workbook import VERDICT_COLOURS, Chart, Column, Sheet, Workbook

# H89-2019 section 5: 0 no context, 1 local reference to the previous query, 2 ellipsis,
# 3 non-local reference, X excluded from scoring.
CATEGORIES = ("0", "1", "2", "3", "X")
# Verdicts of scored items, then the one for category X items.
VERDICTS = ("correct", "incorrect", "no_answer", "excluded")

Category = Literal["0", "1", "2", "3", "X"]
# The figures of a group, in the order tables show them.
FIGURES = ("items", "scored", "correct", "incorrect", "no_answer", "accuracy", "weighted_error", "score")


def cas_text(value: Any) -> Any:
    """YAML and JSON read ``5``, ``2.5``, ``yes`` and ``2024-01-01`` as numbers, booleans and
    dates: turn them back into the CAS text they were written as.

    >>> cas_text(5), cas_text(True), cas_text(_dt.date(1989, 7, 4)), cas_text("((1))")
    ('5', 'true', '1989-07-04', '((1))')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise PydanticCustomError("finite_cas", "a number in CAS text must be finite")
        return repr(value)
    if isinstance(value, _dt.datetime):
        raise PydanticCustomError("datetime_cas", "a date and time is not CAS text; quote it")
    if isinstance(value, _dt.date):
        return value.isoformat()
    return value


def _category(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        return value.strip().upper()
    return value


def read_sort_keys(value: Any) -> Any:
    """A corpus item's ``order_by``: a list of distinct column numbers from 1 (as the CAS text
    numbers them), as a tuple; null stays null. Anything else is a ``ValueError`` worded for
    the user.

    >>> read_sort_keys([2, 1]), read_sort_keys(None)
    ((2, 1), None)
    >>> read_sort_keys([0])
    Traceback (most recent call last):
    ...
    ValueError: column 0: columns are numbered from 1
    """
    if value is None:
        return None
    if not isinstance(value, list):
        raise ValueError(f"should be a list of column numbers (from 1), not {kind_of(value)}")
    if not value:
        raise ValueError("should list at least one column number (from 1)")
    for key in value:
        if not isinstance(key, int) or isinstance(key, bool):
            raise ValueError(f"a column number is an integer from 1, not {kind_of(key)}")
        if key < 1:
            raise ValueError(f"column {key}: columns are numbered from 1")
    repeated = next((key for index, key in enumerate(value) if key in value[:index]), None)
    if repeated is not None:
        raise ValueError(f"column {repeated} is listed twice")
    return tuple(value)


# Sort keys of a corpus item: column numbers from 1 (see read_sort_keys).
SortKeys = Annotated[
    tuple[int, ...] | None,
    BeforeValidator(read_sort_keys),
    WithJsonSchema(
        {
            "type": ["array", "null"],
            "items": {"type": "integer", "minimum": 1},
            "minItems": 1,
            "uniqueItems": True,
        }
    ),
]

# YAML and JSON numbers and booleans are accepted where CAS text is expected (see cas_text).
CasText = Annotated[str, BeforeValidator(cas_text), WithJsonSchema({"type": ["string", "number", "boolean"]})]
ItemId = Annotated[
    str, BeforeValidator(read_id), Field(min_length=1), WithJsonSchema({"type": ["string", "integer"], "minLength": 1})
]


class CorpusItemSchema(BaseModel):
    """One corpus item: a query and its canonical answer (one line of a JSONL corpus, or one
    element of a YAML or JSON corpus list).

    ``answer`` is required unless the item is in category ``X`` (listed, never scored). With
    ``max_answer``, ``answer`` is the minimal answer: a system answer must hold every column of
    the minimal answer and no column outside the maximal one. ``epsilon`` and ``ordered``
    override the run's options for this item (``ordered`` unset: as the CAS text says).
    ``order_by`` gives the canonical answer sort keys, as ``(ORDERED BY 2 ...)`` does (and in
    place of any the CAS text gives): its tuples are then in order of those columns, tuples
    with equal keys in any order. It names columns of the minimal answer with ``max_answer``,
    and cannot go with ``ordered: false``.
    """

    # Titled as the item it describes: loading gives an ``answerkey.score.load.CorpusItem``.
    model_config = ConfigDict(extra="forbid", title="CorpusItem")

    id: ItemId = Field(description="Unique item id.")
    query: str = Field("", description="The question, as asked.")
    answer: CasText | None = Field(
        None, description="Canonical CAS answer; may hold (A OR B) alternatives. Minimal answer with max_answer."
    )
    max_answer: CasText | None = Field(
        None, description="Maximal CAS answer (ATIS 1991-92 min/max): no system column may fall outside it."
    )
    category: Annotated[
        Category,
        BeforeValidator(_category),
        WithJsonSchema({"enum": ["0", "1", "2", "3", "X", "x", 0, 1, 2, 3]}),
    ] = Field("0", description="H89-2019 section 5 category: 0 (default), 1, 2, 3, or X (listed, not scored).")
    tags: list[str] = Field(default_factory=list, description="Tags for per-tag figures.")
    context: list[str] = Field(
        default_factory=list, description="Earlier queries a discourse item refers to (H89-2019 S-7), oldest first."
    )
    epsilon: float | None = Field(
        None, ge=0, allow_inf_nan=False, description="Relative tolerance for reals on this item (overrides --epsilon)."
    )
    ordered: bool | None = Field(
        None, description="Compare tuples in order (true) or as a set (false); unset: as the CAS text says."
    )
    order_by: SortKeys = Field(
        None,
        description="Sort-key columns of the canonical answer, numbered from 1 (as CAS ORDERED BY): "
        "tuples in order of these columns, ties in any order.",
    )

    @model_validator(mode="after")
    def _answer_needed(self) -> CorpusItemSchema:
        if self.answer is None and self.category != "X":
            raise PydanticCustomError(
                "answer_required", "answer: required unless the item is in category X (excluded from scoring)"
            )
        if self.max_answer is not None and self.answer is None:
            raise PydanticCustomError("minimal_required", "max_answer: needs the minimal answer in 'answer' too")
        if self.order_by is not None and self.ordered is False:
            raise PydanticCustomError(
                "order_by_unordered", "order_by: sort keys order the answer; they cannot go with ordered: false"
            )
        return self


class AnswerRecord(BaseModel):
    """One system answer: one line of a JSONL answers file, or one element of a JSON or YAML
    list of them.

    ``answer`` is CAS text; ``NO_ANSWER`` or ``null`` means the system declined. Other keys
    (latency, the SQL run, ...) are allowed and ignored. An answers file may also be a mapping
    ``id: CAS text`` (YAML or JSON), or a directory of ``<id>.cas`` files.
    """

    model_config = ConfigDict(extra="allow")

    id: ItemId = Field(description="The corpus item id this answers.")
    answer: CasText | None = Field(description="System CAS answer; null or NO_ANSWER when the system declined.")


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
    metrics: dict[str, float | None] = Field(
        description="Mean of each graded metric over the scored items where it is defined."
    )


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
    metrics: dict[str, float | None] = Field(
        description="Graded metric values; null where a metric does not apply (tuple order of an unordered answer)."
    )
    # Shown in the workbook only: not in the document, nor in its schema.
    query: SkipJsonSchema[str] = Field("", exclude=True)
    canonical: SkipJsonSchema[str | None] = Field(None, exclude=True)
    max_answer: SkipJsonSchema[str | None] = Field(None, exclude=True)
    system: SkipJsonSchema[str | None] = Field(None, exclude=True)
    context: SkipJsonSchema[list[str]] = Field(default_factory=list, exclude=True)
    # With --html: both answers aligned (answerkey.report.alignment; HTML only).
    aligned: SkipJsonSchema[dict[str, Any] | None] = Field(None, exclude=True)


class ScoreReport(ReportModel):
    """The report of ``answerkey score`` (``--json`` / ``--yaml``)."""

    model_config = _STRICT
    signature: str = Field(description="Options that change verdicts, and the version.")
    summary: Summary
    items: list[ItemReport]
    warnings: list[str]

    def _groups(self) -> list[tuple[str, GroupFigures]]:
        rows: list[tuple[str, GroupFigures]] = [("all", self.summary)]
        rows += [(f"category {name}", group) for name, group in self.summary.by_category.items()]
        rows += [(f"tag {name}", group) for name, group in self.summary.by_tag.items()]
        return rows

    def summary_table(self) -> str:
        """A readable table: all items, each category, each tag; then metric means and the
        signature. Accuracy is a fraction; weighted error and score are ATIS percentage points."""
        rows = [
            (
                name,
                group.items,
                group.scored,
                group.correct,
                group.incorrect,
                group.no_answer,
                ratio(group.accuracy),
                points(group.weighted_error),
                points(group.score),
            )
            for name, group in self._groups()
        ]
        parts = [text_table(("group", *FIGURES), rows)]
        if self.summary.metrics:
            parts.append(
                text_table(
                    ("metric", "mean over scored items"),
                    [(name, ratio(mean)) for name, mean in self.summary.metrics.items()],
                    "ll",
                )
            )
        parts.append(f"signature: {self.signature}")
        return "\n\n".join(parts)

    def workbook(self) -> Workbook:
        """``Overview``: one row per item (verdicts coloured); ``Statistics``: all items, each
        category and each tag, with a chart of accuracy per tag."""
        names = list(self.summary.metrics)
        overview = Sheet(
            "Overview",
            [
                Column("id", 14, "id"),
                Column("query", 40, "text", wrap=True),
                Column("verdict", 11, "text", colours=VERDICT_COLOURS),
                Column("reason", 50, "text", wrap=True),
                Column("canonical", 30, "text", wrap=True),
                Column("system answer", 30, "text", wrap=True),
                Column("tags", 20, "text"),
                Column("category", 9, "text"),
                Column("context", 40, "text", wrap=True),
                *(Column(name, 12, "ratio") for name in names),
            ],
            [
                [
                    item.id,
                    item.query,
                    item.verdict,
                    item.reason,
                    _canonical_cell(item.canonical, item.max_answer),
                    item.system,
                    ", ".join(item.tags),
                    item.category,
                    "\n".join(item.context) or None,
                    *(item.metrics.get(name) for name in names),
                ]
                for item in self.items
            ],
        )
        by_category, by_tag = self.summary.by_category, self.summary.by_tag
        charts = []
        if by_tag:
            first = 1 + len(by_category)  # rows: all, the categories, then the tags
            charts.append(
                Chart(
                    "Accuracy per tag",
                    0,
                    (FIGURES.index("accuracy") + 1,),
                    first,
                    first + len(by_tag) - 1,
                    axis_title="accuracy",
                )
            )
        else:  # all items and each category
            accuracy = FIGURES.index("accuracy") + 1
            charts.append(Chart("Accuracy", 0, (accuracy,), 0, len(by_category), axis_title="accuracy"))
        statistics = Sheet(
            "Statistics",
            [
                Column("group", 24, "text"),
                Column("items", 8, "integer"),
                Column("scored", 8, "integer"),
                Column("correct", 8, "integer"),
                Column("incorrect", 10, "integer"),
                Column("no_answer", 10, "integer"),
                Column("accuracy", 10, "ratio"),
                Column("weighted_error", 15, "points"),
                Column("score", 8, "points"),
                *(Column(name, 12, "ratio") for name in names),
            ],
            [
                [
                    name,
                    group.items,
                    group.scored,
                    group.correct,
                    group.incorrect,
                    group.no_answer,
                    group.accuracy,
                    group.weighted_error,
                    group.score,
                    *(group.metrics.get(n) for n in names),
                ]
                for name, group in self._groups()
            ],
            charts=charts,
        )
        details = [item.aligned for item in self.items]
        return Workbook(overview, statistics, details=details if any(details) else ())


def _canonical_cell(canonical: str | None, max_answer: str | None) -> str | None:
    if max_answer is None:
        return canonical
    return f"min: {canonical}\nmax: {max_answer}"
