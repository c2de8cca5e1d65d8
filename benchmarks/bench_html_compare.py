"""HTML report and compare benchmark (issue 29): a 50,000-item run of the sql report's shape.

Figures, each against a baseline measured in the same run:
  1. writing the HTML page (``--html``) against writing the JSON report (``--json``) of the
     same result, and the page's size against the JSON's;
  2. ``compare_runs`` of two 50,000-item runs (1,000 bootstrap rounds and 1,000 randomization
     rounds) against one pass over the items (reading both runs' values and differencing them).

Run: python benchmarks/bench_html_compare.py [--json OUT]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _table import Figure, best_of, print_table, write_json
from answerkey.compare import RunReport, compare_runs
from answerkey.report import ReportPaths, write_reports
from answerkey.report.workbook import Column, Sheet, Workbook
from answerkey.signature import Signature

SEED = 20261127
ITEMS = 50_000


class ManyItems:
    """A result of ``ITEMS`` sql-like items: ids, verdicts, SQL texts, explanations, metrics."""

    def __init__(self, rng: random.Random) -> None:
        self.signature = Signature.of(semantics="answerkey")
        self.warnings: list = []
        self.rows = [
            [
                str(n),
                f"db_{n % 40}",
                rng.choice(("correct", "incorrect")),
                "no mapping of canonical columns onto system columns makes the tuples match",
                f"SELECT name, count(*) FROM t{n % 40} WHERE x > {n} GROUP BY name ORDER BY 2 DESC LIMIT 5",
                f"SELECT name FROM t{n % 40} WHERE x >= {n}",
                rng.random(),
                rng.random(),
            ]
            for n in range(ITEMS)
        ]

    def document(self) -> dict:
        keys = ("id", "db_id", "verdict", "reason", "gold", "predicted", "cell_recall", "soft_f1")
        return {"signature": str(self.signature), "items": [dict(zip(keys, row)) for row in self.rows], "warnings": []}

    def summary_table(self) -> str:
        return ""

    def workbook(self) -> Workbook:
        columns = [
            Column("id", 10, "text"),
            Column("db_id", 10, "text"),
            Column("verdict", 10, "text"),
            Column("reason", 40, "text", wrap=True),
            Column("gold SQL", 40, "text", wrap=True),
            Column("predicted SQL", 40, "text", wrap=True),
            Column("cell_recall", 10, "ratio"),
            Column("soft_f1", 10, "ratio"),
        ]
        return Workbook(Sheet("Overview", columns, self.rows), Sheet("Statistics", [Column("group", 10, "text")], []))


def run_report(rng: random.Random, name: str) -> RunReport:
    ids = tuple(str(n) for n in range(ITEMS))
    values: dict[str, float | None] = {id: float(rng.random() < 0.6) for id in ids}
    return RunReport(name, "sql", "v:0", ids, {"accuracy": values}, "accuracy", frozenset({"accuracy"}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", metavar="OUT")
    arguments = parser.parse_args()
    rng = random.Random(SEED)
    result = ManyItems(rng)
    figures = []
    with tempfile.TemporaryDirectory() as directory:
        page, report = os.path.join(directory, "r.html"), os.path.join(directory, "r.json")
        html_seconds = best_of(lambda: write_reports(result, ReportPaths(html=page)), repeat=3)
        json_seconds = best_of(lambda: write_reports(result, ReportPaths(json=report)), repeat=3)
        figures.append(
            Figure(
                "HTML page of 50,000 items: write", html_seconds, "s", json_seconds, "the JSON report of the same run"
            )
        )
        figures.append(
            Figure(
                "HTML page of 50,000 items: size",
                os.path.getsize(page) / 1e6,
                "MB",
                os.path.getsize(report) / 1e6,
                "the JSON report's size",
            )
        )
    a, b = run_report(rng, "a.json"), run_report(rng, "b.json")

    def one_pass() -> None:
        values_a, values_b = a.measures["accuracy"], b.measures["accuracy"]
        [values_b[id] - values_a[id] for id in a.ids]  # type: ignore[operator]

    start = time.perf_counter()
    compare_runs([a, b])
    compare_seconds = time.perf_counter() - start
    figures.append(
        Figure("compare two 50,000-item runs (1,000 rounds)", compare_seconds, "s", best_of(one_pass), "one pass")
    )
    print_table(figures, title="HTML report and compare (issue 29)")
    if arguments.json:
        write_json(figures, arguments.json)


if __name__ == "__main__":
    main()
