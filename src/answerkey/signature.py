"""The signature every score carries: the options that produced it and the version.

As sacrebleu's: an object with its fields and ``format(short=...)``. Reports print the short
form, which is what ``str`` gives; ``Signature.parse`` reads it back.

>>> signature = Signature.of(epsilon="0.0001", scalars="atis", strings="exact")
>>> signature.format(short=True) == str(signature)
True
>>> signature.format()  # doctest: +ELLIPSIS
'epsilon:0.0001|scalars:atis|strings:exact|version:...'
>>> signature.fields["scalars"], Signature.parse(str(signature)) == signature
('atis', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from answerkey.version import __version__

__all__ = [
    "Signature",
]

# Long field name -> the abbreviation the short form uses (others are the same in both).
SHORT_NAMES = {"epsilon": "eps", "abs_epsilon": "abs_eps", "version": "v"}
_LONG_NAMES = {short: long for long, short in SHORT_NAMES.items()}


@dataclass(frozen=True)
class Signature:
    """Named option values in a fixed order, the version last."""

    items: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, **options: object) -> Signature:
        """A signature of ``options`` (long names, in the order given) and this version."""
        items = [(name, str(value)) for name, value in options.items() if name != "version"]
        return cls((*items, ("version", __version__)))

    @classmethod
    def parse(cls, text: str) -> Signature:
        """The signature printed as ``text`` (short or long form); ``ValueError`` if it is not one.

        >>> Signature.parse("eps:0|task:sp|v:0.1.0").fields
        {'epsilon': '0', 'task': 'sp', 'version': '0.1.0'}
        """
        items = []
        for part in text.strip().split("|"):
            name, colon, value = part.partition(":")
            if not colon or not name:
                raise ValueError(f"not a signature: {text!r}")
            items.append((_LONG_NAMES.get(name, name), value))
        if not items or items[-1][0] != "version":
            raise ValueError(f"not a signature (no version at the end): {text!r}")
        return cls(tuple(items))

    @property
    def fields(self) -> dict[str, str]:
        """The option values by long name, version included."""
        return dict(self.items)

    def format(self, short: bool = False) -> str:
        """``name:value|...`` with long names, or the abbreviations with ``short``."""
        names: Mapping[str, str] = SHORT_NAMES if short else {}
        return "|".join(f"{names.get(name, name)}:{value}" for name, value in self.items)

    def __str__(self) -> str:
        return self.format(short=True)
