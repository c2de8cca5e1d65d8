"""`answerkey compare` (answerkey.compare): the figures against independent computations (a
seeded reference loop for the bootstrap and the randomization, binomial sums and exact
enumeration for McNemar), the refusals, the reports and the exit codes (docs: Comparing systems)."""

import itertools
import json
import math
import random
import statistics
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest

from answerkey.cli.schema import json_schema
from answerkey.compare import (
    approximate_randomization,
    compare_runs,
    mcnemar_exact,
    paired_bootstrap,
    read_run,
)

ROOT = Path(__file__).resolve().parents[2]
SPIDER = ROOT / "examples" / "sql" / "spider"
A = [1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1]
B = [1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1]
SIGNATURE = "semantics:answerkey|eps:0.0001|strings:exact|engine:sqlite|v:0.1.0"


def reference_bootstrap(a, b, resamples, seed):
    """The bootstrap as a plain loop: the same draws (Random.choices picks an index per item
    from one random() each), the two systems' means apart, statistics.quantiles' cut points."""
    rng = random.Random(seed)
    n = len(a)
    means = []
    for _ in range(resamples):
        picks = rng.choices(range(n), k=n)
        means.append(sum(b[i] for i in picks) / n - sum(a[i] for i in picks) / n)
    cuts = statistics.quantiles(means, n=40, method="inclusive")
    return sum(b) / n - sum(a) / n, cuts[0], cuts[-1]


def reference_randomization(a, b, resamples, seed):
    """Approximate randomization as a plain loop: swap the systems' values of the i-th item
    whose values differ when bit i of the round's getrandbits is set."""
    rng = random.Random(seed)
    differing = [i for i in range(len(a)) if a[i] != b[i]]
    observed = abs(sum(b) - sum(a))
    count = 0
    for _ in range(resamples):
        bits = rng.getrandbits(len(differing))
        x, y = list(a), list(b)
        for position, i in enumerate(differing):
            if bits >> position & 1:
                x[i], y[i] = y[i], x[i]
        count += abs(sum(y) - sum(x)) >= observed
    return (count + 1) / (resamples + 1)


def test_bootstrap_matches_the_reference_loop():
    """20 paired verdicts, seed 12345, 1000 rounds: +0.2 [0.0, 0.45], as the plain loop gives."""
    assert paired_bootstrap(A, B) == (0.2, 0.0, 0.45)
    expected = reference_bootstrap(A, B, 1000, 12345)
    assert paired_bootstrap(A, B) == pytest.approx(expected, abs=1e-12)
    graded_a = [0.1 * (i % 7) for i in range(30)]
    graded_b = [min(1.0, value + 0.05 * (i % 3)) for i, value in enumerate(graded_a)]
    assert paired_bootstrap(graded_a, graded_b, resamples=500, seed=7) == pytest.approx(
        reference_bootstrap(graded_a, graded_b, 500, 7), abs=1e-12
    )


def test_randomization_matches_the_reference_loop_and_the_exact_test():
    """p = 0.2338 with seed 12345 (the plain loop's value), near the exact permutation p of
    14/64 = 0.21875 (6 differing items, 5 one way)."""
    assert approximate_randomization(A, B) == pytest.approx(0.23376623376623376)
    assert approximate_randomization(A, B) == reference_randomization(A, B, 1000, 12345)
    assert approximate_randomization(A, B, resamples=20000) == pytest.approx(14 / 64, abs=0.01)


def exact_mcnemar(a, b):
    """McNemar's exact test by direct binomial sums, in fractions."""
    only_a = sum(1 for x, y in zip(a, b) if x and not y)
    only_b = sum(1 for x, y in zip(a, b) if y and not x)
    n = only_a + only_b
    if n == 0:
        return Fraction(1)
    tail = sum(Fraction(math.comb(n, k), 2**n) for k in range(min(only_a, only_b) + 1))
    return min(Fraction(1), 2 * tail)


