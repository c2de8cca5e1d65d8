"""A query's outer ORDER BY read by the SQLite helper that runs it (``run_file_each``'s
``read_orders``, ``QueryResult.outer_order``): the reading this process would make
(``outer_order``), for every kind of ORDER BY, bounded on pathological text, and never in
the query's time limit or its seconds."""

from __future__ import annotations

import os
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from answerkey.adapters._sqlite_read import read_order
from answerkey.adapters.sql import QueryResult, run_file_each
from answerkey.adapters.sqltext import MAX_PARSED_CHARS, MAX_PARSED_DEPTH, OuterOrder, outer_order
from answerkey.execution.semantics._base import Item


@pytest.fixture(scope="module")
def emp(tmp_path_factory):
    """``emp.sqlite``, tables ``emp`` and ``dept`` of a few rows: its real path."""
    path = tmp_path_factory.mktemp("orders") / "emp.sqlite"
    with sqlite3.connect(path) as connection:
        connection.executescript(
            "CREATE TABLE emp (name TEXT, salary INTEGER, dept INTEGER);"
            "INSERT INTO emp VALUES ('ann', 300, 1), ('bob', 200, 2), ('cyd', 300, 2), ('dan', 100, 1);"
            "CREATE TABLE dept (id INTEGER, title TEXT); INSERT INTO dept VALUES (1, 'sales'), (2, 'ops');"
        )
    connection.close()
    return os.path.realpath(path)


# Golds of every kind the reading tells apart; each runs on ``emp``.
GOLDS = [
    "SELECT name, salary FROM emp ORDER BY salary DESC",  # by name
    "SELECT name AS who, salary FROM emp ORDER BY who",  # by alias
    "SELECT name, salary FROM emp ORDER BY 2, 1",  # by position
    "SELECT dept, count(*) FROM emp GROUP BY dept ORDER BY COUNT( * ) DESC",  # by expression
    "SELECT e.name, e.salary FROM emp AS e ORDER BY e.salary",  # a qualified column
    "SELECT name FROM emp ORDER BY salary",  # a column not selected: a strict sequence
    "SELECT name FROM emp ORDER BY random()",  # no result column: a strict sequence
    "SELECT name FROM (SELECT name FROM emp ORDER BY salary) AS s",  # nested: not outer
    "SELECT name FROM emp WHERE dept IN (SELECT id FROM dept ORDER BY id LIMIT 1)",
    "SELECT name FROM emp UNION SELECT title FROM dept ORDER BY 1",  # a compound SELECT
    "SELECT name, salary FROM emp UNION ALL SELECT title, id FROM dept ORDER BY salary DESC, name",
    "SELECT name FROM emp -- ORDER BY salary\n",  # in a comment
    "SELECT 'order by salary' AS words FROM emp",  # in a string
    "SELECT name /* ORDER BY */ FROM emp ORDER /* here */ BY name",
    "WITH top AS (SELECT name, salary FROM emp ORDER BY salary DESC LIMIT 2) SELECT salary, name FROM top ORDER BY name",
    "SELECT name, row_number() OVER (ORDER BY salary) AS rn FROM emp ORDER BY rn",
    "SELECT name, row_number() OVER (ORDER BY salary) AS rn FROM emp",  # a window's: not outer
    "SELECT group_concat(name) FROM (SELECT name FROM emp ORDER BY name)",
    "SELECT * FROM emp ORDER BY salary",  # a star: resolved by the result's names
    'select NAME, Salary from EMP order by SALARY desc, "name"',  # case and quoting
    "SELECT name, salary FROM emp ORDER BY salary LIMIT 2 OFFSET 1",
    "SELECT name FROM emp ORDER BY name COLLATE NOCASE",
    "SELECT CASE WHEN salary > 150 THEN 'high' ELSE 'low' END AS band, name FROM emp ORDER BY band, 2",
    "SELECT name, salary FROM emp ORDER BY salary;  ",  # a statement ended
    "SELECT [name], `salary` FROM emp ORDER BY [salary]",  # SQLite's quoting
    "SELECT name FROM emp WHERE name > 'a' AND salary < 1000 ORDER BY salary * -1 + 0",
]


