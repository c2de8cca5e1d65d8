"""``answerkey steps``: graphrag-eval-compatible evaluation of agent steps."""

from __future__ import annotations

import click

__all__ = ["steps"]


def _signature(epsilon: float, answers: bool) -> str:
    from answerkey.comparator.values import MatchRule
    from answerkey.signature import Signature

    eps = MatchRule(epsilon=epsilon).describe()["epsilon"]
    return str(Signature.of(epsilon=eps, scalars="atis", strings="exact", answers="llm" if answers else "off"))


@click.group()
def steps() -> None:
    """Evaluate an agent's steps against reference steps (graphrag-eval 4.0 compatible).

    The last group of each question's reference steps is matched with the agent's
    successful steps of the same name; SPARQL results are judged by answerkey's comparator
    (typed values, reals within epsilon, extra columns allowed, column mapping searched).

    \b
    Examples:
      answerkey steps evaluate examples/steps/reference.yaml examples/steps/responses.jsonl -o results.yaml
      answerkey steps aggregate results.yaml -o aggregates.yaml --xlsx report.xlsx
    """


@steps.command(short_help="Score agent steps against a reference corpus.")
@click.argument("reference", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("responses", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-o", "--output", default="-", show_default=True, metavar="FILE",
              help="Where to write the per-question results: YAML, or JSON if FILE ends in .json.")
@click.option("--xlsx", metavar="FILE", help="Also write a workbook: one row per question, and the aggregates.")
@click.option("--epsilon", type=click.FloatRange(min=0), default=1e-4, show_default=True,
              help="Relative tolerance for reals in SPARQL results.")
@click.option("--answers", is_flag=True,
              help="Also judge final answers with an LLM at ANSWERKEY_JUDGE_URL (see the README).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def evaluate(reference: str, responses: str, output: str, xlsx: str | None, epsilon: float,
             answers: bool, quiet: bool) -> None:
    """Score RESPONSES (JSON keyed by question id, a JSON list, or JSONL) against the
    REFERENCE corpus (YAML: templates → questions → reference_steps).

    A question without a response, or with an error response, is an error sample. Unmatched
    reference steps get a `mismatch` key saying why.

    \b
    Example:
      answerkey steps evaluate examples/steps/reference.yaml examples/steps/responses.jsonl -o results.yaml
    """
    from answerkey.cli import Trouble
    from answerkey.errors import InputError
    from answerkey.files import write_output as atomic_write
    from answerkey.progress import progress
    from answerkey.steps.aggregates import compute_aggregates
    from answerkey.steps.answers import AnswerJudge
    from answerkey.steps.run import run_evaluation
    from answerkey.steps.load import dump_results, read_reference, read_responses

    judge = None
    if answers:
        try:
            judge = AnswerJudge.from_environment()
        except ValueError as error:
            raise Trouble(str(error)) from None
        if judge is None:
            raise Trouble("--answers needs ANSWERKEY_JUDGE_URL (an OpenAI-compatible API base URL)")
    try:
        corpus, _ = read_reference(reference)
        by_id = read_responses(responses)
    except InputError as error:
        raise Trouble(str(error)) from None
    known = {question.id for template in corpus.root for question in template.questions}
    for question_id in by_id:
        if question_id not in known:
            click.echo(f"warning: {responses}: a response to question {question_id!r}, which is not in the reference",
                       err=True)
    total = len(known)
    ticks = iter(progress(range(total), total=total, label="steps", quiet=quiet))
    # Responses are passed as (model, raw) pairs already validated; hand over the raw ones.
    results = run_evaluation(
        corpus, [raw for _, raw in by_id.values()], epsilon=epsilon, answer_judge=judge,
        on_question=lambda: next(ticks, None),
    )
    for _ in ticks:
        pass  # let the bar finish and clear itself
    signature = _signature(epsilon, answers)
    atomic_write(output, dump_results(results, output, comment=f"answerkey steps evaluate | {signature}"))
    scores = [result["steps_score"] for result in results if "steps_score" in result]
    errors = sum(1 for result in results if result.get("status") == "error")
    mean = f"{sum(scores) / len(scores):.4f}" if scores else "n/a"
    click.echo(
        f"{len(results)} questions: {len(results) - errors} success, {errors} error; "
        f"mean steps_score {mean} ({signature})",
        err=True,
    )
    if xlsx:
        from answerkey.steps.report import write_workbook

        write_workbook(xlsx, results, compute_aggregates(results), signature=signature)


@steps.command(short_help="Aggregate results: per template, micro, macro.")
@click.argument("results", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-o", "--output", default="-", show_default=True, metavar="FILE",
              help="Where to write the aggregates: YAML, or JSON if FILE ends in .json.")
@click.option("--xlsx", metavar="FILE", help="Also write a workbook: one row per question, and the aggregates.")
def aggregate(results: str, output: str, xlsx: str | None) -> None:
    """Aggregate per-question RESULTS (from `steps evaluate`): per template, micro, macro.

    Each metric gets sum/mean/median/min/max over successful questions; `steps` counts the
    executed steps by name (total, once_per_sample, empty_results, errors); macro is the mean
    of the per-template means.

    \b
    Example:
      answerkey steps aggregate results.yaml -o aggregates.yaml
    """
    from answerkey.cli import Trouble
    from answerkey.errors import InputError
    from answerkey.files import write_output as atomic_write
    from answerkey.steps.aggregates import compute_aggregates
    from answerkey.steps.load import dump_results, read_results

    try:
        loaded, signature = read_results(results)
    except InputError as error:
        raise Trouble(str(error)) from None
    aggregates = compute_aggregates(loaded)
    comment = f"answerkey steps aggregate | {signature}" if signature else ""
    atomic_write(output, dump_results(aggregates, output, comment=comment))
    if xlsx:
        from answerkey.steps.report import write_workbook

        write_workbook(xlsx, loaded, aggregates, signature=signature or "")
