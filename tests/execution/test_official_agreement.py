"""The test-suite and bird semantics of ``answerkey sql`` against the official scripts' rules,
recomputed here without answerkey's code: the queries of the Spider and BIRD examples run with
``sqlite3`` on their databases as test-suite-sql-eval and BIRD's evaluation run them, and decided
by the oracles of test_semantics.py (test-suite-sql-eval's ``result_eq``, BIRD's set equality).
The only piece of answerkey used for the official side is ``test_suite_sql`` (the queries
test-suite-sql-eval runs), pinned against that script in test_semantics.py."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import shutil
import sqlite3
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from answerkey.execution.load import load_inputs
from answerkey.execution.run import SqlOptions, run_sql
from answerkey.execution.semantics import (
    SEMANTICS,
    test_suite_sql as suite_sql,  # not collected as a test
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sql"


def load_module(name: str, path: Path) -> ModuleType:
    """The module of the Python file at ``path`` (not importable by name), loaded as ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


# suite_oracle (result_eq with its order rule) and bird_oracle (calculate_ex's set equality).
oracles = load_module("execution_official_oracles", Path(__file__).resolve().with_name("test_semantics.py"))
# The cases the examples were built from, with what each shows.
build = load_module("examples_sql_build", EXAMPLES / "build.py")

BIRD_SEPARATOR = "\t----- bird -----\t"

# What the issue lists as the cases where the official rules are wrong.
KINDS = ("duplicate rows", "extra columns", "reals", "NULLs", "ties under ORDER BY")
# build.py describes each Spider case; the description of a case of a kind begins with it.
SPIDER_KINDS = {
    "duplicate rows": "duplicate rows",
    "an extra column": "extra columns",
    "reals": "reals",
    "NULLs": "NULLs",
    "ties under ORDER BY": "ties under ORDER BY",
}
# build.py's BIRD cases have no description: the kind of each question, by its text.
BIRD_KINDS = {
    "Which counties have schools with more than 500 students?": "duplicate rows",
    "Name the charter schools.": "extra columns",
    "What is the average free meal percentage of Fresno's schools?": "reals",
    "Which schools do not say whether they are charter schools?": "NULLs",
    "List Fresno's schools and their enrollment, largest first.": "ties under ORDER BY",
}

# Items where the bird semantics does not give the verdict of BIRD's script, which reads one
# database per db_id: answerkey applies test-suite accuracy (correct only if correct on every
# database of the db_id's directory) under every semantics, and the Spider example's item 6 is
# right by chance on the first database of the concert_singer suite only. The BIRD layout has
# one database per db_id, where the two agree.
BIRD_ON_A_TEST_SUITE = {"spider": {6}, "bird": set()}


@dataclass(frozen=True)
class Case:
    """One item of an example as the official script reads it."""

    position: int
    db_id: str
    gold: str
    predicted: str


def spider_cases(root: Path) -> list[Case]:
    """gold.sql and pred.sql as test-suite-sql-eval's evaluation.py reads them: the lines that
    are not blank, stripped and split at tabs (gold: SQL and db_id; prediction: its first field)."""

    def lines(name: str) -> list[list[str]]:
        text = (root / name).read_text(encoding="utf-8")
        return [line.strip().split("\t") for line in text.splitlines() if line.strip()]

    gold, predicted = lines("gold.sql"), lines("pred.sql")
    assert len(gold) == len(predicted)
    return [
        Case(position, db_id, sql, fields[0])
        for position, ((sql, db_id), fields) in enumerate(zip(gold, predicted, strict=True))
    ]


def bird_cases(root: Path) -> list[Case]:
    """dev.json and predict_dev.json as BIRD's evaluation reads them: the prediction of question
    N is the text before the separator. (BIRD's script unpacks the split into SQL and db_id, so
    it stops at item 6, which has no separator; answerkey reads that text as all SQL, and so
    does this.)"""
    questions = json.loads((root / "dev.json").read_text(encoding="utf-8"))
    predictions = json.loads((root / "predict_dev.json").read_text(encoding="utf-8"))
    return [
        Case(position, question["db_id"], question["SQL"], predictions[str(position)].split(BIRD_SEPARATOR)[0])
        for position, question in enumerate(questions)
    ]


