"""Deterministic Hypothesis runs for the fuzzers, and printing what they found.

``run_examples(strategy, test, examples=, seed=)`` runs ``test`` on drawn values the same way
for the same seed, never touching a ``.hypothesis/`` example database; ``printable(text)``
makes a fuzzed text safe to print (lone surrogates escaped).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def printable(text: str) -> str:
    """``text`` with any lone surrogate written as a ``\\udXXX`` escape, so that it can be
    printed and written as UTF-8 (fuzzed inputs may hold them on purpose).

    >>> printable("a\\ud800b")
    'a\\\\ud800b'
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def run_examples(strategy: Any, test: Callable[[Any], None], *, examples: int, seed: int, shrink: bool = True) -> None:
    """Call ``test`` on up to ``examples`` values drawn from the Hypothesis ``strategy``,
    deterministically for ``seed``; on a failure, shrink it and raise the minimal example's
    exception. No example database is read or written, and no health check applies (the
    fuzzers draw large and slow examples on purpose)."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, seed as with_seed, settings

    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]

    @with_seed(seed)
    @settings(
        database=None,  # never write into a .hypothesis/ directory
        max_examples=examples,
        deadline=None,
        derandomize=False,  # the CI profile derandomizes, which would ignore the seed
        phases=phases,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        print_blob=False,
    )
    @given(strategy)
    def run(example: Any) -> None:
        test(example)

    run()
