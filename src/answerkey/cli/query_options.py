"""Options of the commands that run SQL (``sql``, ``qatch``): one query's bounds and BIRD's timing runs.

Kept apart from ``answerkey.cli.options`` because their defaults come from the SQL side
(``answerkey.metrics.efficiency`` loads the SQL adapters), which ``judge`` and ``check``
must not load.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from answerkey.cli.options import timeout_option
from answerkey.limits import MAX_VES_RUNS, SQL_MAX_RESULT_BYTES, SQL_MAX_ROWS, SQL_TIMEOUT
from answerkey.metrics.efficiency import DEFAULT_VES_RUNS


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
        type=click.IntRange(min=1, max=MAX_VES_RUNS),
        default=DEFAULT_VES_RUNS,
        show_default=True,
        metavar="RUNS",
        help=f"{help} At most {MAX_VES_RUNS:,}.",
    )
