"""An LLM judge endpoint that cannot be reached is found once, before any row (issue 27,
item 1): one line and exit 2, not a warning and three attempts per row, then exit 0."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def closed_url(monkeypatch):
    """ANSWERKEY_JUDGE_URL set to a local port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    monkeypatch.setenv("ANSWERKEY_JUDGE_URL", url + "/v1")
    monkeypatch.delenv("ANSWERKEY_JUDGE_CACHE", raising=False)
    return url


def test_answers_with_an_unreachable_endpoint_is_one_line_and_exit_2(run_cli, closed_url, tmp_path):
    """Connection refused: one line naming the variable and the address; no output written."""
    output = tmp_path / "out.tsv"
    result = run_cli("answers", "-i", EXAMPLES / "answers/questions.tsv", "-o", output)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"the judge endpoint at ANSWERKEY_JUDGE_URL ({closed_url}) could not be reached: "
        "[Errno 111] Connection refused\n"
    )
    assert not output.exists()


def test_with_a_cache_the_rows_it_lacks_fail_at_once(run_cli, closed_url, tmp_path, monkeypatch):
    """Unreachable but with ANSWERKEY_JUDGE_CACHE: a warning, then no retries per row; no
    row judged, so exit 2."""
    monkeypatch.setenv("ANSWERKEY_JUDGE_CACHE", str(tmp_path / "cache"))
    result = run_cli("answers", "-i", EXAMPLES / "answers/questions.tsv", "-o", tmp_path / "out.tsv", "-q")
    lines = result.stderr.splitlines()
    assert result.exit_code == 2
    assert lines[0] == (
        f"warning: the judge endpoint at ANSWERKEY_JUDGE_URL ({closed_url}) could not be reached: "
        "[Errno 111] Connection refused; only the replies kept in ANSWERKEY_JUDGE_CACHE are used"
    )
    assert not [line for line in lines if "attempts)" in line]
    assert lines[-1] == "nothing evaluated: no row could be judged (see the warnings)"


def test_steps_answers_with_an_unreachable_endpoint_is_one_line(run_cli, closed_url):
    """steps evaluate --answers checks the same endpoint the same way."""
    result = run_cli(
        "steps", "evaluate", EXAMPLES / "steps/reference.yaml", EXAMPLES / "steps/responses.jsonl", "--answers"
    )
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"the judge endpoint at ANSWERKEY_JUDGE_URL ({closed_url}) could not be reached: "
        "[Errno 111] Connection refused\n"
    )
