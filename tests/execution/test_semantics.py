"""answerkey.execution.semantics: answerkey's semantics and the official rules of test-suite-sql-eval,
BIRD and Spider 2.0, reproduced with their flaws, on results built directly (no database)."""

from __future__ import annotations

import datetime
import io
import math
import pickle
from collections import Counter
from itertools import permutations
from typing import Any

import pytest
from hypothesis import given, strategies as st

from answerkey.adapters.sql import ColumnFacts, QueryResult
from answerkey.comparator import MatchRule
from answerkey.execution.semantics import (
    DEFAULT_SEMANTICS,
    DESCRIPTIONS,
    SEMANTICS,
    TEST_SUITE_YEAR,
    Decision,
    OtherValue,
    decide,
    decide_all,
    disagreement,
    driver_value,
    has_outer_order_by,
    order_by_keys,
    soft_f1,
    test_suite_rewrites as suite_rewrites,  # not collected as a test
    test_suite_sql as suite_sql,
)
from answerkey.limits import MAX_QUERY_CHARS
from answerkey.model import NIL, Boolean, Date, Failure, FailureKind, Number, String, value_of


def result(rows, *columns):
    """A query result of Python values as a driver gives them, typed as the engines type them."""
    typed = tuple(tuple(value_of(value) for value in row) for row in rows)
    if not columns:
        columns = tuple(f"c{index}" for index in range(len(rows[0]) if rows else 0))
    return QueryResult(rows=typed, columns=tuple(columns))


STAFF = [("ADAMS", 40000), ("BAKER", 40000), ("CLARK", 52000)]
BY_SALARY = "SELECT name, salary FROM emp ORDER BY salary"
SORTED = "as sorted values, numbers within 0.01"
IN_ROWS = "in row order, numbers within 0.01"

