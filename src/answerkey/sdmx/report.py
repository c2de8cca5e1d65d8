"""What the reports of an SDMX evaluation hold: the JSON/YAML document, the summary table and
the workbook's sheets (``answerkey.report`` writes them).

The document has the shape of ``SdmxReport`` (``answerkey schema sdmx-report``); its keys are
part of the contract:

    {"signature": str,
     "summary": {"cases", "macro_recall", "macro_precision", "by_tag": {TAG: {...}}},
     "cases": [{"id", "name", "query", "tags", "macro_recall", "macro_precision",
                "dimensions": [{"dataset_id", "dimension_name", "recall", "precision",
                                "true_positives", "false_negatives", "false_positives"}],
                "dimensions_not_in_target": [{"dataset_id", "dimension_name", "precision",
                                              "false_positives"}]}],
     "warnings": [str]}

Terms are ``{"id", "name"}``; undefined figures (NaN) are ``null``. A dimension not in the
target has ``precision`` 0 under the ``scored`` reading (it counts in ``macro_precision``) and
``null`` under ``listed`` (it is not scored); the signature names the reading.

The workbook's ``indicator selection details`` cell holds, per target dimension, the
methodology's "Details in Excel Cell" block below a ``DATASET / DIMENSION`` header line:

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

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from answerkey.report import figure, json_text, text_table, yaml_text
from answerkey.report.workbook import Chart, Column, Sheet, Workbook
from answerkey.sdmx.terms import TermPair

if TYPE_CHECKING:
    from answerkey.sdmx.run import CaseResult, DimensionResult, SdmxRun, Summary

__all__ = [
    "OVERVIEW_HEADERS",
    "STATISTICS_HEADERS",
    "block_figure",
    "dimension_block",
    "details_text",
    "not_in_target_text",
    "document",
    "suite_document",
    "to_json",
    "to_yaml",
    "summary_table",
    "workbook",
]

OVERVIEW_HEADERS = (
    "id",
    "name",
    "query",
    "tags",
    "macro recall",
    "macro precision",
    "indicator selection details",
    "dimensions not in target",
)
STATISTICS_HEADERS = ("tag", "cases", "mean macro recall", "mean macro precision")
# The label of the whole suite's row, before the tags' rows.
ALL_CASES = "(all)"


def block_figure(value: float) -> str:
    """A figure of the details block: two decimals, ``n/a`` when undefined (methodology format).

    >>> block_figure(2 / 3), block_figure(1.0), block_figure(float("nan"))
    ('0.67', '1.00', 'n/a')
    """
    return "n/a" if math.isnan(value) else f"{value:.2f}"


def _term_lines(title: str, terms: tuple[TermPair, ...]) -> list[str]:
    return [f"{title} [{len(terms)}]"] + [f"  * {term.id}: {term.name}" for term in terms]


def dimension_block(dimension: DimensionResult) -> str:
    """Header line, then figures and the three term lists of one target dimension."""
    lines = [
        f"{dimension.dataset_id} / {dimension.dimension_name}",
        f"[recall: {block_figure(dimension.recall)}, precision: {block_figure(dimension.precision)}]",
        *_term_lines("True Positives", dimension.true_positives),
        *_term_lines("False Negatives", dimension.false_negatives),
        *_term_lines("False Positives", dimension.false_positives),
    ]
    return "\n".join(lines)


def details_text(result: CaseResult) -> str:
    """The "indicator selection details" cell: one block per target dimension."""
    return "\n\n".join(dimension_block(dimension) for dimension in result.dimensions)


def not_in_target_text(result: CaseResult) -> str:
    """The "dimensions not in target" cell: each such dimension and its (false positive) terms;
    under the ``scored`` reading, the whole block of a scored dimension (precision 0).

    >>> from answerkey.sdmx.run import evaluate_case
    >>> result = evaluate_case({}, {("WEO", "FREQUENCY"): [("A", "Annual")]}, not_in_target="scored")
    >>> print(not_in_target_text(result))
    WEO / FREQUENCY
    [recall: n/a, precision: 0.00]
    True Positives [0]
    False Negatives [0]
    False Positives [1]
      * A: Annual
    """
    if result.scores_not_in_target:
        return "\n\n".join(dimension_block(dimension) for dimension in result.dimensions_not_in_target)
    return "\n\n".join(
        "\n".join([f"{d.dataset_id} / {d.dimension_name}", *_term_lines("False Positives", d.false_positives)])
        for d in result.dimensions_not_in_target
    )


# ---------------------------------------------------------------------------------- document


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _terms(terms: Iterable[TermPair]) -> list[dict[str, str]]:
    return [{"id": term.id, "name": term.name} for term in terms]


def _figures(summary: Summary) -> dict[str, Any]:
    return {
        "cases": summary.cases,
        "macro_recall": _number(summary.macro_recall),
        "macro_precision": _number(summary.macro_precision),
    }


def _dimension(dimension: DimensionResult) -> dict[str, Any]:
    return {
        "dataset_id": dimension.dataset_id,
        "dimension_name": dimension.dimension_name,
        "recall": _number(dimension.recall),
        "precision": _number(dimension.precision),
        "true_positives": _terms(dimension.true_positives),
        "false_negatives": _terms(dimension.false_negatives),
        "false_positives": _terms(dimension.false_positives),
    }


def _case(case: CaseResult) -> dict[str, Any]:
    return {
        "id": case.id,
        "name": case.name,
        "query": case.query,
        "tags": list(case.tags),
        "macro_recall": _number(case.macro_recall),
        "macro_precision": _number(case.macro_precision),
        "dimensions": [_dimension(dimension) for dimension in case.dimensions],
        "dimensions_not_in_target": [
            {
                "dataset_id": d.dataset_id,
                "dimension_name": d.dimension_name,
                "precision": _number(d.precision) if case.scores_not_in_target else None,
                "false_positives": _terms(d.false_positives),
            }
            for d in case.dimensions_not_in_target
        ],
    }


def document(suite: SdmxRun) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``SdmxReport`` shape (NaN as None)."""
    summary = _figures(suite.summary)
    summary["by_tag"] = {tag: _figures(tagged) for tag, tagged in suite.by_tag.items()}
    return {
        "signature": str(suite.signature),
        "summary": summary,
        "cases": [_case(case) for case in suite.cases],
        "warnings": [str(warning) for warning in suite.warnings],
    }


