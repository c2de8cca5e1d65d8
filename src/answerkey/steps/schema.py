"""The graphrag-eval file formats as pydantic models: the reference corpus, the responses, the
per-question results and the reports of ``steps evaluate`` and ``steps aggregate``
(``answerkey schema steps-reference``, ``steps-responses``, ``steps-results``,
``steps-aggregates``).

These models decide what a file may hold and word what is wrong with it. Unknown keys of the
reference and the responses are kept (``extra="allow"``): they are copied to the results
unchanged, as graphrag-eval does.

>>> Response.model_validate({"question_id": 7, "steps": []}).question_id
'7'
>>> QuestionResult.model_validate({"template_id": "t", "steps_score": float("inf")})
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for QuestionResult
steps_score
  should be a number from 0 to 1, not infinity ...
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    RootModel,
    ValidationInfo,
    WithJsonSchema,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from answerkey.errors import InputError, kind_of
from answerkey.report import text_table
from answerkey.report.figures import ratio
from answerkey.report.schema import ReportModel
from answerkey.report.workbook import VERDICT_COLOURS, Chart, Column, Sheet, Workbook
from answerkey.signature import Signature
from answerkey.steps.outputs import parse_reference_output

SPARQL_RESULTS = "application/sparql-results+json"
JSON = "application/json"

# Per-question figures that are aggregated, in the order aggregates list them (graphrag-eval's).
METRICS = (
    "answer_recall",
    "answer_precision",
    "answer_f1",
    "answer_relevance",
    "answer_relevance_cost",
    "steps_score",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "elapsed_sec",
)
# The figures among them that are fractions, from 0 to 1; the others are counts, seconds, dollars.
RATIO_METRICS = ("answer_recall", "answer_precision", "answer_f1", "answer_relevance", "steps_score")


def _identifier(value: Any) -> Any:
    # YAML reads an unquoted id such as 1234 as a number; an id is a name, so keep its text.
    # 1.0 or true is no id: its text would not be what was written.
    if isinstance(value, (bool, float)):
        raise PydanticCustomError(
            "id_type",
            "an id is a string or an integer, not {kind}",
            {"kind": "a boolean" if isinstance(value, bool) else "a number with a fraction"},
        )
    if isinstance(value, int):
        return str(value)
    return value


Identifier = Annotated[
    str,
    BeforeValidator(_identifier),
    Field(min_length=1),
    WithJsonSchema({"type": ["string", "integer"], "minLength": 1}),
]


def shown_number(value: Any) -> str:
    """A number as a message shows it: ``infinity``, ``NaN``, an integer's digit count when
    it is long, else its text.

    >>> shown_number(float("-inf")), shown_number(1.5), shown_number(10 ** 40), shown_number("x")
    ('-infinity', '1.5', 'an integer of 41 digits', 'a string')
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return kind_of(value)
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, float) and math.isinf(value):
        return "infinity" if value > 0 else "-infinity"
    text = repr(value)
    return f"an integer of {len(text.lstrip('-')):,} digits" if isinstance(value, int) and len(text) > 20 else text


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


