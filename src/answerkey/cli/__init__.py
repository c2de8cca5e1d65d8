"""The ``answerkey`` command line: a root group whose subcommands load on first use.

Each command module does four things: read its options, call the library, write the reports
(``answerkey.report.write_reports``), choose the exit status. Exit statuses follow
``cmp``/``diff``: 0 correct (or success), 1 incorrect (or a threshold not met), 2 trouble
(bad input or usage, an output that cannot be written), 130 interrupted. Bad input is printed
as ``FILE:LINE:COL: message`` on standard error, never as a traceback: the root group turns
``InputError`` (and ``InputErrors``, every one listed) into exit status 2 for all commands.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from answerkey.errors import InputError, InputErrors, plural
from answerkey.limits import ERRORS_SHOWN
from answerkey.parallel import WorkerDied
from answerkey.version import __version__

EXIT_INTERRUPTED = 130
ARGUMENTS = "answerkey.arguments"
"""The key of click's context ``meta`` holding the command line's words as typed."""

# Subcommand name -> ("module:attribute", one-line help for `answerkey --help`). One registry:
# the help, the docs and the tests list commands from here, and a command's module is
# imported only when it runs.
COMMANDS: dict[str, tuple[str, str]] = {
    "judge": ("answerkey.cli.judge:judge", "Judge one system answer against a canonical answer (exit 0/1)."),
    "check": ("answerkey.cli.check:check", "Validate CAS answer files."),
    "score": ("answerkey.cli.score:score", "Score a system's answers against a corpus: accuracy, ATIS figures."),
    "qatch": ("answerkey.cli.qatch:qatch", "QATCH's graded table metrics over a tests file (QA or SQL)."),
    "sdmx": ("answerkey.cli.sdmx:sdmx", "Term precision and recall of SDMX data queries."),
    "steps": ("answerkey.cli.steps:steps", "Score an agent's steps against reference steps (graphrag-eval)."),
    "sql": ("answerkey.cli.sql:sql", "Execution accuracy of predicted SQL on SQLite, DuckDB or PostgreSQL."),
    "answers": ("answerkey.cli.answers:answers", "Answer correctness by claims over a TSV, judged by an LLM."),
    "compare": ("answerkey.cli.compare:compare", "Compare runs on the same items: paired intervals and p-values."),
    "fuzz": ("answerkey.cli.fuzz:fuzz", "Fuzz answer formatters, and answerkey's own parsers."),
    "schema": ("answerkey.cli.schema:schema", "Print the JSON Schema of an input or report format."),
}
# Subcommand name -> "module:function" called as the command is looked up, before its module is
# imported (about 0.1 s): `sql` starts the SQLite helper process that will run its queries, whose
# own start (an interpreter, then sqlglot) overlaps that import and the loading of the inputs.
# The command ends the helper at once when its run does not need it (another engine, -j N).
EARLY_STARTS: dict[str, str] = {"sql": "answerkey.adapters.sql:start_query_process"}


class Trouble(click.ClickException):
    """An error the user can fix: printed without a traceback, exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        # Compiler-style "FILE:LINE:COL: message", without click's "Error: " prefix.
        click.echo(self.format_message(), err=True)


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands:
            return self.commands[name]
        entry = COMMANDS.get(name)
        if entry is None:
            return None
        if name in EARLY_STARTS:
            module_name, function = EARLY_STARTS[name].split(":")
            getattr(importlib.import_module(module_name), function)()
        module_name, attribute = entry[0].split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        command.short_help = entry[1]
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand:
            # click suggests from the commands loaded so far: suggest from the registry.
            name = click.utils.make_str(args[0])
            raise click.exceptions.NoSuchCommand(name, possibilities=self.list_commands(ctx), ctx=ctx) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # From the registry: `answerkey --help` imports no command module and cuts no line.
        rows = [(name, COMMANDS[name][1]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command; in standalone mode exit with its status, a usage error being one
        line (``answerkey judge: Invalid value for '--epsilon' ...``) and exit status 2."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:
            # A bare `answerkey` (or `answerkey steps`) asks what there is: the help, as --help gives it.
            click.echo(error.ctx.get_help() if error.ctx is not None else error.format_message())
            sys.exit(0)
        except click.UsageError as error:
            where = error.ctx.command_path if error.ctx is not None else (prog_name or "answerkey")
            # One line: click lists choices one per line ("Choose from:\n\tqa,\n\tsp").
            message = " ".join(error.format_message().split())
            click.echo(f"{where}: {message} (see '{where} --help')", err=True)
            sys.exit(error.exit_code)
        except click.ClickException as error:
            error.show()
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo("interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        sys.exit(status if isinstance(status, int) else 0)

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> click.Context:
        # The words as typed, kept for the HTML report's command line (the meta is shared by
        # the subcommand's context).
        context = super().make_context(info_name, list(args), parent, **extra)
        context.meta[ARGUMENTS] = ["answerkey", *args]
        return context

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputErrors as errors:
            if len(errors.errors) == 1:  # one problem, one line
                raise Trouble(str(errors.errors[0])) from None
            for error in errors.errors[:ERRORS_SHOWN]:
                click.echo(str(error), err=True)
            if len(errors.errors) > ERRORS_SHOWN:
                click.echo(f"... and {plural(len(errors.errors) - ERRORS_SHOWN, 'more error')}", err=True)
            raise Trouble(errors.message) from None
        except (InputError, WorkerDied) as error:
            raise Trouble(str(error)) from None
        except MemoryError:
            # Past what this machine can hold: one line, never a traceback (the input limits
            # keep most runs far from it; see the limits page).
            raise Trouble(
                "out of memory: the input needs more memory than this machine can give; "
                "split it, or lower the limits (--max-rows, --max-result-bytes, --jobs)"
            ) from None
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except BrokenPipeError:
            raise click.exceptions.Exit(2) from None


@click.group(
    cls=_LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "--version", prog_name="answerkey")
def cli() -> None:
    """Judge and score system answers against canonical answers.

    Answers are written in the Common Answer Specification (CAS): Lisp-style relations of
    typed values, e.g. ((2341 "SMITH") (5573 "JONES")). A system answer is correct when
    some mapping of its columns onto the canonical ones gives the same set of tuples
    (extra columns allowed, reals within a relative epsilon).

    \b
    Examples:
      answerkey judge canonical.cas system.cas
      echo '((53198.8))' | answerkey judge --explain examples/paper/salary.cas -
      answerkey score corpus.yaml answers.jsonl --json report.json --xlsx report.xlsx

    Every command takes --help. Exit status: 0 correct / success, 1 incorrect / threshold
    not met, 2 trouble (bad input, shown as FILE:LINE:COL: message), 130 interrupted.
    """


def main() -> None:
    """Console-script entry point."""
    cli.main(prog_name="answerkey")
