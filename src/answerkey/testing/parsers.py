"""Fuzzing answerkey's own parsers: every reader of untrusted text, and what must hold.

``PARSERS`` registers each one (a ``FuzzTarget``: a check and the texts that feed it):
CAS, the row formats, SPARQL results, corpus and answer files, SDMX cases, graphrag-eval
references, responses and results (with their aggregation and reports), QATCH tests, SQL
text and database names. ``fuzz_parser(name)`` throws valid, near-miss and random text at
one and reports the minimal input that raised anything other than a documented
``InputError`` (SQL must always give a result, never raise).

The workflow modules are named, not imported (``module:function``), as the CLI names its
commands: a target whose module or function is missing is skipped with a message.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import os
import shutil
import sqlite3
import tempfile
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from answerkey.adapters.rows import FORMATS
from answerkey.adapters.sparql import relation_from_sparql_results, sparql_results_from_relation
from answerkey.adapters.sql import Databases, QueryResult, run_query
from answerkey.errors import InputError
from answerkey.grammar import parse
from answerkey.grammar.render import render
from answerkey.model import Relation
from answerkey.qatch.load import load_tests
from answerkey.report import json_text, yaml_text
from answerkey.score.load import load_answers, load_corpus
from answerkey.sdmx.load import load_cases
from answerkey.steps.load import read_reference, read_responses, read_results
from answerkey.steps.run import aggregate_steps
from answerkey.testing.runs import printable, run_examples


@dataclass
class ParserReport:
    """The outcome of fuzzing one parser: examples run, or why it was skipped, or the bug
    (the minimal ``failing_input`` and the traceback in ``error``)."""

    name: str
    examples: int = 0
    skipped: str | None = None
    failing_input: str | None = None
    error: str | None = None

    @property
    def outcome(self) -> str:
        """``ok``, ``bug`` or ``skipped``."""
        if self.skipped is not None:
            return "skipped"
        return "ok" if self.error is None else "bug"

    def document(self) -> dict[str, Any]:
        """The report as plain JSON-ready values."""
        return {
            "name": self.name,
            "description": PARSERS[self.name].description if self.name in PARSERS else None,
            "outcome": self.outcome,
            "examples": self.examples,
            "skipped": self.skipped,
            "input": None if self.failing_input is None else printable(self.failing_input),
            "error": None if self.error is None else printable(self.error),
        }


@dataclass(frozen=True)
class FuzzTarget:
    """A parser to fuzz: ``check(text)`` returns, or raises ``InputError`` for bad text
    (anything else is a bug); ``texts()`` gives the Hypothesis strategy that feeds it;
    ``requires`` names the modules (or ``module:attribute``) it needs: a target whose
    requirement is missing is skipped with a message."""

    description: str
    check: Callable[[str], None]
    texts: Callable[[], Any]
    requires: tuple[str, ...] = field(default=())


def _text_sources(valid: Any, alphabet: str) -> Any:
    from hypothesis import strategies as st

    from answerkey.testing.strategies import mutated_texts

    return st.one_of(
        valid,
        mutated_texts(valid, max_edits=6),
        st.text(st.sampled_from(alphabet), max_size=60),
        st.text(max_size=30),
    )


def _check_cas(text: str) -> None:
    try:
        answer = parse(text)
    except InputError:
        return
    printed = render(answer)
    again = parse(printed)
    if again != answer or render(again) != printed:
        raise AssertionError(f"render/parse round trip changed the answer: {printed!r} -> {render(again)!r}")


def _cas_texts() -> Any:
    from hypothesis import strategies as st

    from answerkey.testing.strategies import cas_texts, invalid_cas_texts

    return st.one_of(_text_sources(cas_texts(), '()";\\ \n0123456789.-+eEtrueORNIL_-JAN'), invalid_cas_texts())


def _relation_checker(format: str) -> Callable[[str], None]:
    def check(text: str) -> None:
        answer_format = FORMATS[format]
        try:
            relation = answer_format.read(text, source="<fuzz>")
        except InputError:
            return
        written = answer_format.write(relation)
        if answer_format.read(written) != relation:
            raise AssertionError(f"write/read round trip changed the relation: {written!r}")

    return check


def _relation_texts(format: str) -> Callable[[], Any]:
    def texts() -> Any:
        from hypothesis import strategies as st

        from answerkey.testing.strategies import relations

        written = relations(max_rows=4).map(FORMATS[format].write)
        return st.one_of(_text_sources(written, '[]{}",:\\ \n0123456789.-+eEtruenull#'), _json_documents())

    return texts


def _json_documents() -> Any:
    import json

    from hypothesis import strategies as st

    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))
    keys = st.sampled_from(
        [
            "head",
            "vars",
            "results",
            "bindings",
            "type",
            "value",
            "datatype",
            "xml:lang",
            "boolean",
            "link",
            "id",
            "answer",
            "x1",
        ]
    ) | st.text(max_size=4)
    documents = st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
        max_leaves=12,
    )
    return documents.map(json.dumps)


def _with_temporary_file(text: str, suffix: str, load: Callable[[str], Any]) -> Any:
    handle, path = tempfile.mkstemp(suffix=suffix)
    try:
        # A lone surrogate is written as the bytes Python would use for it: not UTF-8, which
        # the reader must refuse like any other bad byte.
        with os.fdopen(handle, "w", encoding="utf-8", errors="surrogatepass", newline="") as written:
            written.write(text)
        return load(path)
    finally:
        os.unlink(path)


def _file_checker(load: Callable[..., Any], suffix: str, **options: Any) -> Callable[[str], None]:
    """A check that writes the text to a temporary ``suffix`` file and loads it as
    ``load(path, **options)``."""

    def check(text: str) -> None:
        _with_temporary_file(text, suffix, lambda path: load(path, **options))

    return check


def _snippet_texts(valid: Sequence[str], hostile: Sequence[str], separator: str, alphabet: str) -> Callable[[], Any]:
    """Texts of one to four snippets joined by ``separator``: valid ones only (so that a
    whole file loads and reaches what comes after loading), valid and hostile ones mixed,
    mutations of those, and random text."""

    def texts() -> Any:
        from hypothesis import strategies as st

        def joined(snippets: Sequence[str], unique: bool) -> Any:
            return st.lists(st.sampled_from(snippets), min_size=1, max_size=4, unique=unique).map(separator.join)

        # Valid snippets at most once each: a repeated id would make the file invalid.
        return st.one_of(joined(valid, True), _text_sources(joined([*valid, *hostile], False), alphabet))

    return texts


# Corpus and answer files (YAML): list items that load, and the rest.
_YAML_VALID = (
    "- id: q1\n  answer: 5\n",
    "- {id: q2, answer: '((1 \"a\"))', tags: [x, y]}\n",
    "- id: 3\n  answer: 2024-01-01\n  category: X\n",
    "- id: q4\n  answer: |\n    ((1)\n     (2))\n",
    "- id: q5\n  answer: ((1.5 NIL))\n  epsilon: 0.01\n",
)
_YAML_HOSTILE = (
    "a: &x [1, 2]\nb: *x\n",
    "- !!python/object/apply:os.system ['true']\n",
    "? [a]\n: b\n",
    "q1: ((1))\nq1: ((2))\n",
    "---\n...\n",
    "- id: q\n  answer: yes\n  epsilon: .nan\n",
    "%YAML 1.1\n---\n[]",
    "- &a [*a]\n",
    "x: !!binary aGk=\n",
    "- id: q\n  answer: 2024-02-30\n",
    "- {id: t, answer: 2001-12-14t21:59:43.10-05:00}\n",
    '- id: "\\ud800"\n  answer: "\\udc00"\n',
    "yes: ((1))\n",
    "- id: q6\n  answer: " + "9" * 4301 + "\n",
)
_YAML_ALPHABET = "-:?[]{}&*!|>'\"#%@` \n\t0123456789abcidanswer"

_JSONL_VALID = (
    '{"id": "q1", "answer": "((1))"}',
    '{"id": 2, "answer": "5"}',
    '{"id": "q3", "answer": null}',
    '{"id": "q6", "answer": "1", "category": "X", "tags": ["a"]}',
    '{"id": "q7", "answer": "((\\"a\\" 2.5))"}',
)
_JSONL_HOSTILE = (
    "[1, 2]",
    '{"id": "q1", "answer": "((2))"}',
    '{"id": "", "answer": "x"}',
    '{"id": "q4"}',
    '{"id": "q5", "answer": [1]}',
    "not json",
    "",
    '{"id": "q7", "epsilon": -1}',
    '{"id": "\\ud800", "answer": "((1))"}',
    '{"id": "q8", "id": "q9", "answer": "((1))"}',
    '{"id": 1.0, "answer": 1}',
    '{"id": "q9", "answer": ' + "9" * 4301 + "}",
)
_JSONL_ALPHABET = '{}[]",:\\ \n0123456789idanswer'

# graphrag-eval reference corpora (YAML) and responses (JSON Lines).
_REFERENCE_VALID = (
    "- template_id: t1\n  questions:\n  - id: q1\n    question_text: How many?\n    reference_answer: '2'\n"
    "    reference_steps:\n    - - name: sparql_query\n        args: {query: 'SELECT ?x WHERE {}'}\n"
    '        output: \'{"head": {"vars": ["x"]}, "results": {"bindings": []}}\'\n',
    "- template_id: t2\n  questions:\n  - id: q2\n    question_text: Which?\n    reference_steps:\n"
    '    - - {name: retrieval, args: {query: a}, output: \'[{"id": "d1"}]\'}\n',
)
_REFERENCE_HOSTILE = (
    "- template_id: t3\n  questions: 5\n",
    "- template_id: t4\n  questions:\n  - id: q1\n    reference_steps: [[{}]]\n",
    "- template_id: t5\n  questions:\n  - id: q3\n    reference_steps:\n    - - name: sparql_query\n"
    "        output: '{bad json'\n",
    '- template_id: "\\ud800"\n  questions: []\n',
    "- 5\n",
    "{}\n",
)
_RESPONSES_VALID = (
    '{"question_id": "q1", "actual_steps": [{"name": "sparql_query", "args": {"query": "SELECT 1"}, '
    '"status": "success", "output": "{\\"head\\": {\\"vars\\": [\\"x\\"]}, \\"results\\": {\\"bindings\\": []}}"}]}',
    '{"question_id": "q2", "actual_steps": [], "input_tokens": 5}',
    '{"question_id": "q3", "status": "error", "error": "x"}',
)
_RESPONSES_HOSTILE = (
    '{"question_id": "q4", "actual_steps": 5}',
    '{"question_id": "\\udc00"}',
    '{"question_id": null}',
    '{"question_id": "q5", "actual_steps": [{"name": 1, "output": [1]}]}',
    '{"question_id": "q1"}',
    "[]",
    "not json",
    '{"question_id": "q6", "input_tokens": ' + "1" * 4301 + "}",
)

# QATCH tests: SQL or table targets and predictions, with the inputs that crashed before
# (lone surrogate escapes in any column, a 300-character db_id, a 4,301-digit integer).
_QATCH_VALID = (
    '{"id": "t1", "query": "SELECT name FROM item", "prediction": [["pen"]], "db_id": "shop"}',
    '{"id": "t2", "query": [["a", 1]], "prediction": "[[\\"a\\", 1]]"}',
    '{"id": "t3", "query": "SELECT 1", "prediction": "SELECT 1", "db_id": "shop"}',
    '{"id": "t4", "query": [["\\ud800\\udc00"]], "prediction": [["\\ud83d\\ude00", null]]}',
)
_QATCH_HOSTILE = (
    '{"id": "\\ud800", "query": "SELECT 1", "prediction": [[1]], "db_id": "shop"}',
    '{"id": "t5", "query": "SELECT \'\\udc00\'", "prediction": "SELECT \'\\ud800\'", "db_id": "shop"}',
    '{"id": "t6", "query": [["\\udfff"]], "prediction": [["x"]]}',
    '{"id": "t7", "query": "SELECT 1", "prediction": [[1]], "db_id": "\\ud83d"}',
    '{"id": "t8", "query": "SELECT 1", "prediction": [[1]], "db_id": "' + "d" * 300 + '"}',
    '{"id": "t9", "query": "SELECT 1", "prediction": [[' + "9" * 4301 + "]]}",
    '{"id": 1.0, "query": "SELECT 1", "prediction": null, "db_id": "shop"}',
    '{"id": "t10", "query": "", "prediction": [], "db_id": null}',
    '{"id": "t11", "id": "t12", "query": "SELECT 1", "prediction": [[1]]}',
    '{"id": "t1", "query": [[1]], "prediction": 1}',
    '{"id": "t13", "query": {"a": 1}, "prediction": true, "db_id": ["shop"]}',
    '{"id": "t14", "query": [[1, 2], [3]], "prediction": "[[1], [2, 3]"}',
    '{"query": "SELECT 1", "prediction": [[NaN]], "db_id": "shop"}',
    "[1, 2]",
    "not json",
    "",
)
_QATCH_ALPHABET = '{}[]",:\\ \n0123456789idqueryprdctnb_SELECT'
_QATCH_CSV_VALID = (
    "id,query,prediction,db_id",
    "t1,SELECT 1,SELECT 1,shop",
    't2,"[[1, 2]]","[[1, 2]]",',
    "t3,SELECT 2,SELECT 3,shop",
)
_QATCH_CSV_HOSTILE = (
    "t3,SELECT 1,,shop",
    't4,"SELECT ""a""","SELECT \'a\'",shop',
    "t5,,",
    "id,id,query",
    '"unterminated,',
    "t6,SELECT 1,[[1]],\x00",
    "t7,SELECT 1,SELECT 2,shop,extra",
)
_QATCH_CSV_ALPHABET = ',"\n\r id,queryprdctn0123456789[]SELECT'

