"""SDMX data-query evaluation: term precision and recall per (dataset, dimension).

Each dimension's selected terms are a relation of (id, name) tuples; terms match when both
are equal. Per case, recall and precision are averaged over the target's dimensions (NaN
ignored); the suite averages the cases' figures, overall and per tag. Selected dimensions
outside the target are listed apart (``not_in_target="listed"``, the default) or scored with
precision 0 in macro precision (``"scored"``, the methodology's literal text).

The workflow: ``schema`` (the file formats), ``load`` (test cases and selections), ``run``
(the figures: an ``SdmxRun``) and ``report`` (its JSON, YAML, workbook and summary table).

>>> from answerkey import sdmx
>>> target = {("IMF.RES:WEO", "INDICATOR"): [("GDP", "gross domestic product"), ("GDPPC", "GDP per capita")]}
>>> result = sdmx.evaluate_case(target, {("IMF.RES:WEO", "INDICATOR"): [("GDP", "gross domestic product")]})
>>> result.macro_recall, result.macro_precision
(0.5, 1.0)
"""

from answerkey._deprecated import keep_old_names
from answerkey.sdmx.load import Cases, Selections, case_files, load_cases, load_selections, load_suite
from answerkey.sdmx.report import dimension_block, document, suite_document, summary_table, to_json, to_yaml
from answerkey.sdmx.run import (
    LISTED,
    NOT_IN_TARGET,
    SCORED,
    SIGNATURE,
    CaseResult,
    DimensionResult,
    SdmxRun,
    Summary,
    evaluate_case,
    nan_mean,
    not_in_target_reading,
    query_of,
    ratio,
    run_sdmx,
    score_dimension,
    signature_of,
    target_of,
)
from answerkey.sdmx.schema import (
    DatasetSelection,
    DimensionSelection,
    SdmxReport,
    SelectionRecord,
    Target,
    Term,
    TestCase,
    Turn,
)
from answerkey.sdmx.terms import EMPTY, Selection, TermConflict, TermPair, as_selection, merge, terms_of

__all__ = [
    "SIGNATURE",
    "NOT_IN_TARGET",
    "LISTED",
    "SCORED",
    "signature_of",
    "not_in_target_reading",
    "run_sdmx",
    "evaluate_case",
    "score_dimension",
    "target_of",
    "query_of",
    "ratio",
    "nan_mean",
    "CaseResult",
    "DimensionResult",
    "SdmxRun",
    "Summary",
    "Cases",
    "Selections",
    "load_cases",
    "load_selections",
    "load_suite",
    "case_files",
    "dimension_block",
    "document",
    "summary_table",
    "suite_document",
    "to_json",
    "to_yaml",
    "TestCase",
    "Turn",
    "Target",
    "DatasetSelection",
    "DimensionSelection",
    "Term",
    "SelectionRecord",
    "SdmxReport",
    "Selection",
    "TermPair",
    "TermConflict",
    "EMPTY",
    "as_selection",
    "merge",
    "terms_of",
]

# The names these had before one naming scheme for every workflow, kept for one release.
keep_old_names(globals(), {"evaluate": "run_sdmx", "SuiteResult": "SdmxRun"})
