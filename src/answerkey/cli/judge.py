"""``answerkey judge CANONICAL SYSTEM``: one verdict, exit 0 correct / 1 incorrect / 2 trouble."""

from __future__ import annotations

import click

from answerkey.cli import Trouble
from answerkey.cli.options import (
    abs_epsilon_option,
    epsilon_option,
    json_option,
    quiet_option,
    scalars_option,
    strings_option,
)
from answerkey.cli.output import finish, start
from answerkey.comparator import judge as judge_answers
from answerkey.files import read_text, source_name
from answerkey.grammar import parse
from answerkey.limits import CLI_MAX_CAS_CHARS, MAX_CAS_CHARS
from answerkey.model import Answer
from answerkey.report import ReportPaths
from answerkey.report.cas import JudgeResult

max_chars_option = click.option(
    "--max-chars",
    type=click.IntRange(min=1, max=MAX_CAS_CHARS),
    default=CLI_MAX_CAS_CHARS,
    show_default=True,
    metavar="N",
    help="Refuse an answer file longer than N characters.",
)


def read_answer(path: str, *, canonical: bool, max_chars: int = CLI_MAX_CAS_CHARS) -> tuple[str, Answer]:
    """Read and parse one CAS file (``-``: standard input): its text and its answer. Errors
    are ``InputError`` (the CLI prints ``FILE:LINE:COL: message`` with a caret)."""
    text = read_text(path, max_bytes=4 * max_chars)
    return text, parse(text, source=source_name(path), allow_alternatives=canonical, max_chars=max_chars)


def load_answer(path: str, *, canonical: bool, max_chars: int = CLI_MAX_CAS_CHARS) -> Answer:
    """The answer of one CAS file (see ``read_answer``)."""
    return read_answer(path, canonical=canonical, max_chars=max_chars)[1]


@click.command()
@click.argument("canonical", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("system", type=click.Path(dir_okay=False, allow_dash=True))
@epsilon_option
@abs_epsilon_option
@scalars_option
@strings_option
@click.option("--explain", is_flag=True, help="Print the mapping used, or what is missing, extra or out of tolerance.")
@json_option("the verdict (columns numbered from 1; with --explain, the explanation's fields)")
@click.option("--html", "html_path", metavar="OUT", help="Write the verdict as one HTML page (docs: Reading a report).")
@max_chars_option
@quiet_option
def judge(
    canonical: str,
    system: str,
    epsilon: float,
    abs_epsilon: float,
    scalars: str,
    strings: str,
    explain: bool,
    json_path: str | None,
    html_path: str | None,
    max_chars: int,
    quiet: bool,
) -> None:
    """Judge the SYSTEM answer against the CANONICAL answer (CAS files; - reads stdin).

    Prints "correct" or "incorrect". A system answer may carry extra columns in any order;
    tuples are compared as sets; reals match within a relative EPSILON (or within
    ABS_EPSILON, an absolute floor, when it is set). Columns are
    numbered from 1, as in the 1989 paper.

    \b
    Examples:
      answerkey judge canonical.cas system.cas
      echo '((53198.8))' | answerkey judge --explain examples/paper/salary.cas -
      answerkey judge --json - --explain --epsilon 0 canonical.cas system.cas

    Exit status: 0 correct, 1 incorrect, 2 trouble (unreadable or invalid CAS, shown as
    FILE:LINE:COL: message). With -q nothing is printed but errors (and the JSON, with --json -).
    """
    if canonical == "-" and system == "-":
        raise Trouble("only one of CANONICAL and SYSTEM can be read from standard input")
    reports = ReportPaths(json=json_path, html=html_path)
    start(reports, {"CANONICAL": canonical, "SYSTEM": system})
    canonical_answer = load_answer(canonical, canonical=True, max_chars=max_chars)
    system_answer = load_answer(system, canonical=False, max_chars=max_chars)
    verdict = judge_answers(
        canonical_answer, system_answer, epsilon=epsilon, scalars=scalars, strings=strings, abs_epsilon=abs_epsilon
    )
    finish(JudgeResult(verdict, explain=explain), reports, quiet=quiet, evaluated=1, nothing="")
    raise click.exceptions.Exit(0 if verdict.correct else 1)
