"""``answerkey sql GOLD PREDICTIONS --db DIR|URL``: execution accuracy of predicted SQL."""

from __future__ import annotations

import dataclasses
import os

import click

from answerkey import limits
from answerkey.adapters.engines import ENGINES, check_databases
from answerkey.adapters.sql import start_query_process, stop_query_processes
from answerkey.cli import Trouble
from answerkey.cli.options import (
    Selection,
    abs_epsilon_option,
    epsilon_option,
    fail_under_option,
    jobs_option,
    metric_names,
    quiet_option,
    selection_options,
    strings_option,
)
from answerkey.cli.output import failures_option, finish, report_options, start
from answerkey.cli.query_options import query_limit_options, ves_runs_option
from answerkey.errors import InputError, RunWarning, plural
from answerkey.execution.distributed import ClusterError, DaskExecutor, require_dask
from answerkey.execution.load import LAYOUTS, SqlItem, load_inputs
from answerkey.execution.probe import GoldProbe, gold_counts
from answerkey.execution.result_rows import SHOW_ROWS_MAX, shown_rows
from answerkey.execution.run import (
    VES,
    SqlOptions,
    run_sql,
)
from answerkey.execution.semantics import DEFAULT_SEMANTICS, names, semantics_named
from answerkey.metrics import defaults_for, metrics_for
from answerkey.report import ReportPaths

# Where the batches run: this machine's processes, or a Dask cluster (answerkey[dask]).
EXECUTORS = ("local", "dask")


