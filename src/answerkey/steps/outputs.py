"""Scoring one actual step's output against one reference step's output.

The reference step chooses the comparison, in graphrag-eval's order: its
``output_media_type`` when it is one of ``MEDIA_TYPES``, else its name (``STEP_NAMES``:
``retrieval``), else exact equality (so ``text/uri``, ``text/plain`` or any other media type
compares identical outputs, as graphrag-eval does). Each comparison returns a ``Comparison``:
a score in [0, 1] and, for a score below 1, the reason.

A retrieval output is a list of document ids (graphrag-eval 4.0) or of objects with an ``id``
(its later versions), as a list or as its JSON text; an id is a name, so ``7`` and ``"7"`` are
one document. ``k`` comes from the reference step's ``args.k`` first (``RETRIEVAL_K_RULES``:
``reference``, graphrag-eval 4.0's rule), or from the actual step's first (``actual``); then
from the other step; else the whole list counts.

>>> document_ids([1, 3, "d5"]), document_ids('[{"id": 1}, {"id": "d5"}]')
(['1', '3', 'd5'], ['1', 'd5'])
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from answerkey.adapters.sparql import SparqlResults, read_sparql_results
from answerkey.comparator import judge
from answerkey.errors import InputError, kind_of
from answerkey.metrics.retrieval import recall_at_k


class ActualStep(Protocol):
    """What a comparison reads of an actual step (``answerkey.steps.schema.ActualStep``): the
    schema parses reference outputs with this module, so this module does not import it."""

    @property
    def name(self) -> str: ...
    @property
    def args(self) -> dict[str, Any]: ...
    @property
    def output(self) -> Any: ...


class ReferenceStep(ActualStep, Protocol):
    """What a comparison reads of a reference step (``answerkey.steps.schema.ReferenceStep``)."""

    @property
    def output_media_type(self) -> str | None: ...
    @property
    def ordered(self) -> bool: ...
    @property
    def required_columns(self) -> list[str] | None: ...
    @property
    def expected(self) -> Any: ...


# How a retrieval step's k is chosen: the step whose args.k is taken first (the other's is the
# fallback, then the whole list). The first is the default.
RETRIEVAL_K_RULES = ("reference", "actual")


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


def document_ids(output: Any) -> list[str]:
    """The document ids of a retrieval output, as text: a list of ids (graphrag-eval 4.0's
    format) or of objects with an ``id`` (its later one), given as a list or as JSON text.

    Raises ``InputError`` for anything else.
    """
    items = _decode_json(output)
    if not isinstance(items, list):
        raise InputError(
            f'a retrieval output is a list of document ids or of objects with an "id", not {kind_of(items)}'
        )
    ids = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, dict):
            if "id" not in item:
                raise InputError(f'document {number} of the retrieval output has no "id"')
            item = item["id"]
        # An id is a name: YAML reads an unquoted 1234 as a number, an agent may write "1234".
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise InputError(
                f"document {number} of the retrieval output: an id is text or an integer, not {kind_of(item)}"
            )
        ids.append(item if isinstance(item, str) else str(item))
    return ids


def _positive_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def check_retrieval_k_rule(rule: str) -> None:
    """Raise ``ValueError`` for a rule that is not one of ``RETRIEVAL_K_RULES``."""
    if rule not in RETRIEVAL_K_RULES:
        raise ValueError(f"retrieval_k must be one of {', '.join(map(repr, RETRIEVAL_K_RULES))}, not {rule!r}")


def check_reference_k(step: ReferenceStep) -> None:
    """Raise ``InputError`` when a reference retrieval step's ``args.k`` is given but is not a
    positive integer (the reference defines the evaluation: a bad k is not silently ignored)."""
    k = step.args.get("k")
    if "k" in step.args and not _positive_integer(k):
        shown = repr(k) if isinstance(k, int) and not isinstance(k, bool) else kind_of(k)
        raise InputError(f"args.k: a retrieval step's k is a positive integer, not {shown}")


def retrieval_k(reference: ReferenceStep, actual: ActualStep, rule: str = "reference") -> int | None:
    """The k of recall@k for ``actual`` against ``reference``: under the ``reference`` rule the
    reference's ``args.k``, else the actual step's; under ``actual`` the other way round; None
    (the whole list) when neither has a positive integer k.

    >>> from answerkey.steps.schema import ActualStep, ReferenceStep
    >>> reference = ReferenceStep(name="retrieval", args={"k": 5}, output=[1])
    >>> actual = ActualStep(name="retrieval", args={"k": 10}, status="success", output=[1])
    >>> retrieval_k(reference, actual), retrieval_k(reference, actual, "actual")
    (5, 10)
    """
    check_retrieval_k_rule(rule)
    order = (reference.args, actual.args) if rule == "reference" else (actual.args, reference.args)
    for args in order:
        if _positive_integer(args.get("k")):
            return int(args["k"])
    return None


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


def _parse_retrieval(step: ReferenceStep) -> tuple[list[str], None]:
    check_reference_k(step)
    return document_ids(step.output), None


def _parse_json(step: ReferenceStep) -> tuple[Any, None]:
    return _decode_json(step.output), None


def _parse_sparql(step: ReferenceStep) -> tuple[Any, str | None]:
    results = read_sparql_results(step.output)
    if isinstance(results, bool):
        return results, None
    columns = step.required_columns or None
    try:
        return results.relation(columns, ordered=step.ordered), results.note
    except KeyError as error:
        raise InputError(
            f"required_columns: no variable {error.args[0]} in the reference result "
            f"(it has {', '.join(results.variables) or 'none'})"
        ) from None


def parse_reference_output(step: ReferenceStep) -> tuple[Any, str | None]:
    """The reference output in the form its comparison uses, and what its reading let pass
    (SPARQL term values that are JSON numbers or booleans) or None. Raises ``InputError``."""
    try:
        if step.output_media_type in MEDIA_TYPES:
            return MEDIA_TYPES[step.output_media_type][0](step)
        if step.name in STEP_NAMES:
            return STEP_NAMES[step.name][0](step)
    except ValueError as error:
        raise unreadable(error) from None
    return step.output, None


class OutputComparer:
    """Compares actual steps with reference steps, decoding each actual output once.

    ``epsilon`` is the comparator's relative tolerance for reals in SPARQL results and
    ``abs_epsilon`` its absolute floor (``MatchRule``);
    ``retrieval_k`` the rule that chooses k for retrieval steps (``RETRIEVAL_K_RULES``).
    ``notes`` maps an actual step (by ``id()``) to what its output's reading let pass.
    """

    def __init__(self, *, epsilon: float = 1e-4, retrieval_k: str = "reference", abs_epsilon: float = 0.0) -> None:
        check_retrieval_k_rule(retrieval_k)
        self.epsilon = epsilon
        self.abs_epsilon = abs_epsilon
        self.retrieval_k = retrieval_k
        self.notes: dict[int, str] = {}
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
    if isinstance(results, SparqlResults) and results.note is not None:
        comparer.notes[id(actual)] = results.note
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
    verdict = judge(expected, system, epsilon=comparer.epsilon, abs_epsilon=comparer.abs_epsilon)
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


def _compare_retrieval(comparer: OutputComparer, reference: ReferenceStep, actual: ActualStep) -> Comparison:
    try:
        retrieved = comparer.decoded(actual, "retrieval", lambda: document_ids(actual.output))
    except InputError as error:
        return Comparison(0.0, f"actual output: {error.message}")
    k = retrieval_k(reference, actual, comparer.retrieval_k)
    score = recall_at_k(reference.expected, retrieved, k)
    if score >= 1.0:
        return Comparison(1.0)
    return Comparison(score, f"recall@{k if k is not None else 'all'} = {score:g}")


def _compare_exact(comparer: OutputComparer, reference: ReferenceStep, actual: ActualStep) -> Comparison:
    if reference.output == actual.output and type(reference.output) is type(actual.output):
        return Comparison(1.0)
    return Comparison(0.0, "the outputs differ")


# output_media_type -> (parse the reference output into (expected, note), compare); the docs
# list them from here. Any other media type compares identical outputs.
MEDIA_TYPES: dict[str, tuple[Callable, Callable]] = {
    "application/sparql-results+json": (_parse_sparql, _compare_sparql),
    "application/json": (_parse_json, _compare_json),
}
# Step name -> (parse, compare), for reference steps without an output_media_type.
STEP_NAMES: dict[str, tuple[Callable, Callable]] = {
    "retrieval": (_parse_retrieval, _compare_retrieval),
}
