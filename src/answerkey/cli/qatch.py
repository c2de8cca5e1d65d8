"""``answerkey qatch TESTS --task qa|sp``: QATCH's graded table metrics over a tests file."""

from __future__ import annotations

import click

from answerkey.adapters.engines import SQLiteEngine, check_databases
from answerkey.cli import Trouble
from answerkey.cli.options import (
    Selection,
    abs_epsilon_option,
    epsilon_option,
    jobs_option,
    metric_names,
    quiet_option,
    selection_options,
    strings_option,
)
from answerkey.cli.output import failures_option, finish, report_options, start
from answerkey.cli.query_options import query_limit_options, ves_runs_option
from answerkey.errors import InputError, plural
from answerkey.files import source_name
from answerkey.metrics.registry import METRIC_KINDS, defaults_for, metrics_for
from answerkey.qatch.load import FORMATS, load_tests
from answerkey.qatch.run import TASKS, VES, QatchOptions, needs_databases, run_qatch
from answerkey.report import ReportPaths


def _metrics(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    # "all" is the registry's defaults: the table metrics (the valid efficiency score times queries,
    # so it is asked for by name).
    if value.strip() == "all":
        return defaults_for("qatch")
    return metric_names(value, metrics_for("qatch"), none=False)


# The table metrics, and those that compare SQL queries (SP tests only).
_TABLES = [name for name in metrics_for("qatch") if METRIC_KINDS[name] != "sql"]
_SP_ONLY = [name for name in metrics_for("qatch") if METRIC_KINDS[name] == "sql"]
_ALL = "the table metrics" if list(defaults_for("qatch")) == _TABLES else ", ".join(defaults_for("qatch"))


@click.command()
@click.argument("tests", metavar="TESTS")
@click.option(
    "--task",
    type=click.Choice(TASKS, case_sensitive=False),
    required=True,
    help="qa: predictions are tables (lists of rows); sp: predictions are SQL, run on --db.",
)
@click.option(
    "--db",
    "root",
    metavar="ROOT",
    type=click.Path(exists=True, file_okay=False),
    help="Spider-layout databases: ROOT/<db_id>/<db_id>.sqlite (needed when a target is SQL).",
)
@click.option(
    "--target-col",
    default="query",
    show_default=True,
    metavar="NAME",
    help="The column holding the target (SQL, or for qa a table).",
)
@click.option(
    "--prediction-col",
    default="prediction",
    show_default=True,
    metavar="NAME",
    help="The column holding the prediction.",
)
@click.option(
    "--format",
    "tests_format",
    type=click.Choice(list(FORMATS)),
    help="Read TESTS as this format (default: by its suffix: .csv, .tsv, .jsonl, .json, .yaml; else sniffed).",
)
@report_options
@failures_option
@epsilon_option
@abs_epsilon_option
@strings_option
@click.option(
    "--metrics",
    default="all",
    show_default=True,
    metavar="NAMES",
    callback=_metrics,
    help=f"Metrics to compute, comma-separated from: {', '.join(_TABLES)}, and with --task sp "
    f"{', '.join(_SP_ONLY)}; or all ({_ALL}).",
)
@ves_runs_option(f"Time each query of a correct prediction this many times for {VES}.")
@query_limit_options("Stop a query after SECONDS: it fails (a prediction scores 0).")
@selection_options(tags=False)
@jobs_option
@quiet_option
def qatch(
    tests: str,
    task: str,
    root: str | None,
    target_col: str,
    prediction_col: str,
    tests_format: str | None,
    reports: ReportPaths,
    epsilon: float,
    abs_epsilon: float,
    strings: str,
    metrics: tuple[str, ...],
    timeout: float,
    max_rows: int,
    max_result_bytes: int,
    ves_runs: int,
    selection: Selection,
    jobs: int,
    quiet: bool,
) -> None:
    """Score the predictions of a TESTS file with QATCH's graded table metrics.

    TESTS holds one test per row: JSON Lines, a JSON or YAML list, or CSV (or TSV) with a header.
    A test has a db_id, a target (column --target-col, default query), a prediction
    (column --prediction-col, default prediction) and optionally an id; other columns are
    ignored. `answerkey schema qatch-tests` prints its JSON Schema.

    With --task sp the target and the prediction are SQL, run read-only on
    ROOT/<db_id>/<db_id>.sqlite under --db ROOT, each query within --timeout, --max-rows
    and --max-result-bytes. With --task qa the prediction is a table, a list of rows like
    [["wales", "scotland"], ["england"]] (or its JSON text), and the target a table or SQL.

    The metrics are QATCH's, each in [0, 1], cells compared as typed values (reals within
    a relative --epsilon): cell precision and recall, tuple cardinality, constraint and
    order, execution accuracy. Tuple order applies only when the target has ORDER BY or is
    a table. A malformed or failing prediction scores 0; a failing target is an error of
    the test, left out of the means. Every report carries a signature of the options that
    change scores.

    With --task sp, --metrics can add valid_efficiency_score, BIRD's VES: 0 for a wrong
    prediction; for a correct one sqrt(target time / predicted time), the mean ratio over
    --ves-runs rounds of both queries, outliers beyond 3 standard deviations dropped
    (about 1 as fast as the target, above 1 faster). Times are measured, so VES varies a
    little from run to run; time with --jobs 1.

    \b
    Examples:
      answerkey qatch examples/qatch/sp-tests.jsonl --task sp --db examples/qatch/databases
      answerkey qatch examples/qatch/qa-tests.csv --task qa --metrics cell_precision,cell_recall
      answerkey qatch tests.jsonl --task sp --db spider/database --json report.json --xlsx report.xlsx -j 4
      answerkey qatch runs.yaml --task qa --db dbs --target-col gold --prediction-col answer
      answerkey qatch examples/qatch/sp-tests.jsonl --task sp --db examples/qatch/databases \\
        --metrics execution_accuracy,valid_efficiency_score --ves-runs 20
      answerkey qatch examples/qatch/sp-tests.jsonl --task sp --db examples/qatch/databases --limit 2

    Exit status: 0 scored; 2 trouble: bad input (every problem listed as FILE:LINE:COL:
    message, nothing scored), a --db holding none of the tests' databases (one line, checked
    before anything runs), or some test's target failed (listed as FILE:LINE: test ID: why,
    after the reports are written).
    """
    start(reports, {"TESTS": tests, "--db": root})
    task = task.lower()
    if VES in metrics and task != "sp":
        raise Trouble(f"{VES} applies only to --task sp: it times the target and predicted SQL queries")
    options = QatchOptions(
        task=task,
        metrics=metrics,
        epsilon=epsilon,
        abs_epsilon=abs_epsilon,
        strings=strings,
        root=root,
        timeout=timeout,
        max_rows=max_rows,
        max_result_bytes=max_result_bytes,
        ves_runs=ves_runs,
    )
    loaded = load_tests(tests, task=task, target_col=target_col, prediction_col=prediction_col, format=tests_format)
    if selection:
        loaded = selection.choose(loaded, lambda test: test.id, what="test")
    if root is None and needs_databases(loaded, task):
        raise Trouble("the tests run SQL: give the databases with --db ROOT (ROOT/<db_id>/<db_id>.sqlite)")
    if root is not None:
        db_ids = [test.db_id for test in loaded if isinstance(test.db_id, str) and needs_databases([test], task)]
        try:
            check_databases(SQLiteEngine(root), db_ids)
        except ValueError as problem:
            raise Trouble(f"--db {root}: {problem}") from None
    run = run_qatch(loaded, options, jobs=jobs, quiet=quiet)
    finish(run, reports, quiet=quiet, evaluated=len(run.results), nothing="TESTS has no test")
    failed = run.failed
    source = source_name(tests)
    for result in failed:
        error = InputError(f"test {result.test.id}: {result.outcome.error}", source=source, line=result.test.line)
        click.echo(str(error), err=True)
    if failed:
        raise Trouble(f"{plural(len(failed), 'test')} could not be evaluated (target failed)")
