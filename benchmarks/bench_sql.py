"""SQL execution benchmark (issue 17): ``answerkey sql`` at the scale of the text-to-SQL benchmarks.

    python benchmarks/bench_sql.py [--json OUT] [--quick] [--cap SECONDS] [--only suite|large|result_eq]

Figures (inputs are generated here, seeded, in a temporary directory):
  1. a Spider-layout suite: 20 SQLite databases, 2,000 gold/predicted pairs (a tenth of the
     predictions wrong, one pair in 40 a self-join taking tens of milliseconds). ``answerkey
     sql`` (the command, wall time) with ``--jobs 2`` against ``--jobs 1``; a second run with
     ``--cache DIR`` against the first, which filled the empty cache; ``--cluster ADDRESS`` on
     a two-worker Dask ``LocalCluster`` against a one-worker one (each cluster started before
     the clock; "not available" without dask.distributed or the option). Every run's JSON
     report must be the same document;
  2. two 1,000,000-row x 5-column results (integers, reals, text, dates: SQLite stores dates as
     text) read from SQLite and judged under answerkey's semantics: time and peak memory,
     against reading the same rows with ``sqlite3``'s ``fetchall`` (each measured in a fresh
     process; peak memory is that process's peak resident size, and of the helper process
     answerkey's SQLite engine runs queries in);
  3. test-suite-sql-eval's ``result_eq`` on 8 columns whose values have the same multiset in
     every column (its column pruning keeps every column for every place): answerkey's
     ``test-suite`` semantics against a re-implementation of the official algorithm (a search
     over the product of the candidate columns), run in a process stopped at ``--cap``
     seconds ("> cap" when it did not finish).

Command runs are wall seconds (the ``--jobs`` runs best of 2, alternating; the cache and
cluster runs once each). The large results are wall seconds inside a fresh process, from the
first query to the verdict (the helper process already started), once each. The result_eq
comparisons are CPU seconds: answerkey's the best of 3 in this process, the official one a
single run in its own process. Ratios compare figures of the same run. Writes the table's
figures, the machine and its load average to ``benchmarks/latest-sql.json`` (not with --only).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import itertools
import json
import logging
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _table import Figure, print_table
from answerkey.adapters.engines import SQLiteEngine
from answerkey.adapters.sql import QueryResult, stop_query_processes
from answerkey.execution.semantics import decide
from answerkey.model import Relation
from run import answerkey_command, cpu_best_of, machine, machine_parallelism

SEED = 20261120
DATABASES = 20
ITEMS = 2_000
GOAL_JOBS = 1.7
GOAL_CACHE = 3.0
GOAL_CLUSTER = 1.5
LARGE_ROWS = 1_000_000
GOAL_LARGE_SECONDS = 5.0
GOAL_LARGE_MB = 1.5 * 1024
GOAL_LARGE_RATIO = 3.0
WIDE_COLUMNS = 8
WIDE_ROWS = 1_000
CAP_SECONDS = 30.0


# ------------------------------------------------------------------------------ 1. the suite

COUNTRIES = ["France", "Japan", "Brazil", "Kenya", "Canada", "India", "Peru", "Norway"]
VENUES = ["Arena", "Hall", "Stadium", "Club", "Theatre", "Park"]
# Template names: the gold SQL, a correct prediction (equivalent, as models write them), and
# the wrong ones (another result, or a failing query).
GOLD_TEMPLATES = {
    "filter": "SELECT name, age FROM singer WHERE age > {k}",
    "group": "SELECT country, count(*) FROM singer GROUP BY country HAVING count(*) >= {k}",
    "join": "SELECT T1.name, T2.venue, T2.year FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.year = {y}",
    "top": "SELECT name, net_worth FROM singer ORDER BY net_worth DESC LIMIT {k}",
    "aggregate": "SELECT avg(age), max(net_worth) FROM singer WHERE country = '{c}'",
    "sum": "SELECT venue, sum(attendance) FROM concert WHERE year >= {y} GROUP BY venue",
    "dates": "SELECT name, birthday FROM singer WHERE birthday < '{d}' AND country = '{c}'",
}
CORRECT_TEMPLATES = {
    "filter": "select age, name from singer where {k} < age",
    "group": "SELECT country, COUNT(*) AS n FROM singer GROUP BY country HAVING n >= {k}",
    "join": "SELECT s.name, c.venue, c.year FROM concert c JOIN singer s ON s.singer_id = c.singer_id WHERE c.year = {y}",
    "top": "SELECT name, net_worth FROM singer ORDER BY net_worth DESC LIMIT {k}",
    "aggregate": "SELECT avg(age), max(net_worth) FROM singer WHERE country = '{c}'",
    "sum": "SELECT sum(attendance), venue FROM concert WHERE year >= {y} GROUP BY venue",
    "dates": "SELECT birthday, name FROM singer WHERE country = '{c}' AND birthday < '{d}'",
}
WRONG_TEMPLATES = {
    "filter": "SELECT name, age FROM singer WHERE age >= {k}",
    "group": "SELECT country, count(*) FROM singer GROUP BY country",
    "join": "SELECT T1.name, T2.venue FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.year = {y}",
    "top": "SELECT name, net_worth FROM singer ORDER BY net_worth ASC LIMIT {k}",
    "aggregate": "SELECT avg(age), min(net_worth) FROM singer WHERE country = '{c}'",
    "sum": "SELECT venue, sum(attendances) FROM concert WHERE year >= {y} GROUP BY venue",
    "dates": "SELECT name, birthday FROM singer WHERE birthday > '{d}' AND country = '{c}'",
}
# The slow pair: a self-join of 1,200 events on a range of x (SQLite loops over all pairs).
SLOW_GOLD = (
    "SELECT count(*) FROM event AS e1 JOIN event AS e2 ON e2.x BETWEEN e1.x - {k} AND e1.x + {k} AND e1.y < e2.y"
)
SLOW_CORRECT = "SELECT COUNT(*) FROM event e1, event e2 WHERE e1.y < e2.y AND e2.x BETWEEN e1.x - {k} AND e1.x + {k}"
SLOW_WRONG = (
    "SELECT count(*) FROM event AS e1 JOIN event AS e2 ON e2.x BETWEEN e1.x - {k} AND e1.x + {k} AND e1.y <= e2.y"
)
EVENTS = 1_200


def write_database(path: Path, rng: random.Random) -> None:
    """One database: 200 singers, 600 concerts, 1,200 events."""
    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER,
                             net_worth REAL, birthday TEXT);
        CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, singer_id INTEGER REFERENCES singer,
                              venue TEXT, year INTEGER, attendance INTEGER);
        CREATE TABLE event (event_id INTEGER PRIMARY KEY, x INTEGER, y INTEGER, day TEXT);
        """
    )
    connection.executemany(
        "INSERT INTO singer VALUES (?, ?, ?, ?, ?, ?)",
        [
            (
                i,
                f"Singer {i:03d}",
                rng.choice(COUNTRIES),
                rng.randint(18, 70),
                round(rng.uniform(1e4, 1e7), 2),
                f"19{rng.randint(50, 99)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            )
            for i in range(200)
        ],
    )
    connection.executemany(
        "INSERT INTO concert VALUES (?, ?, ?, ?, ?)",
        [
            (i, rng.randrange(200), rng.choice(VENUES), rng.randint(2000, 2023), rng.randint(100, 90_000))
            for i in range(600)
        ],
    )
    connection.executemany(
        "INSERT INTO event VALUES (?, ?, ?, ?)",
        [(i, rng.randrange(10_000), rng.randrange(10_000), f"2024-01-{1 + i % 28:02d}") for i in range(EVENTS)],
    )
    connection.commit()
    connection.close()


def item_pair(index: int, rng: random.Random) -> tuple[str, str, str]:
    """The gold SQL, its db_id and the predicted SQL of item ``index``."""
    db_id = f"db_{index % DATABASES:02d}"
    values = {
        "k": rng.randint(20, 60),
        "y": rng.randint(2000, 2023),
        "c": rng.choice(COUNTRIES),
        "d": f"19{rng.randint(50, 99)}-06-15",
    }
    wrong = rng.random() < 0.1
    if rng.random() < 1 / 40:
        values["k"] = rng.randint(40, 80)
        gold, correct, incorrect = SLOW_GOLD, SLOW_CORRECT, SLOW_WRONG
    else:
        name = rng.choice(list(GOLD_TEMPLATES))
        if name == "group":
            values["k"] = rng.randint(20, 30)
        elif name == "top":
            values["k"] = rng.randint(3, 10)
        gold, correct, incorrect = GOLD_TEMPLATES[name], CORRECT_TEMPLATES[name], WRONG_TEMPLATES[name]
    return gold.format(**values), db_id, (incorrect if wrong else correct).format(**values)


@dataclass(frozen=True)
class Suite:
    gold: str
    predictions: str
    databases: str


def write_suite(directory: Path, items: int) -> Suite:
    """Spider's layout: ``gold.sql`` (``SQL<TAB>db_id``), ``pred.sql`` and ``database/<db_id>/<db_id>.sqlite``."""
    rng = random.Random(SEED)
    databases = directory / "database"
    for number in range(DATABASES):
        db_id = f"db_{number:02d}"
        (databases / db_id).mkdir(parents=True)
        write_database(databases / db_id / f"{db_id}.sqlite", random.Random(SEED + number))
    gold, predictions = directory / "gold.sql", directory / "pred.sql"
    with gold.open("w") as gold_file, predictions.open("w") as predictions_file:
        for index in range(items):
            gold_sql, db_id, predicted = item_pair(index, rng)
            gold_file.write(f"{gold_sql}\t{db_id}\n")
            predictions_file.write(predicted + "\n")
    return Suite(str(gold), str(predictions), str(databases))


def _wall_seconds(command: list[str]) -> float:
    start = time.perf_counter()
    finished = subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if finished.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed with status {finished.returncode}: {finished.stderr[-2000:]}")
    return seconds


def cluster_option(command: list[str]) -> str | None:
    """Why a Dask cluster cannot be measured (None: ``answerkey sql --cluster`` and dask.distributed are there)."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return "dask.distributed is not installed (pip install 'answerkey[dask]')"
    helped = subprocess.run([*command, "sql", "--help"], check=False, capture_output=True, text=True)
    if "--cluster" not in helped.stdout:
        return "answerkey sql has no --cluster option yet"
    return None


@contextlib.contextmanager
def local_cluster(workers: int) -> Iterator[str]:
    """A Dask ``LocalCluster`` of ``workers`` single-threaded worker processes: its scheduler's address."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as cluster:
        yield cluster.scheduler_address


def bench_suite(quick: bool, command: list[str]) -> list[Figure]:
    items = 200 if quick else ITEMS
    repeat = 1 if quick else 2
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        suite = write_suite(directory, items)
        base = [*command, "sql", suite.gold, suite.predictions, "--db", suite.databases, "--quiet"]
        reports: dict[str, Path] = {}

        def arguments(label: str, *extra: str) -> list[str]:
            reports[label] = directory / f"{label}.json"
            return [*base, *extra, "--json", str(reports[label])]

        # Alternating, so that both see the same machine.
        times = {1: float("inf"), 2: float("inf")}
        for _ in range(repeat):
            for jobs in (1, 2):
                times[jobs] = min(times[jobs], _wall_seconds(arguments(f"jobs{jobs}", "--jobs", str(jobs))))
        cache = directory / "cache"
        first = _wall_seconds(arguments("cache-first", "--cache", str(cache)))
        entries = sum(1 for _ in cache.rglob("*.json"))
        second = _wall_seconds(arguments("cache-second", "--cache", str(cache)))
        why_not = cluster_option(command)
        cluster: dict[int, float] = {}
        if why_not is None:
            for workers in (1, 2):
                with local_cluster(workers) as address:
                    cluster[workers] = _wall_seconds(arguments(f"cluster{workers}", "--cluster", address))
        documents = {label: json.loads(path.read_text()) for label, path in reports.items()}
        reference = documents["jobs1"]
        different = [label for label, document in documents.items() if document != reference]
        summary = reference["summary"]
    available = machine_parallelism()
    speedup = times[1] / times[2]
    cache_speedup = first / second
    figures = [
        Figure(
            f"sql --jobs 2, {items:,} Spider items, 20 dbs (wall)",
            times[2],
            "s",
            times[1],
            "answerkey sql --jobs 1 (s)",
            f">= {GOAL_JOBS}x faster",
            speedup >= GOAL_JOBS,
        ),
        Figure(
            "sql --jobs 2 speedup",
            speedup,
            "x",
            available,
            "two busy processes vs one on this machine now (x)",
            "report only",
        ),
        Figure(
            "sql --cache, second run (wall)",
            second,
            "s",
            first,
            f"first run, filling the empty cache with {entries:,} results (s)",
            f">= {GOAL_CACHE:g}x faster",
            cache_speedup >= GOAL_CACHE,
        ),
        Figure(
            "sql --cache, first run against no cache",
            first,
            "s",
            times[1],
            "the same run without --cache (s)",
            "report only",
        ),
    ]
    if why_not is None:
        cluster_speedup = cluster[1] / cluster[2]
        figures.append(
            Figure(
                "sql --cluster, 2-worker LocalCluster (wall)",
                cluster[2],
                "s",
                cluster[1],
                "a 1-worker LocalCluster (s)",
                f">= {GOAL_CLUSTER:g}x faster",
                cluster_speedup >= GOAL_CLUSTER,
            )
        )
    else:
        figures.append(
            Figure(
                "sql --cluster, 2-worker LocalCluster (wall)",
                float("nan"),
                "s",
                goal=f">= {GOAL_CLUSTER:g}x faster",
                shown="not available",
                baseline_name=f"not measured: {why_not}",
            )
        )
    figures.append(
        Figure(
            f"sql reports identical ({len(documents)} runs)",
            float(not different),
            "",
            goal="1",
            met=not different,
            baseline_name=f"differ from --jobs 1: {', '.join(different)}" if different else "",
        )
    )
    figures.append(
        Figure(
            "sql accuracy of the suite (answerkey semantics)",
            summary["accuracy"],
            "",
            baseline_name=f"{summary['correct']:,} correct, {summary['incorrect']:,} incorrect, {summary['errors']} errors",
            goal="report only",
        )
    )
    return figures


# ------------------------------------------------------------------------------ 2. large results

LARGE_GOLD = "SELECT id, qty, price, name, day FROM sale"
# The same rows, columns reversed, rows in the reverse order: the comparator must map the
# columns and compare the rows as sets.
LARGE_PREDICTED = "SELECT day, name, price, qty, id FROM sale ORDER BY id DESC"


def write_large(path: Path, rows: int) -> None:
    rng = random.Random(SEED)
    start = 730_000  # a proleptic ordinal in 1999
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE sale (id INTEGER PRIMARY KEY, qty INTEGER, price REAL, name TEXT, day TEXT)")
    from datetime import date

    connection.executemany(
        "INSERT INTO sale VALUES (?, ?, ?, ?, ?)",
        (
            (
                i,
                rng.randrange(1_000),
                round(rng.uniform(0, 1e4), 2),
                f"customer {rng.randrange(10**6):06d}",
                date.fromordinal(start + rng.randrange(9_000)).isoformat(),
            )
            for i in range(rows)
        ),
    )
    connection.commit()
    connection.close()


def _peaks() -> dict[str, float]:
    """Peak resident sizes (MB) of this process and of its largest ended child (Linux: kB)."""
    scale = 1024 if sys.platform != "darwin" else 1024 * 1024
    return {
        "self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale,
        "children_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / scale,
    }


def measure_large(mode: str, root: str) -> dict[str, object]:
    """In a fresh process: read the two results (and judge them), timed; then the peaks."""
    path = os.path.join(root, "sales", "sales.sqlite")
    if mode == "fetchall":
        start = time.perf_counter()
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        gold = connection.execute(LARGE_GOLD).fetchall()
        predicted = connection.execute(LARGE_PREDICTED).fetchall()
        seconds = time.perf_counter() - start
        connection.close()
        figures: dict[str, object] = {"seconds": seconds, "rows": [len(gold), len(predicted)]}
    else:
        engine = SQLiteEngine(root)
        database = engine.databases("sales")[0]
        engine.run(database, "SELECT 1")  # the helper process is started before the clock
        start = time.perf_counter()
        gold_result = engine.run(database, LARGE_GOLD)
        predicted_result = engine.run(database, LARGE_PREDICTED)
        read = time.perf_counter()
        decision = decide("answerkey", gold_result, predicted_result, gold_sql=LARGE_GOLD)
        seconds = time.perf_counter() - start
        assert gold_result.error is None and predicted_result.error is None, (gold_result.error, predicted_result.error)
        figures = {
            "seconds": seconds,
            "read_seconds": read - start,
            "helper_seconds": (gold_result.seconds or 0.0) + (predicted_result.seconds or 0.0),
            "judge_seconds": seconds - (read - start),
            "rows": [len(gold_result.rows), len(predicted_result.rows)],
            "correct": decision.correct,
            "reason": decision.reason,
        }
    stop_query_processes()  # the helpers end and are waited for: RUSAGE_CHILDREN counts them
    return figures | _peaks()


def _measured(*arguments: str) -> dict:
    finished = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *arguments], check=True, capture_output=True, text=True
    )
    return json.loads(finished.stdout.splitlines()[-1])


