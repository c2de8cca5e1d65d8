"""Reading gold and predicted SQL in the Spider, BIRD and answerkey layouts: items, detection,
and every problem located at FILE:LINE:COL with its exact words."""

from __future__ import annotations

import json

import pytest

from answerkey.errors import InputError, InputErrors
from answerkey.execution.load import SqlItem, detect_layout, load_inputs


@pytest.fixture
def write(tmp_path, monkeypatch):
    """Write ``text`` to ``name`` in a temporary working directory and return ``name``."""
    monkeypatch.chdir(tmp_path)

    def write(name, text):
        (tmp_path / name).write_text(text, encoding="utf-8", newline="")
        return name

    return write


def load_errors(gold, predictions, **options) -> list[str]:
    """Every error of loading, as FILE:LINE:COL: message."""
    with pytest.raises(InputError) as caught:
        load_inputs(gold, predictions, **options)
    error = caught.value
    return [str(one) for one in (error.errors if isinstance(error, InputErrors) else [error])]


# ---------------------------------------------------------------- Spider


def test_spider_items_pair_lines_in_order(write):
    """Spider gold lines are SQL<TAB>db_id, stripped; predictions pair with them by line; ids
    are positions from 0; anything after a tab on a prediction line is dropped; CRLF is a line break."""
    gold = write("gold.sql", "SELECT 1\tconcert_singer\r\n  SELECT a\tb FROM t\tpets_1  \r\n")
    predicted = write("pred.sql", "SELECT 2\r\nSELECT a FROM t\tpets_1\r\n")
    inputs = load_inputs(gold, predicted)
    assert inputs.layout == "spider"
    assert inputs.items == [
        SqlItem("0", "concert_singer", "SELECT 1", "SELECT 2", source=gold, line=1),
        SqlItem("1", "pets_1", "SELECT a\tb FROM t", "SELECT a FROM t", source=gold, line=2),
    ]
    assert inputs.warnings == []
    assert inputs.items[1].origin == f"{gold}:2"


def test_spider_sessions_separated_by_blank_lines(write):
    """Blank lines separate sessions (SParC, CoSQL): equal sessions pair item by item."""
    gold = write("gold.txt", "\nSELECT 1\td\nSELECT 2\td\n\n\nSELECT 3\td\n")
    predicted = write("pred.txt", "A\nB\n\nC\n\n")
    inputs = load_inputs(gold, predicted)
    assert [(item.id, item.gold, item.predicted, item.line) for item in inputs.items] == [
        ("0", "SELECT 1", "A", 2),
        ("1", "SELECT 2", "B", 3),
        ("2", "SELECT 3", "C", 6),
    ]


def test_spider_gold_line_problems_are_located(write):
    """A gold line without a tab, and a db_id that is not a database name (at its column)."""
    gold = write("gold.sql", "SELECT 1\nSELECT 2\t../etc\nSELECT 3\td\n")
    predicted = write("pred.sql", "A\nB\nC\n")
    assert load_errors(gold, predicted) == [
        "gold.sql:1:1: a gold line is SQL<TAB>db_id, and this one has no tab",
        "gold.sql:2:10: db_id: not a database name: '../etc'",
    ]


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        (
            "SELECT 1\td\nSELECT 2\td\n",
            "A\nB\nC\n",
            "pred.sql:3:1: 3 predictions for 2 gold queries: this prediction has no gold query",
        ),
        (
            "SELECT 1\td\nSELECT 2\td\nSELECT 3\td\n",
            "A\n",
            "pred.sql:2:1: 1 prediction for 3 gold queries: the gold query on line 2 of {gold} has no prediction",
        ),
        (
            "SELECT 1\td\nSELECT 2\td\nSELECT 3\td\n",
            "A\n\nB\nC\n",
            "pred.sql:2:1: session 1 (blank lines separate sessions): 1 prediction for 3 gold queries: "
            "the gold query on line 2 of {gold} has no prediction",
        ),
        (
            "SELECT 1\td\n\nSELECT 2\td\n",
            "A\n\nB\n\nC\n",
            "pred.sql:5:1: 3 sessions of predictions for 2 gold sessions (blank lines separate sessions): "
            "this session has no gold session",
        ),
        (
            "SELECT 1\td\n\nSELECT 2\td\n",
            "A",
            "pred.sql:2:1: 1 session of predictions for 2 gold sessions (blank lines separate sessions): "
            "the gold session from line 3 of {gold} has no predictions",
        ),
    ],
)
def test_spider_predictions_that_do_not_line_up(write, gold, predicted, expected):
    """Counts per session as test-suite-sql-eval pairs them: the first place they part, located."""
    gold_path = write("gold.sql", gold)
    assert load_errors(gold_path, write("pred.sql", predicted)) == [expected.format(gold=gold_path)]


