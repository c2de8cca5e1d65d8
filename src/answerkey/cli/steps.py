"""``answerkey steps evaluate|aggregate``: graphrag-eval-compatible evaluation of agent steps."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

import click

from answerkey.cli import Trouble
from answerkey.cli.answers import reachable
from answerkey.cli.options import abs_epsilon_option, epsilon_option, quiet_option
from answerkey.cli.output import failures_option, finish, report_options, start
from answerkey.compat.graphrag_eval import (
    Config,
    endpoint_judge,
    evaluate_custom,
    evaluate_relevance,
    read_config,
)
from answerkey.metrics.answers import ENVIRONMENT, AnswerJudge
from answerkey.report import REPORT_FORMATS, ReportPaths
from answerkey.steps.aggregates import MISSING_USAGE_RULES, aggregate_results
from answerkey.steps.load import read_evaluation_inputs, read_results
from answerkey.steps.outputs import RETRIEVAL_K_RULES
from answerkey.steps.run import GRAPHRAG_EVAL_VERSIONS, StepsOptions, aggregate_steps, run_steps


def graphrag_eval_option(help: str, default: int | None = 4) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--graphrag-eval 4|6``: whose rules and keys to follow."""
    return click.option(
        "--graphrag-eval",
        "graphrag_eval",
        type=click.Choice([str(version) for version in GRAPHRAG_EVAL_VERSIONS]),
        default=None if default is None else str(default),
        show_default=default is not None,
        help=help,
    )


def config_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``-c/--config CONF.yaml``: graphrag-eval 6.x's config file."""
    return click.option("-c", "--config", "config", metavar="CONF.yaml", help=help)


