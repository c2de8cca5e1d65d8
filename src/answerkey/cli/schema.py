"""``answerkey schema NAME``: the JSON Schema of every input and report format.

Each schema describes a whole file (``$schema`` and ``$id`` included): a JSON or YAML
document, or, for formats read as records, a list of them (one per line in JSON Lines).
``json_schema(name)`` gives the same from Python; the tests validate the reports against them.

>>> json_schema("judge-report")["properties"]["verdict"]["enum"]
['correct', 'incorrect']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

import click
from pydantic import BaseModel, Field

from answerkey.answers.schema import AnswersReport
from answerkey.compare.schema import CompareReport
from answerkey.execution.schema import BirdPredictions, BirdQuestion, SqlItemSchema, SqlPredictionRecord, SqlReport
from answerkey.qatch.schema import QatchReport, QatchTestRow
from answerkey.score.schema import AnswerRecord, CorpusItemSchema, ScoreReport
from answerkey.sdmx.schema import SdmxReport, SelectionRecord, TestCase
from answerkey.steps.schema import AggregatesReport, ReferenceCorpus, ResponsesFile, ResultsReport

DIALECT = "https://json-schema.org/draft/2020-12/schema"


class MappedColumn(BaseModel):
    """Canonical column ``canonical`` was matched to system column ``system`` (from 1)."""

    canonical: int = Field(ge=1)
    system: int = Field(ge=1)


class OutOfTolerance(BaseModel):
    """A system number that differs from its canonical number by more than epsilon allows."""

    canonical: str
    system: str
    difference: str
    allowed: str


class OutOfOrder(BaseModel):
    """The first system tuple out of key order (a canonical answer with sort keys)."""

    system_tuple: int = Field(ge=1, description="The system tuple out of order, numbered from 1.")
    tuple: str = Field(description="That tuple in canonical column order, as CAS.")
    key: str = Field(description="Its sort-key values, as CAS.")
    before_system_tuple: int = Field(ge=1, description="The system tuple it should come before.")
    before_tuple: str
    before_key: str


class ExplanationReport(BaseModel):
    """Why an answer is incorrect, for the closest mapping of its columns."""

    alternative: int | None = Field(description="The OR alternative explained (from 1), or null.")
    closest_mapping: list[MappedColumn]
    missing: list[str] = Field(description="Canonical tuples missing from the system answer, as CAS.")
    extra: list[str] = Field(description="System tuples not in the canonical answer, as CAS.")
    out_of_tolerance: list[OutOfTolerance]
    out_of_order: OutOfOrder | None = Field(description="Sort keys: the first tuple out of key order, or null.")


class VerdictReport(BaseModel):
    """The output of ``answerkey judge --json``."""

    verdict: Literal["correct", "incorrect"]
    correct: bool
    reason: str
    mapping: list[MappedColumn] | None = Field(description="Columns matched, numbered from 1; null if none.")
    alternative: int | None = Field(description="The OR alternative that matched (from 1), or null.")
    signature: str
    explanation: list[ExplanationReport] | None = Field(None, description="With --explain.")


class CheckedFile(BaseModel):
    """One file checked by ``answerkey check``."""

    file: str
    ok: bool
    line: int | None
    column: int | None
    message: str | None


class CheckReport(BaseModel):
    """The output of ``answerkey check --json``."""

    files: list[CheckedFile]
    valid: int = Field(ge=0)
    invalid: int = Field(ge=0)


class FuzzAnswer(BaseModel):
    """One answer written by ``answerkey fuzz generate`` to a .jsonl file."""

    id: str
    format: str
    answer: str


class RoundtripFailure(BaseModel):
    """The minimal relation a formatter got wrong, what it was sent and printed, and why."""

    relation: str = Field(description="The minimal failing relation, as CAS.")
    input: str = Field(description="What the command got on stdin.")
    output: str = Field(description="What it printed (cut to 64 KiB).")
    stderr: str
    output_truncated: bool
    ended: str = Field(description="exited, timed out, or killed for printing too much.")
    exit_status: int | None
    reason: str


class RoundtripReport(BaseModel):
    """The output of ``answerkey fuzz roundtrip --json``."""

    command: str
    outcome: Literal["ok", "failure"]
    seed: int
    input_format: str
    epsilon: float
    timeout: float
    examples: int = Field(ge=0, description="Relations tried.")
    calls: int = Field(ge=0, description="Distinct inputs sent, shrinking included.")
    failure: RoundtripFailure | None
    reproduce: str | None = Field(description="The command line that reproduces the failure.")


class ParserOutcome(BaseModel):
    """How one parser fared under ``answerkey fuzz self``."""

    name: str
    description: str
    outcome: str
    examples: int = Field(ge=0)
    skipped: str | None = Field(description="Why the parser was not fuzzed (a module not installed).")
    input: str | None = Field(description="The minimal input that raised an undocumented exception.")
    error: str | None = Field(description="Its traceback.")


class SelfReport(BaseModel):
    """The output of ``answerkey fuzz self --json``."""

    outcome: str
    seed: int
    examples: int = Field(ge=0, description="Inputs per parser.")
    bugs: int = Field(ge=0)
    parsers: list[ParserOutcome]


@dataclass(frozen=True)
class SchemaEntry:
    """A file format: the pydantic model, whether it describes the whole file or each of its
    records, and what the file is."""

    model: type[BaseModel]
    shape: Literal["document", "records", "one-or-more"]
    description: str


# Schema name -> entry. Every input and report format registers here.
SCHEMAS: dict[str, SchemaEntry] = {
    "corpus": SchemaEntry(
        CorpusItemSchema,
        "records",
        "A corpus for answerkey score: a YAML or JSON list of items, or JSON Lines.",
    ),
    "answers": SchemaEntry(
        AnswerRecord,
        "records",
        "A system's answers for answerkey score: records in JSON Lines or a JSON/YAML list "
        "(or a mapping id: CAS text).",
    ),
    "score-report": SchemaEntry(ScoreReport, "document", "The report of answerkey score (--json, --yaml)."),
    "judge-report": SchemaEntry(VerdictReport, "document", "The output of answerkey judge --json."),
    "check-report": SchemaEntry(CheckReport, "document", "The output of answerkey check --json."),
    "fuzz-answers": SchemaEntry(FuzzAnswer, "records", "Answers written by answerkey fuzz generate to a .jsonl file."),
    "fuzz-roundtrip-report": SchemaEntry(RoundtripReport, "document", "The output of answerkey fuzz roundtrip --json."),
    "fuzz-self-report": SchemaEntry(SelfReport, "document", "The output of answerkey fuzz self --json."),
    "qatch-tests": SchemaEntry(
        QatchTestRow,
        "records",
        "A tests file for answerkey qatch: JSON Lines, a JSON or YAML list, or CSV rows.",
    ),
    "qatch-report": SchemaEntry(QatchReport, "document", "The report of answerkey qatch (--json, --yaml)."),
    "sdmx-case": SchemaEntry(TestCase, "one-or-more", "SDMX test cases: one case or a list of them per YAML file."),
    "sdmx-selections": SchemaEntry(
        SelectionRecord,
        "one-or-more",
        "A system's SDMX selections: JSON Lines or a JSON/YAML list of records.",
    ),
    "sdmx-report": SchemaEntry(SdmxReport, "document", "The report of answerkey sdmx (--json, --yaml)."),
    "steps-reference": SchemaEntry(
        ReferenceCorpus,
        "document",
        "A graphrag-eval reference corpus: templates -> questions -> reference_steps.",
    ),
    "steps-responses": SchemaEntry(
        ResponsesFile,
        "document",
        "An agent's responses: an object keyed by question id, a JSON list, or JSON Lines.",
    ),
    "steps-results": SchemaEntry(ResultsReport, "document", "The report of answerkey steps evaluate (--json, --yaml)."),
    "steps-aggregates": SchemaEntry(
        AggregatesReport,
        "document",
        "The report of answerkey steps aggregate (--json, --yaml).",
    ),
    "sql-corpus": SchemaEntry(
        SqlItemSchema,
        "records",
        "Gold SQL for answerkey sql (the answerkey layout): a YAML or JSON list of items, or JSON Lines.",
    ),
    "sql-predictions": SchemaEntry(
        SqlPredictionRecord,
        "records",
        "Predicted SQL for answerkey sql (the answerkey layout): {id, sql} records in JSON Lines or a JSON/YAML "
        "list (or a mapping id: SQL).",
    ),
    "sql-bird-gold": SchemaEntry(
        BirdQuestion,
        "records",
        "BIRD's gold questions (dev.json) for answerkey sql --layout bird.",
    ),
    "sql-bird-predictions": SchemaEntry(
        BirdPredictions,
        "document",
        "BIRD's predictions for answerkey sql --layout bird: position -> SQL<TAB>----- bird -----<TAB>db_id.",
    ),
    "sql-report": SchemaEntry(SqlReport, "document", "The report of answerkey sql (--json, --yaml)."),
    "answers-report": SchemaEntry(AnswersReport, "document", "The report of answerkey answers (--json, --yaml)."),
    "compare-report": SchemaEntry(CompareReport, "document", "The report of answerkey compare (--json, --yaml)."),
}


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of the whole file format ``name`` (a ``SCHEMAS`` key)."""
    entry = SCHEMAS[name]
    described: dict[str, Any] = entry.model.model_json_schema()
    definitions = described.pop("$defs", {})
    head: dict[str, Any] = {
        "$schema": DIALECT,
        "$id": f"urn:answerkey:schema:{name}",
        "title": name,
        "description": entry.description,
    }
    if entry.shape == "document":
        body = {**described, **head}
    else:
        item_name = described.get("title", entry.model.__name__)
        definitions[item_name] = described
        item = {"$ref": f"#/$defs/{item_name}"}
        records: dict[str, Any] = {"type": "array", "items": item}
        body = {**head, **(records if entry.shape == "records" else {"anyOf": [item, records]})}
    if definitions:
        body["$defs"] = definitions
    return body


@click.command()
@click.argument("name", metavar="NAME", type=click.Choice(sorted(SCHEMAS)))
def schema(name: str) -> None:
    """Print the JSON Schema of the file format NAME (the whole file: records formats are a
    list of records, one per line in JSON Lines).

    \b
    Examples:
      answerkey schema corpus > corpus.schema.json
      answerkey schema score-report
    """
    click.echo(json.dumps(json_schema(name), indent=2, sort_keys=True))
