"""Speed of the SDMX evaluation, each figure against a baseline measured in the same run.

    python benchmarks/bench_sdmx.py [--cases N]

Figures:
- scoring: ``answerkey.sdmx.run_sdmx`` on a synthetic suite (validated models in, typed
  relations and result dataclasses out) against a bare loop of Python set operations on the same
  terms, the least any implementation must do;
- workbook: the spine's writer (``answerkey.report.excel.write_workbook``) against openpyxl writing the
  same text cells with no styling, chart or text guarding;
- end to end: the ``answerkey sdmx`` command (YAML cases, JSONL selections, JSON report)
  against reading the same two files with PyYAML's C-less safe loader and json alone.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _table import Figure, best_of, print_table, write_json
from answerkey.report.excel import write_workbook
from answerkey.sdmx import SelectionRecord, TestCase, load_cases, load_selections, run_sdmx
from answerkey.sdmx.report import details_text, not_in_target_text

DIMENSIONS = ["INDICATOR", "COUNTRY", "FREQUENCY", "UNIT"]


def terms(rng: random.Random, count: int) -> list[dict]:
    return [{"id": f"T{n}", "name": f"term number {n}"} for n in rng.sample(range(40), count)]


def indicator_selection(rng: random.Random) -> list[dict]:
    return [
        {
            "dataset_id": dataset,
            "dimensions": [
                {"dimension_name": name, "values": terms(rng, rng.randint(1, 5))}
                for name in rng.sample(DIMENSIONS, rng.randint(1, 4))
            ],
        }
        for dataset in rng.sample(["IMF.RES:WEO", "IMF.STA:CPI"], rng.randint(1, 2))
    ]


def suite(count: int) -> tuple[list[dict], list[dict]]:
    rng = random.Random(5)
    cases = [
        {
            "id": f"case-{n}",
            "name": f"case {n}",
            "tags": [f"tag{n % 7}"],
            "comments": "",
            "conversation": [
                {
                    "role": "user",
                    "content": f"question {n}",
                    "target": {"indicator_selection": indicator_selection(rng)},
                }
            ],
        }
        for n in range(count)
    ]
    records = [{"id": f"case-{n}", "indicator_selection": indicator_selection(rng)} for n in range(count)]
    return cases, records


def baseline_scores(cases: list[dict], records: list[dict]) -> list[tuple[float, float]]:
    """Per-case macro figures with plain sets: no validation, no typed model, no details."""
    chosen: dict[str, dict] = {}
    for record in records:
        for entry in record["indicator_selection"]:
            for dimension in entry["dimensions"]:
                key = (entry["dataset_id"], dimension["dimension_name"])
                chosen.setdefault(record["id"], {}).setdefault(key, set()).update(
                    (v["id"], v["name"]) for v in dimension["values"]
                )
    scores = []
    for case in cases:
        target: dict = {}
        for turn in case["conversation"]:
            for entry in turn["target"]["indicator_selection"]:
                for dimension in entry["dimensions"]:
                    target.setdefault((entry["dataset_id"], dimension["dimension_name"]), set()).update(
                        (v["id"], v["name"]) for v in dimension["values"]
                    )
        picked = chosen.get(case["id"], {})
        recalls, precisions = [], []
        for key, expected in target.items():
            selected = picked.get(key, set())
            hits = len(expected & selected)
            recalls.append(hits / len(expected))
            if selected:
                precisions.append(hits / len(selected))
        scores.append((sum(recalls) / len(recalls), sum(precisions) / len(precisions) if precisions else None))
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    arguments = parser.parse_args()
    count = arguments.cases
    cases, records = suite(count)
    figures = []

    def add(name, value, base, baseline_name, goal):
        figures.append(Figure(name, value, "s", base, baseline_name, f"ratio <= {goal}", value / base <= goal))

    # Validated once, as the command does after loading; scoring is measured on the models.
    case_models = [TestCase.model_validate(case) for case in cases]
    record_models = [SelectionRecord.model_validate(record) for record in records]
    result = run_sdmx(case_models, record_models)
    mine = [(c.macro_recall, c.macro_precision) for c in result.cases]
    theirs = baseline_scores(cases, records)
    assert all(abs(m[0] - t[0]) < 1e-12 and (t[1] is None or abs(m[1] - t[1]) < 1e-12) for m, t in zip(mine, theirs))
    value = best_of(lambda: run_sdmx(case_models, record_models), 3)
    base = best_of(lambda: baseline_scores(cases, records), 3)
    add(f"scoring {count} cases", value, base, "plain Python sets, no model or details", 15)

    import openpyxl

    def plain_workbook(path):
        workbook = openpyxl.Workbook()
        sheet = workbook.active
        for case in result.cases:
            sheet.append(
                [
                    case.id,
                    case.name,
                    case.query,
                    ", ".join(case.tags),
                    case.macro_recall,
                    case.macro_precision,
                    details_text(case),
                    not_in_target_text(case),
                ]
            )
        workbook.save(path)

    with tempfile.TemporaryDirectory() as directory:
        target = Path(directory, "r.xlsx")
        value = best_of(
            lambda: write_workbook(
                result.workbook(), target, warnings=result.warnings, signature=str(result.signature), quiet=True
            ),
            3,
        )
        base = best_of(lambda: plain_workbook(target), 3)
        add(f"workbook of {count} cases", value, base, "openpyxl, same text, no styles or chart", 2)

        import yaml

        cases_path, selections_path = Path(directory, "cases.yaml"), Path(directory, "s.jsonl")
        cases_path.write_text(yaml.safe_dump(cases, sort_keys=False))
        selections_path.write_text("".join(json.dumps(r) + "\n" for r in records))

        def load_plain():
            yaml.load(cases_path.read_text(), Loader=yaml.SafeLoader)
            [json.loads(line) for line in selections_path.read_text().splitlines()]

        def load_mine():
            run_sdmx(load_cases(cases_path), load_selections(selections_path))

        value, base = best_of(load_mine, 1), best_of(load_plain, 1)
        add(f"load + score {count} cases", value, base, "yaml.SafeLoader + json.loads only", 2)

    print_table(figures, title="answerkey sdmx benchmarks")
    if arguments.json:
        write_json(figures, arguments.json)


if __name__ == "__main__":
    main()
