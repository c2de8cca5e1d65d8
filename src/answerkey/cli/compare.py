"""``answerkey compare RUN_A RUN_B [RUN_C ...]``: is a system really better than another?"""

from __future__ import annotations

import click

from answerkey.cli import Trouble
from answerkey.cli.options import quiet_option
from answerkey.cli.output import finish, report_options, start
from answerkey.compare import DEFAULT_RESAMPLES, DEFAULT_SEED, CompareError, compare_runs, read_run
from answerkey.report import ReportPaths


@click.command()
@click.argument("runs", nargs=-1, required=True, metavar="RUN_A RUN_B [RUN_C ...]")
@click.option(
    "--measure",
    metavar="NAME",
    help="The figure compared (default: the workflow's headline: accuracy for sql and score, "
    "execution_accuracy for qatch, macro_recall for sdmx, steps_score for steps, answer_f1 for "
    "answers); sql also has accuracy:SEMANTICS, and every report its metrics.",
)
@click.option(
    "--resamples",
    type=click.IntRange(1, 1_000_000),
    default=DEFAULT_RESAMPLES,
    show_default=True,
    metavar="N",
    help="Rounds of bootstrap resampling and of approximate randomization.",
)
@click.option(
    "--seed", type=click.IntRange(0), default=DEFAULT_SEED, show_default=True, metavar="N", help="The random seed."
)
@click.option(
    "--allow-different-signature",
    is_flag=True,
    help="Compare runs whose signatures differ (the options that produced them).",
)
@click.option(
    "--show-items",
    type=click.IntRange(0),
    default=10,
    show_default=True,
    metavar="N",
    help="List the first N items that changed each way (the reports list them all).",
)
@report_options
@quiet_option
def compare(
    runs: tuple[str, ...],
    measure: str | None,
    resamples: int,
    seed: int,
    allow_different_signature: bool,
    show_items: int,
    reports: ReportPaths,
    quiet: bool,
) -> None:
    """Compare runs on the same items, each against the first (RUN_A, the baseline).

    Each RUN is the --json report of a run (sql, score, qatch, sdmx, steps evaluate or
    answers), all of the same workflow, over the same items, with the same signature. For
    each run after the first, one line: both means, their difference with a 95% paired
    bootstrap interval, the approximate-randomization p-value, McNemar's exact p-value for
    verdicts, and how many items changed each way (the first --show-items of them listed).
    Resampling uses --seed, so the figures are the same on every run; the signature names
    the measure, the rounds and the seed.

    \b
    Examples:
      answerkey compare baseline.json new.json
      answerkey compare a.json b.json c.json --measure accuracy:test-suite --json comparison.json
      answerkey compare old.json new.json --resamples 10000 --html comparison.html

    Exit status: 0 compared, 2 trouble (an unreadable report, runs over different items or
    with different signatures: what differs is named).
    """
    if len(runs) < 2:
        raise Trouble("compare needs at least two runs (RUN_A RUN_B)")
    start(reports, {f"RUN {index}": run for index, run in enumerate(runs, 1)})
    try:
        result = compare_runs(
            [read_run(run) for run in runs],
            measure=measure,
            resamples=resamples,
            seed=seed,
            allow_different_signature=allow_different_signature,
            shown=show_items,
        )
    except CompareError as error:
        raise Trouble(error.message) from None
    finish(result, reports, quiet=quiet, evaluated=len(result.runs[0].ids), nothing="the runs have no item in common")