def test_spider_predictions_in_json_are_refused(write):
    """A JSON predictions file with a Spider gold says which layout was taken."""
    gold = write("gold.sql", "SELECT 1\td\n")
    assert load_errors(gold, write("pred.json", '{"0": "SELECT 1"}')) == [
        "pred.json:1:1: the gold is in the Spider layout (SQL<TAB>db_id lines), so the predictions are one SQL "
        "query per line, not JSON (--layout names the layout)"
    ]


def test_spider_empty_inputs_are_refused(write):
    """A gold or predictions file with nothing but blank lines is refused."""
    assert load_errors(write("gold.sql", "\n \n"), write("pred.sql", "A\n")) == [
        "gold.sql: the gold has no queries (an empty input is refused)"
    ]
    assert load_errors(write("gold.sql", "SELECT 1\td\n"), write("pred.sql", "\n")) == [
        "pred.sql: the predictions have no queries (an empty input is refused)"
    ]


# ---------------------------------------------------------------- BIRD

BIRD_GOLD = [
    {
        "question_id": 10,
        "db_id": "school",
        "question": "How many?",
        "evidence": "",
        "SQL": "SELECT 1",
        "difficulty": "simple",
    },
    {"question_id": 11, "db_id": "school", "question": "Which?", "SQL": "SELECT 2", "difficulty": "challenging"},
    {"question_id": 12, "db_id": "other", "question": "Who?", "SQL": "SELECT 3"},
]


def test_bird_items_pair_by_position(write):
    """BIRD predictions are keyed by position: SQL before the separator, plain SQL without one,
    null no prediction; a db_id other than the gold's and a position beyond the gold warn."""
    gold = write("dev.json", json.dumps(BIRD_GOLD, indent=1))
    predicted = write(
        "predict_dev.json",
        json.dumps(
            {
                "1": "SELECT b\t----- bird -----\tschool",
                "0": "  SELECT a  ",
                "2": "SELECT c\t----- bird -----\tschool",
                "7": "SELECT z",
            },
            indent=1,
        ),
    )
    inputs = load_inputs(gold, predicted)
    assert inputs.layout == "bird"
    assert inputs.items == [
        SqlItem("0", "school", "SELECT 1", "SELECT a", question="How many?", difficulty="simple", source=gold, line=2),
        SqlItem(
            "1", "school", "SELECT 2", "SELECT b", question="Which?", difficulty="challenging", source=gold, line=10
        ),
        SqlItem("2", "other", "SELECT 3", "SELECT c", question="Who?", source=gold, line=17),
    ]
    assert [(warning.kind, warning.message) for warning in inputs.warnings] == [
        (
            "bird-db-id",
            "predict_dev.json:4: prediction 2 names the database 'school', but its gold question is on 'other' "
            "(the gold's database is used)",
        ),
        (
            "unknown-id",
            "predict_dev.json:5: a prediction for position 7, but the gold has 3 questions (positions 0 to 2)",
        ),
    ]


def test_bird_missing_predictions_are_counted(write):
    """Positions without a prediction (absent, or null) have none, and one warning counts them."""
    gold = write("dev.json", json.dumps(BIRD_GOLD))
    inputs = load_inputs(gold, write("predict_dev.json", '{"1": null, "2": "SELECT 3"}'))
    assert [item.predicted for item in inputs.items] == [None, None, "SELECT 3"]
    assert [str(warning) for warning in inputs.warnings] == [
        "2 items of 3 have no prediction in predict_dev.json (each is incorrect), e.g. '0'"
    ]


def test_bird_problems_are_located(write):
    """Invalid questions and predictions: every problem of both files, located."""
    gold = write(
        "dev.json",
        json.dumps([{"db_id": "school", "SQL": "SELECT 1", "source": "x"}, {"db_id": "a/b"}, 7], indent=1),
    )
    predicted = write("predict_dev.json", '{"0": 5,\n "first": "SELECT 1"}')
    assert load_errors(gold, predicted) == [
        "dev.json:7:2: SQL: missing; this field is required",
        "dev.json:8:3: db_id: not a database name: 'a/b'",
        "dev.json:10:2: a question is a mapping, not an integer",
        "predict_dev.json:1:2: 0: a prediction is SQL text or null, not an integer",
        'predict_dev.json:2:2: \'first\': a key is the position of a gold question, from 0 ("0", "1", ...)',
    ]


