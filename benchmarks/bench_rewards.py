"""Execution rewards benchmark (issue 25): ``ExecutionJudge`` against a raw ``sqlite3`` loop.

    python benchmarks/bench_rewards.py [--quick] [--rounds N] [--json OUT]

A GRPO-shaped workload, generated here (seeded, in a temporary directory, no outside file):
20 Spider-layout SQLite databases of three tables (200 singers, 600 concerts, 300 songs),
and 150 questions, each with its gold query (filters, joins, GROUP BY, HAVING, ORDER BY,
LIMIT, nested queries) and 8 distinct sampled predictions: rewrites that are correct, others
that are wrong (another constant, another column, another aggregate), and some that fail (a
misspelt column, a write). The gold results are cached before the clock starts (the judge's
``gold_results``; the raw loop's row sets), so what is timed is what a training step does:
run each prediction and compare.

Figures: predicted queries judged per second by one ``ExecutionJudge`` (``judge_many`` per
question) under each semantics, against the raw limit: one ``sqlite3`` connection per
database, kept open, each prediction ``execute().fetchall()`` and ``set(rows) == gold_set``
(a failing query is wrong). Both run on one core: this process is pinned to one CPU before
any helper process starts (they inherit it), so the judge's helper processes share that core
with it. Each figure is the best of ``--rounds`` wall-clock passes over every prediction, the
contenders taking turns round after round (a change in the load falls on all of them).
The goal (within 2x of the raw loop) is the ``bird`` semantics' figure, whose rule is the raw
loop's (``set() == set()``); the others decide more and are shown beside it, and so is the
floor the engine sets: each prediction run through ``answerkey.adapters.engines`` and nothing
judged. The verdicts
of ``bird`` must equal the raw loop's on every prediction (checked). The load average is
printed before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _table import Figure, print_table, write_json
from answerkey.adapters.engines import open_engine
from answerkey.adapters.sql import stop_query_processes
from answerkey.execution import ExecutionJudge
from answerkey.execution.semantics import SEMANTICS

SEED = 20261127
DATABASES = 20
QUESTIONS = 150
SAMPLES = 8
GOAL_RATIO = 2.0
COUNTRIES = ["France", "Japan", "Brazil", "Kenya", "Canada", "India", "Peru", "Norway"]
VENUES = ["Arena", "Hall", "Stadium", "Club", "Theatre", "Park"]

# Each template: the gold query, then samples (correct ones first, then wrong and failing
# ones); {k}, {y} and {c} are filled per question, {k2} is another k.
TEMPLATES = [
    (
        "SELECT name, age FROM singer WHERE age > {k}",
        [
            "select age, name from singer where {k} < age",
            "SELECT name, age FROM singer WHERE age >= {k} + 1",
            "SELECT name, age FROM singer WHERE NOT age <= {k} ORDER BY name",
            "SELECT name, age FROM singer WHERE age > {k2}",
            "SELECT name FROM singer WHERE age > {k}",
            "SELECT name, age FROM singer WHERE age >= {k}",
            "SELECT nam, age FROM singer WHERE age > {k}",
            "DELETE FROM singer WHERE age > {k}",
        ],
    ),
    (
        "SELECT country, count(*) FROM singer GROUP BY country HAVING count(*) >= {k}",
        [
            "SELECT country, COUNT(*) AS n FROM singer GROUP BY country HAVING n >= {k}",
            "SELECT country, count(singer_id) FROM singer GROUP BY 1 HAVING count(*) > {k} - 1",
            "SELECT country, count(*) FROM singer GROUP BY country HAVING count(*) >= {k} ORDER BY 2",
            "SELECT country, count(*) FROM singer GROUP BY country",
            "SELECT country, count(*) FROM singer GROUP BY country HAVING count(*) > {k}",
            "SELECT count(*), country FROM singer GROUP BY country HAVING count(*) >= {k2}",
            "SELECT country, count(*) FROM singers GROUP BY country",
            "SELECT country, sum(age) FROM singer GROUP BY country HAVING count(*) >= {k}",
        ],
    ),
    (
        "SELECT T1.name, T2.venue FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id "
        "WHERE T2.year = {y}",
        [
            "SELECT s.name, c.venue FROM concert c JOIN singer s ON s.singer_id = c.singer_id WHERE c.year = {y}",
            "SELECT name, venue FROM singer, concert WHERE singer.singer_id = concert.singer_id AND year = {y}",
            "SELECT T1.name, T2.venue FROM singer AS T1 JOIN concert AS T2 USING (singer_id) WHERE T2.year = {y}",
            "SELECT T1.name, T2.venue FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id",
            "SELECT T1.name, T2.venue FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.concert_id "
            "WHERE T2.year = {y}",
            "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.year = {y}",
            "SELECT T1.name, T2.venue FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id",
            "SELECT name, venue FROM singer JOIN concert WHERE year = {y} LIMIT 5",
        ],
    ),
    (
        "SELECT name, net_worth FROM singer ORDER BY net_worth DESC LIMIT {l}",
        [
            "SELECT name, net_worth FROM singer ORDER BY net_worth DESC LIMIT {l}",
            "SELECT name, net_worth FROM singer ORDER BY -net_worth LIMIT {l}",
            "SELECT name, net_worth FROM singer ORDER BY net_worth DESC, name LIMIT {l} OFFSET 0",
            "SELECT name, net_worth FROM singer ORDER BY net_worth ASC LIMIT {l}",
            "SELECT name, net_worth FROM singer ORDER BY net_worth DESC LIMIT {l} + 1",
            "SELECT name FROM singer ORDER BY net_worth DESC LIMIT {l}",
            "SELECT name, networth FROM singer ORDER BY net_worth DESC LIMIT {l}",
            "SELECT name, net_worth FROM singer ORDER BY age DESC LIMIT {l}",
        ],
    ),
    (
        "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM concert WHERE year >= {y})",
        [
            "SELECT name FROM singer EXCEPT SELECT T1.name FROM singer T1 JOIN concert T2 "
            "ON T1.singer_id = T2.singer_id WHERE T2.year >= {y}",
            "SELECT s.name FROM singer s WHERE NOT EXISTS "
            "(SELECT 1 FROM concert c WHERE c.singer_id = s.singer_id AND c.year >= {y})",
            "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM concert WHERE {y} <= year)",
            "SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM concert WHERE year >= {y})",
            "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM concert WHERE year > {y})",
            "SELECT name FROM singer WHERE singer_id NOT IN (SELECT concert_id FROM concert WHERE year >= {y})",
            "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer FROM concert)",
            "DROP TABLE concert",
        ],
    ),
    (
        "SELECT avg(duration), max(duration) FROM song WHERE genre = '{g}'",
        [
            "SELECT AVG(duration), MAX(duration) FROM song WHERE genre = '{g}'",
            "SELECT sum(duration) * 1.0 / count(*), max(duration) FROM song WHERE genre = '{g}'",
            "SELECT avg(duration), max(duration) FROM song WHERE genre IN ('{g}')",
            "SELECT avg(duration), min(duration) FROM song WHERE genre = '{g}'",
            "SELECT avg(duration), max(duration) FROM song",
            "SELECT max(duration), avg(duration) FROM song WHERE genre = '{g}'",
            "SELECT avg(length), max(duration) FROM song WHERE genre = '{g}'",
            "SELECT avg(duration), max(duration) FROM song WHERE genre = '{g}' GROUP BY singer_id",
        ],
    ),
]
GENRES = ["pop", "rock", "jazz", "folk", "soul"]


def write_database(path: Path, rng: random.Random) -> None:
    """One database: 200 singers, 600 concerts, 300 songs."""
    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER, net_worth REAL);
        CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, singer_id INTEGER, venue TEXT, year INTEGER);
        CREATE TABLE song (song_id INTEGER PRIMARY KEY, singer_id INTEGER, genre TEXT, duration INTEGER);
        """
    )
    connection.executemany(
        "INSERT INTO singer VALUES (?, ?, ?, ?, ?)",
        [
            (i, f"Singer {i:03d}", rng.choice(COUNTRIES), rng.randint(18, 70), round(rng.uniform(1e4, 1e7), 2))
            for i in range(200)
        ],
    )
    connection.executemany(
        "INSERT INTO concert VALUES (?, ?, ?, ?)",
        [(i, rng.randrange(200), rng.choice(VENUES), rng.randint(2000, 2023)) for i in range(600)],
    )
    connection.executemany(
        "INSERT INTO song VALUES (?, ?, ?, ?)",
        [(i, rng.randrange(200), rng.choice(GENRES), rng.randint(90, 400)) for i in range(300)],
    )
    connection.commit()
    connection.close()


