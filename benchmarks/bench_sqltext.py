"""What reading gold SQL with sqlglot costs per item (issue 25, one SQL path).

    python benchmarks/bench_sqltext.py [--items N]

The answerkey semantics reads each distinct gold text that holds the word ``order`` with
sqlglot (its outer ORDER BY and sort keys); other texts are never given to it. Figures, in
microseconds per item over ``N`` distinct Spider-shaped gold queries (joins, GROUP BY, a
nested query, ORDER BY ... LIMIT), against the baseline measured in the same run: executing
the same query with Python's ``sqlite3`` on a Spider-sized database (3 tables, hundreds of
rows) and fetching its rows.

  1. importing sqlglot and its SQLite dialect (once per process, in a fresh process);
  2. a gold without ORDER BY (the text check that keeps sqlglot out);
  3. a new gold with ORDER BY: ``has_outer_order_by`` then ``sort_keys`` (tokenize once, parse
     the first statement once, resolve the terms), the best of three rounds on new golds;
  4. the same gold again (read from the cache by text and dialect).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

from answerkey.adapters.sqltext import has_outer_order_by, sort_keys

GOLD = (
    "SELECT T1.name, count(*) FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id "
    "WHERE T1.age > (SELECT avg(age) FROM singer) AND T2.concert_id < {n} GROUP BY T1.name "
    "ORDER BY count(*) DESC LIMIT 3"
)


def _database(path: str) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, age INTEGER)")
        connection.execute("CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, year INTEGER)")
        connection.execute("CREATE TABLE singer_in_concert (concert_id INTEGER, singer_id INTEGER)")
        connection.executemany(
            "INSERT INTO singer VALUES (?, ?, ?)", [(i, f"s{i % 97}", 20 + i % 40) for i in range(400)]
        )
        connection.executemany("INSERT INTO concert VALUES (?, ?)", [(i, 2000 + i % 20) for i in range(100)])
        connection.executemany(
            "INSERT INTO singer_in_concert VALUES (?, ?)", [(i % 100, (i * 7) % 400) for i in range(800)]
        )
    connection.close()


def _per_item(function, items) -> float:
    start = time.perf_counter()
    for item in items:
        function(item)
    return (time.perf_counter() - start) / len(items) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    items = parser.parse_args().items
    golds = [GOLD.format(n=n) for n in range(items)]
    plain = [gold.replace("ORDER BY count(*) DESC ", "") for gold in golds]
    names = ["name", "count(*)"]
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "concert_singer.sqlite")
        _database(path)
        connection = sqlite3.connect(path)
        raw = _per_item(lambda sql: connection.execute(sql).fetchall(), golds)
        connection.close()
    probe = "import time; t = time.perf_counter(); import sqlglot; from sqlglot.dialects import sqlite; print(time.perf_counter() - t)"
    imported = float(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)
    without = _per_item(has_outer_order_by, plain)

    def judged(sql: str) -> object:
        return sort_keys(sql, names, 2) if has_outer_order_by(sql) else None

    # Best of three rounds, each on golds new to the cache (the machine is shared).
    first = min(_per_item(judged, [GOLD.format(n=n + items * round) for n in range(items)]) for round in (1, 2, 3))
    again = _per_item(judged, [GOLD.format(n=n + items) for n in range(items)])
    rows = [
        ("sqlite3: execute and fetch the gold (baseline)", raw),
        ("import sqlglot + SQLite dialect (once)", imported * 1e6),
        ("gold without ORDER BY", without),
        ("new gold with ORDER BY: tokenize, parse, resolve", first),
        ("the same gold again (cached)", again),
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{items:,} distinct Spider-shaped golds; load average {load:.2f} on {os.cpu_count()} CPUs")
    print(f"{'figure':<50} {'us/item':>10} {'vs sqlite3':>10}")
    for label, micros in rows:
        print(f"{label:<50} {micros:>10,.1f} {micros / raw:>9.2f}x")


if __name__ == "__main__":
    main()
