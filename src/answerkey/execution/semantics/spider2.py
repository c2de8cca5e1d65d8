"""The ``spider2`` semantics: Spider 2.0's ``compare_pandas_table``, column by column.

Every gold column (or only ``condition_cols``) must equal some predicted column, numbers
within 0.01 (absolute), missing values counting as 0, after the CSV round trip Spider 2.0's evaluator puts every result
through (pandas writes the result to CSV and reads it back), emulated here without pandas;
each column in row order, or sorted when ``ignore_order``. The rule is that of
spider2-lite/evaluation_suite/evaluate.py at commit e12c5f1e (``compare_pandas_table``,
lines 84-130; several golds: ``compare_multi_pandas_table``, lines 67-81, read by
``answerkey.execution.spider2_lite``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from answerkey.errors import plural
from answerkey.execution.semantics._base import Decision, Item, Semantics

SPIDER2_TOLERANCE = 0.01
"""Spider 2.0's tolerance: numbers match when ``math.isclose(a, b, abs_tol=0.01)``."""


# Spider 2.0 reads results back from CSV with pandas' defaults: these texts are missing values.
_CSV_MISSING = frozenset(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A"}
    | {"NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
)
_CSV_INTEGER = re.compile(r" *[+-]?\d+ *")
_CSV_REAL = re.compile(r" *[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity) *", re.IGNORECASE)
_CSV_TRUE = frozenset({"True", "TRUE", "true"})
_CSV_FALSE = frozenset({"False", "FALSE", "false"})
# pandas reads integers into 64 bits (signed, or unsigned above the signed range).
_CSV_INTEGERS = range(-(2**63), 2**64)
_NAN = float("nan")


def _csv_written(values: Sequence[object]) -> list[str]:
    """A column as pandas writes it to CSV after ``read_sql_query``: NULL empty; a column of
    numbers with a real or a NULL as floats (``repr``); anything else as ``str``."""
    present = [value for value in values if value is not None]
    numeric = bool(present) and all(type(value) in (int, float) for value in present)
    as_real = numeric and (len(present) < len(values) or any(type(value) is float for value in present))
    if as_real:
        return ["" if value is None else repr(float(value)) for value in values]  # type: ignore[arg-type]
    return ["" if value is None else repr(value) if type(value) is float else str(value) for value in values]


def pandas_csv_column(texts: Sequence[str]) -> tuple[str, list[object]]:
    """A column as pandas' ``read_csv`` reads it, with its kind (int, float, bool, object):
    missing texts NaN; all integers ints (floats if one is missing); all numbers floats;
    all ``True``/``False`` booleans; otherwise the texts.

    >>> pandas_csv_column(["1", "", "3"]), pandas_csv_column(["007", "x"])
    (('float', [1.0, nan, 3.0]), ('object', ['007', 'x']))
    """
    missing = list(map(_CSV_MISSING.__contains__, texts))
    some_missing = any(missing)
    present = [text for text, gone in zip(texts, missing) if not gone] if some_missing else texts
    if not texts:
        return "object", []
    if not present:
        return "float", [_NAN] * len(texts)
    if all(_CSV_INTEGER.fullmatch(text) for text in present):
        integers = [None if gone else int(text) for text, gone in zip(texts, missing)]
        if some_missing:
            return "float", [_NAN if number is None else float(number) for number in integers]
        fits = all(number in _CSV_INTEGERS for number in integers)
        return "int" if fits else "object", list(integers)
    if all(_CSV_REAL.fullmatch(text) for text in present):
        return "float", [_NAN if gone else float(text) for text, gone in zip(texts, missing)]
    if all(text in _CSV_TRUE or text in _CSV_FALSE for text in present):
        truths: list[object] = [_NAN if gone else text in _CSV_TRUE for text, gone in zip(texts, missing)]
        return "object" if some_missing else "bool", truths
    if not some_missing:
        return "object", list(texts)
    return "object", [_NAN if gone else text for text, gone in zip(texts, missing)]


def _csv_round_trip(values: Sequence[object]) -> tuple[str, list[object]]:
    """``pandas_csv_column(_csv_written(values))``, without the texts for a column of 64-bit integers
    (``str`` of each reads back as the same int) or of finite floats (``repr`` of each reads
    back as the same float), most columns of a result. (Speed: the texts and their regular
    expressions were most of Spider 2.0's rule.)"""
    kinds = set(map(type, values))
    if kinds == {int} and min(values) in _CSV_INTEGERS and max(values) in _CSV_INTEGERS:  # type: ignore[type-var, operator]
        return "int", list(values)
    if kinds == {float} and all(map(math.isfinite, values)):  # type: ignore[arg-type]
        return "float", list(values)
    if kinds == {str}:  # the texts written are the values
        return pandas_csv_column(values)  # type: ignore[arg-type]
    return pandas_csv_column(_csv_written(values))


def _csv_vectors(
    rows: Sequence[tuple[object, ...]], width: int, columns: Sequence[int]
) -> list[tuple[str, list[object]]]:
    """The ``columns`` of a result as Spider 2.0 compares them, each with its kind: each column
    after the CSV round trip, then the frame transposed into lists (pandas makes every value
    a float when the columns are all numbers and one holds floats)."""
    by_column = list(zip(*rows)) if rows else [()] * width
    read = [_csv_round_trip(by_column[column]) for column in columns]
    kinds = {kind for kind, _ in read}
    if kinds and kinds <= {"int", "float"} and "float" in kinds:
        return [("float", list(map(float, values))) for _, values in read]  # type: ignore[arg-type]
    return read


def _spider2_key(value: object) -> tuple[bool, str, bool]:
    return value is None, str(value), isinstance(value, (int, float))


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _normalized(values: list[object]) -> list[object]:
    """A column as ``vectors_match`` compares it: each missing value is the integer 0
    (``normalize`` in evaluate.py, lines 87-90 at e12c5f1e), so NULL equals 0, and 0.004.
    (Speed: the types of its values tell most columns have none; floats are tested in C.)"""
    kinds = set(map(type, values))
    if kinds == {float}:
        if not any(map(math.isnan, values)):  # type: ignore[arg-type]
            return values
    elif type(None) not in kinds and not any(issubclass(kind, float) for kind in kinds):
        return values
    return [0 if _missing(value) else value for value in values]


# Integers below this size have a float (float() raises OverflowError a little under 2**1024,
# where rounding reaches it): a bound on the safe side.
_FLOAT_INTEGERS = 2**1023


def _beyond_floats(value: object) -> bool:
    return isinstance(value, int) and not -_FLOAT_INTEGERS < value < _FLOAT_INTEGERS


class _Vector:
    """A column as ``vectors_match`` compares it, made once for every column it is compared
    with: missing values made 0, sorted by text when ignoring order; and whether it holds an
    integer beyond floats (only a column of kind ``object`` holding ints can: integers of
    other kinds fit 64 bits)."""

    __slots__ = ("values", "beyond_floats")

    def __init__(self, kind: str, values: list[object], ignore_order: bool) -> None:
        normalized = _normalized(values)
        self.values = sorted(normalized, key=_spider2_key) if ignore_order else normalized
        self.beyond_floats = (
            kind == "object" and int in set(map(type, normalized)) and any(map(_beyond_floats, normalized))
        )


def _vectors_match(gold: _Vector, predicted: _Vector) -> bool:
    """Spider 2.0's ``vectors_match`` of two columns made ``_Vector``s: the same length, and
    pairwise numbers within ``SPIDER2_TOLERANCE``, or equal."""
    gold_values, predicted_values = gold.values, predicted.values
    if len(gold_values) != len(predicted_values):
        return False
    if gold_values == predicted_values and not gold.beyond_floats:
        # Speed (most pairs of a correct prediction): each pair equal by ``==`` (or the same
        # object) passes one of the tests below, unless an integer has no float (OverflowError).
        return True
    for a, b in zip(gold_values, predicted_values):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            try:
                if not math.isclose(float(a), float(b), abs_tol=SPIDER2_TOLERANCE):
                    return False
            except OverflowError:  # an integer beyond floats: the official script fails, scoring 0
                return False
        elif a != b:
            return False
    return True


def _matched(vector: _Vector, position: int, predicted: list[_Vector]) -> bool:
    """Whether some predicted column matches ``vector``, gold column ``position``: the
    predicted column there is tried first (speed: in a correct prediction it is the one that
    matches, most of the time; the order changes no answer)."""
    if position < len(predicted) and _vectors_match(vector, predicted[position]):
        return True
    return any(_vectors_match(vector, other) for index, other in enumerate(predicted) if index != position)


def _decide(item: Item) -> Decision:
    width = item.gold_width
    selected = list(item.condition_cols) if item.condition_cols else list(range(width))
    for column in selected:
        if type(column) is not int or not 0 <= column < width:
            raise ValueError(
                f"condition column {column!r} is not a column of the gold result, which has "
                f"{plural(width, 'column')} (condition columns count from 0)"
            )
    if not selected:
        return Decision("spider2", True, "the gold has no columns to match")
    if len(item.gold_rows) != len(item.predicted_rows):
        counts = f"the gold has {plural(len(item.gold_rows), 'row')}, the prediction {len(item.predicted_rows):,}"
        return Decision("spider2", False, counts)
    ignore_order = item.ignore_order
    gold = [_Vector(kind, values, ignore_order) for kind, values in _csv_vectors(item.gold_rows, width, selected)]
    if item.identical and not item.condition_cols and item.predicted_width == width == len(gold):
        # Speed: the same values, types and texts give the same CSV round trip.
        predicted = gold
    else:
        read = _csv_vectors(item.predicted_rows, item.predicted_width, range(item.predicted_width))
        predicted = [_Vector(kind, values, ignore_order) for kind, values in read]
    how = "as sorted values" if ignore_order else "in row order"
    unmatched = [column for column, vector in zip(selected, gold) if not _matched(vector, column, predicted)]
    names = item.gold.columns if len(item.gold.columns) == width else None

    def named(column: int) -> str:
        return f"{column + 1} ({names[column]})" if names is not None else str(column + 1)

    if unmatched:
        shown = ", ".join(named(column) for column in unmatched)
        columns = "column" if len(unmatched) == 1 else "columns"
        verb = "matches" if len(unmatched) == 1 else "match"
        return Decision("spider2", False, f"gold {columns} {shown} {verb} no predicted column")
    which = "each gold column" if not item.condition_cols else "each of gold columns " + ", ".join(map(named, selected))
    return Decision("spider2", True, f"{which} equals a predicted column, {how}, numbers within {SPIDER2_TOLERANCE}")


class Spider2(Semantics):
    """Spider 2.0's rule."""

    name = "spider2"
    rule = (
        "Spider 2.0's compare_pandas_table: every gold column (or condition column) equals some "
        "predicted column, numbers within 0.01, after a CSV round trip; sorted when ignore_order"
    )
    official = "Spider 2.0's compare_pandas_table"

    def decide(self, item: Item) -> Decision:
        """Each gold column (or condition column) equal to some predicted column."""
        return _decide(item)
