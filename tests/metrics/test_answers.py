"""The optional LLM answer judge against a stub OpenAI-compatible server on 127.0.0.1
(tests/answers/stub_server.py)."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from answerkey.metrics.answers import AnswerJudge, Correctness, parse_claim_counts
from answerkey.steps import run_evaluation


def _load_stub_server():
    path = Path(__file__).resolve().parents[1] / "answers" / "stub_server.py"
    spec = importlib.util.spec_from_file_location("answers_stub_server", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


stub_server = _load_stub_server()
CORRECTNESS = "Reference answer:"  # only the correctness prompt has it


@pytest.fixture
def stub():
    server = stub_server.StubServer()
    server.reply_to(CORRECTNESS, "2\t2\t1\tOne of the two claims matches.")
    server.default = stub_server.Reply("0.9")
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
    "correctness, relevance, expected",
    [
        (
            {"content": "", "status": 500},
            {"content": "", "status": 500},
            {
                "answer_eval_error": "the judge endpoint answered HTTP 500",
                "answer_relevance_error": "the judge endpoint answered HTTP 500",
            },
        ),
        (
            {"content": "two claims"},
            {"content": "very"},
            {
                "answer_eval_error": "expected 4 tab-separated fields, got: 'two claims'",
                "answer_relevance_error": "could not convert string to float: 'very'",
            },
        ),
        (
            {"content": "1\t2\t3\twhy"},
            {"content": "1.5"},
            {
                "answer_eval_error": "impossible claim counts: 1, 2, 3",
                "answer_relevance_error": "relevance must be between 0 and 1, got '1.5'",
            },
        ),
        (
            {"content": b"not json"},
            {"content": b'{"choices": []}'},
            {
                "answer_eval_error": "the judge endpoint's reply is not a chat completion",
                "answer_relevance_error": "the judge endpoint's reply is not a chat completion",
            },
        ),
    ],
)
def test_failures_become_error_keys(stub, correctness, relevance, expected):
    """A failed or malformed judgement is reported as an error key, never as a score."""
    stub.rules.clear()
    stub.reply_to(CORRECTNESS, **correctness)
    stub.default = stub_server.Reply(**relevance)
    [result] = run_evaluation(REFERENCE, RESPONSE, answer_judge=AnswerJudge(url=stub.url, timeout=5, retries=0))
    assert {key: value for key, value in result.items() if key.startswith("answer_")} == expected
    assert result["steps_score"] == 1.0


@pytest.mark.parametrize(
    "reply, error",
    [
        # No answer within the timeout: said so, with the timeout.
        (stub_server.Reply(delay=3), "the judge endpoint did not answer within 0.5 seconds"),
        # A status line that is not HTTP (http.client's BadStatusLine is no OSError).
        (stub_server.Reply(raw=b"garbage\r\n\r\n"), "the judge endpoint's reply is not valid HTTP"),
        # A chat completion whose content is not text.
        (
            stub_server.Reply(b'{"choices": [{"message": {"content": null}}]}'),
            "the judge endpoint's reply is not a chat completion",
        ),
        (
            stub_server.Reply(b'{"choices": [{"message": {"content": 3}}]}'),
            "the judge endpoint's reply is not a chat completion",
        ),
        # JSON nested beyond the decoder's recursion limit.
        (stub_server.Reply(b"[" * 100_000), "the judge endpoint's reply is not a chat completion"),
    ],
)
def test_hostile_or_slow_replies_are_errors_not_exceptions(stub, reply, error):
    """Whatever the endpoint does, the judgement is an error with a reason, never an exception."""
    stub.rules.clear()
    stub.default = reply
    judge = AnswerJudge(url=stub.url, timeout=0.5, retries=0)
    assert judge.judge_correctness("Q", "R", "A") == Correctness(error=error)
    assert judge.relevance("Q", "A") == {"answer_relevance_error": error}


def test_the_reason_of_a_reply_with_unusable_counts_is_kept(stub):
    """As graphrag-eval writes it in Reasoning: the reply's reason beside the error (the keys keep only the error)."""
    stub.rules.clear()
    stub.reply_to(CORRECTNESS, "3\t1\t2\tTwo of three claims.")
    judgement = AnswerJudge(url=stub.url, timeout=5).judge_correctness("Q", "R", "A")
    assert judgement == Correctness(reason="Two of three claims.", error="impossible claim counts: 3, 1, 2")
    assert (judgement.recall, judgement.precision, judgement.f1) == (None, None, None)
    assert judgement.result_keys() == {"answer_eval_error": "impossible claim counts: 3, 1, 2"}


def test_a_blank_text_is_an_error_without_a_request(stub):
    """A blank question or answer is not sent: the judgement says which texts must not be blank."""
    judgement = AnswerJudge(url=stub.url, timeout=5).judge_correctness("Q", " \n", "A")
    assert judgement == Correctness(error="the question, the reference answer or the actual answer is blank")
    assert stub.requests == []


