"""`answerkey fuzz generate | roundtrip | self` (issue 7), with deliberately broken formatters
from tests/fixtures/formatters/ (each differs from examples/fuzz/rows_to_cas.py by one bug)."""

import json
import os
import pathlib
import shlex
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from answerkey import parse
from answerkey.cli import cli
from answerkey.adapters.rows import FORMATS
from answerkey.testing.fuzz import PARSERS, _Target, run_command

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORMATTERS = ROOT / "tests" / "fixtures" / "formatters"
GOOD = ROOT / "examples" / "fuzz" / "rows_to_cas.py"


def _python(script: pathlib.Path) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["fuzz", *args])


def _minimal_relation(output: str):
    """The relation printed under 'minimal failing relation (CAS):'."""
    lines = output.splitlines()
    return parse(lines[lines.index("minimal failing relation (CAS):") + 1])


# --------------------------------------------------------------------------- generate


def test_generate_writes_the_same_answers_for_the_same_seed(tmp_path):
    """Same seed, same bytes; another seed, other answers."""
    first, second, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    for path, seed in ((first, "5"), (second, "5"), (other, "6")):
        result = _invoke("generate", "-n", "30", "--seed", seed, "-o", str(path))
        assert result.exit_code == 0, result.output
        assert result.stderr == f"wrote 30 cas answers to {path} (seed {seed})\n"
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()


def test_generate_jsonl_records_parse_as_cas(tmp_path):
    """Each JSONL line is {"id", "format", "answer"} and every answer is valid CAS."""
    path = tmp_path / "answers.jsonl"
    assert _invoke("generate", "-n", "25", "--seed", "1", "-o", str(path)).exit_code == 0
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [record["id"] for record in records] == [f"answer-{i:04d}" for i in range(1, 26)]
    assert {record["format"] for record in records} == {"cas"}
    for record in records:
        parse(record["answer"])


@pytest.mark.parametrize("format_name", ["jsonrows", "sparql-json", "csv", "cas"])
def test_generate_into_a_directory_writes_one_readable_file_per_answer(tmp_path, format_name):
    """A directory gets answer-0001.<suffix>... and each file reads back in its format."""
    out = tmp_path / "out"
    result = _invoke("generate", "-n", "12", "--seed", "2", "--format", format_name, "-o", str(out))
    assert result.exit_code == 0, result.output
    answer_format = FORMATS[format_name]
    names = sorted(os.listdir(out))
    assert names == [f"answer-{i:04d}{answer_format.suffix}" for i in range(1, 13)]
    for name in names:
        answer_format.read((out / name).read_text(), source=name)


def test_generate_to_stdout_prints_json_lines():
    """-o - prints the JSON Lines and nothing on stderr."""
    result = _invoke("generate", "-n", "3", "--format", "csv", "-o", "-")
    assert result.exit_code == 0 and result.stderr == ""
    assert [json.loads(line)["id"] for line in result.stdout.splitlines()] == ["answer-0001", "answer-0002",
                                                                              "answer-0003"]


def test_the_cli_writes_nothing_into_dot_hypothesis(tmp_path):
    """Run as a user would, in a fresh directory: only the requested output appears."""
    subprocess.run(
        [sys.executable, "-c", "from answerkey.cli import main; main()", "fuzz", "generate", "-n", "5", "-o",
         "out.jsonl"],
        cwd=tmp_path, check=True, capture_output=True, env={k: v for k, v in os.environ.items()
                                                             if k != "HYPOTHESIS_STORAGE_DIRECTORY"},
    )
    assert sorted(os.listdir(tmp_path)) == ["out.jsonl"]


# --------------------------------------------------------------------------- roundtrip


def test_a_correct_formatter_passes():
    """The example formatter round-trips every relation: exit 0 and a one-line summary."""
    result = _invoke("roundtrip", "--cmd", _python(GOOD), "-n", "12", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"ok: 12 relations round-tripped through {_python(GOOD)} (")


def test_a_formatter_that_drops_a_column_is_caught_with_a_minimal_example():
    """The minimal failing relation has one tuple of two values; the output explains why."""
    result = _invoke("roundtrip", "--cmd", _python(FORMATTERS / "drops_last_column.py"), "-n", "60",
                     "--shrink-calls", "40")
    assert result.exit_code == 1, result.output
    minimal = _minimal_relation(result.stdout)
    assert (len(minimal.rows), minimal.arity) == (1, 2)
    assert "why it is wrong:\n  incorrect: the canonical answer has 2 columns; the system answer only 1\n" in result.stdout
    assert "the command printed (exit status 0):\n" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("reproduce: answerkey fuzz roundtrip --cmd ")


