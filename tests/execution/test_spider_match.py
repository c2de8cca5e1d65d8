"""Spider's exact-set-match, hardness and official table, against test-suite-sql-eval's own output.

The fixture folder tests/fixtures/spider_match holds two databases, their tables.json, 54
gold/prediction pairs in two sessions, and official_match.json: what evaluation.py --etype
match (test-suite-sql-eval e97acc54) printed for them (see its "_note").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from answerkey.errors import InputError
from answerkey.execution.spider_match import (
    COMPONENTS,
    LEVELS,
    TURNS,
    SpiderSchema,
    SpiderTable,
    TableRow,
    hardness,
    match_item,
    parse_query,
    read_foreign_keys,
    schema_of_sqlite,
    tokenize,
)
from answerkey.execution.spider_match._parse import MAX_DEPTH, MAX_TOKENS
from answerkey.execution.spider_match._tokens import MAX_QUERY_CHARS

FIXTURES = Path(__file__).parent.parent / "fixtures" / "spider_match"
OFFICIAL = json.loads((FIXTURES / "official_match.json").read_text(encoding="utf-8"))
SCHOOL = SpiderSchema({"student": ["stuid", "name", "age", "major"], "enrolled": ["stuid", "cid", "grade"]})


def _fixture_rows() -> tuple[list[tuple[Any, ...]], int]:
    """(gold, prediction, db_id, turn, session) of each pair, and the number of sessions."""
    golds = (FIXTURES / "gold.sql").read_text(encoding="utf-8").splitlines()
    predictions = (FIXTURES / "pred.sql").read_text(encoding="utf-8").splitlines()
    rows, session, turn = [], 0, 0
    for gold, prediction in zip(golds, predictions, strict=True):
        if not gold.strip():
            session, turn = session + 1, 0
            continue
        query, db_id = gold.split("\t")
        rows.append((query, prediction, db_id, turn, session))
        turn += 1
    return rows, session + 1


def _fixture_matches() -> list[Any]:
    keys = read_foreign_keys(FIXTURES / "tables.json")
    rows, _ = _fixture_rows()
    schemas = {db: schema_of_sqlite(FIXTURES / "database" / db / f"{db}.sqlite") for db in keys}
    return [match_item(gold, prediction, schemas[db], keys[db]) for gold, prediction, db, _, _ in rows]


def test_every_item_has_the_official_hardness_verdict_and_components() -> None:
    """Per item: hardness, exact verdict and the ten component scores equal evaluation.py's."""
    matches = _fixture_matches()
    assert len(matches) == len(OFFICIAL["items"]) == 54
    for position, (ours, official) in enumerate(zip(matches, OFFICIAL["items"], strict=True)):
        components = {
            name: [score.acc, score.rec, score.f1, score.label_total, score.pred_total]
            for name, score in ours.components.items()
        }
        assert (ours.hardness, int(ours.exact), components) == (
            official["hardness"],
            official["exact"],
            official["partial"],
        ), f"item {position + 1}"


def test_the_table_equals_the_official_table() -> None:
    """Counts, exact match and partial accuracy/recall/F1 per level and per turn equal evaluation.py's."""
    rows, sessions = _fixture_rows()
    table = SpiderTable.of(
        [
            TableRow(item.hardness, exact=item.exact, components=item.components, turn=turn, session=session)
            for item, (_, _, _, turn, session) in zip(_fixture_matches(), rows, strict=True)
        ],
        sessions=sessions,
    )
    official = OFFICIAL["scores"]
    for level in LEVELS:
        assert table.levels[level].count == official[level]["count"]
        assert table.levels[level].exact == pytest.approx(official[level]["exact"], abs=1e-12)
        for name in COMPONENTS:
            figures = table.levels[level].components[name]
            assert (figures.acc, figures.rec, figures.f1) == pytest.approx(
                tuple(official[level]["partial"][name][key] for key in ("acc", "rec", "f1")), abs=1e-12
            ), (level, name)
    assert table.turns is not None and table.interactions is not None
    for turn in TURNS:
        assert (table.turns[turn].count, table.turns[turn].exact) == pytest.approx(
            (official[turn]["count"], official[turn]["exact"]), abs=1e-12
        )
    assert (table.interactions.count, table.interactions.exact) == (2, 0.0)
    assert official["joint_all"]["count"] == 2 and official["joint_all"]["exact"] == 0.0


