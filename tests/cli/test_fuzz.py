"""`answerkey fuzz generate | roundtrip | self` (issue 7), with deliberately broken formatters
from tests/fixtures/formatters/ (each differs from examples/fuzz/rows_to_cas.py by one bug)."""

import contextlib
import json
import os
import pathlib
import re
import shlex
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from answerkey import parse
from answerkey.adapters.rows import FORMATS
from answerkey.cli import cli
from answerkey.limits import FUZZ_MAX_OUTPUT_BYTES
from answerkey.testing.fuzz import PARSERS, FuzzTarget, run_command

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
    # JSON Lines end lines with \n only (str.splitlines would also split at U+2028 in a string).
    records = [json.loads(line) for line in path.read_text().split("\n")[:-1]]
    assert [record["id"] for record in records] == [f"answer-{i:04d}" for i in range(1, 26)]
    assert {record["format"] for record in records} == {"cas"}
    for record in records:
        parse(record["answer"])


@pytest.mark.parametrize("format_name", ["jsonrows", "sparql-json", "csv", "cas"])
def test_generate_into_a_directory_writes_one_readable_file_per_answer(tmp_path, format_name):
    """A directory gets answer-0001.<suffix>... and each file reads back in its format."""
    out = tmp_path / "out"
    result = _invoke("generate", "-n", "12", "--seed", "2", "--format", format_name, "-o", f"{out}/")
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
    assert [json.loads(line)["id"] for line in result.stdout.split("\n")[:-1]] == [
        "answer-0001",
        "answer-0002",
        "answer-0003",
    ]


def test_the_cli_writes_nothing_into_dot_hypothesis(tmp_path):
    """Run as a user would, in a fresh directory: only the requested output appears."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from answerkey.cli import main; main()",
            "fuzz",
            "generate",
            "-n",
            "5",
            "-o",
            "out.jsonl",
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env={k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"},
    )
    assert sorted(os.listdir(tmp_path)) == ["out.jsonl"]


# --------------------------------------------------------------------------- roundtrip


def test_a_correct_formatter_passes():
    """The example formatter round-trips every relation: exit 0 and a one-line summary."""
    result = _invoke("roundtrip", "--cmd", _python(GOOD), "-n", "12", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"ok: 12 relations round-tripped through {_python(GOOD)} (")


def test_a_formatter_that_quotes_with_json_dumps_passes():
    """Strings quoted by json.dumps (surrogate pairs, \\b, \\f) round-trip (issue 16, item 10)."""
    formatter = _python(FORMATTERS / "json_dumps_quotes.py")
    result = _invoke("roundtrip", "--cmd", formatter, "-n", "60", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"ok: 60 relations round-tripped through {formatter} (")


def test_a_formatter_that_drops_a_column_is_caught_with_a_minimal_example():
    """The minimal failing relation has one tuple of two values; the output explains why."""
    result = _invoke(
        "roundtrip", "--cmd", _python(FORMATTERS / "drops_last_column.py"), "-n", "60", "--shrink-calls", "40"
    )
    assert result.exit_code == 1, result.output
    minimal = _minimal_relation(result.stdout)
    assert (len(minimal.rows), minimal.arity) == (1, 2)
    assert (
        "why it is wrong:\n  incorrect: the canonical answer has 2 columns; the system answer only 1\n" in result.stdout
    )
    assert "the command printed (exit status 0):\n" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("reproduce: answerkey fuzz roundtrip --cmd ")


def test_naive_quotes_differs_from_the_correct_formatter_only_on_double_quotes():
    """naive_quotes.py writes strings with backslashes, control characters and date shapes exactly
    as rows_to_cas.py does, and a string holding a double quote as text that is not CAS."""
    tricky = ["a\\b", "\u001f", "\n\t\r", "\u007f", "\u2028", "2020-01-01", "01-Jan-1999", "", "x y"]
    rows = json.dumps([[text] for text in tricky])
    printed = [
        subprocess.run([sys.executable, str(script)], input=rows, capture_output=True, text=True, check=True).stdout
        for script in (GOOD, FORMATTERS / "naive_quotes.py")
    ]
    assert printed[1] == printed[0]
    assert [row[0].text for row in parse(printed[1]).rows] == tricky
    quoted = subprocess.run(
        [sys.executable, str(FORMATTERS / "naive_quotes.py")],
        input='[["say \\"hi\\""]]',
        capture_output=True,
        text=True,
        check=True,
    )
    assert quoted.stdout == '(("say "hi""))\n'


def test_a_formatter_that_misquotes_strings_is_caught_with_a_minimal_example():
    """A formatter that leaves double quotes unescaped is caught, shrunk to the one-character
    string `"`, and shown with what it printed and the parse error."""
    command = _python(FORMATTERS / "naive_quotes.py")
    result = _invoke("roundtrip", "--cmd", command, "-n", "300", "--seed", "1")
    assert result.exit_code == 1, result.output
    first, report = result.stdout.split("\n", 1)
    assert re.fullmatch(rf"FAILED: {re.escape(command)} got relation \d+ wrong; shrunk in \d+ calls \(seed 1\)", first)
    assert report == (
        "minimal failing relation (CAS):\n"
        '  (("\\""))\n'
        "sent on stdin (jsonrows):\n"
        "  [\n"
        '    ["\\""]\n'
        "  ]\n"
        "the command printed (exit status 0):\n"
        '  (("""))\n'
        "why it is wrong:\n"
        "  its output is not a CAS answer:\n"
        "  <stdout>:1:5: expected whitespace or a parenthesis after the string\n"
        '  (("""))\n'
        "      ^\n"
        f"reproduce: answerkey fuzz roundtrip --cmd {shlex.quote(command)} -n 300 --seed 1 --input-format jsonrows\n"
    )


