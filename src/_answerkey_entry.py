"""The ``answerkey`` console script: Ctrl-C is handled from the first instant.

Importing answerkey and click takes about 0.1 s. Python's own handler would turn a Ctrl-C in
that time into a traceback of whatever was being imported; this module lives outside the
``answerkey`` package so that its handler is in place before any of it is imported. Once the
command is loaded, Ctrl-C raises ``KeyboardInterrupt`` again, which the command turns into
``interrupted`` and exit status 130 after its own cleanup.
"""

import _signal  # the C module: `signal` imports enum, which takes long enough to be interrupted
import os

EXIT_INTERRUPTED = 130  # answerkey.cli.EXIT_INTERRUPTED, which cannot be imported yet


def _interrupted_while_loading(signum: int, frame: object) -> None:
    # Nothing has started yet: nothing to clean up, and nothing else may run (an exception
    # raised inside an import would print a traceback).
    os.write(2, b"interrupted\n")
    os._exit(EXIT_INTERRUPTED)


_signal.signal(_signal.SIGINT, _interrupted_while_loading)

import signal  # noqa: E402 - every import after the handler, which is the point
import sys  # noqa: E402

from answerkey.cli import main as _command  # noqa: E402


def main() -> None:
    """Run ``answerkey`` with the command line of this process."""
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _command()
    except KeyboardInterrupt:  # between the line above and the command's own handling
        print("interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