@pytest.mark.parametrize(
    "counts, figures",
    [
        ((2, 3, 2), (1.0, 2 / 3, 0.8)),
        ((4, 1, 1), (0.25, 1.0, 0.4)),
        ((3, 2, 0), (0.0, 0.0, 0.0)),  # graphrag-eval's compute_f1: 0.0 when recall and precision are 0
    ],
)
def test_figures_from_claim_counts(counts, figures):
    """recall = matching / reference, precision = matching / actual, F1 their harmonic mean."""
    judgement = Correctness(*counts, reason="r")
    assert (judgement.recall, judgement.precision, judgement.f1) == pytest.approx(figures, abs=1e-15)
    assert judgement.result_keys()["answer_f1"] == judgement.f1


def test_unreachable_endpoint():
    """A closed port is reported, not raised."""
    stub = stub_server.StubServer()
    url = stub.url
    stub.close()
    result = AnswerJudge(url=url, timeout=2, retries=0).relevance("Q", "A")
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


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf", "1e400", "soon"])
def test_a_timeout_must_be_seconds_above_zero(timeout):
    """A timeout urllib cannot use (0 would mean non-blocking, inf or nan an error) is refused with the text given."""
    with pytest.raises(ValueError) as caught:
        AnswerJudge.from_environment({"ANSWERKEY_JUDGE_URL": "http://x", "ANSWERKEY_JUDGE_TIMEOUT": timeout})
    assert str(caught.value) == f"ANSWERKEY_JUDGE_TIMEOUT must be a number of seconds above 0, not {timeout!r}"


def test_the_key_is_trimmed_checked_and_never_shown():
    """A key read from a file loses its line break; a key with a control character inside is refused
    without quoting it; the judge's repr leaves the key out."""
    judge = AnswerJudge.from_environment({"ANSWERKEY_JUDGE_URL": "http://x", "ANSWERKEY_JUDGE_API_KEY": "sk-secret\n"})
    assert judge.api_key == "sk-secret"
    assert "sk-secret" not in repr(judge)
    with pytest.raises(ValueError) as caught:
        AnswerJudge(url="http://x", api_key="sk-se\ncret")
    assert str(caught.value) == "ANSWERKEY_JUDGE_API_KEY must be printable ASCII, without spaces around it"


def test_a_url_http_client_refuses_is_an_error_not_an_exception():
    """A port that is not a number: the row's error asks whether the URL is valid (no request is possible)."""
    judgement = AnswerJudge(url="http://127.0.0.1:port/v1", timeout=1).judge_correctness("Q", "R", "A")
    assert judgement == Correctness(error="the request could not be sent: is ANSWERKEY_JUDGE_URL a valid URL?")


# ------------------------------------------------------------------ calls made again


@pytest.fixture
def waits(monkeypatch):
    """The waits between attempts, recorded instead of slept."""
    from answerkey.metrics import answers

    waited = []
    monkeypatch.setattr(answers, "_sleep", waited.append)
    return waited


@pytest.mark.parametrize("status", [408, 409, 429, 500, 503])
def test_a_failure_that_may_pass_is_tried_again(stub, waits, status):
    """Rate limits, time-outs, conflicts and server errors: asked again after 0.5 s, then 1 s;
    the third attempt answers."""
    stub.rules.clear()
    stub.reply_to("Q-flaky", "", status=status, times=2)
    stub.reply_to("Q-flaky", "2\t2\t2\tok")
    judgement = AnswerJudge(url=stub.url, timeout=5).judge_correctness("Q-flaky", "R", "A")
    assert judgement == Correctness(2, 2, 2, "ok")
    assert (len(stub.requests), waits) == (3, [0.5, 1.0])