def test_a_formatter_that_rounds_reals_fails_on_tolerance():
    """Two-decimal rounding is outside epsilon for some real, and the explanation says so."""
    command = _python(FORMATTERS / "rounds_reals.py")
    result = _invoke("roundtrip", "--cmd", command, "-n", "60", "--shrink-calls", "30")
    assert result.exit_code == 1, result.output
    assert "numbers outside tolerance:" in result.stdout


def test_a_crashing_formatter_shows_its_exit_status_and_stderr():
    """A non-zero exit is a failure; its stderr is shown."""
    result = _invoke(
        "roundtrip", "--cmd", _python(FORMATTERS / "crashes_on_nil.py"), "-n", "40", "--shrink-calls", "20"
    )
    assert result.exit_code == 1, result.output
    assert _minimal_relation(result.stdout).rows == ((parse("NIL").rows[0][0],),)
    assert "the command printed (exit status 1):\n  (nothing)\non stderr:\n  Traceback" in result.stdout
    assert "ValueError: unexpected null" in result.stdout
    assert "why it is wrong:\n  it exited with status 1\n" in result.stdout


def test_invalid_utf8_output_is_a_failure():
    """Output that is not UTF-8 is reported as such, with the offending byte."""
    result = _invoke(
        "roundtrip", "--cmd", _python(FORMATTERS / "prints_invalid_utf8.py"), "-n", "40", "--shrink-calls", "0"
    )
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
    # Reaping by init is asynchronous; a child left alone would sleep for 600 s.
    alive = _gone_within([child], 60)
    _kill_all(alive)
    assert alive == []


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
    the SDMX, graphrag-eval and QATCH input files), and, since issue 19, the loaders that
    crashed: steps results and their aggregates, QATCH tests with surrogate escapes, SQL text."""
    assert list(PARSERS) == [
        "cas",
        "jsonrows",
        "csv",
        "sparql-json",
        "corpus-yaml",
        "corpus-jsonl",
        "answers-jsonl",
        "answers-yaml",
        "sdmx-cases",
        "steps-reference",
        "steps-responses",
        "steps-results",
        "steps-results-jsonl",
        "qatch-tests",
        "qatch-tests-sp",
        "qatch-tests-csv",
        "sql",
        "sql-db-id",
    ]


def test_a_parser_that_is_not_installed_is_skipped_with_a_message(monkeypatch):
    """A missing module is a skip line, not a crash, and not a failure."""
    monkeypatch.setitem(
        PARSERS,
        "future",
        FuzzTarget("a future parser", lambda text: None, lambda: None, ("answerkey.not_written_yet",)),
    )
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

    monkeypatch.setitem(PARSERS, "fragile", FuzzTarget("fragile", fragile, lambda: st.text("ab]", max_size=5)))
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
    args = (
        "roundtrip",
        "--cmd",
        _python(FORMATTERS / "crashes_on_nil.py"),
        "-n",
        "30",
        "--seed",
        "11",
        "--shrink-calls",
        "10",
    )
    first, second = _invoke(*args), _invoke(*args)
    assert first.exit_code == second.exit_code == 1
    assert first.stdout == second.stdout


CHOICES = "a .jsonl file, - (JSON Lines on standard output), or a directory (an existing one, or a path ending in /)"


@pytest.mark.parametrize("name", ["out.txt", "taken", "answers.json", "out"])
def test_generate_to_anything_but_jsonl_or_a_directory_is_trouble(tmp_path, name):
    """-o out.txt (or an existing file, or a name without /) is one line naming the choices,
    exit 2, and creates nothing (issue 15, defect 11: it used to create a directory)."""
    (tmp_path / "taken").write_text("kept")
    target = tmp_path / name
    result = _invoke("generate", "-n", "2", "-o", str(target))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"-o {target}: give {CHOICES}\n"
    assert sorted(os.listdir(tmp_path)) == ["taken"] and (tmp_path / "taken").read_text() == "kept"


def test_generate_into_a_new_directory_named_with_a_slash(tmp_path):
    """A path ending in / is a directory, created with its parents, one file per answer."""
    out = tmp_path / "new" / "answers"
    result = _invoke("generate", "-n", "3", "--format", "jsonrows", "-o", f"{out}/")
    assert result.exit_code == 0, result.output
    assert sorted(os.listdir(out)) == ["answer-0001.json", "answer-0002.json", "answer-0003.json"]


def test_generate_into_an_existing_directory_named_like_a_jsonl_file(tmp_path):
    """An existing directory is a directory, whatever its name ends in."""
    out = tmp_path / "odd.jsonl"
    out.mkdir()
    assert _invoke("generate", "-n", "2", "-o", str(out)).exit_code == 0
    assert sorted(os.listdir(out)) == ["answer-0001.cas", "answer-0002.cas"]


def test_generate_jsonl_in_a_missing_directory_is_one_line(tmp_path):
    """A .jsonl file in a directory that does not exist is refused before any work, in one line."""
    target = tmp_path / "missing" / "x.jsonl"
    result = _invoke("generate", "-n", "2", "-o", str(target))
    assert result.exit_code == 2
    assert result.stderr == f"-o {target}: no such directory {target.parent}\n"


def test_generate_below_a_file_is_one_line(tmp_path):
    """A directory path through an existing file cannot be created: one line, exit 2."""
    (tmp_path / "file").write_text("")
    target = tmp_path / "file" / "sub"
    result = _invoke("generate", "-n", "2", "-o", f"{target}/")
    assert result.exit_code == 2
    assert result.stderr == f"-o {target}/: cannot create the directory: Not a directory\n"


def test_generate_quiet_prints_nothing_but_what_was_asked(tmp_path):
    """-q: no note on stderr; with -o - the JSON Lines are all there is on stdout."""
    result = _invoke("generate", "-n", "2", "-q", "-o", str(tmp_path / "a.jsonl"))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    piped = _invoke("generate", "-n", "2", "-q", "-o", "-")
    assert piped.stderr == "" and piped.stdout.count("\n") == 2


def test_generate_keeps_the_mode_of_an_existing_jsonl_file(tmp_path):
    """Files are written through answerkey.files.write_output: an existing file keeps its mode."""
    target = tmp_path / "a.jsonl"
    target.write_text("old\n")
    target.chmod(0o600)
    assert _invoke("generate", "-n", "2", "-o", str(target)).exit_code == 0
    assert target.stat().st_mode & 0o777 == 0o600 and target.read_text() != "old\n"


def test_a_command_that_prints_without_end_is_killed_at_the_output_limit():
    """Output is bounded: past the limit the command is killed and only the limit is kept."""
    call = run_command(["yes"], "", timeout=30, max_output=1000)
    assert call.overflow and call.status is None
    assert call.stdout == b"y\n" * 500


def test_a_command_that_ignores_its_input_is_judged_on_its_output():
    """A command that exits without reading stdin (a closed pipe) is not an error by itself."""
    call = run_command(["echo", "((1))"], "[[1]]\n" * 100_000, timeout=30)
    assert (call.status, call.stdout, call.overflow) == (0, b"((1))\n", False)


def test_a_missing_function_skips_its_parser(monkeypatch):
    """A parser whose module lacks the function it names (renamed, say) is skipped, not a bug."""
    monkeypatch.setitem(
        PARSERS, "renamed", FuzzTarget("renamed", lambda text: None, lambda: None, ("answerkey.files:no_such_loader",))
    )
    result = _invoke("self", "--parser", "renamed")
    assert (result.exit_code, result.stdout) == (
        0,
        "renamed: skipped: answerkey.files.no_such_loader is not available\n",
    )


# --------------------------------------------------------------------------- options, --json, -q


@pytest.mark.parametrize(
    "option, value, wanted",
    [
        ("--timeout", "inf", "'inf' is not a number written in decimal digits (such as 0.001 or 1e-4)"),
        ("--timeout", "nan", "'nan' is not a number written in decimal digits (such as 0.001 or 1e-4)"),
        ("--timeout", "0", "must be a finite number > 0, not '0'"),
        ("--epsilon", "inf", "'inf' is not a number written in decimal digits (such as 0.001 or 1e-4)"),
        ("--epsilon", "1e400", "must be a finite number >= 0 and <= 1, not '1e400'"),
        ("--epsilon", "nan", "'nan' is not a number written in decimal digits (such as 0.001 or 1e-4)"),
        ("--epsilon", "-1", "must be a finite number >= 0 and <= 1, not '-1'"),
    ],
)
def test_roundtrip_refuses_numbers_that_are_not_finite(option, value, wanted):
    """--timeout inf|nan and --epsilon inf|1e400|nan are usage errors, exit 2, no traceback
    and nothing run (issue 15, defect 1: they were tracebacks)."""
    result = _invoke("roundtrip", "--cmd", "true", option, value)
    assert result.exit_code == 2 and result.stdout == ""
    shown = "'--epsilon' / '-e'" if option == "--epsilon" else "'--timeout'"
    assert result.stderr == (
        f"cli fuzz roundtrip: Invalid value for {shown}: {wanted} (see 'cli fuzz roundtrip --help')\n"
    )
    assert "Traceback" not in result.stderr


def test_roundtrip_json_reports_the_minimal_failure():
    """--json: one document with the outcome, the options, the minimal relation, what was sent,
    what came back, why it is wrong and how to reproduce it; exit 1."""
    command = _python(FORMATTERS / "crashes_on_nil.py")
    result = _invoke("roundtrip", "--cmd", command, "-n", "30", "--seed", "11", "--shrink-calls", "10", "--json", "-")
    assert result.exit_code == 1, result.output
    document = json.loads(result.stdout)
    failure = document.pop("failure")
    # How many relations and calls it takes depends on the Hypothesis version; the budget does not
    # (-n 30, 10 shrink calls, 10 more to drop tuples and columns; relations written alike are sent once).
    examples, calls = document.pop("examples"), document.pop("calls")
    assert 1 <= examples <= 30 and 1 <= calls <= 30 + 10 + 10, (examples, calls)
    assert document == {
        "command": command,
        "outcome": "failure",
        "seed": 11,
        "input_format": "jsonrows",
        "epsilon": 0.0001,
        "timeout": 10.0,
        "reproduce": f"answerkey fuzz roundtrip --cmd {shlex.quote(command)} -n 30 --seed 11 --input-format jsonrows",
    }
    assert failure.pop("stderr").endswith("ValueError: unexpected null\n")
    assert failure == {
        "relation": "((NIL))",
        "input": "[\n  [null]\n]\n",
        "output": "",
        "output_truncated": False,
        "ended": "exited",
        "exit_status": 1,
        "reason": "it exited with status 1",
    }


def test_roundtrip_json_of_a_pass():
    """--json of a passing run: outcome ok, no failure, nothing to reproduce; exit 0."""
    result = _invoke("roundtrip", "--cmd", _python(GOOD), "-n", "5", "--seed", "3", "--json", "-", "-q")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert (document["outcome"], document["examples"], document["failure"], document["reproduce"]) == (
        "ok",
        5,
        None,
        None,
    )


@pytest.mark.parametrize("formatter, code", [(GOOD, 0), (FORMATTERS / "crashes_on_nil.py", 1)])
def test_roundtrip_quiet_prints_nothing(formatter, code):
    """-q: nothing on stdout or stderr; the exit status tells the outcome."""
    result = _invoke("roundtrip", "--cmd", _python(formatter), "-n", "20", "--shrink-calls", "5", "-q")
    assert (result.exit_code, result.stdout, result.stderr) == (code, "", "")


def test_fuzz_self_json_lists_each_parsers_outcome(monkeypatch):
    """--json: each parser's outcome, examples, and for a bug the minimal input and the traceback."""
    from hypothesis import strategies as st

    def fragile(text: str) -> None:
        if "]" in text:
            raise KeyError("bracket")

    monkeypatch.setitem(PARSERS, "fragile", FuzzTarget("fragile", fragile, lambda: st.text("ab]", max_size=5)))
    result = _invoke("self", "--parser", "cas", "--parser", "fragile", "-n", "50", "--json", "-")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    cas, bug = document.pop("parsers")
    assert document == {"outcome": "bug", "seed": 0, "examples": 50, "bugs": 1}
    assert cas == {
        "name": "cas",
        "description": PARSERS["cas"].description,
        "outcome": "ok",
        "examples": 50,
        "skipped": None,
        "input": None,
        "error": None,
    }
    assert (bug["outcome"], bug["input"]) == ("bug", "]")
    assert bug["error"].endswith("KeyError: 'bracket'\n")


