"""The optional LLM answer judge against a stub OpenAI-compatible server on 127.0.0.1."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from answerkey.steps import AnswerJudge, run_evaluation
from answerkey.metrics.answers import parse_claim_counts


class StubServer:
    """A chat-completions endpoint whose replies the test sets; it records the requests."""

    def __init__(self):
        self.replies = {"correctness": "2\t2\t1\tOne of the two claims matches.", "relevance": "0.9"}
        self.status = 200
        self.requests = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append((self.path, dict(self.headers), body))
                prompt = body["messages"][0]["content"]
                kind = "correctness" if "Reference answer:" in prompt else "relevance"
                reply = stub.replies[kind]
                payload = (
                    reply
                    if isinstance(reply, bytes)
                    else json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}]}).encode()
                )
                self.send_response(stub.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub():
    server = StubServer()
    yield server
    server.close()


REFERENCE = [
    {
        "template_id": "t",
        "questions": [
            {
                "id": "q1",
                "question_text": "List the transformers in OSLO",
                "reference_answer": "OSLO T1, OSLO T2",
                "reference_steps": [[{"name": "calc", "args": {}, "output": "x"}]],
            }
        ],
    }
]
RESPONSE = {
    "q1": {
        "question_id": "q1",
        "actual_answer": "OSLO T1",
        "actual_steps": [{"name": "calc", "id": "c1", "status": "success", "output": "x"}],
    }
}


def test_answer_metrics_from_the_endpoint(stub):
    """Claim counts give recall/precision/F1; relevance is the model's number; keys in graphrag-eval's order."""
    judge = AnswerJudge(url=stub.url, model="stub-model", api_key="sk-test", timeout=5)
    [result] = run_evaluation(REFERENCE, RESPONSE, answer_judge=judge)
    assert {key: result[key] for key in list(result)[6:16]} == {
        "actual_answer": "OSLO T1",
        "answer_reference_claims_count": 2,
        "answer_actual_claims_count": 2,
        "answer_matching_claims_count": 1,
        "answer_correctness_reason": "One of the two claims matches.",
        "answer_recall": 0.5,
        "answer_precision": 0.5,
        "answer_f1": 0.5,
        "answer_relevance": 0.9,
        "actual_steps": RESPONSE["q1"]["actual_steps"],
    }
    assert "answer_relevance_cost" not in result  # unknown, so absent rather than made up
    path, headers, body = stub.requests[0]
    assert path == "/v1/chat/completions"
    assert headers["Authorization"] == "Bearer sk-test"
    assert body["model"] == "stub-model" and body["temperature"] == 0
    assert "OSLO T1, OSLO T2" in body["messages"][0]["content"]


@pytest.mark.parametrize(
    "status, replies, expected",
    [
        (
            500,
            {},
            {
                "answer_eval_error": "the judge endpoint answered HTTP 500",
                "answer_relevance_error": "the judge endpoint answered HTTP 500",
            },
        ),
        (
            200,
            {"correctness": "two claims", "relevance": "very"},
            {
                "answer_eval_error": "expected 4 tab-separated fields, got: 'two claims'",
                "answer_relevance_error": "could not convert string to float: 'very'",
            },
        ),
        (
            200,
            {"correctness": "1\t2\t3\twhy", "relevance": "1.5"},
            {
                "answer_eval_error": "impossible claim counts: 1, 2, 3",
                "answer_relevance_error": "relevance must be between 0 and 1, got '1.5'",
            },
        ),
        (
            200,
            {"correctness": b"not json", "relevance": b'{"choices": []}'},
            {
                "answer_eval_error": "the judge endpoint's reply is not a chat completion",
                "answer_relevance_error": "the judge endpoint's reply is not a chat completion",
            },
        ),
    ],
)
def test_failures_become_error_keys(stub, status, replies, expected):
    """A failed or malformed judgement is reported as an error key, never as a score."""
    stub.status = status
    stub.replies.update(replies)
    [result] = run_evaluation(REFERENCE, RESPONSE, answer_judge=AnswerJudge(url=stub.url, timeout=5))
    assert {key: value for key, value in result.items() if key.startswith("answer_")} == expected
    assert result["steps_score"] == 1.0


def test_unreachable_endpoint():
    """A closed port is reported, not raised."""
    stub = StubServer()
    url = stub.url
    stub.close()
    result = AnswerJudge(url=url, timeout=2).relevance("Q", "A")
    assert result["answer_relevance_error"].startswith("the judge endpoint could not be reached")


def test_environment_configuration():
    """Off unless ANSWERKEY_JUDGE_URL is set; model, key and timeout from the environment."""
    assert AnswerJudge.from_environment({}) is None
    judge = AnswerJudge.from_environment(
        {"ANSWERKEY_JUDGE_URL": "http://127.0.0.1:9/v1", "ANSWERKEY_JUDGE_TIMEOUT": "3", "ANSWERKEY_JUDGE_API_KEY": "k"}
    )
    assert judge == AnswerJudge(url="http://127.0.0.1:9/v1", model="gpt-4o-mini", api_key="k", timeout=3.0)
    with pytest.raises(ValueError, match="ANSWERKEY_JUDGE_TIMEOUT must be a number of seconds"):
        AnswerJudge.from_environment({"ANSWERKEY_JUDGE_URL": "http://x", "ANSWERKEY_JUDGE_TIMEOUT": "soon"})
    with pytest.raises(ValueError, match="must be an http:// or https:// URL"):
        AnswerJudge(url="file:///etc/passwd")


def test_claim_counts_parser():
    """graphrag-eval's reply format: three counts and a reason, tab-separated."""
    assert parse_claim_counts(" 3\t2\t2\tTwo match.\textra ") == (3, 2, 2, "Two match.\textra")
    with pytest.raises(ValueError, match="claim counts must be integers"):
        parse_claim_counts("a\tb\tc\td")
