"""`answerkey sql`: the Spider and BIRD examples, reports, errors and exit codes."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import jsonschema
import openpyxl
import pytest
import yaml

from answerkey.cli.schema import json_schema

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sql"
SPIDER_TABLE = [
    "group  items  evaluated  correct  incorrect  errors  answerkey*  test-suite    bird  spider2",
    "all       12         12        6          6       0      0.5000      0.2500  0.3333   0.4167",
    "",
    "metric                      mean",
    "cell_precision            0.6667",
    "cell_recall               0.7083",
    "tuple_cardinality         0.8000",
    "tuple_constraint          0.5278",
    "tuple_order               0.6500",
    "qatch_execution_accuracy  0.5000",
    "soft_f1                   0.4931",
    "",
    "* headline semantics: execution accuracy 0.5000 under answerkey",
    "the semantics disagree on 7 of 12 items (the reports say why)",
]
SIGNATURE = "|eps:0.0001|strings:exact|engine:sqlite|timeout:30|max_rows:1000000|max_result_bytes:67108864|v:"


@pytest.fixture
def examples(tmp_path):
    """A copy of examples/sql (tests must not touch the examples)."""
    root = tmp_path / "sql"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("build.py"))
    return root


def spider(examples, *options):
    """The arguments of a run of the Spider example."""
    root = examples / "spider"
    return ("sql", root / "gold.sql", root / "pred.sql", "--db", root / "database", *options)


def bird(examples, *options):
    """The arguments of a run of the BIRD example."""
    root = examples / "bird"
    return ("sql", root / "dev.json", root / "predict_dev.json", "--db", root / "dev_databases", *options)


def test_spider_example(run_cli, examples, tmp_path):
    """The Spider example: the summary table, a report that fits its schema, items in input
    order; the DROP TABLE prediction scores 0 and leaves its database byte-identical."""
    database = examples / "spider" / "database" / "concert_singer" / "concert_singer.sqlite"
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    report = tmp_path / "report.json"
    result = run_cli(*spider(examples, "--json", report))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[: len(SPIDER_TABLE)] == SPIDER_TABLE
    assert lines[len(SPIDER_TABLE)].startswith(f"signature: semantics:answerkey{SIGNATURE}")
    # Under the summary: the accuracy's Wilson interval, then the failing items and why.
    assert lines[len(SPIDER_TABLE) + 1 :] == [
        "",
        "accuracy 0.5000, 95% CI [0.2538, 0.7462] (Wilson, 12 items)",
        "failing: 6 of 12 items",
        # A line is cut at 120 characters.
        "  4   incorrect: on 'concert_singer': no mapping of canonical columns onto system columns gives the canonical "
        "tuples in…",
        "  6   incorrect: on 'concert_singer' (concert_singer2.sqlite): no mapping of canonical columns onto system "
        "columns give…",
        "  7   incorrect: on 'concert_singer': no mapping of canonical columns onto system columns gives the canonical "
        "tuples as…",
        "  8   incorrect: on 'concert_singer': the predicted query failed: no such column: nam",
        "  9   incorrect: on 'concert_singer': the predicted query failed: not authorized",
        "  11  incorrect: no mapping of canonical columns onto system columns gives the canonical tuples as a set",
    ]
    assert result.stderr == ""
    document = json.loads(report.read_text(encoding="utf-8"))
    jsonschema.validate(document, json_schema("sql-report"))
    assert document["layout"] == "spider"
    assert [item["id"] for item in document["items"]] == [str(n) for n in range(12)]
    suite = document["items"][6]
    assert (suite["verdict"], suite["database"], suite["databases"]) == ("incorrect", "concert_singer2.sqlite", 3)
    assert suite["reason"] == (
        "on 'concert_singer' (concert_singer2.sqlite): no mapping of canonical columns onto system columns "
        "gives the canonical tuples as a set"
    )
    drop = document["items"][9]
    assert (drop["verdict"], drop["reason"]) == (
        "incorrect",
        "on 'concert_singer': the predicted query failed: not authorized",
    )
    assert hashlib.sha256(database.read_bytes()).hexdigest() == before


def test_spider_example_verdicts_per_semantics(run_cli, examples):
    """Each case of the Spider example, decided under the four semantics (the disagreements the
    example was built to show)."""
    result = run_cli(*spider(examples, "--json", "-"))
    verdicts = [
        tuple(item["verdicts"][name] == "correct" for name in ("answerkey", "test-suite", "bird", "spider2"))
        for item in json.loads(result.stdout)["items"]
    ]
    assert verdicts == [
        (True, True, True, True),  # the same query
        (True, True, True, False),  # duplicate rows: test-suite-sql-eval removes the prediction's DISTINCT
        (True, False, False, True),  # an extra column
        (True, False, False, True),  # reals within epsilon
        (False, False, True, False),  # NULLs sorted last
        (True, False, True, False),  # ties in another order
        (False, False, False, False),  # right only on the first database of the suite
        (False, False, False, True),  # NULL is not 0 (but Spider 2.0 reads a missing value as 0)
        (False, False, False, False),  # the prediction fails
        (False, False, False, False),  # DROP TABLE
        (True, True, False, True),  # columns in another order
        (False, False, False, False),  # wrong
    ]


def test_bird_example_with_bird_semantics(run_cli, examples):
    """The BIRD example under --semantics bird: accuracy per difficulty in BIRD's order."""
    result = run_cli(*bird(examples, "--semantics", "bird"))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:6] == [
        "group                   items  evaluated  correct  incorrect  errors  answerkey  test-suite   bird*  spider2",
        "all                         8          8        4          4       0     0.7500      0.3750  0.5000   0.5000",
        "difficulty simple           3          3        3          0       0     1.0000      1.0000  1.0000   0.6667",
        "difficulty moderate         3          3        0          3       0     0.6667      0.0000  0.0000   0.6667",
        "difficulty challenging      2          2        1          1       0     0.5000      0.0000  0.5000   0.0000",
        "",
    ]
    assert "* headline semantics: execution accuracy 0.5000 under bird" in result.stdout