def test_bird_files_of_the_wrong_shape(write):
    """BIRD's gold is a list and its predictions an object; empty ones are refused."""
    gold = write("dev.json", json.dumps(BIRD_GOLD))
    assert load_errors(gold, write("p.json", "[]")) == [
        'p.json:1:1: BIRD\'s predictions are a JSON object {"0": "SQL\\t----- bird -----\\tdb_id", ...}, not a list'
    ]
    assert load_errors(gold, write("p.json", "{}")) == [
        "p.json:1:1: no predictions in this file (an empty input is refused)"
    ]
    assert load_errors(write("dev.json", "[]"), write("p.json", "{}"), layout="bird") == [
        "dev.json:1:1: the gold has no questions (an empty input is refused)"
    ]
    assert load_errors(write("dev.json", '{"SQL": 1}'), write("p.json", "{}"), layout="bird") == [
        "dev.json:1:1: BIRD's gold is a list of questions, not a mapping"
    ]


# ---------------------------------------------------------------- answerkey's corpus


def test_corpus_items_and_prediction_records(write):
    """A JSONL corpus with every field, predictions as records; ids pair them whatever their order."""
    corpus = write(
        "corpus.jsonl",
        json.dumps(
            {
                "id": "q1",
                "db_id": "shop",
                "sql": "SELECT name, price FROM item ORDER BY price",
                "question": "Items by price?",
                "difficulty": "easy",
                "tags": ["order"],
                "order_by": [2],
                "condition_cols": [0, 1],
                "ignore_order": True,
            }
        )
        + "\n"
        + json.dumps({"id": 2, "db_id": "shop", "sql": "SELECT 1"})
        + "\n",
    )
    predicted = write("predictions.jsonl", '{"id": 2, "sql": "SELECT 2"}\n{"id": "q1", "sql": null, "latency": 3}\n')
    inputs = load_inputs(corpus, predicted)
    assert inputs.layout == "answerkey"
    assert inputs.items == [
        SqlItem(
            "q1",
            "shop",
            "SELECT name, price FROM item ORDER BY price",
            None,
            question="Items by price?",
            difficulty="easy",
            tags=("order",),
            order_by=(2,),
            condition_cols=(0, 1),
            ignore_order=True,
            source=corpus,
            line=1,
        ),
        SqlItem("2", "shop", "SELECT 1", "SELECT 2", source=corpus, line=2),
    ]
    assert [str(warning) for warning in inputs.warnings] == [
        "1 item of 2 have no prediction in predictions.jsonl (each is incorrect), e.g. 'q1'"
    ]


def test_yaml_corpus_and_a_mapping_of_predictions(write):
    """A YAML corpus, and predictions as a YAML mapping id: SQL; unknown ids warn."""
    corpus = write("corpus.yaml", "- id: a\n  db_id: shop\n  sql: SELECT 1\n- id: b\n  db_id: shop\n  sql: SELECT 2\n")
    predicted = write("predictions.yaml", "a: SELECT 1\nb: SELECT 2\nc: SELECT 3\n")
    inputs = load_inputs(corpus, predicted)
    assert [(item.id, item.predicted, item.line) for item in inputs.items] == [
        ("a", "SELECT 1", 1),
        ("b", "SELECT 2", 4),
    ]
    assert [(warning.kind, str(warning)) for warning in inputs.warnings] == [
        ("unknown-id", "predictions.yaml:3: a prediction for id 'c', which is not in the corpus")
    ]


def test_predictions_for_another_corpus_are_flagged(write):
    """When no prediction id is in the corpus, a warning asks whether the files belong together."""
    corpus = write("corpus.jsonl", '{"id": "a", "db_id": "shop", "sql": "SELECT 1"}\n')
    inputs = load_inputs(corpus, write("predictions.jsonl", '{"id": "A", "sql": "SELECT 1"}\n'))
    assert [warning.kind for warning in inputs.warnings] == ["unknown-id", "unknown-id-all", "no-prediction"]
    assert str(inputs.warnings[1]) == (
        "no prediction in predictions.jsonl has an id of the corpus corpus.jsonl: are these the predictions for "
        "this corpus?"
    )


