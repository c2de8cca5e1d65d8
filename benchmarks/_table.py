"""Printing benchmark figures as a table (and JSON): figure, value, baseline, ratio, goal, met?"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    baseline: float | None = None
    baseline_name: str = ""
    goal: str = ""
    met: bool | None = None

    @property
    def ratio(self) -> float | None:
        if self.baseline in (None, 0):
            return None
        return self.value / self.baseline


def best_of(function, repeat: int = 5) -> float:
    """The fastest of ``repeat`` runs, in seconds (the least disturbed by the machine)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def print_table(figures: list[Figure], *, title: str) -> None:
    print(f"\n{title}")
    header = f"{'figure':<48} {'value':>12} {'baseline':>12} {'ratio':>8}  {'goal':<14} met?"
    print(header)
    print("-" * len(header))
    for f in figures:
        baseline = f"{f.baseline:.4g}" if f.baseline is not None else "-"
        ratio = f"{f.ratio:.2f}x" if f.ratio is not None else "-"
        met = {True: "yes", False: "NO", None: "-"}[f.met]
        print(f"{f.name:<48} {f.value:>9.4g} {f.unit:<2} {baseline:>12} {ratio:>8}  {f.goal:<14} {met}")
        if f.baseline_name:
            print(f"{'':<4}baseline: {f.baseline_name}")


def write_json(figures: list[Figure], path: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump([asdict(f) | {"ratio": f.ratio} for f in figures], handle, indent=2)