@pytest.mark.parametrize(("only_a", "only_b"), [(0, 0), (1, 5), (5, 1), (3, 3), (0, 10), (12, 30), (400, 470)])
def test_mcnemar_against_binomial_sums(only_a, only_b):
    """Every split of the discordant pairs: the same p as the binomial sum in fractions."""
    a = [1] * only_a + [0] * only_b + [1, 0]
    b = [0] * only_a + [1] * only_b + [1, 0]
    assert mcnemar_exact(a, b) == pytest.approx(float(exact_mcnemar(a, b)), rel=1e-12)
    assert mcnemar_exact(A, B) == 0.21875
    # Equal to the exact sign-flip enumeration for verdicts.
    differing = [(x, y) for x, y in zip(A, B) if x != y]
    observed = abs(sum(y - x for x, y in differing))
    flips = list(itertools.product((1, -1), repeat=len(differing)))
    extreme = sum(abs(sum(s * (y - x) for s, (x, y) in zip(signs, differing))) >= observed for signs in flips)
    assert mcnemar_exact(A, B) == extreme / len(flips)


def sql_report(path, verdicts, signature=SIGNATURE, ids=None):
    """A `sql` JSON report of items with these headline verdicts (1, 0, or 'error')."""
    ids = ids or [str(i) for i in range(len(verdicts))]
    items = []
    for id, verdict in zip(ids, verdicts):
        label = "error" if verdict == "error" else "correct" if verdict else "incorrect"
        items.append(
            {
                "id": id,
                "verdict": label,
                "verdicts": {} if label == "error" else {"answerkey": label, "spider2": "incorrect"},
                "metrics": {"soft_f1": None if label == "error" else 0.5 * (verdict == 1) + 0.25},
            }
        )
    path.write_text(json.dumps({"signature": signature, "layout": "spider", "summary": {}, "items": items}))
    return str(path)


def test_two_runs_one_line_and_the_changed_items(run_cli, tmp_path):
    """The text output: one line per pair with the figures above, then fixed and broken items."""
    a = sql_report(tmp_path / "a.json", A)
    b = sql_report(tmp_path / "b.json", B)
    result = run_cli("compare", a, b)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        f"{b} vs {a}: accuracy 0.5500 -> 0.7500, +0.2000 [95% CI +0.0000, +0.4500], "
        "randomization p = 0.2338, McNemar p = 0.2188; fixed 5, broken 1 of 20 items\n"
        "  fixed: '2', '3', '8', '13', '16'\n"
        "  broken: '7'\n"
        "signature: measure:accuracy|resamples:1000|seed:12345|v:0.1.0\n"
    )


def test_json_report_lists_every_changed_item_and_excludes_errors(run_cli, tmp_path):
    """An item whose gold failed in either run does not count; the JSON has all values and
    fits `answerkey schema compare-report`."""
    a = sql_report(tmp_path / "a.json", ["error", *A[1:]])
    b = sql_report(tmp_path / "b.json", B)
    c = sql_report(tmp_path / "c.json", A)
    out = tmp_path / "comparison.json"
    result = run_cli("compare", a, b, c, "--json", out, "-q", "--resamples", "200", "--seed", "1")
    assert (result.exit_code, result.stdout) == (0, "")
    document = json.loads(out.read_text())
    jsonschema.validate(document, json_schema("compare-report"))
    assert document["signature"] == "measure:accuracy|resamples:200|seed:1|v:0.1.0"
    first, second = document["comparisons"]
    assert (first["items"], first["better"], first["worse"]) == (19, ["2", "3", "8", "13", "16"], ["7"])
    expected = reference_bootstrap(A[1:], B[1:], 200, 1)
    assert (first["difference"], first["low"], first["high"]) == pytest.approx(expected, abs=1e-12)
    assert first["p_mcnemar"] == float(exact_mcnemar(A[1:], B[1:]))
    assert (second["difference"], second["p_randomization"], second["p_mcnemar"]) == (0.0, 1.0, 1.0)
    assert document["items"][0] == {"id": "0", "values": [None, 1.0, 1.0]}


