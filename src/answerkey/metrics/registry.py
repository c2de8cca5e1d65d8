"""The one registry of metrics by name (re-exported by ``answerkey.metrics``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["METRICS", "register"]

F = TypeVar("F", bound=Callable[..., float])

# name -> metric function. Filled by the metric modules imported in ``answerkey.metrics``.
METRICS: dict[str, Callable[..., float]] = {}


def register(name: str) -> Callable[[F], F]:
    """Register a metric function under ``name`` (a decorator; names must be unique)."""

    def add(function: F) -> F:
        if name in METRICS:
            raise ValueError(f"metric {name!r} registered twice")
        METRICS[name] = function
        return function

    return add
