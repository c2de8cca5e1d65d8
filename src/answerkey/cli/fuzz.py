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

__all__ = ["fuzz"]


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
        from answerkey.cli import Trouble

        raise Trouble("answerkey fuzz needs Hypothesis: pip install 'answerkey[fuzz]'") from None


@click.group()
def fuzz():
    """Fuzz answer formatters and answerkey itself (needs answerkey[fuzz]).

    \b
    Examples:
      answerkey fuzz generate -n 100 --seed 1 --format jsonrows -o answers.jsonl
      answerkey fuzz roundtrip --cmd "python my_formatter.py" -n 200
      answerkey fuzz self -n 1000

    Every run is deterministic for its --seed (with the same Hypothesis version) and writes
    nothing into .hypothesis/.
    """


@fuzz.command()
@click.option("-n", "count", type=click.IntRange(1, 1_000_000), default=100, show_default=True,
              help="How many answers.")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same answers.")
@click.option("--format", "format_name", type=click.Choice(list(FORMATS)),
              default="cas", show_default=True,
              help="cas: any answer (scalars, relations, alternatives, NO_ANSWER); the others: relations.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=True, allow_dash=True),
              help="A directory (one file per answer), a .jsonl file, or - for JSON Lines on stdout.")
def generate(count, seed, format_name, output):
    """Write random answers for feeding your own tools.

    A .jsonl OUTPUT (or -) gets one {"id": "answer-0001", "format": ..., "answer": TEXT} per
    line; any other OUTPUT is a directory that gets one file per answer
    (answer-0001.cas, .json, .srj or .csv). Files are written atomically.

    \b
    Examples:
      answerkey fuzz generate -n 50 --seed 7 -o fuzzed/
      answerkey fuzz generate -n 1000 --format csv -o rows.jsonl

    Exit status: 0 written, 2 trouble.
    """
    _need_hypothesis()
    from answerkey.cli import Trouble
    from answerkey.files import write_output as atomic_write
    from answerkey.testing.fuzz import generate_answers

    texts = generate_answers(count, seed=seed, format=format_name)
    width = max(4, len(str(count)))
    names = [f"answer-{index:0{width}d}" for index in range(1, len(texts) + 1)]
    if output == "-" or output.endswith(".jsonl"):
        lines = "".join(
            json.dumps({"id": name, "format": format_name, "answer": text}, ensure_ascii=False) + "\n"
            for name, text in zip(names, texts)
        )
        try:
            atomic_write(output, lines)
        except OSError as error:
            raise Trouble(f"{output}: {error.strerror or error}") from None
    else:
        suffix = FORMATS[format_name].suffix
        try:
            os.makedirs(output, exist_ok=True)
            for name, text in zip(names, texts):
                atomic_write(os.path.join(output, name + suffix), text)
        except OSError as error:
            raise Trouble(f"{output}: {error.strerror or error}") from None
    if output != "-":
        click.echo(f"wrote {len(texts)} {format_name} answers to {output} (seed {seed})", err=True)


def _indent(text: str) -> str:
    return "".join("  " + line for line in text.splitlines(keepends=True)) or "  (nothing)\n"


def _shown(raw: bytes, limit: int = 4000) -> str:
    text = raw.decode("utf-8", "backslashreplace")
    if len(text) > limit:
        text = text[:limit] + f"\n... ({len(text) - limit} more characters)"
    return text if text.endswith("\n") or not text else text + "\n"


@fuzz.command()
@click.option("--cmd", "command", required=True,
              help='The formatter to test, e.g. "python to_cas.py" (split like a shell does, not run by one).')
@click.option("-n", "count", type=click.IntRange(1, 1_000_000), default=100, show_default=True,
              help="How many relations to try.")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same relations.")
@click.option("--input-format", type=click.Choice(RELATION_FORMATS), default="jsonrows",
              show_default=True, help="How each relation is written to the command's stdin.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Seconds per call; then the command and everything it started are killed.")
@click.option("--epsilon", type=click.FloatRange(min=0), default=1e-4, show_default=True,
              help="Relative tolerance for reals when judging the output.")
@click.option("--shrink-calls", type=click.IntRange(0), default=300, show_default=True,
              help="At most this many more calls to shrink a failure.")
