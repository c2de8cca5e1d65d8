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
    """Regression: the minimal input fuzz self found, a lone control character in a YAML file,
    is an InputError at line 1, column 1 (it used to escape as yaml.reader.ReaderError)."""
    with pytest.raises(InputError) as caught:
        PARSERS[name].check("\x1f")
    assert (caught.value.line, caught.value.column) == (1, 1)


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