# Steps results (a list, as graphrag-eval writes them), with the values that crashed
# aggregation before: actual_steps a number, infinite and huge scores.
_RESULTS_VALID = (
    "- template_id: t1\n  question_id: q1\n  status: success\n  steps_score: 0.5\n  actual_steps: []\n",
    "- template_id: t3\n  question_id: q5\n  status: error\n  error: boom\n",
    "- {template_id: t4, question_id: q6, status: success, steps_score: 1, actual_steps: [{name: sparql_query,"
    " args: {query: 'SELECT 1'}, output: '{\"results\": {\"bindings\": []}}', status: success}]}\n",
    "- template_id: t1\n  question_id: q7\n  status: success\n  steps_score: 0\n  answer_recall: 1\n",
)
_RESULTS_HOSTILE = (
    "- template_id: t1\n  question_id: q2\n  status: success\n  actual_steps: 5\n",
    "- template_id: t2\n  question_id: q3\n  steps_score: .inf\n",
    "- template_id: t2\n  question_id: q4\n  steps_score: -.inf\n  answer_recall: .nan\n",
    "- template_id: [a]\n",
    '- template_id: "\\ud800"\n',
    "- 5\n",
    "{}\n",
    "- template_id: 1e999\n",
    "# answerkey steps evaluate | eps:0.0001|v:0\n",
    '[{"template_id": "t", "steps_score": 1e308}, {"template_id": "t", "steps_score": 1e308}]',
    '[{"template_id": "t", "steps_score": ' + "9" * 4301 + "}]",
    '[{"template_id": "t", "steps_score": Infinity}]',
)
_RESULTS_LINES_VALID = (
    '{"template_id": "t1", "question_id": "q1", "status": "success", "steps_score": 1, "actual_steps": []}',
    '{"template_id": "t6", "question_id": "q2", "status": "error", "error": "x"}',
    '{"template_id": "t1", "question_id": "q3", "status": "success", "steps_score": 0.25, "input_tokens": 7}',
)
_RESULTS_LINES_HOSTILE = (
    '{"template_id": "t1", "question_id": "q2", "actual_steps": 7}',
    '{"template_id": "t2", "steps_score": -Infinity}',
    '{"template_id": "\\udc00"}',
    '{"template_id": null}',
    '{"template_id": "t3", "steps_score": ' + "1" * 4301 + "}",
    '{"template_id": "t4", "template_id": "t5"}',
    '{"template_id": "t6", "steps_score": 1e308}',
    "[]",
    "",
    "not json",
)


