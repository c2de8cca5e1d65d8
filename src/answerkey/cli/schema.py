"""``answerkey schema NAME``: print the JSON Schema of an input or report file format."""

from __future__ import annotations

import importlib
import json

import click

__all__ = ["schema", "SCHEMAS"]

# Schema name -> "module:PydanticModel". Each file format registers here.
SCHEMAS: dict[str, str] = {
    "sdmx-case": "answerkey.sdmx.schema:TestCase",
    "corpus": "answerkey.score.load:CorpusItemSchema",
    "answers": "answerkey.score.load:AnswerRecord",
    "score-report": "answerkey.score.report:ScoreReport",
    "steps-reference": "answerkey.steps.schema:ReferenceCorpus",
    "qatch-report": "answerkey.qatch.report:QatchReport",
}


@click.command()
@click.argument("name", type=click.Choice(sorted(SCHEMAS)) if SCHEMAS else str)
def schema(name: str) -> None:
    """Print the JSON Schema of the file format NAME.

    \b
    Example:
      answerkey schema corpus > corpus.schema.json
    """
    from answerkey.cli import Trouble

    target = SCHEMAS.get(name)
    if target is None:
        raise Trouble(f"no schema named {name!r}; known: {', '.join(sorted(SCHEMAS)) or 'none'}")
    module_name, attribute = target.split(":")
    model = getattr(importlib.import_module(module_name), attribute)
    click.echo(json.dumps(model.model_json_schema(), indent=2, sort_keys=True))
