"""graphrag-eval 6.x's rules for scoring one actual step against one reference step
(``--graphrag-eval 6``). They are read from graphrag-eval's ``graphrag_eval/steps/`` at
6.4.1a0 (commit 7e6eae8; 6.6.1 behaves the same) and written here in our own words; the docs
(``docs/switching-graphrag-eval.md``) cite each rule's line.

Unlike answerkey's own rules (``answerkey.steps.outputs``), these work on the steps as
given (dicts), follow 6.x's flaws on purpose (reals truncated to 5 decimals, a URI equal to a
literal of the same text, rows compared as the concatenated text of their values) and give
0.0 where graphrag-eval 6.x stops with an exception (a missing key, output that is not JSON).

>>> compare_step({"name": "calc", "output": "42"}, {"name": "other", "output": "42"})
1.0
>>> ref = {"name": "retrieval", "output": '[{"id": 1}, {"id": 2}]'}
>>> compare_step(ref, {"name": "retrieval", "args": {"k": 1}, "output": '[{"id": 1}]'})
1.0
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from answerkey.adapters.sparql import XSD as _XSD

# Datatypes whose literals 6.x reads as Python integers, as reals truncated to 5 decimals, as booleans.
_INTEGER_TYPES = frozenset(
    _XSD + name
    for name in (
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    )
)
_REAL_TYPES = frozenset(_XSD + name for name in ("decimal", "double", "float"))
_BOOLEAN_TYPE = _XSD + "boolean"
# More candidate column orders than this are not tried (6.x tries them all, without bound):
# such a step scores 0.0.
MAX_COLUMN_ORDERS = 100_000


def _truncated(number: float) -> float:
    # 6.x cuts a real to 5 decimals (no rounding): 0.123459 and 0.12345 are one value.
    if not math.isfinite(number):
        return number
    return math.trunc(number * 100_000) / 100_000


def term_value(term: Any) -> Any:
    """A SPARQL results term as 6.x compares it: typed numbers and booleans as Python values,
    anything else as its ``value`` text (a URI and a literal of the same text are one value).

    >>> term_value({"type": "literal", "value": "2.1234567", "datatype": _XSD + "double"})
    2.12345
    >>> term_value({"type": "uri", "value": "urn:x"}) == term_value({"type": "literal", "value": "urn:x"})
    True
    """
    if not isinstance(term, Mapping):
        return term
    value: Any = term.get("value")
    datatype = term.get("datatype")
    if term.get("type") not in ("literal", "typed-literal") or not datatype:
        return value
    try:
        if datatype in _INTEGER_TYPES:
            return int(value)
        if datatype in _REAL_TYPES:
            return _truncated(float(value))
    except (ValueError, TypeError, OverflowError):
        return value
    if datatype == _BOOLEAN_TYPE and isinstance(value, str):
        return value.lower() in ("true", "1")
    return value


def _rows(variables: Sequence[str], bindings: Sequence[Any]) -> list[str]:
    """Each binding as one text: the values of ``variables`` in order, written one after the
    other (6.x's row key: ``("ab", "c")`` and ``("a", "bc")`` are one row)."""
    rows = []
    for binding in bindings:
        cells = binding if isinstance(binding, Mapping) else {}
        rows.append("".join(str(term_value(cells[name]) if name in cells else None) for name in variables))
    return rows


def _same_rows(expected: list[str], found: list[str], ordered: bool, ignore_duplicates: bool) -> bool:
    if ordered:
        return expected == found
    if ignore_duplicates:
        return set(expected) == set(found)
    return Counter(expected) == Counter(found)


def _decoded(output: Any) -> Any:
    return json.loads(output) if isinstance(output, (str, bytes, bytearray)) else output


def sparql_score(
    reference_output: Any,
    actual_output: Any,
    required: Sequence[str] | None,
    *,
    ordered: bool = False,
    ignore_duplicates: bool = True,
) -> float:
    """1.0 when the actual SPARQL results hold the reference's ``required`` columns under 6.x's
    rule, else 0.0: some choice and order of as many actual columns gives the same rows (in
    order when ``ordered``; as sets when ``ignore_duplicates``, else counting repeats).

    >>> ref = '{"head": {"vars": ["n"]}, "results": {"bindings": [{"n": {"type": "literal", "value": "a"}}]}}'
    >>> twice = '{"head": {"vars": ["n"]}, "results": {"bindings": [{"n": {"type": "literal", "value": "a"}},' \\
    ...     ' {"n": {"type": "literal", "value": "a"}}]}}'
    >>> sparql_score(ref, twice, ["n"]), sparql_score(ref, twice, ["n"], ignore_duplicates=False)
    (1.0, 0.0)
    """
    try:
        actual = _decoded(actual_output)
        reference = _decoded(reference_output)
    except (ValueError, RecursionError):
        return 0.0
    if not isinstance(actual, Mapping) or not isinstance(reference, Mapping):
        return 0.0  # a DESCRIBE or CONSTRUCT result (text) is never a SELECT or ASK result
    if "boolean" in reference:
        return float("boolean" in actual and reference["boolean"] == actual["boolean"])
    expected_bindings = reference["results"]["bindings"]
    results = actual.get("results") or {}
    found_bindings = results.get("bindings", []) if isinstance(results, Mapping) else []
    columns = list(actual["head"].get("vars", []))
    if required is None:  # 6.x requires required_columns; without it, every reference column
        required = list(reference["head"].get("vars", []))
    if not found_bindings and not expected_bindings:
        return float(len(columns) >= len(required))
    if not found_bindings or not expected_bindings or len(required) > len(columns):
        return 0.0
    if not required:
        return 1.0
    if math.perm(len(columns), len(required)) > MAX_COLUMN_ORDERS:
        return 0.0
    expected = _rows(required, expected_bindings)
    for chosen in itertools.permutations(columns, len(required)):
        if _same_rows(expected, _rows(chosen, found_bindings), ordered, ignore_duplicates):
            return 1.0
    return 0.0


# ------------------------------------------------------------------ time series, data points

_GRANULARITY = re.compile(r"(\d+)([a-zA-Z]+)")
_RELATIVE = re.compile(r"^(?:(\d+)([smhdw])-(ago|ahead)|now)$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_UNITS = {
    "s": "seconds",
    "second": "seconds",
    "m": "minutes",
    "minute": "minutes",
    "h": "hours",
    "hour": "hours",
    "d": "days",
    "day": "days",
    "w": "weeks",
    "week": "weeks",
    "mo": "months",
    "month": "months",
    "q": "quarters",
    "quarter": "quarters",
    "y": "years",
    "year": "years",
}
# How far a relative reference time ("2d-ago") may be from an absolute actual time.
TOLERANCE_SECONDS = 60


def _names(value: Any) -> Any:
    """One name or a list of names as a sorted list (empty and missing stay as they are)."""
    if not value:
        return value
    if isinstance(value, str):
        return [value]
    return sorted(value, key=str) if isinstance(value, list) else value


def _granularity(value: Any) -> Any:
    """``1w``, ``1week`` and ``1WEEKS`` as ``1weeks`` (the leading number and unit; the rest
    of the text is dropped, as in 6.x)."""
    if not isinstance(value, str) or not value:
        return value
    found = _GRANULARITY.match(value)
    if found is None:
        return value
    unit = found.group(2).lower()
    return f"{found.group(1)}{_UNITS.get(unit, unit)}"


def _instant(value: Any, anchor: datetime | None) -> Any:
    """A time as an aware UTC datetime: relative times from ``anchor``, ISO 8601 text parsed;
    other values (and text that is neither) as they are."""
    if isinstance(value, str):
        relative = _RELATIVE.match(value)
        if relative is not None:
            if anchor is None:
                return value
            if value == "now":
                return anchor
            seconds = int(relative.group(1)) * _UNIT_SECONDS[relative.group(2)]
            sign = 1 if relative.group(3) == "ahead" else -1
            return anchor + sign * timedelta(seconds=seconds)
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC)
    return value


