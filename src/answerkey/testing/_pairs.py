"""Strategies for (canonical, system) answer pairs that must judge correct or incorrect
with the default options (``answerkey.testing.strategies``).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from decimal import Decimal, localcontext
from itertools import groupby

from hypothesis import strategies as st

from answerkey.comparator import DEFAULT_EPSILON as _JUDGE_EPSILON
from answerkey.model import (
    NO_ANSWER,
    Answer,
    Date,
    DateTime,
    Number,
    Relation,
    String,
    Time,
    Value,
    type_name,
)
from answerkey.testing._values import (
    VALUE_TYPES,
    alternatives,
    column_values,
    reals,
    relations,
    sorted_relations,
    time_zone,
    values,
)

# The comparator's default, as an exact decimal: the pairs are built for it.
DEFAULT_EPSILON = Decimal(str(_JUDGE_EPSILON))


def _nudge(draw, value: Value, epsilon: Decimal) -> Value:
    """A value the epsilon rule matches to ``value``: reals move by at most |c|*epsilon; a
    date-time or time with a UTC offset may be the same instant written with another."""
    if not epsilon:
        return value
    if isinstance(value, (DateTime, Time)):
        return _reoffset(draw, value)
    if not isinstance(value, Number):
        return value
    if not value.is_real:
        if draw(st.integers(0, 9)) == 0:
            return Number.of(Decimal(value.value) + Decimal("0.0"))  # 5 as the real 5.0
        return value
    step = draw(st.integers(-1000, 1000))
    with localcontext() as context:
        context.prec = 200
        exact = Decimal(value.value)
        moved = exact + abs(exact) * epsilon * step / 1000
    return Number.of(moved)


def _reoffset(draw, value: DateTime | Time) -> DateTime | Time:
    """``value`` (if it has a UTC offset, one time in four) as the same instant at another offset."""
    offset = value.value.utcoffset()
    if offset is None or draw(st.integers(0, 3)):
        return value
    zone = time_zone(draw(st.integers(-(24 * 60 - 1), 24 * 60 - 1)))
    assert zone is not None
    if isinstance(value, Time):
        day = _dt.datetime.combine(_dt.date(2000, 1, 2), value.value)  # any day: times go round the clock
        return Time(day.astimezone(zone).timetz(), value.nanosecond)
    try:
        return DateTime(value.value.astimezone(zone), value.nanosecond)
    except OverflowError:  # near the years 1 and 9999 the instant has no reading at that offset
        return value


def _equivalent_relation(draw, canonical: Relation, epsilon: Decimal) -> Relation:
    if not canonical.rows:
        return Relation((), ordered=draw(st.booleans()))
    if canonical.scalar:
        value = _nudge(draw, canonical.rows[0][0], epsilon)
        shape = draw(st.integers(0, 2))
        if shape == 0:
            return Relation([[value]], scalar=True)
        return Relation([[value]] * shape)
    # Identical canonical tuples get identical system tuples: an ordered comparison collapses
    # runs of identical tuples, so nudging each copy differently would change the answer.
    nudged: dict = {}
    for row in canonical.rows:
        if row not in nudged:
            nudged[row] = [_nudge(draw, value, epsilon) for value in row]
    rows = [nudged[row] for row in canonical.rows]
    if not canonical.ordered:
        extra = draw(st.lists(st.sampled_from(canonical.rows), max_size=3))
        rows += [[_nudge(draw, value, epsilon) for value in row] for row in extra]
        rows = draw(st.permutations(rows))
    return _with_columns_added_and_permuted(draw, rows)


def _with_columns_added_and_permuted(draw, rows: list[list[Value]]) -> Relation:
    """The rows with up to two columns of any values added, all columns permuted."""
    width = draw(st.integers(0, 2))
    for _ in range(width):
        column = draw(
            st.lists(column_values(draw(st.sampled_from(VALUE_TYPES)), True), min_size=len(rows), max_size=len(rows))
        )
        rows = [row + [cell] for row, cell in zip(rows, column)]
    order = draw(st.permutations(range(len(rows[0]))))
    return Relation([[row[i] for i in order] for row in rows])


def _key_of(relation: Relation) -> Callable[[tuple[Value, ...]], tuple[Value, ...]]:
    keys = relation.order_by or ()
    return lambda row: tuple(row[column] for column in keys)


def _shuffled_within_ties(draw, canonical: Relation, epsilon: Decimal) -> Relation:
    """A system answer to ``canonical`` (ordered by sort keys): each tie group's tuples
    shuffled, some repeated, reals moved within epsilon; columns added and permuted."""
    nudged: dict = {}
    rows: list[list[Value]] = []
    for _, run in groupby(canonical.rows, key=_key_of(canonical)):
        group = list(run)
        group += draw(st.lists(st.sampled_from(group), max_size=2))
        for row in draw(st.permutations(group)):
            if row not in nudged:
                nudged[row] = [_nudge(draw, value, epsilon) for value in row]
            rows.append(list(nudged[row]))
    return _with_columns_added_and_permuted(draw, rows)


def _swapped_across_keys(draw, canonical: Relation) -> Relation:
    """``canonical``'s tuples with two of different tie groups swapped, columns permuted."""
    key = _key_of(canonical)
    runs = [list(run) for _, run in groupby(range(len(canonical.rows)), key=lambda i: key(canonical.rows[i]))]
    first, second = sorted(draw(st.lists(st.integers(0, len(runs) - 1), min_size=2, max_size=2, unique=True)))
    i, j = draw(st.sampled_from(runs[first])), draw(st.sampled_from(runs[second]))
    rows = [list(row) for row in canonical.rows]
    rows[i], rows[j] = rows[j], rows[i]
    order = draw(st.permutations(range(canonical.arity)))
    return Relation([[row[c] for c in order] for row in rows])


