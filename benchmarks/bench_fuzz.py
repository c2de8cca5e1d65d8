"""Fuzzing benchmarks (issue 7): how fast `fuzz self`, `fuzz roundtrip` and `fuzz generate` go,
and what answerkey adds over the bare work (Hypothesis drawing alone, spawning the command alone).

Run: python benchmarks/bench_fuzz.py [--json OUT]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _table import Figure, print_table, write_json
from answerkey.testing.fuzz import PARSERS, fuzz_parser, generate_answers, roundtrip, run_examples

ROOT = Path(__file__).resolve().parent.parent
FORMATTER = [sys.executable, str(ROOT / "examples" / "fuzz" / "rows_to_cas.py")]


def _timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def bench_self(examples: int = 2000) -> list[Figure]:
    """CAS inputs per second in `fuzz self`, against drawing the same inputs without parsing."""
    fuzzing = _timed(lambda: fuzz_parser("cas", examples=examples, seed=1))
    drawing = _timed(lambda: run_examples(PARSERS["cas"].texts(), lambda text: None, examples=examples, seed=1))
    rate, draw_rate = examples / fuzzing, examples / drawing
    return [
        Figure(
            f"fuzz self, CAS ({examples} inputs)",
            rate,
            "/s",
            draw_rate,
            "Hypothesis drawing the same inputs, no parsing (/s)",
            ">= 0.5x",
            rate / draw_rate >= 0.5,
        ),
        Figure("fuzz self, CAS: projected time for 10^5 inputs", 100_000 / rate, "s", None, "", "report only"),
    ]


def bench_roundtrip(examples: int = 100) -> list[Figure]:
    """Calls per second of `fuzz roundtrip` with the example formatter, against spawning it alone."""
    result = None

    def run():
        nonlocal result
        result = roundtrip(FORMATTER, examples=examples, seed=1)

    seconds = _timed(run)
    rate = result.calls / seconds
    bare = _timed(
        lambda: [
            subprocess.run(FORMATTER, input=b"[[1]]", capture_output=True, check=True) for _ in range(result.calls)
        ]
    )
    bare_rate = result.calls / bare
    return [
        Figure(
            f"fuzz roundtrip ({result.calls} calls of rows_to_cas.py)",
            rate,
            "/s",
            bare_rate,
            "spawning the formatter alone, same number of calls (/s)",
            ">= 0.7x",
            rate / bare_rate >= 0.7,
        ),
    ]


def bench_generate(count: int = 2000) -> list[Figure]:
    """Answers per second written by `fuzz generate` (CAS, any answer)."""
    seconds = _timed(lambda: generate_answers(count, seed=1))
    drawing = _timed(lambda: run_examples(PARSERS["cas"].texts(), lambda text: None, examples=count, seed=1))
    return [
        Figure(
            f"fuzz generate ({count} CAS answers)",
            count / seconds,
            "/s",
            count / drawing,
            "drawing fuzz-self CAS inputs (/s)",
            "report only",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", help="also write the figures as JSON here")
    args = parser.parse_args()
    figures = bench_self() + bench_roundtrip() + bench_generate()
    print_table(figures, title="answerkey fuzz")
    if args.json:
        write_json(figures, args.json)


if __name__ == "__main__":
    main()
