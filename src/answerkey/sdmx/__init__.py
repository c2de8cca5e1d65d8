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
from answerkey.sdmx.load import (
    Cases as Cases,
    Selections as Selections,
    case_files as case_files,
    load_cases,
    load_selections,
    load_suite,
)
from answerkey.sdmx.report import (
    dimension_block,
    document as document,
    suite_document as suite_document,
    summary_table as summary_table,
    to_json as to_json,
    to_yaml as to_yaml,
)
from answerkey.sdmx.run import (
    LISTED as LISTED,
    NOT_IN_TARGET as NOT_IN_TARGET,
    SCORED as SCORED,
    SIGNATURE as SIGNATURE,
    CaseResult,
    DimensionResult as DimensionResult,
    SdmxRun,
    Summary,
    evaluate_case,
    nan_mean as nan_mean,
    not_in_target_reading as not_in_target_reading,
    query_of as query_of,
    ratio as ratio,
    run_sdmx,
    score_dimension as score_dimension,
    signature_of as signature_of,
    target_of as target_of,
)
from answerkey.sdmx.schema import (
    DatasetSelection as DatasetSelection,
    DimensionSelection as DimensionSelection,
    SdmxReport,
    SelectionRecord as SelectionRecord,
    Target as Target,
    Term as Term,
    TestCase as TestCase,
    Turn as Turn,
)
from answerkey.sdmx.terms import (
    EMPTY as EMPTY,
    Selection as Selection,
    TermConflict as TermConflict,
    TermPair as TermPair,
    as_selection as as_selection,
    merge as merge,
    terms_of as terms_of,
)

__all__ = [
    "run_sdmx",
    "evaluate_case",
    "CaseResult",
    "SdmxRun",
    "Summary",
    "load_cases",
    "load_selections",
    "load_suite",
    "dimension_block",
    "SdmxReport",
]

# The names these had before one naming scheme for every workflow, kept for one release.
keep_old_names(globals(), {"evaluate": "run_sdmx", "SuiteResult": "SdmxRun"})
