"""graphrag-eval 6.x's Python API, scored by answerkey's reading of 6.x's rules: change
``from graphrag_eval import run_evaluation, compute_aggregates`` to
``from answerkey.compat.graphrag_eval import run_evaluation, compute_aggregates``.

The names and signatures are 6.x's: ``run_evaluation`` and ``evaluate_steps`` are coroutines,
``config_file_path`` names 6.x's YAML config, ``recall_at_k`` and ``average_precision`` take
``relevant_ids`` and ``retrieved_ids``. graphrag-eval 4.0's API stays in ``answerkey.steps``
(``run_evaluation`` there is a plain function). The rules and where they differ from 4.0:
``docs/switching-graphrag-eval.md``.

>>> import asyncio
>>> reference = [{"template_id": "t", "questions": [{"id": "q1", "question_text": "Pi?",
...     "reference_steps": [[{"name": "calc", "output": "3.14"}]]}]}]
>>> responses = {"q1": {"question_id": "q1", "actual_steps": [
...     {"name": "python", "id": "c1", "status": "success", "output": "3.14"}]}}
>>> [result] = asyncio.run(run_evaluation(reference, responses))
>>> result["steps_score"], result["reference_steps"][0][0]["matches"]
(1.0, 'c1')
>>> recall_at_k(relevant_ids=[1, 2, 3, 4], retrieved_ids=[1, 2], k=2)
1.0
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from answerkey.compat._graphrag_custom import CustomEvaluation, run_custom
from answerkey.compat._graphrag_relevance import answer_relevance
from answerkey.errors import InputError, InputErrors
from answerkey.files import load_document, validation_errors
from answerkey.metrics.answers import ENVIRONMENT, AnswerJudge
from answerkey.steps.aggregates import aggregate_results
from answerkey.steps.evaluate6 import match_groups, steps_score
from answerkey.steps.load import validate_results
from answerkey.steps.run import run_evaluation as _run_evaluation_4

# graphrag-eval 6.x's own API, and its config; the config's helpers (``judge_from_config``,
# ``endpoint_judge``, ``evaluate_relevance``, ``evaluate_custom``...) serve the CLI and are not
# promised.
__all__ = ["run_evaluation", "compute_aggregates", "evaluate_steps", "recall_at_k", "average_precision"]


class AnswerCorrectness(BaseModel):
    """The config's ``answer_correctness``: whether it is computed, and its prompt."""

    enabled: bool = True
    prompt: str | None = None


class AnswerRelevance(BaseModel):
    """The config's ``answer_relevance``: whether it is computed."""

    enabled: bool = True


class Config(BaseModel):
    """graphrag-eval 6.x's config file: ``llm`` (``generation`` and ``embedding`` settings),
    ``custom_evaluations``, ``answer_correctness`` and ``answer_relevance``; the same checks as
    6.x (custom evaluations and answer correctness need ``llm``, answer relevance its
    ``embedding``). Unknown keys are ignored, as 6.x does."""

    model_config = ConfigDict(extra="ignore")

    llm: dict[str, Any] | None = None
    custom_evaluations: list[CustomEvaluation] | None = Field(default=None, min_length=1)
    answer_correctness: AnswerCorrectness | None = None
    answer_relevance: AnswerRelevance | None = None

    @model_validator(mode="after")
    def _needs_llm(self) -> Config:
        embedding = self.llm is not None and self.llm.get("embedding") is not None
        if self.custom_evaluations and self.llm is None:
            raise ValueError("llm config is required if custom_evaluations are provided")
        if self.answer_correctness is not None and self.answer_correctness.enabled and self.llm is None:
            raise ValueError("llm config is required if answer correctness is enabled")
        if self.answer_relevance is not None and self.answer_relevance.enabled and not embedding:
            raise ValueError("llm config including embedding is required if answer relevance is enabled")
        return self

    @property
    def custom_metrics(self) -> tuple[str, ...]:
        """The metric names the custom evaluations write (their ``outputs``), in order."""
        return tuple(name for evaluation in self.custom_evaluations or () for name in evaluation.outputs)

    @property
    def llm_metrics(self) -> list[str]:
        """The LLM-based metrics this config asks for (answer correctness and relevance are on
        by default once ``llm`` and its ``embedding`` are given, as in 6.x)."""
        if self.llm is None:
            return []
        asked = []
        if self.answer_correctness is None or self.answer_correctness.enabled:
            asked.append("answer_correctness")
        embedding = self.llm.get("embedding") is not None
        if embedding and (self.answer_relevance is None or self.answer_relevance.enabled):
            asked.append("answer_relevance")
        if self.custom_evaluations:
            asked.append("custom_evaluations")
        return asked