def roundtrip(command, count, seed, input_format, timeout, epsilon, shrink_calls):
    """Check that COMMAND turns relations into CAS that judges correct.

    For each random relation, sends it to the command's stdin in --input-format, reads CAS
    text from its stdout and judges it against the relation. At the first failure (wrong
    answer, text that is not CAS, a non-zero exit, a timeout) the relation is shrunk to a
    minimal one, and the minimal relation, what the command printed and why it is wrong are
    shown.

    \b
    Examples:
      answerkey fuzz roundtrip --cmd "python to_cas.py" -n 500 --seed 3
      answerkey fuzz roundtrip --cmd "sh -c 'jq -c . | ./to_cas'" --input-format sparql-json

    Exit status: 0 all passed, 1 a failure found, 2 trouble (the command cannot be run).
    """
    _need_hypothesis()
    from answerkey.cli import Trouble
    from answerkey.testing.fuzz import roundtrip as run_roundtrip
    from answerkey.grammar.render import render

    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise Trouble(f"--cmd: {error}") from None
    if not argv:
        raise Trouble("--cmd: empty command")
    if os.sep not in argv[0] and shutil.which(argv[0]) is None:
        raise Trouble(f"--cmd: {argv[0]!r} not found on PATH")
    result = run_roundtrip(argv, examples=count, seed=seed, input_format=input_format, timeout=timeout,
                           epsilon=epsilon, shrink_calls=shrink_calls)
    if result.trouble:
        raise Trouble(f"--cmd: {result.trouble}")
    failure = result.failure
    if failure is None:
        click.echo(f"ok: {result.examples} relations round-tripped through {command} "
                   f"({result.calls} distinct inputs, seed {seed})")
        return
    call = failure.call
    if call.overflow:
        ended = "killed for printing too much; the start of it"
    elif call.status is None:
        ended = "killed after the timeout"
    else:
        ended = f"exit status {call.status}"
    click.echo(
        f"FAILED: {command} got relation {result.examples} wrong; shrunk in {result.calls} calls "
        f"(seed {seed})\n"
        f"minimal failing relation (CAS):\n{_indent(render(failure.relation) + chr(10))}"
        f"sent on stdin ({input_format}):\n{_indent(call.input)}"
        f"the command printed ({ended}):\n{_indent(_shown(call.stdout))}"
        + (f"on stderr:\n{_indent(_shown(call.stderr))}" if call.stderr.strip() else "")
        + f"why it is wrong:\n{_indent(failure.reason + chr(10))}"
        f"reproduce: answerkey fuzz roundtrip --cmd {shlex.quote(command)} -n {count} --seed {seed}"
        f" --input-format {input_format}"
    )
    sys.stdout.flush()
    raise click.exceptions.Exit(1)


@fuzz.command(name="self")
@click.option("-n", "count", type=click.IntRange(1, 10_000_000), default=1000, show_default=True,
              help="Inputs per parser.")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same inputs.")
@click.option("--parser", "names", multiple=True,
              help="Fuzz only this parser (repeatable); default: all of them.")
def self_command(count, seed, names):
    """Fuzz every answerkey parser and report any undocumented exception.

    Each parser (CAS, JSON rows, CSV, SPARQL results JSON, corpus YAML and JSONL, answer
    files, SDMX cases, graphrag-eval and QATCH inputs) gets valid texts, near-miss mutations of them and random text. Bad input must
    raise InputError (or ParseError); anything else is a bug, shown with the minimal input
    and its traceback. A parser whose module is not installed is skipped with a message.

    \b
    Examples:
      answerkey fuzz self
      answerkey fuzz self -n 100000 --parser cas

    Exit status: 0 no bug found, 1 a bug found, 2 trouble.
    """
    _need_hypothesis()
    from answerkey.cli import Trouble
    from answerkey.testing.fuzz import PARSERS, fuzz_parser
    from answerkey.progress import progress

    unknown = [name for name in names if name not in PARSERS]
    if unknown:
        raise Trouble(f"--parser: unknown {', '.join(unknown)} (known: {', '.join(PARSERS)})")
    bugs = 0
    for name in [name for name in PARSERS if not names or name in names]:
        ticks = iter(progress(range(count), total=count, label=f"fuzz {name}"))
        report = fuzz_parser(name, examples=count, seed=seed, on_example=lambda _: next(ticks, None))
        for _ in ticks:  # finish (and clear) the progress bar
            pass
        if report.skipped:
            click.echo(f"{name}: skipped: {report.skipped}")
        elif report.error:
            bugs += 1
            click.echo(f"{name}: BUG: an undocumented exception after {report.examples} inputs\n"
                       f"minimal input: {report.failing_input!r}\n{_indent(report.error)}")
        else:
            click.echo(f"{name}: ok ({report.examples} inputs)")
    raise click.exceptions.Exit(1 if bugs else 0)
