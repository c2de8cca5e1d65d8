"""`answerkey answers -i IN.tsv -o OUT.tsv` (graphrag-eval's answer-correctness) against the
loopback stub endpoint of tests/answers/stub_server.py: the bundled example, the outputs and
reports, errors per row, and trouble (exit 2) before anything is sent."""

import importlib.util
import json
import sys
import threading
from pathlib import Path

import jsonschema
import pytest

from answerkey.cli.schema import json_schema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "answers" / "questions.tsv")


def _load_stub_server():
    path = ROOT / "tests" / "answers" / "stub_server.py"
    spec = importlib.util.spec_from_file_location("answers_stub_server", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


stub_server = _load_stub_server()


@pytest.fixture
def stub(monkeypatch):
    """The stub endpoint, set in the environment, answering the bundled example's questions."""
    server = stub_server.StubServer()
    server.reply_to("capital of Australia", "1\t1\t0\tSydney is not Canberra.")
    server.reply_to("moons", "2\t1\t1\tThe moons are not named.")
    server.reply_to("prime numbers", "1\t3\t1\tThe same three primes,\tlisted.")
    monkeypatch.setenv("ANSWERKEY_JUDGE_URL", server.url)
    monkeypatch.setenv("ANSWERKEY_JUDGE_MODEL", "stub-model")
    monkeypatch.delenv("ANSWERKEY_JUDGE_API_KEY", raising=False)
    monkeypatch.delenv("ANSWERKEY_JUDGE_TIMEOUT", raising=False)
    monkeypatch.setenv("ANSWERKEY_JUDGE_RETRIES", "0")  # failures are answered at once here
    monkeypatch.delenv("ANSWERKEY_JUDGE_CACHE", raising=False)
    yield server
    server.close()


EXAMPLE_OUTPUT = (
    "Question\tReference answer\tActual answer\t#Reference\t#PTarget\t#Matching\tReasoning\tError\t"
    "Recall\tPrecision\tF1\r\n"
    "Which transformers are in the substation OSLO?\tOSLO T1 and OSLO T2.\t"
    "The substation OSLO has two transformers, OSLO T1 and OSLO T2.\t2\t2\t2\t"
    "The two answers make the same two claims.\t\t1.0\t1.0\t1.0\r\n"
    "What is the capital of Australia?\tCanberra.\tSydney is the capital of Australia.\t1\t1\t0\t"
    "Sydney is not Canberra.\t\t0.0\t0.0\t0.0\r\n"
    "How many moons does Mars have, and what are they called?\tTwo: Phobos and Deimos.\tMars has two moons.\t"
    "2\t1\t1\tThe moons are not named.\t\t0.5\t1.0\t0.6666666666666666\r\n"
    'List the first three prime numbers.\t2, 3 and 5.\t"The first three primes are:\n- 2\n- 3\n- 5"\t1\t3\t1\t'
    '"The same three primes,\tlisted."\t\t1.0\t0.3333333333333333\t0.5\r\n'
)


def test_the_bundled_example(run_cli, stub, tmp_path):
    """Each row judged; OUT.tsv is the input's columns and the judgement's, byte for byte; the summary on stdout."""
    output = tmp_path / "judged.tsv"
    result = run_cli("answers", "-i", EXAMPLE, "-o", output)
    assert (result.exit_code, result.stderr) == (0, "")
    assert output.read_bytes().decode() == EXAMPLE_OUTPUT
    table, signature, notes = result.stdout.split("\n\n")
    # Under the summary: the means with their intervals, then the rows under F1 1 and why.
    assert notes.splitlines()[-4:] == [
        "failing: 3 of 4 rows",
        "  line 3  F1 0.0000: Sydney is not Canberra.",
        "  line 4  F1 0.6667: The moons are not named.",
        "  line 5  F1 0.5000: The same three primes,\tlisted.",
    ]
    assert table.splitlines() == [
        "rows  judged  errors  recall  precision      F1",
        "   4       4       0  0.6250     0.5833  0.5417",
    ]
    assert signature.startswith("signature: model:stub-model|v:")
    assert len(stub.requests) == 4
    path, headers, body = stub.requests[0]
    assert (path, body["model"], body["temperature"]) == ("/v1/chat/completions", "stub-model", 0)
    assert "Authorization" not in headers


def test_graphrag_eval_columns(run_cli, stub, tmp_path):
    """--columns graphrag-eval writes exactly graphrag-eval 4.0's five columns."""
    output = tmp_path / "judged.tsv"
    result = run_cli("answers", "-i", EXAMPLE, "-o", output, "--columns", "graphrag-eval", "-q")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert output.read_bytes().decode() == (
        "#Reference\t#PTarget\t#Matching\tReasoning\tError\r\n"
        "2\t2\t2\tThe two answers make the same two claims.\t\r\n"
        "1\t1\t0\tSydney is not Canberra.\t\r\n"
        "2\t1\t1\tThe moons are not named.\t\r\n"
        '1\t3\t1\t"The same three primes,\tlisted."\t\r\n'
    )


def test_row_errors_do_not_stop_the_run(run_cli, stub, write_file, tmp_path):
    """Seven rows the endpoint fails: all written with their Error, five warnings shown then counted;
    nothing was judged, so exit 2 saying so (issue 27)."""
    stub.rules.clear()
    stub.default = stub_server.Reply("", status=500)
    rows = "".join(f"Q{n}\tR{n}\tA{n}\n" for n in range(7))
    source = write_file("in.tsv", "Question\tReference answer\tActual answer\n" + rows)
    output = tmp_path / "out.tsv"
    result = run_cli("answers", "-i", source, "-o", output, "--json", tmp_path / "report.json")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        *(f"warning: {source}:{line}: the judge endpoint answered HTTP 500" for line in range(2, 7)),
        "warning: ... and 2 more warnings like these (all are in the reports)",
        f"warning: no row was judged: is the endpoint at ANSWERKEY_JUDGE_URL ({stub.url}) right, "
        "and its model (stub-model) and key?",
        "nothing evaluated: no row could be judged (see the warnings)",
    ]
    lines = output.read_text(encoding="utf-8").splitlines()
    assert lines[1:] == [f"Q{n}\tR{n}\tA{n}\t\t\t\t\tthe judge endpoint answered HTTP 500\t\t\t" for n in range(7)]
    assert result.stdout.splitlines()[1] == "   7       0       7       -          -   -"
    document = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert len(document["warnings"]) == 8