# name: (gold, predicted, gold SQL, options, {semantics: (correct, reason)}). Sources: test-suite
# exec_eval.py result_eq and eval_exec_match; BIRD mini_dev evaluation_ex.py calculate_ex; Spider 2.0
# spider2-lite/evaluation_suite/evaluate.py compare_pandas_table.
Case = tuple[QueryResult, QueryResult, str, dict[str, Any], dict[str, tuple[bool, str]]]
CASES: dict[str, Case] = {
    "duplicate rows": (
        # BIRD compares sets: a DISTINCT prediction passes a gold with duplicates.
        result([("x",), ("x",), ("y",)], "name"),
        result([("x",), ("y",)], "name"),
        "SELECT name FROM t",
        {},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (False, "the gold has 3 rows, the prediction 2"),
            "bird": (True, "same set of rows; duplicates ignored (the gold has 3 rows, the prediction 2)"),
            "spider2": (False, "the gold has 3 rows, the prediction 2"),
        },
    ),
    "duplicates in another proportion": (
        # A bag check: the same rows, but x twice against y twice.
        result([("x",), ("x",), ("y",)], "name"),
        result([("x",), ("y",), ("y",)], "name"),
        "SELECT name FROM t",
        {},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (False, "no permutation of the prediction's columns gives the gold's bag of rows"),
            "bird": (True, "same set of rows"),
            "spider2": (False, "gold column 1 (name) matches no predicted column"),
        },
    ),
    "extra column": (
        result([("x",), ("y",)], "name"),
        result([(1, "x"), (2, "y")], "id", "name"),
        "SELECT name FROM t",
        {},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (False, "the gold has 1 column, the prediction 2"),
            "bird": (False, "the gold has 1 column, the prediction 2"),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "one column against many": (
        result([("x",), ("y",)], "name"),
        result([(1, "x", 3.5), (2, "y", 4.0)], "id", "name", "score"),
        "SELECT name FROM t",
        {"ignore_order": True},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (False, "the gold has 1 column, the prediction 3"),
            "bird": (False, "the gold has 1 column, the prediction 3"),
            "spider2": (True, f"each gold column equals a predicted column, {SORTED}"),
        },
    ),
    "columns permuted": (
        result([("x", 1), ("y", 2)], "name", "id"),
        result([(2, "y"), (1, "x")], "id", "name"),
        "SELECT name, id FROM t",
        {"ignore_order": True},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (True, "same bag of rows with columns permuted"),
            "bird": (False, "the rows match only with columns permuted, which bird does not allow"),
            "spider2": (True, f"each gold column equals a predicted column, {SORTED}"),
        },
    ),
    "reals 0.1 + 0.2 against 0.3": (
        result([(0.3,)], "total"),
        result([(0.1 + 0.2,)], "total"),
        "SELECT total FROM t",
        {},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (False, "no permutation of the prediction's columns gives the gold's bag of rows"),
            "bird": (
                False,
                "the sets of rows differ: the prediction lacks 1 of the gold's rows and has 1 row not in the gold",
            ),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "integer 1 against real 1.0": (
        result([(1,)], "n"),
        result([(1.0,)], "n"),
        "SELECT n FROM t",
        {},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (True, "same bag of rows"),
            "bird": (True, "same set of rows"),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "1 and 10 against 1.0 and 10": (
        # test-suite's quick check sorts "1<class 'int'>" after "10<class 'int'>" but "1.0<class
        # 'float'>" before it: equal rows are rejected.
        result([(1, 10)], "a", "b"),
        result([(1.0, 10)], "a", "b"),
        "SELECT a, b FROM t",
        {},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (
                False,
                "the rows match, but test-suite's first check rejects them: it sorts each row's values by "
                "their text and type, and equal values written differently (1 and 1.0) sort apart",
            ),
            "bird": (True, "same set of rows"),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "0.0 against -0.0": (
        # ... and so are 0.0 and -0.0 in a row with ".x": "-0.0" sorts before ".x", "0.0" after it.
        result([(0.0, ".x")], "x", "tag"),
        result([(-0.0, ".x")], "x", "tag"),
        "SELECT x, tag FROM t",
        {},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (
                False,
                "the rows match, but test-suite's first check rejects them: it sorts each row's values by "
                "their text and type, and equal values written differently (1 and 1.0) sort apart",
            ),
            "bird": (True, "same set of rows"),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "reals within epsilon": (
        # 53198.8 is within 0.0001 of 53200.0 relatively, not within Spider 2.0's absolute 0.01.
        result([(53200.0,)], "pay"),
        result([(53198.8,)], "pay"),
        "SELECT pay FROM t",
        {},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (False, "no permutation of the prediction's columns gives the gold's bag of rows"),
            "bird": (
                False,
                "the sets of rows differ: the prediction lacks 1 of the gold's rows and has 1 row not in the gold",
            ),
            "spider2": (False, "gold column 1 (pay) matches no predicted column"),
        },
    ),
    "small reals within 0.01": (
        # Spider 2.0's absolute tolerance makes 0.001 and 0.009 equal.
        result([(0.001,)], "rate"),
        result([(0.009,)], "rate"),
        "SELECT rate FROM t",
        {},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples as a set",
            ),
            "test-suite": (False, "no permutation of the prediction's columns gives the gold's bag of rows"),
            "bird": (
                False,
                "the sets of rows differ: the prediction lacks 1 of the gold's rows and has 1 row not in the gold",
            ),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "NULLs": (
        result([(None, "x"), (1, "y")], "n", "name"),
        result([(None, "x"), (1, "y")], "n", "name"),
        "SELECT n, name FROM t",
        {},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (True, "same bag of rows"),
            "bird": (True, "same set of rows"),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "NULL against empty text": (
        # Spider 2.0 writes NULL as an empty CSV field and reads an empty field as missing.
        result([(None,)], "note"),
        result([("",)], "note"),
        "SELECT note FROM t",
        {},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples as a set",
            ),
            "test-suite": (False, "no permutation of the prediction's columns gives the gold's bag of rows"),
            "bird": (
                False,
                "the sets of rows differ: the prediction lacks 1 of the gold's rows and has 1 row not in the gold",
            ),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "text 007 against 7": (
        # pandas reads a CSV column of digits as integers: '007' is 7.
        result([("007",)], "code"),
        result([(7,)], "code"),
        "SELECT code FROM t",
        {},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples as a set",
            ),
            "test-suite": (False, "no permutation of the prediction's columns gives the gold's bag of rows"),
            "bird": (
                False,
                "the sets of rows differ: the prediction lacks 1 of the gold's rows and has 1 row not in the gold",
            ),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "ties under ORDER BY": (
        # ADAMS and BAKER tie on salary: either order is the gold's.
        result(STAFF, "name", "salary"),
        result([STAFF[1], STAFF[0], STAFF[2]], "name", "salary"),
        BY_SALARY,
        {},
        {
            "answerkey": (True, "the tuples match in key order (BY 2; ties as sets)"),
            "test-suite": (False, "same bag of rows in another order (the gold's text has 'order by')"),
            "bird": (True, "same set of rows"),
            "spider2": (False, "gold column 1 (name) matches no predicted column"),
        },
    ),
    "wrong order under ORDER BY": (
        result(STAFF, "name", "salary"),
        result([STAFF[2], STAFF[0], STAFF[1]], "name", "salary"),
        BY_SALARY,
        {},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples in key order (BY 2)",
            ),
            "test-suite": (False, "same bag of rows in another order (the gold's text has 'order by')"),
            "bird": (True, "same set of rows"),
            "spider2": (False, "gold columns 1 (name), 2 (salary) match no predicted column"),
        },
    ),
    "wrong order, order ignored": (
        # Spider 2.0 with ignore_order sorts each column on its own: any order passes.
        result(STAFF, "name", "salary"),
        result([STAFF[2], STAFF[0], STAFF[1]], "name", "salary"),
        BY_SALARY,
        {"ignore_order": True},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples in key order (BY 2)",
            ),
            "test-suite": (False, "same bag of rows in another order (the gold's text has 'order by')"),
            "bird": (True, "same set of rows"),
            "spider2": (True, f"each gold column equals a predicted column, {SORTED}"),
        },
    ),
    "rows taken apart": (
        # Spider 2.0 with ignore_order matches columns one at a time: rows need not hold together.
        result([("x", 1), ("y", 2)], "name", "id"),
        result([("x", 2), ("y", 1)], "name", "id"),
        "SELECT name, id FROM t",
        {"ignore_order": True},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples as a set",
            ),
            "test-suite": (False, "no permutation of the prediction's columns gives the gold's bag of rows"),
            "bird": (
                False,
                "the sets of rows differ: the prediction lacks 2 of the gold's rows and has 2 rows not in the gold",
            ),
            "spider2": (True, f"each gold column equals a predicted column, {SORTED}"),
        },
    ),
    "sorted by text, then within tolerance": (
        # Sorted by text, 10.0 comes before 9.0 but 9.995 after it: the pairs no longer match.
        result([(9.995,), (9.0,)], "x"),
        result([(10.0,), (9.0,)], "x"),
        "SELECT x FROM t",
        {"ignore_order": True},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples as a set",
            ),
            "test-suite": (False, "no permutation of the prediction's columns gives the gold's bag of rows"),
            "bird": (
                False,
                "the sets of rows differ: the prediction lacks 1 of the gold's rows and has 1 row not in the gold",
            ),
            "spider2": (False, "gold column 1 (x) matches no predicted column"),
        },
    ),
    "two gold columns, one predicted": (
        # Spider 2.0 lets one predicted column stand for several gold columns.
        result([("x", "x"), ("y", "y")], "name", "alias"),
        result([("x",), ("y",)], "name"),
        "SELECT name, name AS alias FROM t",
        {},
        {
            "answerkey": (False, "the canonical answer has 2 columns; the system answer only 1"),
            "test-suite": (False, "the gold has 2 columns, the prediction 1"),
            "bird": (False, "the gold has 2 columns, the prediction 1"),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "ORDER BY in a subquery only": (
        # test-suite looks for "order by" anywhere in the gold's text.
        result([(1,), (2,)], "n"),
        result([(2,), (1,)], "n"),
        "SELECT n FROM (SELECT n FROM t ORDER BY n LIMIT 2)",
        {"ignore_order": True},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (False, "same bag of rows in another order (the gold's text has 'order by')"),
            "bird": (True, "same set of rows"),
            "spider2": (True, f"each gold column equals a predicted column, {SORTED}"),
        },
    ),
    "order by in a string": (
        result([(1,), (2,)], "n"),
        result([(2,), (1,)], "n"),
        "SELECT n FROM t WHERE note <> 'sort order by date'",
        {"ignore_order": True},
        {
            "answerkey": (True, "the tuples match as sets"),
            "test-suite": (False, "same bag of rows in another order (the gold's text has 'order by')"),
            "bird": (True, "same set of rows"),
            "spider2": (True, f"each gold column equals a predicted column, {SORTED}"),
        },
    ),
    "ORDER  BY with two spaces": (
        # ... and misses "ORDER  BY": the order is not compared.
        result(STAFF, "name", "salary"),
        result([STAFF[2], STAFF[0], STAFF[1]], "name", "salary"),
        "SELECT name, salary FROM emp ORDER  BY salary",
        {},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples in key order (BY 2)",
            ),
            "test-suite": (True, "same bag of rows"),
            "bird": (True, "same set of rows"),
            "spider2": (False, "gold columns 1 (name), 2 (salary) match no predicted column"),
        },
    ),
    "ORDER BY a column not selected": (
        # answerkey cannot resolve the key: it compares the gold as a plain sequence.
        result([("ADAMS",), ("BAKER",)], "name"),
        result([("BAKER",), ("ADAMS",)], "name"),
        "SELECT name FROM emp ORDER BY salary",
        {},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples in order",
            ),
            "test-suite": (False, "same bag of rows in another order (the gold's text has 'order by')"),
            "bird": (True, "same set of rows"),
            "spider2": (False, "gold column 1 (name) matches no predicted column"),
        },
    ),
    "both empty": (
        result([], "n"),
        result([], "n", "m"),
        "SELECT n FROM t",
        {},
        {
            "answerkey": (True, "both answers are empty"),
            "test-suite": (True, "both results are empty"),
            "bird": (True, "both results are empty"),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "empty gold, one row predicted": (
        result([], "n"),
        result([(1,)], "n"),
        "SELECT n FROM t",
        {},
        {
            "answerkey": (False, "the canonical answer is empty; the system answer has 1 tuple(s)"),
            "test-suite": (False, "the gold has 0 rows, the prediction 1"),
            "bird": (False, "the sets of rows differ: the prediction has 1 row not in the gold"),
            "spider2": (False, "the gold has 0 rows, the prediction 1"),
        },
    ),
    "empty prediction": (
        result([(1,)], "n"),
        result([], "n"),
        "SELECT n FROM t",
        {},
        {
            "answerkey": (False, "the system answer is empty"),
            "test-suite": (False, "the gold has 1 row, the prediction 0"),
            "bird": (False, "the sets of rows differ: the prediction lacks 1 of the gold's rows"),
            "spider2": (False, "the gold has 1 row, the prediction 0"),
        },
    ),
    "boolean against integer": (
        # Python says True == 1; answerkey's types say a boolean is not a number.
        result([(True,)], "flag"),
        result([(1,)], "flag"),
        "SELECT flag FROM t",
        {},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples as a set",
            ),
            "test-suite": (True, "same bag of rows"),
            "bird": (True, "same set of rows"),
            "spider2": (True, f"each gold column equals a predicted column, {IN_ROWS}"),
        },
    ),
    "condition columns": (
        # Spider 2.0 checks only the gold's condition columns (0-based): the id column is free.
        result([(1, "x"), (2, "y")], "id", "name"),
        result([(7, "x"), (8, "y")], "id", "name"),
        "SELECT id, name FROM t",
        {"condition_cols": [1]},
        {
            "answerkey": (
                False,
                "no mapping of canonical columns onto system columns gives the canonical tuples as a set",
            ),
            "test-suite": (False, "no permutation of the prediction's columns gives the gold's bag of rows"),
            "bird": (
                False,
                "the sets of rows differ: the prediction lacks 2 of the gold's rows and has 2 rows not in the gold",
            ),
            "spider2": (True, f"each of gold columns 2 (name) equals a predicted column, {IN_ROWS}"),
        },
    ),
    "predicted query failed": (
        result([(1,)], "n"),
        QueryResult(error="no such column: m\nLINE 1: SELECT m"),
        "SELECT n FROM t",
        {},
        {name: (False, "the predicted query failed: no such column: m LINE 1: SELECT m") for name in SEMANTICS},
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_decide_all_table(name):
    """Every semantics gives the pinned verdict and reason on each case where the rules differ."""
    gold, predicted, sql, options, expected = CASES[name]
    decisions = decide_all(gold, predicted, gold_sql=sql, **options)
    assert list(decisions) == list(SEMANTICS)
    assert decisions == {semantics: Decision(semantics, *pinned) for semantics, pinned in expected.items()}


@pytest.mark.parametrize("semantics", SEMANTICS)
@pytest.mark.parametrize("name", list(CASES))
def test_decide_agrees_with_decide_all(name, semantics):
    """``decide`` under one semantics gives the same decision as ``decide_all``."""
    gold, predicted, sql, options, expected = CASES[name]
    assert decide(semantics, gold, predicted, gold_sql=sql, **options) == Decision(semantics, *expected[semantics])


def test_answerkey_decision_carries_the_verdict():
    """The answerkey decision holds the comparator's verdict, with its mapping; the presets hold none."""
    gold, predicted, sql, options, _ = CASES["extra column"]
    decisions = decide_all(gold, predicted, gold_sql=sql, **options)
    assert decisions["answerkey"].verdict is not None
    assert decisions["answerkey"].verdict.mapping == (1,)
    assert [decisions[name].verdict for name in ("test-suite", "bird", "spider2")] == [None, None, None]


def test_disagreement_names_each_rule_and_explains_answerkey():
    """Where the presets disagree, the text says who decided what, then answerkey's --explain output."""
    gold, predicted, sql, options, _ = CASES["extra column"]
    text = disagreement(decide_all(gold, predicted, gold_sql=sql, **options))
    assert text == (
        "correct under answerkey and spider2; incorrect under test-suite and bird\n"
        "  answerkey: correct: the tuples match as sets\n"
        "  test-suite: incorrect: the gold has 1 column, the prediction 2\n"
        "  bird: incorrect: the gold has 1 column, the prediction 2\n"
        f"  spider2: correct: each gold column equals a predicted column, {IN_ROWS}\n"
        "answerkey's explanation:\n"
        "  correct: the tuples match as sets\n"
        "  mapping: canonical column 1 -> system column 2"
    )


def test_disagreement_explains_an_incorrect_answerkey_verdict():
    """An incorrect answerkey verdict is explained with the first tuple out of key order."""
    gold, predicted, sql, options, _ = CASES["wrong order under ORDER BY"]
    text = disagreement(decide_all(gold, predicted, gold_sql=sql, **options))
    assert text == (
        "correct under bird; incorrect under answerkey, test-suite and spider2\n"
        "  answerkey: incorrect: no mapping of canonical columns onto system columns gives the canonical "
        "tuples in key order (BY 2)\n"
        "  test-suite: incorrect: same bag of rows in another order (the gold's text has 'order by')\n"
        "  bird: correct: same set of rows\n"
        "  spider2: incorrect: gold columns 1 (name), 2 (salary) match no predicted column\n"
        "answerkey's explanation:\n"
        "  incorrect: no mapping of canonical columns onto system columns gives the canonical tuples in key "
        "order (BY 2)\n"
        "  closest mapping: canonical column 1 -> system column 1, canonical column 2 -> system column 2\n"
        "  out of key order (BY 2):\n"
        '    system tuple 2 ("ADAMS" 40000) with key (40000) should come before system tuple 1 ("CLARK" 52000) '
        "with key (52000)"
    )


def test_decisions_cross_processes_with_their_explanation():
    """A pickled decision keeps its explanation (not the verdict): the disagreement text is the same."""
    gold, predicted, sql, options, _ = CASES["wrong order under ORDER BY"]
    decisions = decide_all(gold, predicted, gold_sql=sql, **options)
    copied = pickle.loads(pickle.dumps(decisions))
    verdict = decisions["answerkey"].verdict
    assert copied == decisions
    assert verdict is not None and copied["answerkey"].verdict is None
    assert copied["answerkey"].explanation == verdict.explain()
    assert disagreement(copied) == disagreement(decisions)


def test_explanation_only_where_semantics_disagree():
    """decide_all explains answerkey's verdict only when the semantics disagree."""
    gold, predicted, sql, options, _ = CASES["NULLs"]
    assert decide_all(gold, predicted, gold_sql=sql, **options)["answerkey"].explanation is None
    gold, predicted, sql, options, _ = CASES["ties under ORDER BY"]
    assert decide_all(gold, predicted, gold_sql=sql, **options)["answerkey"].explanation == (
        "correct: the tuples match in key order (BY 2; ties as sets)\n"
        "mapping: canonical column 1 -> system column 1, canonical column 2 -> system column 2"
    )


def test_no_disagreement_when_all_agree():
    """When every semantics gives the same verdict, there is nothing to explain."""
    for name in ("NULLs", "integer 1 against real 1.0", "both empty", "predicted query failed"):
        gold, predicted, sql, options, _ = CASES[name]
        assert disagreement(decide_all(gold, predicted, gold_sql=sql, **options)) is None


def test_disagreement_without_answerkey_has_no_explanation():
    """Decisions of the presets alone are listed without an explanation."""
    decisions = {
        "bird": Decision("bird", True, "same set of rows"),
        "test-suite": Decision("test-suite", False, "the gold has 2 rows, the prediction 1"),
    }
    assert disagreement(decisions) == (
        "correct under bird; incorrect under test-suite\n"
        "  test-suite: incorrect: the gold has 2 rows, the prediction 1\n"
        "  bird: correct: same set of rows"
    )


def test_decide_all_on_some_semantics():
    """``decide_all`` decides only the semantics asked for, in the order of SEMANTICS."""
    gold, predicted, sql, _, _ = CASES["duplicate rows"]
    decisions = decide_all(gold, predicted, gold_sql=sql, semantics=["bird", "answerkey"])
    assert list(decisions) == ["answerkey", "bird"]


def test_failed_gold_is_the_callers_problem():
    """A gold query that failed raises ValueError with its error on one line."""
    with pytest.raises(ValueError, match=r"^the gold query failed: no such table: t LINE 1$"):
        decide("bird", QueryResult(error="no such table: t\nLINE 1"), result([(1,)]), gold_sql="SELECT 1")
    with pytest.raises(ValueError, match=r"^the gold query failed: boom$"):
        decide_all(QueryResult(error="boom"), QueryResult(error="bang"), gold_sql="SELECT 1")


def test_unknown_semantics_is_refused():
    """An unknown semantics name raises ValueError with the closest known one."""
    with pytest.raises(
        ValueError, match=r"^unknown semantics 'testsuite' \(did you mean 'test-suite'\?\): known are answerkey, "
    ):
        decide("testsuite", result([(1,)]), result([(1,)]), gold_sql="SELECT 1")
    with pytest.raises(ValueError, match=r"^unknown semantics 'spider'"):
        decide_all(result([(1,)]), result([(1,)]), gold_sql="SELECT 1", semantics=["spider"])


def test_registry_lists_every_semantics_with_a_description():
    """SEMANTICS starts with the default, answerkey, and each has a one-line description."""
    assert DEFAULT_SEMANTICS == SEMANTICS[0] == "answerkey"
    assert list(DESCRIPTIONS) == list(SEMANTICS)
    assert all("\n" not in text for text in DESCRIPTIONS.values())


def test_answerkey_epsilon_comes_from_the_rule():
    """The answerkey semantics compares reals with the rule's epsilon: 0 makes 0.1 + 0.2 differ from 0.3."""
    gold, predicted = result([(0.3,)]), result([(0.1 + 0.2,)])
    assert decide("answerkey", gold, predicted, gold_sql="SELECT 0.3").correct
    assert not decide("answerkey", gold, predicted, gold_sql="SELECT 0.3", rule=MatchRule(epsilon=0)).correct
    folded = decide(
        "answerkey", result([("Paris",)]), result([("paris",)]), gold_sql="x", rule=MatchRule(strings="fold")
    )
    assert folded == Decision("answerkey", True, "the tuples match as sets")


def test_answerkey_order_by_overrides_the_gold_sql():
    """Explicit sort keys replace the gold's ORDER BY; () compares the gold as a set."""
    gold = result(STAFF, "name", "salary")
    reversed_staff = result(STAFF[::-1], "name", "salary")
    assert decide("answerkey", gold, reversed_staff, gold_sql=BY_SALARY, order_by=()) == Decision(
        "answerkey", True, "the tuples match as sets"
    )
    by_name = decide("answerkey", gold, reversed_staff, gold_sql="SELECT name, salary FROM emp", order_by=[0])
    assert by_name == Decision(
        "answerkey",
        False,
        "no mapping of canonical columns onto system columns gives the canonical tuples in key order (BY 1)",
    )


def test_answerkey_refuses_a_gold_it_cannot_hold():
    """A gold column that mixes text and numbers raises ValueError; such a prediction is incorrect."""
    mixed = result([(1,), ("one",)], "n")
    with pytest.raises(
        ValueError, match=r"^the gold result cannot be compared: tuple 2, column 1: a string in a column of numbers$"
    ):
        decide("answerkey", mixed, result([(1,)], "n"), gold_sql="SELECT n FROM t")
    assert decide("answerkey", result([(1,)], "n"), mixed, gold_sql="SELECT n FROM t") == Decision(
        "answerkey",
        False,
        "the predicted result cannot be compared: tuple 2, column 1: a string in a column of numbers",
    )
    # The official rules compare such results as Python values.
    assert decide("bird", mixed, mixed, gold_sql="SELECT n FROM t") == Decision("bird", True, "same set of rows")


def test_answerkey_refuses_results_as_the_relation_model_does():
    """Results the model cannot hold are refused with Relation's own words, however they are
    checked: rows of different widths, a value that is not a CAS value, sort keys past the
    last column; a result of 0-width rows; and a column of one type with nils is held."""
    ragged = QueryResult(rows=((Number.of(1),), (Number.of(1), Number.of(2))), columns=("n",))
    with pytest.raises(ValueError, match=r"^the gold result cannot be compared: tuple 2 has 2 values; expected 1$"):
        decide("answerkey", ragged, ragged, gold_sql="SELECT n FROM t")
    foreign = QueryResult(rows=((Number.of(1),), (3,)), columns=("n",))
    with pytest.raises(ValueError, match=r"^the gold result cannot be compared: not a CAS value: 3$"):
        decide("answerkey", foreign, foreign, gold_sql="SELECT n FROM t")
    staff = result(STAFF, "name", "salary")
    with pytest.raises(
        ValueError,
        match=r"^the gold result cannot be compared: sort key 2 is not a column index of a relation of 2 columns$",
    ):
        decide("answerkey", staff, staff, gold_sql=BY_SALARY, order_by=[2])
    empty = QueryResult(rows=((), ()), columns=())
    with pytest.raises(ValueError, match=r"^the gold result cannot be compared: tuple 1 has 0 values; expected 0$"):
        decide("answerkey", empty, empty, gold_sql="SELECT")
    with_nils = result([(1,), (None,), (2,)], "n")
    assert decide("answerkey", with_nils, result([(2,), (1,), (None,)], "n"), gold_sql="SELECT n FROM t").correct


def test_spider2_condition_columns_are_checked():
    """Condition columns outside the gold result raise ValueError naming the column."""
    gold = result([(1, "x")], "id", "name")
    with pytest.raises(
        ValueError,
        match=r"^condition column 2 is not a column of the gold result, which has 2 columns "
        r"\(condition columns count from 0\)$",
    ):
        decide("spider2", gold, gold, gold_sql="x", condition_cols=[2])
    with pytest.raises(ValueError, match=r"^condition column -1 is not"):
        decide("spider2", gold, gold, gold_sql="x", condition_cols=[-1])


def test_spider2_empty_condition_columns_mean_all():
    """An empty list of condition columns checks every gold column, as the official script does."""
    gold, predicted = result([(1, "x")], "id", "name"), result([(2, "x")], "id", "name")
    assert decide("spider2", gold, predicted, gold_sql="x", condition_cols=[]) == Decision(
        "spider2", False, "gold column 1 (id) matches no predicted column"
    )


def test_spider2_reads_pandas_missing_spellings_as_null():
    """Texts pandas reads as missing ('NA', 'None', 'null') equal NULL under spider2 only."""
    gold = result([(None,), ("x",)], "note")
    for spelling in ("NA", "None", "null", "NaN", "N/A"):
        predicted = result([(spelling,), ("x",)], "note")
        assert decide("spider2", gold, predicted, gold_sql="x").correct, spelling
        assert not decide("bird", gold, predicted, gold_sql="x").correct, spelling


def test_spider2_sorting_by_text_breaks_pairs_within_tolerance():
    """In row order 9.995 pairs with 10.0 and passes; sorted by text for ignore_order, it does not."""
    gold, predicted, sql, _, _ = CASES["sorted by text, then within tolerance"]
    assert decide("spider2", gold, predicted, gold_sql=sql, ignore_order=False) == Decision(
        "spider2", True, f"each gold column equals a predicted column, {IN_ROWS}"
    )


def test_wide_symmetric_results_are_decided_quickly(within):
    """Eight interchangeable columns do not make the permutation search exponential."""
    rows = [(row % 2,) * 8 for row in range(1000)]
    shifted = [(row % 2,) * 7 + ((row + 1) % 2,) for row in range(1000)]
    with within(20):
        assert decide("test-suite", result(rows), result(shifted), gold_sql="SELECT * FROM t") == Decision(
            "test-suite", False, "no permutation of the prediction's columns gives the gold's bag of rows"
        )
        moved = [row[::-1] for row in shifted]
        assert decide("test-suite", result(shifted), result(moved), gold_sql="SELECT * FROM t") == Decision(
            "test-suite", True, "same bag of rows with columns permuted"
        )
        assert decide("bird", result(rows), result(shifted), gold_sql="SELECT * FROM t").correct is False


def test_unknown_value_types_compare_by_their_text():
    """Values of a type this module does not know are equal under the official rules when their texts are."""
    necessary = Failure(FailureKind.NECESSARY)
    gold = QueryResult(rows=((necessary,),), columns=("x",))
    same = QueryResult(rows=((Failure(FailureKind.NECESSARY),),), columns=("x",))
    other = QueryResult(rows=((Failure(FailureKind.CONTINGENT),),), columns=("x",))
    text = QueryResult(rows=((String("necessary-failure"),),), columns=("x",))
    assert decide("test-suite", gold, same, gold_sql="x").correct
    assert not decide("test-suite", gold, other, gold_sql="x").correct
    assert decide("bird", gold, same, gold_sql="x").correct
    assert not decide("bird", gold, text, gold_sql="x").correct


@pytest.mark.parametrize(
    ("sql", "columns", "keys"),
    [
        ("SELECT name, salary FROM emp ORDER BY 2", ["name", "salary"], (1,)),
        ("SELECT name, salary FROM emp ORDER BY salary DESC", ["name", "salary"], (1,)),
        ("SELECT t.name, t.salary FROM emp AS t ORDER BY t.salary", ["name", "salary"], (1,)),
        ("SELECT name, salary FROM emp AS t ORDER BY t.salary", ["name", "salary"], (1,)),
        ("SELECT a.name, b.name FROM a JOIN b ON a.id = b.id ORDER BY b.name", ["name", "name"], (1,)),
        ("SELECT name, salary AS pay FROM emp ORDER BY pay", ["name", "pay"], (1,)),
        ("SELECT name, salary pay FROM emp ORDER BY pay DESC", ["name", "pay"], (1,)),
        ("SELECT name, salary AS pay FROM emp ORDER BY salary", ["name", "pay"], (1,)),
        ("SELECT name AS salary, pay FROM emp ORDER BY salary", ["salary", "pay"], (0,)),
        ("SELECT x AS 'total' FROM t ORDER BY total", ["total"], (0,)),
        ('SELECT "Name", salary FROM emp ORDER BY "name"', ["Name", "salary"], (0,)),
        ("SELECT name, CASE WHEN x THEN 1 ELSE 0 END flag FROM t ORDER BY flag", ["name", "flag"], (1,)),
        ("SELECT name, count(*) FROM emp GROUP BY name ORDER BY COUNT( * ) DESC", ["name", "count(*)"], (1,)),
        ("SELECT name, salary * 12 AS annual FROM emp ORDER BY salary*12", ["name", "annual"], (1,)),
        ("SELECT * FROM emp ORDER BY salary", ["id", "name", "salary"], (2,)),
        ("SELECT * FROM emp ORDER BY 2", ["id", "name", "salary"], (1,)),
        ("SELECT name, salary FROM emp ORDER BY salary DESC LIMIT 3", ["name", "salary"], (1,)),
        (
            "SELECT name, salary FROM emp ORDER BY salary DESC NULLS LAST, name COLLATE NOCASE LIMIT 3 OFFSET 1",
            ["name", "salary"],
            (1, 0),
        ),
        ("SELECT name, salary FROM emp ORDER BY salary, 2, name", ["name", "salary"], (1, 0)),
        ("SELECT name, salary FROM emp order\n  by salary", ["name", "salary"], (1,)),
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", ["a"], (0,)),
        ("WITH x AS (SELECT a, b FROM t ORDER BY a) SELECT a, b FROM x ORDER BY b", ["a", "b"], (1,)),
        ("SELECT DISTINCT ON (a) a, b FROM t ORDER BY b", ["a", "b"], (1,)),
        ("SELECT name /* ORDER BY 1 */ FROM emp -- ORDER BY name\n ORDER BY name", ["name"], (0,)),
        # No outer ORDER BY: a subquery's, a window's, a string literal's, a comment's.
        ("SELECT name FROM (SELECT name, salary FROM emp ORDER BY salary)", ["name"], None),
        ("SELECT a, row_number() OVER (ORDER BY b) AS rn FROM t", ["a", "rn"], None),
        ("SELECT name FROM emp WHERE note = 'ORDER BY name'", ["name"], None),
        ("SELECT name FROM emp -- ORDER BY name", ["name"], None),
        ("SELECT name FROM emp; SELECT name FROM emp ORDER BY name", ["name"], None),
        # Unresolvable terms: nothing to sort by.
        ("SELECT name FROM emp ORDER BY salary", ["name"], None),
        ("SELECT name, salary FROM emp ORDER BY salary, hired", ["name", "salary"], None),
        ("SELECT name FROM emp ORDER BY random()", ["name"], None),
        ("SELECT name, salary FROM emp ORDER BY 3", ["name", "salary"], None),
        ("SELECT name, salary FROM emp ORDER BY 0", ["name", "salary"], None),
        ("SELECT a.name, b.name FROM a JOIN b ON a.id = b.id ORDER BY c.name", ["name", "name"], None),
        ("SELECT * FROM a JOIN b ON a.id = b.id ORDER BY a.name", ["id", "name", "id", "name"], None),
        ("SELECT name, salary FROM emp ORDER BY", ["name", "salary"], None),
    ],
)
def test_order_by_keys(sql, columns, keys):
    """The outer ORDER BY resolves to result columns by number, name or alias, or expression; else None."""
    assert order_by_keys(sql, columns) == keys


@pytest.mark.parametrize(
    ("sql", "found"),
    [
        ("SELECT a FROM t ORDER BY a", True),
        ("select a from t order\tby a", True),
        ("SELECT a FROM t ORDER BY random()", True),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a)", False),
        ("SELECT group_concat(a ORDER BY a) FROM t", False),
        ("SELECT 'ORDER BY' FROM t", False),
        ('SELECT "order" FROM t', False),
        ("SELECT a FROM t /* ORDER BY a */", False),
        ("SELECT border_by FROM t", False),
    ],
)
def test_has_outer_order_by(sql, found):
    """Only an ORDER BY of the outermost SELECT counts, not one in parentheses, text or comments."""
    assert has_outer_order_by(sql) is found


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Number.of(3), 3),
        (Number.of(2.5), 2.5),
        (Number.parse("0.30000000000000004"), 0.1 + 0.2),
        (Number.parse("-0.0"), -0.0),
        (Number.parse("12.50"), 12.5),
        (String("x"), "x"),
        (NIL, None),
        (Boolean(True), True),
        (Date(datetime.date(1989, 7, 4)), datetime.date(1989, 7, 4)),
        (Failure(FailureKind.NECESSARY), OtherValue("Failure", "necessary-failure")),
    ],
)
def test_driver_value(value, expected):
    """Typed values come back as the Python values a driver gives, of the same type."""
    converted = driver_value(value)
    assert converted == expected
    assert type(converted) is type(expected)
    if isinstance(expected, float):
        assert isinstance(converted, float) and math.copysign(1, converted) == math.copysign(1, expected)