def read_config(config_file_path: str | os.PathLike[str] | None) -> Config:
    """The config in the YAML (or JSON) file, or the empty config for None. Raises
    ``InputError`` at the place of each problem (``conf.yaml:3:5: llm: ...``)."""
    if config_file_path is None or config_file_path == "":
        return Config()
    document = load_document(config_file_path)
    data = document.data if document.data is not None else {}
    if not isinstance(data, Mapping):
        raise document.error("a graphrag-eval config is a mapping (llm, custom_evaluations, ...)", ())
    try:
        return Config.model_validate(data)
    except ValidationError as error:
        problems = validation_errors(error, source=document.source, locate=document.locate, model=Config)
        raise problems[0] if len(problems) == 1 else InputErrors(problems) from None


def judge_from_config(config: Config, environ: Mapping[str, str] | None = None) -> AnswerJudge | None:
    """The answer-correctness judge a 6.x config asks for, or None (no ``llm``, or answer
    correctness disabled): an OpenAI-compatible endpoint at ``llm.generation.base_url`` (else
    ``ANSWERKEY_JUDGE_URL``: answerkey never implies an endpoint), ``llm.generation.model``,
    ``llm.generation.api_key`` (else ``ANSWERKEY_JUDGE_API_KEY``), the config's
    ``answer_correctness.prompt``, 6.x's JSON reply. Timeout, retries and cache come from the
    environment, as for ``--answers``. Raises ``InputError`` for a config it cannot use."""
    if "answer_correctness" not in config.llm_metrics:
        return None
    return endpoint_judge(config, environ)


def endpoint_judge(config: Config, environ: Mapping[str, str] | None = None) -> AnswerJudge:
    """The judge at the config's endpoint, whatever metrics it asks for (custom evaluations
    use it); ``judge_from_config`` says how it is chosen."""
    environ = os.environ if environ is None else environ
    generation = (config.llm or {}).get("generation")
    if not isinstance(generation, Mapping):
        raise InputError("llm.generation: missing; it names the model (and base_url, the endpoint)")
    try:
        # The environment's timeout, retries, cache, model and key, read and checked as for
        # --answers; its URL is taken below (this one only stands in for it).
        judge = AnswerJudge.from_environment({**environ, ENVIRONMENT["url"]: "http://settings.invalid"})
    except ValueError as error:
        raise InputError(str(error)) from None
    assert judge is not None
    url = generation.get("base_url") or environ.get(ENVIRONMENT["url"], "").strip()
    if not url:
        raise InputError(
            f"llm.generation.base_url: missing, and {ENVIRONMENT['url']} is unset: answerkey needs the base URL "
            "of an OpenAI-compatible API (e.g. https://api.openai.com/v1)"
        )
    prompt = config.answer_correctness.prompt if config.answer_correctness is not None else None
    try:
        return AnswerJudge(
            url=str(url),
            model=str(generation.get("model") or judge.model),
            api_key=str(generation["api_key"]) if generation.get("api_key") else judge.api_key,
            timeout=judge.timeout,
            retries=judge.retries,
            cache=judge.cache,
            graphrag_eval=6,
            correctness_prompt=prompt,
        )
    except ValueError as error:
        raise InputError(f"llm.generation: {error}") from None


def embedder_from_config(config: Config, environ: Mapping[str, str] | None = None) -> AnswerJudge | None:
    """The embeddings endpoint of a 6.x config asking for answer relevance, or None: at
    ``llm.embedding.api_base`` (else the generation endpoint), ``llm.embedding.model``,
    ``llm.embedding.api_key`` (else the generation key)."""
    if "answer_relevance" not in config.llm_metrics:
        return None
    generation = endpoint_judge(config, environ)
    embedding = (config.llm or {}).get("embedding")
    if not isinstance(embedding, Mapping) or not embedding.get("model"):
        raise InputError("llm.embedding.model: missing; answer relevance needs the embedding model")
    try:
        return dataclasses.replace(
            generation,
            url=str(embedding.get("api_base") or generation.url),
            model=str(embedding["model"]),
            api_key=str(embedding["api_key"]) if embedding.get("api_key") else generation.api_key,
        )
    except ValueError as error:
        raise InputError(f"llm.embedding: {error}") from None


