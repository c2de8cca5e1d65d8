"""``answerkey judge CANONICAL SYSTEM``: one verdict, exit 0 correct / 1 incorrect / 2 trouble."""

from __future__ import annotations

import json

import click

from answerkey.comparator.values import DEFAULT_EPSILON, STRING_MODES

__all__ = ["judge", "epsilon_option", "scalars_option", "strings_option", "load_answer"]


def _check_epsilon(ctx, param, value):
    if value is not None and not (value >= 0):
        raise click.BadParameter("must be a number >= 0")
    return value


epsilon_option = click.option(
    "--epsilon", "-e", type=float, default=DEFAULT_EPSILON, show_default=True, callback=_check_epsilon,
    help="Relative tolerance for reals: s matches c iff |s - c| <= |c| * EPSILON; 0 means exact.",
)
scalars_option = click.option(
    "--scalars", type=click.Choice(["atis", "h89"]), default="atis", show_default=True,
    help="atis: a canonical scalar matches only a scalar or a one-value relation. "
    "h89: it is a one-column relation, extra columns allowed (the 1989 reading).",
)
strings_option = click.option(
    "--strings", type=click.Choice(sorted(STRING_MODES)), default="exact", show_default=True,
    help="String comparison: exact, trim (surrounding whitespace ignored), "
    "fold (trimmed, Unicode NFC, case-folded).",
)


def load_answer(path: str, *, canonical: bool):
    """Read and parse one CAS file; errors become ``Trouble`` with ``FILE:LINE:COL: message``."""
    from answerkey.cli import Trouble
    from answerkey.errors import InputError
    from answerkey.files import read_text
    from answerkey.grammar import parse

    source = "<stdin>" if path == "-" else path
    try:
        return parse(read_text(path), source=source, allow_alternatives=canonical)
    except InputError as error:
        error.source = source
        raise Trouble(str(error)) from None


@click.command()
@click.argument("canonical", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("system", type=click.Path(dir_okay=False, allow_dash=True))
@epsilon_option
@scalars_option
@strings_option
@click.option("--explain", is_flag=True, help="Print the mapping used, or what is missing, extra or out of tolerance.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as a JSON object.")
def judge(canonical, system, epsilon, scalars, strings, explain, as_json):
    """Judge the SYSTEM answer against the CANONICAL answer (CAS files; - reads stdin).

    Prints "correct" or "incorrect". A system answer may carry extra columns in any order;
    tuples are compared as sets; reals match within a relative EPSILON.

    \b
    Examples:
      answerkey judge canonical.cas system.cas
      echo '((53198.8))' | answerkey judge --explain examples/paper/salary.cas -
      answerkey judge --json --epsilon 0 canonical.cas system.cas

    Exit status: 0 correct, 1 incorrect, 2 trouble (unreadable or invalid CAS, shown as
    FILE:LINE:COL: message).
    """
    from answerkey.cli import Trouble
    from answerkey.comparator import judge as run_judge
    from answerkey.comparator import judge_signature

    if canonical == "-" and system == "-":
        raise Trouble("only one of CANONICAL and SYSTEM can be read from stdin")
    canonical_answer = load_answer(canonical, canonical=True)
    system_answer = load_answer(system, canonical=False)
    verdict = run_judge(canonical_answer, system_answer, epsilon=epsilon, scalars=scalars, strings=strings)
    if as_json:
        document = verdict.to_dict()
        document["signature"] = judge_signature(epsilon=epsilon, scalars=scalars, strings=strings)
        if explain:
            document["explanation"] = verdict.explain()
        click.echo(json.dumps(document, indent=2))
    elif explain:
        click.echo(verdict.explain())
    else:
        click.echo(verdict.label)
    raise click.exceptions.Exit(0 if verdict.correct else 1)