def test_fuzz_json_takes_a_path_as_every_command(tmp_path):
    """fuzz self --json OUT writes the document --json - prints and still shows the text
    report; --json without a path is a usage error naming the new form (exit 2)."""
    out = tmp_path / "fuzzed.json"
    result = _invoke("self", "--parser", "csv", "-n", "5", "--json", str(out))
    assert (result.exit_code, result.stdout) == (0, "csv: ok (5 inputs)\n")
    assert out.read_text(encoding="utf-8") == _invoke("self", "--parser", "csv", "-n", "5", "--json", "-").stdout
    assert json.loads(out.read_text(encoding="utf-8"))["outcome"] == "ok"
    old = _invoke("self", "--parser", "csv", "-n", "5", "--json")
    assert old.exit_code == 2
    assert old.stderr == (
        "cli fuzz self: --json needs a path now: --json OUT writes the JSON to OUT, --json - prints it "
        "(see 'cli fuzz self --help')\n"
    )


def test_fuzz_self_quiet_prints_nothing():
    """-q: no per-parser lines; the exit status tells the outcome."""
    result = _invoke("self", "--parser", "csv", "-n", "20", "-q")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


# --------------------------------------------------------------------------- what a formatter leaves behind


def _gone_within(pids, seconds: float) -> list[int]:
    """The pids still alive (not a zombie) after waiting up to ``seconds`` for them to go: a
    guard against a hang, for processes that, left alone, would live for 600 s."""
    deadline = time.monotonic() + seconds
    while (alive := [pid for pid in pids if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _kill_all(pids) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds processes through /proc (Linux)")


@needs_proc
@pytest.mark.parametrize("how", ["setsid", "setpgid", "double-fork"])
def test_run_command_kills_what_left_the_process_group(tmp_path, how):
    """A process the formatter starts in a new session (setsid), a new group (os.setpgid) or
    with a daemon's double fork is gone when the call returns; the call ends when the
    formatter exits, although the leftover still holds its stdout (issue 19, item 12): a call
    that waited for the leftover's copy of stdout would end at its time limit, killed (status
    None), not with the formatter's exit status."""
    pid_file = tmp_path / "pids"
    call = run_command(
        [sys.executable, str(FORMATTERS / "leaves_a_process.py"), how, str(pid_file)], "[[1]]", timeout=120
    )
    [pid] = map(int, pid_file.read_text().split())
    alive = _gone_within([pid], 60)
    _kill_all(alive)
    assert (call.status, call.stdout, call.overflow) == (0, b"((1))\n", False)
    assert alive == []


@needs_proc
@pytest.mark.parametrize("how", ["setsid", "setpgid", "double-fork"])
def test_roundtrip_leaves_no_process_behind(tmp_path, how):
    """`fuzz roundtrip` with a formatter that leaves a process out of its group on every call:
    it passes, and every one of those processes is gone after the run (left alone, each would
    sleep for 600 s)."""
    pid_file = tmp_path / "pids"
    command = f"{_python(FORMATTERS / 'leaves_a_process.py')} {how} {shlex.quote(str(pid_file))}"
    result = _invoke("roundtrip", "--cmd", command, "-n", "10", "--timeout", "20", "--json", "-")
    pids = [int(line) for line in pid_file.read_text().split()]
    alive = _gone_within(pids, 60)
    _kill_all(alive)
    assert result.exit_code == 0, result.output
    assert len(pids) == json.loads(result.stdout)["calls"] > 1
    assert alive == []


def test_a_formatter_printing_a_15_mb_unterminated_string_fails_in_bounded_memory(tmp_path):
    """A 15 MB unterminated string (under the 16 MiB output limit) is reported as not CAS,
    exit 1, in bounded memory, measured in a subprocess (issue 19, item 12: MemoryError at 5.9 GB)."""
    assert FUZZ_MAX_OUTPUT_BYTES > 15_000_000
    command = _python(FORMATTERS / "prints_a_long_string.py")
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # a regression fails, not the machine\n"
        "from answerkey.cli import cli\n"
        "try:\n"
        f"    cli.main(['fuzz', 'roundtrip', '--cmd', {command!r}, '-n', '1', '--shrink-calls', '0'],"
        " prog_name='answerkey')\n"
        "except SystemExit as end:\n"
        "    code = end.code\n"
        # VmHWM, this process's own peak: ru_maxrss keeps, across exec, the peak of the process
        # that started it (this test suite, once past 512 MB, made the child look as large).
        "status = open('/proc/self/status').read()\n"
        "peak = int(next(line for line in status.splitlines() if line.startswith('VmHWM:')).split()[1])\n"
        "print(f'exit {code} peak {peak}', file=sys.stderr)\n"
    )
    finished = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False
    )
    last = finished.stderr.splitlines()[-1] if finished.stderr else ""
    assert last.startswith("exit 1 peak "), finished.stderr[-3000:]
    peak_mb = int(last.split()[-1]) / 1024
    assert "its output is not a CAS answer:\n  <stdout>:1:3: unterminated string" in finished.stdout
    assert "the command printed (exit status 0, of which only the first 65,536 bytes were kept):" in finished.stdout
    assert peak_mb < 512, f"peak RSS {peak_mb:.0f} MB"


