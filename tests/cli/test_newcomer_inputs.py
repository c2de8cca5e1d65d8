"""Input mistakes a newcomer makes get a message that says what to do (issue 27, items 7
and 8): a misspelt key in a record names the field meant; a CSV or TSV where JSONL or YAML
is read says so, for every command that reads such records."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SPIDER_DB = EXAMPLES / "sql" / "spider" / "database"


def test_misspelt_answer_key_names_the_field(run_cli, write_file):
    """score: {"id": "q01", "anwser": "3"} says which key was meant, at the record."""
    answers = write_file("a.jsonl", '{"id": "q01", "anwser": "3"}\n')
    result = run_cli("score", EXAMPLES / "personnel/corpus.yaml", answers)
    assert (result.exit_code, result.stderr) == (
        2,
        f"{answers}:1:1: answer: missing; this field is required (the record has 'anwser': did you mean 'answer'?)\n",
    )


def test_misspelt_prediction_key_names_the_field(run_cli, write_file):
    """sql: {"id": ..., "sqll": ...} says which key was meant, at the record."""
    corpus = write_file("c.jsonl", '{"id": "a", "db_id": "concert_singer", "sql": "SELECT 1"}\n')
    predictions = write_file("p.jsonl", '{"id": "a", "sqll": "SELECT 1"}\n')
    result = run_cli("sql", corpus, predictions, "--db", SPIDER_DB)
    assert (result.exit_code, result.stderr) == (
        2,
        f"{predictions}:1:1: sql: missing; this field is required (the record has 'sqll': did you mean 'sql'?)\n",
    )


def test_a_key_unlike_any_field_gets_no_guess(run_cli, write_file):
    """A missing field with no key close to it: the plain message."""
    answers = write_file("a.jsonl", '{"id": "q01", "zzz": "3"}\n')
    result = run_cli("score", EXAMPLES / "personnel/corpus.yaml", answers)
    assert result.stderr == f"{answers}:1:1: answer: missing; this field is required\n"


TABLE = "id,answer\nq01,3\nq02,4\n"


# A command reading JSONL/YAML records, and which of its arguments is the CSV/TSV file.
def commands(table: str):
    corpus, answers = EXAMPLES / "personnel/corpus.yaml", EXAMPLES / "personnel/answers.jsonl"
    return {
        "score ANSWERS": ("score", corpus, table),
        "score CORPUS": ("score", table, answers),
        "sql PREDICTIONS": ("sql", EXAMPLES / "sql/bird/dev.json", table, "--db", EXAMPLES / "sql/bird/dev_databases"),
        "sdmx SELECTIONS": ("sdmx", EXAMPLES / "sdmx/cases", table),
        "steps REFERENCE": ("steps", "evaluate", table, EXAMPLES / "steps/responses.jsonl"),
    }


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
@pytest.mark.parametrize("which", sorted(commands("")))
def test_a_csv_or_tsv_where_records_are_read_says_so(run_cli, tmp_path, which, suffix):
    """A .csv or .tsv file given for JSONL/YAML records: one line saying so, exit 2."""
    table = tmp_path / f"table{suffix}"
    table.write_text(TABLE if suffix == ".csv" else TABLE.replace(",", "\t"))
    result = run_cli(*commands(str(table))[which])
    assert (result.exit_code, result.stderr) == (2, f"{table}: CSV/TSV is not read here; use JSONL or YAML\n")


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_a_table_under_another_name_says_so_too(run_cli, tmp_path, delimiter):
    """A table named .txt (read as YAML: one long string) gets the same message, at line 1."""
    table = tmp_path / "answers.txt"
    table.write_text(TABLE.replace(",", delimiter))
    result = run_cli("score", EXAMPLES / "personnel/corpus.yaml", table)
    assert (result.exit_code, result.stderr) == (2, f"{table}:1:1: CSV/TSV is not read here; use JSONL or YAML\n")


def test_qatch_reads_tsv_as_it_reads_csv(run_cli, tmp_path):
    """qatch: a .tsv tests file is read, with the same scores as the CSV example."""
    rows = list(csv.reader((EXAMPLES / "qatch/qa-tests.csv").open(newline="")))
    tsv = tmp_path / "qa-tests.tsv"
    with tsv.open("w", newline="") as out:
        csv.writer(out, delimiter="\t").writerows(rows)
    from_csv = run_cli("qatch", EXAMPLES / "qatch/qa-tests.csv", "--task", "qa", "--json", "-")
    from_tsv = run_cli("qatch", tsv, "--task", "qa", "--json", "-")
    assert (from_tsv.exit_code, from_tsv.stderr) == (0, "")
    assert from_tsv.stdout.replace(str(tsv), "X") == from_csv.stdout.replace(str(EXAMPLES / "qatch/qa-tests.csv"), "X")
