"""The file formats of ``answerkey sql``, as pydantic models: answerkey's own SQL corpus and
predictions, BIRD's gold and predictions, and the report (``answerkey schema sql-corpus``,
``sql-predictions``, ``sql-bird-gold``, ``sql-bird-predictions``, ``sql-report``).

Spider's files are text (one ``SQL<TAB>db_id`` gold line, one predicted SQL line per
question): ``answerkey.execution.load`` reads them line by line, with no schema.

>>> item = SqlItemSchema.model_validate({"id": 7, "db_id": "concert_singer", "sql": "SELECT 1", "order_by": [1]})
>>> item.id, item.db_id, item.order_by, item.tags
('7', 'concert_singer', (1,), [])
>>> SqlItemSchema.model_validate({"id": 1, "db_id": "../etc", "sql": "SELECT 1"})
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for SqlItem
db_id
  Value error, not a database name: '../etc' ...
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    RootModel,
    SerializerFunctionWrapHandler,
    ValidationError as ValidationError,
    WithJsonSchema,
    model_serializer,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from answerkey.adapters.sql import db_id_problem
from answerkey.errors import kind_of
from answerkey.execution.official_schema import SpiderOfficial, summary_lines
from answerkey.files import read_id
from answerkey.limits import MAX_GOLDS as MAX_GOLDS
from answerkey.report import text_table
from answerkey.report.agreement import agreement_chart, deciding_rules_chart
from answerkey.report.figures import ratio
from answerkey.report.schema import ReportModel
from answerkey.report.workbook import VERDICT_COLOURS, Chart, Column, Sheet, Workbook

# An item's verdict under the headline semantics; "error" when its gold query failed.
VERDICTS = ("correct", "incorrect", "error")


def read_db_id(value: Any) -> Any:
    """A db_id as text (an integer as its digits), checked to name a database: a name,
    never a path (``answerkey.adapters.sql.db_id_problem``). ``ValueError`` worded for the user.

    >>> read_db_id("concert_singer"), read_db_id(7)
    ('concert_singer', '7')
    >>> read_db_id("a/b")
    Traceback (most recent call last):
    ...
    ValueError: not a database name: 'a/b'
    """
    text = read_id(value, "a db_id")
    if text is None:
        return text
    problem = db_id_problem(text)
    if problem is not None:
        raise ValueError(problem)
    return text


def read_columns(value: Any, *, first: int = 1, what: str = "column numbers") -> Any:
    """A list of distinct column numbers from ``first`` (1 for ``order_by``, 0 for Spider
    2.0's ``condition_cols``), as a tuple; null stays null. ``ValueError`` worded for the user.

    >>> read_columns([2, 1]), read_columns(None), read_columns([0], first=0)
    ((2, 1), None, (0,))
    >>> read_columns([0])
    Traceback (most recent call last):
    ...
    ValueError: column 0: columns are numbered from 1
    """
    if value is None:
        return None
    if not isinstance(value, list):
        raise ValueError(f"should be a list of {what} (from {first}), not {kind_of(value)}")
    for key in value:
        if not isinstance(key, int) or isinstance(key, bool):
            raise ValueError(f"a column number is an integer from {first}, not {kind_of(key)}")
        if key < first:
            raise ValueError(f"column {key}: columns are numbered from {first}")
    repeated = next((key for index, key in enumerate(value) if key in value[:index]), None)
    if repeated is not None:
        raise ValueError(f"column {repeated} is listed twice")
    return tuple(value)


def _sort_keys(value: Any) -> Any:
    if value == []:
        raise ValueError("should list at least one column number (from 1)")
    return read_columns(value)


def _condition_columns(value: Any) -> Any:
    return read_columns(value, first=0, what="column indexes")


_TEXT_OR_INTEGER = WithJsonSchema({"type": ["string", "integer"], "minLength": 1})
ItemId = Annotated[str, BeforeValidator(read_id), Field(min_length=1), _TEXT_OR_INTEGER]
DbId = Annotated[str, BeforeValidator(read_db_id), Field(min_length=1), _TEXT_OR_INTEGER]
SortKeys = Annotated[
    tuple[int, ...] | None,
    BeforeValidator(_sort_keys),
    WithJsonSchema({"type": ["array", "null"], "items": {"type": "integer", "minimum": 1}, "minItems": 1}),
]
ConditionColumns = Annotated[
    tuple[int, ...] | None,
    BeforeValidator(_condition_columns),
    WithJsonSchema({"type": ["array", "null"], "items": {"type": "integer", "minimum": 0}}),
]
Sql = Annotated[str, Field(min_length=1)]


def _golds(value: Any) -> Any:
    # Checked here, one error per problem (a union would report each of its members').
    if value == "":
        raise PydanticCustomError("string_too_short", "String should have at least 1 character", {"min_length": 1})
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise PydanticCustomError("golds", "should be a string, not {kind}", {"kind": kind_of(value)})
    if not 1 <= len(value) <= MAX_GOLDS:
        raise PydanticCustomError(
            "golds", "a list of golds holds 1 to {most} queries, not {count}", {"most": MAX_GOLDS, "count": len(value)}
        )
    for number, gold in enumerate(value, 1):
        if not isinstance(gold, str) or not gold:
            what = "empty" if gold == "" else kind_of(gold)
            raise PydanticCustomError(
                "golds", "gold {number} should be SQL text, not {what}", {"number": number, "what": what}
            )
    return value


Golds = Annotated[
    str | list[str],
    BeforeValidator(_golds),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": MAX_GOLDS},
            ]
        }
    ),
]


def _gold_result_paths(value: Any) -> Any:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise PydanticCustomError(
            "golds", "should be a file name or a list of them, not {kind}", {"kind": kind_of(value)}
        )
    if not 1 <= len(value) <= MAX_GOLDS:
        raise PydanticCustomError(
            "golds",
            "a list of gold results holds 1 to {most} files, not {count}",
            {"most": MAX_GOLDS, "count": len(value)},
        )
    for number, path in enumerate(value, 1):
        if not isinstance(path, str) or not path:
            what = "empty" if path == "" else kind_of(path)
            raise PydanticCustomError(
                "golds", "gold result {number} should be a file name, not {what}", {"number": number, "what": what}
            )
    return tuple(value)


# An item's gold results: CSV files, relative to the corpus file.
GoldResultPaths = Annotated[
    tuple[str, ...] | None,
    BeforeValidator(_gold_result_paths),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": MAX_GOLDS},
            ]
        }
    ),
]


class SqlItemSchema(BaseModel):
    """One item of answerkey's SQL corpus: a question, its database and its gold SQL or gold
    result files (one line of a JSON Lines corpus, or one element of a YAML or JSON list)."""

    # Titled as the item it describes: loading gives an ``answerkey.execution.load.SqlItem``.
    model_config = ConfigDict(extra="forbid", title="SqlItem", defer_build=True)

    id: ItemId = Field(description="Unique item id.")
    db_id: DbId = Field(description="The database: DIR/<db_id>/<db_id>.sqlite (or .duckdb), or a PostgreSQL database.")
    sql: Golds | None = Field(
        None,
        description="The gold SQL query, or a list of them (at most 100): the prediction is correct when it "
        "matches any, and the report says which (gold_matched). Give sql or gold_results.",
    )
    gold_results: GoldResultPaths = Field(
        None,
        description="In place of sql: the gold results as CSV files with a header row (paths relative to the "
        "corpus file; at most 100), typed as Spider 2.0's evaluator reads them with pandas; the prediction "
        "is correct when its result matches any.",
    )
    question: str = Field("", description="The question, as asked.")
    difficulty: str | None = Field(None, description="A difficulty level, for per-difficulty figures.")
    tags: list[str] = Field(default_factory=list, description="Tags for per-tag figures.")
    order_by: SortKeys = Field(
        None,
        description="Sort-key columns of the gold result, numbered from 1: the result is ordered by them "
        "(ties in any order), in place of what the gold's ORDER BY resolves to.",
    )
    condition_cols: ConditionColumns = Field(
        None,
        description="Spider 2.0: the gold columns a prediction must give, as indexes from 0 (all columns when unset).",
    )
    ignore_order: bool | None = Field(
        None,
        description="Spider 2.0: compare each column's values ignoring their order (unset: false, as Spider 2.0).",
    )

    @model_validator(mode="after")
    def _one_kind_of_gold(self) -> SqlItemSchema:
        if (self.sql is None) == (self.gold_results is None):
            which = "neither" if self.sql is None else "both"
            raise ValueError(
                f"an item gives its gold as sql or as gold_results (CSV files), and this one gives {which}"
            )
        return self


class SqlPredictionRecord(BaseModel):
    """One predicted query: one line of a JSON Lines predictions file, or one element of a
    JSON or YAML list (a mapping id: SQL is read too). ``sql`` null means the system gave
    none. Other keys (latency, the model's text) are allowed and ignored."""

    model_config = ConfigDict(extra="allow", title="SqlPrediction", defer_build=True)

    id: ItemId = Field(description="The corpus item id this predicts.")
    sql: str | None = Field(description="The predicted SQL; null when the system gave none.")


class BirdQuestion(BaseModel):
    """One question of a BIRD ``dev.json`` (or mini-dev) file: its database and gold SQL.
    Other keys (evidence, ...) are allowed and ignored."""

    model_config = ConfigDict(extra="allow", title="BirdQuestion", defer_build=True)

    question_id: ItemId | None = Field(None, description="BIRD's question id.")
    db_id: DbId = Field(description="The database: DIR/<db_id>/<db_id>.sqlite.")
    SQL: Sql = Field(description="The gold SQL query.")
    question: str = Field("", description="The question, as asked.")
    difficulty: str | None = Field(None, description="simple, moderate or challenging.")


class BirdPredictions(RootModel[dict[str, str | None]]):
    """BIRD's predictions file: a JSON object keyed by each question's position in the gold
    file, from 0, whose values are ``SQL<TAB>----- bird -----<TAB>db_id`` (or plain SQL;
    null when the system gave none)."""

    model_config = ConfigDict(
        title="BirdPredictions",
        defer_build=True,
        json_schema_extra={"propertyNames": {"pattern": "^(0|[1-9][0-9]*)$"}},
    )


# The counts of a group, in the order tables show them.
FIGURES = ("items", "evaluated", "correct", "incorrect", "errors")
# Verdict colours of the Overview, an error as a missing answer is shown elsewhere.
ITEM_COLOURS = {**VERDICT_COLOURS, "error": VERDICT_COLOURS["no_answer"]}

_STRICT = ConfigDict(extra="forbid", defer_build=True)
Figure = float | None


class GroupFigures(BaseModel):
    """Counts and figures of a group of items (all of them, a difficulty, a tag)."""

    model_config = _STRICT
    items: int = Field(ge=0)
    evaluated: int = Field(ge=0, description="Items whose gold ran (the others are errors, left out of figures).")
    correct: int = Field(ge=0, description="Correct under the headline semantics.")
    incorrect: int = Field(ge=0)
    errors: int = Field(ge=0, description="Items whose gold query failed (errors of the test).")
    accuracy: Figure = Field(description="Execution accuracy under the headline semantics: correct / evaluated.")
    accuracy_by_semantics: dict[str, Figure] = Field(description="Execution accuracy under each semantics.")
    metrics: dict[str, Figure] = Field(description="Mean of each metric over the evaluated items where it applies.")


class SqlSummary(GroupFigures):
    """The whole run, then per difficulty and per tag."""

    semantics: str = Field(description="The headline semantics.")
    disagreements: int = Field(ge=0, description="Items whose verdicts differ between semantics.")
    by_difficulty: dict[str, GroupFigures]
    by_tag: dict[str, GroupFigures]

    @model_serializer(mode="wrap")
    def _headline_first(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # The document names the headline semantics before the figures it heads.
        figures: dict[str, Any] = handler(self)
        return {"semantics": figures.pop("semantics"), **figures}


class SqlItemReport(BaseModel):
    """One item's verdict."""

    model_config = _STRICT
    id: str
    db_id: str
    verdict: Literal["correct", "incorrect", "error"]
    reason: str
    database: str | None = Field(
        description="The database on which the item failed (its gold, or the prediction under the headline "
        "semantics); null when it did not fail on one."
    )
    databases: int = Field(ge=0, description="Databases of the db_id the item ran on (a test suite has several).")
    verdicts: dict[str, Literal["correct", "incorrect"]] = Field(
        description="The verdict under every semantics (empty for an error)."
    )
    disagreement: str | None = Field(description="Which rule decided what, when the semantics disagree.")
    gold_matched: int | None = Field(
        None,
        ge=1,
        description="For an item with several golds: which one (from 1) the prediction matched under the headline "
        "semantics; null when it matched none, or the item has one gold.",
    )
    difficulty: str | None
    tags: list[str]
    metrics: dict[str, Figure] = Field(description="Metric values; null where a metric does not apply.")
    # Shown in the workbook only: not in the document, nor in its schema.
    question: SkipJsonSchema[str | None] = Field(None, exclude=True)
    gold: SkipJsonSchema[str | None] = Field(None, exclude=True)
    predicted: SkipJsonSchema[str | None] = Field(None, exclude=True)
    # With --show-rows: the first rows of each side's result, as text (HTML and workbook only).
    gold_rows: SkipJsonSchema[str | None] = Field(None, exclude=True)
    predicted_rows: SkipJsonSchema[str | None] = Field(None, exclude=True)
    # With --show-rows: both results aligned (answerkey.report.alignment; HTML only).
    aligned_rows: SkipJsonSchema[dict[str, Any] | None] = Field(None, exclude=True)


# Test suites named one by one in the terminal; the reports list them all.
_SUITES_SHOWN = 3


def suite_lines(suites: dict[str, list[str]]) -> list[str]:
    """The lines of the summary that say which files made each test suite (the first few).

    >>> suite_lines({"shop": ["shop.sqlite", "shop2.sqlite"]})
    ['test suite shop: 2 databases: shop.sqlite, shop2.sqlite']
    """
    lines = [
        f"test suite {db_id}: {len(files):,} databases: {', '.join(files)}"
        for db_id, files in list(suites.items())[:_SUITES_SHOWN]
    ]
    if len(suites) > _SUITES_SHOWN:
        lines.append(f"and {len(suites) - _SUITES_SHOWN:,} other test suites (the reports list them)")
    return lines


class SqlReport(ReportModel):
    """The report of ``answerkey sql`` (``--json`` / ``--yaml``)."""

    model_config = _STRICT
    signature: str = Field(description="Options that change verdicts, and the version.")
    layout: Literal["spider", "bird", "answerkey"]
    summary: SqlSummary
    items: list[SqlItemReport] = Field(description="Every item, in input order.")
    warnings: list[str]
    official: SpiderOfficial | None = Field(
        None, description="Spider's official table (with --tables tables.json); null without it."
    )
    suites: dict[str, list[str]] = Field(
        default_factory=dict,
        description="The files of each db_id that is a test suite (several databases), as the headline semantics "
        "lists them: under test-suite every file whose name contains '.sqlite', else <db_id>.sqlite and the other "
        "*.sqlite files.",
    )
    # Shown in the table and the workbook only: not in the document, nor in its schema. The
    # semantics the run decided (the registry's ``decided_semantics``), in their order.
    decided_semantics: SkipJsonSchema[list[str]] = Field(default_factory=list, exclude=True)
    rows_shown: SkipJsonSchema[bool] = Field(False, exclude=True)
    # Whether the table names the test suites' files (under a headline that lists them by its
    # official rule: test-suite's, every file whose name contains '.sqlite').
    suites_shown: SkipJsonSchema[bool] = Field(False, exclude=True)

    def _groups(self) -> list[tuple[str, GroupFigures]]:
        summary = self.summary
        rows: list[tuple[str, GroupFigures]] = [("all", summary)]
        rows += [(f"difficulty {name}", group) for name, group in summary.by_difficulty.items()]
        rows += [(f"tag {name}", group) for name, group in summary.by_tag.items()]
        return rows

    def summary_table(self) -> str:
        """A readable table: all items, each difficulty, each tag, with the accuracy under every
        semantics (the headline one marked ``*``); then metric means, the disagreements and the
        signature."""
        headline = self.summary.semantics
        names = [f"{name}*" if name == headline else name for name in self.decided_semantics]
        rows = [
            (
                name,
                *(getattr(group, count) for count in FIGURES),
                *(ratio(group.accuracy_by_semantics[semantics]) for semantics in self.decided_semantics),
            )
            for name, group in self._groups()
        ]
        parts = [text_table(("group", *FIGURES, *names), rows)]
        metric_names = list(self.summary.metrics)
        if metric_names:
            parts.append(
                text_table(
                    ("metric", "mean"),
                    [(metric_label(name), ratio(self.summary.metrics.get(name))) for name in metric_names],
                )
            )
        lines = [f"* headline semantics: execution accuracy {ratio(self.summary.accuracy)} under {headline}"]
        disagreements, items = self.summary.disagreements, self.summary.items
        if disagreements:
            lines.append(f"the semantics disagree on {disagreements:,} of {items:,} items (the reports say why)")
        lines.append(f"signature: {self.signature}")
        if self.suites_shown:
            lines.extend(suite_lines(self.suites))
        parts.append("\n".join(lines))
        if self.official is not None:
            parts.append(summary_lines(self.official))
        return "\n\n".join(parts)

    def workbook(self) -> Workbook:
        """``Overview``: one row per item (verdicts coloured); ``Statistics``: all items, each
        difficulty and each tag, with a chart of accuracy per difficulty; ``Disagreements``: the
        items the semantics disagree on, with the verdict under each and why."""
        names = list(self.summary.metrics)
        overview = Sheet(
            "Overview",
            [
                Column("id", 10, "id"),
                Column("db_id", 18, "text"),
                Column("verdict", 11, "text", colours=ITEM_COLOURS),
                Column("reason", 50, "text", wrap=True),
                Column("database", 18, "text"),
                Column("question", 40, "text", wrap=True),
                Column("gold SQL", 50, "text", wrap=True),
                Column("predicted SQL", 50, "text", wrap=True),
                *(
                    (Column("gold rows", 50, "text", wrap=True), Column("predicted rows", 50, "text", wrap=True))
                    if self.rows_shown
                    else ()
                ),
                Column("difficulty", 11, "text"),
                Column("tags", 20, "text"),
                *(Column(name, 11, "text", colours=ITEM_COLOURS) for name in self.decided_semantics),
                Column("disagreement", 50, "text", wrap=True),
                *(
                    Column(metric_label(name), 12, "number" if name == "valid_efficiency_score" else "ratio")
                    for name in names
                ),
            ],
            [
                [
                    item.id,
                    item.db_id,
                    item.verdict,
                    item.reason,
                    item.database,
                    item.question,
                    item.gold,
                    item.predicted,
                    *((item.gold_rows, item.predicted_rows) if self.rows_shown else ()),
                    item.difficulty,
                    ", ".join(item.tags) or None,
                    *(item.verdicts.get(name) for name in self.decided_semantics),
                    item.disagreement,
                    *(item.metrics.get(name) for name in names),
                ]
                for item in self.items
            ],
        )
        groups = self._groups()
        charts = []
        if self.summary.by_difficulty:
            charts.append(
                Chart(
                    "Accuracy per difficulty",
                    0,
                    (len(FIGURES) + 1,),
                    1,
                    len(self.summary.by_difficulty),
                    axis_title="accuracy",
                )
            )
        else:  # all items and each tag
            charts.append(Chart("Accuracy", 0, (len(FIGURES) + 1,), 0, len(groups) - 1, axis_title="accuracy"))
        statistics = Sheet(
            "Statistics",
            [
                Column("group", 24, "text"),
                *(Column(count, 10, "integer") for count in FIGURES),
                Column("accuracy", 10, "ratio"),
                *(Column(name, 11, "ratio") for name in self.decided_semantics),
                *(
                    Column(metric_label(name), 12, "number" if name == "valid_efficiency_score" else "ratio")
                    for name in names
                ),
            ],
            [
                [
                    name,
                    *(getattr(group, count) for count in FIGURES),
                    group.accuracy,
                    *(group.accuracy_by_semantics[semantics] for semantics in self.decided_semantics),
                    *(group.metrics.get(metric) for metric in names),
                ]
                for name, group in groups
            ],
            charts=charts,
            notes=[("headline semantics", self.summary.semantics), ("disagreements", self.summary.disagreements)],
        )
        disagreements = Sheet(
            "Disagreements",
            [
                Column("id", 10, "id"),
                Column("db_id", 18, "text"),
                *(Column(name, 11, "text", colours=ITEM_COLOURS) for name in self.decided_semantics),
                Column("why", 80, "text", wrap=True),
            ],
            [
                [
                    item.id,
                    item.db_id,
                    *(item.verdicts[name] for name in self.decided_semantics),
                    item.disagreement,
                ]
                for item in self.items
                if item.disagreement is not None
            ],
        )
        official = [] if self.official is None else [self.official.sheet()]
        names = self.decided_semantics
        count_charts = []
        if len(names) > 1:
            count_charts.append(agreement_chart([item.verdicts for item in self.items], names))
            count_charts.append(deciding_rules_chart([item.disagreement for item in self.items], names))
        return Workbook(
            overview,
            statistics,
            [disagreements, *official],
            details=[item.aligned_rows for item in self.items] if self.rows_shown else (),
            count_charts=count_charts,
        )


# Metrics shown under another name in `sql`'s table and workbook: QATCH's execution accuracy
# (same rows, each row's cells in any order) is not the execution accuracy of the semantics
# that head the table. The reports keep the registry's name as their key.
METRIC_LABELS = {"execution_accuracy": "qatch_execution_accuracy"}


def metric_label(name: str) -> str:
    """How ``sql``'s table and workbook name the metric ``name``.

    >>> metric_label("execution_accuracy"), metric_label("cell_recall")
    ('qatch_execution_accuracy', 'cell_recall')
    """
    return METRIC_LABELS.get(name, name)
