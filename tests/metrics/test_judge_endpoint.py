"""The LLM judge's endpoint as an adversary: redirects that would carry the API key elsewhere,
replies trickled or padded with ``100 Continue`` past the time-out, lone surrogates in a reply
(against real servers on 127.0.0.1)."""

import importlib.util
import json
import os
import socket
import sys
import threading
from pathlib import Path

import pytest

from answerkey.metrics.answers import AnswerJudge, Correctness


def _load_stub_server():
    path = Path(__file__).resolve().parents[1] / "answers" / "stub_server.py"
    spec = importlib.util.spec_from_file_location("answers_stub_server", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


stub_server = _load_stub_server()
KEY = "sk-test-secret"


@pytest.fixture
def two_servers():
    """The configured endpoint and another one on another port that a redirect points to."""
    endpoint, elsewhere = stub_server.StubServer(), stub_server.StubServer()
    yield endpoint, elsewhere
    endpoint.close()
    elsewhere.close()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(two_servers, status):
    """A redirect to another port is the row's error naming where it points; the other server
    receives no request at all (urllib would re-send the Authorization header there)."""
    endpoint, elsewhere = two_servers
    origin = elsewhere.url.removesuffix("/v1")
    endpoint.default = stub_server.Reply(b"", status=status, headers={"Location": f"{elsewhere.url}/chat/completions"})
    judge = AnswerJudge(url=endpoint.url, api_key=KEY, timeout=5, retries=2)
    assert judge.relevance("Q", "A") == {
        "answer_relevance_error": f"the judge endpoint answered HTTP {status}, a redirect to {origin};"
        " answerkey follows no redirect: set ANSWERKEY_JUDGE_URL to the address it points to"
    }
    assert elsewhere.requests == []
    assert len(endpoint.requests) == 1  # not a failure that may pass: asked once
    assert endpoint.requests[0][1]["Authorization"] == f"Bearer {KEY}"


def test_a_redirect_to_the_same_origin_is_not_followed_either(two_servers):
    """Even to the same host and port (the key would be safe, but a POST turned into a GET is not a
    chat completion): one request, and the error says where it points without its path or query."""
    endpoint, _ = two_servers
    endpoint.default = stub_server.Reply(b"", status=302, headers={"Location": "/v2/chat?token=abc"})
    judge = AnswerJudge(url=endpoint.url, timeout=5, retries=0)
    error = judge.relevance("Q", "A")["answer_relevance_error"]
    assert error == (
        "the judge endpoint answered HTTP 302, a redirect;"
        " answerkey follows no redirect: set ANSWERKEY_JUDGE_URL to the address it points to"
    )
    assert len(endpoint.requests) == 1


def test_the_answers_command_sends_the_key_to_the_configured_origin_only(two_servers, tmp_path, monkeypatch, run_cli):
    """``answerkey answers`` against an endpoint that redirects every request: each row keeps the
    redirect error, and the other server never sees a request (so never the key)."""
    endpoint, elsewhere = two_servers
    endpoint.default = stub_server.Reply(b"", status=301, headers={"Location": elsewhere.url})
    questions = tmp_path / "questions.tsv"
    questions.write_text("Question\tReference answer\tActual answer\nQ1\tR1\tA1\nQ2\tR2\tA2\n", encoding="utf-8")
    monkeypatch.setenv("ANSWERKEY_JUDGE_URL", endpoint.url)
    monkeypatch.setenv("ANSWERKEY_JUDGE_API_KEY", KEY)
    result = run_cli("answers", "-i", questions, "-o", tmp_path / "out.tsv")
    assert elsewhere.requests == []
    assert "HTTP 301, a redirect to" in result.stderr
    assert KEY not in result.stderr + result.stdout


class _RawServer:
    """A TCP server on 127.0.0.1 that answers every connection by calling ``respond(connection,
    stop)`` in a thread; ``stop`` is set when the server closes, so a slow responder ends."""

    def __init__(self, respond):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.stop = threading.Event()
        self.ended = threading.Event()  # set when a responder finds its client gone
        self.respond = respond
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection):
        with connection:
            _read_request(connection)
            try:
                self.respond(connection, self.stop)
            except OSError:
                self.ended.set()

    def close(self):
        self.stop.set()
        self.listener.close()