def bench_large(quick: bool) -> list[Figure]:
    rows = 100_000 if quick else LARGE_ROWS
    with tempfile.TemporaryDirectory() as name:
        (Path(name) / "sales").mkdir()
        write_large(Path(name) / "sales" / "sales.sqlite", rows)
        baseline = _measured("--measure", "fetchall", name, "on")
        judged = _measured("--measure", "judge", name, "on")
        # A diagnosis, not a target: the same with Python's cyclic collector off in that process.
        unswept = _measured("--measure", "judge", name, "off")
    for run in (judged, unswept):
        assert run["rows"] == baseline["rows"] == [rows, rows], (run["rows"], baseline["rows"])
        assert run["correct"] is True, run["reason"]
    seconds, peak = judged["seconds"], judged["self_mb"]
    ratio = seconds / baseline["seconds"]
    return [
        Figure(
            f"2 x {rows:,} x 5 from SQLite, read and judged",
            seconds,
            "s",
            baseline["seconds"],
            "the same two queries, sqlite3 fetchall alone (s)",
            f"< {GOAL_LARGE_SECONDS:g} s, <= {GOAL_LARGE_RATIO:g}x",
            seconds < GOAL_LARGE_SECONDS and ratio <= GOAL_LARGE_RATIO,
        ),
        Figure("  of which: SQLite, in the helper process", judged["helper_seconds"], "s", goal="report only"),
        Figure(
            "  of which: rows sent back, typed values made",
            judged["read_seconds"] - judged["helper_seconds"],
            "s",
            goal="report only",
        ),
        Figure("  of which: judge (answerkey semantics)", judged["judge_seconds"], "s", goal="report only"),
        Figure(
            "  the same, Python's cyclic GC off (diagnosis)",
            unswept["seconds"],
            "s",
            seconds,
            "with the GC on, as above (s)",
            "report only",
        ),
        Figure(
            "  peak memory, the judging process",
            peak,
            "MB",
            baseline["self_mb"],
            "sqlite3 fetchall of the same rows, peak (MB)",
            f"< {GOAL_LARGE_MB / 1024:g} GB",
            peak < GOAL_LARGE_MB,
        ),
        Figure("  peak memory, its SQLite helper process", judged["children_mb"], "MB", goal="report only"),
    ]


