"""graphrag-eval 6.x's answer correctness against the loopback stub endpoint: its JSON reply,
its `answer_correctness_error` key, a 6.x config's judge and prompt (`answers -c`), and
`--graphrag-eval 6` with `--answers`."""

import asyncio
import importlib.util
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from answerkey.cli import cli
from answerkey.compat.graphrag_eval import judge_from_config, read_config, run_evaluation
from answerkey.errors import InputError
from answerkey.metrics.answers import AnswerJudge, check_prompt, parse_claim_counts_json
from answerkey.steps import compute_aggregates, run_evaluation as steps_run_evaluation


def _load_stub_server():
    path = Path(__file__).resolve().with_name("stub_server.py")
    spec = importlib.util.spec_from_file_location("answers_stub_server", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


stub_server = _load_stub_server()
GOOD = '{"reference_claims_count": 2, "actual_claims_count": 1, "matching_claims_count": 1, "reason": "One claim missing."}'


@pytest.fixture
def stub():
    server = stub_server.StubServer()
    server.reply_to("Q-good", GOOD)
    server.reply_to("Q-tabs", "2\t1\t1\tOne claim missing.")
    server.reply_to(
        "Q-bad", '{"reference_claims_count": 1, "actual_claims_count": 1, "matching_claims_count": 2, "reason": "x"}'
    )
    yield server
    server.close()


def _config(tmp_path, url, prompt=None):
    lines = ["llm:", "  generation:", "    provider: openai", "    model: stub-model", f"    base_url: {url}"]
    if prompt is not None:
        lines += ["answer_correctness:", f"  prompt: {json.dumps(prompt)}"]
    path = tmp_path / "conf.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("2\t1\t1\tx", "expected a JSON object"),
        ('{"reference_claims_count": 1}', "exactly reference_claims_count"),
        (
            '{"reference_claims_count": 1, "actual_claims_count": 1, "matching_claims_count": 2, "reason": "x"}',
            "impossible claim counts: 1, 1, 2",
        ),
        (
            '{"reference_claims_count": 1.0, "actual_claims_count": 1, "matching_claims_count": 1, "reason": "x"}',
            "must be integers",
        ),
        (
            '{"reference_claims_count": 1, "actual_claims_count": 1, "matching_claims_count": 1, "reason": ""}',
            "non-empty",
        ),
    ],
)
def test_json_reply_is_checked(reply, message):
    """6.x's reply: exactly the four fields, integer counts in range, a non-empty reason."""
    with pytest.raises(ValueError, match=message):
        parse_claim_counts_json(reply)


def test_prompt_placeholders():
    """A config's prompt may hold only the three placeholders, as plain names."""
    check_prompt("{question} / {reference_answer} / {actual_answer} {{literal}}")
    for bad in ("{other}", "{question!r}", "{question:>5}", "{0}", "{question"):
        with pytest.raises(ValueError):
            check_prompt(bad)


def test_6x_judge_keys(stub):
    """The 6.x judge reads the JSON reply; a bad one gives answer_correctness_error."""
    judge = AnswerJudge(url=stub.url, model="m", timeout=5, retries=0, graphrag_eval=6)
    assert judge.correctness("Q-good", "R", "A") == {
        "answer_reference_claims_count": 2,
        "answer_actual_claims_count": 1,
        "answer_matching_claims_count": 1,
        "answer_correctness_reason": "One claim missing.",
        "answer_recall": 0.5,
        "answer_precision": 1.0,
        "answer_f1": 2 / 3,
    }
    assert judge.correctness("Q-bad", "R", "A") == {"answer_correctness_error": "impossible claim counts: 1, 1, 2"}
    assert '"reference_claims_count"' in stub.prompts()[0]
    four = AnswerJudge(url=stub.url, model="m", timeout=5, retries=0)
    assert four.correctness("Q-tabs", "R", "A")["answer_recall"] == 0.5


def test_config_judge_and_prompt(stub, tmp_path):
    """judge_from_config takes base_url, model and the prompt; run_evaluation uses it."""
    config = _config(tmp_path, stub.url, prompt="Judge {question} against {reference_answer}: {actual_answer}")
    judge = judge_from_config(read_config(config), environ={})
    assert (judge.url, judge.model, judge.graphrag_eval) == (stub.url, "stub-model", 6)
    reference = [
        {
            "template_id": "t",
            "questions": [
                {
                    "id": "q",
                    "question_text": "Q-good",
                    "reference_answer": "R",
                    "reference_steps": [[{"name": "a", "output": "1"}]],
                }
            ],
        }
    ]
    responses = {"q": {"question_id": "q", "actual_answer": "A", "actual_steps": []}}
    [result] = asyncio.run(run_evaluation(reference, responses, config_file_path=str(config)))
    assert result["answer_recall"] == 0.5 and result["steps_score"] == 0.0
    assert stub.prompts()[-1] == "Judge Q-good against R: A"


