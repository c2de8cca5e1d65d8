"""Two results side by side, aligned: the rows the comparator matched on the same line.

The HTML report's detail view shows a canonical (gold) and a system (predicted) result as one
table, a line per row: a canonical row and the system row that matches it under the column
mapping, then what is left. Each line has a status:

- ``matched``: the rows match (one side may be empty: the other side's row matches a row
  shown on another line, a duplicate);
- ``missing``: a canonical row that no system row matches;
- ``extra``: a system row that matches no canonical row;
- ``different``: a missing canonical row beside an extra system row equal to it in every
  value but numbers (the comparator's own pairing for "numbers outside tolerance"); ``off``
  lists the system columns whose numbers differ beyond epsilon.

Which rows are missing and extra is the comparator's decision (``comparator.tuples.missing``
over the rows reduced to the mapped columns, as ``closest_mapping`` finds them); the
alignment only places them. Lines follow the canonical rows' order, then the system rows not
yet placed in theirs. A matched canonical row is placed beside an unused system row with the
same values (by ``MatchRule.key``); when no system row has them (a real matched within
tolerance), beside the first unused matching one among the first ``PARTNER_SEARCH`` of its
shape whose first number lies in its tolerance window; failing that (a duplicate) it stands
alone, still ``matched``.

>>> from answerkey.comparator import MatchRule
>>> from answerkey.model import Relation
>>> gold = Relation.from_rows([["Ann", 30], ["Bob", 41.0], ["Cy", 7]]).rows
>>> predicted = Relation.from_rows([[41.5, "Bob"], [30, "Ann"], [9, "Di"]]).rows
>>> for line in align(gold, predicted, (1, 0), MatchRule()):
...     print(line)
Line(status='matched', canonical=0, system=1, off=())
Line(status='different', canonical=1, system=0, off=(0,))
Line(status='missing', canonical=2, system=None, off=())
Line(status='extra', canonical=None, system=2, off=())
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Sequence
from decimal import Decimal
from operator import itemgetter
from typing import Any, NamedTuple

from answerkey.comparator import MatchRule, Verdict
from answerkey.comparator.search import closest_mapping, find_mapping
from answerkey.comparator.tuples import missing
from answerkey.grammar.render import render_value
from answerkey.model import Alternatives, Number, Relation, Value

ALIGNED_LINES = 200
"""Lines of the aligned view ``judge`` shows (``sql`` shows its ``--show-rows N``)."""
ALIGNED_CELL_CHARS = 500
"""A value in the aligned view is shown up to this many characters."""
PARTNER_SEARCH = 1000
"""How many system rows in a value's tolerance window are tried to place a matched canonical row."""
STATUSES = ("matched", "missing", "extra", "different")

Row = tuple[Value, ...]
_NUMBER = object()  # stands for any number in a row's shape


class Line(NamedTuple):
    """One line of the aligned view: its status, the canonical and the system row (0-based
    indexes into each side's rows, None for none), and the system columns out of tolerance."""

    status: str
    canonical: int | None
    system: int | None
    off: tuple[int, ...] = ()


def column_mapping(canonical: Sequence[Row], system: Sequence[Row], rule: MatchRule) -> tuple[int, ...] | None:
    """The comparator's mapping of canonical columns onto system columns, the rows compared
    as sets: one under which they match, else the closest (``closest_mapping``); None when
    the canonical rows have more columns than the system rows, or a side has no rows.

    >>> from answerkey.model import Relation
    >>> rows = Relation.from_rows([["a", 1], ["b", 2]]).rows
    >>> column_mapping(rows, [row[::-1] for row in rows], MatchRule())
    (1, 0)
    """
    if not canonical or not system or len(canonical[0]) > len(system[0]):
        return None
    found = find_mapping(canonical, system, rule)
    return found if found is not None else closest_mapping(canonical, system, rule)[0]


def _shape(row: Row, rule: MatchRule) -> tuple:
    """A row with its numbers blanked out (two rows equal but for numbers share a shape)."""
    return tuple(_NUMBER if type(value) is Number else rule.key(value) for value in row)


