"""``answerkey score CORPUS ANSWERS``: score one system's answers against a corpus."""

from __future__ import annotations

import dataclasses

import click

from answerkey.cli import Trouble
from answerkey.cli.options import (
    Selection,
    abs_epsilon_option,
    epsilon_option,
    fail_under_option,
    jobs_option,
    metric_names,
    quiet_option,
    scalars_option,
    selection_options,
    strings_option,
)
from answerkey.cli.output import failures_option, finish, report_options, start
from answerkey.errors import InputError, InputErrors
from answerkey.metrics import defaults_for, metrics_for
from answerkey.report import ReportPaths
from answerkey.report.alignment import ALIGNED_LINES
from answerkey.score.load import ANSWER_FORMATS, CORPUS_FORMATS, Answers, Corpus, load_answers, load_corpus
from answerkey.score.run import ScoreOptions, run_score


def _metrics(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    # "all" is the registry's defaults.
    if value.strip() == "all":
        return defaults_for("score")
    return metric_names(value, metrics_for("score"), none=True)


def _chosen(corpus: Corpus, answers: Answers, selection: Selection) -> tuple[Corpus, Answers]:
    """The corpus items ``selection`` chooses, and their answers (with those for ids not in the
    corpus, which are still worth a warning)."""
    kept = selection.indices(corpus.items, lambda item: item.id, lambda item: item.tags)
    every = {item.id for item in corpus.items}
    chosen = {corpus.items[index].id for index in kept}
    by_id = {item_id: given for item_id, given in answers.by_id.items() if item_id in chosen or item_id not in every}
    items = [corpus.items[index] for index in kept]
    paths = [corpus.paths[index] for index in kept]
    return dataclasses.replace(corpus, items=items, paths=paths), dataclasses.replace(answers, by_id=by_id)


# The metrics only named ones compute.
_NAMED_ONLY = [name for name in metrics_for("score") if name not in defaults_for("score")]


@click.command()
@click.argument("corpus", metavar="CORPUS")
@click.argument("answers", metavar="ANSWERS")
@report_options
@failures_option
@epsilon_option
@abs_epsilon_option
@scalars_option
@strings_option
@click.option(
    "--metrics",
    default="all",
    show_default=True,
    metavar="NAMES",
    callback=_metrics,
    help=f"Metrics to compute, comma-separated from: {', '.join(metrics_for('score'))}; "
    + (f"all (every one but {', '.join(_NAMED_ONLY)}), or none." if _NAMED_ONLY else "or all, or none."),
)
@fail_under_option
@selection_options()
@jobs_option
@click.option(
    "--corpus-format",
    type=click.Choice(list(CORPUS_FORMATS)),
    help="Read CORPUS as this format (default: by its suffix: .jsonl, .json, else YAML).",
)
@click.option(
    "--answers-format",
    type=click.Choice(list(ANSWER_FORMATS)),
    help="Read ANSWERS as this format (default: a directory is dir; else by its suffix).",
)
@quiet_option
def score(
    corpus: str,
    answers: str,
    reports: ReportPaths,
    epsilon: float,
    abs_epsilon: float,
    scalars: str,
    strings: str,
    metrics: tuple[str, ...],
    fail_under: float | None,
    selection: Selection,
    jobs: int,
    corpus_format: str | None,
    answers_format: str | None,
    quiet: bool,
) -> None:
    """Score a system's ANSWERS against a CORPUS of canonical answers.

    CORPUS is a YAML or JSON list of items, or JSON Lines with one item per line: id, query,
    answer (CAS), optional max_answer, category (0-3 or X, H89-2019 section 5; X items are
    listed, not scored), tags, context, and per-item epsilon and ordered overrides. ANSWERS
    is JSON Lines {"id": ..., "answer": "<CAS>"}, a YAML or JSON mapping id: CAS, or a
    directory of <id>.cas files. `answerkey schema corpus` and `answerkey schema answers`
    print their JSON Schemas.

    Each scored item is correct, incorrect, or no_answer (missing, null or NO_ANSWER); an
    answer that does not parse is incorrect. Accuracy = correct / scored; ATIS weighted
    error = 2 x %incorrect + %no_answer and score = 100 - weighted error. The graded metrics
    (QATCH's) are averaged over the scored items; tuple_order only where the canonical
    answer is ordered. Every report carries a signature of the options that change verdicts.

    \b
    Examples:
      answerkey score examples/personnel/corpus.yaml examples/personnel/answers.jsonl
      answerkey score corpus.jsonl answers/ --xlsx report.xlsx --json report.json -j 4
      answerkey score corpus.yaml answers.yaml --fail-under 0.9 --metrics none
      answerkey score examples/personnel/corpus.yaml examples/personnel/answers.jsonl --tag relation --limit 3

    Exit status: 0 scored, 1 accuracy under --fail-under, 2 trouble (bad input, listed as
    FILE:LINE:COL: message; nothing is scored when any corpus item is bad; or no item to
    score: an --ids id the corpus lacks, nothing left by --tag, only category X items).
    """
    if corpus == "-" and answers == "-":
        raise Trouble("only one of CORPUS and ANSWERS can be read from standard input")
    start(reports, {"CORPUS": corpus, "ANSWERS": answers})
    aligned_lines = ALIGNED_LINES if reports.html else 0  # aligned answers only for the HTML page
    options = ScoreOptions(
        epsilon=epsilon,
        abs_epsilon=abs_epsilon,
        scalars=scalars,
        strings=strings,
        metrics=metrics,
        aligned_lines=aligned_lines,
    )
    loaded_corpus = load_corpus(corpus, format=corpus_format)
    try:
        loaded_answers = load_answers(answers, format=answers_format)
    except InputError as error:
        # The corpus's own problems are worth knowing in the same run.
        raise InputErrors([*loaded_corpus.problems, error]) from None
    if selection:
        loaded_corpus, loaded_answers = _chosen(loaded_corpus, loaded_answers, selection)
    run = run_score(loaded_corpus, loaded_answers, options, jobs=jobs, quiet=quiet)
    nothing = "CORPUS has no item" if not run.items else "every item is category X (listed, not scored)"
    finish(run, reports, quiet=quiet, evaluated=run.summary.scored, nothing=nothing)
    accuracy = run.summary.accuracy
    if fail_under is not None and (accuracy is None or accuracy < fail_under):
        shown = "undefined (nothing scored)" if accuracy is None else f"{accuracy:.4f}"
        click.echo(f"accuracy {shown} is under --fail-under {fail_under:g}", err=True)
        raise click.exceptions.Exit(1)
