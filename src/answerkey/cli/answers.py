"""``answerkey answers -i IN.tsv -o OUT.tsv``: answer correctness by claims, judged by an LLM
(graphrag-eval's ``answer-correctness`` command)."""

from __future__ import annotations

import dataclasses
import os

import click

from answerkey.answers.load import load_table
from answerkey.answers.run import run_answers
from answerkey.answers.schema import OUTPUT_LAYOUTS
from answerkey.cli import Trouble
from answerkey.cli.options import fail_under_option, quiet_option
from answerkey.cli.output import failures_option, finish, report_options, start
from answerkey.compat.graphrag_eval import judge_from_config, read_config
from answerkey.errors import InputError
from answerkey.files import OutputError, write_output
from answerkey.metrics.answers import ENVIRONMENT, AnswerJudge
from answerkey.report import ReportPaths


@dataclasses.dataclass(frozen=True)
class AnswersPaths(ReportPaths):
    """The reports' paths and the output TSV's (``-o``), checked together against the input."""

    out_file: str | None = None

    @property
    def to_stdout(self) -> bool:
        """True when the TSV or a report goes to standard output (then nothing else is printed there)."""
        return self.out_file == "-" or super().to_stdout

    def outputs(self) -> dict[str, tuple[str | None, str]]:
        """Option name -> (path, format), ``-o`` first."""
        return {"-o": (self.out_file, "tsv"), **super().outputs()}


def reachable(judge: AnswerJudge) -> AnswerJudge:
    """``judge`` once its endpoint is known to be reachable: checked once before any row, as
    a failed connection is not worth retrying row by row. Unreachable, it is trouble (exit 2,
    nothing sent), unless ANSWERKEY_JUDGE_CACHE may hold the replies: then a warning, and the
    rows it does not hold fail at once, without retries."""
    problem = judge.unreachable()
    if problem is None:
        return judge
    if judge.cache is None:
        raise Trouble(problem)
    click.echo(f"warning: {problem}; only the replies kept in {ENVIRONMENT['cache']} are used", err=True)
    return dataclasses.replace(judge, retries=0)


@click.command()
@click.option(
    "-i",
    "--in-file",
    required=True,
    metavar="IN.tsv",
    help="The questions and answers, as TSV ('-': standard input).",
)
@click.option(
    "-o",
    "--out-file",
    required=True,
    metavar="OUT.tsv",
    help="Write the judged rows, as TSV ('-': standard output).",
)
@click.option(
    "--columns",
    type=click.Choice(OUTPUT_LAYOUTS),
    default=OUTPUT_LAYOUTS[0],
    show_default=True,
    help="all: the input's columns, graphrag-eval's five and Recall, Precision, F1. "
    "graphrag-eval: only graphrag-eval 4.0's five columns, as it writes them.",
)
@click.option(
    "-c",
    "--config",
    "config",
    metavar="CONF.yaml",
    help="graphrag-eval 6.x's config file: the judge from llm.generation (base_url, model, api_key), "
    "answer_correctness.prompt, and 6.x's JSON reply (see docs/answers.md).",
)
@report_options
@failures_option
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Send this many requests at once (the output keeps the input's order).",
)
@fail_under_option
@quiet_option
def answers(
    in_file: str,
    out_file: str,
    columns: str,
    config: str | None,
    reports: ReportPaths,
    jobs: int,
    fail_under: float | None,
    quiet: bool,
) -> None:
    """Judge each answer of a TSV file by claims, with an LLM (graphrag-eval's answer-correctness).

    IN.tsv is tab-separated with a header naming the columns 'Question', 'Reference answer'
    and 'Actual answer' (other columns are copied). For each row the judge counts the
    claims of the reference answer (#Reference) and of the actual answer (#PTarget), and the
    matching ones (#Matching), with a reason (Reasoning): recall = #Matching / #Reference,
    precision = #Matching / #PTarget, F1 their harmonic mean. OUT.tsv is IN.tsv's columns,
    then #Reference, #PTarget, #Matching, Reasoning, Error, Recall, Precision, F1. A row the
    judge cannot judge (a failed call, a timeout, a reply not in the asked format, a blank
    cell) gets its Error and the run goes on. The summary gives the means over the judged rows.

    The judge is an OpenAI-compatible chat-completions endpoint: ANSWERKEY_JUDGE_URL (the API
    base, required), ANSWERKEY_JUDGE_MODEL (default gpt-4o-mini), ANSWERKEY_JUDGE_API_KEY (sent
    as a bearer token), ANSWERKEY_JUDGE_TIMEOUT (seconds per request, default 60) and
    ANSWERKEY_JUDGE_RETRIES (calls made again after a rate limit, a server error, a time-out or
    no connection, default 2, after the Retry-After the endpoint asks for or 0.5 s, then 1 s)
    and ANSWERKEY_JUDGE_CACHE (a directory keeping each reply: run again, a stopped run asks
    only for the rows it had not judged).

    \b
    Examples:
      export ANSWERKEY_JUDGE_URL=https://api.openai.com/v1 ANSWERKEY_JUDGE_API_KEY=sk-...
      answerkey answers -i examples/answers/questions.tsv -o judged.tsv
      answerkey answers -i in.tsv -o out.tsv -j 4 --json report.json --xlsx report.xlsx

    The endpoint is checked once before any row: one that cannot be reached stops the run at
    once (with ANSWERKEY_JUDGE_CACHE, a warning: the rows it lacks fail without retries).

    Exit status: 0 judged (rows with an error included: see their Error and the warnings),
    1 mean F1 under --fail-under, 2 trouble (bad input, listed as FILE:LINE:COL: message, no
    endpoint or one that cannot be reached: nothing is sent then; or no row judged).
    """
    paths = AnswersPaths(reports.json, reports.yaml, reports.xlsx, reports.html, out_file=out_file)
    start(
        paths,
        {"-i": in_file, "-c": config, ENVIRONMENT["cache"]: os.environ.get(ENVIRONMENT["cache"], "").strip() or None},
    )
    try:
        judge = AnswerJudge.from_environment() if config is None else _config_judge(config)
    except ValueError as error:
        raise Trouble(str(error)) from None
    if judge is None:
        raise Trouble(
            f"answerkey answers needs {ENVIRONMENT['url']}: the base URL of an OpenAI-compatible API "
            f"(e.g. https://api.openai.com/v1, its key in {ENVIRONMENT['api_key']})"
        )
    table = load_table(in_file, output_layout=columns)
    judge = reachable(judge)
    run = run_answers(table, judge, jobs=jobs, quiet=quiet)
    try:
        write_output(out_file, run.tsv_text(columns))
    except OutputError as error:
        raise Trouble(error.message) from None
    finish(run, paths, quiet=quiet, evaluated=run.judged, nothing="no row could be judged (see the warnings)")
    f1 = run.f1
    if fail_under is not None and (f1 is None or f1 < fail_under):
        shown = "undefined (no row judged)" if f1 is None else f"{f1:.4f}"
        click.echo(f"mean F1 {shown} is under --fail-under {fail_under:g}", err=True)
        raise click.exceptions.Exit(1)


def _config_judge(path: str) -> AnswerJudge:
    """The judge of a graphrag-eval 6.x config (``InputError`` is reported at its place)."""
    judge = judge_from_config(read_config(path))
    if judge is None:
        raise InputError(f"{path}: the config asks for no answer correctness (no llm, or answer_correctness disabled)")
    return judge
