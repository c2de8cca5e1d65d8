"""The HTML report (answerkey.report.html, `--html OUT`): the page's data, its escaping, its
intervals against direct computations, and `--html` on every command (docs: Reading a report)."""

import hashlib
import json
import math
import re
import sys
from pathlib import Path

import pytest

from answerkey.report import ReportPaths, write_reports
from answerkey.report.html import (
    HTML_CELL_CHARS,
    HTML_CELL_LINES,
    RunContext,
    embedded_json,
    html_page,
    masked_url,
    mean_interval,
    wilson_interval,
)

sys.path.insert(0, str(Path(__file__).parent))
from test_report import ToyResult

ROOT = Path(__file__).resolve().parents[2]
SPIDER = ROOT / "examples" / "sql" / "spider"


def page_json(page):
    """The data element's JSON of a page, decoded."""
    match = re.search(r'<script type="application/json" id="answerkey-data">(.*?)</script>', page, re.S)
    return json.loads(match.group(1))


def test_embedded_json_cannot_close_or_open_an_element():
    """<, >, & and U+2028/U+2029 are \\u escapes; the text decodes back to the same value."""
    value = {"gold": "</script><img src=x onerror=alert(1)>&amp;\u2028\u2029"}
    text = embedded_json(value)
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == value


def test_wilson_interval_against_the_formula():
    """8 of 10: the Wilson interval computed by hand from its definition (z = 1.959964)."""
    z, n, p = 1.959963984540054, 10, 0.8
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert wilson_interval(8, 10) == pytest.approx((centre - half, centre + half))
    assert [round(bound, 4) for bound in wilson_interval(8, 10)] == [0.4902, 0.9433]
    assert wilson_interval(0, 5)[0] == 0.0
    assert all(math.isnan(bound) for bound in wilson_interval(0, 0))


def test_mean_interval_is_mean_plus_minus_two_standard_errors():
    """[0, 1, 1, 1]: mean 0.75, sample sd 0.5, standard error 0.25, half-width 1.96 * 0.25."""
    mean, low, high = mean_interval([0.0, 1.0, 1.0, 1.0])
    assert mean == 0.75
    assert (low, high) == pytest.approx((0.75 - 1.959963984540054 * 0.25, 0.75 + 1.959963984540054 * 0.25))
    assert math.isnan(mean_interval([0.5])[1])


def test_masked_url_hides_only_the_password():
    """A PostgreSQL URL keeps user, host, port and database; a path is left alone."""
    assert (
        masked_url("postgresql://eval:s3cret@db.example:5432/spider") == "postgresql://eval:***@db.example:5432/spider"
    )
    assert masked_url("postgresql://db.example/spider") == "postgresql://db.example/spider"
    assert masked_url("examples/sql") == "examples/sql"
    assert masked_url("postgresql://u:p@host:99999999/x") == "postgresql://***"


def test_page_holds_the_overview_items_sheets_and_inputs(tmp_path):
    """The toy result's page: signature, warnings, the Overview rows, the other sheets, each
    input's size and SHA-256, the command line as given."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(b'{"id": 1}\n')
    page = html_page(ToyResult(), RunContext("answerkey score corpus.jsonl", {"CORPUS": str(corpus), "ANSWERS": None}))
    data = page_json(page)
    assert data["command"] == "answerkey score corpus.jsonl"
    assert data["signature"] == str(ToyResult().signature)
    assert data["warnings"] == ["a.jsonl:3: an odd line"]
    assert [column["header"] for column in data["items"]["columns"]] == ["id", "verdict", "query", "ratio"]
    assert data["items"]["rows"][0] == ["=cmd()", "correct", "line one\r\nline two\rend", 2 / 3]
    assert [sheet["name"] for sheet in data["sheets"]] == ["Statistics", "Extra"]
    assert data["sheets"][0]["charts"] == [
        {"title": "Accuracy per tag", "labels": 0, "values": [1], "first": 1, "last": 1}
    ]
    assert data["inputs"] == [
        {
            "name": "CORPUS",
            "path": str(corpus),
            "kind": "file",
            "size": 10,
            "sha256": hashlib.sha256(b'{"id": 1}\n').hexdigest(),
        }
    ]
    # One ratio value (the other is None): a mean with no interval.
    assert data["headline"] == [
        {"name": "mean ratio", "value": 2 / 3, "low": None, "high": None, "n": 1, "method": "SE"}
    ]
    # Self-contained: no URL is fetched, only the page's own script runs.
    assert "http" not in page.split('id="answerkey-data"')[0].replace("http-equiv", "")
    assert "script-src 'nonce-" in page


def test_long_cells_are_cut_saying_so():
    """A result of 1,000 lines shows its first HTML_CELL_LINES lines and says how many are left."""
    result = ToyResult()
    result.items[0]["query"] = "\n".join(f"row {number}" for number in range(1000))
    result.items[1]["query"] = "x" * (HTML_CELL_CHARS + 5)
    rows = page_json(html_page(result))["items"]["rows"]
    first = rows[0][2].split("\n")
    assert first[:HTML_CELL_LINES] == [f"row {number}" for number in range(HTML_CELL_LINES)]
    assert first[-1].startswith(f"… cut here: {1000 - HTML_CELL_LINES} more lines,")
    assert first[-1].endswith("(the JSON report has them all)")
    assert rows[1][2].split("\n")[1] == "… cut here: 0 more lines, 5 more characters (the JSON report has them all)"


def test_write_reports_writes_the_page_atomically(tmp_path):
    """`ReportPaths(html=...)`: one file, no temporary left beside it; a lone surrogate is '?'."""
    target = tmp_path / "report.html"
    write_reports(ToyResult(), ReportPaths(html=str(target)))
    assert [path.name for path in tmp_path.iterdir()] == ["report.html"]
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert page_json(page)["items"]["rows"][1][2] == "? lone"


def _html(run_cli, tmp_path, *args):
    target = tmp_path / "report.html"
    result = run_cli(*args, "--html", target, "-q")
    assert result.exit_code in (0, 1), result.stderr
    return page_json(target.read_text(encoding="utf-8"))


def test_sql_html_has_each_semantics_and_the_command_line(run_cli, tmp_path):
    """`sql --html`: the Spider example's 12 items, gold and predicted SQL, a verdict per
    semantics, the accuracy with its Wilson interval, the inputs' digests."""
    data = _html(run_cli, tmp_path, "sql", SPIDER / "gold.sql", SPIDER / "pred.sql", "--db", SPIDER / "database")
    headers = [column["header"] for column in data["items"]["columns"]]
    assert {"gold SQL", "predicted SQL", "answerkey", "test-suite", "bird", "spider2"} <= set(headers)
    assert len(data["items"]["rows"]) == 12
    low, high = wilson_interval(6, 12)
    assert data["headline"][0] == {
        "name": "accuracy",
        "value": 0.5,
        "low": low,
        "high": high,
        "n": 12,
        "method": "Wilson",
    }
    assert data["command"] == (
        f"answerkey sql {SPIDER / 'gold.sql'} {SPIDER / 'pred.sql'} --db {SPIDER / 'database'} "
        f"--html {tmp_path / 'report.html'} -q"
    )
    gold = (SPIDER / "gold.sql").read_bytes()
    assert data["inputs"][0] == {
        "name": "GOLD",
        "path": str(SPIDER / "gold.sql"),
        "kind": "file",
        "size": len(gold),
        "sha256": hashlib.sha256(gold).hexdigest(),
    }
    assert data["inputs"][2]["kind"] == "directory"