def _generated_results(lines: bool) -> Any:
    """Results with drawn values (ratios, huge and tiny figures, steps of any status), as one
    JSON list or as JSON Lines: valid files of many shapes, so that aggregation is reached."""
    import json

    from hypothesis import strategies as st

    figures = st.one_of(st.floats(0, 1), st.integers(0, 10**6), st.floats(allow_nan=False, allow_infinity=False))
    step = st.fixed_dictionaries(
        {"name": st.sampled_from(["sparql_query", "retrieval", "autocomplete_search"])},
        optional={
            "args": st.fixed_dictionaries({"query": st.text(max_size=8)}),
            "status": st.sampled_from(["success", "error"]),
            "output": st.sampled_from(['{"results": {"bindings": []}}', "[]", "x", '{"results": 1}']),
        },
    )
    result = st.fixed_dictionaries(
        {"template_id": st.sampled_from(["t1", "t2", "t3"])},
        optional={
            "question_id": st.text(max_size=4),
            "status": st.sampled_from(["success", "error"]),
            "error": st.text(max_size=5),
            "steps_score": figures,
            "answer_recall": figures,
            "answer_f1": figures,
            "input_tokens": figures,
            "elapsed_sec": figures,
            "actual_steps": st.lists(step, max_size=3),
        },
    )
    results = st.lists(result, min_size=1, max_size=5)
    if lines:
        return results.map(lambda drawn: "\n".join(json.dumps(entry, ensure_ascii=False) for entry in drawn))
    return results.map(lambda drawn: json.dumps(drawn, ensure_ascii=False))


