"""Corpus and answers files (issue #3, "Files"): formats, coercions, located errors."""

import json
import textwrap

import pytest

from answerkey.errors import InputError
from answerkey.score.load import AnswerRecord, CorpusItem, CorpusItemSchema, InputErrors, load_answers, load_corpus


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def test_yaml_corpus_fields_and_defaults(tmp_path):
    """Every field of an item is read; category defaults to 0 (H89 section 5: the default case)."""
    path = write(
        tmp_path,
        "c.yaml",
        """\
        - id: q1
          query: What is her salary?
          context: [What is Mary Smith's job title]
          answer: ((52000))
          max_answer: ((52000 "SMITH"))
          category: 1
          tags: [discourse]
          epsilon: 0.001
          ordered: true
        - id: q2
          answer: 3
        """,
    )
    corpus = load_corpus(path)
    assert corpus.problems == []
    first, second = corpus.items
    assert first == CorpusItem(
        id="q1",
        query="What is her salary?",
        answer="((52000))",
        max_answer='((52000 "SMITH"))',
        category="1",
        tags=["discourse"],
        context=["What is Mary Smith's job title"],
        epsilon=0.001,
        ordered=True,
        written=frozenset({"id", "query", "context", "answer", "max_answer", "category", "tags", "epsilon", "ordered"}),
    )
    assert (second.id, second.answer, second.category, second.tags, second.ordered) == ("q2", "3", "0", [], None)
    assert corpus.locate(0, "answer") == (4, 11)


@pytest.mark.parametrize(
    "written, expected",
    [
        ("5", "5"),  # YAML int
        ("2.5", "2.5"),  # YAML float
        ("yes", "true"),  # YAML 1.1 boolean, an ATIS yes
        ("no", "false"),
        ("2024-01-31", "2024-01-31"),  # YAML date
        ("'\"04-JUL-89\"'", '"04-JUL-89"'),
        ("((1 2))", "((1 2))"),
    ],
)
def test_yaml_scalars_become_cas_text(tmp_path, written, expected):
    """Values YAML reads as numbers, booleans or dates are turned back into CAS text."""
    corpus = load_corpus(write(tmp_path, "c.yaml", f"- id: q1\n  answer: {written}\n"))
    assert corpus.items[0].answer == expected


def test_jsonl_corpus_with_numeric_id(tmp_path):
    """A JSONL corpus is one item per line; numeric ids and categories become text."""
    path = write(tmp_path, "c.jsonl", '{"id": 7, "answer": "((1))", "category": 0}\n\n{"id": "x", "category": "x"}\n')
    corpus = load_corpus(path)
    assert [(item.id, item.category, item.scored) for item in corpus.items] == [("7", "0", True), ("x", "X", False)]
    assert corpus.locate(1) == (3, 1)


def test_every_bad_item_is_listed_with_its_place(tmp_path):
    """Invalid items are all collected, located at the offending field, and left out."""
    path = write(
        tmp_path,
        "c.yaml",
        """\
        - id: q1
          answer: ((1))
        - id: q2
        - id: q3
          answer: 1
          category: 4
        - id: q1
          answer: 2
        - just text
        - id: q5
          answer: 1
          epsilon: -1
          tags: oops
        """,
    )
    corpus = load_corpus(path)
    assert [item.id for item in corpus.items] == ["q1"]
    assert [str(problem) for problem in corpus.problems] == [
        f"{path}:3:3: answer: required unless the item is in category X (excluded from scoring)",
        f"{path}:6:13: category: should be '0', '1', '2', '3' or 'X'",
        f"{path}:7:7: duplicate id 'q1' (first on line 1)",
        f"{path}:9:3: a corpus item is a mapping, not a string",
        f"{path}:12:12: epsilon: should be greater than or equal to 0",
        f"{path}:13:9: tags: should be a list, not a string",
    ]


def test_jsonl_errors_point_at_the_key(tmp_path):
    """In JSONL, a field error is at the column of its key; a bad line at the JSON error."""
    path = write(tmp_path, "c.jsonl", '{"id": "q1", "answer": "1", "tagz": []}\n{"id": "q2", "answer": \n')
    corpus = load_corpus(path)
    assert [str(problem) for problem in corpus.problems] == [
        f"{path}:1:29: tagz: unknown field (did you mean 'tags'?)",
        f"{path}:2:24: invalid JSON: Expecting value",
    ]


@pytest.mark.parametrize("name", ["c.jsonl", "c.json", "c.yaml"])
def test_a_loaded_corpus_keeps_places_not_the_decoded_file(tmp_path, name):
    """After loading, the decoded values are dropped (memory), yet errors found later while
    scoring still point at the item's field."""
    items = [{"id": "q1", "answer": "1"}, {"id": "q2", "answer": "(1"}]
    text = "".join(json.dumps(item) + "\n" for item in items) if name.endswith("jsonl") else json.dumps(items, indent=1)
    corpus = load_corpus(write(tmp_path, name, text))
    assert corpus.document is not None and corpus.document.data is None
    expected = {"c.jsonl": (2, 14), "c.json": (8, 3), "c.yaml": (8, 13)}[name]
    assert corpus.locate(1, "answer") == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "the corpus has no items (an empty input is refused)"),
        ("id: q1\n", "a corpus is a list of items, not a mapping"),
        ("- [unclosed\n", "while parsing a flow sequence did not find expected ',' or ']'"),
    ],
)
def test_unusable_corpus_files(tmp_path, text, message):
    """A corpus file that is not a list of items raises an InputError."""
    with pytest.raises(InputError) as caught:
        load_corpus(write(tmp_path, "c.yaml", text))
    assert caught.value.message == message