def test_retry_after_is_followed_and_the_last_failure_says_how_many_attempts(stub, waits):
    """The endpoint's Retry-After (seconds, at most a minute; a date is not followed) sets the
    wait; after the retries, the error says how many attempts were made."""
    stub.rules.clear()
    stub.default = stub_server.Reply("", status=429, headers={"Retry-After": "7"})
    judge = AnswerJudge(url=stub.url, timeout=5, retries=3)
    assert judge.judge_correctness("Q", "R", "A") == Correctness(
        error="the judge endpoint answered HTTP 429 (4 attempts)"
    )
    assert waits == [7.0, 7.0, 7.0]
    waits.clear()
    stub.default = stub_server.Reply("", status=503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
    assert judge.relevance("Q", "A") == {"answer_relevance_error": "the judge endpoint answered HTTP 503 (4 attempts)"}
    assert waits == [0.5, 1.0, 2.0]


def test_other_failures_are_not_tried_again(stub, waits):
    """A refused key or a bad request (4xx), a reply that is not a chat completion: one attempt."""
    stub.rules.clear()
    for reply, error in [
        (stub_server.Reply("", status=401), "the judge endpoint answered HTTP 401"),
        (stub_server.Reply("", status=400), "the judge endpoint answered HTTP 400"),
        (stub_server.Reply(b"not json"), "the judge endpoint's reply is not a chat completion"),
    ]:
        stub.requests.clear()
        stub.default = reply
        assert AnswerJudge(url=stub.url, timeout=5).judge_correctness("Q", "R", "A") == Correctness(error=error)
        assert len(stub.requests) == 1
    assert waits == []


def test_a_reply_too_slow_once_is_asked_again(stub, waits):
    """No reply within the timeout is a failure that may pass: the second attempt answers."""
    stub.rules.clear()
    stub.reply_to("Q-slow-once", "1\t1\t1\tlate", delay=3, times=1)
    stub.reply_to("Q-slow-once", "1\t1\t1\tin time")
    judgement = AnswerJudge(url=stub.url, timeout=0.5).judge_correctness("Q-slow-once", "R", "A")
    assert judgement == Correctness(1, 1, 1, "in time")
    assert waits == [0.5]


@pytest.mark.parametrize("text, retries", [("0", 0), ("5", 5), ("", 2), (" 10 ", 10)])
def test_retries_from_the_environment(text, retries):
    judge = AnswerJudge.from_environment({"ANSWERKEY_JUDGE_URL": "http://x", "ANSWERKEY_JUDGE_RETRIES": text})
    assert judge.retries == retries


@pytest.mark.parametrize("text", ["11", "-1", "two", "1.5", "9999"])
def test_retries_must_be_a_small_whole_number(text):
    with pytest.raises(ValueError) as caught:
        AnswerJudge.from_environment({"ANSWERKEY_JUDGE_URL": "http://x", "ANSWERKEY_JUDGE_RETRIES": text})
    assert str(caught.value) == f"ANSWERKEY_JUDGE_RETRIES must be a whole number from 0 to 10, not {text.strip()!r}"


# ------------------------------------------------------------------ replies kept in a cache


def test_replies_are_kept_and_read_back(stub, tmp_path):
    """With a cache, a prompt asked before is answered from it (no request); another model or
    endpoint asks again; failures are never kept."""
    judge = AnswerJudge(url=stub.url, model="m", timeout=5, cache=str(tmp_path / "cache"))
    first = judge.judge_correctness("Q", "R", "A")
    assert first == Correctness(2, 2, 1, "One of the two claims matches.") and len(stub.requests) == 1
    again = AnswerJudge(url=stub.url, model="m", timeout=5, cache=str(tmp_path / "cache"))
    assert again.judge_correctness("Q", "R", "A") == first and len(stub.requests) == 1
    other = AnswerJudge(url=stub.url, model="other", timeout=5, cache=str(tmp_path / "cache"))
    assert other.judge_correctness("Q", "R", "A") == first and len(stub.requests) == 2
    (entry,) = [
        path for path in (tmp_path / "cache").rglob("*.json") if json.loads(path.read_text())["key"]["model"] == "m"
    ]
    assert json.loads(entry.read_text())["reply"] == "2\t2\t1\tOne of the two claims matches."
    stub.rules.clear()
    stub.default = stub_server.Reply("", status=500)
    failing = AnswerJudge(url=stub.url, model="m", timeout=5, retries=0, cache=str(tmp_path / "cache"))
    assert failing.relevance("Q2", "A2") == {"answer_relevance_error": "the judge endpoint answered HTTP 500"}
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 2
    assert judge.cache_warnings() == []


@pytest.mark.parametrize("damage", ["", '{"format": 1, "reply": 3}', "{", '{"format": 2, "reply": "9\\t9\\t9\\tx"}'])
def test_an_entry_that_cannot_be_read_back_is_asked_again(stub, tmp_path, damage):
    """An entry cut short, of another format or holding no reply text: asked again, rewritten."""
    judge = AnswerJudge(url=stub.url, model="m", timeout=5, cache=str(tmp_path))
    judge.judge_correctness("Q", "R", "A")
    (entry,) = tmp_path.rglob("*.json")
    entry.write_text(damage)
    assert judge.judge_correctness("Q", "R", "A") == Correctness(2, 2, 1, "One of the two claims matches.")
    assert len(stub.requests) == 2
    assert json.loads(entry.read_text())["reply"] == "2\t2\t1\tOne of the two claims matches."


def test_a_cache_that_cannot_be_written_is_a_warning_not_a_failure(stub, tmp_path):
    """The reply still counts; the problem is said once, as a warning."""
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    judge = AnswerJudge(url=stub.url, timeout=5, cache=str(blocked))
    assert judge.judge_correctness("Q", "R", "A").f1 == 0.5
    assert judge.judge_correctness("Q", "R2", "A").f1 == 0.5
    (warning,) = judge.cache_warnings()
    assert warning.kind == "judge-cache"
    assert (
        warning.message
        == f"the judge's replies could not be kept in ANSWERKEY_JUDGE_CACHE: Not a directory ({blocked})"
    )


def test_the_cache_from_the_environment():
    judge = AnswerJudge.from_environment({"ANSWERKEY_JUDGE_URL": "http://x", "ANSWERKEY_JUDGE_CACHE": " /tmp/c "})
    assert judge.cache == "/tmp/c"
    assert AnswerJudge.from_environment({"ANSWERKEY_JUDGE_URL": "http://x"}).cache is None