def test_corpus_and_predictions_problems_are_located(write):
    """Invalid items, a duplicate id, a bad line, bad predictions and a second prediction: all at once, located."""
    corpus = write(
        "corpus.jsonl",
        '{"id": "a", "db_id": "shop", "sql": "SELECT 1", "order_by": [0]}\n'
        '{"id": "b", "db_id": "shop", "sql": "", "condition_cols": [-1], "tag": ["x"]}\n'
        '{"id": "c", "db_id": "shop", "sql": "SELECT 1"}\n'
        '{"id": "c", "db_id": "shop", "sql": "SELECT 2"}\n'
        "[1]\n"
        "{bad\n",
    )
    predicted = write(
        "predictions.jsonl",
        '{"id": "a", "sql": "SELECT 1"}\n{"id": "a", "sql": "SELECT 2"}\n{"sql": "SELECT 3"}\n{"id": "c", "sql": 4}\n',
    )
    assert load_errors(corpus, predicted) == [
        "corpus.jsonl:1:49: order_by: column 0: columns are numbered from 1",
        "corpus.jsonl:2:30: sql: should not be empty",
        "corpus.jsonl:2:41: condition_cols: column -1: columns are numbered from 0",
        "corpus.jsonl:2:65: tag: unknown field (did you mean 'tags'?)",
        "corpus.jsonl:4:2: duplicate id 'c' (first on line 3)",
        "corpus.jsonl:5:1: a corpus item is a mapping, not a list",
        "corpus.jsonl:6:2: invalid JSON: Expecting property name enclosed in double quotes",
        "predictions.jsonl:2:2: a second prediction for id 'a' (first on line 1)",
        "predictions.jsonl:3:1: id: missing; this field is required",
        "predictions.jsonl:4:13: sql: should be a string, not an integer",
    ]


def test_corpus_empty_inputs_are_refused(write):
    """An empty corpus and an empty predictions file are refused, as every input."""
    assert load_errors(write("corpus.jsonl", ""), write("p.jsonl", "")) == [
        "corpus.jsonl: the corpus has no items (an empty input is refused)"
    ]
    corpus = write("corpus.jsonl", '{"id": "a", "db_id": "shop", "sql": "SELECT 1"}\n')
    assert load_errors(corpus, write("p.jsonl", "\n")) == [
        "p.jsonl: no predictions in this file (an empty input is refused)"
    ]
    assert load_errors(write("corpus.yaml", "id: a\n"), write("p.jsonl", "")) == [
        "corpus.yaml:1:1: a corpus is a list of items, not a mapping"
    ]
    assert load_errors(corpus, write("p.json", '"SELECT 1"')) == [
        "p.json:1:1: predictions are a list of {id, sql} records or a mapping id: SQL, not a string"
    ]


# ---------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("source", "text", "data", "layout"),
    [
        ("dev_gold.sql", "", None, "spider"),
        ("gold.txt", "", None, "spider"),
        ("gold.tsv", "", None, "spider"),
        ("-", "\n  SELECT 1\tdb\n", None, "spider"),
        ("gold", '{"id": 1}\t\n', {"id": 1}, "answerkey"),
        ("dev.json", "", [{"db_id": "x", "SQL": "SELECT 1"}], "bird"),
        ("dev.json", "", [{"db_id": "x", "SQL": "SELECT 1", "sql": "SELECT 1"}], "answerkey"),
        ("corpus.jsonl", "SELECT 1\tdb", [], "answerkey"),
        ("corpus.yaml", "- id: 1", [{"id": 1}], "answerkey"),
    ],
)
def test_layout_detection(source, text, data, layout):
    """Suffixes name Spider text and documents; a first line with a tab is Spider; BIRD by its SQL key."""
    assert detect_layout(source, text, data) == layout


def test_a_named_layout_wins_over_detection(write):
    """--layout spider reads a .json-named gold as Spider text; an unknown layout is refused."""
    gold = write("gold.json", "SELECT 1\tdb\n")
    assert load_inputs(gold, write("pred.sql", "SELECT 1\n"), layout="spider").layout == "spider"
    with pytest.raises(ValueError, match="unknown layout 'sparc'; known: spider, bird, answerkey"):
        load_inputs(gold, gold, layout="sparc")


def test_spider_items_know_their_session_and_turn(write):
    """Blank lines separate sessions: each item has its session and its turn in it, from 0
    (what the official turn and interaction accuracy count); equality ignores them."""
    gold = write("gold.sql", "SELECT 1\ta\nSELECT 2\ta\n\n\nSELECT 3\ta\n")
    predicted = write("pred.sql", "SELECT 1\nSELECT 2\n\nSELECT 3\n")
    items = load_inputs(gold, predicted).items
    assert [(item.session, item.turn) for item in items] == [(0, 0), (0, 1), (1, 0)]
    assert items[0] == SqlItem("0", "a", "SELECT 1", "SELECT 1", source=gold, line=1)