def _key(row: Row, rule: MatchRule) -> tuple:
    return tuple(map(rule.key, row))


def _first_number(row: Row, shape: tuple) -> Decimal:
    number = row[shape.index(_NUMBER)]
    if not isinstance(number, Number):  # a shape's _NUMBER stands for a Number
        raise TypeError(f"not a number: {number!r}")
    return Decimal(number.value)


class _TolerantIndex:
    """The matched system rows that hold numbers, by shape, each shape's rows sorted by their
    first number: the rows that may match a canonical row within tolerance are those whose
    first number lies in its tolerance window (found by bisection, as ``TupleIndex`` does)."""

    def __init__(self, indexes: Sequence[int], reduced: Sequence[Row], rule: MatchRule) -> None:
        self.reduced, self.rule = reduced, rule
        groups: dict[tuple, list[tuple[Decimal, int]]] = {}
        for index in indexes:
            row = reduced[index]
            shape = _shape(row, rule)
            if _NUMBER in shape:
                groups.setdefault(shape, []).append((_first_number(row, shape), index))
        self.groups = {}
        for shape, pairs in groups.items():
            pairs.sort(key=itemgetter(0))
            self.groups[shape] = ([value for value, _ in pairs], [index for _, index in pairs])

    def partner(self, row: Row, shape: tuple, used: set[int]) -> int | None:
        """The first unused row of ``shape`` matching ``row`` among the first
        ``PARTNER_SEARCH`` in its window (marked used), or None."""
        group = self.groups.get(shape)
        if group is None:
            return None
        values, indexes = group
        window = self.rule.window(_first_number(row, shape), canonical=True)
        low, high = (
            (0, len(values)) if window is None else (bisect_left(values, window[0]), bisect_right(values, window[1]))
        )
        for position in range(low, min(high, low + PARTNER_SEARCH)):
            index = indexes[position]
            if index not in used and all(map(self.rule.match, row, self.reduced[index])):
                used.add(index)
                return index
        return None


def align(canonical: Sequence[Row], system: Sequence[Row], mapping: Sequence[int], rule: MatchRule) -> list[Line]:
    """The lines of the aligned view of ``canonical`` and ``system`` rows, canonical column
    ``i`` read from system column ``mapping[i]`` (see the module's docstring)."""
    reduced = [tuple(row[j] for j in mapping) for row in system]
    distinct_canonical, distinct_reduced = list(dict.fromkeys(canonical)), list(dict.fromkeys(reduced))
    absent: set[Row] = set()
    extra: set[Row] = set()
    if distinct_canonical and distinct_reduced:
        absent = set(missing(distinct_canonical, distinct_reduced, rule, "system"))
        extra = set(missing(distinct_reduced, distinct_canonical, rule, "canonical"))
    else:
        absent, extra = set(distinct_canonical), set(distinct_reduced)
    by_key: dict[tuple, deque[int]] = {}  # matched system rows by their values' keys
    extra_by_shape: dict[tuple, deque[int]] = {}  # extra system rows by shape
    for index, row in enumerate(reduced):
        if row in extra:
            extra_by_shape.setdefault(_shape(row, rule), deque()).append(index)
        else:
            by_key.setdefault(_key(row, rule), deque()).append(index)
    tolerant = _TolerantIndex([index for index, row in enumerate(reduced) if row not in extra], reduced, rule)
    used: set[int] = set()

    def unused(queue: deque[int] | None) -> int | None:
        while queue:
            index = queue.popleft()
            if index not in used:
                used.add(index)
                return index
        return None

    lines: list[Line] = []
    for number, row in enumerate(canonical):
        if row in absent:
            partner = unused(extra_by_shape.get(_shape(row, rule)))
            if partner is None:
                lines.append(Line("missing", number, None))
            else:
                off = tuple(mapping[c] for c, value in enumerate(row) if not rule.match(value, reduced[partner][c]))
                lines.append(Line("different", number, partner, off))
            continue
        key = _key(row, rule)
        partner = unused(by_key.get(key))
        if partner is None and key not in by_key and _NUMBER in (shape := _shape(row, rule)):
            # No system row has these very values: one matches within tolerance. (Were there
            # such a row, all of them are used: this row is a duplicate.)
            partner = tolerant.partner(row, shape, used)
        lines.append(Line("matched", number, partner))
    for index, row in enumerate(reduced):
        if index not in used:
            lines.append(Line("extra" if row in extra else "matched", None, index))
    return lines