def _ratio(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (_finite(value) and 0 <= value <= 1):
        raise PydanticCustomError(
            "ratio", "should be a number from 0 to 1, not {shown}", {"shown": shown_number(value)}
        )
    return value


def _figure(value: Any) -> Any:
    # Counts, seconds and costs: they are added up and averaged, so each must be a finite
    # number a float can hold.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (_finite(value) and value >= 0):
        raise PydanticCustomError(
            "figure", "should be a finite number of at least 0, not {shown}", {"shown": shown_number(value)}
        )
    return value


Ratio = Annotated[float, BeforeValidator(_ratio), WithJsonSchema({"type": "number", "minimum": 0, "maximum": 1})]
Figure = Annotated[float, BeforeValidator(_figure), WithJsonSchema({"type": "number", "minimum": 0})]


# Read as graphrag-eval 6.x's reference (``model_validate(..., context=GRAPHRAG_EVAL_6)``): a step
# may have no `output` (6.x compares retrieve_time_series and retrieve_data_points steps on their
# arguments), and outputs are left as written, for 6.x's rules (``answerkey.steps.rules6``).
GRAPHRAG_EVAL_6 = {"graphrag_eval": 6}


def graphrag_eval_6(info: ValidationInfo) -> bool:
    """True when a model is validated as graphrag-eval 6.x's input."""
    return isinstance(info.context, Mapping) and info.context.get("graphrag_eval") == 6


class ReferenceStep(BaseModel):
    """One expected step: a tool call and the output it should produce."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1, description="The step (tool) name, e.g. sparql_query.")
    args: dict[str, Any] = Field(default_factory=dict, description="The step's arguments.")
    output: Any = Field(
        description="The expected output: for SPARQL results their JSON text; for retrieval a list of document "
        'ids, or of objects with an "id" (as a list or its JSON text).'
    )
    output_media_type: str | None = Field(
        default=None,
        description="How the output is compared: application/sparql-results+json or application/json; "
        "any other type (text/uri, text/plain, ...) or none means identical outputs (retrieval steps: recall@k).",
    )
    ordered: bool = Field(default=False, description="SPARQL results: whether row order matters.")
    required_columns: list[str] | None = Field(
        default=None,
        description="SPARQL results: the variables the actual result must hold (default: all).",
    )
    # The output parsed once, as the comparison for this step needs it (see ``expected``), and
    # what its reading let pass (see ``reading_note``).
    _expected: Any = PrivateAttr(default=None)
    _note: str | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _optional_output(cls, value: Any, info: ValidationInfo) -> Any:
        if graphrag_eval_6(info) and isinstance(value, Mapping) and "output" not in value:
            return {**value, "output": None}
        return value

    @model_validator(mode="after")
    def _parse_output(self, info: ValidationInfo) -> ReferenceStep:
        if graphrag_eval_6(info):
            return self
        if self.required_columns is not None and len(set(self.required_columns)) != len(self.required_columns):
            raise PydanticCustomError("required_columns", "required_columns names a variable twice")
        try:
            self._expected, self._note = parse_reference_output(self)
        except InputError as error:
            where = "" if error.message.startswith("args.") else "output: "
            raise PydanticCustomError(
                "reference_output", "{where}{message}", {"where": where, "message": error.message}
            ) from None
        return self

    @property
    def expected(self) -> Any:
        """The output as compared: a ``Relation`` or ``bool`` for SPARQL results (projected on
        ``required_columns``), a decoded value for JSON, document ids (text) for retrieval,
        else the output itself."""
        return self._expected

    @property
    def reading_note(self) -> str | None:
        """What reading the output let pass (SPARQL term values that are JSON numbers or
        booleans, read as typed values), or None."""
        return self._note


class Question(BaseModel):
    """A question with its reference steps (groups in execution order) and answer."""

    model_config = ConfigDict(extra="allow")

    id: Identifier = Field(description="Unique question id.")
    question_text: str = Field(description="The question, as asked.")
    reference_steps: list[list[ReferenceStep]] | None = Field(
        None, description="Groups of expected steps in execution order; the last group is scored."
    )
    reference_answer: str | None = Field(None, description="The expected final answer.")


class Template(BaseModel):
    """A question template and the questions derived from it."""

    model_config = ConfigDict(extra="allow")

    template_id: Identifier = Field(description="Unique template id.")
    questions: list[Question]


class ReferenceCorpus(RootModel[list[Template]]):
    """A reference corpus: a list of templates (``answerkey schema steps-reference``)."""

    @model_validator(mode="after")
    def _unique_question_ids(self) -> ReferenceCorpus:
        seen: set[str] = set()
        for template in self.root:
            for question in template.questions:
                if question.id in seen:
                    raise PydanticCustomError(
                        "duplicate_id", "question id {id} appears twice", {"id": repr(question.id)}
                    )
                seen.add(question.id)
        return self

    def question_ids(self) -> list[str]:
        """The ids of every question, in corpus order."""
        return [question.id for template in self.root for question in template.questions]


class ActualStep(BaseModel):
    """One step the system executed."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(description="The step (tool) name.")
    args: dict[str, Any] = Field(default_factory=dict, description="The step's arguments.")
    id: Identifier | None = Field(None, description="The step's id, which `matches` names.")
    status: str = Field(description='"success" or "error"; only successful steps can match.')
    output: Any = Field(None, description="What the step returned (for SPARQL, the results JSON text).")
    error: str | None = None


class Response(BaseModel):
    """The system's response to one question (or the error it ran into)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    question_id: Identifier = Field(description="The question this answers.")
    status: str | None = Field(None, description='"error" for a response that failed.')
    error: str | None = Field(None, description="The error message of a failed response.")
    # `actual_steps` is the documented key; some agents log the same list as `steps`.
    actual_steps: list[ActualStep] | None = Field(
        None, validation_alias=AliasChoices("actual_steps", "steps"), description="The steps executed (or `steps`)."
    )
    actual_answer: str | None = Field(None, description="The final answer.")
    input_tokens: Figure | None = None
    output_tokens: Figure | None = None
    total_tokens: Figure | None = None
    elapsed_sec: Figure | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_steps_key(cls, value: Any) -> Any:
        if isinstance(value, dict) and "steps" in value and "actual_steps" in value:
            raise PydanticCustomError("steps_twice", 'give the steps as "actual_steps" or as "steps", not both')
        return value

    @property
    def is_error(self) -> bool:
        """True for an error response (``status: error`` or an ``error`` message)."""
        return self.status == "error" or self.error is not None


class ResponsesFile(RootModel[dict[str, Response] | list[Response] | Response]):
    """An agent's responses: an object keyed by question id, a list of responses (one per line
    in JSON Lines), or a single response (``answerkey schema steps-responses``)."""


_REPORT = ConfigDict(extra="forbid")


class QuestionResult(BaseModel):
    """One question's result, as ``run_evaluation`` gives it and graphrag-eval writes it.

    Keys other than these (graphrag-eval's claim counts and reasons, ...) are kept as they are.
    """

    model_config = ConfigDict(extra="allow")

    template_id: Identifier
    question_id: Identifier | None = None
    question_text: str | None = None
    reference_answer: str | None = None
    reference_steps: list[list[dict[str, Any]]] | None = Field(
        None, description="The reference steps; in the last group, `matches` (the actual step) or `mismatch` (why)."
    )
    status: Literal["success", "error"] | None = None
    error: str | None = Field(None, description="Why the question is an error sample.")
    actual_answer: str | None = None
    actual_steps: list[dict[str, Any]] | None = None
    answer_recall: Ratio | None = None
    answer_precision: Ratio | None = None
    answer_f1: Ratio | None = None
    answer_relevance: Ratio | None = None
    answer_relevance_cost: Figure | None = None
    steps_score: Ratio | None = Field(None, description="Matched total / size of the reference's last group.")
    input_tokens: Figure | None = None
    output_tokens: Figure | None = None
    total_tokens: Figure | None = None
    elapsed_sec: Figure | None = None


class ResultsSummary(BaseModel):
    """Counts over the questions, and the mean steps score of those that have one."""

    model_config = _REPORT

    questions: int = Field(ge=0)
    success: int = Field(ge=0)
    error: int = Field(ge=0)
    mean_steps_score: Ratio | None = Field(description="null when no question has a steps score.")


class _StepsReport(ReportModel):
    """What both steps reports show: the aggregates as a table, the results and the
    aggregates as a workbook. graphrag-eval's result and aggregate dicts are kept as computed
    (their key order too), not rebuilt as models: the document dumps them as they are."""

    signature: str

    def document(self) -> dict[str, Any]:
        """The JSON/YAML report: the fields, graphrag-eval's dicts as computed."""
        return self.model_dump(warnings=False)

    def _results(self) -> Sequence[Mapping[str, Any]]:
        raise NotImplementedError

    def _aggregates(self) -> Mapping[str, Any]:
        raise NotImplementedError

    def summary_table(self) -> str:
        """Success, error and mean steps score per template, micro and macro; the signature."""
        return aggregates_table(self._aggregates(), self.signature)

    def workbook(self) -> Workbook:
        """Overview (one row per question), Statistics (the aggregates), Step counts."""
        return steps_workbook(self._results(), self._aggregates())


class ResultsReport(_StepsReport):
    """The report of ``answerkey steps evaluate`` (``--json`` / ``--yaml``)."""

    model_config = _REPORT

    signature: str = Field(description="Options that change scores, and the version.")
    summary: ResultsSummary
    results: list[QuestionResult] = Field(description="One per question of the reference, in its order.")
    warnings: list[str]
    # Shown in the table and the workbook only: not in the document, nor in its schema.
    aggregates: SkipJsonSchema[dict[str, Any]] = Field(default_factory=dict, exclude=True)

    def _results(self) -> Sequence[Mapping[str, Any]]:
        return self.results  # type: ignore[return-value]  # graphrag-eval's dicts (see _StepsReport)

    def _aggregates(self) -> Mapping[str, Any]:
        return self.aggregates


class SeriesFigures(BaseModel):
    """A figure over the successful questions of a group."""

    model_config = _REPORT

    sum: float
    mean: float
    median: float
    min: float
    max: float


class MeanFigure(BaseModel):
    """The mean of the per-template means."""

    model_config = _REPORT

    mean: float


class StepCounts(BaseModel):
    """Executed steps by name; counts that would be empty are left out."""

    model_config = _REPORT

    total: dict[str, int] | None = None
    once_per_sample: dict[str, int] | None = Field(None, description="Questions that executed the step.")
    empty_results: dict[str, int] | None = Field(None, description="Steps whose SPARQL results have no bindings.")
    errors: dict[str, int] | None = None


class SampleFigures(BaseModel):
    """Counts of a group of questions, and each figure some successful question has."""

    model_config = _REPORT

    number_of_error_samples: int = Field(ge=0)
    number_of_success_samples: int = Field(ge=0)
    answer_recall: SeriesFigures | None = None
    answer_precision: SeriesFigures | None = None
    answer_f1: SeriesFigures | None = None
    answer_relevance: SeriesFigures | None = None
    answer_relevance_cost: SeriesFigures | None = None
    steps_score: SeriesFigures | None = None
    input_tokens: SeriesFigures | None = None
    output_tokens: SeriesFigures | None = None
    total_tokens: SeriesFigures | None = None
    elapsed_sec: SeriesFigures | None = None


class TemplateFigures(SampleFigures):
    """One template's figures, with the steps its questions executed."""

    steps: StepCounts | None = None


class MacroFigures(BaseModel):
    """Each figure's mean over the templates that have it."""

    model_config = _REPORT

    answer_recall: MeanFigure | None = None
    answer_precision: MeanFigure | None = None
    answer_f1: MeanFigure | None = None
    answer_relevance: MeanFigure | None = None
    answer_relevance_cost: MeanFigure | None = None
    steps_score: MeanFigure | None = None
    input_tokens: MeanFigure | None = None
    output_tokens: MeanFigure | None = None
    total_tokens: MeanFigure | None = None
    elapsed_sec: MeanFigure | None = None


class AggregatesReport(_StepsReport):
    """The report of ``answerkey steps aggregate`` (``--json`` / ``--yaml``): graphrag-eval's
    aggregates, with the signature of the results they were computed from."""

    model_config = _REPORT

    signature: str = Field(description="The signature of the results aggregated (its options unknown if none).")
    per_template: dict[str, TemplateFigures] = Field(description="Templates in the order of their first result.")
    micro: SampleFigures = Field(description="Over all questions.")
    macro: MacroFigures = Field(description="The mean of the per-template means.")
    warnings: list[str]
    # Shown in the workbook only: not in the document, nor in its schema.
    results: SkipJsonSchema[list[dict[str, Any]]] = Field(default_factory=list, exclude=True)

    def _results(self) -> Sequence[Mapping[str, Any]]:
        return self.results

    def _aggregates(self) -> Mapping[str, Any]:
        return {"per_template": self.per_template, "micro": self.micro, "macro": self.macro}


# A question's status, coloured as verdicts are.
STATUS_COLOURS = {"success": VERDICT_COLOURS["correct"], "error": VERDICT_COLOURS["incorrect"]}
_RATIOS = ("answer_recall", "answer_precision", "answer_f1", "answer_relevance")
_COUNTS = ("input_tokens", "output_tokens", "total_tokens")
# The Overview's columns; `matches` lists the matched actual steps of the last group and
# `mismatches` why the other reference steps did not match.
OVERVIEW_COLUMNS = (
    Column("template_id", 30, "text"),
    Column("question_id", 24, "id"),
    Column("question_text", 50, "text", wrap=True),
    Column("status", 9, "text", colours=STATUS_COLOURS),
    Column("error", 40, "text", wrap=True),
    Column("steps_score", 11, "ratio"),
    Column("matches", 30, "text"),
    Column("mismatches", 50, "text", wrap=True),
    *(Column(name, 12, "ratio") for name in _RATIOS),
    *(Column(name, 12, "integer") for name in _COUNTS),
    Column("elapsed_sec", 12, "number"),
)
_STATISTICS = ("sum", "mean", "median", "min", "max")
_COUNT_KEYS = ("number_of_error_samples", "number_of_success_samples")


def aggregates_table(aggregates: Mapping[str, Any], signature: Signature | str) -> str:
    """Per template, then over all questions (micro) and over the templates (macro): the
    success and error samples and the mean steps score; then the signature."""
    rows: list[tuple[object, ...]] = []
    for template_id, block in aggregates["per_template"].items():
        rows.append(
            (
                template_id,
                block["number_of_success_samples"],
                block["number_of_error_samples"],
                ratio(block.get("steps_score", {}).get("mean")),
            )
        )
    micro = aggregates["micro"]
    rows.append(
        (
            "micro (all questions)",
            micro["number_of_success_samples"],
            micro["number_of_error_samples"],
            ratio(micro.get("steps_score", {}).get("mean")),
        )
    )
    rows.append(("macro (mean of templates)", "", "", ratio(aggregates["macro"].get("steps_score", {}).get("mean"))))
    return "\n\n".join(
        [
            text_table(("template", "success", "error", "mean steps_score"), rows),
            f"signature: {signature}",
        ]
    )


def _last_group(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    groups = result.get("reference_steps")
    if isinstance(groups, list) and groups and isinstance(groups[-1], list):
        return [step for step in groups[-1] if isinstance(step, Mapping)]
    return []


def _cell(value: object) -> object:
    return value if value is None or isinstance(value, (int, float, str)) else str(value)


def _overview_row(result: Mapping[str, Any]) -> list[object]:
    group = _last_group(result)
    derived = {
        "matches": ", ".join(str(step["matches"]) for step in group if "matches" in step) or None,
        "mismatches": "\n".join(f"{step.get('name')}: {step['mismatch']}" for step in group if "mismatch" in step)
        or None,
    }
    return [
        _cell(derived[column.header] if column.header in derived else result.get(column.header))
        for column in OVERVIEW_COLUMNS
    ]


def _statistics_rows(aggregates: Mapping[str, Any]) -> list[list[object]]:
    scopes = [("per_template", template_id, block) for template_id, block in aggregates["per_template"].items()]
    scopes += [("micro", None, aggregates["micro"]), ("macro", None, aggregates["macro"])]
    rows: list[list[object]] = []
    for scope, template_id, block in scopes:
        for count in _COUNT_KEYS:
            if count in block:
                rows.append([scope, template_id, count, block[count], None, None, None, None])
        for metric in METRICS:
            if metric in block:
                rows.append([scope, template_id, metric, *(block[metric].get(name) for name in _STATISTICS)])
    return rows


def _statistics_charts(rows: Sequence[Sequence[object]]) -> list[Chart]:
    """The mean of each metric over all questions: the ``micro`` rows from its first fraction
    to its last (a chart takes consecutive rows; a cost between them is charted too)."""
    micro = [index for index, row in enumerate(rows) if row[0] == "micro" and row[2] in RATIO_METRICS]
    if not micro:
        return []
    mean = 3 + _STATISTICS.index("mean")
    return [Chart("Mean per metric over all questions (micro)", 2, (mean,), micro[0], micro[-1], scale=None)]


def _step_rows(aggregates: Mapping[str, Any]) -> list[list[object]]:
    rows: list[list[object]] = []
    for template_id, block in aggregates["per_template"].items():
        for count, by_name in block.get("steps", {}).items():
            rows.extend([template_id, count, name, value] for name, value in by_name.items())
    return rows


def steps_workbook(results: Sequence[Mapping[str, Any]], aggregates: Mapping[str, Any]) -> Workbook:
    """``Overview``: one row per question; ``Statistics``: the aggregates, one row per scope
    (a template, micro, macro) and metric (the sample counts in the ``sum`` column);
    ``Step counts``: the executed steps per template."""
    overview = Sheet("Overview", OVERVIEW_COLUMNS, [_overview_row(result) for result in results])
    rows = _statistics_rows(aggregates)
    statistics = Sheet(
        "Statistics",
        [
            Column("scope", 13, "text"),
            Column("template_id", 30, "text"),
            Column("metric", 26, "text"),
            *(Column(name, 14, "number") for name in _STATISTICS),
        ],
        rows,
        charts=_statistics_charts(rows),
    )
    step_counts = Sheet(
        "Step counts",
        [
            Column("template_id", 30, "text"),
            Column("count", 16, "text"),
            Column("step", 24, "text"),
            Column("value", 8, "integer"),
        ],
        _step_rows(aggregates),
    )
    return Workbook(overview, statistics, [step_counts])