def test_the_table_prints_in_twenty_character_columns() -> None:
    """The text table has the official columns and three decimals."""
    rows, _ = _fixture_rows()
    table = SpiderTable.of(
        TableRow(item.hardness, exact=item.exact, components=item.components) for item in _fixture_matches()
    )
    lines = table.lines()
    assert lines[0].split() == ["easy", "medium", "hard", "extra", "all"]
    assert lines[1].split() == ["count", "23", "17", "11", "3", "54"]
    assert lines[2].split() == ["exact", "match", "0.565", "0.529", "0.545", "1.000", "0.574"]
    assert table.turns is None
    assert len(rows) == 54


@pytest.mark.parametrize(
    ("query", "tokens"),
    [
        # process_sql.py lines 118-136: quotes become one token, the rest lower-cased
        ("SELECT a FROM t WHERE b = 'It'", ["select", "a", "from", "t", "where", "b", "=", '"It"']),
        # ... and two quoted values side by side become one unknown word
        ("b = 'It''s'", ["b", "=", "__val_4_7____val_8_10__"]),
        # line 141-145: a spaced "! =" or "> =" is glued; "=1" after ">" stays a token
        ("a ! = 1 AND b > = 2", ["a", "!=", "1", "and", "b", ">=", "2"]),
        ("a>=1", ["a", ">", "=1"]),
        # NLTK: commas before digits stay inside the word, "cannot" is two words
        ("IN (1,2) , cannot", ["in", "(", "1,2", ")", ",", "can", "not"]),
        # NLTK: the final period is split off, an inner one is not
        ("T1.name.", ["t1.name", "."]),
        # an "=" first is glued to a "!" last (Python's index -1, as officially)
        ("= a !", ["=", "a", "!=", "a", "!"]),
        ("= a ! = b > = <", ["=", "a", "!=", "b", ">=", "<=", "a", "!=", "b", ">=", "<"]),
        ("! = ! = > < =", ["!=", "!=", ">", "<="]),
        ("''''''", ["__val_0_1____val_2_3____val_4_5__"]),
        ("'a' 'b'", ['"a"', '"b"']),
    ],
)
def test_tokens_follow_the_official_tokenizer(query: str, tokens: list[str]) -> None:
    """Tokens as process_sql.py's tokenize gives them (each expected list is its output, NLTK 3.10)."""
    assert tokenize(query) == tokens


@pytest.mark.parametrize(
    ("gold", "reason"),
    [
        ("SELECT count(*) AS n FROM student", "no column as in the tables of the query"),
        ("SELECT name FROM student WHERE name = 'x", "an odd number of quotes"),
        ("SELECT name FROM student AS student", "the alias student is also a table's name"),
        (
            "SELECT name FROM student WHERE age > 1 major = 'x' AND age < 3",
            "two conditions without AND or OR between them",
        ),
        ("SELECT name FROM student LIMIT", "the query ends too early"),
        ("", "an empty query"),
    ],
)
def test_a_gold_the_official_parser_cannot_read_is_listed_with_the_reason(gold: str, reason: str) -> None:
    """The official script stops on such a gold; we name the reason and score nothing."""
    item = match_item(gold, "SELECT name FROM student", SCHOOL, {})
    assert (item.hardness, item.exact, item.components, item.gold_error) == (None, None, None, reason)


def test_an_unparseable_prediction_is_wrong_as_an_empty_query() -> None:
    """evaluation.py lines 585-606: an unreadable prediction is scored as an empty query."""
    item = match_item("SELECT name FROM student", "SELECT nme FROM student", SCHOOL, {})
    assert (item.hardness, item.exact, item.prediction_error) == (
        "easy",
        False,
        "no column nme in the tables of the query",
    )
    assert item.components is not None and item.components["select"].pred_total == 0


def test_a_prediction_the_official_script_stops_on_is_wrong_with_the_reason() -> None:
    """Two conditions without AND/OR parse, then stop the official script; we score the item wrong."""
    gold = "SELECT name FROM student WHERE age > 3"
    item = match_item(gold, "SELECT name FROM student WHERE age > 3 age < 9 AND major = 'x'", SCHOOL, {})
    assert (item.exact, item.components) == (False, None)
    assert item.prediction_error == "the official script stops on it: two conditions without AND or OR between them"


def test_every_value_substring_of_a_prediction_becomes_one() -> None:
    """evaluation.py line 569: "value" is replaced everywhere, even inside a column name (D1)."""
    schema = SpiderSchema({"orders": ["total_value", "id"]})
    item = match_item("SELECT total_value FROM orders", "SELECT total_value FROM orders", schema, {})
    assert (item.exact, item.prediction_error) == (False, "no column total_1 in the tables of the query")
    assert match_item("SELECT id FROM orders WHERE id = 3", "SELECT id FROM orders WHERE id = value", schema, {}).exact