def test_a_formatter_that_misquotes_strings_is_caught_with_a_minimal_example():
    """Strings with quotes, backslashes or control characters break unescaped quoting; the
    minimal relation is one string that needs escaping."""
    result = _invoke("roundtrip", "--cmd", _python(FORMATTERS / "naive_quotes.py"), "-n", "60",
                     "--shrink-calls", "30")
    assert result.exit_code == 1, result.output
    minimal = _minimal_relation(result.stdout)
    assert (len(minimal.rows), minimal.arity) == (1, 1)
    text = minimal.rows[0][0].text
    assert any(char in text for char in '"\\') or any(ord(char) < 32 or ord(char) == 127 for char in text)
    assert "its output is not a CAS answer:\n  <stdout>:1:" in result.stdout


def test_a_formatter_that_rounds_reals_fails_on_tolerance():
    """Two-decimal rounding is outside epsilon for some real, and the explanation says so."""
    command = _python(FORMATTERS / "rounds_reals.py")
    result = _invoke("roundtrip", "--cmd", command, "-n", "60", "--shrink-calls", "30")
    assert result.exit_code == 1, result.output
    assert "numbers outside tolerance:" in result.stdout


def test_a_crashing_formatter_shows_its_exit_status_and_stderr():
    """A non-zero exit is a failure; its stderr is shown."""
    result = _invoke("roundtrip", "--cmd", _python(FORMATTERS / "crashes_on_nil.py"), "-n", "40",
                     "--shrink-calls", "20")
    assert result.exit_code == 1, result.output
    assert _minimal_relation(result.stdout).rows == ((parse("NIL").rows[0][0],),)
    assert "the command printed (exit status 1):\n  (nothing)\non stderr:\n  Traceback" in result.stdout
    assert "ValueError: unexpected null" in result.stdout
    assert "why it is wrong:\n  it exited with status 1\n" in result.stdout


def test_invalid_utf8_output_is_a_failure():
    """Output that is not UTF-8 is reported as such, with the offending byte."""
    result = _invoke("roundtrip", "--cmd", _python(FORMATTERS / "prints_invalid_utf8.py"), "-n", "40",
                     "--shrink-calls", "0")
    assert result.exit_code == 1, result.output
    assert "its output is not UTF-8 (byte 0x" in result.stdout


@pytest.mark.parametrize(
    "input_format, sent",
    [("csv", "  (nothing)\n"), ("sparql-json", '  {\n   "head": {\n    "vars": []')],
)
def test_each_input_format_is_sent_as_documented(input_format, sent):
    """A command printing nothing fails on the first (empty) relation; the input shown is in the format."""
    result = _invoke("roundtrip", "--cmd", "true", "-n", "3", "--input-format", input_format)
    assert result.exit_code == 1, result.output
    assert f"sent on stdin ({input_format}):\n{sent}" in result.stdout
    assert "its output is not a CAS answer:\n  <stdout>:1:1: unexpected end of input" in result.stdout


def test_a_command_that_hangs_is_killed_after_the_timeout():
    """A timeout is a failure reported as such; the run ends."""
    result = _invoke("roundtrip", "--cmd", "sleep 30", "-n", "1", "--timeout", "0.2")
    assert result.exit_code == 1, result.output
    assert "the command printed (killed after the timeout):" in result.stdout
    assert "it did not finish within 0.2 s (killed)" in result.stdout


@pytest.mark.parametrize(
    "command, message",
    [
        ("no-such-formatter-xyz --flag", "--cmd: 'no-such-formatter-xyz' not found on PATH\n"),
        ("", "--cmd: empty command\n"),
        ("python 'unbalanced", "--cmd: No closing quotation\n"),
        ("./missing/formatter.py", "--cmd: cannot run './missing/formatter.py': No such file or directory\n"),
    ],
)
def test_a_command_that_cannot_run_is_trouble(command, message):
    """Exit 2 with a one-line message, no traceback."""
    result = _invoke("roundtrip", "--cmd", command, "-n", "2")
    assert result.exit_code == 2
    assert result.stderr == message