@dataclass(frozen=True)
class Example:
    """One example copied to a temporary directory: its cases, its directory of databases, and
    the items of answerkey's JSON report of it."""

    cases: list[Case]
    databases: Path
    items: list[dict[str, Any]]

    def first_database(self, case: Case) -> Path:
        """``DIR/<db_id>/<db_id>.sqlite``: the one database a Spider or BIRD script opens."""
        return self.databases / case.db_id / f"{case.db_id}.sqlite"

    def suite(self, case: Case) -> list[Path]:
        """The databases test-suite-sql-eval compares on: every file of the db_id's directory
        with '.sqlite' in its name."""
        return sorted(path for path in (self.databases / case.db_id).iterdir() if ".sqlite" in path.name)

    def answered(self, semantics: str) -> dict[int, str]:
        """answerkey's verdict of each item under ``semantics``, by position."""
        return {position: item["verdicts"][semantics] for position, item in enumerate(self.items)}


# example -> (gold, predictions, directory of databases, reader of the cases)
LAYOUTS: dict[str, tuple[str, str, str, Callable[[Path], list[Case]]]] = {
    "spider": ("gold.sql", "pred.sql", "database", spider_cases),
    "bird": ("dev.json", "predict_dev.json", "dev_databases", bird_cases),
}


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> dict[str, Example]:
    """Both examples, copied (the tests never touch the originals), with answerkey's report of each."""
    root = tmp_path_factory.mktemp("official") / "sql"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("build.py"))
    examples = {}
    for name, (gold, predictions, databases, read) in LAYOUTS.items():
        base = root / name
        run = run_sql(load_inputs(base / gold, base / predictions), SqlOptions(str(base / databases)))
        examples[name] = Example(read(base), base / databases, run.document()["items"])
    return examples


def fetch(path: Path, sql: str) -> list[tuple[Any, ...]] | None:
    """The rows of ``sql`` on the SQLite file ``path`` as both scripts fetch them (``execute``,
    ``fetchall``), but read-only; None when the query fails (both scripts count it wrong). Both
    open the file for writing: the example's DROP TABLE would succeed there, give no rows and be
    wrong as well (and drop the table)."""
    connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    # test-suite-sql-eval's reading of text (BIRD's keeps sqlite3's; the examples' text is ASCII).
    connection.text_factory = lambda data: data.decode(errors="ignore")
    try:
        return connection.execute(sql).fetchall()
    except sqlite3.Error:
        return None
    finally:
        connection.close()


def gold_rows(path: Path, case: Case, sql: str) -> list[tuple[Any, ...]]:
    """The gold's rows (both scripts expect the gold to run)."""
    rows = fetch(path, sql)
    assert rows is not None, f"the gold query of item {case.position} fails on {path.name}"
    return rows


def suite_rule(example: Example, case: Case) -> bool:
    """test-suite-sql-eval's verdict: both queries rewritten as its script runs them, the order
    compared when the rewritten gold has 'order by', correct only if ``result_eq`` holds on
    every database of the suite (a failing prediction is wrong)."""
    gold = suite_sql(case.gold)
    predicted = suite_sql(case.predicted, predicted=True)
    for path in example.suite(case):
        expected, rows = gold_rows(path, case, gold), fetch(path, predicted)
        if rows is None or not oracles.suite_oracle(expected, rows, gold):
            return False
    return True


def bird_rule(path: Path, case: Case) -> bool:
    """BIRD's verdict on one database: the sets of the rows of both queries, as run, are equal."""
    expected, rows = gold_rows(path, case, case.gold), fetch(path, case.predicted)
    return rows is not None and oracles.bird_oracle(expected, rows)


def verdict(correct: bool) -> str:
    """A verdict as the report writes it."""
    return "correct" if correct else "incorrect"


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_test_suite_semantics_gives_test_suite_sql_eval_s_verdict(examples, name):
    """Under test-suite, every item of the example has the verdict test-suite-sql-eval's rules give it."""
    example = examples[name]
    assert [item["db_id"] for item in example.items] == [case.db_id for case in example.cases]
    official = {case.position: verdict(suite_rule(example, case)) for case in example.cases}
    assert example.answered("test-suite") == official
    assert "correct" in official.values() and "incorrect" in official.values()


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_bird_semantics_gives_bird_s_verdict(examples, name):
    """Under bird, every item has the verdict of BIRD's rule on the db_id's first database, but
    the listed items of a test suite, which have that rule's verdict on every database of it."""
    example = examples[name]
    official = {case.position: verdict(bird_rule(example.first_database(case), case)) for case in example.cases}
    answered = example.answered("bird")
    assert {position for position in official if answered[position] != official[position]} == BIRD_ON_A_TEST_SUITE[name]
    for position in BIRD_ON_A_TEST_SUITE[name]:
        case = example.cases[position]
        assert len(example.suite(case)) > 1
        assert answered[position] == verdict(all(bird_rule(path, case) for path in example.suite(case)))
    assert "correct" in official.values() and "incorrect" in official.values()