EQUIVALENT_KINDS = ("relation", "ordered", "sorted", "scalar", "alternatives")
"""The kinds of equivalent pairs ``equivalent_pairs`` draws (its ``kinds`` argument)."""
INEQUIVALENT_KINDS = (
    "missing tuple",
    "dropped column",
    "real beyond epsilon",
    "other string",
    "empty system",
    "empty canonical",
    "no answer",
    "out of key order",
)
"""The kinds of inequivalent pairs ``inequivalent_pairs`` draws (its ``kinds`` argument)."""


@st.composite
def equivalent_pairs(
    draw, max_cols: int = 3, max_rows: int = 5, kinds: tuple[str, ...] = EQUIVALENT_KINDS, nudge: bool = True
) -> tuple[Answer, Relation]:
    """(canonical, system) answers that ``judge`` must call correct: the system answer has
    its rows and columns shuffled, duplicate rows and extra columns added, reals moved
    within the default epsilon and date-times and times with offsets written at other
    offsets (rows keep their order for an ``ordered`` canonical answer, and their tie
    groups' order for a ``sorted`` one, ordered by sort keys); scalars may come back as
    one-value relations; a canonical ``(A OR B)`` is answered by one of its alternatives.
    ``nudge=False`` keeps numbers and offsets as they are; ``kinds`` picks from
    ``EQUIVALENT_KINDS``.
    """
    epsilon = DEFAULT_EPSILON if nudge else Decimal(0)
    kind = draw(st.sampled_from(kinds))
    if kind == "sorted":
        canonical = draw(sorted_relations(max_cols=max_cols, max_ties=max(1, max_rows // 2)))
        return canonical, _shuffled_within_ties(draw, canonical, epsilon)
    if kind == "alternatives":
        canonical = draw(alternatives())
        chosen = draw(st.sampled_from(canonical.options))
        return canonical, _equivalent_relation(draw, chosen, epsilon)
    if kind == "scalar":
        canonical = Relation([[draw(values(failures=True))]], scalar=True)
    else:
        canonical = draw(relations(max_cols=max_cols, max_rows=max_rows, ordered=kind == "ordered"))
    return canonical, _equivalent_relation(draw, canonical, epsilon)


def _fresh(column_type: str | None, taken: list[Value]) -> Value | None:
    """A value of the column's type that the default rule matches to none of ``taken``
    (None for booleans and failures, which have too few values): built directly, so that
    drawing never loops over candidates."""
    if column_type in ("boolean", "failure"):
        return None
    if column_type == "number":
        # Further from every taken number than epsilon allows: |s - c| > |c| * epsilon.
        largest = max((int(abs(Decimal(value.value))) for value in taken if isinstance(value, Number)), default=0)
        return Number.of(2 * largest + 10**15 + 7)
    if column_type == "date":
        dates_taken = {value.value for value in taken if isinstance(value, Date)}
        day = _dt.date(2999, 12, 31)
        while day in dates_taken:
            day -= _dt.timedelta(days=1)
        return Date(day)
    if column_type in ("datetime", "time"):
        # Naive ones with a nanosecond no taken value has: equal only to the same reading.
        nanoseconds = {value.nanosecond for value in taken if isinstance(value, (DateTime, Time))}
        fresh = next(n for n in range(1000) if n not in nanoseconds)
        if column_type == "datetime":
            return DateTime(_dt.datetime(9999, 12, 31, 23, 59, 59, 999999), fresh)
        return Time(_dt.time(23, 59, 59, 999999), fresh)
    texts = {value.text for value in taken if isinstance(value, String)}
    return String(next(f"fresh-{n}" for n in range(len(texts) + 1) if f"fresh-{n}" not in texts))


@st.composite
def inequivalent_pairs(
    draw, max_cols: int = 3, max_rows: int = 5, kinds: tuple[str, ...] = INEQUIVALENT_KINDS
) -> tuple[Answer, Answer]:
    """(canonical, system) answers that ``judge`` must call incorrect: a canonical tuple the
    system answer lacks, a column dropped, a real moved beyond epsilon, a different string,
    an empty answer for a non-empty one (and the reverse), ``NO_ANSWER``, or for an answer
    ordered by a sort key, two tuples of different keys swapped (the key column is the only
    column of dates, so that no other mapping puts them back in order).
    """
    epsilon = DEFAULT_EPSILON
    kind = draw(st.sampled_from(kinds))
    if kind == "out of key order":
        canonical = draw(
            sorted_relations(
                max_cols=max_cols, min_groups=2, max_keys=1, key_types=("date",), types=_NOT_DATES, nil=False
            )
        )
        return canonical, _swapped_across_keys(draw, canonical)
    canonical = draw(relations(min_rows=1, max_cols=max_cols, max_rows=max_rows))
    if kind == "no answer":
        return canonical, NO_ANSWER
    if kind == "empty system":
        return canonical, Relation(())
    if kind == "empty canonical":
        return Relation(()), _equivalent_relation(draw, canonical, epsilon)
    if kind == "real beyond epsilon":
        value = draw(reals())
        if value.value == 0:  # zero has no neighbour beyond a relative epsilon: use 1.5 (never filtered)
            value = Number.parse("1.5")
        step = draw(st.integers(1001, 10**6))
        with localcontext() as context:
            context.prec = 200
            moved = value.value + abs(value.value) * epsilon * step / 1000 * draw(st.sampled_from([1, -1]))
        return Relation([[value]], scalar=True), Relation([[Number.of(moved)]], scalar=True)
    if kind == "other string":
        text = draw(st.text(max_size=10))
        other = draw(st.text(max_size=10))
        if other == text:  # made different directly rather than filtered
            other += "x"
        return Relation([[String(text)]], scalar=True), Relation([[String(other)]], scalar=True)
    if kind == "missing tuple":
        system = _equivalent_relation(draw, canonical, epsilon)
        taken = [value for row in system.rows for value in row]
        for column in draw(st.permutations(range(canonical.arity))):
            types = {type_name(value) for value in canonical.columns[column]} - {None}
            fresh = _fresh(next(iter(types), None), taken)
            if fresh is not None:
                row = list(draw(st.sampled_from(canonical.rows)))
                row[column] = fresh
                return Relation(list(canonical.rows) + [row]), system
    # "dropped column", and the fallback for an all-boolean relation.
    dropped = draw(st.integers(0, canonical.arity - 1))
    rows = [row[:dropped] + row[dropped + 1 :] for row in canonical.rows]
    return canonical, Relation(rows if canonical.arity > 1 else ())


_NOT_DATES = tuple(kind for kind in VALUE_TYPES if kind != "date")
