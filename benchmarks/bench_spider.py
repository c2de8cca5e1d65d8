"""The plain SQL evaluation against the raw SQLite limit (issue 25), on a Spider-dev-shaped suite.

    python benchmarks/bench_spider.py [--json OUT] [--quick] [--repeat N]

The suite is built here, seeded, in a temporary directory: 20 SQLite databases of three
tables (a few hundred rows each) and 1,000 gold/predicted pairs in Spider's layout (joins,
GROUP BY, HAVING, ORDER BY with LIMIT, nested queries, DISTINCT; a fifth of the predictions
wrong, one in fifty failing). Figures:

  1. ``answerkey sql -j 1`` (all four semantics decided, the default metrics), the whole
     process, against the raw limit: one ``python -c`` process that executes every gold and
     predicted query with ``sqlite3`` (one connection per database) and compares ``set()``s
     of the rows. Interpreter start is in both. Goal: at most 3x;
  2. ``answerkey sql --semantics test-suite --metrics none -j 1`` against the same raw
     limit. Goal: at most 2x;
  3. loading alone (``answerkey.execution.load.load_inputs``, in a fresh process, timed
     inside it from the call to its return) of 100,000 items against 10,000, in the Spider
     and in the BIRD layout: the time per item. Goal: at most 1.2x.

Command runs are wall seconds, best of ``--repeat`` (default 3), the runs of one figure
alternating with its baseline's, after one run of each not counted (the databases read into
the page cache, answerkey's modules compiled: every process reads compiled modules, as from
an installed package, whatever PYTHONDONTWRITEBYTECODE says). The machine's load average is printed beside the table:
the machine may be shared, so ratios (measured in the same run) are the figures to read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _table import Figure, print_table, write_json

SEED = 25
DATABASES = 20
ITEMS = 1_000
COUNTRIES = ("France", "Japan", "Brazil", "Kenya", "Canada", "India", "Norway", "Chile")
GENRES = ("rock", "jazz", "pop", "folk", "blues")

# Templates: the gold SQL, an equivalent prediction as models write them, and a wrong one.
# {k} {y} {c} {g} are filled per item.
TEMPLATES: list[tuple[str, str, str]] = [
    (
        "SELECT name, age FROM singer WHERE age > {k}",
        "select age, name from singer where {k} < age",
        "SELECT name, age FROM singer WHERE age >= {k}",
    ),
    (
        "SELECT country, count(*) FROM singer GROUP BY country",
        "SELECT country, COUNT(singer_id) FROM singer GROUP BY country",
        "SELECT country, count(DISTINCT age) FROM singer GROUP BY country",
    ),
    (
        "SELECT T1.name, T2.title FROM singer AS T1 JOIN song AS T2 ON T1.singer_id = T2.singer_id WHERE T2.genre = '{g}'",
        "SELECT s.name, t.title FROM song t JOIN singer s ON s.singer_id = t.singer_id WHERE t.genre = '{g}'",
        "SELECT T1.name, T2.title FROM singer AS T1 JOIN song AS T2 ON T1.singer_id = T2.singer_id",
    ),
    (
        "SELECT name FROM singer ORDER BY age DESC LIMIT {n}",
        "SELECT name FROM singer ORDER BY age DESC LIMIT {n}",
        "SELECT name FROM singer ORDER BY age ASC LIMIT {n}",
    ),
    (
        "SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM song WHERE year > {y})",
        "SELECT DISTINCT T1.name FROM singer T1 JOIN song T2 ON T1.singer_id = T2.singer_id WHERE T2.year > {y}",
        "SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM song WHERE year > {y})",
    ),
    (
        "SELECT genre, avg(sales) FROM song GROUP BY genre HAVING count(*) > {h}",
        "SELECT genre, AVG(sales) FROM song GROUP BY genre HAVING COUNT(*) > {h}",
        "SELECT genre, sum(sales) FROM song GROUP BY genre HAVING count(*) > {h}",
    ),
    (
        "SELECT count(*) FROM singer WHERE country = '{c}'",
        "SELECT COUNT(*) FROM singer WHERE country = '{c}'",
        "SELECT count(*) FROM singer WHERE country != '{c}'",
    ),
    (
        "SELECT T1.name, count(*) FROM singer AS T1 JOIN song AS T2 ON T1.singer_id = T2.singer_id "
        "GROUP BY T1.singer_id ORDER BY count(*) DESC LIMIT 5",
        "SELECT s.name, COUNT(*) AS n FROM song t JOIN singer s ON t.singer_id = s.singer_id "
        "GROUP BY s.singer_id ORDER BY n DESC LIMIT 5",
        "SELECT T1.name, count(*) FROM singer AS T1 JOIN song AS T2 ON T1.singer_id = T2.singer_id "
        "GROUP BY T1.singer_id ORDER BY count(*) ASC LIMIT 5",
    ),
    (
        "SELECT title FROM song WHERE sales > (SELECT avg(sales) FROM song WHERE genre = '{g}')",
        "SELECT title FROM song WHERE sales > (SELECT AVG(sales) FROM song WHERE genre = '{g}')",
        "SELECT title FROM song WHERE sales < (SELECT avg(sales) FROM song WHERE genre = '{g}')",
    ),
    (
        "SELECT DISTINCT T3.name FROM singer AS T1 JOIN song AS T2 ON T1.singer_id = T2.singer_id "
        "JOIN label AS T3 ON T2.label_id = T3.label_id WHERE T1.country = '{c}'",
        "SELECT DISTINCT l.name FROM label l JOIN song t ON t.label_id = l.label_id "
        "JOIN singer s ON s.singer_id = t.singer_id WHERE s.country = '{c}'",
        "SELECT T3.name FROM singer AS T1 JOIN song AS T2 ON T1.singer_id = T2.singer_id "
        "JOIN label AS T3 ON T2.label_id = T3.label_id WHERE T1.country = '{c}'",
    ),
    (
        "SELECT country FROM singer GROUP BY country ORDER BY avg(age) LIMIT 1",
        "SELECT country FROM singer GROUP BY country ORDER BY AVG(age) ASC LIMIT 1",
        "SELECT country FROM singer GROUP BY country ORDER BY avg(age) DESC LIMIT 1",
    ),
    (
        "SELECT name, founded FROM label WHERE founded < {y} ORDER BY founded",
        "SELECT name, founded FROM label WHERE founded < {y} ORDER BY founded ASC",
        "SELECT name, founded FROM label WHERE founded <= {y} ORDER BY name",
    ),
    (
        "SELECT count(*) FROM song WHERE label_id NOT IN (SELECT label_id FROM label WHERE country = '{c}')",
        "SELECT COUNT(*) FROM song WHERE label_id NOT IN (SELECT label_id FROM label WHERE country = '{c}')",
        "SELECT count(*) FROM song WHERE label_id IN (SELECT label_id FROM label WHERE country = '{c}')",
    ),
    (
        "SELECT max(sales), min(sales), genre FROM song GROUP BY genre",
        "SELECT MAX(sales), MIN(sales), genre FROM song GROUP BY genre",
        "SELECT max(sales), genre FROM song GROUP BY genre",
    ),
]
# A failing prediction: a column no table has.
FAILING = "SELECT nickname FROM singer WHERE age > {k}"


def write_database(path: Path, rng: random.Random) -> None:
    """One database: 150 singers, 400 songs, 30 labels."""
    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
        CREATE TABLE label (label_id INTEGER PRIMARY KEY, name TEXT, country TEXT, founded INTEGER);
        CREATE TABLE song (song_id INTEGER PRIMARY KEY, singer_id INTEGER REFERENCES singer,
                           label_id INTEGER REFERENCES label, title TEXT, genre TEXT, year INTEGER,
                           sales REAL);
        """
    )
    connection.executemany(
        "INSERT INTO singer VALUES (?, ?, ?, ?)",
        [(i, f"Singer {i:03d}", rng.choice(COUNTRIES), rng.randint(18, 70)) for i in range(150)],
    )
    connection.executemany(
        "INSERT INTO label VALUES (?, ?, ?, ?)",
        [(i, f"Label {i:02d}", rng.choice(COUNTRIES), rng.randint(1950, 2020)) for i in range(30)],
    )
    connection.executemany(
        "INSERT INTO song VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                i,
                rng.randrange(150),
                rng.randrange(30),
                f"Song {i:03d}",
                rng.choice(GENRES),
                rng.randint(1990, 2023),
                round(rng.uniform(1e3, 1e6), 2),
            )
            for i in range(400)
        ],
    )
    connection.commit()
    connection.close()