def output_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``-o/--output FILE``: the report as YAML, or as JSON when FILE ends in .json."""
    return click.option(
        "-o",
        "--output",
        metavar="FILE",
        help="Same as --yaml FILE, or --json FILE when FILE ends in .json (kept for compatibility). "
        "Without -o, --json or --yaml the YAML report goes to standard output.",
    )(function)


@dataclasses.dataclass(frozen=True)
class StepsReportPaths(ReportPaths):
    """The report paths, remembering which one ``-o`` gave, so that a bad path is named by
    the option the user typed."""

    output_format: str | None = None

    def outputs(self) -> dict[str, tuple[str | None, str]]:
        """Option name -> (path, format), ``-o`` for the report it gave."""
        return {
            ("-o" if name == self.output_format else f"--{name}"): (getattr(self, name), name)
            for name in REPORT_FORMATS
        }


def report_paths(reports: ReportPaths, output: str | None) -> StepsReportPaths:
    """The reports to write: ``-o`` gives the YAML report (the JSON one for a .json name), and
    with neither ``--json`` nor ``--yaml`` the YAML report goes to standard output."""
    format = None
    if output is not None:
        format = "json" if output.lower().endswith(".json") else "yaml"
        given = getattr(reports, format)
        if given is not None:
            raise Trouble(f"-o {output} and --{format} {given} both ask for the {format.upper()} report; give one")
        reports = dataclasses.replace(reports, **{format: output})
    if reports.json is None and reports.yaml is None and reports.xlsx != "-":  # `--xlsx -` is refused as such
        reports = dataclasses.replace(reports, yaml="-")
    return StepsReportPaths(reports.json, reports.yaml, reports.xlsx, reports.html, output_format=format)


@click.group()
def steps() -> None:
    """Evaluate an agent's steps against reference steps (graphrag-eval 4.0 compatible; 6.x
    with --graphrag-eval 6).

    The last group of each question's reference steps is matched with the agent's
    successful steps of the same name; SPARQL results are judged by answerkey's comparator
    (typed values, reals within epsilon, extra columns allowed, column mapping searched).
    With --graphrag-eval 6, graphrag-eval 6.x's rules, inputs and keys instead.

    \b
    Examples:
      answerkey steps evaluate examples/steps/reference.yaml examples/steps/responses.jsonl -o results.yaml
      answerkey steps aggregate results.yaml -o aggregates.yaml --xlsx report.xlsx
      answerkey steps evaluate examples/steps6/reference.yaml examples/steps6/responses.jsonl --graphrag-eval 6
    """


@steps.command(short_help="Score agent steps against a reference corpus.")
@click.argument("reference", metavar="REFERENCE")
@click.argument("responses", metavar="RESPONSES")
@output_option
@report_options
@failures_option
@epsilon_option
@abs_epsilon_option
@click.option(
    "--retrieval-k",
    type=click.Choice(RETRIEVAL_K_RULES),
    default=RETRIEVAL_K_RULES[0],
    show_default=True,
    help="Whose args.k cuts a retrieval step's list first: the reference step's (graphrag-eval 4.0's rule; "
    "then the actual step's) or the actual step's (then the reference's). Without either k the whole list counts.",
)
@click.option(
    "--answers",
    is_flag=True,
    help=f"Also judge final answers with an LLM at {ENVIRONMENT['url']} (see docs/answers.md).",
)
@graphrag_eval_option(
    "Follow graphrag-eval 4.0 (answerkey's rules: last reference group, comparator, --epsilon, --retrieval-k) "
    "or graphrag-eval 6.x (its rules, inputs and keys: every group, steps without output, iri_discovery, "
    "time series; see docs/switching-graphrag-eval.md)."
)
@config_option(
    "graphrag-eval 6.x's config file (with --graphrag-eval 6): answer correctness by its llm.generation "
    "endpoint and prompt, and its custom evaluations (see docs/switching-graphrag-eval.md)."
)
@quiet_option
def evaluate(
    reference: str,
    responses: str,
    output: str | None,
    reports: ReportPaths,
    epsilon: float,
    abs_epsilon: float,
    retrieval_k: str,
    answers: bool,
    graphrag_eval: str,
    config: str | None,
    quiet: bool,
) -> None:
    """Score RESPONSES against the REFERENCE corpus.

    REFERENCE is YAML or JSON: templates -> questions -> reference_steps (`answerkey schema
    steps-reference`). RESPONSES is a JSON or YAML object keyed by question id, a list of
    responses, or JSON Lines (`answerkey schema steps-responses`).

    A question without a response, or with an error response, is an error sample. Unmatched
    reference steps get a `mismatch` key saying why. A retrieval step scores recall@k, k from
    the reference step's args.k (--retrieval-k actual: the actual step's first). The report (`answerkey schema
    steps-results`) holds the signature, a summary, one result per question with
    graphrag-eval's keys, and the warnings; a one-line summary goes to standard error (not with -q).

    \b
    Examples:
      answerkey steps evaluate examples/steps/reference.yaml examples/steps/responses.jsonl -o results.yaml
      answerkey steps evaluate reference.yaml responses.json --json results.json --xlsx results.xlsx

    Exit status: 0 evaluated, 2 trouble (bad input, listed as FILE:LINE:COL: message).
    """
    if reference == "-" and responses == "-":
        raise Trouble("only one of REFERENCE and RESPONSES can be read from standard input")
    reports = report_paths(reports, output)
    judge_cache = os.environ.get(ENVIRONMENT["cache"], "").strip() or None
    start(reports, {"REFERENCE": reference, "RESPONSES": responses, "-c": config, ENVIRONMENT["cache"]: judge_cache})
    if config is not None and graphrag_eval != "6":
        raise Trouble("-c is graphrag-eval 6.x's config: give --graphrag-eval 6 with it")
    settings = read_config(config) if config is not None else Config()
    judge = endpoint_judge(settings) if settings.llm is not None else None
    if answers and judge is not None:
        raise Trouble("--answers and a config's llm both name a judge; give one")
    answers = answers or "answer_correctness" in settings.llm_metrics
    if judge is None and answers:
        try:
            judge = AnswerJudge.from_environment()
        except ValueError as error:
            raise Trouble(str(error)) from None
        if judge is None:
            raise Trouble(f"--answers needs {ENVIRONMENT['url']} (an OpenAI-compatible API base URL)")
        judge = reachable(judge)
    version = int(graphrag_eval)
    options = StepsOptions(
        epsilon=epsilon, abs_epsilon=abs_epsilon, answers=answers, retrieval_k=retrieval_k, graphrag_eval=version
    )
    loaded_reference, loaded_responses = read_evaluation_inputs(reference, responses, graphrag_eval=version)
    run = run_steps(loaded_reference, loaded_responses, options, answer_judge=judge, quiet=quiet)
    if settings.custom_evaluations or "answer_relevance" in settings.llm_metrics:
        _custom_evaluations(run, settings)
    finish(run, reports, quiet=quiet, evaluated=len(run.results), nothing="REFERENCE has no question")
    if not quiet:
        click.echo(run.summary_line(), err=True)


def _custom_evaluations(run: Any, settings: Config) -> None:
    """The config's custom evaluations on each result (it holds the question's and the
    response's keys 6.x reads), and the aggregates again with their outputs."""
    judge = endpoint_judge(settings)
    for result in run.results:
        result.update(evaluate_relevance(settings, result, result))
        result.update(evaluate_custom(settings, judge, result, result))
    run.aggregates = aggregate_results(run.results, graphrag_eval=6, custom_metrics=settings.custom_metrics)


