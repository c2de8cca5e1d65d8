"""answerkey.qatch.load: tests files in every format, every bad row located, empty inputs refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerkey.cli.schema import json_schema
from answerkey.errors import InputError, InputErrors
from answerkey.qatch.load import FORMATS, load_tests
from answerkey.qatch.run import QatchTest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "qatch"
ROWS = [
    {"id": "capitals", "db_id": "uk", "query": "SELECT capital FROM country", "prediction": [["London"]]},
    {"db_id": "uk", "query": [["Cardiff"]], "prediction": '[["Cardiff"]]', "question": "Largest city of Wales?"},
]
EXPECTED = [
    ("capitals", "uk", "SELECT capital FROM country", [["London"]]),
    ("2", "uk", [["Cardiff"]], '[["Cardiff"]]'),
]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path, **options) -> list[str]:
    """Every error loading ``path`` raises, as printed."""
    options.setdefault("task", "qa")
    with pytest.raises(InputError) as caught:
        load_tests(path, **options)
    error = caught.value
    return [str(each) for each in (error.errors if isinstance(error, InputErrors) else [error])]


def as_yaml(rows: list[dict]) -> str:
    return "".join(
        "- " + "\n  ".join(f"{key}: {json.dumps(value)}" for key, value in row.items()) + "\n" for row in rows
    )


@pytest.mark.parametrize(
    "name, text, lines",
    [
        ("t.jsonl", "".join(json.dumps(row) + "\n" for row in ROWS), [1, 2]),
        ("t.json", "[\n" + ",\n".join(json.dumps(row) for row in ROWS) + "\n]\n", [2, 3]),
        ("t.yaml", as_yaml(ROWS), [1, 5]),
    ],
)
def test_formats_give_the_same_tests(tmp_path, name, text, lines):
    """JSON Lines, a JSON list and a YAML list give the same tests, each with its line; an
    id defaults to the test's position and other columns are ignored."""
    tests = load_tests(write(tmp_path / name, text), task="qa")
    assert [(test.id, test.db_id, test.target, test.prediction) for test in tests] == EXPECTED
    assert [test.line for test in tests] == lines


def test_csv_rows_and_custom_columns(tmp_path):
    """CSV rows under a header, with the target and prediction columns named by options; a
    quoted line break keeps the next row's line right, and blank lines are skipped."""
    path = write(tmp_path / "t.csv", 'id,db_id,gold,answer\nq1,uk,"SELECT\n 1","[[1]]"\n\nq2,,"[[2]]","[[2]]"\n')
    tests = load_tests(path, task="qa", target_col="gold", prediction_col="answer")
    assert tests == [
        QatchTest("q1", 2, "uk", "SELECT\n 1", "[[1]]"),
        QatchTest("q2", 5, None, "[[2]]", "[[2]]"),
    ]


def test_format_option_overrides_the_suffix(tmp_path):
    """--format csv reads a file whatever its name."""
    path = write(tmp_path / "tests.txt", "query,prediction\n[[1]],[[1]]\n")
    assert load_tests(path, task="qa", format="csv") == [QatchTest("1", 2, None, "[[1]]", "[[1]]")]
    assert list(FORMATS) == ["jsonl", "json", "yaml", "csv", "tsv"]


def test_integer_ids_and_db_ids_are_their_digits(tmp_path):
    """An integer id or db_id is taken as its digits."""
    path = write(tmp_path / "t.yaml", "- {id: 7, db_id: 2024, query: SELECT 1, prediction: SELECT 1}\n")
    assert load_tests(path, task="sp") == [QatchTest("7", 1, "2024", "SELECT 1", "SELECT 1")]