def item_pair(rng: random.Random) -> tuple[str, str]:
    """The gold SQL and the predicted SQL of one item: a fifth wrong, one in fifty failing."""
    values = {
        "k": rng.randint(20, 60),
        "y": rng.randint(1995, 2020),
        "c": rng.choice(COUNTRIES),
        "g": rng.choice(GENRES),
        "n": rng.randint(1, 10),
        "h": rng.randint(60, 90),
    }
    gold, correct, wrong = rng.choice(TEMPLATES)
    draw = rng.random()
    predicted = FAILING if draw < 0.02 else wrong if draw < 0.2 else correct
    return gold.format(**values), predicted.format(**values)


def write_suite(directory: Path, items: int = ITEMS) -> tuple[str, str, str]:
    """Spider's layout in ``directory``: gold.sql, pred.sql, database/; their paths."""
    rng = random.Random(SEED)
    databases = directory / "database"
    for number in range(DATABASES):
        db_id = f"db_{number:02d}"
        (databases / db_id).mkdir(parents=True)
        write_database(databases / db_id / f"{db_id}.sqlite", random.Random(SEED + number))
    gold, predictions = directory / "gold.sql", directory / "pred.sql"
    with gold.open("w") as gold_file, predictions.open("w") as predictions_file:
        for index in range(items):
            gold_sql, predicted_sql = item_pair(rng)
            gold_file.write(f"{gold_sql}\tdb_{index % DATABASES:02d}\n")
            predictions_file.write(predicted_sql + "\n")
    return str(gold), str(predictions), str(databases)


