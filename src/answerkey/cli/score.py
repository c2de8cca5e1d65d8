"""``answerkey score CORPUS ANSWERS``: score one system's answers against a corpus."""

from __future__ import annotations

import click

from answerkey.cli.judge import epsilon_option, scalars_option, strings_option

__all__ = ["score"]


def _check_fail_under(ctx, param, value):
    if value is not None and not 0 <= value <= 1:
        raise click.BadParameter("accuracy is a fraction between 0 and 1 (0.8 for 80%)")
    return value


def _metric_names(value: str) -> tuple[str, ...]:
    from answerkey.score.run import relation_metrics

    known = relation_metrics()
    text = value.strip()
    if text == "all":
        return tuple(known)
    if text == "none":
        return ()
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in known]
    if unknown:
        raise click.BadParameter(
            f"unknown metric {unknown[0]!r}; known: {', '.join(known) or 'none'} (or all, none)",
            param_hint="'--metrics'",
        )
    if not names:
        raise click.BadParameter("name at least one metric, or all, or none", param_hint="'--metrics'")
    return names


@click.command()
@click.argument("corpus", metavar="CORPUS")
@click.argument("answers", metavar="ANSWERS")
@click.option("--json", "json_path", metavar="OUT", help="Write the report as JSON ('-' for stdout).")
@click.option("--yaml", "yaml_path", metavar="OUT", help="Write the report as YAML ('-' for stdout).")
@click.option("--xlsx", "xlsx_path", metavar="OUT", help="Write an Excel workbook (Overview, Statistics).")
@epsilon_option
@scalars_option
@strings_option
@click.option("--metrics", "metrics", default="all", show_default=True, metavar="NAMES",
              help="Graded metrics per item, comma-separated (e.g. cell_recall,tuple_order); "
              "all registered ones, or none to skip them.")
@click.option("--fail-under", type=float, callback=_check_fail_under, metavar="ACCURACY",
              help="Exit 1 when accuracy (correct / scored, a fraction) is below ACCURACY.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Score in this many processes (same results, same order).")
@click.option("--corpus-format", type=click.Choice(["yaml", "jsonl"]),
              help="Read CORPUS as this format (default: by extension: .jsonl, else YAML).")
@click.option("--answers-format", type=click.Choice(["jsonl", "yaml", "dir"]),
              help="Read ANSWERS as this format (default: a directory is dir, .jsonl JSONL, .yaml/.yml/.json YAML).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def score(corpus, answers, json_path, yaml_path, xlsx_path, epsilon, scalars, strings, metrics, fail_under,
          jobs, corpus_format, answers_format, quiet) -> None:
    """Score the system ANSWERS against the canonical answers of CORPUS.

    CORPUS is a YAML list or JSON Lines of items (see `answerkey schema corpus`): id, query,
    answer (CAS, may hold OR alternatives), optional max_answer, category (0, 1, 2, 3 or X,
    H89-2019 section 5; X items are listed, not scored), tags, context, and per-item epsilon
    and ordered overrides. ANSWERS is JSON Lines {"id": ..., "answer": "<CAS>"}, a YAML
    mapping id: CAS, or a directory of <id>.cas files.

    Each scored item is correct, incorrect, or no_answer (missing, null or NO_ANSWER); an
    answer that does not parse is incorrect. Accuracy = correct / scored; ATIS weighted
    error = 2 x %incorrect + %no_answer and score = 100 - weighted error. Every report
    carries a signature of the options that change verdicts.

    \b
    Examples:
      answerkey score examples/personnel/corpus.yaml examples/personnel/answers.jsonl
      answerkey score corpus.jsonl answers/ --xlsx report.xlsx --json report.json -j 4
      answerkey score corpus.yaml answers.yaml --fail-under 0.9 --metrics none

    Exit status: 0 scored, 1 accuracy under --fail-under, 2 trouble (bad input, listed as
    FILE:LINE:COL: message; nothing is scored when any corpus item is bad).
    """
    from answerkey.cli import Trouble
    from answerkey.score.load import InputErrors, load_answers, load_corpus
    from answerkey.errors import InputError
    from answerkey.files import atomic_write
    from answerkey.score.report import ItemLines, summary_table, to_json, to_yaml
    from answerkey.score.run import ScoreOptions, score_corpus

    if [json_path, yaml_path].count("-") > 1:
        raise Trouble("only one of --json and --yaml can write to standard output")
    if xlsx_path == "-":
        raise Trouble("--xlsx needs a file name, not '-'")
    if corpus == "-" and answers == "-":
        raise Trouble("only one of CORPUS and ANSWERS can be read from stdin")
    try:
        options = ScoreOptions(epsilon=epsilon, scalars=scalars, strings=strings, metrics=_metric_names(metrics))
    except ValueError as error:
        raise Trouble(str(error)) from None

    def stop(errors: list[InputError]) -> Trouble:
        for error in errors:
            click.echo(str(error), err=True)
        return Trouble(f"{len(errors)} error{'s' if len(errors) != 1 else ''} in input; nothing scored")

    try:
        loaded_corpus = load_corpus(corpus, format=corpus_format)
        try:
            loaded_answers = load_answers(answers, format=answers_format)
        except InputErrors as errors:
            # The corpus's own problems are worth knowing in the same run.
            raise stop(loaded_corpus.problems + errors.errors) from None
        except InputError as error:
            raise stop(loaded_corpus.problems + [error]) from None
        # With workers scoring, this process encodes the JSON report's items as they come.
        lines = ItemLines() if json_path and jobs > 1 else None
        run = score_corpus(loaded_corpus, loaded_answers, options, jobs=jobs, quiet=quiet,
                           each=lines.add if lines is not None else None)
    except InputErrors as errors:
        raise stop(errors.errors) from None
    except InputError as error:
        raise Trouble(str(error)) from None

    for warning in run.warnings:
        click.echo(f"warning: {warning}", err=True)
    try:
        if xlsx_path:
            from answerkey.score.report import write_workbook

            write_workbook(run, xlsx_path)
        if json_path:
            atomic_write(json_path, to_json(run, lines))
        if yaml_path:
            atomic_write(yaml_path, to_yaml(run))
    except OSError as error:
        raise Trouble(f"cannot write {error.filename or 'the report'}: {error.strerror or error}") from None

    if "-" not in (json_path, yaml_path):
        click.echo(summary_table(run))
    accuracy = run.summary.accuracy
    if fail_under is not None and (accuracy is None or accuracy < fail_under):
        shown = "undefined (nothing scored)" if accuracy is None else f"{accuracy:.4f}"
        click.echo(f"accuracy {shown} is under --fail-under {fail_under}", err=True)
        raise click.exceptions.Exit(1)
