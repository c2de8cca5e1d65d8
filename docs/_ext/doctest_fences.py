"""A griffe extension for the API reference: answerkey's docstrings hold `>>>` examples in
running text (the doctests collect them); this puts each run of example lines, with the output
below it, in a ```pycon fence so that the site shows them as code."""

from __future__ import annotations

from typing import Any

import griffe

__all__ = ["DoctestFences", "fence_examples"]


def fence_examples(text: str) -> str:
    """Wrap each block of `>>>` lines and their output (up to a blank line) in a pycon fence.

    >>> print(fence_examples("Text.\\n\\n>>> 1 + 1\\n2\\n\\nMore."))
    Text.
    <BLANKLINE>
    ```pycon
    >>> 1 + 1
    2
    ```
    <BLANKLINE>
    More.
    """
    lines = text.splitlines()
    out: list[str] = []
    fenced = False
    in_fence = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        if not in_fence and not fenced and stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            fenced = True
        elif fenced and not stripped:
            out.append(f"{indent}```")
            fenced = False
        out.append(line)
    if fenced:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the `>>>` examples of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_examples(obj.docstring.value)