def test_foreign_keys_map_a_joined_column_to_its_key() -> None:
    """A column joined by a foreign key matches its key (evaluation.py lines 763-772)."""
    keys = {"__enrolled.stuid__": "__student.stuid__", "__student.stuid__": "__student.stuid__"}
    gold = "SELECT T2.stuid FROM student AS T1 JOIN enrolled AS T2 ON T1.stuid = T2.stuid"
    prediction = "SELECT T1.stuid FROM student AS T1 JOIN enrolled AS T2 ON T1.stuid = T2.stuid"
    assert match_item(gold, prediction, SCHOOL, keys).exact is True
    assert match_item(gold, prediction, SCHOOL, {}).exact is False


@pytest.mark.parametrize(
    ("query", "level"),
    [
        ("SELECT name FROM student", "easy"),
        ("SELECT name, age FROM student", "medium"),
        ("SELECT name FROM student WHERE age > 1 AND major = 'x'", "medium"),
        ("SELECT name FROM student WHERE age > 1 ORDER BY age LIMIT 1", "hard"),
        ("SELECT name, age FROM student WHERE age > 1 OR major = 'x' ORDER BY age LIMIT 3", "extra"),
        ("SELECT name FROM student WHERE age > 1 OR major = 'x' ORDER BY age", "hard"),
        ("SELECT name FROM student WHERE stuid IN (SELECT stuid FROM enrolled)", "hard"),
        ("SELECT name FROM student EXCEPT SELECT name FROM student WHERE age > 1", "hard"),
        # a NOT counts as an aggregate (line 332): two of them make "others" 1 more
        ("SELECT count(*) FROM student WHERE age NOT IN (SELECT age FROM student)", "extra"),
        # in HAVING the AND counts as an aggregate, count(*) and max(age) do not (line 337)
        ("SELECT major FROM student GROUP BY major HAVING count(*) > 1 AND max(age) > 2", "easy"),
        ("SELECT max(age), min(age), name FROM student WHERE age > 1 AND major = 'x' GROUP BY name, major", "hard"),
    ],
)
def test_hardness_follows_the_official_rules(query: str, level: str) -> None:
    """evaluation.py lines 302-376, quirks included (each expected level is the official script's)."""
    assert hardness(parse_query(SCHOOL, query)) == level


def test_untrusted_predictions_are_bounded() -> None:
    """Length, token count and nesting depth of a prediction are bounded: it is wrong, with the reason."""
    long = "SELECT name FROM student WHERE " + "a" * MAX_QUERY_CHARS
    assert match_item("SELECT name FROM student", long, SCHOOL, {}).prediction_error == (
        f"the query is longer than {MAX_QUERY_CHARS} characters"
    )
    many = "SELECT name FROM student WHERE " + " AND ".join(["age > 1"] * (MAX_TOKENS // 4 + 1))
    assert match_item("SELECT name FROM student", many, SCHOOL, {}).prediction_error == f"more than {MAX_TOKENS} tokens"
    deep = "SELECT name FROM student WHERE age IN " * (MAX_DEPTH + 2) + "(SELECT age FROM student)"
    assert match_item("SELECT name FROM student", deep, SCHOOL, {}).prediction_error == (
        f"more than {MAX_DEPTH} nested queries"
    )


def test_tables_json_problems_name_the_file_and_entry(tmp_path: Path) -> None:
    """A tables.json that cannot be read is an InputError naming the file and the entry."""
    path = tmp_path / "tables.json"
    path.write_text('[{"db_id": "x", "column_names_original": [[-1, "*"]], "table_names_original": []}]')
    with pytest.raises(InputError, match=r"tables.json:.*entry 1: missing 'foreign_keys'"):
        read_foreign_keys(path)
    path.write_text(
        '[{"db_id": "x", "column_names_original": [[-1, "*"]], "table_names_original": [], "foreign_keys": [[0, 5]]}]'
    )
    with pytest.raises(InputError, match="entry 1: a foreign key names column 5, of 1"):
        read_foreign_keys(path)


def test_the_schema_is_read_from_the_database_lower_cased() -> None:
    """process_sql.py lines 79-100: tables in sqlite_master order, columns lower-cased."""
    schema = schema_of_sqlite(FIXTURES / "database" / "shop" / "shop.sqlite")
    assert dict(schema.tables) == {
        "category": ["id", "name"],
        "product": ["id", "name", "price", "category_id"],
        "orders": ["order_id", "product_id", "quantity", "total_value_purchased"],
    }
