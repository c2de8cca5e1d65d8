"""``answerkey sdmx``: term precision and recall of SDMX data queries, per dimension and case."""

from __future__ import annotations

import click

__all__ = ["sdmx"]

_MAX_ERRORS_SHOWN = 20


@click.command()
@click.argument("cases", metavar="CASES")
@click.argument("selections", metavar="SELECTIONS")
@click.option("--xlsx", "xlsx_path", metavar="OUT", help="Write the Excel report (Overview, Statistics).")
@click.option("--json", "json_path", metavar="OUT", help="Write the report as JSON ('-' for stdout).")
@click.option("--yaml", "yaml_path", metavar="OUT", help="Write the report as YAML ('-' for stdout).")
@click.option("--tag", "tags", multiple=True, metavar="TAG",
              help="Score only the cases with this tag (repeat for any of several).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary table.")
def sdmx(cases, selections, xlsx_path, json_path, yaml_path, tags, quiet) -> None:
    """Score the terms a system selected for SDMX data queries against test cases.

    CASES is a YAML test case, a YAML list of them, or a directory of such files (the
    methodology's schema: see `answerkey schema sdmx-case`). SELECTIONS holds one record per
    case and turn, as JSON Lines or YAML: {"id": CASE_ID, "indicator_selection": [...]};
    records of one case are merged.

    Terms match on id and name. Per (dataset, dimension) of the target: recall = TP/(TP+FN),
    precision = TP/(TP+FP) (undefined when nothing was selected there). A case's macro recall
    and precision average its dimensions, the suite averages its cases, overall and per tag;
    undefined figures are left out of means and shown empty.

    \b
    Example:
      answerkey sdmx examples/sdmx/cases examples/sdmx/selections.jsonl --xlsx sdmx.xlsx

    Exit status: 0 scored, 2 trouble (bad input, with FILE:LINE:COL).
    """
    from answerkey.cli import Trouble
    from answerkey.errors import InputError
    from answerkey.progress import progress
    from answerkey.sdmx import evaluate, load_cases, load_selections, summary_table

    to_stdout = [path for path in (json_path, yaml_path) if path == "-"]
    if len(to_stdout) > 1:
        raise Trouble("only one of --json and --yaml can write to standard output")
    if xlsx_path == "-":
        raise Trouble("--xlsx needs a file name, not '-'")

    errors: list[InputError] = []
    try:
        suite_cases = load_cases(cases, errors=errors)
        records = load_selections(selections, errors=errors)
    except InputError as error:
        errors.append(error)
    if errors:
        for error in errors[:_MAX_ERRORS_SHOWN]:
            click.echo(str(error), err=True)
        if len(errors) > _MAX_ERRORS_SHOWN:
            click.echo(f"... and {len(errors) - _MAX_ERRORS_SHOWN} more", err=True)
        raise Trouble(f"{len(errors)} error{'s' if len(errors) > 1 else ''} in input; nothing scored")

    known_tags = {tag for case in suite_cases for tag in case.tags}
    for tag in tags:
        if tag not in known_tags:
            click.echo(f"warning: no case has tag {tag!r}", err=True)
    try:
        suite = evaluate(
            progress(suite_cases, total=len(suite_cases), label="sdmx", quiet=quiet),
            records,
            tags=tags or None,
        )
    except InputError as error:
        raise Trouble(str(error)) from None
    for warning in suite.warnings:
        click.echo(f"warning: {selections}: {warning}", err=True)

    for path, write in ((xlsx_path, _write_xlsx), (json_path, _write_json), (yaml_path, _write_yaml)):
        if not path:
            continue
        try:
            write(suite, path)
        except OSError as error:
            raise Trouble(f"{path}: cannot write: {error.strerror or error}") from None

    if not quiet and not to_stdout:
        click.echo(summary_table(suite))
        click.echo(f"signature: {suite.signature}")


def _write_xlsx(suite, path) -> None:
    from answerkey.sdmx.excel import write_workbook

    write_workbook(suite, path)


def _write_json(suite, path) -> None:
    from answerkey.files import write_output as atomic_write
    from answerkey.sdmx.report import to_json

    atomic_write(path, to_json(suite))


def _write_yaml(suite, path) -> None:
    from answerkey.files import write_output as atomic_write
    from answerkey.sdmx.report import to_yaml

    atomic_write(path, to_yaml(suite))