def test_a_metric_has_no_mcnemar(run_cli, tmp_path):
    """--measure soft_f1: graded values, 'better'/'worse', no McNemar."""
    a = sql_report(tmp_path / "a.json", A)
    b = sql_report(tmp_path / "b.json", B)
    result = run_cli("compare", a, b, "--measure", "soft_f1", "--show-items", "0")
    assert result.exit_code == 0
    assert "soft_f1 0.5250 -> 0.6250, +0.1000" in result.stdout
    assert "McNemar" not in result.stdout
    assert "; better 5, worse 1 of 20 items\nsignature: measure:soft_f1|" in result.stdout


@pytest.mark.parametrize(
    ("second", "message"),
    [
        (
            lambda tmp: sql_report(tmp / "b.json", A[:18] + [1, 1], ids=[str(i) for i in range(18)] + ["x", "y"]),
            "{b} is over other items: 2 items of {a} missing ('18', '19'); 2 items not in {a} ('x', 'y')",
        ),
        (
            lambda tmp: sql_report(tmp / "b.json", B, signature=SIGNATURE.replace("eps:0.0001", "eps:0")),
            "{b} and {a} have different signatures: epsilon 0.0001 against 0 "
            "(--allow-different-signature compares them anyway)",
        ),
    ],
    ids=["items", "signature"],
)
def test_refusals_say_what_differs(run_cli, tmp_path, second, message):
    """Different item sets or signatures: one line naming the difference, exit 2."""
    a = sql_report(tmp_path / "a.json", A)
    b = second(tmp_path)
    result = run_cli("compare", a, b)
    assert result.exit_code == 2
    assert result.stderr == message.format(a=a, b=b) + "\n"


def test_allow_different_signature(run_cli, tmp_path):
    """--allow-different-signature compares, with a warning."""
    a = sql_report(tmp_path / "a.json", A)
    b = sql_report(tmp_path / "b.json", B, signature=SIGNATURE.replace("eps:0.0001", "eps:0"))
    result = run_cli("compare", a, b, "--allow-different-signature", "-q")
    assert result.exit_code == 0
    assert result.stderr == "warning: the runs have different signatures (--allow-different-signature)\n"


def test_one_run_and_unknown_measures_are_trouble(run_cli, tmp_path):
    """One run, an unknown measure, a file that is no report: exit 2, one line each."""
    a = sql_report(tmp_path / "a.json", A)
    assert run_cli("compare", a).stderr == "compare needs at least two runs (RUN_A RUN_B)\n"
    result = run_cli("compare", a, a, "--measure", "bleu")
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"{a}: no measure 'bleu' in this sql report (known: accuracy, accuracy:answerkey, accuracy:spider2, soft_f1)\n"
    )
    other = tmp_path / "other.json"
    other.write_text('{"signature": "v:0.1.0", "figures": []}')
    result = run_cli("compare", a, other)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{other}: no items in this report")


def test_two_real_sql_runs_of_the_spider_example(run_cli, tmp_path):
    """Two `sql` runs on the bundled Spider items (the second fixes item 1 under spider2): the
    compared figures are the reference loop's."""
    predictions = (SPIDER / "pred.sql").read_text().splitlines()
    predictions[1] = "SELECT country FROM singer WHERE age > 30"
    second = tmp_path / "pred2.sql"
    second.write_text("\n".join(predictions) + "\n")
    reports = []
    for name, prediction in (("a", SPIDER / "pred.sql"), ("b", second)):
        path = tmp_path / f"{name}.json"
        args = ["sql", SPIDER / "gold.sql", prediction, "--db", SPIDER / "database", "--json", path, "-q"]
        assert run_cli(*args).exit_code == 0
        reports.append(str(path))
    runs = [read_run(path) for path in reports]
    result = compare_runs(runs, measure="accuracy:spider2")
    a = [runs[0].measures["accuracy:spider2"][id] for id in runs[0].ids]
    b = [runs[1].measures["accuracy:spider2"][id] for id in runs[0].ids]
    comparison = result.comparisons[0]
    assert (comparison.better, comparison.worse) == (("1",), ())
    assert (comparison.difference, comparison.low, comparison.high) == pytest.approx(
        reference_bootstrap(a, b, 1000, 12345), abs=1e-12
    )
    assert comparison.p_randomization == reference_randomization(a, b, 1000, 12345)
    assert comparison.p_mcnemar == 1.0


