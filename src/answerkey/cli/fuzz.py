"""``answerkey fuzz``: random answers for your tools, round trips through your formatter, and
fuzzing of answerkey's own parsers."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys

import click

from answerkey.adapters.rows import FORMATS, RELATION_FORMATS
from answerkey.cli import Trouble
from answerkey.cli.options import (
    abs_epsilon_option,
    epsilon_option,
    json_option,
    quiet_option,
    timeout_option,
    write_json,
)
from answerkey.cli.output import start
from answerkey.files import OutputError, check_outputs, write_output
from answerkey.grammar.render import render
from answerkey.limits import FUZZ_MAX_OUTPUT_BYTES, FUZZ_TIMEOUT
from answerkey.progress import ProgressBar
from answerkey.report import ReportPaths
from answerkey.testing.fuzz import (
    DEFAULT_SHRINK_CALLS,
    PARSERS,
    RoundtripResult,
    fuzz_parser,
    generate_answers,
    printable,
    roundtrip as run_roundtrip,
)

_JSON_WHAT = "the outcome"
_OUTPUT_CHOICES = (
    "a .jsonl file, - (JSON Lines on standard output), or a directory (an existing one, or a path ending in /)"
)


def _need_hypothesis() -> None:
    """Check that Hypothesis is installed, and keep its caches out of the working directory.

    Hypothesis stores caches (constants found in local modules, Unicode tables) in
    ``.hypothesis/`` under the current directory; a CLI run must not write into a user's
    repository, so they go to a temporary directory removed when the process exits.
    """
    if "HYPOTHESIS_STORAGE_DIRECTORY" not in os.environ:
        import atexit
        import tempfile

        storage = tempfile.mkdtemp(prefix="answerkey-fuzz-")
        os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = storage
        atexit.register(shutil.rmtree, storage, ignore_errors=True)
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        raise Trouble("answerkey fuzz needs Hypothesis: pip install 'answerkey[fuzz]'") from None


@click.group()
def fuzz() -> None:
    """Fuzz answer formatters and answerkey itself (needs answerkey[fuzz]).

    \b
    Examples:
      answerkey fuzz generate -n 100 --seed 1 --format jsonrows -o answers.jsonl
      answerkey fuzz roundtrip --cmd "python my_formatter.py" -n 200
      answerkey fuzz self -n 1000

    Every run is deterministic for its --seed (with the same Hypothesis version and the same
    answerkey installation: Hypothesis also draws on constants in the installed source) and writes
    nothing into .hypothesis/.
    """


def _output_kind(output: str) -> str:
    """``jsonl`` or ``directory``, as ``-o`` asks; anything else is trouble naming the choices."""
    if os.path.isdir(output) or output.endswith(("/", os.sep)):
        return "directory"
    if output == "-" or output.endswith(".jsonl"):
        return "jsonl"
    raise Trouble(f"-o {output}: give {_OUTPUT_CHOICES}")


@fuzz.command()
@click.option(
    "-n", "count", type=click.IntRange(1, 1_000_000), default=100, show_default=True, help="How many answers."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same answers.")
@click.option(
    "--format",
    "format_name",
    type=click.Choice(list(FORMATS)),
    default="cas",
    show_default=True,
    help="cas: any answer (scalars, relations, alternatives, NO_ANSWER); the others: relations.",
)
@click.option("-o", "--output", required=True, metavar="OUT", help=f"Where to write: {_OUTPUT_CHOICES}.")
@click.option("--force", is_flag=True, help="Replace answer files already in the OUT directory.")
@quiet_option
def generate(count: int, seed: int, format_name: str, output: str, force: bool, quiet: bool) -> None:
    """Write random answers for feeding your own tools.

    A .jsonl OUT (or -) gets one {"id": "answer-0001", "format": ..., "answer": TEXT} per
    line (`answerkey schema fuzz-answers`); a directory gets one file per answer
    (answer-0001.cas, .json, .srj or .csv), and is created when OUT ends in /; files of those
    names already there are never replaced without --force. Files are written atomically.

    \b
    Examples:
      answerkey fuzz generate -n 50 --seed 7 -o fuzzed/
      answerkey fuzz generate -n 1000 --format csv -o rows.jsonl

    Exit status: 0 written, 2 trouble.
    """
    kind = _output_kind(output)
    width = max(4, len(str(count)))
    names = [f"answer-{index:0{width}d}" for index in range(1, count + 1)]
    if kind != "jsonl" and not force:
        suffix = FORMATS[format_name].suffix
        existing = [name + suffix for name in names if os.path.lexists(os.path.join(output, name + suffix))]
        if existing:
            shown = ", ".join(existing[:3]) + (", ..." if len(existing) > 3 else "")
            raise Trouble(
                f"-o {output}: {len(existing):,} of the {count:,} answer files are there already ({shown}); "
                "refusing to replace them (--force replaces them)"
            )
    try:
        if kind == "jsonl":
            check_outputs({"-o": (output, "jsonl")})
        _need_hypothesis()
        texts = generate_answers(count, seed=seed, format=format_name)
        if kind == "jsonl":
            write_output(
                output,
                "".join(
                    json.dumps({"id": name, "format": format_name, "answer": text}, ensure_ascii=False) + "\n"
                    for name, text in zip(names, texts)
                ),
            )
        else:
            try:
                os.makedirs(output, exist_ok=True)
            except OSError as error:
                raise Trouble(f"-o {output}: cannot create the directory: {error.strerror or error}") from None
            suffix = FORMATS[format_name].suffix
            for name, text in zip(names, texts):
                write_output(os.path.join(output, name + suffix), text)
    except OutputError as error:
        raise Trouble(error.message) from None
    if output != "-" and not quiet:
        click.echo(f"wrote {len(texts)} {format_name} answers to {output} (seed {seed})", err=True)


def _indent(text: str) -> str:
    return "".join("  " + line for line in text.splitlines(keepends=True)) or "  (nothing)\n"


def _shown(raw: bytes, limit: int = 4000) -> str:
    text = raw.decode("utf-8", "backslashreplace")
    if len(text) > limit:
        text = text[:limit] + f"\n... ({len(text) - limit} more characters)"
    return text if text.endswith("\n") or not text else text + "\n"


def _failure_report(command: str, result: RoundtripResult, count: int) -> str:
    """The text report of a failed round trip."""
    failure = result.failure
    assert failure is not None
    call = failure.call
    ended = {
        "overflow": "killed for printing too much; the start of it",
        "timeout": "killed after the timeout",
        "exited": f"exit status {call.status}",
    }[call.ended]
    if call.truncated:
        ended += f", of which only the first {len(call.stdout):,} bytes were kept"
    stderr = f"on stderr:\n{_indent(_shown(call.stderr))}" if call.stderr.strip() else ""
    return (
        f"FAILED: {command} got relation {result.examples} wrong; shrunk in {result.calls} calls "
        f"(seed {result.seed})\n"
        f"minimal failing relation (CAS):\n{_indent(render(failure.relation) + chr(10))}"
        f"sent on stdin ({result.input_format}):\n{_indent(printable(call.input))}"
        f"the command printed ({ended}):\n{_indent(_shown(call.stdout))}"
        f"{stderr}"
        f"why it is wrong:\n{_indent(failure.reason + chr(10))}"
        f"reproduce: {_reproduce(command, result, count)}"
    )


def _reproduce(command: str, result: RoundtripResult, count: int) -> str:
    return (
        f"answerkey fuzz roundtrip --cmd {shlex.quote(command)} -n {count} --seed {result.seed}"
        f" --input-format {result.input_format}"
    )


@fuzz.command()
@click.option(
    "--cmd",
    "command",
    required=True,
    help='The formatter to test, e.g. "python to_cas.py" (split like a shell does, not run by one).',
)
@click.option(
    "-n", "count", type=click.IntRange(1, 1_000_000), default=100, show_default=True, help="How many relations to try."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same relations.")
@click.option(
    "--input-format",
    type=click.Choice(RELATION_FORMATS),
    default="jsonrows",
    show_default=True,
    help="How each relation is written to the command's stdin.",
)
@timeout_option(FUZZ_TIMEOUT, "Seconds per call; then the command and everything it started are killed.")
@epsilon_option
@abs_epsilon_option
@click.option(
    "--shrink-calls",
    type=click.IntRange(0),
    default=DEFAULT_SHRINK_CALLS,
    show_default=True,
    help="At most this many more calls to shrink a failure.",
)
@json_option(_JSON_WHAT)
@quiet_option
def roundtrip(
    command: str,
    count: int,
    seed: int,
    input_format: str,
    timeout: float,
    epsilon: float,
    abs_epsilon: float,
    shrink_calls: int,
    json_path: str | None,
    quiet: bool,
) -> None:
    """Check that COMMAND turns relations into CAS that judges correct.

    For each random relation, sends it to the command's stdin in --input-format, reads CAS
    text from its stdout and judges it against the relation. At the first failure (wrong
    answer, text that is not CAS, a non-zero exit, a timeout, more than the output limit)
    the relation is shrunk to a minimal one, and the minimal relation, what the command
    printed and why it is wrong are shown. A call ends when the command exits; whatever it
    started is killed then, also processes that left its process group or session.

    \b
    Examples:
      answerkey fuzz roundtrip --cmd "python to_cas.py" -n 500 --seed 3
      answerkey fuzz roundtrip --cmd "sh -c 'jq -c . | ./to_cas'" --input-format sparql-json
      answerkey fuzz roundtrip --cmd "python to_cas.py" --json outcome.json

    Exit status: 0 all passed, 1 a failure found, 2 trouble (the command cannot be run).
    """
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise Trouble(f"--cmd: {error}") from None
    if not argv:
        raise Trouble("--cmd: empty command")
    start(ReportPaths(json=json_path), {})
    if os.sep not in argv[0] and shutil.which(argv[0]) is None:
        raise Trouble(f"--cmd: {argv[0]!r} not found on PATH")
    _need_hypothesis()
    with ProgressBar(count, "roundtrip", quiet=quiet) as bar:
        result = run_roundtrip(
            argv,
            examples=count,
            seed=seed,
            input_format=input_format,
            timeout=timeout,
            epsilon=epsilon,
            abs_epsilon=abs_epsilon,
            shrink_calls=shrink_calls,
            max_output=FUZZ_MAX_OUTPUT_BYTES,
            on_call=lambda calls: bar.update(min(calls, count)),
        )
    if result.trouble:
        raise Trouble(f"--cmd: {result.trouble}")
    if json_path is not None:
        document = {
            "command": command,
            **result.document(),
            "reproduce": _reproduce(command, result, count) if result.failure else None,
        }
        write_json(json_path, document)
    if quiet or json_path == "-":
        pass
    elif result.failure is None:
        click.echo(
            f"ok: {result.examples} relations round-tripped through {command} "
            f"({result.calls} distinct inputs, seed {seed})"
        )
    else:
        click.echo(_failure_report(command, result, count))
    sys.stdout.flush()
    raise click.exceptions.Exit(0 if result.failure is None else 1)


@fuzz.command(name="self")
@click.option(
    "-n", "count", type=click.IntRange(1, 10_000_000), default=1000, show_default=True, help="Inputs per parser."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same inputs.")
@click.option(
    "--parser", "names", multiple=True, metavar="NAME", help="Fuzz only this parser (repeatable); default: all of them."
)
@json_option(_JSON_WHAT)
@quiet_option
def self_command(count: int, seed: int, names: tuple[str, ...], json_path: str | None, quiet: bool) -> None:
    """Fuzz every answerkey parser and report any undocumented exception.

    Each parser (CAS, JSON rows, CSV, SPARQL results JSON, corpus YAML and JSONL, answer
    files, SDMX cases, graphrag-eval references, responses and results, QATCH tests, SQL
    text and database names) gets valid texts, near-miss mutations of them and random text.
    Bad input must raise InputError (or ParseError), and SQL must always give a result;
    anything else is a bug, shown with the minimal input and its traceback. A parser whose
    module is not installed is skipped with a message.

    \b
    Examples:
      answerkey fuzz self
      answerkey fuzz self -n 100000 --parser cas
      answerkey fuzz self -n 200 --json fuzzed.json

    Exit status: 0 no bug found, 1 a bug found, 2 trouble.
    """
    unknown = [name for name in names if name not in PARSERS]
    if unknown:
        raise Trouble(f"--parser: unknown {', '.join(unknown)} (known: {', '.join(PARSERS)})")
    start(ReportPaths(json=json_path), {})
    _need_hypothesis()
    reports = []
    for name in [name for name in PARSERS if not names or name in names]:
        with ProgressBar(count, f"fuzz {name}", quiet=quiet) as bar:
            report = fuzz_parser(name, examples=count, seed=seed, on_example=bar.update)
        reports.append(report)
        if json_path == "-" or quiet:
            continue
        if report.skipped:
            click.echo(f"{name}: skipped: {report.skipped}")
        elif report.error:
            click.echo(
                f"{name}: BUG: an undocumented exception after {report.examples} inputs\n"
                f"minimal input: {report.failing_input!r}\n{_indent(printable(report.error))}"
            )
        else:
            click.echo(f"{name}: ok ({report.examples} inputs)")
    bugs = sum(report.outcome == "bug" for report in reports)
    if json_path is not None:
        write_json(
            json_path,
            {
                "outcome": "bug" if bugs else "ok",
                "seed": seed,
                "examples": count,
                "bugs": bugs,
                "parsers": [report.document() for report in reports],
            },
        )
    raise click.exceptions.Exit(1 if bugs else 0)
