"""The graphrag-eval file formats as pydantic models: the reference corpus and the responses.

Unknown keys are kept (``extra="allow"``): they are copied to the results unchanged, as
graphrag-eval does.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, RootModel, model_validator

from answerkey.errors import InputError

__all__ = [
    "SPARQL_RESULTS",
    "JSON",
    "ReferenceStep",
    "Question",
    "Template",
    "ReferenceCorpus",
    "ActualStep",
    "Response",
]

SPARQL_RESULTS = "application/sparql-results+json"
JSON = "application/json"


def _id_text(value: object) -> object:
    # YAML reads an unquoted id such as 1234 as a number; an id is a name, so keep its text.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


Identifier = Annotated[str, BeforeValidator(_id_text), Field(min_length=1)]


class ReferenceStep(BaseModel):
    """One expected step: a tool call and the output it should produce."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1, description="The step (tool) name, e.g. sparql_query.")
    args: dict[str, Any] = Field(default_factory=dict, description="The step's arguments.")
    output: Any = Field(description="The expected output (for SPARQL results, the JSON text).")
    output_media_type: Literal["application/sparql-results+json", "application/json"] | None = Field(
        default=None, description="How the output is compared; missing means exact equality."
    )
    ordered: bool = Field(default=False, description="SPARQL results: whether row order matters.")
    required_columns: list[str] | None = Field(
        default=None,
        description="SPARQL results: the variables the actual result must hold (default: all).",
    )
    # The output parsed once, as the comparison for this step needs it (see ``expected``).
    _expected: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _parse_output(self) -> ReferenceStep:
        from answerkey.steps.outputs import parse_reference_output

        if self.required_columns is not None and len(set(self.required_columns)) != len(self.required_columns):
            raise ValueError("required_columns names a variable twice")
        try:
            self._expected = parse_reference_output(self)
        except InputError as error:
            raise ValueError(f"output: {error.message}") from None
        return self

    @property
    def expected(self) -> Any:
        """The output as compared: a ``Relation`` or ``bool`` for SPARQL results (projected on
        ``required_columns``), a decoded value for JSON, document ids for retrieval, else the
        output itself."""
        return self._expected


class Question(BaseModel):
    """A question with its reference steps (groups in execution order) and answer."""

    model_config = ConfigDict(extra="allow")

    id: Identifier
    question_text: str
    reference_steps: list[list[ReferenceStep]] | None = None
    reference_answer: str | None = None


class Template(BaseModel):
    """A question template and the questions derived from it."""

    model_config = ConfigDict(extra="allow")

    template_id: Identifier
    questions: list[Question]


class ReferenceCorpus(RootModel[list[Template]]):
    """A reference corpus: a list of templates (``answerkey schema steps-reference``)."""

    @model_validator(mode="after")
    def _unique_question_ids(self) -> ReferenceCorpus:
        seen: set[str] = set()
        for template in self.root:
            for question in template.questions:
                if question.id in seen:
                    raise ValueError(f"question id {question.id!r} appears twice")
                seen.add(question.id)
        return self


class ActualStep(BaseModel):
    """One step the system executed."""

    model_config = ConfigDict(extra="allow")

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    id: Identifier | None = None
    status: str = Field(description='"success" or "error"; only successful steps can match.')
    output: Any = None
    error: str | None = None


class Response(BaseModel):
    """The system's response to one question (or the error it ran into)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    question_id: Identifier
    status: str | None = None
    error: str | None = None
    actual_steps: list[ActualStep] | None = None
    actual_answer: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    elapsed_sec: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _steps_key(cls, value: Any) -> Any:
        # `actual_steps` is the documented key; some agents log the same list as `steps`.
        if isinstance(value, dict) and "steps" in value:
            if "actual_steps" in value:
                raise ValueError('give the steps as "actual_steps" or as "steps", not both')
            value = {**value, "actual_steps": value["steps"]}
            del value["steps"]
        return value

    @property
    def is_error(self) -> bool:
        """True for an error response (``status: error`` or an ``error`` message)."""
        return self.status == "error" or self.error is not None
