"""What the commands do with their results, the same way everywhere: the report options,
the warnings, the reports and the summary table.

- ``--json OUT`` / ``--yaml OUT`` / ``--xlsx OUT`` / ``--html OUT`` (``report_options``): the
  reports; ``-`` sends JSON or YAML to standard output (and then nothing else is printed
  there). Paths are checked before anything runs (``start``), which also notes the inputs and
  the command line for the HTML page.
- Warnings are printed on standard error, the first few of each kind, then a count.
- ``finish``: the warnings, the reports, then the summary table (unless ``--quiet``); a run
  that evaluated nothing is trouble (exit 2, saying why), as pytest's exit 5 is: an empty
  input, a filter that matches nothing, a judge that could not be reached.
- ``--show-failures N|all`` (``failures_option``, on the commands that judge items): under
  the summary table, the headline figures with their 95% intervals and the first N failing
  items with a one-line reason (``answerkey.report.terminal``; default ``FAILURES_SHOWN``).
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import click

from answerkey.cli import ARGUMENTS, Trouble
from answerkey.errors import RunWarning, plural
from answerkey.files import OutputError
from answerkey.limits import WARNINGS_SHOWN
from answerkey.progress import Activity, stop_activity
from answerkey.report import Reported, ReportPaths, Result, write_reports
from answerkey.report.html import RunContext, masked_url
from answerkey.report.terminal import FAILURES_SHOWN, failures_text, intervals_text


def report_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--json``, ``--yaml``, ``--xlsx`` and ``--html``, given to the command as ``reports: ReportPaths``."""

    @functools.wraps(function)
    def wrapper(
        *args: Any,
        json_path: str | None,
        yaml_path: str | None,
        xlsx_path: str | None,
        html_path: str | None,
        **kwargs: Any,
    ) -> Any:
        return function(*args, reports=ReportPaths(json_path, yaml_path, xlsx_path, html_path), **kwargs)

    for name, what in (
        ("html", "the report as one HTML page (docs: Reading a report)"),
        ("xlsx", "an Excel workbook"),
        ("yaml", "the report as YAML ('-': standard output)"),
        ("json", "the report as JSON ('-': standard output)"),
    ):
        wrapper = click.option(f"--{name}", f"{name}_path", metavar="OUT", help=f"Write {what}.")(wrapper)
    return wrapper


_FAILURES = "answerkey.show_failures"  # the key of --show-failures in click's context


def _failures_count(context: click.Context, parameter: click.Parameter, value: str) -> int | None:
    """``--show-failures``: a count from 0, or ``all`` (None), noted in click's context."""
    if value.strip().lower() == "all":
        shown = None
    else:
        try:
            shown = int(value)
        except ValueError:
            raise click.BadParameter(f"{value!r} is neither a count from 0 nor 'all'") from None
        if shown < 0:
            raise click.BadParameter(f"{value!r} is neither a count from 0 nor 'all'")
    context.meta[_FAILURES] = shown
    return shown


def failures_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--show-failures N|all``: how many failing items ``finish`` lists under the summary
    (the command itself does not receive it)."""
    return click.option(
        "--show-failures",
        metavar="N|all",
        default=str(FAILURES_SHOWN),
        show_default=True,
        expose_value=False,
        is_eager=False,
        callback=_failures_count,
        help="Under the summary: the headline figures with 95% intervals, and the first N failing items "
        "with why ('all': every one; 0: none listed). -q prints neither.",
    )(function)


def show_warnings(warnings: Iterable[RunWarning | str], *, shown: int = WARNINGS_SHOWN) -> None:
    """Print warnings on standard error, kind by kind (in order of first appearance): the
    first ``shown`` of each kind, then how many more there are."""
    kinds: dict[str, list[RunWarning | str]] = {}
    for warning in warnings:
        kinds.setdefault(getattr(warning, "kind", ""), []).append(warning)
    for group in kinds.values():
        for warning in group[:shown]:
            click.echo(f"warning: {warning}", err=True)
        if len(group) > shown:
            click.echo(
                f"warning: ... and {plural(len(group) - shown, 'more warning')} like these (all are in the reports)",
                err=True,
            )


def command_line(context: click.Context) -> str:
    """The command line as typed (its words quoted for a POSIX shell), or the command's path
    when the words are not known (a command called from Python)."""
    words = context.meta.get(ARGUMENTS)
    return shlex.join(masked_url(word) for word in words) if words else context.command_path


_RUN = "answerkey.run"  # the key of the run's context in click's context


def start(reports: ReportPaths, inputs: Mapping[str, str | None]) -> None:
    """Check the report paths against the inputs before anything runs: a bad path is
    trouble (exit 2) at once, an odd file name a warning. Notes the inputs and the command
    line for the HTML report. Then, on a terminal and without ``-q``, ``answerkey CMD: reading
    the inputs... 0:04 elapsed`` from a second on, until the run's progress bar, its end or its
    error replaces it: a large corpus takes seconds to read."""
    try:
        show_warnings(reports.check(inputs))
    except OutputError as error:
        raise Trouble(error.message) from None
    context = click.get_current_context(silent=True)
    if context is not None:
        context.meta[_RUN] = RunContext(command_line(context), dict(inputs))
        activity = Activity(f"{context.command_path}: reading the inputs", quiet=bool(context.params.get("quiet")))
        context.call_on_close(activity.stop)
        activity.start()


def summary_notes(result: Result, shown: int | None) -> str:
    """What goes under a summary table: a blank line, the headline figures with their 95%
    intervals, then how many items fail and the first ``shown`` of them (None: all)."""
    # A workflow's report model is built once here, for both (a run of 50,000 items builds
    # one model per item).
    report = result.report() if isinstance(result, Reported) else result
    document = report.document()
    parts = [intervals_text(document, report.workbook().overview), failures_text(document, shown)]
    text = "\n".join(part for part in parts if part)
    return f"\n{text}" if text else ""


def finish(result: Result, reports: ReportPaths, *, quiet: bool, evaluated: int, nothing: str) -> None:
    """Print the warnings, write the reports, print the summary table (unless ``quiet`` or a
    report went to standard output); then, when ``evaluated`` (the items, cases, rows... the
    run decided) is 0, exit 2 with ``nothing evaluated: {nothing}`` (why: the one rule of
    every command)."""
    stop_activity()
    show_warnings(result.warnings)
    try:
        context = click.get_current_context(silent=True)
        write_reports(result, reports, quiet=quiet, run=context.meta.get(_RUN) if context else None)
    except OutputError as error:
        raise Trouble(error.message) from None
    if not quiet and not reports.to_stdout:
        click.echo(result.summary_table())
        if context is not None and _FAILURES in context.meta:
            notes = summary_notes(result, context.meta[_FAILURES])
            if notes:
                click.echo(notes)
    if evaluated == 0:
        raise Trouble(f"nothing evaluated: {nothing}")