def named(text: str) -> list[str]:
    """``a, b and c`` -> ``[a, b, c]``."""
    head, _, last = text.rpartition(" and ")
    return [*head.split(", "), last] if head else [last]


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_each_disagreement_is_explained(examples, name):
    """Each item on which the four semantics disagree has a disagreement text naming the
    semantics under each verdict, a line per semantics with its verdict, and answerkey's
    explanation; the items on which they agree have none."""
    disagreeing = []
    for item in examples[name].items:
        verdicts = item["verdicts"]
        assert list(verdicts) == list(SEMANTICS)
        text = item["disagreement"]
        if len(set(verdicts.values())) == 1:
            assert text is None, item["id"]
            continue
        disagreeing.append(item["id"])
        assert text, item["id"]
        lines = text.splitlines()
        heading = re.fullmatch(r"(?:on .+?: )?correct under (.+); incorrect under (.+)", lines[0])
        assert heading is not None, lines[0]
        assert named(heading[1]) == [semantics for semantics in SEMANTICS if verdicts[semantics] == "correct"]
        assert named(heading[2]) == [semantics for semantics in SEMANTICS if verdicts[semantics] == "incorrect"]
        for number, semantics in enumerate(SEMANTICS, start=1):
            assert lines[number].startswith(f"  {semantics}: {verdicts[semantics]}: "), lines[number]
        assert lines[len(SEMANTICS) + 1] == "answerkey's explanation:"
        assert lines[len(SEMANTICS) + 2].startswith(f"  {verdicts['answerkey']}: ")
    assert disagreeing


def kinds_of(name: str) -> dict[int, str]:
    """The position of each case of the example that is of one of ``KINDS``, with its kind."""
    if name == "spider":
        described = {position: case[3].split(":")[0] for position, case in enumerate(build.SPIDER_CASES)}
        return {position: SPIDER_KINDS[head] for position, head in described.items() if head in SPIDER_KINDS}
    return {position: BIRD_KINDS[case[0]] for position, case in enumerate(build.BIRD_CASES) if case[0] in BIRD_KINDS}


def shows(kind: str, case: Case, gold: list[tuple[Any, ...]], predicted: list[tuple[Any, ...]]) -> bool:
    """Whether the results of ``case`` on its first database are of ``kind``."""
    if kind == "duplicate rows":
        # The gold repeats rows the prediction gives once: a bag and a set of rows differ.
        return len(set(gold)) < len(gold) and set(predicted) == set(gold) and len(predicted) < len(gold)
    if kind == "extra columns":
        return bool(gold and predicted) and len(predicted[0]) > len(gold[0])
    if kind == "reals":
        # The results differ only in reals, and those by less than 0.1%.
        if len(gold) != len(predicted) or any(len(g) != len(p) for g, p in zip(gold, predicted)):
            return False
        unequal = [(a, b) for g, p in zip(gold, predicted) for a, b in zip(g, p) if a != b]
        return bool(unequal) and all(
            isinstance(a, float) and isinstance(b, float) and math.isclose(a, b, rel_tol=1e-3) for a, b in unequal
        )
    if kind == "NULLs":
        return (
            any(value is None for row in gold + predicted for value in row)
            or "null" in (case.gold + " " + case.predicted).lower()
        )
    # Ties: the same rows in another order, with a column (the sort key) in the same order.
    columns = range(len(gold[0])) if gold else range(0)
    return (
        "order by" in case.gold.lower()
        and Counter(gold) == Counter(predicted)
        and gold != predicted
        and any([row[column] for row in gold] == [row[column] for row in predicted] for column in columns)
    )


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_each_example_has_each_kind_of_case_the_official_rules_get_wrong(examples, name):
    """The example holds items of each kind the issue lists (by build.py's cases, which made its
    files), and each such item's results, run here, are of its kind."""
    example = examples[name]
    if name == "spider":
        built = [(gold, db_id, predicted) for gold, db_id, predicted, _ in build.SPIDER_CASES]
    else:
        built = [(gold, "school_finance", predicted) for _, _, gold, _, predicted, _ in build.BIRD_CASES]
    assert [(case.gold, case.db_id, case.predicted) for case in example.cases] == built
    kinds = kinds_of(name)
    assert sorted(set(kinds.values())) == sorted(KINDS)
    for position, kind in kinds.items():
        case = example.cases[position]
        path = example.first_database(case)
        predicted = fetch(path, case.predicted)
        assert predicted is not None
        assert shows(kind, case, gold_rows(path, case, case.gold), predicted), (position, kind)