def _read_request(connection):
    """Read one whole HTTP request (closing with unread bytes would reset the connection)."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += connection.recv(65536)
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += connection.recv(65536)


COMPLETION = b'{"choices": [{"message": {"role": "assistant", "content": "0.5"}}]}'


def _trickle(chunks, pause):
    """A responder that sends ``chunks`` one by one, ``pause`` seconds apart (each pause well
    within the judge's time-out, the whole far beyond it)."""

    def respond(connection, stop):
        for chunk in chunks:
            connection.sendall(chunk)
            if stop.wait(pause):
                return
        raise OSError("all sent")  # counted as ended too: the test asserts which

    return respond


HEADERS = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(COMPLETION)


@pytest.mark.parametrize(
    "chunks",
    [
        # The status line and headers one byte at a time: 30 s at 0.1 s a byte.
        pytest.param([bytes([byte]) for byte in HEADERS * 4][:300], id="headers"),
        # A whole header, then the body one byte at a time.
        pytest.param([HEADERS] + [bytes([byte]) for byte in COMPLETION * 5][:300], id="body"),
        # 100 Continue, again and again (http.client skips each and reads the next status line).
        pytest.param([b"HTTP/1.1 100 Continue\r\n\r\n"] * 300, id="continue"),
    ],
)
def test_one_deadline_holds_for_the_whole_reply(chunks):
    """A reply that would take 30 s, each piece arriving well within the 1 s time-out, is
    stopped at the time-out as the whole request's: the error says the endpoint did not answer
    in time, and the server sees its client go before it has sent everything."""
    server = _RawServer(_trickle(chunks, pause=0.1))
    try:
        judge = AnswerJudge(url=server.url, timeout=1, retries=0)
        assert judge.relevance("Q", "A") == {
            "answer_relevance_error": "the judge endpoint did not answer within 1 seconds"
        }
        assert server.ended.wait(30)
    finally:
        server.close()


def test_a_reply_sent_whole_within_the_time_out_is_read():
    """The deadline does not cut a reply that arrives in time (a few pieces, quickly)."""
    server = _RawServer(_trickle([HEADERS[:10], HEADERS[10:], COMPLETION[:5], COMPLETION[5:]], pause=0.01))
    try:
        assert AnswerJudge(url=server.url, timeout=20, retries=0).relevance("Q", "A") == {"answer_relevance": 0.5}
    finally:
        server.close()


@pytest.fixture
def stub():
    server = stub_server.StubServer()
    yield server
    server.close()


def test_a_lone_surrogate_in_a_reply_becomes_a_replacement_character(stub):
    """JSON can spell a lone surrogate (``\\ud800``), which UTF-8 cannot encode: the reply keeps
    U+FFFD in its place, so the reason can be written to any file or terminal."""
    stub.default = stub_server.Reply("2\t2\t2\tsame claims \ud800 here")
    judgement = AnswerJudge(url=stub.url, timeout=5, retries=0).judge_correctness("Q", "R", "A")
    assert judgement == Correctness(2, 2, 2, "same claims \ufffd here")
    judgement.reason.encode("utf-8")


def test_the_answers_command_writes_a_reply_with_a_lone_surrogate(stub, tmp_path, monkeypatch, run_cli):
    """End to end: the output TSV and the JSON report are written, exit 0, no traceback."""
    stub.default = stub_server.Reply("2\t2\t2\tsame \udfff claims")
    questions = tmp_path / "questions.tsv"
    questions.write_text("Question\tReference answer\tActual answer\nQ1\tR1\tA1\n", encoding="utf-8")
    monkeypatch.setenv("ANSWERKEY_JUDGE_URL", stub.url)
    out, report = tmp_path / "out.tsv", tmp_path / "report.json"
    result = run_cli("answers", "-i", questions, "-o", out, "--json", report)
    assert result.exit_code == 0, result.stderr
    assert "same \ufffd claims" in out.read_text(encoding="utf-8")
    assert (
        json.loads(report.read_text(encoding="utf-8"))["rows"][0]["answer_correctness_reason"] == "same \ufffd claims"
    )


def test_a_fifo_in_the_judges_cache_is_asked_again_not_waited_on(stub, tmp_path):
    """An entry replaced by a FIFO would block the run on open: it is passed over, the prompt asked
    again, and the FIFO replaced by a real entry."""
    judge = AnswerJudge(url=stub.url, timeout=5, retries=0, cache=str(tmp_path))
    first = judge.relevance("Q", "A")
    (entry,) = tmp_path.rglob("*.json")
    entry.unlink()
    os.mkfifo(entry)
    outcome = []
    asking = threading.Thread(target=lambda: outcome.append(judge.relevance("Q", "A")), daemon=True)
    asking.start()
    asking.join(60)
    assert not asking.is_alive(), "the judge blocked on the FIFO"
    assert outcome == [first] and len(stub.requests) == 2
    assert entry.is_file()