def test_config_without_endpoint_is_refused(tmp_path):
    """No base_url and no ANSWERKEY_JUDGE_URL: refused, nothing sent."""
    path = tmp_path / "conf.yaml"
    path.write_text("llm:\n  generation: {provider: openai, model: m}\n", encoding="utf-8")
    with pytest.raises(InputError, match="base_url: missing"):
        judge_from_config(read_config(path), environ={})


def test_answers_cli_with_config(stub, tmp_path):
    """`answerkey answers -c conf.yaml` judges with the config's endpoint and 6.x's reply."""
    table = tmp_path / "in.tsv"
    table.write_text("Question\tReference answer\tActual answer\nQ-good\tR\tA\nQ-bad\tR\tA\n", encoding="utf-8")
    out = tmp_path / "out.tsv"
    outcome = CliRunner().invoke(
        cli,
        ["answers", "-i", str(table), "-o", str(out), "-c", str(_config(tmp_path, stub.url)), "-q"],
        env={"ANSWERKEY_JUDGE_URL": ""},
    )
    assert outcome.exit_code == 0, outcome.output
    rows = out.read_text(encoding="utf-8").splitlines()
    assert rows[1].split("\t")[3:8] == ["2", "1", "1", "One claim missing.", ""]
    assert rows[2].split("\t")[3:8] == ["", "", "", "", "impossible claim counts: 1, 1, 2"]


def test_steps_answers_in_6x_mode(stub, tmp_path, monkeypatch):
    """`steps evaluate --graphrag-eval 6 --answers` adds 6.x's correctness keys only."""
    monkeypatch.setenv("ANSWERKEY_JUDGE_URL", stub.url)
    reference = tmp_path / "reference.yaml"
    reference.write_text(
        "- template_id: t\n  questions:\n  - id: q\n    question_text: Q-bad\n    reference_answer: R\n"
        "    reference_steps: [[{name: a, output: '1'}]]\n",
        encoding="utf-8",
    )
    responses = tmp_path / "responses.jsonl"
    responses.write_text('{"question_id": "q", "actual_answer": "A", "actual_steps": []}\n', encoding="utf-8")
    results = tmp_path / "results.json"
    outcome = CliRunner().invoke(
        cli,
        [
            "steps",
            "evaluate",
            str(reference),
            str(responses),
            "--graphrag-eval",
            "6",
            "--answers",
            "--json",
            str(results),
            "-q",
        ],
    )
    assert outcome.exit_code == 0, outcome.output
    [result] = json.loads(results.read_text(encoding="utf-8"))["results"]
    assert result["answer_correctness_error"] == "impossible claim counts: 1, 1, 2"
    assert "answer_relevance" not in result and "answer_eval_error" not in result


CUSTOM = """\
llm:
  generation: {{provider: openai, model: stub-model, base_url: "{url}"}}
answer_correctness: {{enabled: false}}
custom_evaluations:
  - name: tone
    inputs: [question, actual_answer, actual_steps]
    steps_name: sparql_query
    steps_keys: [output]
    instructions: "Rate the tone {{not a placeholder}}."
    outputs: {{tone: a number from 0 to 1, tone_reason: why}}
"""