# The raw limit: every gold and predicted query executed with sqlite3, their rows compared as sets.
RAW = """
import sqlite3, sys
gold_path, predictions_path, root = sys.argv[1:]
connections = {}
correct = 0
with open(gold_path) as gold, open(predictions_path) as predictions:
    for line, predicted in zip(gold, predictions):
        sql, db_id = line.rstrip("\\n").split("\\t")
        connection = connections.get(db_id)
        if connection is None:
            uri = f"file:{root}/{db_id}/{db_id}.sqlite?mode=ro"
            connection = connections[db_id] = sqlite3.connect(uri, uri=True)
        expected = set(connection.execute(sql).fetchall())
        try:
            found = set(connection.execute(predicted.rstrip("\\n")).fetchall())
        except sqlite3.Error:
            continue
        correct += found == expected
print(correct)
"""


# Every process runs as from an installed package: Python's compiled modules written once (to
# a directory of this run) and read after, whatever PYTHONDONTWRITEBYTECODE says here.
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENVIRONMENT)
    return time.perf_counter() - start


def bench_runs(directory: Path, repeat: int) -> list[Figure]:
    gold, predictions, databases = write_suite(directory)
    raw = [sys.executable, "-c", RAW, gold, predictions, databases]
    answerkey = [sys.executable, "-m", "answerkey", "sql", gold, predictions, "--db", databases, "-j", "1", "--quiet"]
    plain = [*answerkey, "--semantics", "test-suite", "--metrics", "none"]
    times: dict[str, float] = {"raw": float("inf"), "all": float("inf"), "plain": float("inf")}
    for command in (raw, answerkey):  # the databases into the page cache, the modules compiled
        wall(command)
    for _ in range(repeat):
        for name, command in (("raw", raw), ("all", answerkey), ("plain", plain)):
            try:
                times[name] = min(times[name], wall(command))
            except subprocess.CalledProcessError as error:
                sys.exit(f"{name} failed (status {error.returncode}): {error.stderr.decode()[-2000:]}")
    baseline = "python -c: sqlite3 and set() of the rows"
    return [
        Figure("sql -j 1: four semantics, default metrics", times["all"], "s", times["raw"], baseline, "<= 3x"),
        Figure("sql --semantics test-suite --metrics none", times["plain"], "s", times["raw"], baseline, "<= 2x"),
    ]