def test_reports_validate_and_the_workbook_has_its_sheets(run_cli, stub, tmp_path):
    """--json - sends the report to stdout (nothing else there); --yaml and --xlsx are written too."""
    openpyxl = pytest.importorskip("openpyxl")
    output, workbook, report = tmp_path / "out.tsv", tmp_path / "r.xlsx", tmp_path / "r.yaml"
    result = run_cli("answers", "-i", EXAMPLE, "-o", output, "--json", "-", "--yaml", report, "--xlsx", workbook)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    jsonschema.validate(document, json_schema("answers-report"))
    assert document["summary"] == {
        "rows": 4,
        "judged": 4,
        "errors": 0,
        "answer_recall": 0.625,
        "answer_precision": pytest.approx((1 + 0 + 1 + 1 / 3) / 4),
        "answer_f1": pytest.approx((1 + 0 + 2 / 3 + 0.5) / 4),
    }
    assert [row["line"] for row in document["rows"]] == [2, 3, 4, 5]
    assert report.read_text(encoding="utf-8").startswith("signature: model:stub-model|v:")
    sheets = openpyxl.load_workbook(workbook, read_only=True).sheetnames
    assert sheets[:3] == ["Overview", "Statistics", "Warnings"]


def test_tsv_to_stdout_and_from_stdin(run_cli, stub):
    """-i - reads standard input; -o - writes the TSV to standard output, and no summary there."""
    text = Path(EXAMPLE).read_text(encoding="utf-8")
    result = run_cli("answers", "-i", "-", "-o", "-", input=text)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout_bytes.decode() == EXAMPLE_OUTPUT  # .stdout would turn CRLF into LF


def test_jobs_send_requests_at_once(run_cli, stub, write_file, tmp_path):
    """-j 3: three requests wait together at the stub; the output keeps the input's order."""
    gate = threading.Barrier(3, timeout=10)
    stub.rules.clear()
    for n in range(3):
        stub.reply_to(f"Q-gated-{n}", f"2\t2\t{n}\tgated {n}", gate=gate)
    source = write_file(
        "in.tsv", "Question\tReference answer\tActual answer\n" + "".join(f"Q-gated-{n}\tR\tA\n" for n in range(3))
    )
    output = tmp_path / "out.tsv"
    result = run_cli("answers", "-i", source, "-o", output, "-j", "3", "-q")
    assert (result.exit_code, result.stderr) == (0, "")
    assert [line.split("\t")[6] for line in output.read_text(encoding="utf-8").splitlines()[1:]] == [
        "gated 0",
        "gated 1",
        "gated 2",
    ]