@pytest.mark.parametrize(
    ("args", "items"),
    [
        (["score", ROOT / "examples/personnel/corpus.yaml", ROOT / "examples/personnel/answers.jsonl"], 25),
        (
            [
                "qatch",
                ROOT / "examples/qatch/sp-tests.jsonl",
                "--task",
                "sp",
                "--db",
                ROOT / "examples/qatch/databases",
            ],
            7,
        ),
        (["sdmx", ROOT / "examples/sdmx/cases", ROOT / "examples/sdmx/selections.jsonl"], 12),
        (
            [
                "steps",
                "evaluate",
                ROOT / "examples/steps/reference.yaml",
                ROOT / "examples/steps/responses.jsonl",
                "--json",
                "/dev/null",
            ],
            9,
        ),
        (["judge", "--explain", ROOT / "examples/paper/salary.cas", ROOT / "examples/paper/salary-system.cas"], 1),
    ],
    ids=["score", "qatch", "sdmx", "steps", "judge"],
)
def test_every_command_writes_the_page(run_cli, tmp_path, args, items):
    """`--html` on each command gives a page with one row per item of its report."""
    data = _html(run_cli, tmp_path, *args)
    assert len(data["items"]["rows"]) == items
    assert data["command"].startswith(f"answerkey {args[0]} ")


def test_html_to_standard_output_is_refused(run_cli):
    """`--html -`: one line, exit 2, nothing run."""
    result = run_cli("sql", SPIDER / "gold.sql", SPIDER / "pred.sql", "--db", SPIDER / "database", "--html", "-")
    assert result.exit_code == 2
    assert result.stderr == "--html needs a file name: an HTML page cannot go to standard output\n"


def test_html_over_an_input_is_refused(run_cli, tmp_path):
    """`--html GOLD`: the input is never replaced."""
    gold = tmp_path / "gold.sql"
    gold.write_bytes((SPIDER / "gold.sql").read_bytes())
    result = run_cli("sql", gold, SPIDER / "pred.sql", "--db", SPIDER / "database", "--html", gold)
    assert result.exit_code == 2
    assert result.stderr == f"--html {gold}: this is the input GOLD; refusing to overwrite it\n"
    assert gold.read_bytes() == (SPIDER / "gold.sql").read_bytes()


def test_an_odd_suffix_is_a_warning(run_cli, tmp_path):
    """`--html report.json`: written, with a warning that the name says JSON."""
    target = tmp_path / "report.json"
    result = run_cli(
        "judge", ROOT / "examples/paper/salary.cas", ROOT / "examples/paper/salary-system.cas", "--html", target
    )
    assert result.exit_code == 0
    assert f"warning: --html {target}: the file name ends in .json, but an HTML report is written\n" in result.stderr
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_answers_writes_the_page(run_cli, tmp_path, monkeypatch):
    """`answers --html`: a row per question, against the loopback stub judge."""
    import importlib.util

    path = ROOT / "tests" / "answers" / "stub_server.py"
    spec = importlib.util.spec_from_file_location("answers_stub_server", path)
    module = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    server = module.StubServer()
    try:
        server.reply_to("capital of Australia", "1\t1\t0\tSydney is not Canberra.")
        monkeypatch.setenv("ANSWERKEY_JUDGE_URL", server.url)
        monkeypatch.setenv("ANSWERKEY_JUDGE_RETRIES", "0")
        monkeypatch.delenv("ANSWERKEY_JUDGE_CACHE", raising=False)
        questions = ROOT / "examples" / "answers" / "questions.tsv"
        data = _html(run_cli, tmp_path, "answers", "-i", questions, "-o", tmp_path / "out.tsv")
    finally:
        server.close()
    assert len(data["items"]["rows"]) == 4
    assert data["inputs"][0]["name"] == "-i"
