"""Evaluating responses against a reference corpus (one result dict per question, in
graphrag-eval's layout), and aggregating results.

``run_evaluation`` and ``compute_aggregates`` (``answerkey.steps.aggregates``) are the
graphrag-eval API. ``run_steps`` and ``aggregate_steps`` do the same for files read by
``answerkey.steps.load`` and return results (``StepsRun``, ``StepsAggregationRun``) with a
signature, warnings located at ``FILE:LINE``, a document, a summary table and a workbook
(their ``ResultsReport`` and ``AggregatesReport``, ``answerkey.steps.schema``).

>>> reference = [{"template_id": "t", "questions": [{"id": "q1", "question_text": "Pi?",
...     "reference_steps": [[{"name": "calc", "args": {}, "output": "3.14"}]]}]}]
>>> responses = {"q1": {"question_id": "q1", "actual_steps": [
...     {"name": "calc", "args": {}, "id": "c1", "status": "success", "output": "3.14"}]}}
>>> [result] = run_evaluation(reference, responses)
>>> result["steps_score"], result["reference_steps"][0][0]["matches"]
(1.0, 'c1')
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from answerkey._deprecated import keep_old_names
from answerkey.comparator import DEFAULT_ABS_EPSILON, DEFAULT_EPSILON, MatchRule
from answerkey.errors import InputError, RunWarning, plural
from answerkey.metrics.answers import AnswerJudge
from answerkey.progress import progress
from answerkey.report import Reported
from answerkey.report.figures import ratio
from answerkey.report.schema import build
from answerkey.signature import Signature
from answerkey.steps.aggregates import aggregate_results
from answerkey.steps.evaluate6 import question_result
from answerkey.steps.load import (
    EvaluationResults,
    Reference,
    Responses,
    validate_reference,
    validate_responses,
)
from answerkey.steps.matching import best_matching
from answerkey.steps.outputs import MEDIA_TYPES, OutputComparer, check_retrieval_k_rule
from answerkey.steps.retrieval6 import context_texts, retrieval_figures
from answerkey.steps.schema import (
    ActualStep,
    AggregatesReport,
    Question,
    ReferenceCorpus,
    ReferenceStep,
    Response,
    ResultsReport,
    ResultsSummary,
)

# Response keys copied to the result when present (graphrag-eval's order).
_USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "elapsed_sec")
# The signature of results that carry none (graphrag-eval's own, say): their options are unknown.
UNKNOWN_SIGNATURE = Signature.of(epsilon="unknown", answers="unknown", retrieval_k="unknown")


@dataclass(frozen=True)
class StepsOptions:
    """The options of an evaluation, all in its signature: ``epsilon`` (the relative
    tolerance for reals in SPARQL results), ``answers`` (final answers judged by an LLM) and
    ``retrieval_k`` (which step's ``args.k`` a retrieval step is cut at first: ``reference``,
    graphrag-eval 4.0's rule, or ``actual``) and ``graphrag_eval`` (4: answerkey's rules, a
    drop-in for graphrag-eval 4.0; 6: graphrag-eval 6.x's rules, ``answerkey.steps.rules6``,
    where ``epsilon`` and ``retrieval_k`` play no part). ``abs_epsilon``, the absolute floor
    of the tolerance (``MatchRule``), is in the signature only when set.

    >>> str(StepsOptions(epsilon=0.001).signature)  # doctest: +ELLIPSIS
    'eps:0.001|answers:off|retrieval_k:reference|v:...'
    """

    epsilon: float = DEFAULT_EPSILON
    answers: bool = False
    retrieval_k: str = "reference"
    graphrag_eval: int = 4
    abs_epsilon: float = DEFAULT_ABS_EPSILON

    def __post_init__(self) -> None:
        MatchRule(epsilon=self.epsilon, abs_epsilon=self.abs_epsilon)  # rejects a negative or non-finite one
        check_retrieval_k_rule(self.retrieval_k)
        check_graphrag_eval(self.graphrag_eval)

    @property
    def signature(self) -> Signature:
        """``eps:0.0001|answers:off|retrieval_k:reference|v:...``: the steps workflow has no
        scalar or string options."""
        described = MatchRule(epsilon=self.epsilon, abs_epsilon=self.abs_epsilon).describe()
        answers = "llm" if self.answers else "off"
        if self.graphrag_eval == 6:  # 4.0's signatures stay as they were
            return Signature.of(answers=answers, graphrag_eval=6)
        floor = {"abs_epsilon": described["abs_epsilon"]} if "abs_epsilon" in described else {}
        return Signature.of(epsilon=described["epsilon"], **floor, answers=answers, retrieval_k=self.retrieval_k)


# The graphrag-eval versions whose rules answerkey follows: 4 (its own rules, a drop-in for 4.0)
# and 6 (6.x's rules). 4 is the default: the results of earlier answerkey releases stay the same.
GRAPHRAG_EVAL_VERSIONS = (4, 6)


def check_graphrag_eval(version: int) -> None:
    """Raise ``ValueError`` for a version that is not one of ``GRAPHRAG_EVAL_VERSIONS``."""
    if isinstance(version, bool) or version not in GRAPHRAG_EVAL_VERSIONS:
        raise ValueError(f"graphrag_eval must be 4 or 6, not {version!r}")


@dataclass(frozen=True)
class StepsScore:
    """The steps score of one question: the score, the matches and why steps did not match.

    ``matches`` maps a reference step's index in the last group to ``(actual index, score)``;
    ``reasons`` maps each reference step scored below 1 to why; ``notes`` maps an actual step's
    index to what reading its output let pass (SPARQL term values that are JSON numbers).
    """

    score: float
    matches: dict[int, tuple[int, float]]
    reasons: dict[int, str]
    notes: dict[int, str] = field(default_factory=dict)


@dataclass
class StepsRun(Reported):
    """An evaluation: one result dict per question of the reference (graphrag-eval's keys),
    in its order, their aggregates (``compute_aggregates``), and the warnings (an
    ``answerkey.report.Result``)."""

    signature: Signature
    options: StepsOptions
    results: list[dict[str, Any]]
    aggregates: dict[str, Any]
    warnings: list[RunWarning] = field(default_factory=list)

    @property
    def errors(self) -> int:
        """Questions that are error samples."""
        return sum(1 for result in self.results if result.get("status") == "error")

    @property
    def mean_steps_score(self) -> float | None:
        """The mean steps score of the questions that have one, or None."""
        scores = [result["steps_score"] for result in self.results if "steps_score" in result]
        return sum(scores) / len(scores) if scores else None

    def summary_line(self) -> str:
        """``9 questions: 8 success, 1 error; mean steps_score 0.5625 (signature)``."""
        mean = self.mean_steps_score
        shown = ratio(mean) if mean is not None else "n/a"
        return (
            f"{plural(len(self.results), 'question')}: {len(self.results) - self.errors:,} success, "
            f"{self.errors:,} error; mean steps_score {shown} ({self.signature})"
        )

    def report(self) -> ResultsReport:
        """The report (``answerkey schema steps-results``): the results as computed."""
        return build(
            ResultsReport,
            signature=str(self.signature),
            summary=build(
                ResultsSummary,
                questions=len(self.results),
                success=len(self.results) - self.errors,
                error=self.errors,
                mean_steps_score=self.mean_steps_score,
            ),
            results=self.results,
            warnings=[str(warning) for warning in self.warnings],
            aggregates=self.aggregates,
        )


@dataclass
class StepsAggregationRun(Reported):
    """Aggregates of evaluation results, with the signature of the results (an
    ``answerkey.report.Result``)."""

    signature: Signature
    results: list[dict[str, Any]]
    aggregates: dict[str, Any]
    warnings: list[RunWarning] = field(default_factory=list)

    def report(self) -> AggregatesReport:
        """The report (``answerkey schema steps-aggregates``): the aggregates as computed."""
        return build(
            AggregatesReport,
            signature=str(self.signature),
            **self.aggregates,
            warnings=[str(warning) for warning in self.warnings],
            results=self.results,
        )


def score_steps(
    last_group: Sequence[ReferenceStep],
    actual_steps: Sequence[ActualStep],
    *,
    epsilon: float = DEFAULT_EPSILON,
    retrieval_k: str = "reference",
    abs_epsilon: float = DEFAULT_ABS_EPSILON,
) -> StepsScore:
    """Score the actual steps against the reference's last group of steps.

    Candidates for a reference step are the successful actual steps with its name; each actual
    step matches at most one reference step, chosen to maximise the total score. The score is
    that total / the size of the group. ``retrieval_k`` chooses whose ``args.k`` cuts a
    retrieval list first (``answerkey.steps.outputs.RETRIEVAL_K_RULES``); ``abs_epsilon`` is
    the absolute floor of the tolerance for reals (``MatchRule``).

    >>> reference = ReferenceStep(name="calc", output="42")
    >>> actual = [ActualStep(name="calc", id="c1", status="success", output="41"),
    ...           ActualStep(name="calc", id="c2", status="success", output="42")]
    >>> scored = score_steps([reference], actual)
    >>> scored.score, scored.matches
    (1.0, {0: (1, 1.0)})
    """
    if not last_group:
        raise ValueError("the last group of reference steps is empty")
    comparer = OutputComparer(epsilon=epsilon, retrieval_k=retrieval_k, abs_epsilon=abs_epsilon)
    names = {step.name for step in last_group}
    candidates = [index for index, step in enumerate(actual_steps) if step.status == "success" and step.name in names]
    reasons: dict[int, list[str]] = {index: [] for index in range(len(last_group))}

    def score(reference_index: int, actual_index: int) -> float:
        reference, actual = last_group[reference_index], actual_steps[actual_index]
        if reference.name != actual.name:
            return 0.0
        comparison = comparer.compare(reference, actual)
        if comparison.score < 1.0:
            label = actual.id if actual.id is not None else f"step {actual_index}"
            reasons[reference_index].append(f"{label}: {comparison.reason}")
        return comparison.score

    matches = best_matching(len(last_group), candidates, score)
    total = sum(value for _, value in matches.values())
    why: dict[int, str] = {}
    for index, step in enumerate(last_group):
        if index in matches and matches[index][1] >= 1.0:
            continue
        if index in matches:
            actual_index = matches[index][0]
            label = actual_steps[actual_index].id or f"step {actual_index}"
            why[index] = next((r for r in reasons[index] if r.startswith(f"{label}: ")), "partial match")
        elif reasons[index]:
            why[index] = "; ".join(dict.fromkeys(reasons[index]))
        elif any(s.name == step.name for s in actual_steps):
            why[index] = f"no successful {step.name} step left to match"
        else:
            why[index] = f"no {step.name} step was executed"
    notes = {index: comparer.notes[id(step)] for index, step in enumerate(actual_steps) if id(step) in comparer.notes}
    return StepsScore(total / len(last_group), matches, why, notes)


def _steps_error(question: Question) -> str | None:
    if question.reference_steps is None:
        return "no reference_steps to score"
    if not question.reference_steps:
        return "reference_steps is empty"
    if not question.reference_steps[-1]:
        return "the last group of reference_steps is empty"
    return None


def _raw_templates(reference_qas: Any) -> list[Any]:
    """The templates as given, as plain values (models are dumped as they were written)."""
    if isinstance(reference_qas, ReferenceCorpus):
        return [template.model_dump(exclude_unset=True) for template in reference_qas.root]
    return [t.model_dump(exclude_unset=True) if isinstance(t, BaseModel) else t for t in reference_qas]


def run_evaluation(
    reference_qas: Any,
    responses: Any,
    *,
    epsilon: float = DEFAULT_EPSILON,
    retrieval_k: str = "reference",
    answer_judge: AnswerJudge | None = None,
    on_question: Callable[[], None] | None = None,
    graphrag_eval: int = 4,
    answers: bool | None = None,
    abs_epsilon: float = DEFAULT_ABS_EPSILON,
) -> list[dict[str, Any]]:
    """Evaluate ``responses`` against ``reference_qas``: one result dict per question, in
    corpus order, with graphrag-eval's keys (``steps_score``, ``status``, ``reference_steps``
    with ``matches`` on matched steps, ...). The inputs are not modified.

    ``reference_qas`` is the corpus (a list of templates, as dicts or a ``ReferenceCorpus``);
    ``responses`` maps question id to response, or is a list of responses. A question without
    a response, or whose response is an error, gives ``status: error``. ``retrieval_k``
    chooses whose ``args.k`` cuts a retrieval step's list first: ``"reference"`` (graphrag-eval
    4.0's rule) or ``"actual"``. ``answer_judge`` (see ``answerkey.metrics.answers``) adds the
    answer metrics; without it they are absent. Bad input raises ``InputError`` naming its
    place (``reference.0.questions.1.id: ...``). ``graphrag_eval=6`` evaluates by graphrag-eval
    6.x's rules and writes its keys (``answerkey.steps.evaluate6``); there the judge also
    scores retrieval steps (``answerkey.steps.retrieval6``), and judges final answers unless
    ``answers=False`` (by default, whenever there is a judge). ``abs_epsilon`` is the absolute
    floor of the tolerance for reals (``MatchRule``; 0, off, by default).
    """
    check_retrieval_k_rule(retrieval_k)
    corpus = validate_reference(reference_qas, graphrag_eval=graphrag_eval)
    by_id = validate_responses(responses)
    if answers is None:
        answers = answer_judge is not None
    options = StepsOptions(
        epsilon=epsilon, retrieval_k=retrieval_k, graphrag_eval=graphrag_eval, answers=answers, abs_epsilon=abs_epsilon
    )
    return list(_evaluate(corpus, _raw_templates(reference_qas), by_id, options, answer_judge, on_question))


# Called with (question id, actual step index, note) for each actual output read leniently.
_NoteHandler = Callable[[str, int, str], None]


def _evaluate(
    corpus: ReferenceCorpus,
    raw_templates: Sequence[Any],
    by_id: Mapping[str, tuple[Response, Mapping[str, Any]]],
    options: StepsOptions,
    answer_judge: AnswerJudge | None,
    on_question: Callable[[], None] | None = None,
    on_note: _NoteHandler | None = None,
) -> Iterable[dict[str, Any]]:
    for template, raw_template in zip(corpus.root, raw_templates):
        for question, raw_question in zip(template.questions, raw_template["questions"]):
            yield _evaluate_question(
                template.template_id, question, raw_question, by_id.get(question.id), options, answer_judge, on_note
            )
            if on_question is not None:
                on_question()


def _error_reason(model: Response) -> str:
    if model.error:
        return model.error
    if model.status == "error":
        return "the response has status error (no error message)"
    return "the response has an empty error message"


def _evaluate_question(
    template_id: str,
    question: Question,
    raw_question: Mapping[str, Any],
    response: tuple[Response, Mapping[str, Any]] | None,
    options: StepsOptions,
    answer_judge: AnswerJudge | None,
    on_note: _NoteHandler | None = None,
) -> dict[str, Any]:
    if options.graphrag_eval == 6:
        return _evaluate_question_6(template_id, question, raw_question, response, answer_judge, options.answers)
    result: dict[str, Any] = {
        "template_id": template_id,
        "question_id": question.id,
        "question_text": question.question_text,
    }
    if question.reference_answer is not None:
        result["reference_answer"] = question.reference_answer
    if "reference_steps" in raw_question:
        # A deep copy: `matches` is written on the copy, never on the caller's corpus.
        result["reference_steps"] = copy.deepcopy(raw_question["reference_steps"])
    if response is None:
        result.update(status="error", error=f"no response for question {question.id!r}")
        return result
    model, raw = response
    if model.is_error:
        result.update(status="error", error=_error_reason(model))
        return result
    steps_error = _steps_error(question)
    if steps_error is not None and not (question.reference_steps is None and answer_judge is not None):
        result.update(status="error", error=steps_error)
        return result
    result["status"] = "success"
    if model.actual_answer is not None:
        result["actual_answer"] = model.actual_answer
        if answer_judge is not None:
            result.update(answer_judge.evaluate(question, model.actual_answer))
    actual_steps = model.actual_steps or []
    raw_steps = raw.get("actual_steps", raw.get("steps"))
    if raw_steps is not None:
        result["actual_steps"] = copy.deepcopy(raw_steps)
    if steps_error is None and question.reference_steps:
        last_group = question.reference_steps[-1]
        scored = score_steps(
            last_group,
            actual_steps,
            epsilon=options.epsilon,
            retrieval_k=options.retrieval_k,
            abs_epsilon=options.abs_epsilon,
        )
        if on_note is not None:
            for index, note in scored.notes.items():
                on_note(question.id, index, note)
        output_group = result["reference_steps"][-1]
        for index, (actual_index, _) in scored.matches.items():
            actual = actual_steps[actual_index]
            output_group[index]["matches"] = actual.id if actual.id is not None else actual_index
        for index, reason in scored.reasons.items():
            output_group[index]["mismatch"] = reason
        result["steps_score"] = scored.score
    for key in _USAGE_KEYS:
        if key in raw:
            result[key] = raw[key]
    return result


def _evaluate_question_6(
    template_id: str,
    question: Question,
    raw_question: Mapping[str, Any],
    response: tuple[Response, Mapping[str, Any]] | None,
    answer_judge: AnswerJudge | None,
    correctness: bool,
) -> dict[str, Any]:
    # The judge scores the retrieval steps, and with `correctness` the final answer too (6.x
    # computes the first whenever its LLM is configured, the second unless disabled).
    result = question_result(template_id, raw_question, response[1] if response is not None else None)
    answer = response[0].actual_answer if response is not None else None
    if answer_judge is None:
        return result
    judge = dataclasses.replace(answer_judge, graphrag_eval=6)
    _retrieval_metrics_6(judge, question, result)
    if correctness and answer is not None and question.reference_answer is not None:
        # 6.x judges correctness only (relevance needs its embeddings), with its keys.
        result.update(judge.correctness(question.question_text, question.reference_answer, answer))
    return result


def _judged_contexts(judge: AnswerJudge, prefix: str, question: str, reference: Any, step: dict[str, Any]) -> None:
    # `reference` is the reference answer (text), or the reference step's output (contexts).
    try:
        reference_text = reference if prefix == "retrieval_answer" else "\n".join(context_texts(reference))
        step.update(retrieval_figures(judge, prefix, question, reference_text, context_texts(step["output"])))
    except ValueError as error:
        step.update({f"{prefix}_recall_error": str(error), f"{prefix}_precision_error": str(error)})


def _retrieval_metrics_6(judge: AnswerJudge, question: Question, result: dict[str, Any]) -> None:
    """6.x's LLM-judged retrieval metrics, written on the actual retrieval steps: against the
    reference answer (every retrieval step) and against the contexts of the reference step
    it matched."""
    steps = [step for step in result["actual_steps"] if isinstance(step, dict) and step.get("name") == "retrieval"]
    for step in steps:
        if "output" in step and question.reference_answer is not None:
            _judged_contexts(judge, "retrieval_answer", question.question_text, question.reference_answer, step)
    for group in result.get("reference_steps") or []:
        for reference in group:
            if not isinstance(reference, dict) or reference.get("name") != "retrieval" or "matches" not in reference:
                continue
            matched = next((step for step in steps if step.get("id") == reference["matches"]), None)
            if matched is not None and "output" in matched:
                _judged_contexts(judge, "retrieval_context", question.question_text, reference.get("output"), matched)


def _response_warnings(reference: Reference, responses: Responses) -> list[RunWarning]:
    """A warning per response to a question the reference lacks, one saying why when ids
    differ only by case or none matches, and one counting the questions without a response."""
    known = reference.corpus.question_ids()
    known_set = set(known)
    unknown = [question_id for question_id in responses.by_id if question_id not in known_set]
    warnings = [
        RunWarning(
            f"{responses.origin(question_id)}: a response to question {question_id!r}, which is not in the reference",
            "unknown-question",
        )
        for question_id in unknown
    ]
    if unknown:
        folded = {question_id.casefold() for question_id in known}
        by_case = [question_id for question_id in unknown if question_id.casefold() in folded]
        if by_case:
            warnings.append(
                RunWarning(
                    f"{plural(len(by_case), 'response')} of {len(unknown):,} to questions not in the reference name a "
                    f"question id but for case (e.g. {by_case[0]!r}); ids are compared exactly",
                    "unknown-question-case",
                )
            )
        elif len(unknown) == len(responses.by_id):
            warnings.append(
                RunWarning(
                    f"no response in {responses.source} is to a question of the reference {reference.source}: "
                    "are these the responses to this reference?",
                    "unknown-question-all",
                )
            )
    missing = sum(1 for question_id in known if question_id not in responses.by_id)
    if missing:
        warnings.append(
            RunWarning(
                f"{plural(missing, 'question')} of {len(known):,} in {reference.source} "
                f"{'has' if missing == 1 else 'have'} no response in {responses.source} (error samples)",
                "no-response",
            )
        )
    return warnings


def _reference_steps(reference: Reference) -> Iterable[tuple[tuple[Any, ...], Question, ReferenceStep]]:
    """Each reference step with its path in the corpus file and its question."""
    for t, template in enumerate(reference.corpus.root):
        for q, question in enumerate(template.questions):
            for g, group in enumerate(question.reference_steps or []):
                for s, step in enumerate(group):
                    yield (t, "questions", q, "reference_steps", g, s), question, step


def _reference_warnings(reference: Reference) -> list[RunWarning]:
    """A warning per reference step whose SPARQL output has term values that are JSON numbers
    or booleans (read as typed values), and per media type written as a known one but for
    case, spaces or parameters (such a type compares identical outputs, as graphrag-eval's
    would)."""
    warnings = []
    for where, question, step in _reference_steps(reference):
        if step.reading_note is not None:
            origin = reference.origin((*where, "output"))
            message = f"{origin}: question {question.id!r}: reference output: {step.reading_note}"
            warnings.append(RunWarning(message, "sparql-value-not-text"))
        media_type = step.output_media_type
        known = media_type.split(";", 1)[0].strip().lower() if media_type is not None else None
        if media_type not in MEDIA_TYPES and known in MEDIA_TYPES:
            origin = reference.origin((*where, "output_media_type"))
            message = (
                f"{origin}: output_media_type {media_type!r} is not {known!r} as written, so the outputs are "
                f"compared as identical text; write {known!r} to compare them as such"
            )
            warnings.append(RunWarning(message, "media-type-variant"))
    return warnings


def run_steps(
    reference: Reference,
    responses: Responses,
    options: StepsOptions | None = None,
    *,
    answer_judge: AnswerJudge | None = None,
    quiet: bool = True,
) -> StepsRun:
    """Evaluate the responses read from a file against the reference read from a file:
    ``run_evaluation``'s results, with the signature of ``options`` and warnings about
    responses to unknown questions, questions without a response, and outputs read leniently
    (SPARQL term values that are JSON numbers or booleans). ``quiet=False`` draws a progress
    bar on a terminal for large corpora."""
    options = options or StepsOptions()
    total = len(reference.corpus.question_ids())
    warnings = _reference_warnings(reference)

    def note(question_id: str, index: int, text: str) -> None:
        model, _ = responses.by_id[question_id]
        steps = model.actual_steps or []
        label = steps[index].id if steps[index].id is not None else f"step {index}"
        origin = responses.step_origin(question_id, index)
        warnings.append(RunWarning(f"{origin}: question {question_id!r}, {label}: {text}", "sparql-value-not-text"))

    results = _evaluate(reference.corpus, reference.templates, responses.by_id, options, answer_judge, on_note=note)
    shown = list(progress(results, total=total, label="steps", quiet=quiet))
    try:
        aggregates = aggregate_results(shown, graphrag_eval=options.graphrag_eval)
    except InputError as error:  # figures too large to add up: they come from the responses
        raise error.located(responses.source) from None
    if answer_judge is not None:
        warnings.extend(answer_judge.cache_warnings())
    return StepsRun(
        options.signature, options, shown, aggregates, [*_response_warnings(reference, responses), *warnings]
    )


def aggregate_steps(
    results: EvaluationResults,
    *,
    missing_usage: str = "omit",
    graphrag_eval: int | None = None,
    custom_metrics: tuple[str, ...] = (),
) -> StepsAggregationRun:
    """The aggregates of results read from a file, with their signature (``UNKNOWN_SIGNATURE``
    when they have none) and a warning per question that has two results (both are counted).

    ``graphrag_eval`` chooses graphrag-eval 4.0's aggregates (answerkey's) or 6.x's; by default
    6 when the results' signature says ``graphrag_eval:6``, else 4. ``custom_metrics`` (6.x:
    the outputs of a config's custom evaluations) are aggregated too.

    ``missing_usage="zero"`` counts a usage figure a template lacks as 0 (graphrag-eval's
    reading, see ``compute_aggregates``); the signature then ends ``missing_usage:zero``."""
    warnings = []
    first_seen: dict[str, int] = {}
    for index, result in enumerate(results.results):
        question_id = result.get("question_id")
        if question_id is None:
            continue
        key = str(question_id)
        if key in first_seen:
            first = results.origin(first_seen[key])
            warnings.append(
                RunWarning(
                    f"{results.origin(index)}: a second result for question {key!r} (first at {first}); "
                    "both are aggregated",
                    "duplicate-result",
                )
            )
        else:
            first_seen[key] = index
    try:
        if graphrag_eval is None:
            written_by = results.signature.fields if results.signature is not None else {}
            graphrag_eval = 6 if written_by.get("graphrag_eval") == "6" else 4
        check_graphrag_eval(graphrag_eval)
        aggregates = aggregate_results(
            results.results, missing_usage=missing_usage, graphrag_eval=graphrag_eval, custom_metrics=custom_metrics
        )
    except InputError as error:  # figures too large to add up
        raise error.located(results.source) from None
    signature = results.signature or UNKNOWN_SIGNATURE
    if missing_usage != "omit":
        # The results' options, and this one: the figures depend on it (the default is not shown).
        signature = Signature((*signature.items[:-1], ("missing_usage", missing_usage), signature.items[-1]))
    return StepsAggregationRun(signature, results.results, aggregates, warnings)


# The names these had before one naming scheme for every workflow, kept for one release.
keep_old_names(
    globals(), {"evaluate_steps": "run_steps", "EvaluationRun": "StepsRun", "AggregationRun": "StepsAggregationRun"}
)