def test_fail_under_exits_1(run_cli, examples):
    """Headline accuracy under --fail-under: exit 1 with the figure; at or over it: exit 0."""
    result = run_cli(*spider(examples, "--fail-under", "0.9", "-q"))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "accuracy 0.5000 is under --fail-under 0.9\n"
    assert run_cli(*spider(examples, "--fail-under", "0.5", "-q")).exit_code == 0


def test_a_failing_gold_exits_2_after_the_reports(run_cli, examples, tmp_path):
    """A gold query that fails: the reports are written, each failure is listed at its gold line, exit 2."""
    gold = examples / "spider" / "gold.sql"
    gold.write_text(
        gold.read_text(encoding="utf-8").replace("avg(pet_age) FROM pets", "avg(pet_age) FROM nopets"), encoding="utf-8"
    )
    report = tmp_path / "report.yaml"
    result = run_cli(*spider(examples, "--yaml", report, "-q"))
    assert result.exit_code == 2
    assert result.stderr == (
        f"{gold}:12: item 11: the gold query failed on 'pets_1': no such table: nopets\n"
        "1 item could not be evaluated (errors of the test, listed above)\n"
    )
    document = yaml.safe_load(report.read_text(encoding="utf-8"))
    assert (document["summary"]["errors"], document["items"][11]["verdict"]) == (1, "error")


def test_bad_input_exits_2_with_located_errors(run_cli, examples, write_file):
    """Predictions that do not line up with the gold: located, nothing run."""
    predictions = write_file("pred.sql", "SELECT 1\n")
    result = run_cli("sql", examples / "spider" / "gold.sql", predictions, "--db", examples / "spider" / "database")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"{predictions}:2:1: 1 prediction for 12 gold queries: the gold query on line 2 of "
        f"{examples / 'spider' / 'gold.sql'} has no prediction\n"
    )


def test_bad_databases_exit_2(run_cli, examples, tmp_path):
    """A --db that is no directory, or an engine that does not fit it: one line, exit 2."""
    result = run_cli(*spider(examples)[:4], tmp_path / "nowhere")
    assert (result.exit_code, result.stderr) == (
        2,
        f"no directory '{tmp_path / 'nowhere'}' (--db names a directory of databases or a postgresql:// URL)\n",
    )
    result = run_cli(*spider(examples, "--engine", "postgresql"))
    assert result.exit_code == 2
    assert result.stderr.startswith("the PostgreSQL engine needs a postgresql:// URL, not the directory ")


