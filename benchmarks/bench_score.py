"""Score benchmark (issue 3, and the later performance goal): ``answerkey score`` on a
20,000-item JSONL corpus, with ``--jobs 2`` against ``--jobs 1`` (the baseline, same run).

Items mix relations (4 tuples x 3 columns; the system adds a column and shuffles), scalars,
reals within epsilon, OR alternatives and min/max items; a tenth of the answers are wrong,
a twentieth missing. Times are whole command runs (start-up, loading, scoring, JSON report),
the best of three.

Run: python benchmarks/bench_score.py [--items N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _table import Figure, print_table, write_json

SEED = 20261120
GOAL_SPEEDUP = 1.7


def item_pair(index: int, rng: random.Random) -> tuple[dict, dict | None]:
    item_id = f"q{index:05d}"
    kind = index % 5
    if kind in (0, 1):  # a relation; the system adds a name column and shuffles
        rows = [(rng.randrange(10**4), f"DEPT{rng.randrange(50)}", round(rng.uniform(2e4, 9e4), 1)) for _ in range(4)]
        canonical = "(" + " ".join(f'({a} "{b}" {c})' for a, b, c in rows) + ")"
        system_rows = [(f'"N{a}"', str(c), str(a), f'"{b}"') for a, b, c in rows]
        rng.shuffle(system_rows)
        system = "(" + " ".join("(" + " ".join(row) + ")" for row in system_rows) + ")"
        item = {"id": item_id, "query": "List them.", "answer": canonical, "tags": ["relation"]}
    elif kind == 2:  # a real within epsilon
        value = rng.uniform(1e3, 1e5)
        item = {"id": item_id, "query": "How much?", "answer": f"{value:.1f}", "tags": ["scalar"]}
        system = f"{value * (1 + 0.00005):.2f}"
    elif kind == 3:  # OR alternatives
        a, b = rng.randrange(100), rng.randrange(100, 200)
        item = {"id": item_id, "query": "Whose?", "answer": f"((({a})) OR (({b})))", "category": "1", "tags": ["or"]}
        system = f"(({b}))"
    else:  # min/max
        ids = [rng.randrange(10**4) for _ in range(3)]
        item = {
            "id": item_id,
            "query": "Who?",
            "answer": "(" + " ".join(f"({i})" for i in ids) + ")",
            "max_answer": "(" + " ".join(f'({i} "E{i}" 4{i % 10})' for i in ids) + ")",
            "tags": ["min-max"],
        }
        system = "(" + " ".join(f'("E{i}" {i})' for i in ids) + ")"
    roll = rng.random()
    if roll < 0.05:
        return item, None
    if roll < 0.15:
        system = "((0))"
    return item, {"id": item_id, "answer": system}


def write_files(directory: Path, items: int) -> tuple[str, str]:
    rng = random.Random(SEED)
    corpus, answers = directory / "corpus.jsonl", directory / "answers.jsonl"
    with corpus.open("w") as corpus_file, answers.open("w") as answers_file:
        for index in range(items):
            item, answer = item_pair(index, rng)
            corpus_file.write(json.dumps(item) + "\n")
            if answer is not None:
                answers_file.write(json.dumps(answer) + "\n")
    return str(corpus), str(answers)


def timed_run(corpus: str, answers: str, jobs: int, out: str) -> float:
    command = [
        sys.executable,
        "-c",
        "from answerkey.cli import main; main()",
        "score",
        corpus,
        answers,
        "--jobs",
        str(jobs),
        "--json",
        out,
        "--quiet",
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", dest="json_path")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        corpus, answers = write_files(Path(directory), arguments.items)
        one_out, two_out = str(Path(directory, "one.json")), str(Path(directory, "two.json"))
        one = min(timed_run(corpus, answers, 1, one_out) for _ in range(arguments.repeat))
        two = min(timed_run(corpus, answers, 2, two_out) for _ in range(arguments.repeat))
        same = Path(one_out).read_bytes() == Path(two_out).read_bytes()
    speedup = one / two
    figures = [
        Figure(f"score --jobs 1, {arguments.items:,} items", one, "s"),
        Figure(
            f"score --jobs 2, {arguments.items:,} items",
            two,
            "s",
            baseline=one,
            baseline_name="score --jobs 1 (same files, same run)",
            goal=f"<= 1/{GOAL_SPEEDUP} of it",
            met=speedup >= GOAL_SPEEDUP,
        ),
        Figure("speedup of --jobs 2", speedup, "x", goal=f">= {GOAL_SPEEDUP}x", met=speedup >= GOAL_SPEEDUP),
        Figure("--jobs 2 report identical to --jobs 1", float(same), "", goal="1", met=same),
    ]
    print_table(figures, title=f"answerkey score ({arguments.items:,} JSONL items, best of {arguments.repeat})")
    if arguments.json_path:
        write_json(figures, arguments.json_path)


if __name__ == "__main__":
    main()