# The name this function had before every result had a ``document()``.
suite_document = document


def to_json(suite: SdmxRun) -> str:
    """The report as JSON text (as ``--json`` writes it)."""
    return json_text(document(suite))


def to_yaml(suite: SdmxRun) -> str:
    """The report as YAML text (as ``--yaml`` writes it)."""
    return yaml_text(document(suite))


# ---------------------------------------------------------------------------------- table


def _groups(suite: SdmxRun) -> list[tuple[str, Summary]]:
    return [(ALL_CASES, suite.summary), *suite.by_tag.items()]


def summary_table(suite: SdmxRun) -> str:
    """The suite figures, overall then per tag, and the signature.

    >>> from answerkey.sdmx.run import Summary, SdmxRun
    >>> print(summary_table(SdmxRun((), Summary(2, 0.5, float("nan")), {"weo": Summary(2, 0.5, float("nan"))})))
    ... # doctest: +ELLIPSIS
    tag    cases  macro recall  macro precision
    (all)      2          0.50                -
    weo        2          0.50                -
    signature: match:id+name|not_in_target:listed|v:...
    """
    rows = [
        (tag, summary.cases, figure(summary.macro_recall, 2), figure(summary.macro_precision, 2))
        for tag, summary in _groups(suite)
    ]
    return text_table(("tag", "cases", "macro recall", "macro precision"), rows) + f"\nsignature: {suite.signature}"


# ---------------------------------------------------------------------------------- workbook


def workbook(suite: SdmxRun) -> Workbook:
    """``Overview``: one row per case (methodology, "Overview Sheet"); ``Statistics``: the
    "Data Query Metrics" rows, all cases then each tag, with a chart of mean macro recall and
    precision per tag (of all cases when none has a tag)."""
    overview = Sheet(
        "Overview",
        [
            Column(OVERVIEW_HEADERS[0], 38, "text"),
            Column(OVERVIEW_HEADERS[1], 32, "text", wrap=True),
            Column(OVERVIEW_HEADERS[2], 48, "text", wrap=True),
            Column(OVERVIEW_HEADERS[3], 16, "text", wrap=True),
            Column(OVERVIEW_HEADERS[4], 14, "ratio"),
            Column(OVERVIEW_HEADERS[5], 16, "ratio"),
            Column(OVERVIEW_HEADERS[6], 64, "text", wrap=True),
            Column(OVERVIEW_HEADERS[7], 44, "text", wrap=True),
        ],
        [
            [
                case.id,
                case.name or None,
                case.query or None,
                ", ".join(case.tags) or None,
                _number(case.macro_recall),
                _number(case.macro_precision),
                details_text(case) or None,
                not_in_target_text(case) or None,
            ]
            for case in suite.cases
        ],
    )
    groups = _groups(suite)
    # Rows (from 0): all cases, then the tags; chart the tags, or all cases when there are none.
    first, last = (1, len(groups) - 1) if suite.by_tag else (0, 0)
    statistics = Sheet(
        "Statistics",
        [
            Column(STATISTICS_HEADERS[0], 24, "text"),
            Column(STATISTICS_HEADERS[1], 8, "integer"),
            Column(STATISTICS_HEADERS[2], 20, "ratio"),
            Column(STATISTICS_HEADERS[3], 22, "ratio"),
        ],
        [
            [tag, summary.cases, _number(summary.macro_recall), _number(summary.macro_precision)]
            for tag, summary in groups
        ],
        charts=[
            Chart(
                "Data Query Metrics: mean macro recall and precision per tag",
                0,
                (2, 3),
                first,
                last,
                axis_title="mean over cases",
            ),
        ],
        notes=[
            (
                "Data Query Metrics",
                "each figure is the mean over the cases of their macro figure; "
                "undefined figures are left out and shown empty",
            ),
            ("Dimensions not in target", suite.not_in_target_rule),
        ],
    )
    return Workbook(overview, statistics)