# ------------------------------------------------------------------------------ 3. result_eq, 8 columns


def wide_results(rows: int, correct: bool) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], str]:
    """Gold and predicted rows of 8 columns holding the values 0..7: each block of 8 rows is
    a random order of them and its 7 rotations (its columns then shuffled), so every column
    holds each value equally often (every column has the same multiset: no pruning by values
    can tell columns apart).
    The prediction lists the columns in reverse order (as run.py's mapping search does; the
    official search reaches that permutation last) and shuffles the rows; when not ``correct``, one
    row also has two of its values swapped (the row sorted is the same, so a quick check of
    sorted rows passes, but no permutation of columns gives the gold's rows)."""
    rng = random.Random(SEED + rows)
    gold: list[tuple[int, ...]] = []
    while len(gold) < rows:
        order, columns = list(range(WIDE_COLUMNS)), list(range(WIDE_COLUMNS))
        rng.shuffle(order)
        rng.shuffle(columns)  # each block's own column order: no column permutation but one maps all blocks
        rotations = [[order[(i + shift) % WIDE_COLUMNS] for i in range(WIDE_COLUMNS)] for shift in range(WIDE_COLUMNS)]
        gold.extend(tuple(rotation[c] for c in columns) for rotation in rotations)
    gold = gold[:rows]
    predicted = [row[::-1] for row in gold]
    rng.shuffle(predicted)
    if not correct:
        changed = list(predicted[0])
        changed[0], changed[1] = changed[1], changed[0]
        predicted[0] = tuple(changed)
    sql = "SELECT " + ", ".join(f"c{i}" for i in range(WIDE_COLUMNS)) + " FROM scores"
    return gold, predicted, sql


