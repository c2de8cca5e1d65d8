"""Options that take counts, tolerances and paths are bounded by what the machine and the
meaning allow: one usage line and exit 2, never a fork bomb, an OverflowError or a run for ever
(issue 30, items 2, 5 and 6)."""

import json
import os
from pathlib import Path

import pytest

from answerkey import limits

ROOT = Path(__file__).resolve().parents[2]
CORPUS = str(ROOT / "examples" / "personnel" / "corpus.yaml")
ANSWERS = str(ROOT / "examples" / "personnel" / "answers.jsonl")
SALARY = str(ROOT / "examples" / "paper" / "salary.cas")
SALARY_SYSTEM = str(ROOT / "examples" / "paper" / "salary-system.cas")
SPIDER = ROOT / "examples" / "sql" / "spider"
SQL = [str(SPIDER / "gold.sql"), str(SPIDER / "pred.sql"), "--db", str(SPIDER / "database")]


def test_the_bounds_follow_the_machine():
    """Four processes or threads per CPU; 1,000 timed runs; a tolerance of at most 100%."""
    assert limits.MAX_JOBS == limits.MAX_THREADS == 4 * (os.cpu_count() or 1)
    assert (limits.MAX_VES_RUNS, limits.MAX_EPSILON) == (1000, 1.0)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["score", CORPUS, ANSWERS, "-j", "100000"], f"100000 is not in the range 1<=x<={limits.MAX_JOBS}"),
        (
            ["score", CORPUS, ANSWERS, "-j", "4611686018427387904"],
            f"4611686018427387904 is not in the range 1<=x<={limits.MAX_JOBS}",
        ),
        ([*SQL, "-j", "100000"], f"100000 is not in the range 1<=x<={limits.MAX_JOBS}"),
        ([*SQL, "--executor", "dask", "-j", "100000"], f"100000 is not in the range 1<=x<={limits.MAX_JOBS}"),
        ([*SQL, "--threads", "100000"], f"100000 is not in the range 1<=x<={limits.MAX_THREADS}"),
        (
            [*SQL, "--ves-runs", "9223372036854775808", "--metrics", "valid_efficiency_score"],
            "9223372036854775808 is not in the range 1<=x<=1000",
        ),
        (
            ["judge", "--max-chars", "9223372036854775808", SALARY, SALARY_SYSTEM],
            f"9223372036854775808 is not in the range 1<=x<={limits.MAX_CAS_CHARS}",
        ),
    ],
)
def test_counts_beyond_their_bound_are_one_usage_line(run_cli, arguments, message):
    """A count past its bound is refused before anything starts: exit 2, one line naming the range."""
    if arguments[0].endswith("gold.sql"):
        arguments = ["sql", *arguments]
    result = run_cli(*arguments)
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert message in line and f" {arguments[0]}: Invalid value for " in line


@pytest.mark.parametrize("epsilon", ["1_0", "\u0661", "0x10", "inf", "nan", "½", "1e", " "])
def test_epsilon_is_written_in_decimal_digits(run_cli, epsilon):
    """float() reads 1_0 as 10 and Arabic-Indic digits as numbers: refused, with the form that is read."""
    result = run_cli("judge", "--epsilon", epsilon, SALARY, SALARY_SYSTEM)
    assert result.exit_code == 2
    assert "is not a number written in decimal digits (such as 0.001 or 1e-4)" in result.stderr


@pytest.mark.parametrize(("epsilon", "exit_code"), [("1e-4", 0), ("0.5", 0), ("+.25", 0), ("1", 0), ("2", 2)])
def test_epsilon_up_to_one(run_cli, epsilon, exit_code):
    """Plain decimals (an exponent too) up to 1 are read; 2, a tolerance of 200%, is refused."""
    result = run_cli("score", CORPUS, ANSWERS, "--epsilon", epsilon, "-q")
    assert result.exit_code == exit_code, result.stderr
    if exit_code == 2:
        assert "must be a finite number >= 0 and <= 1, not '2'" in result.stderr


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "--json: the path is empty; give a file name, or - for standard output"),
        ("{tmp}/nowhere/", "--json {tmp}/nowhere/: a directory's path (it ends in /); give a file name"),
        ("{tmp}/", "--json {tmp}/: a directory's path (it ends in /); give a file name"),
    ],
)
def test_an_empty_or_directory_path_is_refused(run_cli, tmp_path, path, message):
    """`--json ''` and `--json dir/` were accepted and exited 0; now one line, exit 2, nothing written."""
    result = run_cli("score", CORPUS, ANSWERS, "--json", path.format(tmp=tmp_path), "-q")
    assert (result.exit_code, result.stderr.strip()) == (2, message.format(tmp=tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_out_of_memory_is_one_line_not_a_traceback(run_cli, monkeypatch):
    """A MemoryError anywhere in a command (a huge input under a memory cap) is trouble: exit 2, one line."""
    from answerkey.cli import judge as judge_command

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(judge_command, "load_answer", exhausted)
    result = run_cli("judge", SALARY, SALARY_SYSTEM)
    assert result.exit_code == 2
    assert result.stderr == (
        "out of memory: the input needs more memory than this machine can give; "
        "split it, or lower the limits (--max-rows, --max-result-bytes, --jobs)\n"
    )


def test_input_errors_past_a_hundred_are_counted_not_printed(run_cli, tmp_path):
    """Every error is found and counted; the first 100 are printed, then one line for the rest."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"q{i}", "answer": "((1)"}) + "\n" for i in range(150)))
    result = run_cli("score", corpus, ANSWERS, "-q")
    lines = result.stderr.splitlines()
    assert result.exit_code == 2
    assert len(lines) == 102
    assert all(line.startswith(f"{corpus}:{number + 1}:") for number, line in enumerate(lines[:100]))
    assert lines[100:] == ["... and 50 more errors", "150 errors in input"]