def test_reports_and_jobs(run_cli, examples, tmp_path):
    """--json, --yaml and --xlsx at once; --jobs 2 writes the same JSON as one process."""
    paths = {name: tmp_path / f"report.{name}" for name in ("json", "yaml", "xlsx")}
    reports = [argument for name, path in paths.items() for argument in (f"--{name}", path)]
    result = run_cli(*bird(examples, "-q", *reports))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    document = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert yaml.safe_load(paths["yaml"].read_text(encoding="utf-8")) == document
    assert openpyxl.load_workbook(paths["xlsx"]).sheetnames == ["Overview", "Statistics", "Warnings", "Disagreements"]
    parallel = tmp_path / "parallel.json"
    assert run_cli(*bird(examples, "-q", "-j", "2", "--json", parallel)).exit_code == 0
    assert parallel.read_text(encoding="utf-8") == paths["json"].read_text(encoding="utf-8")


def test_cache_counts_on_standard_error(run_cli, examples, tmp_path):
    """--cache: the first run runs every gold and predicted query, the second reads them all but
    the two predictions that failed (never stored); the same report as without the cache."""
    cache = tmp_path / "cache"
    first = run_cli(*spider(examples, "--cache", cache, "--json", tmp_path / "1.json"))
    assert first.stderr == "cache: 0 results read, 54 queries run\n"
    second = run_cli(*spider(examples, "--cache", cache, "--json", tmp_path / "2.json"))
    assert second.stderr == "cache: 52 results read, 2 queries run\n"
    assert run_cli(*spider(examples, "--json", tmp_path / "3.json")).stderr == ""
    report = (tmp_path / "1.json").read_text(encoding="utf-8")
    assert (
        report == (tmp_path / "2.json").read_text(encoding="utf-8") == (tmp_path / "3.json").read_text(encoding="utf-8")
    )
    assert run_cli(*spider(examples, "--cache", cache, "-q")).stderr == ""


def test_metrics_and_semantics_options(run_cli, examples):
    """--metrics none computes none; --metrics with VES adds it and --ves-runs to the signature; bad names are usage errors."""
    document = json.loads(run_cli(*bird(examples, "--metrics", "none", "--json", "-")).stdout)
    assert document["summary"]["metrics"] == {}
    timed = json.loads(
        run_cli(
            *bird(examples, "--metrics", "execution_accuracy,valid_efficiency_score", "--ves-runs", "2", "--json", "-")
        ).stdout
    )
    assert "|ves_runs:2|" in timed["signature"]
    assert [item["metrics"]["valid_efficiency_score"] > 0 for item in timed["items"]] == [
        item["verdict"] == "correct" for item in timed["items"]
    ]
    result = run_cli(*bird(examples, "--metrics", "ex"))
    assert result.exit_code == 2
    assert "unknown metric 'ex'" in result.stderr
    assert run_cli(*bird(examples, "--semantics", "spider")).exit_code == 2


def test_both_inputs_from_standard_input_are_refused(run_cli, examples):
    """GOLD and PREDICTIONS cannot both be '-'."""
    result = run_cli("sql", "-", "-", "--db", examples / "spider" / "database")
    assert (result.exit_code, result.stderr) == (
        2,
        "only one of GOLD and PREDICTIONS can be read from standard input\n",
    )


def test_help_shows_layouts_and_examples(run_cli):
    """--help lists the layouts, the semantics and runnable examples."""
    result = run_cli("sql", "--help")
    assert result.exit_code == 0
    for text in (
        "spider     GOLD: SQL<TAB>db_id per line",
        "bird       GOLD: BIRD's dev.json",
        "[answerkey|test-suite|bird|spider2]",
        "answerkey sql examples/sql/spider/gold.sql examples/sql/spider/pred.sql --db examples/sql/spider/database",
        "Exit status: 0 evaluated, 1 headline accuracy under --fail-under, 2 trouble",
    ):
        assert text in result.stdout


def test_the_help_examples_run_on_a_fresh_clone(run_cli, repo_root, monkeypatch):
    """The two examples of --help run as written from the checkout's root, and change nothing."""
    monkeypatch.chdir(repo_root)
    before = {path: path.read_bytes() for path in EXAMPLES.rglob("*") if path.is_file()}
    spider_run = run_cli(
        "sql", "examples/sql/spider/gold.sql", "examples/sql/spider/pred.sql", "--db", "examples/sql/spider/database"
    )
    bird_run = run_cli(
        "sql",
        "examples/sql/bird/dev.json",
        "examples/sql/bird/predict_dev.json",
        "--db",
        "examples/sql/bird/dev_databases",
        "--semantics",
        "bird",
    )
    assert (spider_run.exit_code, bird_run.exit_code) == (0, 0)
    assert spider_run.stdout.splitlines()[: len(SPIDER_TABLE)] == SPIDER_TABLE
    assert {path: path.read_bytes() for path in EXAMPLES.rglob("*") if path.is_file()} == before