def official_result_eq(gold: list[tuple], predicted: list[tuple], order_matters: bool) -> bool:
    """test-suite-sql-eval's ``result_eq`` (exec_eval.py), re-implemented from its description
    with its search unchanged: equal shapes; the rows, each sorted by the text and type of its
    values, must agree (as lists, or as sets); then, for more than 3 columns, 20 predicted
    rows drawn at random strike out, for each gold column, the predicted columns holding a
    value that column lacks; then every tuple of the product of the candidates that is a
    permutation is tried in turn: the predicted rows permuted, compared as lists or as sets
    and bags."""
    if not gold and not predicted:
        return True
    if len(gold) != len(predicted):
        return False
    width = len(gold[0])
    if len(predicted[0]) != width:
        return False

    def sorted_row(row: tuple) -> tuple:
        return tuple(sorted(row, key=lambda value: str(value) + str(type(value))))

    gold_sorted = [sorted_row(row) for row in gold]
    predicted_sorted = [sorted_row(row) for row in predicted]
    if order_matters and gold_sorted != predicted_sorted:
        return False
    if not order_matters and set(gold_sorted) != set(predicted_sorted):
        return False
    gold_values = [{row[i] for row in gold} for i in range(width)]
    candidates = [set(range(width)) for _ in range(width)]
    if width > 3:
        for _ in range(20):
            row = random.choice(predicted)
            for place in range(width):
                for column in list(candidates[place]):
                    if row[column] not in gold_values[place]:
                        candidates[place].discard(column)

    def same_bag(left: list, right: list) -> bool:
        counts: defaultdict[object, int] = defaultdict(int)
        for row in left:
            counts[row] += 1
        for row in right:
            counts[row] -= 1
            if counts[row] < 0:
                return False
        return len(left) == len(right)

    for choice in itertools.product(*candidates):
        if len(set(choice)) != width:
            continue
        permuted = predicted if width == 1 else [tuple(row[i] for i in choice) for row in predicted]
        if order_matters:
            if permuted == gold:
                return True
        elif set(gold) == set(permuted) and same_bag(gold, permuted):
            return True
    return False