def test_driver_value_of_unknown_types():
    """A value type this module does not know is read by its ``value`` when that is a date or time."""

    class Moment:  # stands for a model type added later (a DateTime holding a datetime)
        def __init__(self, value):
            self.value = value

    moment = datetime.datetime(1989, 7, 4, 10, 30)
    assert driver_value(Moment(moment)) is moment  # type: ignore[arg-type]
    assert driver_value(Moment(datetime.time(10, 30))) == datetime.time(10, 30)  # type: ignore[arg-type]
    other = driver_value(Moment("x"))  # type: ignore[arg-type]
    assert isinstance(other, OtherValue) and other.kind == "Moment" and str(other).startswith("<")


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        ([(1, "a"), (2, "b")], [(1, "a"), (2, "b")], 1.0),
        ([], [], 1.0),
        ([(1, "a")], [], 0.0),
        ([], [(1, "a")], 0.0),
        # The second pair shares 1 of 2 values: tp 1.5, fp 0.5, fn 0.5.
        ([(1, "a"), (2, "b")], [(1, "a"), (2, "c")], 0.75),
        # Pairs are taken by position: the same rows in another order share nothing.
        ([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], 0.0),
        # Values are found anywhere in the row: columns swapped still match.
        ([(1, "a")], [("a", 1)], 1.0),
        # Duplicates are dropped first.
        ([(1,), (1,), (2,)], [(1,), (2,)], 1.0),
        # An extra predicted row: tp 1, fp 1.
        ([(1,)], [(1,), (2,)], 2 / 3),
        # An extra predicted column counts against precision: tp 1, fp 0.5.
        ([(1, "a")], [(1, "a", "z")], 0.8),
        ([(1,)], [(1.0,)], 1.0),
    ],
)
def test_soft_f1(gold, predicted, expected):
    """BIRD mini-dev's soft F1, by hand on small results."""
    assert soft_f1(result(gold), result(predicted)) == pytest.approx(expected, abs=1e-15)


