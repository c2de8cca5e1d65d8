"""The signature every score carries: the options that produced it and the version."""

from __future__ import annotations

from answerkey._version import __version__

__all__ = ["make_signature"]


def make_signature(**options: object) -> str:
    """Join verdict-changing options, in the order given, with the version last.

    >>> make_signature(eps="0.0001", scalars="atis", strings="exact")  # doctest: +ELLIPSIS
    'eps:0.0001|scalars:atis|strings:exact|v:...'
    """
    parts = [f"{name}:{value}" for name, value in options.items()]
    parts.append(f"v:{__version__}")
    return "|".join(parts)
