"""Scoring one actual step's output against one reference step's output.

The reference step chooses the comparison, in graphrag-eval's order: its
``output_media_type`` (``MEDIA_TYPES``), else its name (``STEP_NAMES``: ``retrieval``),
else exact equality. Each comparison returns a ``Comparison``: a score in [0, 1] and, for a
score below 1, the reason.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from answerkey.adapters.sparql import read_sparql_results
from answerkey.comparator import judge
from answerkey.errors import InputError
from answerkey.metrics.retrieval import recall_at_k

if TYPE_CHECKING:
    from answerkey.steps.schema import ActualStep, ReferenceStep

__all__ = [
    "Comparison",
    "OutputComparer",
    "MEDIA_TYPES",
    "STEP_NAMES",
    "parse_reference_output",
    "json_equal",
    "unreadable",
]


@dataclass(frozen=True)
class Comparison:
    """The score of an actual step against a reference step, and why it is not 1."""

    score: float
    reason: str = ""


def unreadable(error: ValueError) -> InputError:
    """An ``InputError`` for a ``ValueError`` that decoding an output raised (an
    ``InputError`` stays as it is). ``json.loads`` raises a plain ``ValueError`` for an
    integer of more digits than ``sys.get_int_max_str_digits()``: say so in our words.

    >>> unreadable(ValueError("Exceeds the limit (4300 digits) for integer string conversion")).message
    'holds an integer of more than 4,300 digits'
    """
    if isinstance(error, InputError):
        return error
    if "integer string conversion" in str(error):
        return InputError(f"holds an integer of more than {sys.get_int_max_str_digits():,} digits")
    return InputError(str(error))


def _decode_json(output: Any) -> Any:
    """A step output as JSON: text is decoded, anything else is taken as already decoded."""
    if isinstance(output, (str, bytes, bytearray)):
        try:
            return json.loads(output)
        except json.JSONDecodeError as error:
            raise InputError(f"not JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
        except RecursionError:
            raise InputError("not JSON: nested too deeply") from None
    return output


def _document_ids(output: Any) -> list:
    """The ids of a retrieval output: a JSON list of objects with an ``id``."""
    contexts = _decode_json(output)
    if not isinstance(contexts, list) or not all(isinstance(c, dict) and "id" in c for c in contexts):
        raise InputError('a retrieval output must be a JSON list of objects with an "id"')
    ids = []
    for context in contexts:
        try:
            hash(context["id"])
        except TypeError:
            raise InputError(f"a document id must be a plain value, not {context['id']!r}") from None
        ids.append(context["id"])
    return ids


def json_equal(left: Any, right: Any) -> bool:
    """Deep equality of decoded JSON where numbers compare by value (``1 == 1.0``) but
    booleans are not numbers (``true != 1``, unlike Python's ``==``).

    >>> json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]}), json_equal([True], [1])
    (True, False)
    """
    stack = [(left, right)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, bool) or isinstance(b, bool):
            if not (isinstance(a, bool) and isinstance(b, bool) and a == b):
                return False
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if a != b:
                return False
        elif isinstance(a, dict) and isinstance(b, dict):
            if a.keys() != b.keys():
                return False
            stack.extend((a[key], b[key]) for key in a)
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b))
        elif type(a) is not type(b) or a != b:
            return False
    return True


def _parse_sparql(step: ReferenceStep) -> Any:
    results = read_sparql_results(step.output)
    if isinstance(results, bool):
        return results
    columns = step.required_columns or None
    try:
        return results.relation(columns, ordered=step.ordered)
    except KeyError as error:
        raise InputError(
            f"required_columns: no variable {error.args[0]} in the reference result "
            f"(it has {', '.join(results.variables) or 'none'})"
        ) from None


def parse_reference_output(step: ReferenceStep) -> Any:
    """The reference output in the form its comparison uses (raises ``InputError``)."""
    try:
        if step.output_media_type in MEDIA_TYPES:
            return MEDIA_TYPES[step.output_media_type][0](step)
        if step.name in STEP_NAMES:
            return STEP_NAMES[step.name][0](step)
    except ValueError as error:
        raise unreadable(error) from None
    return step.output


class OutputComparer:
    """Compares actual steps with reference steps, decoding each actual output once.

    ``epsilon`` is the comparator's relative tolerance for reals in SPARQL results.
    """

    def __init__(self, *, epsilon: float = 1e-4) -> None:
        self.epsilon = epsilon
        self._decoded: dict[tuple[int, str, bool], Any] = {}

    def compare(self, reference: ReferenceStep, actual: ActualStep) -> Comparison:
        """The score of ``actual`` against ``reference`` (names are not checked here)."""
        if reference.output_media_type in MEDIA_TYPES:
            compare = MEDIA_TYPES[reference.output_media_type][1]
        elif reference.name in STEP_NAMES:
            compare = STEP_NAMES[reference.name][1]
        else:
            compare = _compare_exact
        return compare(self, reference, actual)

    def decoded(self, actual: ActualStep, kind: str, decode: Callable[[], Any], ordered: bool = False) -> Any:
        """``decode()`` for this actual step and kind, computed once; an ``InputError`` is
        remembered and raised again."""
        key = (id(actual), kind, ordered)
        if key not in self._decoded:
            try:
                self._decoded[key] = decode()
            except ValueError as error:
                self._decoded[key] = unreadable(error)
        value = self._decoded[key]
        if isinstance(value, InputError):
            raise value
        return value


def _compare_sparql(comparer: OutputComparer, reference: ReferenceStep, actual: ActualStep) -> Comparison:
    expected = reference.expected
    try:
        results = comparer.decoded(actual, "sparql", lambda: read_sparql_results(actual.output))
    except InputError as error:
        return Comparison(0.0, f"actual output: {error.message}")
    if isinstance(expected, bool):
        if not isinstance(results, bool):
            return Comparison(0.0, "an ASK result (a boolean) was expected; the actual output is a SELECT result")
        if results != expected:
            return Comparison(0.0, f"ASK result {str(results).lower()}; expected {str(expected).lower()}")
        return Comparison(1.0)
    if isinstance(results, bool):
        return Comparison(0.0, "a SELECT result was expected; the actual output is an ASK result")
    system = comparer.decoded(
        actual, "relation", lambda: results.relation(ordered=reference.ordered), reference.ordered
    )
    verdict = judge(expected, system, epsilon=comparer.epsilon)
    if verdict.correct:
        return Comparison(1.0)
    return Comparison(0.0, verdict.reason or "the results differ")


def _compare_json(comparer: OutputComparer, reference: ReferenceStep, actual: ActualStep) -> Comparison:
    try:
        value = comparer.decoded(actual, "json", lambda: _decode_json(actual.output))
    except InputError as error:
        return Comparison(0.0, f"actual output: {error.message}")
    if json_equal(reference.expected, value):
        return Comparison(1.0)
    return Comparison(0.0, "the JSON values differ")


def _retrieval_k(reference: ReferenceStep, actual: ActualStep) -> int | None:
    # graphrag-eval takes k from the actual step's arguments; the reference's is the fallback.
    for args in (actual.args, reference.args):
        k = args.get("k")
        if isinstance(k, int) and not isinstance(k, bool) and k > 0:
            return k
    return None


def _compare_retrieval(comparer: OutputComparer, reference: ReferenceStep, actual: ActualStep) -> Comparison:
    try:
        retrieved = comparer.decoded(actual, "retrieval", lambda: _document_ids(actual.output))
    except InputError as error:
        return Comparison(0.0, f"actual output: {error.message}")
    k = _retrieval_k(reference, actual)
    score = recall_at_k(reference.expected, retrieved, k)
    if score >= 1.0:
        return Comparison(1.0)
    return Comparison(score, f"recall@{k if k is not None else 'all'} = {score:g}")


def _compare_exact(comparer: OutputComparer, reference: ReferenceStep, actual: ActualStep) -> Comparison:
    if reference.output == actual.output and type(reference.output) is type(actual.output):
        return Comparison(1.0)
    return Comparison(0.0, "the outputs differ")


# output_media_type -> (parse the reference output, compare); the docs list them from here.
MEDIA_TYPES: dict[str, tuple[Callable, Callable]] = {
    "application/sparql-results+json": (_parse_sparql, _compare_sparql),
    "application/json": (lambda step: _decode_json(step.output), _compare_json),
}
# Step name -> (parse, compare), for reference steps without an output_media_type.
STEP_NAMES: dict[str, tuple[Callable, Callable]] = {
    "retrieval": (lambda step: _document_ids(step.output), _compare_retrieval),
}