def test_soft_f1_of_failed_queries():
    """A failed prediction scores 0.0; a failed gold raises ValueError."""
    assert soft_f1(result([(1,)]), QueryResult(error="syntax error")) == 0.0
    with pytest.raises(ValueError, match=r"^the gold query failed: syntax error$"):
        soft_f1(QueryResult(error="syntax error"), result([(1,)]))


# --- Oracles: the official rules, a few lines each following their code's logic --------------


def suite_oracle(gold, predicted, gold_sql):
    """test-suite-sql-eval's verdict: empty both; equal counts; a row check on values sorted by
    text and type; then some column permutation giving equal bags (or lists, under ORDER BY)."""
    ordered = "order by" in gold_sql.lower()
    if not gold and not predicted:
        return True
    if len(gold) != len(predicted) or len(gold[0]) != len(predicted[0]):
        return False

    def unordered(row):
        return tuple(sorted(row, key=lambda value: str(value) + str(type(value))))

    first, second = [unordered(row) for row in gold], [unordered(row) for row in predicted]
    if (first != second) if ordered else (set(first) != set(second)):
        return False
    for permutation in permutations(range(len(gold[0]))):
        moved = [tuple(row[column] for column in permutation) for row in predicted]
        if (moved == gold) if ordered else (Counter(moved) == Counter(gold)):
            return True
    return False


