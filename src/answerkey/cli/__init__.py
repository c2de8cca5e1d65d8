"""The ``answerkey`` command line: a root group whose subcommands load on first use.

Exit codes follow ``cmp``/``diff``: 0 correct (or success), 1 incorrect (or a threshold not
met), 2 trouble (bad input, bad usage, interruption).
"""

from __future__ import annotations

import importlib

import click

from answerkey._version import __version__

__all__ = ["cli", "main", "Trouble", "COMMANDS"]

# Subcommand name -> "module:attribute". One registry: `--help`, the docs and the tests list
# commands from here, and a command's module is imported only when it runs.
COMMANDS: dict[str, str] = {
    "judge": "answerkey.cli.judge:judge",
    "check": "answerkey.cli.check:check",
    "schema": "answerkey.cli.schema:schema",
    "sdmx": "answerkey.cli.sdmx:sdmx",
    "score": "answerkey.cli.score:score",
    "steps": "answerkey.cli.steps:steps",
    "fuzz": "answerkey.cli.fuzz:fuzz",
    "qatch": "answerkey.cli.qatch:qatch",
}
# Registered but left out of `answerkey --help` (still runnable and documented).
HIDDEN_COMMANDS: set[str] = set()


class Trouble(click.ClickException):
    """An error the user can fix: printed without a traceback, exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        # Compiler-style "FILE:LINE:COL: message", without click's "Error: " prefix.
        click.echo(self.format_message(), err=True)


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands:
            return self.commands[name]
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if name in HIDDEN_COMMANDS:
            command.hidden = True
        return command

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Trouble("interrupted") from None
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
      answerkey check answers/*.cas

    Exit status: 0 correct / success, 1 incorrect / threshold not met, 2 trouble.
    """


def main() -> None:
    """Console-script entry point."""
    cli.main(prog_name="answerkey")
