"""``answerkey check FILE...``: validate CAS files like a compiler would."""

from __future__ import annotations

import click

__all__ = ["check"]


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--system", "as_system", is_flag=True, help="Check as system answers: OR alternatives are errors.")
@click.option("--strict", is_flag=True, help="Also reject the extensions .5 and exponents (1989/ATIS CAS only).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing for valid files.")
def check(files, as_system, strict, quiet):
    """Validate CAS answer FILES (- reads stdin).

    Prints "FILE: ok" for each valid file and "FILE:LINE:COL: message" on stderr for each
    bad one, with the offending line and a caret.

    \b
    Examples:
      answerkey check canonical/*.cas
      answerkey check --system --quiet answers/*.cas

    Exit status: 0 all valid, 2 any file invalid or unreadable.
    """
    from answerkey.errors import InputError
    from answerkey.files import read_text
    from answerkey.grammar import parse

    bad = 0
    for path in files:
        source = "<stdin>" if path == "-" else path
        try:
            text = read_text(path)
            answer = parse(text, source=source, allow_alternatives=not as_system)
            if strict:
                _check_strict(answer, text, source)
        except InputError as error:
            error.source = source
            click.echo(str(error), err=True)
            bad += 1
            continue
        if not quiet:
            click.echo(f"{source}: ok")
    raise click.exceptions.Exit(2 if bad else 0)


def _check_strict(answer, text: str, source: str) -> None:
    """Reject numbers written as .5 or with an exponent (answerkey extensions)."""
    from answerkey.errors import InputError
    from answerkey.model import Alternatives, Number, Relation

    options = answer.options if isinstance(answer, Alternatives) else (answer,)
    for option in options:
        if not isinstance(option, Relation):
            continue
        for row in option.rows:
            for value in row:
                if isinstance(value, Number) and (
                    "e" in value.text.lower() or value.text.lstrip("+-").startswith(".")
                ):
                    index = _find_token(text, value.text)
                    line = text.count("\n", 0, index) + 1
                    column = index - (text.rfind("\n", 0, index) + 1) + 1
                    raise InputError(
                        f"{value.text} uses an extension (leading '.' or exponent) not in the 1989/ATIS CAS",
                        source=source, line=line, column=column,
                    )


def _find_token(text: str, token: str) -> int:
    import re

    match = re.search(r"(?<![^\s()])" + re.escape(token) + r"(?![^\s();])", text)
    return match.start() if match else 0
