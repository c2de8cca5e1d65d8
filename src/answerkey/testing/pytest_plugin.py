"""answerkey's pytest plugin, for the tests of a QA system (loaded by the ``pytest11`` entry
point once answerkey is installed; ``-p answerkey.testing.pytest_plugin`` loads it otherwise).

- ``assert_correct(canonical, system)`` (``answerkey.testing.assertions``) fails a test with the
  explanation ``answerkey judge --explain`` prints; ``assert_at_least(figure, threshold)`` fails
  it under a threshold.
- The ``answerkey_verdicts`` fixture is the session's ``VerdictLog``: tests record verdicts
  (``answerkey_verdicts.judge(canonical, system, name=...)``) without failing one by one, and
  ``--answerkey-fail-under FRACTION`` (or the ini option ``answerkey_fail_under``) fails the run,
  exit status 1, when their accuracy is below FRACTION or nothing was recorded. The terminal
  summary gives the accuracy and lists the incorrect answers.

A run that records nothing and sets no threshold is left as it is. The plugin imports no
optional package (pandas, openpyxl, Hypothesis...).
"""

from __future__ import annotations

import pytest

from answerkey.testing.assertions import VerdictLog, assert_at_least

_LOG = pytest.StashKey[VerdictLog]()
_OPTION = "answerkey_fail_under"


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 1:
        raise pytest.UsageError(f"--answerkey-fail-under must be a fraction from 0 to 1 (0.8 for 80%), not {text!r}")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("answerkey", "answerkey: judging the answers of a QA system")
    group.addoption(
        "--answerkey-fail-under",
        dest=_OPTION,
        metavar="FRACTION",
        default=None,
        help="fail the run (exit 1) when the accuracy of the verdicts recorded with the "
        "answerkey_verdicts fixture is below FRACTION (0.8 for 80%), or when none was recorded",
    )
    parser.addini(_OPTION, "default of --answerkey-fail-under", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_LOG] = VerdictLog()


def _threshold(config: pytest.Config) -> float | None:
    text = config.getoption(_OPTION) or config.getini(_OPTION)
    return _fraction(str(text)) if text not in (None, "") else None


@pytest.fixture(scope="session")
def answerkey_verdicts(pytestconfig: pytest.Config) -> VerdictLog:
    """The session's log of verdicts: ``answerkey_verdicts.judge(canonical, system, name=...)``
    records one; ``--answerkey-fail-under`` sets the accuracy the run needs."""
    return pytestconfig.stash[_LOG]


def _shortfall(config: pytest.Config) -> str | None:
    """Why the run fails its threshold, or None."""
    threshold = _threshold(config)
    log = config.stash.get(_LOG, None)
    if threshold is None or log is None:
        return None
    try:
        assert_at_least(log.accuracy, threshold, what="answerkey accuracy")
    except AssertionError as error:
        return f"{error} (--answerkey-fail-under)"
    return None


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if session.exitstatus == pytest.ExitCode.OK and _shortfall(session.config) is not None:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    log = config.stash.get(_LOG, None)
    shortfall = _shortfall(config)
    if log is None or (not log.answers and shortfall is None):
        return
    terminalreporter.section("answerkey")
    terminalreporter.write_line(log.summary())
    for answer in log.incorrect():
        terminalreporter.write_line(f"{answer.name}: {answer.verdict.label}: {answer.verdict.reason}")
    if shortfall is not None:
        terminalreporter.write_line(shortfall, red=True)
