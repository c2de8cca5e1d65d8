"""``answerkey qatch TESTS --task qa|sp``: QATCH's graded table metrics over a tests file."""

from __future__ import annotations

import click

from answerkey.cli.options import epsilon_option, strings_option

__all__ = ["qatch"]


def _metric_names(ctx, param, value: str) -> tuple[str, ...]:
    from answerkey.metrics import TABLE_METRICS

    text = value.strip()
    if text == "all":
        return TABLE_METRICS
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in TABLE_METRICS]
    if unknown:
        raise click.BadParameter(f"unknown metric {unknown[0]!r}; known: {', '.join(TABLE_METRICS)} (or all)")
    if not names:
        raise click.BadParameter("name at least one metric, or all")
    return names


@click.command()
@click.argument("tests", metavar="TESTS")
@click.option("--task", type=click.Choice(["qa", "sp"], case_sensitive=False), required=True,
              help="qa: predictions are tables (JSON lists of rows); sp: predictions are SQL run on --db.")
@click.option("--db", "root", metavar="ROOT", type=click.Path(exists=True, file_okay=False),
              help="Spider-layout databases: ROOT/<db_id>/<db_id>.sqlite (needed for SQL).")
@click.option("--target-col", default="query", show_default=True, help="Column holding the target (SQL or table).")
@click.option("--prediction-col", default="prediction", show_default=True, help="Column holding the prediction.")
@click.option("--metrics", default="all", show_default=True, callback=_metric_names, metavar="NAMES",
              help="Comma-separated: cell_precision, cell_recall, tuple_cardinality, tuple_constraint, "
              "tuple_order, execution_accuracy; or all.")
@epsilon_option
@strings_option
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Stop a query after this many seconds (it then fails).")
@click.option("--max-rows", type=click.IntRange(min=1), default=1_000_000, show_default=True,
              help="A query returning more rows fails.")
@click.option("--format", "tests_format", type=click.Choice(["jsonl", "csv", "yaml"]),
              help="Read TESTS as this format (default: by extension: .csv, .yaml/.yml/.json, else JSON Lines).")
@click.option("--json", "json_path", metavar="OUT", help="Write the report as JSON ('-' for stdout).")
@click.option("--xlsx", "xlsx_path", metavar="OUT", help="Write an Excel workbook (Tests, Summary).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Evaluate in this many processes (same results, same order).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def qatch(tests, task, root, target_col, prediction_col, metrics, epsilon, strings, timeout, max_rows,
          tests_format, json_path, xlsx_path, jobs, quiet) -> None:
    """Score predictions with QATCH's graded table metrics.

    TESTS is JSON Lines, CSV or YAML rows with a db_id, a target (--target-col) and a
    prediction (--prediction-col), and optionally an id. For --task sp both are SQL, run
    read-only on ROOT/<db_id>/<db_id>.sqlite. For --task qa the prediction is a table, a
    JSON list of rows like [["wales", "scotland"], ["england"]], and the target is a table
    or SQL.

    Metrics are QATCH's, in [0, 1], cells compared as typed values (reals within a relative
    --epsilon): cell precision / recall, tuple cardinality / constraint / order (only when
    the target has ORDER BY or is a table) and execution accuracy. A malformed or failing
    prediction scores 0; a failing target is an error of the test, left out of the means.

    \b
    Examples:
      answerkey qatch examples/qatch/sp-tests.jsonl --task sp --db examples/qatch/databases
      answerkey qatch examples/qatch/qa-tests.csv --task qa --metrics cell_precision,cell_recall
      answerkey qatch tests.jsonl --task sp --db spider/database --json report.json --xlsx report.xlsx -j 4

    Exit status: 0 scored, 2 trouble (bad input, listed as FILE:LINE: message, nothing
    scored; or some test's target failed: the reports are still written).
    """
    from answerkey.cli import Trouble
    from answerkey.errors import InputError
    from answerkey.files import write_output as atomic_write
    from answerkey.qatch.load import InputErrors, QatchOptions, load_tests, needs_databases, run_tests
    from answerkey.qatch.report import summary_table, to_json, write_workbook

    task = task.lower()
    if xlsx_path == "-":
        raise Trouble("--xlsx needs a file name, not '-'")
    try:
        options = QatchOptions(task=task, metrics=metrics, epsilon=epsilon, strings=strings, root=root,
                               timeout=timeout, max_rows=max_rows)
        loaded = load_tests(tests, task=task, target_col=target_col, prediction_col=prediction_col,
                            format=tests_format)
    except InputErrors as errors:
        for error in errors.errors:
            click.echo(str(error), err=True)
        raise Trouble(f"{errors.message}; nothing scored") from None
    except (InputError, ValueError) as error:
        raise Trouble(str(error)) from None
    if root is None and needs_databases(loaded, task):
        raise Trouble("the tests run SQL: give the databases with --db ROOT (ROOT/<db_id>/<db_id>.sqlite)")

    run = run_tests(loaded, options, jobs=jobs, quiet=quiet)
    try:
        if xlsx_path:
            write_workbook(run, xlsx_path)
        if json_path:
            atomic_write(json_path, to_json(run))
    except OSError as error:
        raise Trouble(f"cannot write {error.filename or 'the report'}: {error.strerror or error}") from None

    if json_path != "-":
        click.echo(summary_table(run))
    failed = [result for result in run.results if result.outcome.error is not None]
    for result in failed:
        place = f"{tests}:{result.test.line}" if result.test.line else tests
        click.echo(f"{place}: test {result.test.id}: {result.outcome.error}", err=True)
    if failed:
        raise Trouble(f"{len(failed)} test{'s' if len(failed) != 1 else ''} could not be evaluated (target failed)")