def write_suite(directory: Path, questions: int) -> list[tuple[str, str, list[str]]]:
    """The databases under ``directory`` and the questions: (db_id, gold, samples)."""
    for number in range(DATABASES):
        db_id = f"db_{number:02d}"
        (directory / db_id).mkdir(parents=True)
        write_database(directory / db_id / f"{db_id}.sqlite", random.Random(SEED + number))
    rng = random.Random(SEED)
    suite = []
    for index in range(questions):
        gold, samples = TEMPLATES[index % len(TEMPLATES)]
        k = rng.randint(20, 60) if index % len(TEMPLATES) != 1 else rng.randint(20, 30)
        values = {
            "k": k,
            "k2": k + rng.randint(3, 9),
            "y": rng.randint(2000, 2023),
            "l": rng.randint(3, 10),
            "c": rng.choice(COUNTRIES),
            "g": rng.choice(GENRES),
        }
        filled = [sample.format(**values) for sample in samples]
        assert len(set(filled)) == len(filled), "the samples of a question are distinct"
        suite.append((f"db_{index % DATABASES:02d}", gold.format(**values), filled[:SAMPLES]))
    return suite


def raw_loop(
    root: Path, suite: list[tuple[str, str, list[str]]]
) -> tuple[list[sqlite3.Connection], Callable[[], list[bool]]]:
    """The raw limit: its connections (one per database, read-only) and a pass of
    ``execute().fetchall()`` and ``set() == set()`` over every prediction, giving the
    verdicts (the gold row sets are made here, before any pass)."""
    connections = {
        db_id: sqlite3.connect(f"file:{root / db_id / db_id}.sqlite?mode=ro", uri=True) for db_id, _, _ in suite
    }
    golds = {(db_id, gold): set(connections[db_id].execute(gold).fetchall()) for db_id, gold, _ in suite}

    def one_pass() -> list[bool]:
        verdicts = []
        for db_id, gold, samples in suite:
            connection, expected = connections[db_id], golds[db_id, gold]
            for sample in samples:
                try:
                    verdicts.append(set(connection.execute(sample).fetchall()) == expected)
                except sqlite3.Error:
                    verdicts.append(False)
        return verdicts

    return list(connections.values()), one_pass