def _results_texts(valid: Sequence[str], hostile: Sequence[str], separator: str, lines: bool) -> Callable[[], Any]:
    def texts() -> Any:
        from hypothesis import strategies as st

        snippets = _snippet_texts(valid, hostile, separator, (_JSONL_ALPHABET if lines else _YAML_ALPHABET) + "_")
        return st.one_of(_generated_results(lines), snippets())

    return texts


def _aggregate_results(path: str) -> None:
    """What ``answerkey steps aggregate`` does with a results file: read the results,
    aggregate them, and build each report of the result (JSON, YAML, summary, workbook)."""
    loaded = read_results(path)
    run = aggregate_steps(loaded)
    document = run.document()
    json_text(document).encode("utf-8")
    yaml_text(document).encode("utf-8")
    run.summary_table().encode("utf-8")
    run.workbook()


def _results_checker(suffix: str) -> Callable[[str], None]:
    def check(text: str) -> None:
        _with_temporary_file(text, suffix, _aggregate_results)

    return check


# ---- SQL text, run on a small database of the fuzzer's own

_SQL_SNIPPETS = (
    "SELECT 1",
    "SELECT name, price FROM item ORDER BY price",
    "SELECT * FROM item WHERE name LIKE 'p%'",
    "SELECT name, count(*), avg(price) FROM item GROUP BY name",
    "SELECT * FROM person",
    "SELECT x'00ff', NULL, 1e308 * 10, -9223372036854775808, 0.1 + 0.2",
    "SELECT CAST(x'c328ff' AS TEXT)",
    "SELECT name FROM item UNION ALL SELECT price FROM item",
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n",
    "SELECT zeroblob(100000000)",
    "SELECT printf('%.*c', 100000, 'a')",
    # One long function call, where SQLite's progress handler is never called (issue 19, item 3).
    "SELECT printf('%.*c', 2000000, 'a') LIKE ('%' || printf('%.*c', 1000, 'a') || 'b%')",
    "SELECT randomblob(4) IS NOT NULL",
    "ATTACH DATABASE ':memory:' AS other",
    "PRAGMA table_info(item)",
    "DROP TABLE item",
    "INSERT INTO item VALUES ('x', 1)",
    "SELECT load_extension('x')",
    "SELECT 1; SELECT 2",
    "BEGIN",
    "VACUUM",
    "SELECT 1.0 / 0, 1 / 0, abs(-9223372036854775807 - 1)",
    "SELECT '\ud800'",
    'SELECT "\udc00" FROM item',
    "SELECT * FROM item WHERE name = '\U0001f600'",
    "SELECT ",
    "--",
    "/*",
    ";",
    "",
    "SELECT * FROM missing",
)
_SQL_ALPHABET = "SELCTFROMWHEReselctfromwhere *(),;'\"`[]-+/%0123456789._\n\x00\ud800"