def bird_oracle(gold, predicted):
    """BIRD's EX: the sets of row tuples are equal."""
    return set(predicted) == set(gold)


def soft_f1_oracle(gold, predicted):
    """BIRD mini-dev's soft F1, following calculate_f1_score and calculate_row_match."""
    if not predicted and not gold:
        return 1.0
    predicted, gold = list(dict.fromkeys(predicted)), list(dict.fromkeys(gold))
    tp: list[float] = []
    fp: list[float] = []
    fn: list[float] = []
    for index, gold_row in enumerate(gold):
        if index >= len(predicted):
            tp.append(0)
            fn.append(1)
            continue
        row = predicted[index]
        tp.append(sum(value in gold_row for value in row) / len(gold_row))
        fp.append(sum(value not in gold_row for value in row) / len(gold_row))
        fn.append(sum(value not in row for value in gold_row) / len(gold_row))
    for _ in range(len(predicted) - len(gold)):
        tp.append(0)
        fp.append(1)
        fn.append(0)
    precision = sum(tp) / (sum(tp) + sum(fp)) if sum(tp) + sum(fp) > 0 else 0
    recall = sum(tp) / (sum(tp) + sum(fn)) if sum(tp) + sum(fn) > 0 else 0
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0


# Values that tell the rules apart: 1, 1.0 and True equal in Python; -0.0; 0.1 + 0.2; texts
# that look like numbers; the empty text; NULL.
VALUES = st.sampled_from([0, 1, 10, -1, 0.0, -0.0, 1.0, 10.0, 0.3, 0.1 + 0.2, True, "a", "1", "1.0", "", None])


