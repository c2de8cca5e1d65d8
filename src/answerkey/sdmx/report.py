"""Text, JSON and YAML views of SDMX results (the workbook is in ``sdmx.excel``).

The per-dimension block is the methodology's "Details in Excel Cell" format, preceded by a
``DATASET / DIMENSION`` header line:

>>> from answerkey.sdmx.run import evaluate_case
>>> key = ("IMF.RES:WEO", "INDICATOR")
>>> result = evaluate_case({key: [("GDP", "gross domestic product")]},
...                        {key: [("GDP", "gross domestic product"), ("LP", "Population")]})
>>> print(dimension_block(result.dimensions[0]))
IMF.RES:WEO / INDICATOR
[recall: 1.00, precision: 0.50]
True Positives [1]
  * GDP: gross domestic product
False Negatives [0]
False Positives [1]
  * LP: Population
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

from answerkey.sdmx.run import CaseResult, DimensionResult, Summary, SuiteResult
from answerkey.sdmx.terms import TermPair

__all__ = [
    "figure",
    "dimension_block",
    "details_text",
    "not_in_target_text",
    "suite_document",
    "to_json",
    "to_yaml",
    "summary_table",
]


def figure(value: float, missing: str = "n/a") -> str:
    """A metric with two decimals, ``missing`` for NaN.

    >>> figure(2 / 3), figure(1.0), figure(float("nan"))
    ('0.67', '1.00', 'n/a')
    """
    return missing if math.isnan(value) else f"{value:.2f}"


def _term_lines(title: str, terms: tuple[TermPair, ...]) -> list[str]:
    return [f"{title} [{len(terms)}]"] + [f"  * {term.id}: {term.name}" for term in terms]


def dimension_block(dimension: DimensionResult) -> str:
    """Header line, then figures and the three term lists of one target dimension."""
    lines = [
        f"{dimension.dataset_id} / {dimension.dimension_name}",
        f"[recall: {figure(dimension.recall)}, precision: {figure(dimension.precision)}]",
        *_term_lines("True Positives", dimension.true_positives),
        *_term_lines("False Negatives", dimension.false_negatives),
        *_term_lines("False Positives", dimension.false_positives),
    ]
    return "\n".join(lines)


def details_text(result: CaseResult) -> str:
    """The "indicator selection details" cell: one block per target dimension."""
    return "\n\n".join(dimension_block(dimension) for dimension in result.dimensions)


def not_in_target_text(result: CaseResult) -> str:
    """The "dimensions not in target" cell: each such dimension and its (false positive) terms."""
    return "\n\n".join(
        "\n".join([f"{d.dataset_id} / {d.dimension_name}", *_term_lines("False Positives", d.false_positives)])
        for d in result.dimensions_not_in_target
    )


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _terms(terms: Iterable[TermPair]) -> list[dict[str, str]]:
    return [{"id": term.id, "name": term.name} for term in terms]


def _summary(summary: Summary) -> dict:
    return {
        "cases": summary.cases,
        "macro_recall": _number(summary.macro_recall),
        "macro_precision": _number(summary.macro_precision),
    }


def _dimension(dimension: DimensionResult) -> dict:
    return {
        "dataset_id": dimension.dataset_id,
        "dimension_name": dimension.dimension_name,
        "recall": _number(dimension.recall),
        "precision": _number(dimension.precision),
        "true_positives": _terms(dimension.true_positives),
        "false_negatives": _terms(dimension.false_negatives),
        "false_positives": _terms(dimension.false_positives),
    }


def suite_document(suite: SuiteResult) -> dict:
    """The report as plain JSON-ready values (NaN as None)."""
    summary = _summary(suite.summary)
    summary["by_tag"] = {tag: _summary(tagged) for tag, tagged in suite.by_tag.items()}
    return {
        "signature": suite.signature,
        "summary": summary,
        "cases": [
            {
                "id": case.id,
                "name": case.name,
                "tags": list(case.tags),
                "macro_recall": _number(case.macro_recall),
                "macro_precision": _number(case.macro_precision),
                "dimensions": [_dimension(d) for d in case.dimensions],
                "dimensions_not_in_target": [
                    {
                        "dataset_id": d.dataset_id,
                        "dimension_name": d.dimension_name,
                        "false_positives": _terms(d.false_positives),
                    }
                    for d in case.dimensions_not_in_target
                ],
            }
            for case in suite.cases
        ],
    }


def to_json(suite: SuiteResult) -> str:
    """The report as JSON text (``null`` for NaN)."""
    return json.dumps(suite_document(suite), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def to_yaml(suite: SuiteResult) -> str:
    """The report as YAML text (``null`` for NaN)."""
    import yaml

    return yaml.safe_dump(suite_document(suite), sort_keys=False, allow_unicode=True, width=100)


def summary_table(suite: SuiteResult) -> str:
    """A plain-text table of the suite figures, overall then per tag.

    >>> from answerkey.sdmx.run import Summary, SuiteResult
    >>> print(summary_table(SuiteResult((), Summary(2, 0.5, float("nan")), {"weo": Summary(2, 0.5, float("nan"))})))
    tag    cases  macro recall  macro precision
    (all)      2          0.50                -
    weo        2          0.50                -
    """
    rows = [("(all)", suite.summary), *suite.by_tag.items()]
    width = max(len("tag"), *(len(tag) for tag, _ in rows))
    lines = [f"{'tag':<{width}}  cases  macro recall  macro precision"]
    for tag, summary in rows:
        lines.append(
            f"{tag:<{width}}  {summary.cases:>5}  {figure(summary.macro_recall, '-'):>12}"
            f"  {figure(summary.macro_precision, '-'):>15}"
        )
    return "\n".join(lines)
