"""SQL text read by sqlglot: the outer ORDER BY, sort keys and statements in each engine's
dialect, with bounded work and a conservative answer where sqlglot cannot read the text."""

from __future__ import annotations

import subprocess
import sys

import pytest

from answerkey.adapters import sqltext as _sqltext
from answerkey.adapters.sqltext import (
    MAX_PARSED_CHARS,
    MAX_PARSED_DEPTH,
    first_statement,
    has_outer_order_by,
    order_by_keys,
    split_statements,
)

DIALECTS = ("sqlite", "duckdb", "postgresql")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    ("sql", "found"),
    [
        ("SELECT a FROM t ORDER BY a", True),
        ("select a from t order\n  by a desc", True),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a) AS s", False),
        ("SELECT a FROM t WHERE a IN (SELECT b FROM u ORDER BY b LIMIT 1)", False),
        ("SELECT a, row_number() OVER (ORDER BY b) AS rn FROM t", False),
        ("SELECT 'ORDER BY a' FROM t", False),
        ("SELECT a FROM t -- ORDER BY a", False),
        ("SELECT a FROM t /* ORDER BY a */", False),
        ('SELECT "order by" FROM t', False),
        ("WITH x AS (SELECT a FROM t ORDER BY a) SELECT a FROM x", False),
        ("WITH x AS (SELECT a FROM t) SELECT a FROM x ORDER BY a", True),
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", True),
        ("SELECT a FROM t UNION SELECT b FROM (SELECT b FROM u ORDER BY b)", False),
        ("SELECT a FROM t; SELECT a FROM t ORDER BY a", False),
        ("SELECT border_by, ordered FROM t", False),
    ],
)
def test_the_outer_order_by_in_each_dialect(sql, found, dialect):
    """Only an ORDER BY of the first statement's outermost query counts, in every dialect."""
    assert has_outer_order_by(sql, dialect) is found


@pytest.mark.parametrize(
    ("sql", "dialect", "found"),
    [
        # A dollar-quoted string is a string in PostgreSQL and DuckDB.
        ("SELECT $$ ORDER BY a $$ FROM t", "postgresql", False),
        ("SELECT $$ ORDER BY a $$ FROM t", "duckdb", False),
        # Backquotes and brackets quote names in SQLite.
        ("SELECT `order by` FROM t", "sqlite", False),
        ("SELECT [order by] FROM t", "sqlite", False),
    ],
)
def test_quoting_of_a_dialect(sql, dialect, found):
    """What a dialect quotes hides an ORDER BY."""
    assert has_outer_order_by(sql, dialect) is found


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    ("sql", "columns", "keys"),
    [
        ("SELECT name, salary FROM emp ORDER BY 2 DESC", ["name", "salary"], (1,)),
        ("WITH x AS (SELECT a, b FROM t ORDER BY a) SELECT a, b FROM x ORDER BY b", ["a", "b"], (1,)),
        ("SELECT a, b FROM t UNION SELECT c, d FROM u ORDER BY b, 1", ["a", "b"], (1, 0)),
        ("SELECT name, count(*) AS n FROM t GROUP BY name ORDER BY COUNT( * )", ["name", "n"], (1,)),
        ("SELECT name FROM (SELECT name, x FROM t ORDER BY x)", ["name"], None),
    ],
)
def test_sort_keys_in_each_dialect(sql, columns, keys, dialect):
    """ORDER BY terms resolve to the same result columns in every dialect."""
    assert order_by_keys(sql, columns, dialect) == keys


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    ("sql", "statements"),
    [
        ("SELECT 1", ["SELECT 1"]),
        ("SELECT 1;", ["SELECT 1"]),
        ("SELECT 1; SELECT 2", ["SELECT 1", "SELECT 2"]),
        ("SELECT ';' FROM t; SELECT 2", ["SELECT ';' FROM t", "SELECT 2"]),
        ('SELECT "a;b" FROM t', ['SELECT "a;b" FROM t']),
        ("SELECT 1 -- one; two\n; SELECT 2", ["SELECT 1 -- one; two", "SELECT 2"]),
        ("SELECT 1 /* ; */ ;; ", ["SELECT 1 /* ; */"]),
        ("", []),
    ],
)
def test_statements_split_on_semicolons_outside_strings_and_comments(sql, statements, dialect):
    """A ``;`` in a string literal, a quoted name or a comment ends no statement."""
    assert split_statements(sql, dialect) == statements


def test_a_dollar_quoted_semicolon_ends_no_postgresql_statement():
    """PostgreSQL's $$ strings hold semicolons; SQLite has no such strings."""
    assert split_statements("SELECT $$a;b$$; SELECT 2", "postgresql") == ["SELECT $$a;b$$", "SELECT 2"]
    assert first_statement("SELECT $$a;b$$; SELECT 2", "postgresql") == "SELECT $$a;b$$"
    assert first_statement("SELECT 1", "duckdb") == "SELECT 1"


@pytest.mark.parametrize(
    ("sql", "found"),
    [
        # Not tokenizable (an unclosed string): the words anywhere count, the strict side.
        ("SELECT a FROM t ORDER BY a, 'unclosed", True),
        ("SELECT 'unclosed ORDER BY a", True),
        ("SELECT 'unclosed", False),
        # Tokenized but not parsed: the outer-level words count; there are no sort keys.
        ("SELECT a FROM t ORDER BY", True),
        ("SELECT ( FROM t ORDER BY a", False),
    ],
)
def test_text_sqlglot_cannot_read_gets_the_conservative_answer(sql, found):
    """A text sqlglot refuses never raises: the documented conservative answers."""
    assert has_outer_order_by(sql) is found
    assert order_by_keys(sql, ["a"]) is None