def test_bad_rows_are_every_one_located(tmp_path):
    """Every bad row is an error at its place, in file order, worded without Python type names."""
    path = write(
        tmp_path / "t.jsonl",
        "\n".join(
            [
                '{"id": "a", "db_id": "uk", "query": "SELECT 1", "prediction": "SELECT 1"}',
                '{"id": "a", "db_id": "uk", "query": "SELECT 1", "prediction": "SELECT 1"}',
                '{"id": "b", "db_id": "uk", "querry": "SELECT 1", "prediction": "SELECT 1"}',
                '{"id": "c", "query": "SELECT 1", "prediction": "SELECT 1"}',
                '{"id": "d", "db_id": "uk", "query": "SELECT 1"}',
                '{"id": "e", oops}',
                "[1, 2]",
                '{"id": 1.5, "db_id": "uk", "query": "SELECT 1", "prediction": "x"}',
                '{"id": true, "db_id": "uk", "query": "SELECT 1", "prediction": "x"}',
                '{"id": "f", "db_id": ["uk"], "query": "SELECT 1", "prediction": "x"}',
                '{"id": "g", "db_id": "uk", "query": [["a"]], "prediction": "x"}',
                '{"id": "h", "db_id": "uk", "query": "  ", "prediction": "x"}',
                '{"id": "i", "db_id": "uk", "query": null, "prediction": "x"}',
            ]
        )
        + "\n",
    )
    assert problems(path, task="sp") == [
        f"{path}:2:2: duplicate id 'a' (first on line 1)",
        f"{path}:3:1: missing target column 'query' (did you mean 'querry'?)",
        f"{path}:4:1: missing db_id (the target is an SQL query)",
        f"{path}:5:1: missing prediction column 'prediction'",
        f"{path}:6:13: invalid JSON: Expecting property name enclosed in double quotes",
        f"{path}:7:1: a test is a mapping of columns, not a list",
        f"{path}:8:2: id: an id is a string or an integer, not a number",
        f"{path}:9:2: id: an id is a string or an integer, not a boolean",
        f"{path}:10:13: db_id: a db_id is a string or an integer, not a list",
        f"{path}:11:28: the target of an SP test is SQL text, not a list",
        f"{path}:12:28: the target column 'query' is empty",
        f"{path}:13:28: the target column 'query' is empty",
    ]


def test_qa_target_kinds(tmp_path):
    """A QA target is SQL text or a table; a number is neither."""
    path = write(tmp_path / "t.json", '[{"query": 5, "prediction": [[5]]}]')
    assert problems(path) == [f"{path}:1:3: the target of a QA test is SQL text or a table, not an integer"]


def test_one_error_is_raised_alone(tmp_path):
    """A single bad row raises that InputError itself (the CLI prints one line); several raise
    InputErrors with every one."""
    path = write(tmp_path / "t.jsonl", '{"query": [["a"]]}\n')
    with pytest.raises(InputError) as caught:
        load_tests(path, task="qa")
    assert type(caught.value) is InputError
    assert str(caught.value) == f"{path}:1:1: missing prediction column 'prediction'"


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("t.csv", "id,query,prediction\na,[[1]]\n", "2: the row has 2 cells but the header has 3 columns"),
        ("t.csv", "id,query,prediction\na,[[1]],[[1]],x\n", "2: the row has 4 cells but the header has 3 columns"),
        ("t.csv", 'query,prediction\n"[[1]]","[[1]]"\n"[[2]]"\n', "3: the row has 1 cell but the header has 2 columns"),
        ("t.csv", "id,gold,prediction\na,[[1]],[[1]]\n", "1: the header has no target column 'query'"),
        (
            "t.csv",
            "id,query,predictions\na,[[1]],[[1]]\n",
            "1: the header has no prediction column 'prediction' (did you mean 'predictions'?)",
        ),
        ("t.csv", "query,prediction,query\n[[1]],[[1]],[[1]]\n", "1: the column 'query' is given twice in the header"),
        ("t.csv", 'query,prediction\n"[[1]]"x,[[1]]\n', "2: invalid CSV: ',' expected after '\"'"),
        ("t.yaml", "query: [[a]]\n", "1:1: a tests file is a list of tests (mappings), not a mapping"),
        ("t.json", '{"query": [["a"]]}', "1:1: a tests file is a list of tests (mappings), not a mapping"),
        ("t.yaml", '- query: [[a]]\n  prediction: "\x01"\n', "2:16: character U+0001 is not allowed in YAML"),
    ],
)
def test_bad_files(tmp_path, name, text, message):
    """Rows that cannot be read are errors at their line, among them a CSV row with fewer
    cells than the header (it used to be scored as "prediction is not a table")."""
    path = write(tmp_path / name, text)
    assert problems(path) == [f"{path}:{message}"]