def test_custom_evaluations(stub, tmp_path):
    """Each custom evaluation writes its outputs (JSON values read), or {name}_error."""
    stub.reply_to("Q-calm", '0.5\t"calm"')
    stub.reply_to("Q-short", "0.5")
    config = tmp_path / "custom.yaml"
    config.write_text(CUSTOM.format(url=stub.url), encoding="utf-8")
    step = {
        "name": "sparql_query",
        "id": "s",
        "status": "success",
        "args": {"query": "Q"},
        "output": '{"boolean": true}',
    }
    reference = [
        {
            "template_id": "t",
            "questions": [
                {"id": "a", "question_text": "Q-calm"},
                {"id": "b", "question_text": "Q-short"},
                {"id": "c", "question_text": "Q-none"},
            ],
        }
    ]
    responses = {
        "a": {"question_id": "a", "actual_answer": "A", "actual_steps": [step]},
        "b": {"question_id": "b", "actual_answer": "A", "actual_steps": []},
        "c": {"question_id": "c", "actual_steps": []},
    }
    results = asyncio.run(run_evaluation(reference, responses, config_file_path=str(config)))
    assert [{k: r.get(k) for k in ("tone", "tone_reason", "tone_error")} for r in results] == [
        {"tone": 0.5, "tone_reason": "calm", "tone_error": None},
        {"tone": None, "tone_reason": None, "tone_error": "expected 2 tab-separated values, got 1"},
        {"tone": None, "tone_reason": None, "tone_error": "the response has no actual_answer"},
    ]
    assert "tone_error" not in results[0]
    prompt = stub.prompts()[0]
    assert prompt.startswith("Rate the tone {not a placeholder}.")
    assert '"output": {\n      "boolean": true\n    }' in prompt
    assert "1. tone: a number from 0 to 1\n2. tone_reason: why" in prompt


def test_steps_cli_with_config(stub, tmp_path, monkeypatch):
    """`steps evaluate --graphrag-eval 6 -c` runs the config's correctness and custom
    evaluations; `steps aggregate -c` aggregates the custom outputs."""
    monkeypatch.delenv("ANSWERKEY_JUDGE_URL", raising=False)
    stub.reply_to("Rate the tone", '0.25\t"flat"')
    stub.reply_to('"reference_claims_count"', GOOD)
    config = tmp_path / "custom.yaml"
    config.write_text(CUSTOM.format(url=stub.url).replace("enabled: false", "enabled: true"), encoding="utf-8")
    reference = tmp_path / "reference.yaml"
    reference.write_text(
        "- template_id: t\n  questions:\n  - id: q\n    question_text: Q-plain\n    reference_answer: R\n"
        "    reference_steps: [[{name: a, output: '1'}]]\n",
        encoding="utf-8",
    )
    responses = tmp_path / "responses.jsonl"
    responses.write_text('{"question_id": "q", "actual_answer": "A", "actual_steps": []}\n', encoding="utf-8")
    results = tmp_path / "results.json"
    runner = CliRunner()
    arguments = ["steps", "evaluate", str(reference), str(responses), "--json", str(results), "-q", "-c", str(config)]
    outcome = runner.invoke(cli, arguments)
    assert outcome.exit_code == 2 and "give --graphrag-eval 6 with it" in outcome.output
    outcome = runner.invoke(cli, [*arguments, "--graphrag-eval", "6"])
    assert outcome.exit_code == 0, outcome.output
    report = json.loads(results.read_text(encoding="utf-8"))
    [result] = report["results"]
    assert (result["answer_recall"], result["tone"], result["tone_reason"]) == (0.5, 0.25, "flat")
    assert report["signature"].startswith("answers:llm|graphrag_eval:6|")
    aggregates = tmp_path / "aggregates.json"
    outcome = runner.invoke(
        cli, ["steps", "aggregate", str(results), "-c", str(config), "--json", str(aggregates), "-q"]
    )
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(aggregates.read_text(encoding="utf-8"))["micro"]["tone"]["sum"] == 0.25
    outcome = runner.invoke(cli, ["steps", "aggregate", str(results), "--json", str(aggregates), "-q"])
    assert "tone" not in json.loads(aggregates.read_text(encoding="utf-8"))["micro"]


def test_retrieval_metrics_in_6x_mode(stub):
    """With a judge, 6.x mode writes retrieval_answer_* on each retrieval step and
    retrieval_context_* on the matched one (F1 with both; _error keys when a reply is bad)."""

    # Recall is asked first, then precision: each rule answers once.
    stub.reply_to("Reference:\nParis is the capital.", '{"statements": 2, "supported": 1}', times=1)
    stub.reply_to("Reference:\nParis is the capital.", '{"verdicts": [0, 1]}', times=1)
    stub.reply_to("Reference:\nC1\nC2", '{"statements": 4, "supported": 4}', times=1)
    stub.reply_to("Reference:\nC1\nC2", "no JSON", times=1)
    contexts = json.dumps([{"id": "1", "text": "C1"}, {"id": "2", "text": "C2"}])
    reference = [
        {
            "template_id": "t",
            "questions": [
                {
                    "id": "q",
                    "question_text": "Q-retrieve",
                    "reference_answer": "Paris is the capital.",
                    "reference_steps": [[{"name": "retrieval", "output": contexts}]],
                }
            ],
        }
    ]
    step = {"name": "retrieval", "id": "r", "status": "success", "args": {"k": 2}, "output": contexts}
    responses = {"q": {"question_id": "q", "actual_steps": [step]}}
    judge = AnswerJudge(url=stub.url, model="m", timeout=5, retries=0)
    [result] = steps_run_evaluation(reference, responses, graphrag_eval=6, answer_judge=judge)
    [judged] = result["actual_steps"]
    assert {key: value for key, value in judged.items() if key.startswith("retrieval_")} == {
        "retrieval_answer_recall": 0.5,
        "retrieval_answer_precision": 0.5,
        "retrieval_answer_f1": 0.5,
        "retrieval_context_recall": 1.0,
        "retrieval_context_precision_error": "the judge's reply is not a JSON object",
    }
    assert result["steps_score"] == 1.0
    micro = compute_aggregates([result], graphrag_eval=6)["micro"]
    assert micro["retrieval_answer_f1"]["mean"] == 0.5 and "retrieval_context_f1" not in micro


