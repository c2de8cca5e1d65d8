"""``answerkey sdmx CASES SELECTIONS``: term precision and recall of SDMX data queries, per
dimension and case."""

from __future__ import annotations

import click

from answerkey.cli import Trouble
from answerkey.cli.options import quiet_option, tag_option
from answerkey.cli.output import failures_option, finish, report_options, start
from answerkey.report import ReportPaths
from answerkey.sdmx.load import case_files, load_suite
from answerkey.sdmx.run import LISTED, NOT_IN_TARGET, run_sdmx


@click.command()
@click.argument("cases", metavar="CASES")
@click.argument("selections", metavar="SELECTIONS")
@report_options
@failures_option
@tag_option
@click.option(
    "--not-in-target",
    type=click.Choice(list(NOT_IN_TARGET)),
    default=LISTED,
    show_default=True,
    help=(
        "Selected dimensions not in the target: listed (as the reference implementation: listed apart, "
        "left out of the macro figures) or scored (the methodology's text: precision 0, all their terms "
        "false positives, counted in macro precision). Recorded in the signature."
    ),
)
@quiet_option
def sdmx(
    cases: str, selections: str, reports: ReportPaths, tags: tuple[str, ...], not_in_target: str, quiet: bool
) -> None:
    """Score the terms a system selected for SDMX data queries against test cases.

    CASES is a YAML test case, a YAML list of them, or a directory of such files (every
    *.yaml and *.yml below it; entries that are not regular files, such as FIFOs or broken
    links, are skipped with a warning). A case has an id, a name, tags, and conversation
    turns whose target.indicator_selection lists the expected terms:
    [{dataset_id, dimensions: [{dimension_name, values: [{id, name}]}]}].

    SELECTIONS holds what the system selected, one record per case and turn, as JSON Lines
    or a JSON/YAML list: {"id": CASE_ID, "indicator_selection": [...]}. Records of one case
    are merged; a case without a record scores as nothing selected, and a record for an
    unknown case is a warning. `answerkey schema sdmx-case` and `answerkey schema
    sdmx-selections` print the JSON Schemas.

    A term matches only when its id and name are both equal. Per (dataset, dimension) of
    the target: recall = TP/(TP+FN), precision = TP/(TP+FP) (undefined when nothing was
    selected there). A case's macro recall and precision average its target dimensions.
    Selected dimensions outside the target ("dimensions not in target") are read as
    --not-in-target says, and the signature records it (not_in_target:...):

    \b
      listed  (default; the reference implementation) listed with their false
              positives, left out of the macro figures.
      scored  (the methodology's text: "all selected terms are counted as false
              positives for that dimension") precision 0 each, counted in macro
              precision; their recall (0/0) is undefined, so macro recall is the
              same under both readings.

    A dimension with no terms counts as absent, in the target and in the selection alike.
    The suite averages its cases, overall and per tag. Undefined figures are left out of
    every mean and shown as "-" (null in JSON, empty in Excel).

    The workbook (--xlsx) has an Overview sheet (one row per case, with the methodology's
    details block per dimension), Statistics (the Data Query Metrics per tag, with a chart)
    and Warnings.

    \b
    Examples:
      answerkey sdmx examples/sdmx/cases examples/sdmx/selections.jsonl
      answerkey sdmx cases/ selections.jsonl --xlsx sdmx.xlsx --json sdmx.json
      answerkey sdmx cases/ selections.jsonl --tag weo --json - -q
      answerkey sdmx cases/ selections.jsonl --not-in-target scored

    Exit status: 0 scored, 2 trouble (bad input, listed as FILE:LINE:COL: message; nothing
    is scored when any case or record is bad; or no case to score, as with a --tag no case has).
    """
    if cases == "-" and selections == "-":
        raise Trouble("only one of CASES and SELECTIONS can be read from standard input")
    # Each case file of a CASES directory is an input a report must not overwrite.
    inputs = {"CASES": cases, "SELECTIONS": selections}
    inputs.update(
        {f"CASES file {file.relative_to(cases)}": str(file) for file in case_files(cases) if str(file) != cases}
    )
    start(reports, inputs)
    loaded_cases, loaded_selections = load_suite(cases, selections)
    suite = run_sdmx(loaded_cases, loaded_selections, tags=tags or None, not_in_target=not_in_target, quiet=quiet)
    nothing = f"no case has the tag {' or '.join(map(repr, tags))}" if tags else "CASES holds no case"
    finish(suite, reports, quiet=quiet, evaluated=len(suite.cases), nothing=nothing)