def measure_official(rows: int, correct: bool) -> dict[str, object]:
    gold, predicted, _ = wide_results(rows, correct)
    random.seed(SEED)  # the official script draws its 20 rows unseeded
    start = time.process_time()
    verdict = official_result_eq(gold, predicted, order_matters=False)
    return {"seconds": time.process_time() - start, "correct": verdict}


def bench_result_eq(quick: bool, cap: float) -> list[Figure]:
    rows = 200 if quick else WIDE_ROWS
    figures = []
    for correct in (True, False):
        gold_rows, predicted_rows, sql = wide_results(rows, correct)
        names = tuple(f"c{i}" for i in range(WIDE_COLUMNS))
        gold = QueryResult(rows=Relation.from_rows([list(row) for row in gold_rows]).rows, columns=names)
        predicted = QueryResult(rows=Relation.from_rows([list(row) for row in predicted_rows]).rows, columns=names)
        seconds, decision = cpu_best_of(lambda: decide("test-suite", gold, predicted, gold_sql=sql), 3)
        ours, answerkey_decision = cpu_best_of(lambda: decide("answerkey", gold, predicted, gold_sql=sql), 3)
        assert decision.correct is correct, decision
        assert answerkey_decision.correct is correct, answerkey_decision
        try:
            finished = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--official", str(rows), str(correct)],
                check=True,
                capture_output=True,
                text=True,
                timeout=cap,
            )
            official = json.loads(finished.stdout.splitlines()[-1])
            assert official["correct"] is correct, official
            baseline, bound = official["seconds"], ""
        except subprocess.TimeoutExpired:
            baseline, bound = cap, ">"
        what = "correct" if correct else "incorrect"
        figures.append(
            Figure(
                f"test-suite rule, 8 x {rows:,}, {what}",
                seconds * 1000,
                "ms",
                baseline * 1000,
                f"test-suite-sql-eval's result_eq re-implemented, same rows (ms; stopped at {cap:g} s)",
                "report only",
                bound=bound,
            )
        )
        figures.append(Figure("  the same results, answerkey semantics", ours * 1000, "ms", goal="report only"))
    return figures


