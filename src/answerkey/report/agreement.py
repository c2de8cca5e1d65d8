"""How often the semantics of ``answerkey sql`` agree, and which rule decided what: the two
charts of counts the HTML overview draws for a run judged under several semantics.

``agreement_chart`` counts, for each pair of semantics, the items on which their verdicts are
the same, and the items on which all agree; items without verdicts (a gold that failed) are
not counted. ``deciding_rules_chart`` reads each disagreement (the report's ``disagreement``
text, one line ``  SEMANTICS: VERDICT: REASON`` per semantics) and counts, per semantics, its
verdicts by the kind of reason that decided them: the reason up to its first ``": "`` (what
follows is the detail: a database's error message, which rows), numbers written ``N``, and a
list of numbered columns ``1 (name), 2 (age)`` written ``N``.

>>> reason_kind("gold columns 1 (name), 2 (net_worth) match no predicted column")
'gold columns N match no predicted column'
>>> reason_kind("the predicted query failed: no such column: nam")
'the predicted query failed'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations

from answerkey.report.workbook import CountChart

REASON_KIND_CHARS = 120
"""A kind of reason is cut to this many characters."""
VERDICTS = ("correct", "incorrect")


def reason_kind(reason: str) -> str:
    """The kind of a semantics' reason (see the module's docstring)."""
    text = reason.split(": ", 1)[0]
    text = re.sub(r"\d+(?:\.\d+)?", "N", text)
    text = re.sub(r"N \([^()]*\)", "N", text)
    text = re.sub(r"N(?:, N)+", "N", text)
    return text if len(text) <= REASON_KIND_CHARS else text[:REASON_KIND_CHARS] + "…"


def agreement_chart(verdicts: Sequence[Mapping[str, str]], names: Sequence[str]) -> CountChart:
    """For each pair of ``names`` (in their order), on how many items (those with a verdict
    under every one of ``names``) their verdicts are the same; then on how many all agree.

    >>> chart = agreement_chart([{"a": "correct", "b": "correct", "c": "incorrect"},
    ...                          {"a": "incorrect", "b": "correct", "c": "incorrect"}, {}], "abc")
    >>> chart.groups, chart.total
    ([('pairs of semantics', [('a = b', 1), ('a = c', 1), ('b = c', 0)]), ('every semantics', [('all agree', 0)])], 2)
    """
    decided = [item for item in verdicts if all(item.get(name) in VERDICTS for name in names)]
    pairs = [(f"{a} = {b}", sum(item[a] == item[b] for item in decided)) for a, b in combinations(names, 2)]
    every = sum(len({item[name] for name in names}) == 1 for item in decided)
    return CountChart(
        "agreement-chart",
        "How often the semantics agree",
        f"For each pair of semantics, the items (of {len(decided)} with a verdict under each) on which "
        "both give the same verdict; then the items on which all agree.",
        [("pairs of semantics", pairs), ("every semantics", [("all agree", every)])],
        len(decided),
    )


def _decisions(disagreement: str, names: Sequence[str]) -> list[tuple[str, str, str]]:
    """(semantics, verdict, reason) of each ``  SEMANTICS: VERDICT: REASON`` line."""
    found = []
    for line in disagreement.split("\n")[1:]:
        if not line.startswith("  ") or line.startswith("   "):
            break  # the decisions end where the explanations begin
        for name in names:
            verdict, _, reason = line[2:].removeprefix(f"{name}: ").partition(": ")
            if line[2:].startswith(f"{name}: ") and verdict in VERDICTS:
                found.append((name, verdict, reason))
                break
    return found


def deciding_rules_chart(disagreements: Sequence[str | None], names: Sequence[str]) -> CountChart:
    """For the items the semantics disagree on (a ``disagreement`` text; None: they agree),
    per semantics, how many it decided with each verdict and kind of reason, most first.

    >>> text = "correct under a; incorrect under b\\n  a: correct: same rows\\n  b: incorrect: 2 rows, not 3"
    >>> deciding_rules_chart([text, None, text], ["a", "b"]).groups
    [('a', [('correct: same rows', 2)]), ('b', [('incorrect: N rows, not N', 2)])]
    """
    counts: dict[str, Counter[str]] = {name: Counter() for name in names}
    items = 0
    for text in disagreements:
        if text is None:
            continue
        items += 1
        for name, verdict, reason in _decisions(text, names):
            counts[name][f"{verdict}: {reason_kind(reason)}"] += 1
    return CountChart(
        "rules-chart",
        "Which rule decided what",
        f"On the {items} items the semantics disagree on: per semantics, how many it decided "
        "with each verdict and kind of reason.",
        [(name, sorted(counts[name].items(), key=lambda pair: (-pair[1], pair[0]))) for name in names if counts[name]],
        items,
    )