@st.composite
def result_pairs(draw, values=VALUES):
    """A gold result and a predicted one: unrelated, or the gold with columns permuted, rows
    shuffled, and perhaps one edit (a row repeated, dropped or changed, a column added)."""
    width = draw(st.integers(1, 4))
    gold = draw(st.lists(st.tuples(*[values] * width), max_size=5))
    how = draw(st.sampled_from(["unrelated", "permuted", "edited"]))
    if how == "unrelated":
        other = draw(st.sampled_from([width, width, width + 1]))
        return gold, draw(st.lists(st.tuples(*[values] * other), max_size=5))
    order = draw(st.permutations(range(width)))
    predicted = [tuple(row[column] for column in order) for row in gold]
    if draw(st.booleans()):
        predicted = list(draw(st.permutations(predicted)))
    if how == "edited" and predicted:
        index = draw(st.integers(0, len(predicted) - 1))
        edit = draw(st.sampled_from(["repeat", "drop", "change", "widen"]))
        if edit == "repeat":
            predicted.append(predicted[index])
        elif edit == "drop":
            del predicted[index]
        elif edit == "change":
            row = list(predicted[index])
            row[draw(st.integers(0, width - 1))] = draw(values)
            predicted[index] = tuple(row)
        else:
            predicted = [(*row, draw(values)) for row in predicted]
    return gold, predicted


@given(result_pairs(), st.sampled_from(["SELECT * FROM t", "SELECT * FROM t ORDER BY 1", "SELECT 'order by'"]))
def test_test_suite_matches_the_official_rule(pair, gold_sql):
    """The test-suite semantics gives the official result_eq verdict on random small results."""
    gold, predicted = pair
    decision = decide("test-suite", result(gold), result(predicted), gold_sql=gold_sql)
    assert decision.correct is suite_oracle(gold, predicted, gold_sql)


@given(result_pairs())
def test_bird_matches_the_official_rule(pair):
    """The bird semantics gives the official calculate_ex verdict on random small results."""
    gold, predicted = pair
    assert decide("bird", result(gold), result(predicted), gold_sql="SELECT * FROM t").correct is bird_oracle(
        gold, predicted
    )


@given(result_pairs())
def test_soft_f1_matches_the_official_score(pair):
    """soft_f1 gives the very float BIRD mini-dev's calculate_f1_score gives."""
    gold, predicted = pair
    assert soft_f1(result(gold), result(predicted)) == soft_f1_oracle(gold, predicted)


# Spider 2.0 puts results through pandas' CSV writer and reader: values whose reading changes.
# Signed 64-bit integers only: above them pandas' CSV reading of a column depends on its row
# order (2**63 beside -1 and -0.0 reads as floats in one order, as objects in another), which
# the emulation does not follow (CI's derandomized run found it).
SPIDER2_VALUES = st.sampled_from(
    [0, 1, 7, 10, -1, 2**62, 0.5, 9.0, 9.995, 10.0, 0.001, 0.009, -0.0, True, False]
    + ["a", "007", "7", " 7", "NA", "None", "", "True", "1e3", "inf", datetime.date(1989, 7, 4), None]
)


def spider2_oracle(gold, predicted, condition_cols, ignore_order):
    """Spider 2.0's compare_pandas_table on the results as its pipeline reads them back from CSV."""
    import pandas as pd

    def round_trip(rows, width):
        frame = pd.DataFrame.from_records(rows, columns=[f"c{i}" for i in range(width)], coerce_float=True)
        return pd.read_csv(io.StringIO(frame.to_csv(index=False)))

    def key(value):
        return value is None, str(value), isinstance(value, (int, float))

    def vectors_match(first, second):
        # e12c5f1e's normalize (evaluate.py lines 87-90): a missing value is 0 before anything else.
        first, second = [0 if pd.isna(x) else x for x in first], [0 if pd.isna(x) else x for x in second]
        if ignore_order:
            first, second = sorted(first, key=key), sorted(second, key=key)
        if len(first) != len(second):
            return False
        for a, b in zip(first, second):
            if pd.isna(a) and pd.isna(b):
                continue
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                if not math.isclose(float(a), float(b), abs_tol=1e-2):
                    return False
            elif a != b:
                return False
        return True

    gold_frame = round_trip(gold, len(gold[0]))
    if condition_cols:
        gold_frame = gold_frame.iloc[:, condition_cols]
    predicted_frame = round_trip(predicted, len(predicted[0]))
    pred_vectors = predicted_frame.transpose().values.tolist()
    return all(any(vectors_match(g, p) for p in pred_vectors) for g in gold_frame.transpose().values.tolist())


@given(result_pairs(SPIDER2_VALUES), st.booleans(), st.booleans())
def test_spider2_matches_the_official_rule(pair, ignore_order, first_column_only):
    """The spider2 semantics gives compare_pandas_table's verdict after pandas' CSV round trip."""
    gold, predicted = pair
    if not gold or not predicted:
        return  # an empty result has no first row to size the frame by: pinned in the case table
    condition_cols = [0] if first_column_only else None
    decision = decide(
        "spider2",
        result(gold),
        result(predicted),
        gold_sql="x",
        ignore_order=ignore_order,
        condition_cols=condition_cols,
    )
    assert decision.correct is spider2_oracle(gold, predicted, condition_cols, ignore_order)


# ---------------------------------------------------------------------------------------------
# The queries test-suite-sql-eval runs: its script's rewrites, reproduced


DISTINCT = "DISTINCT removed"
FIRST = "only the first statement kept"