def interleaved_best(passes: dict[str, Callable[[], list[bool]]], rounds: int) -> dict[str, tuple[float, list[bool]]]:
    """Each pass's fastest of ``rounds`` (wall seconds), and its verdicts: the passes take
    turns, round after round, so that a change in the machine's load falls on all of them."""
    best: dict[str, tuple[float, list[bool]]] = {}
    for _ in range(rounds):
        for name, one_pass in passes.items():
            began = time.perf_counter()
            verdicts = one_pass()
            seconds = time.perf_counter() - began
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, verdicts)
    return best


def judged_pass(judge: ExecutionJudge, suite: list[tuple[str, str, list[str]]]) -> list[bool]:
    """A pass of ``judge`` over every prediction, ``judge_many`` per question: the verdicts."""
    return [judgement.correct for db_id, gold, samples in suite for judgement in judge.judge_many(db_id, gold, samples)]


def load_average() -> str:
    if not hasattr(os, "getloadavg"):
        return "unknown"
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="30 questions: a smoke test, not the figures")
    parser.add_argument("--rounds", type=int, default=5, help="passes timed per figure; the best counts (5)")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    arguments = parser.parse_args()
    print(f"load average before: {load_average()} ({os.cpu_count()} CPUs)")
    if hasattr(os, "sched_setaffinity"):
        # One core for this process and the helper processes it starts (they inherit it).
        stop_query_processes()
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        print(f"pinned to CPU {min(os.sched_getaffinity(0))}")
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        suite = write_suite(root, 30 if arguments.quick else QUESTIONS)
        predictions = sum(len(samples) for _, _, samples in suite)
        print(f"{len(suite)} questions, {predictions} predictions, {DATABASES} databases")
        connections, raw_pass = raw_loop(root, suite)
        judges = {semantics: ExecutionJudge(root, semantics=semantics) for semantics in SEMANTICS}
        for judge in judges.values():
            for db_id, gold, _ in suite:
                judge.gold_results(db_id, gold)  # cached before the clock
        # The floor the engine sets: each prediction run through it, nothing judged.
        engine = open_engine(root)
        databases = {db_id: engine.databases(db_id)[0] for db_id, _, _ in suite}
        passes = {"raw": raw_pass}
        for semantics, judge in judges.items():
            passes[semantics] = partial(judged_pass, judge, suite)
        passes["engine"] = lambda: [
            engine.run(databases[db_id], sample).ok for db_id, _, samples in suite for sample in samples
        ]
        best = interleaved_best(passes, arguments.rounds)
        for connection in connections:
            connection.close()
        distinct_golds = len({(db_id, gold) for db_id, gold, _ in suite})
        for judge in judges.values():
            assert judge.gold_runs == distinct_golds, "every gold ran once, before the clock"
            judge.close()
        raw_seconds, raw_verdicts = best["raw"]
        assert best["bird"][1] == raw_verdicts, "bird's verdicts are the raw loop's"
        raw_micro = raw_seconds / predictions * 1e6
        figures = []
        rates = [f"raw sqlite3 loop: {predictions / raw_seconds:,.0f} predictions judged per second"]
        for semantics in SEMANTICS:
            seconds, verdicts = best[semantics]
            micro = seconds / predictions * 1e6
            goal = semantics == "bird"
            figures.append(
                Figure(
                    f"ExecutionJudge, {semantics}: time per prediction",
                    micro,
                    "us",
                    raw_micro,
                    "raw sqlite3 loop, set() == set() (us per prediction)",
                    f"<= {GOAL_RATIO:g}x" if goal else "",
                    (micro / raw_micro <= GOAL_RATIO) if goal else None,
                )
            )
            rates.append(
                f"ExecutionJudge, {semantics}: {predictions / seconds:,.0f} predictions judged per second "
                f"({sum(verdicts)} of {predictions} correct)"
            )
        rates.append(f"(the raw loop: {sum(raw_verdicts)} of {predictions} correct)")
        figures.append(
            Figure(
                "engine.run alone, nothing judged: time per prediction",
                best["engine"][0] / predictions * 1e6,
                "us",
                raw_micro,
                "raw sqlite3 loop, set() == set() (us per prediction)",
            )
        )
    print_table(figures, title="Execution rewards, gold results cached, one core")
    print()
    print("\n".join(rates))
    print(f"load average after: {load_average()}")
    if arguments.json:
        write_json(figures, arguments.json)


if __name__ == "__main__":
    main()