def test_the_whole_process_group_is_killed_on_timeout(tmp_path):
    """run_command kills the command and the child it started, and returns status None."""
    pid_file = tmp_path / "child.pid"
    call = run_command([sys.executable, str(FORMATTERS / "hangs_with_child.py"), str(pid_file)], "[]", timeout=1.0)
    assert call.status is None and call.error is None
    child = int(pid_file.read_text())
    for _ in range(100):  # reaping by init is asynchronous; wait until the child is gone
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


# --------------------------------------------------------------------------- self


def test_fuzz_self_on_the_cas_parser_passes():
    """The CAS parser survives fuzzed input: exit 0 and a count."""
    result = _invoke("self", "--parser", "cas", "-n", "150")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("cas: ok (")


def test_fuzz_self_lists_every_parser_the_issue_names():
    """CAS, corpus YAML/JSONL, SPARQL JSON and answer files are all fuzzed (plus the row formats and
    the SDMX, graphrag-eval and QATCH input files)."""
    assert list(PARSERS) == ["cas", "jsonrows", "csv", "sparql-json", "corpus-yaml", "corpus-jsonl",
                             "answers-jsonl", "answers-yaml", "sdmx-cases", "steps-reference", "steps-responses",
                             "qatch-tests"]


def test_a_parser_that_is_not_installed_is_skipped_with_a_message(monkeypatch):
    """A missing module is a skip line, not a crash, and not a failure."""
    monkeypatch.setitem(PARSERS, "future", _Target("a future parser", lambda text: None, lambda: None,
                                                    ("answerkey.not_written_yet",)))
    result = _invoke("self", "--parser", "future")
    assert result.exit_code == 0
    assert result.stdout == (
        "future: skipped: answerkey.not_written_yet is not available (No module named 'answerkey.not_written_yet')\n"
    )


def test_an_undocumented_exception_is_reported_with_the_minimal_input(monkeypatch):
    """A parser raising anything but InputError is a bug: exit 1, the shrunk input and the traceback."""
    from hypothesis import strategies as st

    def fragile(text: str) -> None:
        if "]" in text:
            raise KeyError("bracket")

    monkeypatch.setitem(PARSERS, "fragile", _Target("fragile", fragile, lambda: st.text("ab]", max_size=5)))
    result = _invoke("self", "--parser", "fragile", "-n", "200")
    assert result.exit_code == 1
    assert result.stdout.startswith("fragile: BUG: an undocumented exception after ")
    assert "minimal input: ']'\n" in result.stdout
    assert "KeyError: 'bracket'" in result.stdout


def test_unknown_parser_names_are_trouble():
    """--parser must name a registered parser."""
    result = _invoke("self", "--parser", "xml")
    assert result.exit_code == 2
    assert result.stderr.startswith("--parser: unknown xml (known: cas, jsonrows,")


def test_roundtrip_is_deterministic_for_a_seed():
    """Two runs with the same seed print the same report, byte for byte."""
    args = ("roundtrip", "--cmd", _python(FORMATTERS / "crashes_on_nil.py"), "-n", "30", "--seed", "11",
            "--shrink-calls", "10")
    first, second = _invoke(*args), _invoke(*args)
    assert first.exit_code == second.exit_code == 1
    assert first.stdout == second.stdout


def test_generate_into_a_path_that_is_a_file_is_trouble(tmp_path):
    """An output directory that exists as a file is a one-line error, exit 2."""
    target = tmp_path / "taken"
    target.write_text("")
    result = _invoke("generate", "-n", "2", "-o", str(target))
    assert result.exit_code == 2
    assert result.stderr == f"{target}: File exists\n"


def test_a_command_that_prints_without_end_is_killed_at_the_output_limit():
    """Output is bounded: past the limit the command is killed and only the limit is kept."""
    call = run_command(["yes"], "", timeout=30, max_output=1000)
    assert call.overflow and call.status is None
    assert call.stdout == b"y\n" * 500


def test_a_command_that_ignores_its_input_is_judged_on_its_output():
    """A command that exits without reading stdin (a closed pipe) is not an error by itself."""
    call = run_command(["echo", "((1))"], "[[1]]\n" * 100_000, timeout=30)
    assert (call.status, call.stdout, call.overflow) == (0, b"((1))\n", False)