def _read_in_helper(path: str, queries: list[str]) -> list[object]:
    """The outer order the helper read for each query (its result's ``outer_order``)."""
    results = list(run_file_each(path, "'emp'", queries, read_orders=set(queries)))
    assert [result.error for result in results] == [None] * len(queries)
    for query, result in zip(queries, results):
        assert result.outer_order is not None and result.outer_order.of(query, "sqlite")
    return [result.outer_order.keys for result in results]


def _read_here(path: str, queries: list[str]) -> list[object]:
    """The outer order this process reads for each query's result (as ``Item.gold_order``)."""
    results = list(run_file_each(path, "'emp'", queries))
    assert all(result.outer_order is None for result in results)  # not asked: not read
    return [outer_order(query, result.columns, len(result.columns)) for query, result in zip(queries, results)]


def test_the_helper_reads_each_gold_as_this_process_does(emp):
    """For every kind of ORDER BY (name, alias, position, expression, nested, compound,
    comments, strings, an ended statement), the helper's reading is this process's."""
    read = _read_in_helper(emp, GOLDS)
    assert read == _read_here(emp, GOLDS)
    assert read[:8] == [(1,), (0,), (1, 0), (1,), (1,), (), (), None]


_COLUMNS = ["name", "salary", "dept"]
_TERMS = st.sampled_from(
    ["name", "salary", "dept", "1", "2", "3", "4", "x0", "x1", "e.salary", "salary * 2", "length(name)", "random()"]
)


@st.composite
def _golds(draw):
    """A gold on ``emp``: some columns, aliased or computed, an outer ORDER BY or none, maybe
    inside a subquery, a compound SELECT, a comment."""
    picked = draw(st.lists(st.sampled_from(_COLUMNS + ["salary * 2", "length(name)"]), min_size=1, max_size=3))
    items = [f"{column} AS x{number}" if draw(st.booleans()) else column for number, column in enumerate(picked)]
    select = f"SELECT {', '.join(items)} FROM emp AS e"
    terms = draw(st.lists(_TERMS, max_size=3))
    order = f" ORDER BY {', '.join(term + draw(st.sampled_from(['', ' DESC', ' ASC'])) for term in terms)}"
    shape = draw(st.sampled_from(["plain", "nested", "compound", "comment"]))
    if not terms:
        return select
    if shape == "nested":
        return f"SELECT * FROM ({select}{order}) AS s"
    if shape == "compound":
        return f"{select} UNION ALL SELECT {', '.join(['dept'] * len(items))} FROM emp{order}"
    if shape == "comment":
        return f"{select} /* {order} */ -- {order}\n{order}"
    return select + order


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_golds(), min_size=1, max_size=6))
def test_the_helpers_reading_is_this_processs_on_generated_golds(emp, golds):
    """Generated golds that run (a term naming nothing fails in SQLite: left out): the
    helper's reading of each is this process's."""
    with sqlite3.connect(f"file:{emp}?mode=ro", uri=True) as connection:
        runnable = []
        for gold in golds:
            try:
                connection.execute(gold).fetchall()
            except sqlite3.Error:
                continue
            runnable.append(gold)
    connection.close()
    if runnable:
        assert _read_in_helper(emp, runnable) == _read_here(emp, runnable)


def test_a_failed_query_comes_without_a_reading(emp):
    """A query that fails is not read (this process reads it if it ever must)."""
    results = list(run_file_each(emp, "'emp'", ["SELECT nope FROM emp ORDER BY 1"], read_orders={"x"}))
    assert (results[0].error, results[0].outer_order) == ("no such column: nope", None)
    failed = list(
        run_file_each(
            emp, "'emp'", ["SELECT nope FROM emp ORDER BY 1"], read_orders={"SELECT nope FROM emp ORDER BY 1"}
        )
    )
    assert (failed[0].error, failed[0].outer_order) == ("no such column: nope", None)


