"""The `answerkey` command as a newcomer meets it (issue 27): a Ctrl-C at any instant is the
clean "interrupted", and every usage error is one line (in-process the command is called
`cli`, as CliRunner names it)."""

import signal
import subprocess
import sys
import time
import tomllib

import pytest

from answerkey.cli import COMMANDS, EXIT_INTERRUPTED


def test_console_script_is_the_entry_that_handles_ctrl_c_first(repo_root):
    """The installed `answerkey` runs the entry module whose handler is set before answerkey loads."""
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())
    assert project["project"]["scripts"] == {"answerkey": "_answerkey_entry:main"}
    assert "_answerkey_entry" in project["tool"]["setuptools"]["py-modules"]


# The console script's own code, marked by a "." on stdout before it imports the entry module:
# a Ctrl-C before that (Python starting, site importing the .pth files) is Python's to handle.
CONSOLE_SCRIPT = (
    "import sys; sys.argv[0] = 'answerkey'; sys.stdout.write('.'); sys.stdout.flush(); "
    "from _answerkey_entry import main; main()"
)


@pytest.mark.parametrize("delay", [0.01, 0.03, 0.06, 0.1, 0.2])
def test_ctrl_c_while_starting_is_interrupted_not_a_traceback(repo_root, delay):
    """SIGINT while the command is still loading (its first ~0.15 s) or waiting for stdin:
    "interrupted" and exit 130, never a traceback."""
    process = subprocess.Popen(
        [sys.executable, "-c", CONSOLE_SCRIPT, "judge", "examples/paper/salary.cas", "-"],
        cwd=repo_root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stdout.read(1) == b"."
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
        process.wait()
    text = stderr.decode()
    assert "Traceback" not in text
    assert (process.returncode, text.strip().splitlines()[-1]) == (EXIT_INTERRUPTED, "interrupted")


def test_bare_answerkey_prints_the_help_on_stdout_and_exits_0(run_cli):
    """`answerkey` alone asks what there is: the help, on standard output, exit 0 (as --help)."""
    result = run_cli()
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == run_cli("--help").stdout


def test_misspelt_command_gets_did_you_mean(run_cli):
    """`answerkey jugde`: one line naming the closest command, exit 2."""
    result = run_cli("jugde")
    assert (result.exit_code, result.stderr) == (
        2,
        "cli: No such command 'jugde'. Did you mean 'judge'? (see 'cli --help')\n",
    )


def test_missing_option_with_choices_is_one_line(run_cli, repo_root):
    """`qatch` without --task: the choices on the same line, exit 2."""
    result = run_cli("qatch", repo_root / "examples/qatch/qa-tests.csv")
    assert (result.exit_code, result.stderr) == (
        2,
        "cli qatch: Missing option '--task'. Choose from: qa, sp (see 'cli qatch --help')\n",
    )


def test_schema_without_a_name_is_one_line_naming_each_schema_once(run_cli):
    """`answerkey schema`: one line, the argument called NAME, each schema name once."""
    result = run_cli("schema")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("cli schema: Missing argument 'NAME'. Choose from: answers, answers-report, ")
    assert result.stderr.count("sql-corpus") == 1


def test_unknown_schema_is_one_line_naming_each_schema_once(run_cli):
    """`answerkey schema nosuch`: one line, each schema name once."""
    result = run_cli("schema", "nosuch")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("cli schema: Invalid value for 'NAME': 'nosuch' is not one of 'answers', ")
    assert result.stderr.count("sql-corpus") == 1


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_usage_error_is_one_line(run_cli, name):
    """An unknown option of each command: one line on stderr, exit 2."""
    result = run_cli(name, "--no-such-option")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1, result.stderr