def _metrics(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    # "all" is the registry's defaults: it leaves out the metrics that time queries (asked for by name).
    if value.strip() == "all":
        return defaults_for("sql")
    return metric_names(value, metrics_for("sql"), none=True)


# The metrics only named ones compute.
_NAMED_ONLY = [name for name in metrics_for("sql") if name not in defaults_for("sql")]


class _SemanticsChoice(click.Choice):
    """``--semantics``: the registered semantics, read when the option is used (a semantics
    registered after this module was imported is a choice too)."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return names()

    @choices.setter
    def choices(self, value: object) -> None:
        pass  # click's __init__ sets the choices it was given: the registry holds them


def _semantics_help() -> str:
    default = [name for name in names() if semantics_named(name).default]
    return (
        "The headline comparison rule. Every item is decided under each of "
        + ", ".join(default)
        + " and under the headline; the reports show them all. ANSWERKEY_SEMANTICS_MODULES names modules "
        "of your own semantics (docs: Write your own semantics)."
    )


def _executor(name: str | None, address: str | None, jobs: int) -> DaskExecutor | None:
    """The Dask executor --executor and --cluster ask for (None: this machine's processes)."""
    if address is None and name != "dask":
        return None
    if name == "local":
        raise click.UsageError("--cluster runs the work on a Dask cluster: it cannot be used with --executor local")
    if address is not None and jobs != 1:
        raise click.UsageError(
            "--jobs sets the worker processes of the local Dask cluster --executor dask starts; "
            "the cluster at --cluster has its own workers"
        )
    try:
        require_dask()
    except ClusterError as error:
        raise Trouble(str(error)) from None
    return DaskExecutor(address, workers=jobs)


def _item_id(item: SqlItem) -> str:
    return item.id


def _item_tags(item: SqlItem) -> tuple[str, ...]:
    return item.tags


@click.command()
@click.argument("gold", metavar="GOLD")
@click.argument("predictions", metavar="PREDICTIONS")
@click.option(
    "--db",
    "location",
    metavar="DIR|URL",
    help="The databases: a directory DIR/<db_id>/<db_id>.sqlite (or .duckdb; other *.sqlite files beside it "
    "make a test suite), or a postgresql:// URL of a server with one database per db_id. Needed unless every "
    "item's gold and prediction are result files.",
)
@click.option(
    "--engine",
    type=click.Choice(list(ENGINES)),
    help="The databases' engine (default: postgresql for a URL, else by the files' suffix).",
)
@click.option(
    "--layout",
    type=click.Choice(LAYOUTS),
    help="How GOLD and PREDICTIONS are written (default: detected from GOLD).",
)
@click.option(
    "--semantics",
    type=_SemanticsChoice(),
    default=DEFAULT_SEMANTICS,
    show_default=True,
    help=_semantics_help(),
)
@click.option(
    "--test-suite-keep-distinct",
    is_flag=True,
    help="Run the queries of the test-suite semantics with DISTINCT kept (test-suite-sql-eval's --keep_distinct); "
    "by default, as its script does, DISTINCT is removed from both before they run.",
)
@click.option(
    "--plug-value",
    "--test-suite-plug-value",
    "plug_value",
    is_flag=True,
    help="Under the test-suite semantics, also try the prediction with the gold's values put in its value places "
    "(test-suite-sql-eval's --plug_value, for models that do not predict values): correct when one is; "
    "recorded in the signature.",
)
@click.option(
    "--defog-alternatives",
    is_flag=True,
    help="Read {a,b} in a gold query as defog sql-eval does: golds with a, b, and a, b in its place (and "
    "GROUP BY {} the same columns), the query cut at ';' into further golds; correct when the prediction "
    "matches any. Recorded in the signature.",
)
@click.option(
    "--probe-gold",
    is_flag=True,
    help="Flag suspect golds (LIMIT through ties, LIMIT without ORDER BY, random() or the clock, "
    "an empty result, duplicate rows, rows that depend on SQLite's storage order) as warnings; "
    "verdicts do not change; with --cache, probes are cached with the gold's result (docs: Suspect golds).",
)
@click.option(
    "--show-rows",
    type=click.IntRange(0, SHOW_ROWS_MAX),
    default=0,
    metavar="N",
    help="Keep the first N rows of the gold's and the prediction's results (at most "
    f"{SHOW_ROWS_MAX}) for the --html detail view and the --xlsx Overview, side by side; each query runs "
    "once more on the item's first database (docs: Reading a report).",
)
@click.option(
    "--tables",
    metavar="FILE",
    help="Spider's tables.json: add the official table (exact-set-match and execution accuracy per hardness, "
    "per turn and interaction for sessions) as evaluation.py --etype all prints it; needs --db DIR.",
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
    help=f"Metrics to compute, comma-separated from: {', '.join(metrics_for('sql'))}; "
    + (f"all (every one but {', '.join(_NAMED_ONLY)}), or none." if _NAMED_ONLY else "all, or none."),
)
@ves_runs_option(f"Time the queries of a correct prediction this many times for {VES}.")
@query_limit_options("Stop a query after SECONDS: it fails.")
@click.option(
    "--memory-limit",
    type=click.IntRange(min=1),
    default=limits.DUCKDB_MEMORY_LIMIT,
    show_default=True,
    metavar="BYTES",
    help="DuckDB only: a query needing more memory fails.",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1, max=limits.MAX_THREADS),
    default=limits.DUCKDB_THREADS,
    show_default=True,
    metavar="N",
    help=f"DuckDB only: threads per query; at most {limits.PER_CPU} per CPU ({limits.MAX_THREADS} here).",
)
@click.option(
    "--cache",
    metavar="DIR",
    help="Keep query results (gold and predicted) in DIR: each query runs once per database content.",
)
@click.option(
    "--executor",
    "executor_name",
    type=click.Choice(EXECUTORS),
    help="Where the work runs: local (this machine, --jobs processes) or dask (a Dask cluster: the one at "
    "--cluster, else one of --jobs worker processes started here; needs answerkey[dask]). "
    "Default: local, dask with --cluster.",
)
@click.option(
    "--cluster",
    metavar="ADDRESS",
    help="Run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786; implies --executor dask). "
    "Every worker needs answerkey[dask] at this version and the databases at the same absolute path "
    "(a shared filesystem) or the --db URL.",
)
@fail_under_option
@selection_options()
@jobs_option
@quiet_option
def sql(
    gold: str,
    predictions: str,
    location: str | None,
    engine: str | None,
    layout: str | None,
    semantics: str,
    test_suite_keep_distinct: bool,
    plug_value: bool,
    defog_alternatives: bool,
    probe_gold: bool,
    show_rows: int,
    tables: str | None,
    reports: ReportPaths,
    epsilon: float,
    abs_epsilon: float,
    strings: str,
    metrics: tuple[str, ...],
    ves_runs: int,
    timeout: float,
    max_rows: int,
    max_result_bytes: int,
    memory_limit: int,
    threads: int,
    cache: str | None,
    executor_name: str | None,
    cluster: str | None,
    fail_under: float | None,
    selection: Selection,
    jobs: int,
    quiet: bool,
) -> None:
    """Execution accuracy of PREDICTIONS (SQL) against GOLD SQL, run on the --db databases.

    \b
    Layouts (--layout, detected from GOLD):
      spider     GOLD: SQL<TAB>db_id per line; PREDICTIONS: one SQL per line
                 (blank lines separate sessions, as test-suite-sql-eval reads them)
      bird       GOLD: BIRD's dev.json; PREDICTIONS: {"0": "SQL\\t----- bird -----\\tdb_id", ...}
      answerkey  GOLD: JSONL/YAML items {id, db_id, sql, difficulty, tags, order_by, ...};
                 PREDICTIONS: JSONL {id, sql}   (answerkey schema sql-corpus, sql-predictions)
      spider2-lite  GOLD: a folder with spider2lite_eval.jsonl and exec_result/<id>.csv
                 (or <id>_a.csv, <id>_b.csv...); PREDICTIONS: a folder of <id>.sql or <id>.csv

    Every query runs read-only within --timeout, --max-rows and --max-result-bytes; a
    predicted query can never change a database. Each item is decided under every
    semantics listed at --semantics (answerkey's comparator and the benchmarks' official
    rules; docs/sql.md compares them); --semantics names the headline one; where they
    disagree, the report says which rule decided what.

    When DIR/<db_id>/ holds several *.sqlite files (test-suite-sql-eval's distilled suites;
    under --semantics test-suite, every file whose name contains .sqlite, as its script
    lists them) an item is correct only if it is correct on every one; the report names the
    database where it failed. A gold query that fails is an error of the test (left out of
    the figures; under --semantics bird it scores 0, as BIRD's script scores it); a
    predicted query that fails, or a missing one, is incorrect.

    Metrics (on the first database): QATCH's cell and tuple metrics (tuple_order only where
    the gold is ordered), BIRD mini-dev's soft_f1, and when named valid_efficiency_score
    (BIRD's VES, --ves-runs timed rounds). Figures per difficulty and per tag. Every report
    carries a signature of the options that change verdicts.

    \b
    Examples:
      answerkey sql examples/sql/spider/gold.sql examples/sql/spider/pred.sql --db examples/sql/spider/database
      answerkey sql examples/sql/bird/dev.json examples/sql/bird/predict_dev.json \\
        --db examples/sql/bird/dev_databases --semantics bird
      answerkey sql dev_gold.sql pred.txt --db database/ --semantics test-suite --cache ~/.cache/ak -j 4
      answerkey sql corpus.jsonl predictions.jsonl --db postgresql://eval@db.example/ --json report.json
      answerkey sql dev.json predict_dev.json --db dev_databases --metrics execution_accuracy,valid_efficiency_score
      answerkey sql dev_gold.sql pred.txt --db /shared/spider/database --cluster tcp://scheduler:8786
      answerkey sql corpus.jsonl predictions.jsonl --db dbs/ --tag join --limit 10

    Exit status: 0 evaluated, 1 headline accuracy under --fail-under, 2 trouble: bad input
    (every problem listed as FILE:LINE:COL: message, nothing run), databases that cannot
    serve any item (a --db one level off, a driver not installed, a server not reachable:
    one line, checked before anything runs), or some item is an
    error of the test: its gold query failed or it has no database (listed as FILE:LINE:
    item ID: why, after the reports are written).
    """
    if gold == "-" and predictions == "-":
        raise Trouble("only one of GOLD and PREDICTIONS can be read from standard input")
    executor = _executor(executor_name, cluster, jobs)
    start(reports, {"GOLD": gold, "PREDICTIONS": predictions, "--db": location, "--cache": cache})
    # Without --db no item may run a query (checked once the inputs are read): the engine of
    # the current directory stands in, and is never asked for a database.
    options = SqlOptions(
        location or os.curdir,
        engine=engine,
        semantics=semantics,
        test_suite_keep_distinct=test_suite_keep_distinct,
        semantics_options=("test-suite:plug_value",) if plug_value else (),
        defog_alternatives=defog_alternatives,
        epsilon=epsilon,
        abs_epsilon=abs_epsilon,
        strings=strings,
        metrics=metrics,
        timeout=timeout,
        max_rows=max_rows,
        max_result_bytes=max_result_bytes,
        ves_runs=ves_runs,
        cache=cache,
        memory_limit=memory_limit,
        threads=threads,
    )
    try:
        opened = options.open_engine()
    except ValueError as error:
        raise Trouble(str(error)) from None
    opened.close()
    if opened.name == "sqlite" and executor is None and jobs == 1:
        start_query_process()  # this process runs the queries (a helper started as the command was looked up)
    else:
        stop_query_processes()  # the helper started as the command was looked up: not this run's
    if tables is not None:
        if location is None or "://" in location:
            raise Trouble("--tables needs --db DIR (the official script reads DIR/<db_id>/<db_id>.sqlite)")
        # The official table's module (Spider's parser, and the table's report model: pydantic's,
        # about 0.1 s to import) is loaded only when --tables asks for the table.
        from answerkey.execution import official

        official.read_foreign_keys(tables)  # an unreadable tables.json stops the command before anything runs
    inputs = load_inputs(gold, predictions, layout=layout)
    running = next((item for item in inputs.items if item.needs_database), None)
    if location is None and running is not None:
        raise Trouble(f"--db DIR|URL is needed: item {running.id} runs SQL on its database {running.db_id!r}")
    if selection:
        inputs = dataclasses.replace(inputs, items=selection.choose(inputs.items, _item_id, _item_tags))
    if cluster is None:  # a cluster's workers may see databases this machine does not
        databases = options.open_engine()
        try:
            check_databases(databases, [item.db_id for item in inputs.items if item.needs_database])
        except ValueError as error:
            raise Trouble(f"--db {location}: {error}") from None
        finally:
            databases.close()
    try:
        run = run_sql(inputs, options, jobs=jobs, executor=executor, quiet=quiet)
    except (ValueError, ClusterError) as error:
        raise Trouble(str(error)) from None
    if probe_gold:
        probe = GoldProbe(options.open_engine(), options)
        try:
            run.warnings.extend(probe.warnings([result.item for result in run.results]))
        finally:
            probe.engine.close()
        run.warnings.extend(probe.notes)
        run.warnings.extend(RunWarning(f"--probe-gold: {why}", "probe") for why in probe.unchecked)
        run.cache_hits, run.cache_misses = run.cache_hits + probe.cache_hits, run.cache_misses + probe.cache_misses
    if show_rows:
        rows_engine = options.open_engine()
        try:
            run.result_rows = shown_rows(rows_engine, [result.item for result in run.results], show_rows, options.rule)
        finally:
            rows_engine.close()
    if tables is not None:
        run.official = official.spider_official(
            [(result.item, result.verdict) for result in run.results], tables, location or os.curdir
        )
    finish(run, reports, quiet=quiet, evaluated=len(run.results), nothing="GOLD has no item")
    if run.official is not None:
        origins = {result.item.id: result.item for result in run.results}
        for entry in run.official.items:
            if entry.hardness is None:
                item = origins[entry.id]
                message = f"item {item.id}: left out of the official table: {entry.reason}"
                click.echo(str(InputError(message, source=item.source, line=item.line)), err=True)
    if probe_gold and not quiet and not reports.to_stdout:
        click.echo(gold_counts(run.warnings) or "gold warnings: none")
    if cache is not None and not quiet:
        click.echo(
            f"cache: {plural(run.cache_hits, 'result')} read, {plural(run.cache_misses, 'query', 'queries')} run",
            err=True,
        )
    failed = run.failed
    for result in failed:
        item = result.item
        click.echo(
            str(InputError(f"item {item.id}: {result.outcome.reason}", source=item.source, line=item.line)), err=True
        )
    if failed:
        raise Trouble(f"{plural(len(failed), 'item')} could not be evaluated (errors of the test, listed above)")
    accuracy = run.summary.accuracy
    if fail_under is not None and (accuracy is None or accuracy < fail_under):
        shown = "undefined (nothing evaluated)" if accuracy is None else f"{accuracy:.4f}"
        click.echo(f"accuracy {shown} is under --fail-under {fail_under:g}", err=True)
        raise click.exceptions.Exit(1)