def _text(text: str) -> str:
    return text if len(text) <= ALIGNED_CELL_CHARS else text[:ALIGNED_CELL_CHARS] + "…"


def _cell(value: Value) -> str:
    return _text(render_value(value))


def aligned_document(
    canonical: Sequence[Row],
    system: Sequence[Row],
    mapping: Sequence[int],
    rule: MatchRule,
    shown: int,
    columns: tuple[Sequence[str], Sequence[str]] | None = None,
    sides: tuple[str, str] = ("canonical", "system"),
) -> dict[str, Any]:
    """The aligned view as plain values for the HTML page: the names of the two sides
    (``sides``), each side's column names (``columns``; default ``1``, ``2``, ...), the
    mapping (system column, 0-based, of each canonical column), the first ``shown`` lines
    with their values as CAS text, how many lines of each status there are in all, each
    side's row count and how many lines were left out.

    >>> from answerkey.model import Relation
    >>> gold = Relation.from_rows([["a"], ["b"]]).rows
    >>> document = aligned_document(gold, Relation.from_rows([["b"], ["c"]]).rows, (0,), MatchRule(), 1)
    >>> document["lines"]
    [{'status': 'missing', 'canonical': ['"a"'], 'system': None, 'off': []}]
    >>> document["counts"], document["left_out"]
    ({'matched': 1, 'missing': 1, 'extra': 1, 'different': 0}, 2)
    """
    lines = align(canonical, system, mapping, rule)
    counts = dict.fromkeys(STATUSES, 0)
    for line in lines:
        counts[line.status] += 1
    width = (len(canonical[0]) if canonical else len(mapping), len(system[0]) if system else 0)
    names = columns or tuple([str(number + 1) for number in range(count)] for count in width)
    names = tuple([_text(name) for name in side] for side in names)
    return {
        "sides": list(sides),
        "columns": [names[0], names[1]],
        "mapping": list(mapping),
        "lines": [
            {
                "status": line.status,
                "canonical": None if line.canonical is None else [_cell(value) for value in canonical[line.canonical]],
                "system": None if line.system is None else [_cell(value) for value in system[line.system]],
                "off": list(line.off),
            }
            for line in lines[:shown]
        ],
        "counts": counts,
        "rows": [len(canonical), len(system)],
        "left_out": max(0, len(lines) - shown),
        "shown": shown,
    }


def aligned_verdict(verdict: Verdict, shown: int) -> dict[str, Any] | None:
    """The aligned view of the two answers a verdict compared, under its mapping (a correct
    verdict's, or its explanation's closest one); None when the answers are not two relations
    whose columns map (a canonical answer wider than the system's, ``no_answer``).

    >>> from answerkey.comparator import judge
    >>> document = aligned_verdict(judge('((1 "a") (2 "b"))', '(("b" 2.5) ("a" 1))'), 10)
    >>> document["mapping"], [line["status"] for line in document["lines"]]
    ([1, 0], ['matched', 'different'])
    """
    canonical, system, rule = verdict.canonical, verdict.system, verdict.rule or MatchRule()
    mapping = verdict.mapping
    if isinstance(canonical, Alternatives):
        explanations = verdict.explanations()
        chosen = verdict.alternative if verdict.correct else (explanations[0].alternative if explanations else None)
        canonical = None if chosen is None else canonical.options[chosen]
    if not isinstance(canonical, Relation) or not isinstance(system, Relation):
        return None
    if mapping is None:
        explanations = verdict.explanations()
        mapping = explanations[0].mapping if explanations else column_mapping(canonical.rows, system.rows, rule)
    if mapping is None:
        if canonical.rows and system.rows:
            return None
        mapping = ()  # a side is empty: the other side's rows are all missing, or all extra
    return aligned_document(canonical.rows, system.rows, mapping, rule, shown)