def _sql_texts() -> Any:
    from hypothesis import strategies as st

    from answerkey.testing.strategies import mutated_texts

    snippets = st.sampled_from(_SQL_SNIPPETS)
    lone = st.characters(categories=["Cs"])
    return st.one_of(
        snippets,
        mutated_texts(snippets, alphabet=_SQL_ALPHABET, max_edits=6),
        st.text(st.sampled_from(_SQL_ALPHABET), max_size=60),
        st.tuples(snippets, lone).map(lambda pair: pair[0] + " -- " + pair[1]),
        st.text(max_size=30),
    )


# Query limits in the fuzzer: small, so that endless queries end quickly.
_SQL_LIMITS: dict[str, Any] = {"timeout": 1.0, "max_rows": 1000, "max_result_bytes": 1_000_000}


@dataclass(frozen=True)
class FuzzDatabases:
    """The fuzzer's SQLite databases: a Spider-layout ``root`` and its one ``database`` file."""

    root: str
    database: str


@functools.cache
def fuzz_databases() -> FuzzDatabases:
    """A Spider-layout root (``ROOT/shop/shop.sqlite``) in a temporary directory, created on
    first use and removed when this process exits; ``ROOT/outside`` links out of the root."""
    root = tempfile.mkdtemp(prefix="answerkey-fuzz-sql-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    os.mkdir(os.path.join(root, "shop"))
    path = os.path.join(root, "shop", "shop.sqlite")
    with contextlib.closing(sqlite3.connect(path)) as connection, connection:
        connection.executescript(
            "CREATE TABLE item (name TEXT, price REAL);"
            "INSERT INTO item VALUES ('pen', 1.5), ('ink', 7.25), ('pen', NULL), ('', 9e999), ('\U0001f600', -0.0);"
            "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT, born DATE, photo BLOB);"
            "INSERT INTO person VALUES (1, 'Smith', '1989-07-04', x'00ff'), (2, CAST(x'ff' AS TEXT), NULL, NULL),"
            " (9223372036854775807, 'Jones', 'soon', zeroblob(3));"
        )
    with contextlib.suppress(OSError):
        os.symlink(os.path.dirname(root), os.path.join(root, "outside"))
    return FuzzDatabases(root, path)


def _check_result(result: Any, what: str) -> None:
    if not isinstance(result, QueryResult):
        raise AssertionError(f"{what} returned {result!r}, not a QueryResult")
    if result.error is not None and not isinstance(result.error, str):
        raise AssertionError(f"{what} gave an error that is not text: {result.error!r}")


def _sql_check(text: str) -> None:
    result = run_query(fuzz_databases().database, text, **_SQL_LIMITS)
    _check_result(result, "run_query")


_DB_IDS = (
    "shop",
    "shop ",
    "Shop",
    "..",
    ".",
    "",
    "shop/../shop",
    "../shop",
    "/etc/passwd",
    "outside",
    "d" * 300,
    "a\x00b",
    "\ud800",
    "shop\n",
    "~",
    "-shop",
    "shop.sqlite",
)


def _db_id_check(db_id: str) -> None:
    databases = Databases(fuzz_databases().root, **_SQL_LIMITS)
    _check_result(databases.run(db_id, "SELECT name FROM item"), "Databases.run")


def _db_id_texts() -> Any:
    from hypothesis import strategies as st

    from answerkey.testing.strategies import mutated_texts

    ids = st.sampled_from(_DB_IDS)
    return st.one_of(
        ids,
        mutated_texts(ids, alphabet="./\\\x00 shop~-_", max_edits=4),
        st.text(max_size=20),
        st.characters(categories=["Cs"]),
    )


def _sparql_check(text: str) -> None:
    try:
        result = relation_from_sparql_results(text, source="<fuzz>")
    except InputError:
        return
    if isinstance(result, Relation) and relation_from_sparql_results(sparql_results_from_relation(result)) != result:
        raise AssertionError(
            "sparql_results_from_relation/relation_from_sparql_results round trip changed the relation"
        )


def _sparql_texts() -> Any:
    from hypothesis import strategies as st

    return st.one_of(
        _relation_texts("sparql-json")(),
        _json_documents().map(
            lambda body: '{"head": {"vars": ["x1"]}, "results": {"bindings": [{"x1": ' + body + "}]}}"
        ),
    )


_yaml_texts = _snippet_texts(_YAML_VALID, _YAML_HOSTILE, "", _YAML_ALPHABET)
_jsonl_texts = _snippet_texts(_JSONL_VALID, _JSONL_HOSTILE, "\n", _JSONL_ALPHABET)
_qatch_texts = _snippet_texts(_QATCH_VALID, _QATCH_HOSTILE, "\n", _QATCH_ALPHABET)

# Every parser answerkey exposes to untrusted text.
PARSERS: dict[str, FuzzTarget] = {
    "cas": FuzzTarget("CAS text (answerkey.grammar.parse, render round trip)", _check_cas, _cas_texts),
    "jsonrows": FuzzTarget(
        "JSON rows (answerkey.adapters.rows)", _relation_checker("jsonrows"), _relation_texts("jsonrows")
    ),
    "csv": FuzzTarget("CSV (answerkey.adapters.rows)", _relation_checker("csv"), _relation_texts("csv")),
    "sparql-json": FuzzTarget("SPARQL results JSON (answerkey.adapters.sparql)", _sparql_check, _sparql_texts),
    "corpus-yaml": FuzzTarget(
        "corpus YAML (answerkey.score.load.load_corpus)",
        _file_checker(load_corpus, ".yaml", format="yaml"),
        _yaml_texts,
    ),
    "corpus-jsonl": FuzzTarget(
        "corpus JSONL (answerkey.score.load.load_corpus)",
        _file_checker(load_corpus, ".jsonl", format="jsonl"),
        _jsonl_texts,
    ),
    "answers-jsonl": FuzzTarget(
        "answer files, JSONL (answerkey.score.load.load_answers)",
        _file_checker(load_answers, ".jsonl", format="jsonl"),
        _jsonl_texts,
    ),
    "answers-yaml": FuzzTarget(
        "answer files, YAML (answerkey.score.load.load_answers)",
        _file_checker(load_answers, ".yaml", format="yaml"),
        _yaml_texts,
    ),
    "sdmx-cases": FuzzTarget(
        "SDMX test cases, YAML (answerkey.sdmx.load.load_cases)",
        _file_checker(load_cases, ".yaml"),
        _yaml_texts,
    ),
    "steps-reference": FuzzTarget(
        "graphrag-eval reference corpus (answerkey.steps.load.read_reference)",
        _file_checker(read_reference, ".yaml"),
        _snippet_texts(_REFERENCE_VALID, _REFERENCE_HOSTILE, "", _YAML_ALPHABET),
    ),
    "steps-responses": FuzzTarget(
        "graphrag-eval responses (answerkey.steps.load.read_responses)",
        _file_checker(read_responses, ".jsonl"),
        _snippet_texts(_RESPONSES_VALID, _RESPONSES_HOSTILE, "\n", _JSONL_ALPHABET),
    ),
    "steps-results": FuzzTarget(
        "steps results, YAML or JSON, and their aggregates (answerkey.steps.load.read_results, "
        "answerkey.steps.run.aggregate_steps, the reports)",
        _results_checker(".yaml"),
        _results_texts(_RESULTS_VALID, _RESULTS_HOSTILE, "", lines=False),
    ),
    "steps-results-jsonl": FuzzTarget(
        "steps results, JSON Lines, and their aggregates (answerkey.steps.load.read_results, "
        "answerkey.steps.run.aggregate_steps, the reports)",
        _results_checker(".jsonl"),
        _results_texts(_RESULTS_LINES_VALID, _RESULTS_LINES_HOSTILE, "\n", lines=True),
    ),
    "qatch-tests": FuzzTarget(
        "QATCH tests, JSONL, QA task (answerkey.qatch.load.load_tests)",
        _file_checker(load_tests, ".jsonl", task="qa"),
        _qatch_texts,
    ),
    "qatch-tests-sp": FuzzTarget(
        "QATCH tests, JSONL, SP task (answerkey.qatch.load.load_tests)",
        _file_checker(load_tests, ".jsonl", task="sp"),
        _qatch_texts,
    ),
    "qatch-tests-csv": FuzzTarget(
        "QATCH tests, CSV (answerkey.qatch.load.load_tests)",
        _file_checker(load_tests, ".csv", task="qa"),
        _snippet_texts(_QATCH_CSV_VALID, _QATCH_CSV_HOSTILE, "\n", _QATCH_CSV_ALPHABET),
    ),
    "sql": FuzzTarget(
        "SQL text on a SQLite database (answerkey.adapters.sql.run_query): always a result",
        _sql_check,
        _sql_texts,
    ),
    "sql-db-id": FuzzTarget(
        "database names (answerkey.adapters.sql.Databases.run): always a result",
        _db_id_check,
        _db_id_texts,
    ),
}


# Parser name -> the inputs that crashed it, or its kind, before (issue 19): lone surrogate
# escapes, a number for actual_steps, infinite and 4,301-digit scores, a 300-character
# db_id, runaway and forbidden SQL. fuzz self draws them among others; tests try each.
HOSTILE_INPUTS: dict[str, tuple[str, ...]] = {
    "steps-results": _RESULTS_HOSTILE,
    "steps-results-jsonl": _RESULTS_LINES_HOSTILE,
    "qatch-tests": _QATCH_HOSTILE,
    "qatch-tests-sp": _QATCH_HOSTILE,
    "qatch-tests-csv": _QATCH_CSV_HOSTILE,
    "sql": _SQL_SNIPPETS,
    "sql-db-id": _DB_IDS,
}


class _Undocumented(Exception):
    def __init__(self, text: str, detail: str) -> None:
        super().__init__(detail)
        self.text = text
        self.detail = detail


def _missing(target: FuzzTarget) -> str | None:
    """Why ``target`` cannot run (a module or function it needs is missing), or None."""
    for reference in target.requires:
        module, _, name = reference.partition(":")
        try:
            loaded = importlib.import_module(module)
        except ImportError as error:
            return f"{module} is not available ({error})"
        if name and not hasattr(loaded, name):
            return f"{module}.{name} is not available"
    return None


def fuzz_parser(
    name: str, *, examples: int = 1000, seed: int = 0, on_example: Callable[[int], None] | None = None
) -> ParserReport:
    """Fuzz the parser ``name`` (a key of ``PARSERS``) with ``examples`` texts; the report
    names the minimal input that raised anything other than ``InputError``, with the traceback."""
    target = PARSERS[name]
    report = ParserReport(name)
    missing = _missing(target)
    if missing:
        report.skipped = missing
        return report

    found: list[_Undocumented] = []

    def check(text: str) -> None:
        report.examples += 1
        if on_example:
            on_example(report.examples)
        try:
            target.check(text)
        except InputError:
            pass
        except Exception:  # noqa: BLE001 (anything but InputError is the bug being looked for)
            found.append(_Undocumented(text, traceback.format_exc()))
            raise found[-1] from None

    try:
        run_examples(target.texts(), check, examples=examples, seed=seed)
    except _Undocumented as bug:
        report.failing_input = bug.text
        report.error = bug.detail
    except Exception:
        # A failure Hypothesis could not reproduce (Flaky): report the shortest input that failed.
        if not found:
            raise
        shortest = min(found, key=lambda undocumented: len(undocumented.text))
        report.failing_input, report.error = shortest.text, shortest.detail
    return report