def _is_relative(value: Any) -> bool:
    return isinstance(value, str) and _RELATIVE.match(value) is not None


def times_equal(reference: Any, actual: Any, anchor: datetime | None) -> bool:
    """6.x's time rule: both missing, or the same instant; an absolute reference time is not
    matched by a relative actual one; a relative reference time matches an absolute actual
    time within ``TOLERANCE_SECONDS`` of it (``anchor`` is the actual step's execution time).

    >>> anchor = datetime(2025, 1, 8, tzinfo=UTC)
    >>> times_equal("1w-ago", "2025-01-01T00:00:30Z", anchor), times_equal("2025-01-01", "1w-ago", anchor)
    (True, False)
    """
    if reference is None or actual is None:
        return reference is None and actual is None
    if _is_relative(actual) and not _is_relative(reference):
        return False
    expected, found = _instant(reference, anchor), _instant(actual, anchor)
    relative_to_absolute = _is_relative(reference) and not _is_relative(actual)
    if relative_to_absolute and isinstance(expected, datetime) and isinstance(found, datetime):
        return abs((expected - found).total_seconds()) <= TOLERANCE_SECONDS
    return bool(expected == found)


def _args(step: Mapping[str, Any]) -> Mapping[str, Any]:
    args = step["args"]
    if not isinstance(args, Mapping):
        raise TypeError("args is not a mapping")
    return args


def time_series_equal(reference: Mapping[str, Any], actual: Mapping[str, Any]) -> bool:
    """6.x's ``retrieve_time_series`` rule, on ``args``: the same ``mrid`` (one or a list, in any
    order) and, when the reference gives a ``limit``, the same limit; a reference without an
    ``mrid`` needs none in the actual step and the same ``limit``."""
    expected, found = _args(reference), _args(actual)
    if expected.get("mrid"):
        same = _names(expected["mrid"]) == _names(found.get("mrid"))
        return same and (not expected.get("limit") or expected.get("limit") == found.get("limit"))
    return found.get("mrid") is None and expected.get("limit") == found.get("limit")


