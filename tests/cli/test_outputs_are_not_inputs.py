"""No output of a run replaces anything the run reads: a database under --db, a file of an input
directory, a cache entry, reached directly, through a symbolic link, a hard link or `..`
(issue 30, item 1: `sql --json DIR/x/x.sqlite` replaced the database with the report)."""

import hashlib
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPIDER = ROOT / "examples" / "sql" / "spider"
QATCH = ROOT / "examples" / "qatch"


def _digest(directory):
    """Every file below ``directory`` with the SHA-256 of its bytes."""
    return {
        str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def databases(tmp_path):
    """A copy of the bundled Spider databases (concert_singer, pets_1)."""
    copy = tmp_path / "database"
    shutil.copytree(SPIDER / "database", copy)
    return copy


def _refused(result, option, path, name, directory):
    assert result.exit_code == 2, result.stderr
    assert result.stderr.strip() == (
        f"{option} {path}: this is inside the input {name} ({directory}); refusing to write there"
    )


@pytest.mark.parametrize("option", ["--json", "--yaml", "--xlsx", "--html"])
def test_a_database_under_db_is_never_a_report(run_cli, databases, option):
    """`sql --db DIR --json DIR/x/x.sqlite`: one line, exit 2, the database untouched."""
    before = _digest(databases)
    target = databases / "concert_singer" / "concert_singer.sqlite"
    result = run_cli("sql", SPIDER / "gold.sql", SPIDER / "pred.sql", "--db", databases, option, target)
    _refused(result, option, target, "--db", databases)
    assert _digest(databases) == before


@pytest.mark.parametrize("spelling", ["dots", "symlink", "hardlink"])
def test_the_database_through_dots_and_links(run_cli, databases, tmp_path, spelling):
    """The same database named through `..`, a symbolic link to the directory, or a hard link to the file."""
    before = _digest(databases)
    database = databases / "pets_1" / "pets_1.sqlite"
    if spelling == "dots":
        target = databases / "pets_1" / ".." / "pets_1" / "pets_1.sqlite"
    elif spelling == "symlink":
        (tmp_path / "link").symlink_to(databases)
        target = tmp_path / "link" / "pets_1" / "pets_1.sqlite"
    else:
        target = tmp_path / "report.json"
        os.link(database, target)
    result = run_cli("sql", SPIDER / "gold.sql", SPIDER / "pred.sql", "--db", databases, "--json", target)
    _refused(result, "--json", target, "--db", databases)
    assert _digest(databases) == before


def test_a_report_beside_the_databases_is_fine(run_cli, databases, tmp_path):
    """Outside the input directory a report is written as always."""
    result = run_cli(
        "sql", SPIDER / "gold.sql", SPIDER / "pred.sql", "--db", databases, "--json", tmp_path / "r.json", "-q"
    )
    assert result.exit_code in (0, 1), result.stderr
    assert json.loads((tmp_path / "r.json").read_text())["items"]


def test_a_cache_entry_is_never_a_report(run_cli, databases, tmp_path):
    """`--cache DIR` is read too: no report inside it."""
    cache = tmp_path / "cache"
    args = ["sql", SPIDER / "gold.sql", SPIDER / "pred.sql", "--db", databases, "--cache", cache, "-q"]
    assert run_cli(*args).exit_code in (0, 1)
    entry = sorted(cache.rglob("*.json"))[0]
    before = entry.read_bytes()
    result = run_cli(*args, "--json", entry)
    _refused(result, "--json", entry, "--cache", cache)
    assert entry.read_bytes() == before


def test_qatch_never_writes_over_a_database(run_cli, tmp_path):
    """`qatch --task sp --db DIR --json DIR/x/x.sqlite`."""
    databases = tmp_path / "databases"
    shutil.copytree(QATCH / "databases", databases)
    before = _digest(databases)
    target = next(databases.rglob("*.sqlite"))
    result = run_cli("qatch", QATCH / "sp-tests.jsonl", "--task", "sp", "--db", databases, "--json", target)
    _refused(result, "--json", target, "--db", databases)
    assert _digest(databases) == before


def test_score_never_writes_over_a_file_of_an_answers_directory(run_cli, tmp_path):
    """`score CORPUS ANSWERS_DIR/ --json ANSWERS_DIR/q01.cas` replaced an answer file."""
    answers = tmp_path / "answers"
    answers.mkdir()
    (answers / "q01.cas").write_text("((1))\n")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "q01", "answer": "((1))"}) + "\n")
    result = run_cli("score", corpus, answers, "--json", answers / "q01.cas")
    _refused(result, "--json", answers / "q01.cas", "ANSWERS", answers)
    assert (answers / "q01.cas").read_text() == "((1))\n"


def _load_stub_server():
    path = Path(__file__).resolve().parents[1] / "answers" / "stub_server.py"
    spec = importlib.util.spec_from_file_location("answers_stub_server", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_answers_never_writes_into_the_judges_cache(run_cli, tmp_path, monkeypatch):
    """`answers -o` inside ANSWERKEY_JUDGE_CACHE is refused before any request."""
    stub = _load_stub_server().StubServer()
    try:
        cache = tmp_path / "cache"
        cache.mkdir()
        questions = tmp_path / "in.tsv"
        questions.write_text("Question\tReference answer\tActual answer\nQ\tR\tA\n", encoding="utf-8")
        monkeypatch.setenv("ANSWERKEY_JUDGE_URL", stub.url)
        monkeypatch.setenv("ANSWERKEY_JUDGE_CACHE", str(cache))
        result = run_cli("answers", "-i", questions, "-o", cache / "ab" / "x.json")
        _refused(result, "-o", cache / "ab" / "x.json", "ANSWERKEY_JUDGE_CACHE", cache)
        assert stub.requests == []
    finally:
        stub.close()