@pytest.mark.parametrize("threshold, status", [("0.5", 0), ("0.55", 1)])
def test_fail_under_mean_f1(run_cli, stub, tmp_path, threshold, status):
    """--fail-under: exit 1 when the mean F1 over judged rows (0.5417 here) is below it."""
    result = run_cli("answers", "-i", EXAMPLE, "-o", tmp_path / "out.tsv", "-q", "--fail-under", threshold)
    assert result.exit_code == status
    assert result.stderr == ("" if status == 0 else f"mean F1 0.5417 is under --fail-under {threshold}\n")
    assert (tmp_path / "out.tsv").exists()


def test_no_endpoint_is_trouble_before_anything_is_read(run_cli, monkeypatch, tmp_path):
    """Without ANSWERKEY_JUDGE_URL: exit 2, naming the variable; no output written."""
    monkeypatch.delenv("ANSWERKEY_JUDGE_URL", raising=False)
    result = run_cli("answers", "-i", EXAMPLE, "-o", tmp_path / "out.tsv")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "answerkey answers needs ANSWERKEY_JUDGE_URL: the base URL of an OpenAI-compatible API "
        "(e.g. https://api.openai.com/v1, its key in ANSWERKEY_JUDGE_API_KEY)\n"
    )
    assert not (tmp_path / "out.tsv").exists()


@pytest.mark.parametrize(
    "variable, value, message",
    [
        ("ANSWERKEY_JUDGE_TIMEOUT", "0", "ANSWERKEY_JUDGE_TIMEOUT must be a number of seconds above 0, not '0'"),
        ("ANSWERKEY_JUDGE_TIMEOUT", "soon", "ANSWERKEY_JUDGE_TIMEOUT must be a number of seconds above 0, not 'soon'"),
        (
            "ANSWERKEY_JUDGE_URL",
            "ftp://host/v1",
            "ANSWERKEY_JUDGE_URL must be an http:// or https:// URL, not 'ftp://host/v1'",
        ),
        (
            "ANSWERKEY_JUDGE_API_KEY",
            "sk-1\tsk-2",
            "ANSWERKEY_JUDGE_API_KEY must be printable ASCII, without spaces around it",
        ),
    ],
)
def test_a_bad_setting_is_trouble(run_cli, stub, monkeypatch, tmp_path, variable, value, message):
    """A setting the judge cannot use: exit 2 with what is wrong (never the key itself); nothing is sent."""
    monkeypatch.setenv(variable, value)
    result = run_cli("answers", "-i", EXAMPLE, "-o", tmp_path / "out.tsv")
    assert (result.exit_code, result.stderr) == (2, message + "\n")
    assert stub.requests == [] and not (tmp_path / "out.tsv").exists()


def test_bad_input_is_trouble_and_nothing_is_sent(run_cli, stub, write_file, tmp_path):
    """Every bad row located (exit 2) before any request; an existing output is left as it was."""
    source = write_file("in.tsv", "Question\tReference answer\tActual answer\nQ1\tR1\nQ2\tR2\tA2\tX\nQ3\tR3\tA3\n")
    output = tmp_path / "out.tsv"
    output.write_text("earlier results\n", encoding="utf-8")
    result = run_cli("answers", "-i", source, "-o", output)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        f"{source}:2: the row has 2 cells but the header has 3 columns",
        f"{source}:3: the row has 4 cells but the header has 3 columns",
        "2 errors in input",
    ]
    assert stub.requests == []
    assert output.read_text(encoding="utf-8") == "earlier results\n"


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "in.tsv: no header and no rows (an empty input is refused)"),
        ("Question\tReference answer\tActual answer\n", "in.tsv: no rows under the header (an empty input is refused)"),
        (
            "Question\tReference answer\tActual Answer\nQ\tR\tA\n",
            "in.tsv:1:27: the header has no column 'Actual answer' (did you mean 'Actual Answer'?)",
        ),
    ],
)
def test_empty_input_and_a_misnamed_column(run_cli, stub, write_file, tmp_path, text, message):
    """An empty file or header-only file is refused; a misspelt column is located with did-you-mean."""
    source = write_file("in.tsv", text)
    result = run_cli("answers", "-i", source, "-o", tmp_path / "out.tsv")
    assert (result.exit_code, result.stderr) == (2, f"{tmp_path}/{message}\n")
    assert stub.requests == []


