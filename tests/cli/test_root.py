"""The `answerkey` command itself: how it starts, helps, reports trouble, stops and warns,
the same way for every subcommand."""

import json
import os
import signal
import struct
import subprocess
import sys
import time

import pytest

from answerkey.cli import COMMANDS, EXIT_INTERRUPTED


def test_python_dash_m_runs_the_command(repo_root):
    """`python -m answerkey` is the same command as `answerkey`."""
    result = subprocess.run(
        [sys.executable, "-m", "answerkey", "judge", "examples/paper/salary.cas", "examples/paper/salary-system.cas"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout) == (0, "correct\n")


def test_help_lists_every_command_with_its_whole_description(run_cli):
    """`answerkey --help` names each registered command with its one-line help, not cut short."""
    result = run_cli("--help")
    assert result.exit_code == 0
    for name, (_, description) in COMMANDS.items():
        assert f"{name}  " in result.stdout
        assert " ".join(description.split()) in " ".join(result.stdout.split())
    commands = result.stdout.split("Commands:")[1]
    assert "..." not in commands


def test_every_command_has_help_with_examples(run_cli):
    """Each command's --help teaches: it has an Examples section and states its exit status."""
    for name in COMMANDS:
        result = run_cli(name, "--help")
        assert result.exit_code == 0, name
        assert "Example" in result.stdout, name


def _unread_bytes(pipe) -> int:
    """How many bytes written to ``pipe`` the process at its other end has not read yet."""
    import fcntl  # POSIX only, like the test that asks
    import termios

    return struct.unpack("i", fcntl.ioctl(pipe.fileno(), termios.FIONREAD, b"\0" * 4))[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="asks the pipe what is unread (FIONREAD on Linux)")
def test_ctrl_c_exits_130(repo_root, tmp_path):
    """An interrupted command says so on stderr and exits 130, not 1 (which reads as 'incorrect')."""
    process = subprocess.Popen(
        [sys.executable, "-m", "answerkey", "judge", "examples/paper/salary.cas", "-"],
        cwd=repo_root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # The start of a system answer: once the command has read it, it is inside the
        # command, reading the rest of the answer from stdin (it reads to the end).
        process.stdin.write(b"5")
        process.stdin.flush()
        deadline = time.monotonic() + 120  # a guard against a hang, not a measure
        while _unread_bytes(process.stdin) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert (_unread_bytes(process.stdin), process.poll()) == (0, None), "it never read its stdin"
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == EXIT_INTERRUPTED
    assert stderr.decode().strip().endswith("interrupted")


def test_judge_quiet_prints_nothing_but_exits_with_the_verdict(run_cli, write_file):
    """-q: the exit status alone tells correct (0) from incorrect (1)."""
    canonical = write_file("c.cas", "53200.0")
    assert (run_cli("judge", "-q", canonical, write_file("s.cas", "53198.8")).stdout, 0) == ("", 0)
    result = run_cli("judge", "-q", canonical, write_file("t.cas", "1"))
    assert (result.exit_code, result.stdout) == (1, "")


def test_repeated_warnings_are_capped_with_a_count_and_a_hint(run_cli, write_file):
    """Answers keyed by case-shifted ids: five warnings, then a count, then what likely went
    wrong; the JSON report keeps all of them."""
    corpus = write_file("c.yaml", "".join(f"- {{id: q{index}, answer: 1}}\n" for index in range(2000)))
    answers = write_file("a.jsonl", "".join(f'{{"id": "Q{index}", "answer": "1"}}\n' for index in range(2000)))
    result = run_cli("score", corpus, answers, "--metrics", "none", "--json", "-")
    lines = result.stderr.splitlines()
    assert [line.split(": answer for id")[0].rsplit(":", 1)[-1] for line in lines[:5]] == ["1", "2", "3", "4", "5"]
    assert lines[5] == "warning: ... and 1,995 more warnings like these (all are in the reports)"
    assert lines[6] == (
        "warning: 2,000 answer ids of 2,000 not in the corpus match a corpus id but for case "
        "(e.g. 'Q0'); ids are compared exactly"
    )
    assert len(lines) == 7
    assert len(json.loads(result.stdout)["warnings"]) == 2001


def test_an_output_that_is_an_input_is_refused_before_anything_runs(run_cli, write_file):
    """`--json ANSWERS` would overwrite the answers: exit 2, one line, the file untouched."""
    corpus = write_file("c.yaml", "- {id: q1, answer: 1}\n")
    answers = write_file("a.jsonl", '{"id": "q1", "answer": "1"}\n')
    result = run_cli("score", corpus, answers, "--json", answers)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"--json {answers}: this is the input ANSWERS; refusing to overwrite it\n"
    with open(answers, encoding="utf-8") as handle:
        assert handle.read() == '{"id": "q1", "answer": "1"}\n'


def test_report_to_dev_null_leaves_the_device_alone(run_cli, repo_root):
    """Writing a report to /dev/null discards it; /dev/null stays a character device."""
    os.chdir(repo_root)
    result = run_cli(
        "score",
        "examples/personnel/corpus.yaml",
        "examples/personnel/answers.jsonl",
        "-q",
        "--json",
        "/dev/null",
        "--xlsx",
        "/dev/null",
    )
    assert result.exit_code == 0
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