# Each case's output is what test-suite-sql-eval's default path makes of it (evaluation.py's
# "value" replacement for a prediction, exec_eval.postprocess, parse.remove_distinct through
# sqlparse 0.6.1, exec_eval.replace_cur_year), found by running that code on the case; but
# white space, on which that code fails (no statement), is left as it is.
TEST_SUITE_REWRITES = [
    ("SELECT DISTINCT name FROM singer", "SELECT  name FROM singer", (DISTINCT,)),
    ("select distinct name from singer", "select  name from singer", (DISTINCT,)),
    ("SELECT COUNT(DISTINCT name) FROM singer", "SELECT COUNT( name) FROM singer", (DISTINCT,)),
    ("SELECT count(distinct(name)) FROM singer", "SELECT count((name)) FROM singer", (DISTINCT,)),
    ("SELECT DISTINCT\tname FROM singer", "SELECT \tname FROM singer", (DISTINCT,)),
    ("SELECT name FROM t WHERE b IN (SELECT DISTINCT c FROM u)", "SELECT name FROM t WHERE b IN (SELECT  c FROM u)", (DISTINCT,)),
    ("SELECT a FROM t WHERE a IS DISTINCT FROM b", "SELECT a FROM t WHERE a IS  FROM b", (DISTINCT,)),
    ("SELECT t.distinct FROM t", "SELECT t. FROM t", (DISTINCT,)),
    ("SELECT name FROM singer WHERE note = 'DISTINCT'", "SELECT name FROM singer WHERE note = 'DISTINCT'", ()),
    ("SELECT name FROM singer WHERE note = 'it\\'s distinct'", "SELECT name FROM singer WHERE note = 'it\\'s distinct'", ()),
    ('SELECT "distinct", [distinct], `distinct` FROM t', 'SELECT "distinct", [distinct], `distinct` FROM t', ()),
    ("SELECT a FROM t -- DISTINCT", "SELECT a FROM t -- DISTINCT", ()),
    ("SELECT a /* DISTINCT */ FROM t", "SELECT a /* DISTINCT */ FROM t", ()),
    ("SELECT a FROM t WHERE b = $$DISTINCT$$", "SELECT a FROM t WHERE b = $$DISTINCT$$", ()),
    ("SELECT distinctrow, x_distinct, distinct_x, distinct$x, $distinct, @distinct FROM t", "SELECT distinctrow, x_distinct, distinct_x, distinct$x, $distinct, @distinct FROM t", ()),
    ("SELECT 'unclosed DISTINCT", "SELECT 'unclosed ", (DISTINCT,)),
    ("SELECT DISTINCT a FROM t; SELECT DISTINCT b FROM t", "SELECT  a FROM t; ", (FIRST, DISTINCT)),
    ("SELECT a FROM t;\nSELECT b FROM t", "SELECT a FROM t;", (FIRST,)),
    ("SELECT a FROM t;  -- note\n  SELECT b", "SELECT a FROM t;  -- note\n  ", (FIRST,)),
    ("SELECT a FROM t; /* note */ SELECT b", "SELECT a FROM t; ", (FIRST,)),
    ("SELECT CASE WHEN a THEN 1 END; SELECT DISTINCT b", "SELECT CASE WHEN a THEN 1 END; ", (FIRST,)),
    ("SELECT (a; SELECT DISTINCT b", "SELECT (a; SELECT  b", (DISTINCT,)),
    ("SELECT begin FROM t; SELECT DISTINCT b", "SELECT begin FROM t; SELECT  b", (DISTINCT,)),
    ("BEGIN; SELECT DISTINCT b", "BEGIN; ", (FIRST,)),
    ("SELECT a FROM t GO SELECT b", "SELECT a FROM t GO ", (FIRST,)),
    ("SELECT a FROM t go SELECT b", "SELECT a FROM t go SELECT b", ()),
    ("SELECT a FROM t WHERE b > = 1 AND c < = 2 AND d ! = 3", "SELECT a FROM t WHERE b >= 1 AND c <= 2 AND d != 3", ("'> =' written '>='", "'< =' written '<='", "'! =' written '!='")),
    ("SELECT a FROM t WHERE b = 'x > = y'", "SELECT a FROM t WHERE b = 'x >= y'", ("'> =' written '>='",)),
    ("SELECT YEAR(CURDATE()) - age FROM t", "SELECT 2020- age FROM t", ("YEAR(CURDATE()) replaced by 2020",)),
    ("SELECT year ( curdate ( ) )  FROM t", "SELECT 2020FROM t", ("YEAR(CURDATE()) replaced by 2020",)),
    ("SELECT a FROM t WHERE x = value AND y = value ", "SELECT a FROM t WHERE x = value AND y = value ", ()),
    ("SELECT name, age FROM singer WHERE age > 30 ORDER BY age", "SELECT name, age FROM singer WHERE age > 30 ORDER BY age", ()),
    ("   ", "   ", ()),
    ("", "", ()),
]  # fmt: skip


@pytest.mark.parametrize(("sql", "expected", "rewrites"), TEST_SUITE_REWRITES)
def test_test_suite_sql_is_what_the_official_script_runs(sql, expected, rewrites):
    """test_suite_sql gives the query test-suite-sql-eval runs for a gold query, and names the rewrites that changed it."""
    assert suite_sql(sql) == expected
    assert suite_rewrites(sql) == (expected, rewrites)


# D1 of issue 26: each prediction as test-suite-sql-eval runs it, found by running its code
# (evaluation.py:569 at e97acc5, p_str.replace("value", "1"), then exec_eval.postprocess and
# parse.remove_distinct) on the prediction.
PLACEHOLDER_CASES = [
    ("SELECT DISTINCT a FROM t WHERE x = value AND y > = value value ", "SELECT  a FROM t WHERE x = 1 AND y >= 1 1 "),
    ("SELECT total_value_purchased FROM t WHERE x > value", "SELECT total_1_purchased FROM t WHERE x > 1"),
    ("SELECT count(*) AS value_count FROM t WHERE kind = 'Value'", "SELECT count(*) AS 1_count FROM t WHERE kind = 'Value'"),
]  # fmt: skip


@pytest.mark.parametrize(("sql", "official"), PLACEHOLDER_CASES)
def test_test_suite_sql_of_a_prediction_replaces_every_value_substring(sql, official):
    """A prediction's every substring "value" (case-sensitive) becomes "1", as the official script does (issue 26,
    D1): inside names too, and at the end of the text; a gold's stay."""
    assert suite_sql(sql, predicted=True) == official
    assert suite_rewrites(sql, predicted=True)[1][0] == "'value' replaced by '1'"
    assert "value" in suite_sql(sql)


def test_test_suite_sql_keeps_distinct_when_asked():
    """keep_distinct (test-suite-sql-eval's --keep_distinct) keeps DISTINCT and every statement; the other rewrites stay."""
    sql = "SELECT COUNT(DISTINCT a) FROM t WHERE b ! = YEAR(CURDATE()); SELECT DISTINCT b FROM t"
    assert suite_rewrites(sql, keep_distinct=True) == (
        "SELECT COUNT(DISTINCT a) FROM t WHERE b != 2020; SELECT DISTINCT b FROM t",
        ("'! =' written '!='", f"YEAR(CURDATE()) replaced by {TEST_SUITE_YEAR}"),
    )
    assert suite_sql("SELECT DISTINCT a FROM t", keep_distinct=True) == "SELECT DISTINCT a FROM t"


@pytest.mark.parametrize("sql", ["/*" * 200_000 + ";", "$a$ " * 100_000 + ";", "(" * 300_000 + "; DISTINCT"])
def test_test_suite_sql_reads_hostile_text_in_linear_time(sql):
    """Unclosed comments, $tag$ strings and parentheses by the hundred thousand are read at once, not in quadratic time."""
    assert suite_sql(sql).startswith(sql[:10])


def test_test_suite_sql_leaves_an_overlong_text_to_the_engine():
    """A text longer than any engine runs is not read for DISTINCT (the engine refuses it as written)."""
    sql = "SELECT DISTINCT a FROM t -- " + "x" * MAX_QUERY_CHARS
    assert suite_sql(sql) == sql
    assert suite_sql(sql[:MAX_QUERY_CHARS]) == sql[:MAX_QUERY_CHARS].replace("DISTINCT", "", 1)


# ------------------------------------------------------------------ decided from driver values


def _plain_and_typed(rows, width):
    """The same result twice: as the SQLite adapter reads it (its values by column, typed when
    asked for) and as typed rows."""
    from answerkey.adapters.sql import sql_value

    columns = tuple(f"c{i}" for i in range(width))
    driver = tuple(list(column) for column in zip(*rows)) or ((),) * width
    facts = tuple(ColumnFacts() for _ in driver)
    for found, values in zip(facts, driver):
        for start in range(0, len(values), 3):  # found chunk by chunk, as a reader finds them
            found.add(values[start : start + 3])
    plain = QueryResult.of_driver_columns(driver, columns, facts=facts)
    typed = QueryResult(rows=tuple(tuple(map(sql_value, row)) for row in rows), columns=columns)
    return plain, typed


PLAIN_CELLS = st.one_of(
    st.integers(-3, 3), st.sampled_from([0.5, 1.0, 2.25, -0.0, 1e300, 2.0**60]), st.sampled_from(["a", "b"]), st.none()
)


