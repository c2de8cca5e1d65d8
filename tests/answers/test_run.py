"""Judging a table row by row against the loopback stub endpoint: figures, errors per row
(never an exception), the output TSV as graphrag-eval writes it, the report and the workbook."""

import csv
import importlib.util
import io
import sys
import threading
from pathlib import Path

import jsonschema
import pytest

from answerkey.answers.load import read_table
from answerkey.answers.run import ordered_in_threads, run_answers
from answerkey.cli.schema import json_schema
from answerkey.errors import RunWarning
from answerkey.metrics.answers import AnswerJudge, Correctness


def _load_stub_server():
    path = Path(__file__).resolve().with_name("stub_server.py")
    spec = importlib.util.spec_from_file_location("answers_stub_server", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


stub_server = _load_stub_server()

# One row per behaviour of the endpoint, chosen by its question.
TABLE = (
    "Id\tQuestion\tReference answer\tActual answer\n"
    "1\tWhich transformers are in OSLO?\tOSLO T1 and OSLO T2.\tOSLO T1.\n"
    "2\tQ-server-error\tR\tA\n"
    "3\tQ-malformed\tR\tA\n"
    "4\tQ-slow\tR\tA\n"
    "5\tQ-impossible\tR\tA\n"
    "6\tQ-blank\tR\t \n"
    '7\tQ-quoted\tR\t"two\nlines"\n'
)


def serve_table_replies():
    """A stub that answers each question of TABLE as its name says."""
    server = stub_server.StubServer()
    server.reply_to("Which transformers", "2\t1\t1\tOnly OSLO T1 is named.")
    server.reply_to("Q-server-error", "", status=500)
    server.reply_to("Q-malformed", "All claims match.")
    server.reply_to("Q-slow", "1\t1\t1\ttoo late", delay=600)  # woken when the stub closes
    server.reply_to("Q-impossible", "1\t2\t3\tThree of one.")
    server.reply_to("Q-quoted", '3\t2\t2\tA "reason"\twith a tab,\nand a line break.')
    return server


@pytest.fixture
def stub():
    server = serve_table_replies()
    yield server
    server.close()


@pytest.fixture(scope="module")
def judged():
    """TABLE judged once (the slow row waits out the timeout), with the stub that judged it."""
    server = serve_table_replies()
    try:
        # Time enough for every other reply on a loaded machine: only Q-slow's runs out.
        judge = AnswerJudge(url=server.url, model="stub-model", timeout=2, retries=0)
        yield run_answers(read_table(TABLE, "in.tsv"), judge), server
    finally:
        server.close()


@pytest.fixture
def run(judged):
    return judged[0]


def test_each_row_is_judged_or_keeps_its_error(judged):
    """Figures from the claim counts; a 500, a malformed reply, a timeout and impossible counts are row errors."""
    run, stub = judged
    assert [judgement.correctness for judgement in run.rows] == [
        Correctness(2, 1, 1, "Only OSLO T1 is named."),
        Correctness(error="the judge endpoint answered HTTP 500"),
        Correctness(error="expected 4 tab-separated fields, got: 'All claims match.'"),
        Correctness(error="the judge endpoint did not answer within 2 seconds"),
        Correctness(reason="Three of one.", error="impossible claim counts: 1, 2, 3"),
        Correctness(error="the question, the reference answer or the actual answer is blank"),
        Correctness(3, 2, 2, 'A "reason"\twith a tab,\nand a line break.'),
    ]
    # The blank row was never sent; every other row was, once, in order.
    assert [prompt.split("Question: ")[1].split("\n")[0] for prompt in stub.prompts()] == [
        "Which transformers are in OSLO?",
        "Q-server-error",
        "Q-malformed",
        "Q-slow",
        "Q-impossible",
        "Q-quoted",
    ]
    assert (len(run.rows), run.judged, run.errors) == (7, 2, 5)
    assert (run.recall, run.precision, run.f1) == pytest.approx((7 / 12, 1.0, (2 / 3 + 0.8) / 2))


def test_row_errors_are_warnings_at_their_lines(run):
    """Each row the judge could not judge is a warning FILE:LINE: why, of one kind."""
    assert run.warnings == [
        RunWarning("in.tsv:3: the judge endpoint answered HTTP 500", "row-error"),
        RunWarning("in.tsv:4: expected 4 tab-separated fields, got: 'All claims match.'", "row-error"),
        RunWarning("in.tsv:5: the judge endpoint did not answer within 2 seconds", "row-error"),
        RunWarning("in.tsv:6: impossible claim counts: 1, 2, 3", "row-error"),
        RunWarning("in.tsv:7: the question, the reference answer or the actual answer is blank", "row-error"),
    ]


def test_the_output_tsv_as_graphrag_eval_writes_it(run):
    """The input's cells, graphrag-eval's five columns, the three figures; CRLF, quoted only where needed."""
    assert run.tsv_text() == (
        "Id\tQuestion\tReference answer\tActual answer\t#Reference\t#PTarget\t#Matching\tReasoning\tError\t"
        "Recall\tPrecision\tF1\r\n"
        "1\tWhich transformers are in OSLO?\tOSLO T1 and OSLO T2.\tOSLO T1.\t2\t1\t1\tOnly OSLO T1 is named.\t\t"
        "0.5\t1.0\t0.6666666666666666\r\n"
        "2\tQ-server-error\tR\tA\t\t\t\t\tthe judge endpoint answered HTTP 500\t\t\t\r\n"
        "3\tQ-malformed\tR\tA\t\t\t\t\texpected 4 tab-separated fields, got: 'All claims match.'\t\t\t\r\n"
        "4\tQ-slow\tR\tA\t\t\t\t\tthe judge endpoint did not answer within 2 seconds\t\t\t\r\n"
        "5\tQ-impossible\tR\tA\t\t\t\tThree of one.\timpossible claim counts: 1, 2, 3\t\t\t\r\n"
        "6\tQ-blank\tR\t \t\t\t\t\tthe question, the reference answer or the actual answer is blank\t\t\t\r\n"
        '7\tQ-quoted\tR\t"two\nlines"\t3\t2\t2\t"A ""reason""\twith a tab,\nand a line break."\t\t'
        "0.6666666666666666\t1.0\t0.8\r\n"
    )


def test_the_output_reads_back_as_graphrag_eval_reads_tsv(run):
    """csv.DictReader with a tab delimiter (graphrag-eval's reader) gives back every input cell and the reason."""
    rows = list(csv.DictReader(io.StringIO(run.tsv_text(), newline=""), delimiter="\t"))
    assert [row["Actual answer"] for row in rows] == [judgement.row.actual_answer for judgement in run.rows]
    assert rows[6]["Reasoning"] == 'A "reason"\twith a tab,\nand a line break.'
    assert rows[6]["F1"] == "0.8" and rows[1]["F1"] == ""


def test_graphrag_eval_layout_is_its_five_columns(run):
    """--columns graphrag-eval: exactly what graphrag-eval 4.0's answer-correctness writes, row for row."""
    assert run.tsv_text("graphrag-eval").splitlines()[:3] == [
        "#Reference\t#PTarget\t#Matching\tReasoning\tError",
        "2\t1\t1\tOnly OSLO T1 is named.\t",
        "\t\t\t\tthe judge endpoint answered HTTP 500",
    ]


def test_the_report_holds_every_row_and_validates(run):
    """The JSON document has graphrag-eval's keys per row (null without a judgement) and matches its schema."""
    document = run.document()
    jsonschema.validate(document, json_schema("answers-report"))
    assert document["signature"].startswith("model:stub-model|v:")
    assert document["summary"] == {
        "rows": 7,
        "judged": 2,
        "errors": 5,
        "answer_recall": pytest.approx(7 / 12),
        "answer_precision": 1.0,
        "answer_f1": pytest.approx(11 / 15),
    }
    assert document["rows"][0] == {
        "line": 2,
        "question_text": "Which transformers are in OSLO?",
        "reference_answer": "OSLO T1 and OSLO T2.",
        "actual_answer": "OSLO T1.",
        "answer_reference_claims_count": 2,
        "answer_actual_claims_count": 1,
        "answer_matching_claims_count": 1,
        "answer_correctness_reason": "Only OSLO T1 is named.",
        "answer_recall": 0.5,
        "answer_precision": 1.0,
        "answer_f1": pytest.approx(2 / 3),
        "answer_eval_error": None,
    }
    assert document["rows"][4]["answer_correctness_reason"] == "Three of one."
    assert document["rows"][4]["answer_eval_error"] == "impossible claim counts: 1, 2, 3"
    assert len(document["warnings"]) == 5


def test_summary_table(run):
    """Counts and the means over judged rows, four decimals as every summary, then the signature."""
    table, signature = run.summary_table().split("\n\n")
    assert table.splitlines() == [
        "rows  judged  errors  recall  precision      F1",
        "   7       2       5  0.5833     1.0000  0.7333",
    ]
    assert signature.startswith("signature: model:stub-model|v:")


def test_workbook_sheets(run):
    """Overview: one row per input row with texts, counts, figures, reason and error; Statistics: one row."""
    workbook = run.workbook()
    assert workbook.overview.header == [
        "line",
        "question",
        "reference answer",
        "actual answer",
        "#Reference",
        "#PTarget",
        "#Matching",
        "recall",
        "precision",
        "F1",
        "reason",
        "error",
    ]
    assert [row[0] for row in workbook.overview.rows] == [2, 3, 4, 5, 6, 7, 8]
    assert workbook.overview.rows[1][-1] == "the judge endpoint answered HTTP 500"
    assert workbook.statistics.rows == [[7, 2, 5, run.recall, run.precision, run.f1]]


def test_no_judgement_at_all_suggests_the_endpoint(stub):
    """When every call fails, one more warning points at the endpoint's settings rather than the rows."""
    stub.rules.clear()
    stub.default = stub_server.Reply("", status=401)
    run = run_answers(read_table(TABLE, "in.tsv"), AnswerJudge(url=stub.url, model="m", timeout=5))
    assert run.judged == 0 and run.f1 is None
    assert run.warnings[-1] == RunWarning(
        f"no row was judged: is the endpoint at ANSWERKEY_JUDGE_URL ({stub.url}) right, and its model (m) and key?",
        "no-judgement",
    )
    assert run.document()["summary"]["answer_f1"] is None


def test_jobs_send_requests_at_once_and_keep_the_order(stub):
    """With jobs=3, three requests wait together at the stub (a barrier); results stay in the table's order."""
    gate = threading.Barrier(3, timeout=10)
    stub.rules.clear()
    for number in range(3):
        stub.reply_to(f"Q-gated-{number}", f"3\t3\t{number}\tgated {number}", gate=gate)
    table = read_table(
        "Question\tReference answer\tActual answer\n" + "".join(f"Q-gated-{n}\tR\tA\n" for n in range(3)), "in.tsv"
    )
    run = run_answers(table, AnswerJudge(url=stub.url, timeout=20), jobs=3)
    assert [judgement.correctness.reason for judgement in run.rows] == ["gated 0", "gated 1", "gated 2"]
    assert not gate.broken


def test_ordered_in_threads_keeps_order_and_raises_at_the_item():
    """Results come in the items' order whatever finishes first; an exception surfaces at its item."""
    release = threading.Event()

    def slow_first(n):
        if n == 0:
            release.wait(5)
        else:
            release.set()
        return n * 10

    assert list(ordered_in_threads(slow_first, [0, 1, 2, 3], jobs=4)) == [0, 10, 20, 30]

    def fails_on_two(n):
        if n == 2:
            raise KeyError(n)
        return n

    results = ordered_in_threads(fails_on_two, [0, 1, 2, 3], jobs=2)
    assert [next(results), next(results)] == [0, 1]
    with pytest.raises(KeyError):
        next(results)


def test_blank_rows_alone_do_not_blame_the_endpoint(stub):
    """Rows never sent (blank cells) are errors of the rows: no warning about the endpoint's settings."""
    table = read_table("Question\tReference answer\tActual answer\nQ\t\tA\n\tR\tA\n", "in.tsv")
    run = run_answers(table, AnswerJudge(url=stub.url, timeout=5))
    assert [warning.kind for warning in run.warnings] == ["row-error", "row-error"]
    assert stub.requests == []


@pytest.mark.parametrize(("rows", "quiet", "drawn"), [(1, False, True), (4, False, True), (4, True, False)])
def test_a_progress_bar_for_every_run_on_a_terminal(monkeypatch, fake_terminal, rows, quiet, drawn):
    """Rows wait seconds for the model, so a terminal shows a bar from one row on (not the usual 200), unless quiet."""
    monkeypatch.setattr(sys, "stderr", fake_terminal)
    server = stub_server.StubServer()
    server.reply_to("Q", "1\t1\t1\tsame")
    try:
        text = "Question\tReference answer\tActual answer\n" + "Q\tR\tA\n" * rows
        run = run_answers(read_table(text, "in.tsv"), AnswerJudge(url=server.url, model="m", timeout=5), quiet=quiet)
    finally:
        server.close()
    assert run.judged == rows
    assert (f"answers [{'#' * 30}] {rows}/{rows}" in fake_terminal.text) is drawn
