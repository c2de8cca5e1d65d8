"""Trying a few items first (issue 27): --limit, --ids and --tag, one definition for score,
sql and qatch (qatch's tests carry no tags: no --tag there); and the one rule of every
command: a run that evaluates nothing is trouble (exit 2, saying why)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SPIDER_DB = EXAMPLES / "sql" / "spider" / "database"

SQL_CORPUS = "".join(
    json.dumps({"id": item_id, "db_id": "concert_singer", "sql": "SELECT count(*) FROM singer", "tags": tags}) + "\n"
    for item_id, tags in (("s1", ["easy"]), ("s2", ["hard"]), ("s3", ["easy", "join"]))
)
SQL_PREDICTIONS = "".join(
    json.dumps({"id": item_id, "sql": "SELECT count(*) FROM singer"}) + "\n" for item_id in ("s1", "s2", "s3")
)


def score_args(tmp_path):
    return ["score", EXAMPLES / "personnel/corpus.yaml", EXAMPLES / "personnel/answers.jsonl"]


def sql_args(tmp_path):
    (tmp_path / "corpus.jsonl").write_text(SQL_CORPUS)
    (tmp_path / "pred.jsonl").write_text(SQL_PREDICTIONS)
    return ["sql", tmp_path / "corpus.jsonl", tmp_path / "pred.jsonl", "--db", SPIDER_DB, "--metrics", "none"]


def qatch_args(tmp_path):
    return ["qatch", EXAMPLES / "qatch/sp-tests.jsonl", "--task", "sp", "--db", EXAMPLES / "qatch/databases"]


# Each command: its arguments, the ids of its report's items, and an id and tag it has.
COMMANDS = {
    "score": (score_args, lambda report: [item["id"] for item in report["items"]], "q03", "yes-no"),
    "sql": (sql_args, lambda report: [item["id"] for item in report["items"]], "s2", "easy"),
    "qatch": (qatch_args, lambda report: [test["id"] for test in report["tests"]], "mean-population", None),
}


def run(run_cli, tmp_path, name, *options):
    make_args, ids_of, _, _ = COMMANDS[name]
    result = run_cli(*make_args(tmp_path), "--json", "-", *options)
    return result, (ids_of(json.loads(result.stdout)) if result.exit_code in (0, 1) else None)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_limit_runs_the_first_items(run_cli, tmp_path, name):
    """--limit 2: the first two items of the input, in its order."""
    _, every = run(run_cli, tmp_path, name)
    result, ids = run(run_cli, tmp_path, name, "--limit", "2")
    assert result.exit_code == 0, result.stderr
    assert ids == every[:2]
    assert len(every) > 2


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_ids_run_those_items_in_input_order(run_cli, tmp_path, name):
    """--ids with the first item and another, the other named first: both, in input order."""
    _, every = run(run_cli, tmp_path, name)
    other = COMMANDS[name][2]
    result, ids = run(run_cli, tmp_path, name, "--ids", f"{other},{every[0]}")
    assert result.exit_code == 0, result.stderr
    assert ids == [every[0], other]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_unknown_id_is_trouble_before_anything_runs(run_cli, tmp_path, name):
    """--ids with a misspelt id: one line with the closest id, exit 2, nothing on stdout."""
    other = COMMANDS[name][2]
    result, _ = run(run_cli, tmp_path, name, "--ids", other + "x")
    what = "test" if name == "qatch" else "item"
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == f"--ids: no {what} has id '{other}x' (did you mean '{other}'?)"


@pytest.mark.parametrize("name", ["score", "sql"])
def test_tag_runs_the_items_with_it_and_then_the_limit(run_cli, tmp_path, name):
    """--tag T --limit 1: the first item carrying T."""
    tag = COMMANDS[name][3]
    _, every = run(run_cli, tmp_path, name)
    result, ids = run(run_cli, tmp_path, name, "--tag", tag, "--limit", "1")
    assert result.exit_code == 0, result.stderr
    expected = {"score": "q02", "sql": "s1"}[name]
    assert ids == [expected]
    assert len(every) > 2


def test_qatch_has_no_tag_option(run_cli):
    """QATCH's tests carry no tags: --tag is not offered (a usage error)."""
    result = run_cli(*qatch_args(None), "--tag", "x")
    assert result.exit_code == 2
    assert "No such option '--tag'" in result.stderr


@pytest.mark.parametrize("name", ["score", "sql", "sdmx"])
def test_a_tag_no_item_has_is_nothing_evaluated(run_cli, tmp_path, name):
    """--tag nosuchtag: nothing to evaluate, so exit 2 saying why, as for every command."""
    if name == "sdmx":
        result = run_cli("sdmx", EXAMPLES / "sdmx/cases", EXAMPLES / "sdmx/selections.jsonl", "--tag", "nosuchtag")
        what = "case"
    else:
        result, _ = run(run_cli, tmp_path, name, "--tag", "nosuchtag")
        what = "item"
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == f"nothing evaluated: no {what} has the tag 'nosuchtag'"


def test_score_of_only_category_x_items_is_nothing_evaluated(run_cli, write_file):
    """Every item category X (listed, not scored): exit 2 saying so."""
    corpus = write_file("c.yaml", "- {id: q1, answer: '1', category: X}\n- {id: q2, answer: '2', category: X}\n")
    answers = write_file("a.jsonl", '{"id": "q1", "answer": "1"}\n')
    result = run_cli("score", corpus, answers, "-q")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "nothing evaluated: every item is category X (listed, not scored)"


@pytest.mark.parametrize("name", ["score", "sql", "qatch"])
def test_help_documents_the_selection(run_cli, name):
    """Each command's --help names --limit and --ids (and --tag where items have tags)."""
    text = run_cli(name, "--help").stdout
    assert "--limit N" in text
    assert "--ids ID[,ID...]" in text
    assert ("--tag TAG" in text) == (name != "qatch")