@steps.command(short_help="Aggregate results: per template, micro, macro.")
@click.argument("results", metavar="RESULTS")
@output_option
@report_options
@click.option(
    "--missing-usage",
    type=click.Choice(MISSING_USAGE_RULES),
    default=MISSING_USAGE_RULES[0],
    show_default=True,
    help="A usage figure (input_tokens, output_tokens, total_tokens, elapsed_sec) that a template lacks, "
    "as when none of its questions succeeded: omit leaves it out of the template and of the macro mean; "
    "zero counts it as 0 there, as graphrag-eval 4.0 does (recorded in the signature).",
)
@graphrag_eval_option(
    "Aggregate by graphrag-eval 4.0's layout (answerkey's) or 6.x's (error samples' figures counted, "
    "micro.steps, retrieval step metrics). Default: 6 for results whose signature says graphrag_eval:6, else 4.",
    default=None,
)
@config_option("graphrag-eval 6.x's config file: the outputs of its custom evaluations are aggregated too.")
@quiet_option
def aggregate(
    results: str,
    output: str | None,
    reports: ReportPaths,
    missing_usage: str,
    graphrag_eval: str | None,
    config: str | None,
    quiet: bool,
) -> None:
    """Aggregate per-question RESULTS: per template, micro, macro.

    RESULTS is the report of `steps evaluate` (JSON or YAML), or a list of per-question
    results as graphrag-eval writes them. Each metric gets sum/mean/median/min/max over
    successful questions; `steps` counts the executed steps by name (total,
    once_per_sample, empty_results, errors); macro is the mean of the per-template means
    (--missing-usage zero: graphrag-eval's, with zero usage for templates without any).
    The report (`answerkey schema steps-aggregates`) carries the signature of the results
    (its options `unknown` when they have none).

    \b
    Example:
      answerkey steps aggregate results.yaml -o aggregates.yaml --xlsx report.xlsx

    Exit status: 0 aggregated, 2 trouble (bad input, listed as FILE:LINE:COL: message).
    """
    reports = report_paths(reports, output)
    start(reports, {"RESULTS": results, "-c": config})
    version = int(graphrag_eval) if graphrag_eval is not None else None
    custom = read_config(config).custom_metrics if config is not None else ()
    run = aggregate_steps(
        read_results(results), missing_usage=missing_usage, graphrag_eval=version, custom_metrics=custom
    )
    finish(run, reports, quiet=quiet, evaluated=len(run.results), nothing="RESULTS has no result")
