"""``answerkey check FILE...``: validate CAS files like a compiler would."""

from __future__ import annotations

import click

from answerkey.cli import Trouble
from answerkey.cli.judge import max_chars_option, read_answer
from answerkey.cli.options import json_option, quiet_option
from answerkey.cli.output import start
from answerkey.errors import InputError, plural
from answerkey.files import OutputError, source_name
from answerkey.grammar import strict_violation
from answerkey.report import ReportPaths, write_reports
from answerkey.report.cas import CheckResult, FileCheck


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--system", "as_system", is_flag=True, help="Check as system answers: OR alternatives are errors.")
@click.option("--strict", is_flag=True, help="Also reject the extensions .5 and exponents (1989/ATIS CAS only).")
@json_option("one document: each file with ok, or its error's line, column and message")
@max_chars_option
@quiet_option
def check(
    files: tuple[str, ...], as_system: bool, strict: bool, json_path: str | None, max_chars: int, quiet: bool
) -> None:
    """Validate CAS answer FILES (- reads stdin).

    Prints "FILE: ok" for each valid file and "FILE:LINE:COL: message" on stderr for each
    bad one, with the offending line and a caret.

    \b
    Examples:
      answerkey check canonical/*.cas
      answerkey check --system --quiet answers/*.cas
      answerkey check --json checked.json answers/*.cas

    Exit status: 0 all valid, 2 any file invalid or unreadable.
    """
    start(ReportPaths(json=json_path), {path: path for path in files})
    to_stdout = json_path == "-"
    checked: list[FileCheck] = []
    bad = 0
    for path in files:
        source = source_name(path)
        try:
            text, answer = read_answer(path, canonical=not as_system, max_chars=max_chars)
            violation = strict_violation(text, answer, source=source) if strict else None
            if violation is not None:
                raise violation
        except InputError as error:
            error.source = source
            bad += 1
            checked.append(FileCheck(source, error.line, error.column, error.message))
            if not to_stdout:
                click.echo(str(error), err=True)
            continue
        checked.append(FileCheck(source))
        if not quiet and not to_stdout:
            click.echo(f"{source}: ok")
    if json_path is not None:
        try:
            write_reports(CheckResult(checked, system=as_system, strict=strict), ReportPaths(json=json_path))
        except OutputError as error:
            raise Trouble(error.message) from None
    if bad and not quiet and not to_stdout and len(files) > 1:
        click.echo(f"{plural(bad, 'file')} of {len(files):,} invalid", err=True)
    raise click.exceptions.Exit(2 if bad else 0)
