"""Core benchmarks (issue 2): CAS parse throughput and judge time on a wide system answer.

Run: python benchmarks/bench_core.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _table import Figure, best_of, print_table, write_json
from answerkey import judge, parse, render
from answerkey.model import Relation

SEED = 20261120


def mixed_rows(count: int, rng: random.Random) -> list[list]:
    words = ["SMITH", "JONES", "TAI", "LEASE", "GRAHAM", "YOUNG", "BOSTON", "DALLAS"]
    return [
        [rng.randint(1, 99999), rng.choice(words) + str(i % 97), round(rng.uniform(0, 1e5), 2), i % 2 == 0]
        for i in range(count)
    ]


def bench_parse(target_bytes: int = 5_000_000) -> list[Figure]:
    rng = random.Random(SEED)
    rows = mixed_rows(target_bytes // 32, rng)
    text = render(Relation.from_rows(rows))
    json_text = json.dumps(rows)
    size_mb = len(text.encode()) / 1e6
    parse_seconds = best_of(lambda: parse(text), repeat=2)
    json_seconds = best_of(lambda: json.loads(json_text), repeat=3)
    parse_rate = size_mb / parse_seconds
    json_rate = len(json_text.encode()) / 1e6 / json_seconds
    return [
        Figure(
            f"parse {size_mb:.1f} MB relation ({len(rows)} x 4 mixed)",
            parse_rate,
            "MB/s",
            json_rate,
            "json.loads of the same rows (MB/s)",
            "report only",
        ),
    ]


def bench_wide_judge() -> list[Figure]:
    rng = random.Random(SEED)
    rows, columns = 1000, 30
    # Distinct values per column: column c holds c * 10**6 + row-dependent numbers/strings.
    system_rows = [
        [f"c{c}-{rng.randrange(10**9)}" if c % 3 == 0 else c * 10**6 + rng.randrange(10**6) for c in range(columns)]
        for _ in range(rows)
    ]
    chosen = rng.sample(range(columns), 10)
    canonical = Relation.from_rows([[row[c] for c in chosen] for row in system_rows])
    order = list(range(columns))
    rng.shuffle(order)
    system = Relation.from_rows([[row[c] for c in order] for row in system_rows])
    verdict = judge(canonical, system)
    assert verdict.correct
    seconds = best_of(lambda: judge(canonical, system), repeat=5)
    baseline = best_of(lambda: judge(canonical, canonical), repeat=5)
    return [
        Figure(
            "judge 10 canonical of 30 shuffled columns x 1000 rows",
            seconds * 1000,
            "ms",
            baseline * 1000,
            "judge of the canonical against itself (ms)",
            "< 50 ms",
            seconds < 0.05,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", help="also write the figures as JSON to this path")
    arguments = parser.parse_args()
    figures = bench_parse() + bench_wide_judge()
    print_table(figures, title="answerkey core benchmarks")
    if arguments.json:
        write_json(figures, arguments.json)


if __name__ == "__main__":
    main()
