"""Agent-step evaluation, compatible with graphrag-eval 4.0: steps score over SPARQL results
(judged by answerkey's comparator), JSON and retrieval outputs; per-template, micro and
macro aggregates. graphrag-eval users switch by changing one import::

    from answerkey.steps import run_evaluation, compute_aggregates

    results = run_evaluation(reference_qas, responses)
    aggregates = compute_aggregates(results)

The workflow: ``schema`` (the file formats), ``load`` (reference, responses and results
files), ``run`` (a ``StepsRun`` or a ``StepsAggregationRun``) and ``report`` (their JSON,
YAML, workbook and summary table).
"""

from answerkey._deprecated import keep_old_names
from answerkey.metrics.answers import AnswerJudge as AnswerJudge
from answerkey.steps.aggregates import compute_aggregates
from answerkey.steps.load import read_reference, read_responses, read_results, validate_results as validate_results
from answerkey.steps.run import (
    StepsAggregationRun,
    StepsOptions,
    StepsRun,
    StepsScore,
    aggregate_steps,
    run_evaluation,
    run_steps,
    score_steps,
    validate_reference as validate_reference,
    validate_responses as validate_responses,
)
from answerkey.steps.schema import (
    ActualStep as ActualStep,
    Question as Question,
    ReferenceCorpus as ReferenceCorpus,
    ReferenceStep as ReferenceStep,
    Response as Response,
    Template as Template,
)

__all__ = [
    "run_evaluation",
    "compute_aggregates",
    "score_steps",
    "StepsScore",
    "StepsOptions",
    "StepsRun",
    "StepsAggregationRun",
    "run_steps",
    "aggregate_steps",
    "read_reference",
    "read_responses",
    "read_results",
]

# The names these had before one naming scheme for every workflow, kept for one release.
keep_old_names(
    globals(), {"evaluate_steps": "run_steps", "EvaluationRun": "StepsRun", "AggregationRun": "StepsAggregationRun"}
)
