"""The plain reading of corpus items and answer records against the pydantic schemas.

Loading takes an item or record without pydantic when it is written in its plain form
(``answerkey.score.load._plain_item`` / ``_plain_answer``). Whatever it takes, the schema must
take too, giving the same item; JSON Lines are read by the schema's own JSON reading
when that accepts the line, so it must agree there as well.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import subprocess
import sys

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from answerkey.score.schema import AnswerRecord, CorpusItemSchema, ValidationError
from answerkey.score.load import CATEGORIES, CorpusItem, _plain_answer, _plain_item, _schema_item

FIELDS = ("id", "query", "answer", "max_answer", "category", "tags", "context", "epsilon", "ordered")

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=4), st.dates(),
    st.sampled_from(["0", "1", "2", "3", "X", "x", " 1", "", " ", "((1))", "\ud800"]),
)
values = st.one_of(scalars, st.lists(st.one_of(st.text(max_size=3), st.integers(), st.none()), max_size=3))
texts = st.one_of(st.text(max_size=6), st.sampled_from(["", " ", "((1))", "\ud800", "é"]))

# Items in the plain form but for the odd value (an id of one lone surrogate, a negative or
# infinite epsilon, no answer outside category X): the plain reading is taken often.
plain_items = st.fixed_dictionaries(
    {"id": texts, "answer": st.one_of(texts, st.none())},
    optional={
        "query": texts,
        "max_answer": st.one_of(texts, st.none()),
        "category": st.sampled_from(CATEGORIES),
        "tags": st.lists(texts, max_size=3),
        "context": st.lists(texts, max_size=2),
        "epsilon": st.one_of(st.none(), st.floats()),
        "ordered": st.one_of(st.none(), st.booleans()),
    },
)
# Items with any field possibly off.
near_items = st.fixed_dictionaries(
    {"id": st.one_of(texts, st.integers()), "answer": st.one_of(texts, st.none(), st.integers(), st.floats())},
    optional={
        "query": st.one_of(texts, st.integers()),
        "max_answer": st.one_of(texts, st.none()),
        "category": st.one_of(st.sampled_from([*CATEGORIES, "x", " 2", "4", ""]), st.integers(-1, 4), st.none()),
        "tags": st.one_of(st.lists(texts, max_size=3), st.lists(st.integers(), max_size=2), st.none(), texts),
        "context": st.one_of(st.lists(texts, max_size=2), st.none()),
        "epsilon": st.one_of(st.none(), st.floats(), st.integers(-1, 2), st.booleans(), st.sampled_from([-0.0, "0.1"])),
        "ordered": st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, "true"])),
        "answr": values,
    },
)
any_items = st.one_of(st.dictionaries(st.sampled_from([*FIELDS, "extra"]), values, max_size=9), values)
near_records = st.fixed_dictionaries(
    {"id": st.one_of(texts, texts, st.integers(), st.none())},
    optional={
        "answer": st.one_of(texts, texts, st.none(), st.integers(), st.floats(), st.booleans(), st.lists(texts, max_size=1)),
        "latency": values,
        "_note": values,
    },
)


def _schema_reads(value: object) -> CorpusItem | None:
    try:
        return _schema_item(CorpusItemSchema.model_validate(value))
    except ValidationError:
        return None


def _schema_reads_json(text: str) -> CorpusItem | None:
    try:
        return _schema_item(CorpusItemSchema.model_validate_json(text))
    except ValidationError:
        return None


def _typed(item: CorpusItem | None) -> list | None:
    # 0 == 0.0 and True == 1: compare the types of the fields too.
    return None if item is None else [(type(value), value) for value in dataclasses.astuple(item)]


def _json_text(value: object) -> str | None:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):  # a date: YAML only
        return None


@given(st.one_of(plain_items, near_items, any_items))
@example({"id": "q", "answer": "((1))", "epsilon": -0.0})
@example({"id": "q", "category": "X"})
@example({"id": "q", "category": "X", "max_answer": "((1))"})
@example({"id": "q", "answer": "1", "tags": ["a", 1]})
@example({"id": "q", "answer": "1", "epsilon": math.nan})
@example({"id": "q", "answer": "1", "epsilon": math.inf})
@example({"id": "q", "answer": "1", "ordered": 1})
@example({"id": "q", "answer": "1", "date": datetime.date(2024, 1, 1)})
def test_a_plainly_read_item_is_what_the_schema_reads(value):
    """Whatever item the plain reading takes, the schema takes as the same item, from the
    value and (for JSON Lines) from the JSON text."""
    plain = _plain_item(value)
    if plain is None:
        return
    assert _typed(plain) == _typed(_schema_reads(value))
    text = _json_text(value)
    if text is not None:
        from_json = _schema_reads_json(text)
        assert from_json is None or _typed(plain) == _typed(from_json)


@given(near_records)
@example({"id": "q", "answer": None})
@example({"id": "q", "answer": 5})
@example({"id": "q", "answer": "1", "model_config": 1})
def test_a_plainly_read_record_is_what_the_schema_reads(value):
    """Whatever answer record the plain reading takes, the schema reads as the same id and text."""
    plain = _plain_answer(value)
    if plain is None:
        return
    model = AnswerRecord.model_validate(value)
    assert plain == (model.id, model.answer) and type(plain.answer) is type(model.answer)
    text = _json_text(value)
    if text is not None:
        try:
            model = AnswerRecord.model_validate_json(text)
        except ValidationError:
            return
        assert plain == (model.id, model.answer) and type(plain.answer) is type(model.answer)


@pytest.mark.parametrize(
    "value",
    [
        {"id": "q1", "answer": "((1))"},
        {"id": "q1", "query": "Who?", "answer": "((1))", "max_answer": "((1 2))", "category": "X", "tags": ["a"],
         "context": ["Before?"], "epsilon": 0.001, "ordered": True},
        {"id": "q2", "category": "X"},
    ],
)
def test_plain_items_are_read_without_the_schema(value):
    """The common forms are read plainly (else every run would import pydantic)."""
    assert _plain_item(value) == _schema_reads(value)


@pytest.mark.parametrize(
    "value",
    [
        {"id": 7, "answer": "1"},  # a number for the id
        {"id": "q", "answer": 5},  # a YAML number for CAS text
        {"id": "q", "answer": "1", "category": "x"},  # normalised by the schema
        {"id": "q", "answer": "1", "category": 1},
        {"id": "q", "answer": "1", "epsilon": 0},  # an int epsilon becomes a float
        {"id": "q", "answer": "1", "answr": "2"},  # extra key: the schema words the error
        {"id": "q"},  # no answer outside category X
        {"id": "", "answer": "1"},
    ],
)
def test_other_items_go_to_the_schema(value):
    """Anything the schema would convert or reject is left to it."""
    assert _plain_item(value) is None


def test_loading_plain_files_does_not_import_pydantic(tmp_path):
    """Plain JSONL and YAML corpora and a plain answers file load without pydantic; an item
    that is not plain brings it in."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"id": "q1", "answer": "((1))", "tags": ["t"]}\n{"id": "q2", "category": "X"}\n')
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"id": "q1", "answer": "((1))", "latency": 3}\n{"id": "q2", "answer": null}\n')
    script = (
        "import sys; from answerkey.score.load import load_answers, load_corpus; "
        f"corpus = load_corpus({str(corpus)!r}); answers = load_answers({str(answers)!r}); "
        "print(len(corpus.items), len(answers.by_id), 'pydantic' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["2", "2", "False"]
    corpus.write_text('{"id": 3, "answer": 5}\n')
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["1", "2", "True"]
    corpus = corpus.with_suffix(".yaml")
    corpus.write_text("- {id: q1, answer: '((1))', tags: [t]}\n- {id: q2, category: X}\n")
    script = script.replace("corpus.jsonl", "corpus.yaml")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["2", "2", "False"]