@st.composite
def gold_and_prediction(draw):
    """A gold table (one type per column, NULLs anywhere) and a prediction made from it:
    columns permuted, rows shuffled, some duplicated, an extra column, or values changed,
    a real moved within or past the tolerance."""
    width = draw(st.integers(1, 4))
    kinds = draw(st.lists(st.sampled_from(["int", "real", "text", "blob", "inf"]), min_size=width, max_size=width))
    cell = {
        "int": st.one_of(st.integers(-3, 3), st.none()),
        "real": st.one_of(st.sampled_from([0.5, 1.0, 2.25, -0.0, 1e300, 2.0**60, 1e-3, math.inf]), st.none()),
        "text": st.one_of(st.sampled_from(["a", "b", "c"]), st.none()),
        "blob": st.one_of(st.sampled_from([b"a", b"\x00"]), st.none()),
        "inf": st.one_of(st.sampled_from([math.inf, -math.inf]), st.none()),
    }
    gold = draw(st.lists(st.tuples(*[cell[k] for k in kinds]), min_size=1, max_size=8))
    order = draw(st.permutations(range(width)))
    predicted = [tuple(row[j] for j in order) for row in draw(st.permutations(gold))]
    change = draw(st.sampled_from(["none", "duplicate", "extra", "value", "nudge", "drop", "spell"]))
    if change == "duplicate":
        predicted.append(draw(st.sampled_from(predicted)))
    elif change == "extra":
        predicted = [row + (draw(cell["int"]),) for row in predicted]
    elif change in ("value", "nudge"):
        row = draw(st.integers(0, len(predicted) - 1))
        column = draw(st.integers(0, width - 1))
        value = predicted[row][column]
        if change == "nudge" and isinstance(value, float):
            value = value * draw(st.sampled_from([1.00001, 1.001]))
        else:
            value = draw(cell[kinds[order[column]]])
        predicted[row] = predicted[row][:column] + (value,) + predicted[row][column + 1 :]
    elif change == "drop" and len(predicted) > 1:
        predicted.pop()
    elif change == "spell":  # a column of blobs or infinities as the text the model gives them
        column = draw(st.integers(0, width - 1))
        predicted = [row[:column] + (_spelled(row[column]),) + row[column + 1 :] for row in predicted]
    return gold, predicted


@given(gold_and_prediction(), st.sampled_from(["SELECT * FROM t", "SELECT * FROM t ORDER BY 1"]))
def test_driver_values_decide_as_typed_rows(pair, gold_sql):
    """Every semantics decides on results read from SQLite (from their driver values where
    those can decide) as on the same results as typed rows, alone and all together: verdict
    and reason (or the error of a gold it cannot judge), and for answerkey the mapping and
    the explanation."""
    gold, predicted = pair

    def results(typed: bool) -> tuple[QueryResult, QueryResult]:
        return _plain_and_typed(gold, len(gold[0]))[typed], _plain_and_typed(predicted, len(predicted[0]))[typed]

    for name in SEMANTICS:
        assert _decided(name, *results(False), gold_sql) == _decided(name, *results(True), gold_sql), name
    mine, theirs = _decided(None, *results(False), gold_sql), _decided(None, *results(True), gold_sql)
    assert mine == theirs
    if not isinstance(theirs, str):
        assert mine["answerkey"][2] == theirs["answerkey"][2]


def _spelled(value):
    if isinstance(value, bytes):
        return f"X'{value.hex().upper()}'"
    if isinstance(value, float) and math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    return value


def _decided(semantics, gold, predicted, gold_sql):
    """The decision of one semantics (every one's: None) as (verdict, reason, the answerkey
    verdict's mapping and explanation), or the error of a gold it cannot judge."""
    try:
        if semantics is not None:
            return _described(decide(semantics, gold, predicted, gold_sql=gold_sql))
        return {name: _described(d) for name, d in decide_all(gold, predicted, gold_sql=gold_sql).items()}
    except ValueError as error:
        return str(error)


def _described(decision):
    verdict = decision.verdict
    return decision.correct, decision.reason, verdict and (verdict.mapping, verdict.explain()), decision.explanation


def test_a_correct_prediction_is_decided_without_typed_values():
    """Rows permuted, columns reversed: decided from the driver values, no typed value made;
    the verdict has nothing to explain and is that of the typed rows."""
    rows = [(i, i / 4, f"name {i % 7}", None if i % 5 else "x") for i in range(500)]
    gold, typed_gold = _plain_and_typed(rows, 4)
    predicted, typed_predicted = _plain_and_typed([row[::-1] for row in reversed(rows)], 4)
    decision = decide("answerkey", gold, predicted, gold_sql="SELECT a, b, c, d FROM t")
    assert gold.driver_columns is not None and predicted.driver_columns is not None  # never typed
    assert (decision.correct, decision.reason, decision.verdict.mapping) == (
        True,
        "the tuples match as sets",
        (3, 2, 1, 0),
    )
    assert decision.verdict.explain() == (
        "correct: the tuples match as sets\nmapping: canonical column 1 -> system column 4, canonical column 2 -> "
        "system column 3, canonical column 3 -> system column 2, canonical column 4 -> system column 1"
    )
    assert decision == decide("answerkey", typed_gold, typed_predicted, gold_sql="SELECT a, b, c, d FROM t")


def test_reals_within_the_tolerance_are_decided_from_typed_values():
    """Keys that differ only within the tolerance leave the decision to the typed rows,
    made then; a wrong prediction is judged (and explained) from typed rows."""
    gold, _ = _plain_and_typed([(1, 100.0), (2, 200.0)], 2)
    close, _ = _plain_and_typed([(2, 200.001), (1, 100.0)], 2)
    decision = decide("answerkey", gold, close, gold_sql="SELECT * FROM t")
    assert decision.correct and decision.verdict.mapping == (0, 1)
    assert close.driver_columns is None  # its typed rows were made
    wrong, _ = _plain_and_typed([(2, 250.0), (1, 100.0)], 2)
    decision = decide("answerkey", gold, wrong, gold_sql="SELECT * FROM t")
    assert not decision.correct and "(2 200.0)" in decision.verdict.explain()


def test_a_wrong_prediction_is_searched_once_and_explains_itself(monkeypatch):
    """Decided from the driver values, an incorrect verdict is not searched for again on typed
    rows; it holds both relations, and its explanation is that of the typed rows."""
    import importlib

    judge_module = importlib.import_module("answerkey.comparator._judge")
    calls = []
    find_mapping = judge_module.find_mapping
    monkeypatch.setattr(judge_module, "find_mapping", lambda *a, **k: calls.append(k) or find_mapping(*a, **k))
    rows = [(i, f"n{i}") for i in range(50)]
    gold, typed_gold = _plain_and_typed(rows, 2)
    predicted, typed_predicted = _plain_and_typed([(i, f"n{i + (i == 7)}") for i in range(50)], 2)
    decision = decide("answerkey", gold, predicted, gold_sql="SELECT * FROM t")
    assert len(calls) == 1 and "keyed" in calls[0]
    assert decision.verdict.canonical.arity == 2 and len(decision.verdict.system.rows) == 50
    typed = decide("answerkey", typed_gold, typed_predicted, gold_sql="SELECT * FROM t")
    assert (decision.correct, decision.reason) == (False, typed.reason)
    assert decision.verdict.explain() == typed.verdict.explain()


@pytest.mark.parametrize(
    "gold, predicted, reason",
    [
        # Each column has its one counterpart, but the rows do not agree under that pairing.
        (
            [(1, "a"), (2, "b")],
            [("b", 1), ("a", 2)],
            "no permutation of the prediction's columns gives the gold's bag of rows",
        ),
        # Both gold columns have only the same predicted column as counterpart.
        ([(1, 1)], [(1, 2)], "no permutation of the prediction's columns gives the gold's bag of rows"),
        ([(1, "a"), (2, "b")], [("b", 2), ("a", 1)], "same bag of rows with columns permuted"),
    ],
)
def test_test_suite_with_one_candidate_column_each(gold, predicted, reason):
    """Where each gold column agrees with one predicted column only, that one permutation
    decides: the whole rows must agree under it."""
    decision = decide("test-suite", result(gold), result(predicted), gold_sql="SELECT a, b FROM t")
    assert (decision.correct, decision.reason) == (reason.startswith("same"), reason)