def evaluate_relevance(config: Config, question: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """6.x's ``answer_relevance`` (or ``answer_relevance_error``) of a response's
    ``actual_answer`` to the question's ``question_text``, when the config asks for it and the
    response has an answer; else nothing."""
    embedder = embedder_from_config(config)
    if embedder is None or "actual_answer" not in response:
        return {}
    judge = endpoint_judge(config)
    return answer_relevance(judge, embedder, str(question.get("question_text", "")), str(response["actual_answer"]))


async def run_evaluation(
    qa_dataset: Sequence[Mapping[str, Any]],
    responses_dict: Mapping[str, Any],
    config_file_path: str | os.PathLike[str] | None = None,
) -> list[dict[str, Any]]:
    """graphrag-eval 6.x's ``run_evaluation``: one result per question, by 6.x's rules and with
    its keys (``answerkey.steps.run_evaluation(..., graphrag_eval=6)``). Answer correctness
    is judged when the config asks for it (``judge_from_config``), and each custom evaluation
    (its outputs, or ``{name}_error``) by the same endpoint; a config asking for answer
    relevance is refused with ``InputError`` (not computed in this mode yet)."""
    config = read_config(config_file_path)
    judge = endpoint_judge(config) if config.llm is not None else None
    correctness = "answer_correctness" in config.llm_metrics
    results = _run_evaluation_4(qa_dataset, responses_dict, graphrag_eval=6, answer_judge=judge, answers=correctness)
    if judge is not None and (config.custom_evaluations or "answer_relevance" in config.llm_metrics):
        custom_judge = judge
        questions = [question for template in qa_dataset for question in template["questions"]]
        for result, question in zip(results, questions):
            response = responses_dict.get(str(question["id"]), {})
            result.update(evaluate_relevance(config, question, response))
            result.update(evaluate_custom(config, custom_judge, question, response))
    return results


def evaluate_custom(
    config: Config, judge: AnswerJudge, question: Mapping[str, Any], response: Mapping[str, Any]
) -> dict[str, Any]:
    """The config's custom evaluations of one question and its response (``question_text``,
    ``reference_answer``, ``reference_steps``; ``actual_answer``, ``actual_steps``): each
    output as a key, or ``{name}_error`` with the outputs None. Never raises."""
    found: dict[str, Any] = {}
    for evaluation in config.custom_evaluations or ():
        found.update(run_custom(evaluation, judge, question, response))
    return found


def compute_aggregates(
    samples: Iterable[Mapping[str, Any]],
    config_file_path: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """graphrag-eval 6.x's ``compute_aggregates``: per template, micro and macro, by 6.x's
    rules, with the config's custom metrics (the ``outputs`` of its ``custom_evaluations``)."""
    config = read_config(config_file_path)
    return aggregate_results(validate_results(samples), graphrag_eval=6, custom_metrics=config.custom_metrics)


async def evaluate_steps(reference: dict[str, Any], actual: Mapping[str, Any], ragas_llm: Any = None) -> dict[str, Any]:
    """graphrag-eval 6.x's ``evaluate_steps``: ``{"actual_steps": [...], "steps_score": ...}``
    for one question (``steps_score`` only when it has ``reference_steps``), writing
    ``matches`` on the matched steps of ``reference`` itself, as 6.x does. ``ragas_llm`` must
    be None: the LLM-based retrieval metrics are not computed here yet.

    >>> import asyncio
    >>> question = {"reference_steps": [[{"name": "a", "output": "1"}]]}
    >>> asyncio.run(evaluate_steps(question, {"actual_steps": [{"name": "a", "id": "s", "status": "success",
    ...     "output": "1"}]}))["steps_score"], question["reference_steps"][0][0]["matches"]
    (1.0, 's')
    """
    if ragas_llm is not None:
        raise InputError("answerkey's evaluate_steps computes no LLM-based retrieval metrics yet: pass ragas_llm=None")
    actual_steps = actual.get("actual_steps", [])
    result: dict[str, Any] = {"actual_steps": actual_steps}
    groups = reference.get("reference_steps")
    if groups:
        matches = match_groups(groups, actual_steps)
        for group_index, reference_index, actual_index, _ in matches:
            groups[group_index][reference_index]["matches"] = actual_steps[actual_index].get("id")
        result["steps_score"] = steps_score(groups, matches)
    return result


def recall_at_k(relevant_ids: Sequence[Any], retrieved_ids: Sequence[Any], k: int = 10) -> float:
    """graphrag-eval 6.x's recall@k: of the first ``k`` relevant ids, the share among the first
    ``k`` retrieved (0.0 without relevant ids). Unlike ``answerkey.metrics.recall_at_k``
    (trec_eval's), the relevant ids are cut at k too.

    >>> recall_at_k(list(range(10)), list(range(5)), k=5)
    1.0
    """
    relevant = list(relevant_ids)[:k]
    if not relevant:
        return 0.0
    return len(set(relevant) & set(list(retrieved_ids)[:k])) / len(relevant)


def average_precision(relevant_ids: Iterable[Any], retrieved_ids: Iterable[Any]) -> float:
    """graphrag-eval 6.x's average precision: the precision at each rank holding a relevant id,
    summed, over the number of distinct relevant ids (a repeated retrieved id counts again).

    >>> round(average_precision({1, 3, 5, 6}, [1, 4, 3, 5, 7]), 6)
    0.604167
    """
    relevant = set(relevant_ids)
    if not relevant:
        return 0.0
    hits = 0
    total = 0.0
    for rank, document in enumerate(retrieved_ids, start=1):
        if document in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant)