def test_corpus_format_can_be_named(tmp_path):
    """--corpus-format overrides the extension."""
    path = write(tmp_path, "corpus.txt", '{"id": "q1", "answer": "1"}\n')
    assert load_corpus(path, format="jsonl").items[0].id == "q1"


def test_answers_jsonl(tmp_path):
    """JSONL answers: CAS text, null for no answer, other keys ignored, origin FILE:LINE."""
    path = write(
        tmp_path,
        "a.jsonl",
        '{"id": "q1", "answer": "((1))", "latency_ms": 12}\n{"id": 2, "answer": null}\n{"id": "q3", "answer": 2.5}\n',
    )
    answers = load_answers(path)
    assert {key: (given.text, given.origin) for key, given in answers.by_id.items()} == {
        "q1": ("((1))", f"{path}:1"),
        "2": (None, f"{path}:2"),
        "q3": ("2.5", f"{path}:3"),
    }


def test_answers_yaml_mapping(tmp_path):
    """A YAML answers file maps ids to CAS text."""
    path = write(tmp_path, "a.yaml", "q1: ((1 2))\n2: 5\nq3: NO_ANSWER\nq4:\n")
    answers = load_answers(path)
    assert {key: given.text for key, given in answers.by_id.items()} == {
        "q1": "((1 2))",
        "2": "5",
        "q3": "NO_ANSWER",
        "q4": None,
    }
    assert answers.by_id["2"].origin == f"{path}:2"


def test_answers_directory(tmp_path):
    """A directory holds <id>.cas files; hidden files are skipped, any other file is an error."""
    directory = tmp_path / "answers"
    directory.mkdir()
    (directory / "q1.cas").write_text("((1))\n")
    (directory / "q2.1.cas").write_text("5")
    (directory / ".q3.cas").write_text("5")
    (directory / "notes.txt").write_text("x")
    (directory / "more").mkdir()
    with pytest.raises(InputErrors) as caught:
        load_answers(str(directory))
    assert [str(error) for error in caught.value.errors] == [
        f"{directory / 'more'}: not a <id>.cas file (a directory)",
        f"{directory / 'notes.txt'}: not a <id>.cas file: an answers directory holds only <id>.cas files "
        "(hidden ones are skipped)",
    ]
    (directory / "notes.txt").unlink()
    (directory / "more").rmdir()
    answers = load_answers(str(directory))
    assert {key: given.text for key, given in answers.by_id.items()} == {"q1": "((1))\n", "q2.1": "5"}
    assert answers.by_id["q1"].origin == str(directory / "q1.cas") and not answers.by_id["q1"].embedded


def test_answers_sniffed_from_content(tmp_path):
    """Without a known extension, text starting with { is JSONL, anything else YAML."""
    assert load_answers(write(tmp_path, "a.out", '{"id": "q1", "answer": "1"}\n')).by_id["q1"].text == "1"
    assert load_answers(write(tmp_path, "b.out", "q1: 1\n")).by_id["q1"].text == "1"


def test_answer_file_problems_are_all_raised(tmp_path):
    """Bad lines, missing ids or answers and repeated ids are all reported together."""
    path = write(
        tmp_path,
        "a.jsonl",
        '{"id": "q1", "answer": "1"}\n{"id": "q1", "answer": "2"}\n{"answer": "3"}\n{"id": "q4"}\nnot json\n[1]\n',
    )
    with pytest.raises(InputErrors) as caught:
        load_answers(path)
    assert [str(error) for error in caught.value.errors] == [
        f"{path}:2:2: a second answer for id 'q1' (first at {path}:1)",
        f"{path}:3:1: id: missing; this field is required",
        f"{path}:4:1: answer: missing; this field is required",
        f"{path}:5:1: invalid JSON: Expecting value",
        f"{path}:6:1: an answer record is a mapping, not a list",
    ]


def test_yaml_answers_reject_structures(tmp_path):
    """A YAML answer must be CAS text, not a list."""
    path = write(tmp_path, "a.yaml", "q1: [1, 2]\n")
    with pytest.raises(InputErrors) as caught:
        load_answers(path)
    assert str(caught.value) == f"{path}:1:5: q1: the answer must be CAS text, not a list"


def test_schemas_describe_the_files():
    """`answerkey schema corpus` / `answers` come from these models."""
    corpus_schema = CorpusItemSchema.model_json_schema()
    assert corpus_schema["required"] == ["id"]
    assert corpus_schema["additionalProperties"] is False
    assert set(corpus_schema["properties"]) == {
        "id",
        "query",
        "answer",
        "max_answer",
        "category",
        "tags",
        "context",
        "epsilon",
        "ordered",
        "order_by",
    }
    answer_schema = AnswerRecord.model_json_schema()
    assert answer_schema["required"] == ["id", "answer"]
    json.dumps(corpus_schema)


def test_example_files_validate_against_the_printed_schemas():
    """The personnel example's items and answer records satisfy the JSON Schemas that
    `answerkey schema corpus` / `answers` print (what editors and other tools will check)."""
    from pathlib import Path

    import yaml

    jsonschema = pytest.importorskip("jsonschema")
    example = Path(__file__).resolve().parents[2] / "examples" / "personnel"
    for item in yaml.safe_load((example / "corpus.yaml").read_text()):
        jsonschema.validate(item, CorpusItemSchema.model_json_schema())
    for line in (example / "answers.jsonl").read_text().splitlines():
        jsonschema.validate(json.loads(line), AnswerRecord.model_json_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"id": "q", "answr": "1"}, CorpusItemSchema.model_json_schema())
