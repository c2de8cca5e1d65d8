"""Steps benchmark (issue 6): one SPARQL step, a 2,000-row reference with 5 required columns
against a 2,000 x 10 actual result (variables renamed, columns and rows shuffled).

The baseline is graphrag-eval's documented method, re-implemented here from its description:
for every choice of reference-many actual columns and every order of them, join each row's
values into a string and compare the multisets. Running it to the end takes minutes, so its
time is estimated: the measured time per tried column order x the number of orders it tries
before it reaches the right one.

Run: python benchmarks/bench_steps.py [--json OUT]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _table import Figure, best_of, print_table, write_json
from answerkey import judge
from answerkey.adapters.sparql import XSD, read_sparql_results
from answerkey.steps.run import score_steps
from answerkey.steps.schema import ActualStep, ReferenceStep

SEED = 20261120
ROWS, COLUMNS = 2000, 10
REQUIRED = ["v9", "v7", "v5", "v3", "v1"]
GOAL_MS = 70


def term(column: int, row: int, rng: random.Random) -> dict:
    kind = column % 5
    if kind == 0:
        return {"type": "uri", "value": f"urn:uuid:{rng.getrandbits(64):016x}"}
    if kind == 1:
        return {"type": "literal", "value": f"substation {rng.randrange(10**6)}"}
    if kind == 2:
        return {"type": "literal", "value": str(rng.randrange(10**6)), "datatype": XSD + "integer"}
    if kind == 3:
        return {"type": "literal", "value": f"{rng.uniform(0, 1e4):.3f}", "datatype": XSD + "decimal"}
    return {
        "type": "literal",
        "value": f"20{rng.randrange(10, 30)}-0{rng.randrange(1, 10)}-1{rng.randrange(10)}",
        "datatype": XSD + "date",
    }


def results_pair(rng: random.Random) -> tuple[str, str]:
    names = [f"v{c}" for c in range(COLUMNS)]
    bindings = [{name: term(c, r, rng) for c, name in enumerate(names)} for r in range(ROWS)]
    reference = [{f"ref_{name}": binding[name] for name in REQUIRED} for binding in bindings]
    rng.shuffle(reference)
    renamed = {name: f"x{i}" for i, name in enumerate(names)}  # the agent used other variable names
    actual = [{renamed[name]: value for name, value in binding.items()} for binding in bindings]
    reference_text = json.dumps({"head": {"vars": [f"ref_{n}" for n in REQUIRED]}, "results": {"bindings": reference}})
    actual_text = json.dumps({"head": {"vars": [renamed[n] for n in names]}, "results": {"bindings": actual}})
    return reference_text, actual_text


def nudged(actual_text: str) -> str:
    """The actual result with every decimal moved by a relative 2e-5 (inside the default epsilon),
    so the reals must be matched with tolerance rather than by equal values."""
    document = json.loads(actual_text)
    for binding in document["results"]["bindings"]:
        for term in binding.values():
            if term.get("datatype") == XSD + "decimal":
                term["value"] = f"{float(term['value']) * (1 + 2e-5):.6f}"
    return json.dumps(document)


def baseline_estimate(reference_text: str, actual_text: str) -> tuple[float, int]:
    """Seconds per tried column order of the brute-force method, and how many it tries."""

    def columns(text: str) -> tuple[list[str], dict[str, list[str]]]:
        document = json.loads(text)
        variables = document["head"]["vars"]
        bindings = document["results"]["bindings"]
        return variables, {v: [str(b.get(v, {}).get("value")) for b in bindings] for v in variables}

    reference_vars, reference = columns(reference_text)
    actual_vars, actual = columns(actual_text)
    expected = Counter("".join(row) for row in zip(*(reference[v] for v in reference_vars)))
    orders = (
        order
        for choice in itertools.combinations(actual_vars, len(reference_vars))
        for order in itertools.permutations(choice)
    )
    # The right order: the actual column of each required reference column.
    target = tuple(f"x{int(name[1:])}" for name in REQUIRED)
    tries = (
        next(
            i
            for i, order in enumerate(
                order
                for choice in itertools.combinations(actual_vars, len(reference_vars))
                for order in itertools.permutations(choice)
            )
            if order == target
        )
        + 1
    )
    sample = 40
    start = time.perf_counter()
    for order in itertools.islice(orders, sample):
        Counter("".join(row) for row in zip(*(actual[v] for v in order))) == expected  # noqa: B015
    return (time.perf_counter() - start) / sample, tries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", help="also write the figures as JSON to this path")
    arguments = parser.parse_args()
    rng = random.Random(SEED)
    reference_text, actual_text = results_pair(rng)

    def whole_step(output: str = actual_text) -> float:
        reference = ReferenceStep(
            name="sparql_query",
            output=reference_text,
            output_media_type="application/sparql-results+json",
            required_columns=[f"ref_{n}" for n in REQUIRED],
        )
        actual = ActualStep(name="sparql_query", id="call_1", status="success", output=output)
        return score_steps([reference], [actual]).score

    assert whole_step() == 1.0
    step_seconds = best_of(whole_step, repeat=5)
    nudged_text = nudged(actual_text)
    assert whole_step(nudged_text) == 1.0
    nudged_seconds = best_of(lambda: whole_step(nudged_text), repeat=5)
    parse_seconds = best_of(lambda: read_sparql_results(actual_text), repeat=5)
    json_seconds = best_of(lambda: json.loads(actual_text), repeat=5)
    canonical = read_sparql_results(reference_text).relation()
    system = read_sparql_results(actual_text).relation()
    assert judge(canonical, system).correct
    judge_seconds = best_of(lambda: judge(canonical, system), repeat=5)
    per_try, tries = baseline_estimate(reference_text, actual_text)
    baseline = per_try * tries

    figures = [
        Figure(
            "steps score: 2000x5 ref vs 2000x10 actual (ms)",
            step_seconds * 1000,
            "ms",
            baseline * 1000,
            f"graphrag-eval method, est. {tries} column orders x {per_try * 1000:.1f} ms",
            f"< {GOAL_MS} ms",
            step_seconds * 1000 < GOAL_MS,
        ),
        Figure(
            "same step, decimals nudged within epsilon (ms)",
            nudged_seconds * 1000,
            "ms",
            step_seconds * 1000,
            "the step above, equal decimals (ms)",
        ),
        Figure(
            "  of which: read 2000x10 SPARQL JSON (ms)",
            parse_seconds * 1000,
            "ms",
            json_seconds * 1000,
            "json.loads of the same text (ms)",
        ),
        Figure("  of which: judge the two relations (ms)", judge_seconds * 1000, "ms"),
    ]
    print_table(figures, title="answerkey steps benchmark")
    if arguments.json:
        write_json(figures, arguments.json)


if __name__ == "__main__":
    main()
