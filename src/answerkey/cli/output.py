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
from answerkey.report import ReportPaths, Result, write_reports
from answerkey.report.html import RunContext, masked_url


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
    if evaluated == 0:
        raise Trouble(f"nothing evaluated: {nothing}")
