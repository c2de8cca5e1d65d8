"""Options and output handling shared by the commands, so they mean the same everywhere.

Choices and defaults come from the registries and constants (``SCALAR_RULES``,
``STRING_MODES``, ``DEFAULT_EPSILON``, the metric registries, ``answerkey.limits``), never
retyped. Numbers must be finite: ``--epsilon inf`` or ``nan`` is a usage error (exit 2).

- ``--json OUT`` / ``--yaml OUT`` / ``--xlsx OUT`` (``report_options``): the reports; ``-``
  sends JSON or YAML to standard output (and then nothing else is printed there). Paths are
  checked before anything runs (``start``). ``judge``, ``check`` and ``fuzz`` take ``--json OUT``
  alone (``json_option``) for their one document.
- ``-q``/``--quiet``: no progress bar and nothing on standard output but a report sent there;
  errors and warnings still go to standard error, and the exit status tells the outcome.
- Warnings are printed on standard error, the first few of each kind, then a count.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import click

from answerkey.cli import Trouble
from answerkey.comparator import DEFAULT_EPSILON, SCALAR_RULES, STRING_MODES
from answerkey.errors import RunWarning, plural
from answerkey.files import OutputError, write_output
from answerkey.limits import SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT, WARNINGS_SHOWN
from answerkey.metrics.efficiency import DEFAULT_VES_RUNS
from answerkey.report import ReportPaths, Result, json_text, write_reports

__all__ = [
    "FiniteFloat",
    "epsilon_option",
    "scalars_option",
    "strings_option",
    "quiet_option",
    "jobs_option",
    "report_options",
    "json_option",
    "write_json",
    "metrics_option",
    "timeout_option",
    "query_limit_options",
    "fail_under_option",
    "start",
    "show_warnings",
    "finish",
]


class FiniteFloat(click.ParamType):
    """A finite number, at least ``minimum`` (above it when ``open``)."""

    name = "number"

    def __init__(self, minimum: float | None = None, *, open: bool = False, maximum: float | None = None) -> None:
        self.minimum = minimum
        self.open = open
        self.maximum = maximum

    def _bounds(self) -> str:
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.open else '>='} {self.minimum:g}")
        if self.maximum is not None:
            parts.append(f"<= {self.maximum:g}")
        return " and ".join(parts)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float) and math.isfinite(value):
            number = value
        else:
            try:
                number = float(value)
            except (TypeError, ValueError):
                self.fail(f"{value!r} is not a number", param, ctx)
        bounds = self._bounds()
        wanted = f"a finite number{' ' + bounds if bounds else ''}"
        if not math.isfinite(number):
            self.fail(f"must be {wanted}, not {value!r}", param, ctx)
        if self.minimum is not None and (number < self.minimum or (self.open and number == self.minimum)):
            self.fail(f"must be {wanted}, not {value!r}", param, ctx)
        if self.maximum is not None and number > self.maximum:
            self.fail(f"must be {wanted}, not {value!r}", param, ctx)
        return number


epsilon_option = click.option(
    "--epsilon",
    "-e",
    type=FiniteFloat(0),
    default=DEFAULT_EPSILON,
    show_default=True,
    help="Relative tolerance for reals: s matches c iff |s - c| <= |c| * EPSILON; 0 means exact.",
)
scalars_option = click.option(
    "--scalars",
    type=click.Choice(SCALAR_RULES),
    default=SCALAR_RULES[0],
    show_default=True,
    help="atis: a canonical scalar matches only a scalar or a one-value relation. "
    "h89: it is a one-column relation, extra columns allowed (the 1989 reading).",
)
strings_option = click.option(
    "--strings",
    type=click.Choice(list(STRING_MODES)),
    default=next(iter(STRING_MODES)),
    show_default=True,
    help="String comparison: exact, trim (surrounding whitespace ignored), fold (trimmed, Unicode NFC, case-folded).",
)
quiet_option = click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No progress bar and no summary on standard output (errors and warnings still go to standard error).",
)
jobs_option = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Work in this many processes (same results, same order).",
)
fail_under_option = click.option(
    "--fail-under",
    type=FiniteFloat(0, maximum=1),
    metavar="FRACTION",
    help="Exit 1 when the headline figure (a fraction, 0.8 for 80%) is below FRACTION.",
)


def timeout_option(default: float, help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--timeout SECONDS``: a finite number above 0."""
    return click.option(
        "--timeout", type=FiniteFloat(0, open=True), default=default, show_default=True, metavar="SECONDS", help=help
    )


