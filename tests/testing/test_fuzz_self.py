"""`answerkey fuzz self` machinery: every registered parser survives fuzzed input.

Each parser gets PARSER_EXAMPLES inputs: 150 by default (locally and on CI), 10000 under the
`fuzz` Hypothesis profile, or ANSWERKEY_FUZZ_EXAMPLES / 10. The long CAS run is in
test_hardening_cas.py.
"""

import os

import pytest
from hypothesis import settings

from answerkey.errors import InputError
from answerkey.testing.fuzz import PARSERS, fuzz_parser
from answerkey.testing.parsers import HOSTILE_INPUTS, fuzz_databases
from answerkey.testing.runs import printable

if os.environ.get("ANSWERKEY_FUZZ_EXAMPLES"):
    PARSER_EXAMPLES = max(1, int(os.environ["ANSWERKEY_FUZZ_EXAMPLES"]) // 10)
else:
    PARSER_EXAMPLES = 10_000 if settings.default.max_examples >= 100_000 else 150

# Bugs `fuzz self` found in parsers and not fixed yet. Found and fixed so far: YAML ReaderError
# for control characters, ValueError for impossible YAML dates (both regression tests now).
KNOWN_BUGS: dict[str, str] = {}


@pytest.mark.parametrize("name", [name for name in PARSERS if name not in KNOWN_BUGS])
def test_parser_raises_only_documented_errors(name):
    """Valid, near-miss and random texts either parse (and round-trip) or raise InputError."""
    report = fuzz_parser(name, examples=PARSER_EXAMPLES, seed=0)
    assert report.skipped is None, report.skipped
    assert report.error is None, f"{report.failing_input!r}\n{report.error}"
    assert report.examples >= PARSER_EXAMPLES


@pytest.mark.parametrize("name", ["corpus-yaml", "answers-yaml", "sdmx-cases", "steps-reference"])
def test_control_character_in_yaml_is_a_located_input_error(name):
    """Regression: what fuzz self found, a control character in a YAML file, is an InputError
    at its line and column (it used to escape as yaml.reader.ReaderError)."""
    with pytest.raises(InputError) as caught:
        PARSERS[name].check("- \x1f\n")
    assert (caught.value.line, caught.value.column) == (1, 3)


@pytest.mark.parametrize("name", list(PARSERS)[:8])
def test_every_parser_checker_accepts_a_valid_text(name):
    """The checkers really call their parser: a valid document passes without error."""
    valid = {
        "cas": '((1 "a"))',
        "jsonrows": '[[1, "a"]]',
        "csv": "x,y\n1,a\n",
        "sparql-json": '{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "literal", "value": "a"}}]}}',
        "corpus-yaml": "- id: q1\n  answer: ((1))\n",
        "corpus-jsonl": '{"id": "q1", "answer": "((1))"}\n',
        "answers-jsonl": '{"id": "q1", "answer": "((1))"}\n',
        "answers-yaml": "q1: ((1))\n",
    }
    PARSERS[name].check(valid[name])


CRASHERS = [(name, text) for name, texts in HOSTILE_INPUTS.items() for text in texts]


@pytest.mark.parametrize(
    ("name", "text"), CRASHERS, ids=[f"{name}-{index}" for index, (name, _) in enumerate(CRASHERS)]
)
def test_each_known_hostile_input_is_refused_or_handled(name, text):
    """Each hostile input of the loaders that crashed (lone surrogate escapes, a number for
    actual_steps, infinite or 4,301-digit scores, a 300-character db_id, runaway or
    forbidden SQL) loads, or is refused with an InputError; SQL always gives a result."""
    try:
        PARSERS[name].check(text)
    except InputError:
        assert name not in ("sql", "sql-db-id"), "SQL must give a result, not raise"


def test_sql_outcomes_are_results_with_their_reasons():
    """A forbidden statement, a lone surrogate and an endless query are results with an error,
    on the fuzzer's own database; a plain query has rows."""
    from answerkey.adapters.sql import run_query

    database = fuzz_databases().database
    assert run_query(database, "DROP TABLE item").error == "not authorized"
    assert run_query(database, "SELECT '\ud800'").error is not None
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"
    assert run_query(database, endless, timeout=1.0, max_rows=1000).error == "the query returned more than 1000 rows"
    assert len(run_query(database, "SELECT name FROM item").rows) == 5


def test_printable_escapes_lone_surrogates_only():
    """Fuzzed text is printed with lone surrogates escaped, everything else as it is."""
    assert printable("é\ud800😀") == "é\\ud800😀"
