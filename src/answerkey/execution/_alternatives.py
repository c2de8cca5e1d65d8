"""defog sql-eval's alternatives in a gold query: ``SELECT {a,b} FROM t`` accepts ``a``, ``b``
or ``a, b`` (its ``eval/eval.py``, ``get_all_minimal_queries`` and ``find_bracket_indices``,
lines 123-174 at commit b833324).

The official rule, as text operations: the query is cut at every ``;`` (strings included),
each part stripped and the empty ones dropped. In each part, the first ``{`` and the first
``}`` after it delimit the alternatives (a part without both is one gold as it is): the text
between them is cut at every ``,`` (spaces kept), and every non-empty combination of the pieces,
smaller ones first and each in its pieces' order, joined by ``", "``, takes their place; in
the text after the braces, ``GROUP BY {}`` becomes ``GROUP BY`` and the same columns. Only the
first pair of braces of a part is read. The golds are the parts' golds, in order.
"""

from __future__ import annotations

import itertools

from answerkey.limits import MAX_GOLDS


def defog_alternatives(query: str) -> list[str]:
    """The golds defog sql-eval makes of ``query``, in its order; ``ValueError`` beyond
    ``MAX_GOLDS`` of them (``k`` alternatives make ``2**k - 1``).

    >>> defog_alternatives("SELECT {name,id} FROM t GROUP BY {}")
    ['SELECT name FROM t GROUP BY name', 'SELECT id FROM t GROUP BY id', 'SELECT name, id FROM t GROUP BY name, id']
    >>> defog_alternatives("SELECT a FROM t; SELECT b FROM u;")
    ['SELECT a FROM t', 'SELECT b FROM u']
    """
    golds: list[str] = []
    for part in query.split(";"):
        part = part.strip()
        if not part:
            continue
        start = part.find("{")
        end = part.find("}", start + 1)
        if start == -1 or end == -1:
            golds.append(part)
            continue
        pieces = part[start + 1 : end].split(",")
        if len(golds) + 2 ** min(len(pieces), 64) - 1 > MAX_GOLDS:
            raise ValueError(f"the gold's {{...}} alternatives make more than {MAX_GOLDS} golds")
        before, after = part[:start], part[end + 1 :]
        for size in range(1, len(pieces) + 1):
            for chosen in itertools.combinations(pieces, size):
                columns = ", ".join(chosen)
                golds.append(before + columns + after.replace("GROUP BY {}", f"GROUP BY {columns}"))
    if len(golds) > MAX_GOLDS:
        raise ValueError(f"the gold's parts make more than {MAX_GOLDS} golds")
    return golds


def expanded_golds(golds: tuple[str, ...]) -> tuple[str, ...]:
    """An item's golds with each replaced by its ``defog_alternatives``, in order; a gold with
    none (only ``;`` and spaces) stays as it is, to fail as written. ``ValueError`` beyond
    ``MAX_GOLDS``."""
    made = tuple(alternative for gold in golds for alternative in (defog_alternatives(gold) or [gold]))
    if len(made) > MAX_GOLDS:
        raise ValueError(f"the golds' {{...}} alternatives make more than {MAX_GOLDS} golds")
    return made