def test_text_sqlglot_cannot_read_gets_the_conservative_answer():
    """Text sqlglot cannot tokenize or parse, in the helper's reading as here: ordered (a
    strict sequence) when the words ORDER BY are at its outer level, else unordered."""
    assert read_order("SELECT a FROM t ORDER BY 'unclosed", ("a",), "sqlite") == ((),)
    assert read_order("SELECT a FROM t ORDER BY a +", ("a",), "sqlite") == ((),)
    assert read_order("SELECT a FROM t WHERE a = 'order by'", ("a",), "sqlite") == (None,)


def _pathological() -> list[str]:
    """Golds that run on ``emp`` and that sqlglot reads slowly or not at all."""
    long_list = ", ".join(str(number) for number in range(3_500))
    cases = " ".join(f"WHEN salary = {number} THEN {number}" for number in range(700))
    deep = "(" * (MAX_PARSED_DEPTH + 8) + "salary > 0" + ")" * (MAX_PARSED_DEPTH + 8)
    golds = [
        f"SELECT name, salary FROM emp WHERE salary NOT IN ({long_list}) ORDER BY salary",
        f"SELECT name, CASE {cases} ELSE 0 END AS band FROM emp ORDER BY band",
        f"SELECT name FROM emp WHERE {deep} ORDER BY name",
        f"SELECT name FROM emp WHERE name <> '{'x' * MAX_PARSED_CHARS}' ORDER BY name",
    ]
    assert max(map(len, golds)) > MAX_PARSED_CHARS and len(golds[0]) > 15_000
    return golds


def test_pathological_golds_leave_the_helper_whole(emp):
    """Long (past MAX_PARSED_CHARS) or deeply nested golds: the helper reads each as this
    process does (bounded, conservatively), within a small time limit that the reading is
    not part of, and goes on answering the queries after them."""
    golds = _pathological()
    queries = [*golds, "SELECT count(*) FROM emp"]
    results = list(run_file_each(emp, "'emp'", queries, timeout=1.0, read_orders=set(golds)))
    assert [result.error for result in results] == [None] * len(queries)
    assert all(result.seconds is not None and result.seconds < 1.0 for result in results)
    assert [result.outer_order.keys for result in results[:4]] == [(1,), (1,), (), ()]
    assert results[4].outer_order is None and results[4].row_count == 1
    assert [result.outer_order.keys for result in results[:4]] == _read_here(emp, golds)


def test_the_reading_is_not_in_the_querys_time_limit_or_seconds(emp):
    """A gold whose reading takes sqlglot far longer than the query's time limit (a few
    tenths of a second: 1,600 function calls in its select list) keeps its result and its own
    seconds: the helper reads it once the query's clock has stopped."""
    terms = "+".join(["abs(salary)"] * 800)  # SQLite's expressions are at most 1,000 deep
    slow_gold = f"SELECT name, {terms} AS c, {terms} AS d FROM emp ORDER BY c"
    assert len(slow_gold) < MAX_PARSED_CHARS
    results = list(run_file_each(emp, "'emp'", [slow_gold, "SELECT 1"], timeout=0.05, read_orders={slow_gold}))
    assert [result.error for result in results] == [None, None]
    assert results[0].seconds is not None and results[0].seconds < 0.05
    assert results[0].outer_order == OuterOrder(slow_gold, "sqlite", (1,))


def test_an_item_uses_the_reading_of_its_own_gold_text_and_dialect_only():
    """``Item.gold_order`` takes the reading a result comes with when it is of the item's
    gold text and dialect (here a made-up one, to tell it from a reading made here), and reads
    the text itself otherwise."""
    unordered = "SELECT a FROM t"
    gold = QueryResult.of_driver_columns(([2, 1],), ("a",), outer_order=OuterOrder(unordered, "sqlite", (0,)))
    assert Item(gold, gold, unordered).gold_order == (0,)
    assert Item(gold, gold, unordered, dialect="duckdb").gold_order is None
    assert Item(gold, gold, "SELECT a FROM t ORDER BY a DESC").gold_order == (0,)
    assert Item(gold, gold, "SELECT a FROM t ORDER BY random()").gold_order == ()
    assert Item(QueryResult.of_driver_columns(([2, 1],), ("a",)), gold, unordered).gold_order is None
