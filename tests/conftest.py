"""Shared test helpers, and the Hypothesis profiles: a fast default, CI's built-in `ci`
profile (loaded when CI is set), and a long `fuzz` profile selected with
--hypothesis-profile=fuzz.

Fixtures: ``run_cli(*args, input=None)`` runs the ``answerkey`` command in-process and
returns click's result (``exit_code``, ``stdout``, ``stderr``); ``write_file(name, text)``
writes a UTF-8 file under the test's tmp_path and returns its path as a string;
``repo_root`` is the checkout (``repo_root / "examples"`` holds the bundled examples);
``fake_terminal`` is a standard error that says it is a terminal and keeps what is written
(``.text``); ``within(seconds)`` is a context manager that fails the test instead of hanging;
``postgres_server`` is one throwaway PostgreSQL server for the whole session
(``tests/postgres_server.py``).
"""

import contextlib
import os
import signal
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

from answerkey.cli import cli

sys.path.insert(0, str(Path(__file__).resolve().parent))
from postgres_server import postgres_server  # noqa: F401  (a session fixture shared by every test directory)

settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile(
    "fuzz",
    max_examples=100_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
if not os.environ.get("CI"):
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo_root() -> Path:
    """The checkout's root directory."""
    return REPO_ROOT


@pytest.fixture
def run_cli():
    """Run `answerkey ARGS...` in-process (stdin from ``input``); exceptions propagate."""

    def invoke(*args, input=None):
        return CliRunner().invoke(cli, [str(arg) for arg in args], input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def write_file(tmp_path):
    """Write ``text`` to ``tmp_path / name`` (UTF-8) and return the path as a string."""

    def write(name, text):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


class FakeTerminal:
    """A standard error that says it is a terminal, and keeps what is written."""

    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass

    def isatty(self):
        return True


@pytest.fixture
def fake_terminal():
    return FakeTerminal()


@contextlib.contextmanager
def _within(seconds):
    # pytest's failure is no OSError, so no reader turns it into an input error.
    def expire(signum, frame):
        pytest.fail(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def within():
    return _within