def _embedding(*vectors):
    return json.dumps({"data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]}).encode()


def test_answer_relevance(stub, tmp_path):
    """answer_relevance: the mean cosine of the asked question's embedding with those of the
    questions the LLM writes for the answer; 0 when noncommittal; an error key otherwise."""
    stub.reply_to("Answer: Canberra.", '{"questions": ["What is the capital?", "Which city?"], "noncommittal": 0}')
    stub.reply_to("Answer: I cannot say.", '{"questions": ["?"], "noncommittal": 1}')
    stub.reply_to("Answer: broken", "not JSON")
    stub.reply_to("Q-capital\nWhat is the capital?\nWhich city?", _embedding([1, 0], [1, 0], [0, 1]))
    stub.reply_to("Q-capital\n?", _embedding([1, 0], [1, 1]))
    config = tmp_path / "relevance.yaml"
    config.write_text(
        "llm:\n"
        f"  generation: {{provider: openai, model: chat, base_url: '{stub.url}'}}\n"
        "  embedding: {provider: openai, model: embed}\n"
        "answer_correctness: {enabled: false}\n",
        encoding="utf-8",
    )
    reference = [{"template_id": "t", "questions": [{"id": str(n), "question_text": "Q-capital"} for n in range(4)]}]
    answers = ["Canberra.", "I cannot say.", "broken", None]
    responses = {
        str(n): {"question_id": str(n), **({"actual_answer": a} if a else {}), "actual_steps": []}
        for n, a in enumerate(answers)
    }
    results = asyncio.run(run_evaluation(reference, responses, config_file_path=str(config)))
    assert results[0]["answer_relevance"] == 0.5
    assert results[1]["answer_relevance"] == 0.0
    assert results[2]["answer_relevance_error"] == "the judge's reply is not JSON"
    assert "answer_relevance" not in results[3] and "answer_relevance_error" not in results[3]
    embeddings = [body for path, _, body in stub.requests if path.endswith("/embeddings")]
    assert embeddings[0] == {"model": "embed", "input": ["Q-capital", "What is the capital?", "Which city?"]}


def test_config_llm_scores_retrieval_without_correctness(stub, tmp_path):
    """A config with llm but answer correctness disabled: retrieval steps are judged, final
    answers not (as in 6.x, where the retrieval metrics need only its LLM)."""
    stub.reply_to("Reference:\nR.", '{"statements": 1, "supported": 1}', times=1)
    stub.reply_to("Reference:\nR.", '{"verdicts": [1]}', times=1)
    config = tmp_path / "conf.yaml"
    config.write_text(
        f"llm:\n  generation: {{provider: openai, model: m, base_url: '{stub.url}'}}\n"
        "answer_correctness: {enabled: false}\n",
        encoding="utf-8",
    )
    contexts = json.dumps([{"id": "1", "text": "C1"}])
    question = {
        "id": "q",
        "question_text": "Q-r",
        "reference_answer": "R.",
        "reference_steps": [[{"name": "x", "output": "1"}]],
    }
    step = {"name": "retrieval", "id": "r", "status": "success", "args": {"k": 1}, "output": contexts}
    responses = {"q": {"question_id": "q", "actual_answer": "A", "actual_steps": [step]}}
    [result] = asyncio.run(run_evaluation([{"template_id": "t", "questions": [question]}], responses, str(config)))
    assert result["actual_steps"][0]["retrieval_answer_f1"] == 1.0
    assert "answer_recall" not in result and "answer_correctness_error" not in result