def query_limit_options(timeout_help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--timeout``, ``--max-rows`` and ``--max-result-bytes``: the bounds of one SQL query
    (``answerkey.limits``), the same for every command that runs SQL."""

    def add(function: Callable[..., Any]) -> Callable[..., Any]:
        function = click.option(
            "--max-result-bytes",
            type=click.IntRange(min=1),
            default=SQL_MAX_RESULT_BYTES,
            show_default=True,
            metavar="BYTES",
            help="A query whose result holds more bytes fails.",
        )(function)
        function = click.option(
            "--max-rows",
            type=click.IntRange(min=1),
            default=SQL_MAX_ROWS,
            show_default=True,
            metavar="ROWS",
            help="A query returning more rows fails.",
        )(function)
        return timeout_option(SQL_TIMEOUT, timeout_help)(function)

    return add


def ves_runs_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--ves-runs RUNS``: how many times the queries of a correct prediction are timed for
    BIRD's valid efficiency score, the same for every command that computes it."""
    return click.option(
        "--ves-runs",
        type=click.IntRange(min=1),
        default=DEFAULT_VES_RUNS,
        show_default=True,
        metavar="RUNS",
        help=help,
    )


def report_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--json``, ``--yaml`` and ``--xlsx``, given to the command as ``reports: ReportPaths``."""

    @functools.wraps(function)
    def wrapper(*args: Any, json_path: str | None, yaml_path: str | None, xlsx_path: str | None, **kwargs: Any) -> Any:
        return function(*args, reports=ReportPaths(json_path, yaml_path, xlsx_path), **kwargs)

    for name, what in (
        ("xlsx", "an Excel workbook"),
        ("yaml", "the report as YAML ('-': standard output)"),
        ("json", "the report as JSON ('-': standard output)"),
    ):
        wrapper = click.option(f"--{name}", f"{name}_path", metavar="OUT", help=f"Write {what}.")(wrapper)
    return wrapper


# What ``--json`` without a path says: it was a flag of judge, check and fuzz before it took a path.
_JSON_USAGE = "--json OUT writes the JSON to OUT, --json - prints it"


def _json_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value == "":  # ``--json`` last, or followed by another option: the old flag
        raise click.UsageError(f"--json needs a path now: {_JSON_USAGE}", ctx)
    if value is not None and value.lower().endswith(".cas") and os.path.isfile(value):
        # ``--json A.cas B.cas``, the old flag followed by the answers: never overwrite an answer file.
        raise click.UsageError(f"--json {value}: that is an answer file; {_JSON_USAGE}", ctx)
    return value


def json_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--json OUT``, as on every command (``-``: standard output), given to the command as
    ``json_path``; ``--json`` without a path is a usage error naming this form."""
    return click.option(
        "--json",
        "json_path",
        metavar="OUT",
        is_flag=False,
        flag_value="",
        callback=_json_path,
        help=f"Write {what} as JSON ('-': standard output).",
    )


def write_json(path: str, document: Any) -> None:
    """Write ``document`` as JSON to ``path`` (``-``: standard output), replacing a file
    atomically as every report is; a path that cannot be written is trouble (exit 2)."""
    try:
        write_output(path, json_text(document))
    except OutputError as error:
        raise Trouble(error.message) from None


def metric_names(text: str, known: Sequence[str], *, none: bool = True) -> tuple[str, ...]:
    """The metric names of ``--metrics`` text: comma-separated names, ``all``, or ``none``."""
    text = text.strip()
    if text == "all":
        return tuple(known)
    if text == "none" and none:
        return ()
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in known]
    also = "all, none" if none else "all"
    if unknown:
        raise click.BadParameter(
            f"unknown metric {unknown[0]!r}; known: {', '.join(known)} (or {also})", param_hint="'--metrics'"
        )
    if not names:
        raise click.BadParameter(f"name at least one metric, or {also}", param_hint="'--metrics'")
    return names


def metrics_option(known: Callable[[], Sequence[str]], *, none: bool = True) -> Callable[..., Any]:
    """``--metrics NAMES``: comma-separated names from ``known()``, ``all`` (the default),
    or ``none`` when ``none``; the command gets a tuple of names."""

    def convert(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
        return metric_names(value, known(), none=none)

    names = ", ".join(known())
    return click.option(
        "--metrics",
        default="all",
        show_default=True,
        metavar="NAMES",
        callback=convert,
        help=f"Metrics to compute, comma-separated from: {names}; or all" + (", or none." if none else "."),
    )


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


def start(reports: ReportPaths, inputs: Mapping[str, str | None]) -> None:
    """Check the report paths against the inputs before anything runs: a bad path is
    trouble (exit 2) at once, an odd file name a warning."""
    try:
        show_warnings(reports.check(inputs))
    except OutputError as error:
        raise Trouble(error.message) from None


def finish(result: Result, reports: ReportPaths, *, quiet: bool) -> None:
    """Print the warnings, write the reports, print the summary table (unless ``quiet`` or a
    report went to standard output)."""
    show_warnings(result.warnings)
    try:
        write_reports(result, reports, quiet=quiet)
    except OutputError as error:
        raise Trouble(error.message) from None
    if not quiet and not reports.to_stdout:
        click.echo(result.summary_table())