@pytest.mark.parametrize(
    "name, text",
    [
        ("t.jsonl", ""),
        ("t.jsonl", "\n \n"),
        ("t.json", "[]"),
        ("t.yaml", "---\n"),
        ("t.yaml", "[]\n"),
        ("t.csv", ""),
        ("t.csv", "id,query,prediction\n"),
        ("t.csv", "id,query,prediction\n\n\n"),
    ],
)
def test_an_empty_input_is_refused(tmp_path, name, text):
    """A tests file without tests is an error, as every empty input is."""
    path = write(tmp_path / name, text)
    assert problems(path) == [f"{path}: no tests in this file (an empty input is refused)"]


@pytest.mark.parametrize("where", ["id", "query", "prediction"])
@pytest.mark.parametrize(
    "name, render",
    [
        ("t.jsonl", lambda row: json.dumps(row) + "\n"),
        ("t.json", lambda row: "[\n" + json.dumps(row) + "\n]\n"),
        ("t.yaml", lambda row: as_yaml([row])),
    ],
)
@pytest.mark.parametrize("task", ["qa", "sp"])
def test_lone_surrogates_are_refused_at_load(tmp_path, where, name, render, task):
    """A lone surrogate escaped in an id, a target or a prediction is refused while loading,
    at its line and column (it is not text: reports could not be written)."""
    row = {"id": "t1", "db_id": "uk", "query": "SELECT 'x'", "prediction": "SELECT 'x'"}
    row[where] = "SELECT '\ud800'"
    path = write(tmp_path / name, render(row))
    [error] = problems(path, task=task)
    location, message = error.removeprefix(f"{path}:").split(": ", 1)
    line, column = map(int, location.split(":"))
    escape = path.read_text(encoding="utf-8").splitlines()[line - 1].index("\\ud800") + 1
    assert escape <= column < escape + len("\\ud800")  # at the escape (the YAML parser points into it)
    assert "surrogate" in message


def test_unknown_format_and_task(tmp_path):
    """An unknown format is an input error naming the known ones; an unknown task a ValueError."""
    path = write(tmp_path / "t.jsonl", '{"query": [["a"]], "prediction": [["a"]]}\n')
    assert problems(path, format="xml") == [f"{path}: unknown tests format 'xml'; known: jsonl, json, yaml, csv, tsv"]
    with pytest.raises(ValueError, match="unknown task 'xx'; known: qa, sp"):
        load_tests(path, task="xx")


def test_missing_file():
    """A file that does not exist is an input error, not a traceback."""
    assert problems(Path("/nonexistent/tests.jsonl")) == ["/nonexistent/tests.jsonl: no such file"]


def test_the_schema_describes_what_loads(tmp_path):
    """The bundled examples (as records) validate against `answerkey schema qatch-tests`, and a
    row without a prediction column does not."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json_schema("qatch-tests")
    lines = (EXAMPLES / "sp-tests.jsonl").read_text(encoding="utf-8").splitlines()
    jsonschema.validate([json.loads(line) for line in lines], schema)
    jsonschema.validate(ROWS, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"query": "SELECT 1"}], schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"id": 1.5, "query": "SELECT 1", "prediction": None}], schema)