# Loading alone, in a fresh process: the call to load_inputs, timed inside it.
LOAD = """
import sys, time
from answerkey.execution.load import load_inputs
start = time.perf_counter()
inputs = load_inputs(sys.argv[1], sys.argv[2])
print(time.perf_counter() - start, len(inputs.items))
"""


def write_layouts(directory: Path, items: int) -> dict[str, tuple[str, str]]:
    """``items`` items in the Spider and in the BIRD layout: gold and predictions paths of each."""
    rng = random.Random(SEED)
    pairs = [(item_pair(rng), f"db_{index % DATABASES:02d}") for index in range(items)]
    spider_gold, spider_predictions = directory / f"gold-{items}.sql", directory / f"pred-{items}.sql"
    spider_gold.write_text("".join(f"{gold}\t{db_id}\n" for (gold, _), db_id in pairs))
    spider_predictions.write_text("".join(f"{predicted}\n" for (_, predicted), _db_id in pairs))
    bird_gold, bird_predictions = directory / f"dev-{items}.json", directory / f"predict-{items}.json"
    records = [
        {
            "question_id": index,
            "db_id": db_id,
            "question": f"Question {index}?",
            "evidence": "",
            "SQL": gold,
            "difficulty": ("simple", "moderate", "challenging")[index % 3],
        }
        for index, ((gold, _), db_id) in enumerate(pairs)
    ]
    bird_gold.write_text(json.dumps(records, indent=4))
    bird_predictions.write_text(
        json.dumps(
            {
                str(index): f"{predicted}\t----- bird -----\t{db_id}"
                for index, ((_, predicted), db_id) in enumerate(pairs)
            },
            indent=4,
        )
    )
    return {"spider": (str(spider_gold), str(spider_predictions)), "bird": (str(bird_gold), str(bird_predictions))}


def load_seconds(gold: str, predictions: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        output = subprocess.run(
            [sys.executable, "-c", LOAD, gold, predictions], check=True, capture_output=True, text=True, env=ENVIRONMENT
        ).stdout
        best = min(best, float(output.split()[0]))
    return best


def bench_loading(directory: Path, quick: bool, repeat: int) -> list[Figure]:
    small, large = (1_000, 10_000) if quick else (10_000, 100_000)
    paths = {items: write_layouts(directory, items) for items in (small, large)}
    figures = []
    for layout in ("spider", "bird"):
        per_small = load_seconds(*paths[small][layout], repeat) / small
        per_large = load_seconds(*paths[large][layout], repeat) / large
        figures.append(
            Figure(
                f"load {large:,} items, {layout} layout, per item",
                per_large * 1e6,
                "us",
                per_small * 1e6,
                f"per item of {small:,} items",
                "<= 1.2x",
            )
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", help="write the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="load 10,000 items against 1,000")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        ENVIRONMENT["PYTHONPYCACHEPREFIX"] = str(directory / "bytecode")
        load_before = os.getloadavg()
        figures = bench_runs(directory / "suite", arguments.repeat)
        (directory / "layouts").mkdir()
        figures += bench_loading(directory / "layouts", arguments.quick, arguments.repeat)
    for figure in figures:
        limit = float(figure.goal.removeprefix("<= ").removesuffix("x"))
        figure.met = figure.ratio is not None and figure.ratio <= limit
    print_table(figures, title=f"answerkey sql against the raw SQLite limit (Spider-shaped, {ITEMS:,} items)")
    load_after = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} CPUs; load average (1, 5, 15 min) "
        f"before {', '.join(f'{x:.2f}' for x in load_before)}, after {', '.join(f'{x:.2f}' for x in load_after)}"
    )
    if arguments.json:
        write_json(figures, arguments.json)


if __name__ == "__main__":
    main()