@pytest.mark.parametrize("quiet, drawn", [(False, True), (True, False)])
def test_roundtrip_draws_a_progress_bar_on_a_terminal_unless_quiet(monkeypatch, quiet, drawn, fake_terminal):
    """A long roundtrip shows `roundtrip [###...] N/N` on a terminal's stderr, cleared at the
    end; -q draws nothing."""
    from answerkey.cli import fuzz as fuzz_command
    from answerkey.testing.fuzz import RoundtripResult

    terminal = fake_terminal
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr("answerkey.progress.PROGRESS_THRESHOLD", 3)

    def fake_roundtrip(argv, *, examples, on_call, **options):
        for call in range(1, examples + 6):  # shrinking goes on past the examples
            on_call(call)
        return RoundtripResult(calls=examples + 5, examples=examples)

    monkeypatch.setattr(fuzz_command, "run_roundtrip", fake_roundtrip)
    with pytest.raises(SystemExit) as end:
        cli.main(["fuzz", "roundtrip", "--cmd", "true", "-n", "4", *(["-q"] if quiet else [])], prog_name="answerkey")
    assert end.value.code == 0
    assert ("roundtrip [" in terminal.text and "] 4/4" in terminal.text and "5/4" not in terminal.text) is drawn
    assert terminal.text.endswith("\r") is drawn  # cleared
