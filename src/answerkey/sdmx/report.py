"""The reports of an SDMX evaluation, kept as an import path: a ``SdmxRun`` builds its
``SdmxReport`` (``answerkey.sdmx.schema``), which holds the document, the summary table and the
workbook's sheets; ``answerkey.report`` writes them. The functions here take the run's results.

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

from typing import Any

from answerkey.report import json_text, yaml_text
from answerkey.report.workbook import Workbook
from answerkey.sdmx import schema
from answerkey.sdmx.run import CaseResult, DimensionResult, SdmxRun, case_report, dimension_report
from answerkey.sdmx.schema import (
    OVERVIEW_HEADERS as OVERVIEW_HEADERS,
    STATISTICS_HEADERS as STATISTICS_HEADERS,
    block_figure as block_figure,
)


def dimension_block(dimension: DimensionResult) -> str:
    """Header line, then figures and the three term lists of one target dimension."""
    return schema.dimension_block(dimension_report(dimension))


def details_text(result: CaseResult) -> str:
    """The "indicator selection details" cell: one block per target dimension."""
    return schema.details_text(case_report(result))


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
    return schema.not_in_target_text(case_report(result))


def document(suite: SdmxRun) -> dict[str, Any]:
    """The report as plain JSON-ready values, in the ``SdmxReport`` shape (NaN as None)."""
    return suite.document()


# The name this function had before every result had a ``document()``.
suite_document = document


def to_json(suite: SdmxRun) -> str:
    """The report as JSON text (as ``--json`` writes it)."""
    return json_text(suite.document())


def to_yaml(suite: SdmxRun) -> str:
    """The report as YAML text (as ``--yaml`` writes it)."""
    return yaml_text(suite.document())


def summary_table(suite: SdmxRun) -> str:
    """The suite figures, overall then per tag, and the signature.

    >>> from answerkey.sdmx.run import Summary, SdmxRun
    >>> print(summary_table(SdmxRun((), Summary(2, 0.5, float("nan")), {"weo": Summary(2, 0.5, float("nan"))})))
    ... # doctest: +ELLIPSIS
    tag    cases  macro recall  macro precision
    (all)      2        0.5000                -
    weo        2        0.5000                -
    signature: match:id+name|not_in_target:listed|v:...
    """
    return suite.summary_table()


def workbook(suite: SdmxRun) -> Workbook:
    """``Overview``: one row per case; ``Statistics``: the Data Query Metrics, all cases then each tag."""
    return suite.workbook()
