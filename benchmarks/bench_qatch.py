"""Speed of the QATCH table metrics: all six on 16,000 x 10 tables (goal: < 0.5 s together).

    python benchmarks/bench_qatch.py

Prints one table: figure, value, baseline (measured in the same run), ratio, goal, met?.
Tables are seeded random rows of integers, reals (3 decimals) and strings; the prediction
is the target shuffled with 10% of its rows changed. Times are the best of five runs, in
CPU seconds of this process (steadier than wall time on a shared machine).

Baselines: for the six metrics, the same figures computed with plain Python ``==`` on the
raw cells (hash sets and Counters, no typed values, no epsilon), as QATCH's newer
evaluators do; for tuple order, QATCH's own list-based algorithm (quadratic) on 2,000 rows.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from itertools import chain
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from answerkey.comparator.values import MatchRule
from answerkey.metrics import METRICS, TABLE_METRICS, table_scores
from answerkey.model import Relation

ROWS, COLUMNS, REPEATS = 16_000, 10, 5


def make_tables(rows: int, seed: int = 2024) -> tuple[list[list], list[list]]:
    chooser = random.Random(seed)
    makers = [
        lambda: chooser.randrange(10**6),
        lambda: round(chooser.random() * 10**4, 3),
        lambda: f"name-{chooser.randrange(10**6)}",
    ]
    kinds = [chooser.randrange(3) for _ in range(COLUMNS)]
    target = [[makers[kind]() for kind in kinds] for _ in range(rows)]
    prediction = [list(row) for row in target]
    for row in chooser.sample(prediction, rows // 10):
        column = chooser.randrange(COLUMNS)
        row[column] = makers[kinds[column]]()
    chooser.shuffle(prediction)
    return target, prediction


def best_time(function, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)


def plain_python_metrics(target: list[list], prediction: list[list]) -> dict[str, float]:
    """The six figures with Python == on raw cells (the baseline: no types, no epsilon)."""
    target_cells, prediction_cells = set(chain.from_iterable(target)), set(chain.from_iterable(prediction))
    common = len(target_cells & prediction_cells)

    def cell_sorted(row):
        return tuple(sorted(row, key=lambda cell: (type(cell).__name__, cell)))

    target_counts = Counter(map(cell_sorted, target))
    prediction_counts = Counter(map(cell_sorted, prediction))
    target_rows = dict.fromkeys(map(tuple, target))
    prediction_rows = dict.fromkeys(map(tuple, prediction))
    ranks = {row: rank for rank, row in enumerate(r for r in target_rows if r in prediction_rows)}
    order = [row for row in prediction_rows if row in ranks]
    squares = sum((position - ranks[row]) ** 2 for position, row in enumerate(order))
    n = max(len(ranks), 2)
    return {
        "cell_precision": common / len(prediction_cells),
        "cell_recall": common / len(target_cells),
        "tuple_cardinality": min(len(target), len(prediction)) / max(len(target), len(prediction)),
        "tuple_constraint": sum(prediction_counts[r] == c for r, c in target_counts.items()) / len(target_counts),
        "tuple_order": (2 - 6 * squares / (n * (n * n - 1))) / 2,
        "execution_accuracy": float(
            len(target) == len(prediction) and target_counts.keys() == prediction_counts.keys()
        ),
    }


def qatch_tuple_order(target: list[list], prediction: list[list]) -> float:
    """QATCH 1.0's tuple order algorithm: list membership and index(), quadratic."""
    new_prediction = []
    for row in prediction:
        if row in target and row not in new_prediction:
            new_prediction.append(row)
    new_target = []
    for row in target:
        if row in prediction and row not in new_target:
            new_target.append(row)
    if not new_target:
        return 0.5
    squares = sum((i - new_target.index(row)) ** 2 for i, row in enumerate(new_prediction))
    n = max(len(new_target), 2)
    return (2 - 6 * squares / (n * (n**2 - 1))) / 2


def main() -> None:
    target, prediction = make_tables(ROWS)
    target_relation, prediction_relation = Relation.from_rows(target), Relation.from_rows(prediction)
    perturbed = Relation.from_rows(
        [[cell * (1 + 1e-9) if isinstance(cell, float) else cell for cell in row] for row in prediction]
    )

    # With epsilon 0 the figures are plain Python ==; with the default 1e-4 more reals match.
    expected = plain_python_metrics(target, prediction)
    exact = table_scores(target_relation, prediction_relation, rule=MatchRule(epsilon=0))
    assert all(abs(exact[name] - expected[name]) < 1e-12 for name in TABLE_METRICS), (exact, expected)
    got = table_scores(target_relation, prediction_relation)
    near = table_scores(target_relation, perturbed)  # reals off by 1e-9 match as before
    assert all(abs(near[name] - got[name]) < 1e-4 for name in TABLE_METRICS), (near, got)

    baseline = best_time(lambda: plain_python_metrics(target, prediction))
    small_target, small_prediction = make_tables(2_000, seed=7)
    assert (
        abs(qatch_tuple_order(small_target, small_prediction) - METRICS["tuple_order"](small_target, small_prediction))
        < 1e-12
    )
    figures = [
        (
            "six metrics, typed relations (table_scores)",
            best_time(lambda: table_scores(target_relation, prediction_relation)),
            baseline,
            0.5,
        ),
        ("six metrics, lists of Python rows", best_time(lambda: table_scores(target, prediction)), baseline, 0.5),
        (
            "six metrics, every real off by 1e-9 (epsilon path)",
            best_time(lambda: table_scores(target_relation, perturbed)),
            baseline,
            None,
        ),
        (
            "six registry calls, one by one",
            best_time(lambda: [METRICS[n](target_relation, prediction_relation) for n in TABLE_METRICS], 3),
            baseline,
            None,
        ),
        (
            "tuple order, 2,000 rows (vs QATCH's algorithm)",
            best_time(lambda: METRICS["tuple_order"](small_target, small_prediction)),
            best_time(lambda: qatch_tuple_order(small_target, small_prediction), 1),
            None,
        ),
    ]

    header = ("figure", "value (s)", "baseline (s)", "ratio", "goal (s)", "met?")
    rows = [
        (
            name,
            f"{value:.3f}",
            f"{base:.3f}",
            f"{value / base:.2f}x",
            "-" if goal is None else f"< {goal}",
            "-" if goal is None else ("yes" if value < goal else "NO"),
        )
        for name, value, base, goal in figures
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print(
        f"QATCH metrics on {ROWS:,} x {COLUMNS} tables, Python {sys.version.split()[0]}, best of {REPEATS} (CPU seconds)"
    )
    for row in [header, *rows]:
        print(
            "  ".join(
                cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths))
            )
        )


if __name__ == "__main__":
    main()