def test_the_output_may_not_be_the_input(run_cli, stub, write_file):
    """-o naming the input is refused before the run: the input is never overwritten."""
    text = Path(EXAMPLE).read_text(encoding="utf-8")
    source = write_file("in.tsv", text)
    result = run_cli("answers", "-i", source, "-o", source)
    assert (result.exit_code, result.stderr) == (2, f"-o {source}: this is the input -i; refusing to overwrite it\n")
    assert Path(source).read_text(encoding="utf-8") == text
    assert stub.requests == []


def test_an_output_in_a_missing_directory_is_refused_before_any_request(run_cli, stub, tmp_path):
    """The output's path is checked first: no call is paid for and then lost."""
    output = tmp_path / "missing" / "out.tsv"
    result = run_cli("answers", "-i", EXAMPLE, "-o", output)
    assert (result.exit_code, result.stderr) == (2, f"-o {output}: no such directory {tmp_path / 'missing'}\n")
    assert stub.requests == []


def test_a_missing_input_file(run_cli, stub, tmp_path):
    """A missing input is one located line, exit 2."""
    result = run_cli("answers", "-i", tmp_path / "none.tsv", "-o", tmp_path / "out.tsv")
    assert (result.exit_code, result.stderr) == (2, f"{tmp_path / 'none.tsv'}: no such file\n")


def test_help_names_the_columns_and_the_settings(run_cli):
    """--help says which columns are read and written, and which environment variables set the judge."""
    text = " ".join(run_cli("answers", "--help").stdout.split())
    for needed in (
        "'Question', 'Reference answer' and 'Actual answer'",
        "#Reference, #PTarget, #Matching, Reasoning, Error, Recall, Precision, F1",
        "ANSWERKEY_JUDGE_URL",
        "ANSWERKEY_JUDGE_MODEL",
        "ANSWERKEY_JUDGE_API_KEY",
        "ANSWERKEY_JUDGE_TIMEOUT",
        "ANSWERKEY_JUDGE_RETRIES",
        "ANSWERKEY_JUDGE_CACHE",
        "Exit status: 0",
    ):
        assert needed in text


def test_a_failure_that_passes_is_tried_again(run_cli, stub, monkeypatch, tmp_path):
    """By default a rate-limited row is asked again (after the Retry-After the endpoint gives)
    and judged; the output is the bundled example's, with one more request."""
    monkeypatch.delenv("ANSWERKEY_JUDGE_RETRIES")
    stub.rules.insert(
        0, ("capital of Australia", stub_server.Reply("", status=429, headers={"Retry-After": "0"}, times=1))
    )
    output = tmp_path / "judged.tsv"
    result = run_cli("answers", "-i", EXAMPLE, "-o", output, "-q")
    assert (result.exit_code, result.stderr) == (0, "")
    assert output.read_bytes().decode() == EXAMPLE_OUTPUT
    assert len(stub.requests) == 5


@pytest.mark.parametrize("value", ["11", "two"])
def test_a_bad_retry_count_is_trouble(run_cli, stub, monkeypatch, tmp_path, value):
    monkeypatch.setenv("ANSWERKEY_JUDGE_RETRIES", value)
    result = run_cli("answers", "-i", EXAMPLE, "-o", tmp_path / "out.tsv")
    assert (result.exit_code, result.stderr) == (
        2,
        f"ANSWERKEY_JUDGE_RETRIES must be a whole number from 0 to 10, not {value!r}\n",
    )
    assert stub.requests == []


def test_a_run_again_with_the_cache_asks_nothing(run_cli, stub, monkeypatch, tmp_path):
    """ANSWERKEY_JUDGE_CACHE: a second run reads every reply back, sends no request and writes
    the same output; a row whose call failed is asked again."""
    monkeypatch.setenv("ANSWERKEY_JUDGE_CACHE", str(tmp_path / "replies"))
    stub.rules.insert(0, ("moons", stub_server.Reply("", status=500, times=1)))
    first = run_cli("answers", "-i", EXAMPLE, "-o", tmp_path / "first.tsv", "-q")
    assert first.exit_code == 0 and "the judge endpoint answered HTTP 500" in first.stderr
    assert len(stub.requests) == 4
    again = run_cli("answers", "-i", EXAMPLE, "-o", tmp_path / "again.tsv", "-q")
    assert (again.exit_code, again.stderr) == (0, "")
    assert len(stub.requests) == 5  # only the row that had failed
    assert (tmp_path / "again.tsv").read_bytes().decode() == EXAMPLE_OUTPUT
    third = run_cli("answers", "-i", EXAMPLE, "-o", tmp_path / "third.tsv", "-q")
    assert third.exit_code == 0 and len(stub.requests) == 5