def test_sqlglot_is_given_bounded_work():
    """Text too long or nested too deep is not parsed: no recursion error, no long parse."""
    deep = "(" * (MAX_PARSED_DEPTH + 1) + "SELECT a FROM t ORDER BY a" + ")" * (MAX_PARSED_DEPTH + 1)
    assert order_by_keys(f"SELECT a FROM {deep} AS s ORDER BY a", ["a"]) is None
    very_deep = "(" * 50_000 + "SELECT a" + ")" * 50_000 + " ORDER BY a"
    assert has_outer_order_by(very_deep) is True and order_by_keys(very_deep, ["a"]) is None
    # Recursion without parentheses (each NOT a level of sqlglot's parser): caught, not raised.
    negated = "SELECT " + "NOT " * 2000 + "a FROM t ORDER BY 1"
    assert has_outer_order_by(negated) is True and order_by_keys(negated, ["x"]) is None
    long = "SELECT a FROM t WHERE " + " OR ".join(["a = 1"] * (MAX_PARSED_CHARS // 8)) + " ORDER BY a"
    assert len(long) > MAX_PARSED_CHARS
    assert has_outer_order_by(long) is True  # the words, as for a text not tokenized
    assert order_by_keys(long, ["a"]) is None


def test_each_text_is_parsed_once():
    """A text asked about again is read from the cache (by text and dialect), whatever the
    result's column names."""
    sql = "SELECT x, y FROM once_only ORDER BY y"
    before = _sqltext._statement.cache_info()
    assert order_by_keys(sql, ["x", "y"]) == (1,)
    assert order_by_keys(sql, ["x", "y"]) == (1,)
    assert order_by_keys(sql, ["", ""]) == (1,)
    after = _sqltext._statement.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)


def test_sqlglot_is_imported_only_for_a_text_with_order_by():
    """A query without the word ORDER never imports sqlglot (0.1 s); one with it does."""
    probe = (
        "import sys\n"
        "from answerkey.execution.semantics import has_outer_order_by\n"
        "has_outer_order_by('SELECT a FROM t GROUP BY a')\n"
        "print('sqlglot' in sys.modules)\n"
        "has_outer_order_by('SELECT a FROM t ORDER BY a')\n"
        "print('sqlglot' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "True"]


OUTLINED = [
    "SELECT name, salary FROM emp WHERE dept IN (SELECT id FROM dept ORDER BY id) ORDER BY salary DESC LIMIT 3",
    "SELECT T1.name, count(*) FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id GROUP BY 1 HAVING count(*) > 1 ORDER BY 2",
    "WITH x AS (SELECT a, b FROM t ORDER BY a), y(c) AS (SELECT 1) SELECT a, b AS bee FROM x ORDER BY bee",
    "SELECT a, b FROM t UNION ALL SELECT c, d FROM u ORDER BY b NULLS LAST, 1 COLLATE NOCASE",
    "SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b",
    "SELECT a, row_number() OVER (PARTITION BY b ORDER BY c) AS rn FROM t ORDER BY rn",
    "SELECT a, (SELECT max(b) FROM u WHERE u.a = t.a ORDER BY 1 LIMIT 1) AS m FROM t ORDER BY m",
    "SELECT CASE WHEN x > 1 THEN 'big' ELSE 'small' END size, count(*) FROM t GROUP BY 1 ORDER BY size",
    "SELECT EXTRACT(YEAR FROM d) AS y, substr(s, 1, 2) FROM t ORDER BY EXTRACT(YEAR FROM d)",
    'SELECT x AS \'total\', "Name" FROM t ORDER BY total, "name" LIMIT 5 OFFSET 2',
    "SELECT t.* FROM t ORDER BY t.a",
    "SELECT a FROM t WINDOW w AS (ORDER BY a) ORDER BY a",
    "(SELECT a FROM t ORDER BY a) UNION SELECT b FROM u ORDER BY 1",
    "WITH x AS (SELECT 1 AS a) (SELECT a FROM x) UNION SELECT 2 ORDER BY 1",
    "SELECT 1 AS one ORDER BY one",
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("sql", OUTLINED)
def test_the_outline_reads_as_the_whole_query(sql, dialect):
    """The outline (outer select list and ORDER BY) gives the select items and ORDER BY
    terms the whole query's tree gives, or none and the whole query is parsed."""
    whole = _sqltext._statement(sql, dialect)
    outline = _sqltext._statement(sql, dialect, True)
    assert whole is not None
    if outline is None:
        return
    assert _sqltext._select_items(outline, dialect) == _sqltext._select_items(whole, dialect)
    terms = [[_sqltext._key(term, dialect) for term in _sqltext._order_terms(tree)] for tree in (outline, whole)]
    assert terms[0] == terms[1]


def test_queries_not_led_by_their_select_have_no_outline():
    """A query led by a parenthesised SELECT is parsed whole (its first SELECT outside
    parentheses is not its leftmost one)."""

    def outline(sql):
        return _sqltext._outline(_sqltext._tokens(sql, "sqlite")[0])

    assert outline(OUTLINED[-3]) is None
    assert outline(OUTLINED[-2]) is None
    assert outline("SELECT a FROM t") is None  # no ORDER BY: nothing to outline
    assert outline(OUTLINED[0]) == [0, 1, 2, 3, *range(17, 22)]
