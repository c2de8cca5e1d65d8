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
    # ">" when the baseline did not finish: the figure given is where it was stopped (a cap),
    # so the true baseline is above it and the true ratio below the one printed.
    bound: str = ""
    # Text shown in place of the value (a figure that could not be measured: "not available").
    shown: str = ""

    @property
    def ratio(self) -> float | None:
        if self.baseline in (None, 0) or self.shown:
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
        baseline = f"{f.bound}{' ' if f.bound else ''}{f.baseline:.4g}" if f.baseline is not None else "-"
        ratio = "-"
        if f.ratio is not None:
            # Two decimals, or two significant digits for a ratio that would print as 0.00x.
            ratio = f"{f.ratio:.2f}x" if f.ratio >= 0.01 else f"{f.ratio:.2g}x"
            if f.bound == ">":
                ratio = "< " + ratio
        met = {True: "yes", False: "NO", None: "-"}[f.met]
        value = f"{f.shown:>12}" if f.shown else f"{f.value:>9.4g} {f.unit:<2}"
        print(f"{f.name:<48} {value} {baseline:>12} {ratio:>8}  {f.goal:<14} {met}")
        if f.baseline_name:
            print(f"{'':<4}baseline: {f.baseline_name}")


def write_json(figures: list[Figure], path: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump([asdict(f) | {"ratio": f.ratio} for f in figures], handle, indent=2)
