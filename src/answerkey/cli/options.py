"""Options shared by the commands, so they mean the same everywhere.

Choices and defaults come from the registries and constants (``SCALAR_RULES``,
``STRING_MODES``, ``DEFAULT_EPSILON``, the metric registries, ``answerkey.limits``), never
retyped. Numbers must be finite: ``--epsilon inf`` or ``nan`` is a usage error (exit 2).
``--abs-epsilon`` (``abs_epsilon_option``) sits beside ``--epsilon`` on every command that has it.

- ``--json OUT`` alone (``json_option``) for the commands with one document (``judge``,
  ``check``, ``fuzz``): ``-`` sends it to standard output; the path is checked before anything
  runs (``answerkey.cli.output.start``) and written atomically (``write_json``).
- ``--limit N``, ``--ids ID,...``, ``--tag TAG`` (``selection_options``, ``Selection``): run a
  few items first; an id that is not there, or a choice that leaves nothing, is trouble
  before anything runs.
- ``-q``/``--quiet`` (``quiet_option``), the same on every command: no progress display and no
  summary on either stream; standard output carries only a report sent there with ``-``, standard
  error only warnings and errors; the results, the files written and the exit status are unchanged.

The report options and what a command does with its result (``--json``, ``--yaml``,
``--xlsx``, warnings) are in ``answerkey.cli.output``; the options of the commands that run
SQL in ``answerkey.cli.query_options``. Neither is imported here, so that ``judge`` and
``check`` load no report writer and no SQL adapter.
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from answerkey.cli import Trouble
from answerkey.comparator import DEFAULT_ABS_EPSILON, DEFAULT_EPSILON, SCALAR_RULES, STRING_MODES
from answerkey.errors import did_you_mean
from answerkey.files import OutputError, json_text, write_output
from answerkey.limits import MAX_ABS_EPSILON, MAX_EPSILON, MAX_JOBS, PER_CPU

# A number as people write it on a command line: ASCII digits, a point, an exponent.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


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
        elif isinstance(value, str) and not _DECIMAL.fullmatch(value.strip()):
            # float() also reads 1_0, Arabic-Indic digits, "inf" and "nan": plain decimals only.
            self.fail(f"{value!r} is not a number written in decimal digits (such as 0.001 or 1e-4)", param, ctx)
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
    type=FiniteFloat(0, maximum=MAX_EPSILON),
    default=DEFAULT_EPSILON,
    show_default=True,
    help="Relative tolerance for reals: s matches c iff |s - c| <= |c| * EPSILON; 0 means exact, "
    f"at most {MAX_EPSILON:g}.",
)
abs_epsilon_option = click.option(
    "--abs-epsilon",
    type=FiniteFloat(0, maximum=MAX_ABS_EPSILON),
    default=DEFAULT_ABS_EPSILON,
    show_default=True,
    help="Absolute tolerance floor for reals: s matches c iff |s - c| <= max(|c| * EPSILON, ABS_EPSILON) "
    f"(so 0.1 + 0.2 - 0.3 can match 0.0); 0, the default, leaves the relative rule alone; at most {MAX_ABS_EPSILON:g}.",
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
    help="Quiet: no progress and no summary. Standard output carries only a report sent there with '-'; "
    "warnings and errors still go to standard error; results, files and exit status are unchanged.",
)
jobs_option = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1, max=MAX_JOBS),
    default=1,
    show_default=True,
    help=f"Work in this many processes (same results, same order); at most {PER_CPU} per CPU ({MAX_JOBS} here).",
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


Item = TypeVar("Item")


@dataclass(frozen=True)
class Selection:
    """Which items of an input a command runs (``--ids``, ``--tag``, ``--limit``): those with
    one of ``ids`` and one of ``tags`` (when given), in input order, the first ``limit`` of them.

    >>> Selection(tags=("easy",), limit=1).choose(["q1", "q2", "q3"], str, lambda item: ["easy"])
    ['q1']
    """

    ids: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    limit: int | None = None

    def __bool__(self) -> bool:
        return bool(self.ids or self.tags or self.limit is not None)

    def choose(
        self,
        items: Sequence[Item],
        id_of: Callable[[Item], str],
        tags_of: Callable[[Item], Iterable[str]] | None = None,
        what: str = "item",
    ) -> list[Item]:
        """The chosen items. An id of ``ids`` that no item has, or a choice that leaves
        nothing, is trouble (exit 2); a tag that no item has is a warning when others match."""
        return [items[index] for index in self.indices(items, id_of, tags_of, what)]

    def indices(
        self,
        items: Sequence[Item],
        id_of: Callable[[Item], str],
        tags_of: Callable[[Item], Iterable[str]] | None = None,
        what: str = "item",
    ) -> list[int]:
        """The positions of the chosen items in ``items`` (as ``choose``)."""
        chosen = list(range(len(items)))
        if self.ids:
            known = {id_of(item): index for index, item in enumerate(items)}
            for item_id in self.ids:
                if item_id not in known:
                    raise Trouble(f"--ids: no {what} has id {item_id!r}{did_you_mean(item_id, known)}")
            wanted = {known[item_id] for item_id in self.ids}
            chosen = [index for index in chosen if index in wanted]
        if self.tags:
            tags_of = tags_of or (lambda item: ())
            carried = {tag for item in items for tag in tags_of(item)}
            for tag in self.tags:
                if tag not in carried:
                    click.echo(f"warning: no {what} has tag {tag!r}{did_you_mean(tag, sorted(carried))}", err=True)
            wanted_tags = set(self.tags)
            chosen = [index for index in chosen if wanted_tags.intersection(tags_of(items[index]))]
            if not chosen:
                tags = " or ".join(map(repr, self.tags))
                raise Trouble(f"nothing evaluated: no {what}{' of --ids' if self.ids else ''} has the tag {tags}")
        return chosen[: self.limit]


def _ids(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(part.strip() for text in value for part in text.split(",") if part.strip()))


limit_option = click.option(
    "--limit",
    type=click.IntRange(min=1),
    metavar="N",
    help="Run only the first N items (after --ids and --tag): try a few before a long run.",
)
ids_option = click.option(
    "--ids",
    multiple=True,
    metavar="ID[,ID...]",
    callback=_ids,
    help="Run only the items with these ids (comma-separated, or repeat the option); an unknown id is an error.",
)
tag_option = click.option(
    "--tag",
    "tags",
    multiple=True,
    metavar="TAG",
    help="Run only the items with this tag (repeat for any of several).",
)


def selection_options(*, tags: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--limit``, ``--ids`` and (when the items have tags) ``--tag``, given to the command as
    ``selection: Selection``; nothing chosen runs every item."""

    def add(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapper(
            *args: Any, limit: int | None, ids: tuple[str, ...], tags: tuple[str, ...] = (), **kwargs: Any
        ) -> Any:
            return function(*args, selection=Selection(ids=ids, tags=tags, limit=limit), **kwargs)

        if tags:
            wrapper = tag_option(wrapper)
        return limit_option(ids_option(wrapper))

    return add