def test_the_comparison_as_html(run_cli, tmp_path):
    """--html: the items table holds each run's value per item."""
    a = sql_report(tmp_path / "a.json", A)
    b = sql_report(tmp_path / "b.json", B)
    page = tmp_path / "comparison.html"
    assert run_cli("compare", a, b, "--html", page, "-q").exit_code == 0
    text = page.read_text()
    data = json.loads(text.split('id="answerkey-data">')[1].split("</script>")[0])
    assert [column["header"] for column in data["items"]["columns"]] == ["id", a, b]
    assert data["items"]["rows"][2] == ["2", 0, 1]
    (headline,) = data["headline"]
    comparison = compare_runs([read_run(a), read_run(b)], measure="accuracy").comparisons[0]
    assert headline == {
        "name": f"{b} - {a}",
        "value": comparison.difference,
        "low": comparison.low,
        "high": comparison.high,
        "n": comparison.items,
        "method": "bootstrap",
    }
    statistics = next(sheet for sheet in data["sheets"] if sheet["name"] == "Statistics")
    formats = {column["header"]: column["format"] for column in statistics["columns"]}
    assert (formats["randomization p"], formats["McNemar p"]) == ("ratio", "ratio")


@pytest.mark.parametrize(
    ("args", "measure", "headline"),
    [
        (
            ["score", ROOT / "examples/personnel/corpus.yaml", ROOT / "examples/personnel/answers.jsonl"],
            "accuracy",
            ("summary", "accuracy"),
        ),
        (
            [
                "qatch",
                ROOT / "examples/qatch/sp-tests.jsonl",
                "--task",
                "sp",
                "--db",
                ROOT / "examples/qatch/databases",
            ],
            "execution_accuracy",
            ("summary", "means", "execution_accuracy"),
        ),
        (
            ["sdmx", ROOT / "examples/sdmx/cases", ROOT / "examples/sdmx/selections.jsonl"],
            "macro_recall",
            ("summary", "macro_recall"),
        ),
        (
            ["steps", "evaluate", ROOT / "examples/steps/reference.yaml", ROOT / "examples/steps/responses.jsonl"],
            "steps_score",
            ("summary", "mean_steps_score"),
        ),
    ],
    ids=["score", "qatch", "sdmx", "steps"],
)
def test_each_workflow_is_read_with_its_headline(run_cli, tmp_path, args, measure, headline):
    """A run against itself: the headline measure's mean is the report's own headline figure,
    nothing changed, p = 1."""
    path = tmp_path / "run.json"
    run_cli(*args, "--json", path, "-q")
    document = json.loads(path.read_text())
    expected = document
    for key in headline:
        expected = expected[key]
    run = read_run(str(path))
    assert run.headline == measure
    comparison = compare_runs([run, run]).comparisons[0]
    assert comparison.baseline_mean == pytest.approx(expected)
    assert (comparison.difference, comparison.p_randomization, comparison.better, comparison.worse) == (
        0.0,
        1.0,
        (),
        (),
    )


def test_the_comparison_as_a_workbook(run_cli, tmp_path):
    """--xlsx: Overview (each run's value per item), Statistics (one row per comparison), Warnings."""
    import openpyxl

    a = sql_report(tmp_path / "a.json", A)
    b = sql_report(tmp_path / "b.json", B)
    path = tmp_path / "comparison.xlsx"
    assert run_cli("compare", a, b, "--xlsx", path, "-q").exit_code == 0
    workbook = openpyxl.load_workbook(path)
    assert workbook.sheetnames == ["Overview", "Statistics", "Warnings"]
    statistics = [[cell.value for cell in row] for row in workbook["Statistics"].iter_rows(max_row=2)]
    assert statistics[0][:6] == ["system", "baseline", "items", "baseline mean", "system mean", "difference"]
    assert statistics[1][:6] == [b, a, 20, 0.55, 0.75, pytest.approx(0.2)]
    assert statistics[1][-4:] == [pytest.approx(0.23376623376623376), 0.21875, 5, 1]