def data_points_equal(reference: Mapping[str, Any], actual: Mapping[str, Any], anchor: Any) -> bool:
    """6.x's ``retrieve_data_points`` rule, on ``args``: the same ``external_id`` and
    ``aggregates`` (in any order), granularity (``1w`` is ``1week``), ``limit``, and ``start``
    and ``end`` under ``times_equal`` with the actual step's ``execution_timestamp``."""
    expected, found = _args(reference), _args(actual)
    moment = _instant(anchor, None) if anchor is not None else None
    return (
        _names(expected["external_id"]) == _names(found["external_id"])
        and _granularity(expected.get("granularity")) == _granularity(found.get("granularity"))
        and _names(expected.get("aggregates")) == _names(found.get("aggregates"))
        and times_equal(expected.get("start"), found.get("start"), moment if isinstance(moment, datetime) else None)
        and times_equal(expected.get("end"), found.get("end"), moment if isinstance(moment, datetime) else None)
        and expected.get("limit") == found.get("limit")
    )


def iri_discovered(reference: Mapping[str, Any], actual: Mapping[str, Any]) -> bool:
    """6.x's ``iri_discovery`` rule: the reference IRI is a ``uri`` value of the actual
    ``autocomplete_search`` results, or occurs anywhere in a ``sparql_query`` step's output
    text (as a substring)."""
    iri = reference["output"]
    if actual["name"] == "autocomplete_search":
        results = _decoded(actual["output"])
        for binding in results["results"]["bindings"]:
            for term in binding.values():
                if term["type"] == "uri" and term["value"] == iri:
                    return True
        return False
    if actual["name"] == "sparql_query":
        return iri in actual["output"]
    return False


# ------------------------------------------------------------------------------ one step


def _retrieval_ids(output: Any) -> list[Any]:
    return [item["id"] if isinstance(item, Mapping) else item for item in _decoded(output)]


def retrieval_recall(reference: Mapping[str, Any], actual: Mapping[str, Any]) -> float:
    """6.x's retrieval rule: with k the actual step's ``args.k``, the share of the first k
    reference ids found among the first k retrieved ids (the whole lists without a k)."""
    args = actual.get("args")
    k = args.get("k") if isinstance(args, Mapping) else None
    relevant = _retrieval_ids(reference["output"])
    retrieved = _retrieval_ids(actual["output"])
    if isinstance(k, int) and not isinstance(k, bool):
        relevant, retrieved = relevant[:k], retrieved[:k]
    if not relevant:
        return 0.0
    return len(set(relevant) & set(retrieved)) / len(relevant)


def _sparql(reference: Mapping[str, Any], actual: Mapping[str, Any]) -> float:
    required = reference.get("required_columns")
    return sparql_score(
        reference.get("output"),
        actual["output"],
        list(required) if isinstance(required, list) else None,
        ordered=bool(reference.get("ordered", False)),
        ignore_duplicates=bool(reference.get("ignore_duplicates", True)),
    )


def _json_equal(reference: Mapping[str, Any], actual: Mapping[str, Any]) -> float:
    return float(_decoded(reference.get("output")) == _decoded(actual["output"]))


# (whether the rule applies to the two steps, the rule), in 6.x's order of trial: the first that
# applies decides.
_RULES: list[tuple[Callable[[Mapping[str, Any], Mapping[str, Any]], bool], Callable[..., float]]] = [
    (
        lambda r, a: (
            r["name"] == a["name"] == "sparql_query" and r.get("output_media_type") == "application/sparql-results+json"
        ),
        _sparql,
    ),
    (lambda r, a: r["name"] == a["name"] == "retrieval" and bool(r.get("output")), retrieval_recall),
    (lambda r, a: r["name"] == a["name"] == "retrieve_time_series", lambda r, a: float(time_series_equal(r, a))),
    (
        lambda r, a: r["name"] == a["name"] == "retrieve_data_points",
        lambda r, a: float(data_points_equal(r, a, a["execution_timestamp"])),
    ),
    (lambda r, a: r["name"] == "iri_discovery", lambda r, a: float(iri_discovered(r, a))),
    (lambda r, a: r["name"] == a["name"] and r.get("output_media_type") == "application/json", _json_equal),
]


def compare_step(reference: Mapping[str, Any], actual: Mapping[str, Any]) -> float:
    """The score of ``actual`` against ``reference`` under 6.x's rules, from 0.0 to 1.0.

    Otherwise than by the rules above, two steps match when their outputs are equal, whatever
    their names (6.x's last rule). A step 6.x could not compare (it would stop with an
    exception) scores 0.0.
    """
    try:
        actual["output"]  # 6.x reads every actual step's output first: a step without one is not compared
        for applies, rule in _RULES:
            if applies(reference, actual):
                return float(rule(reference, actual))
        return float(reference.get("output") == actual["output"])
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError, OverflowError):
        return 0.0