# ------------------------------------------------------------------------------ the run


SECTIONS = ("suite", "large", "result_eq")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--json",
        help=f"write the figures here (default: {HERE / 'latest-sql.json'}, unless --only is given)",
    )
    parser.add_argument("--quick", action="store_true", help="small inputs: a smoke test, not the targets")
    parser.add_argument(
        "--cap", type=float, default=CAP_SECONDS, help="stop the official result_eq after this many seconds"
    )
    parser.add_argument("--only", choices=SECTIONS, action="append", help="run only this part (repeatable)")
    parser.add_argument("--measure", nargs=3, metavar=("MODE", "ROOT", "GC"), help=argparse.SUPPRESS)
    parser.add_argument("--official", nargs=2, metavar=("ROWS", "CORRECT"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure:
        mode, root, collector = arguments.measure
        if collector == "off":
            gc.disable()
        print(json.dumps(measure_large(mode, root)))
        return
    if arguments.official:
        rows, correct = arguments.official
        print(json.dumps(measure_official(int(rows), correct == "True")))
        return
    sections = arguments.only or SECTIONS
    json_path = arguments.json or (None if arguments.only else str(HERE / "latest-sql.json"))
    before = machine()
    command = answerkey_command()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as run.py: commands timed with the bytecode cache
    figures: list[Figure] = []
    if "suite" in sections:
        figures += bench_suite(arguments.quick, command)
    if "large" in sections:
        figures += bench_large(arguments.quick)
    if "result_eq" in sections:
        figures += bench_result_eq(arguments.quick, arguments.cap)
    after = machine()
    print_table(figures, title=f"answerkey sql performance (issue 17){' --quick' if arguments.quick else ''}")
    print(
        f"\nmachine: {before['platform']}, {before['cpus']} CPUs, Python {before['python']}; "
        f"load average {before['load_average']} before, {after['load_average']} after"
    )
    if json_path is None:
        return
    document = {
        "machine": before | {"load_average_after": after["load_average"]},
        "quick": arguments.quick,
        "figures": [
            {
                "figure": f.name,
                "value": None if f.shown else f.value,
                "shown": f.shown or None,
                "unit": f.unit,
                "baseline": f.baseline,
                "baseline_bound": f.bound or None,
                "baseline_name": f.baseline_name,
                "ratio": f.ratio,
                "goal": f.goal,
                "met": f.met,
            }
            for f in figures
        ],
    }
    Path(json_path).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
