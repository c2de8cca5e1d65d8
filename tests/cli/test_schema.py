"""`answerkey schema NAME`: a whole-file JSON Schema for every input and report format, and the
reports and bundled examples validate against them."""

import json
import sys

import jsonschema
import pytest
import yaml

from answerkey.cli.schema import SCHEMAS, json_schema

EXAMPLES = ("examples/personnel/corpus.yaml", "examples/personnel/answers.jsonl")


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_schema_prints_with_its_identity(run_cli, name):
    """Each registered format prints a valid JSON Schema naming its dialect and itself."""
    result = run_cli("schema", name)
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"urn:answerkey:schema:{name}"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_the_bundled_corpus_and_answers_are_valid_files(repo_root):
    """The personnel example, read whole, satisfies the corpus and answers schemas."""
    corpus = yaml.safe_load((repo_root / EXAMPLES[0]).read_text())
    jsonschema.validate(corpus, json_schema("corpus"))
    answers = [json.loads(line) for line in (repo_root / EXAMPLES[1]).read_text().splitlines() if line.strip()]
    jsonschema.validate(answers, json_schema("answers"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"id": "q1", "anwser": "1"}], json_schema("corpus"))


def test_score_judge_and_check_reports_validate(run_cli, repo_root, write_file, monkeypatch):
    """The JSON that score, judge and check print satisfies their report schemas."""
    monkeypatch.chdir(repo_root)
    report = json.loads(run_cli("score", *EXAMPLES, "--json", "-").stdout)
    jsonschema.validate(report, json_schema("score-report"))
    canonical, system = "examples/paper/salary.cas", write_file("s.cas", "((53190.9 2))")
    for options in ([], ["--explain"]):
        verdict = json.loads(run_cli("judge", "--json", "-", *options, canonical, system).stdout)
        jsonschema.validate(verdict, json_schema("judge-report"))
    checked = run_cli("check", "--json", "-", canonical, write_file("bad.cas", "((1"))
    assert checked.exit_code == 2
    jsonschema.validate(json.loads(checked.stdout), json_schema("check-report"))


def test_check_json_says_where_each_file_is_wrong(run_cli, write_file):
    """check --json: one entry per file, with the line, column and message of an error."""
    good, bad = write_file("good.cas", "((1))"), write_file("bad.cas", "((1)\n (2 3))")
    result = run_cli("check", "--json", "-", good, bad)
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {
        "files": [
            {"file": good, "ok": True, "line": None, "column": None, "message": None},
            {
                "file": bad,
                "ok": False,
                "line": 2,
                "column": 2,
                "message": "tuple 2 has 2 values; the relation's tuples have 1",
            },
        ],
        "valid": 1,
        "invalid": 1,
    }
    assert result.stderr == ""


def test_fuzz_reports_validate(run_cli, repo_root, write_file, monkeypatch):
    """fuzz roundtrip --json (a pass and a failure), fuzz self --json and fuzz generate's .jsonl
    satisfy their schemas."""
    monkeypatch.chdir(repo_root)
    for formatter, code in (("examples/fuzz/rows_to_cas.py", 0), ("tests/fixtures/formatters/drops_last_column.py", 1)):
        result = run_cli("fuzz", "roundtrip", "--cmd", f"{sys.executable} {formatter}", "-n", "20", "--json", "-", "-q")
        assert result.exit_code == code
        jsonschema.validate(json.loads(result.stdout), json_schema("fuzz-roundtrip-report"))
    result = run_cli("fuzz", "self", "-n", "5", "--parser", "cas", "--json", "-", "-q")
    jsonschema.validate(json.loads(result.stdout), json_schema("fuzz-self-report"))
    generated = run_cli("fuzz", "generate", "-n", "3", "-o", "-")
    records = [json.loads(line) for line in generated.stdout.splitlines()]
    jsonschema.validate(records, json_schema("fuzz-answers"))