def test_test_suite_keep_distinct_option(run_cli, examples):
    """--test-suite-keep-distinct runs test-suite's queries with DISTINCT kept (test-suite-sql-eval's
    --keep_distinct): the Spider example's prediction adding DISTINCT is then incorrect under test-suite,
    and the signature says so; by default the reason names the rewrite."""
    default = json.loads(run_cli(*spider(examples, "--semantics", "test-suite", "--json", "-")).stdout)
    assert (default["items"][1]["verdict"], default["items"][1]["reason"]) == (
        "correct",
        "same bag of rows (queries run with DISTINCT removed, as test-suite-sql-eval's default) "
        "(correct on each of the 3 databases)",
    )
    result = run_cli(*spider(examples, "--semantics", "test-suite", "--test-suite-keep-distinct", "--json", "-"))
    assert result.exit_code == 0, result.output
    kept = json.loads(result.stdout)
    assert kept["signature"].startswith("semantics:test-suite|test_suite:keep_distinct|eps:0.0001|")
    assert (kept["items"][1]["verdict"], kept["items"][1]["reason"]) == (
        "incorrect",
        "on 'concert_singer': the gold has 5 rows, the prediction 3",
    )
    assert kept["summary"]["accuracy"] == 2 / 12


def test_duckdb_memory_limit_and_threads_reach_the_engine(run_cli, tmp_path):
    """--memory-limit and --threads set DuckDB's session: a query past the memory limit fails with its reason."""
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "db" / "w" / "w.duckdb"
    path.parent.mkdir(parents=True)
    duckdb.connect(str(path)).close()
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        json.dumps({"id": "settings", "db_id": "w", "sql": "SELECT current_setting('threads')"})
        + "\n"
        + json.dumps({"id": "big", "db_id": "w", "sql": "SELECT 1"})
        + "\n"
    )
    predictions = tmp_path / "pred.jsonl"
    predictions.write_text(
        json.dumps({"id": "settings", "sql": "SELECT 2"})
        + "\n"
        + json.dumps({"id": "big", "sql": "SELECT list(range) FROM range(50000000)"})
        + "\n"
    )
    options = ["--memory-limit", str(64 * 2**20), "--threads", "2", "--json", "-", "-q"]
    result = run_cli("sql", str(gold), str(predictions), "--db", str(tmp_path / "db"), *options)
    assert result.exit_code == 0, result.stderr
    items = {item["id"]: item for item in json.loads(result.stdout)["items"]}
    assert items["big"]["reason"] == (
        "the predicted query failed: the query needed more memory than the limit of 67,108,864 bytes "
        "(--memory-limit raises it)"
    )
    assert items["settings"]["verdict"] == "correct"


def test_qatch_execution_accuracy_is_named_apart_from_the_headline(run_cli, examples, tmp_path):
    """Under --semantics bird the headline execution accuracy (0.3333) and QATCH's metric
    (0.5000) differ: the table and the workbook call the metric qatch_execution_accuracy, and
    the reports keep the key execution_accuracy."""
    workbook, report = tmp_path / "r.xlsx", tmp_path / "r.json"
    result = run_cli(*spider(examples, "--semantics", "bird", "--xlsx", workbook, "--json", report))
    lines = result.stdout.splitlines()
    assert "qatch_execution_accuracy  0.5000" in lines
    assert "* headline semantics: execution accuracy 0.3333 under bird" in lines
    assert not any(line.startswith("execution_accuracy") for line in lines)
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["summary"]["metrics"]["execution_accuracy"] == 0.5
    assert "qatch_execution_accuracy" not in report.read_text(encoding="utf-8")
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.load_workbook(workbook, read_only=True)
    for name in ("Overview", "Statistics"):
        header = next(book[name].iter_rows(max_row=1, values_only=True))
        assert "qatch_execution_accuracy" in header and "execution_accuracy" not in header
