"""SPARQL 1.1 query results JSON (``application/sparql-results+json``) ⇄ the typed model.

Reading turns a SELECT result into a ``Relation`` (one column per variable, one tuple per
binding) and an ASK result into a ``bool``. Terms become typed values:

- ``xsd:integer`` and its derived types → integer ``Number``; ``xsd:decimal``, ``xsd:double``,
  ``xsd:float`` → real ``Number`` (so the comparator's epsilon applies);
- ``xsd:boolean`` → ``Boolean``; ``xsd:date`` (without a time zone) → ``Date``;
- ``xsd:dateTime`` → ``DateTime``, ``xsd:time`` → ``Time``, with the literal's time zone as
  their UTC offset (so ``12:00:00+01:00`` equals ``11:00:00Z``) and up to nine digits of
  fraction; XSD's ``24:00:00``, the end of a day, is the next day's ``00:00:00`` (a time's
  ``00:00:00``); a literal outside the CAS spelling (a year beyond 9999, ten fraction
  digits) stays text;
- a URI → ``String("<uri>")``, a blank node → ``String("_:label")``; a literal that would
  read as either of those (or as one already escaped) gets one leading backslash, so a URI
  never equals a literal and every string maps back to exactly one term;
- any other literal (plain, language-tagged, other datatypes, or a typed literal whose text is
  not valid for its type) → ``String`` of its text; an unbound variable → ``NIL``.

The standard gives every term's ``value`` as text. Some tools write a literal's value as a JSON
number or boolean instead (``{"type": "literal", "value": 40.5}``): it is read as the typed
value it spells (an integer as ``xsd:integer``, a number with a fraction or an exponent as
``xsd:double``, ``true``/``false`` as ``xsd:boolean``; a ``datatype`` given with it applies to
its text), and ``SparqlResults.note`` says how many such values a result holds.

A column whose terms would get different types (say numbers and URIs) is kept as RDF terms
written N-Triples style (``"35"^^<…#integer>``, ``<uri>``, plain text), because a relation
has one type per column.

>>> rel = relation_from_sparql_results('''{"head": {"vars": ["s", "n"]}, "results": {"bindings": [
...   {"s": {"type": "uri", "value": "urn:x:1"},
...    "n": {"type": "literal", "value": "7", "datatype": "http://www.w3.org/2001/XMLSchema#int"}}]}}''')
>>> rel.rows
((String(text='<urn:x:1>'), Number(value=7, is_real=False, text='7')),)
>>> relation_from_sparql_results('{"head": {}, "boolean": true}')
True
>>> sparql_results_from_relation(rel, ["s", "n"])["results"]["bindings"][0]["s"]
{'type': 'uri', 'value': 'urn:x:1'}
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from operator import itemgetter, methodcaller
from typing import Any

from answerkey.errors import InputError, plural
from answerkey.grammar.atoms import NUMBER_SHAPE
from answerkey.model import NIL, Boolean, Date, DateTime, Nil, Number, Relation, String, Time, Value

MEDIA_TYPE = "application/sparql-results+json"

XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGER_TYPES = {
    XSD + name
    for name in (
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    )
}
_REAL_TYPES = {XSD + "decimal", XSD + "double", XSD + "float"}
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DATE_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# XSD's end of the day, 24:00:00 (any fraction all zeros), before a time zone or the end.
_END_OF_DAY = re.compile(r"24:00:00(\.0+)?(?=Z|[+-]|$)")
# Strings of these shapes are URIs or blank nodes; a literal of such a shape (or of such a shape
# behind backslashes) gets one more leading backslash, which keeps the mapping one-to-one.
_TERM_SHAPE = re.compile(r"\\*(<.*>|_:.*)", re.DOTALL)
_URI_SHAPE = re.compile(r"<(.*)>", re.DOTALL)
_SHAPE_STARTS = ("<", "_", "\\")  # first characters of the shapes above (a cheap pre-test)


class SparqlResults:
    """A parsed SELECT result: its variables and its bindings as rows of typed values.

    ``rows`` has one tuple per binding in the order given, with a value for each variable
    (``NIL`` where unbound). ``non_text_values`` counts the literals whose ``value`` was a JSON
    number or boolean rather than text, and ``first_non_text_value`` places the first of them.
    """

    __slots__ = ("variables", "rows", "non_text_values", "first_non_text_value")

    def __init__(
        self,
        variables: tuple[str, ...],
        rows: list[tuple[Value, ...]],
        non_text_values: int = 0,
        first_non_text_value: str = "",
    ) -> None:
        self.variables = variables
        self.rows = rows
        self.non_text_values = non_text_values
        self.first_non_text_value = first_non_text_value

    @property
    def note(self) -> str | None:
        """What was read leniently, in one sentence, or None when every term was standard.

        >>> read_sparql_results({"head": {"vars": ["w"]}, "results": {"bindings": [
        ...     {"w": {"type": "literal", "value": 40.5}}]}}).note
        "1 term value is a JSON number or boolean, not text (binding 1, variable 'w': 40.5); read as a typed value"
        """
        if not self.non_text_values:
            return None
        if self.non_text_values == 1:
            first = self.first_non_text_value
            return f"1 term value is a JSON number or boolean, not text ({first}); read as a typed value"
        return (
            f"{plural(self.non_text_values, 'term value')} are JSON numbers or booleans, not text "
            f"(the first: {self.first_non_text_value}); read as typed values"
        )

    def relation(self, variables: Sequence[str] | None = None, *, ordered: bool = False) -> Relation:
        """The bindings as a relation over ``variables`` (default: all, in head order).

        Raises ``KeyError`` naming a variable the result does not have.
        """
        if variables is None:
            indexes = list(range(len(self.variables)))
        else:
            position = {name: index for index, name in enumerate(self.variables)}
            missing = [name for name in variables if name not in position]
            if missing:
                raise KeyError(", ".join(missing))
            indexes = [position[name] for name in variables]
        if not self.rows or not indexes:
            return Relation((), ordered=ordered)
        if indexes == list(range(len(self.variables))):
            rows = self.rows
        else:
            rows = [tuple(row[i] for i in indexes) for row in self.rows]
        # Column types were made uniform while reading, so the rows are valid as they are.
        return Relation.checked(tuple(rows), len(indexes), ordered=ordered)


def _literal_text(text: str) -> String:
    if text[:1] in _SHAPE_STARTS and _TERM_SHAPE.fullmatch(text):
        return String("\\" + text)
    return String(text)


def _real(text: str) -> Value | None:
    whole, dot, fraction = text.partition(".")
    if dot and whole.isdigit() and fraction.isdigit() and text.isascii():  # the usual 123.45, quickly
        return Number(Decimal(text), True, text)
    stripped = text.strip()
    if not NUMBER_SHAPE.fullmatch(stripped):
        return None
    try:
        value = Decimal(stripped)
    except InvalidOperation:
        return None
    # Keep the lexical form for printing; CAS writes a real with a dot.
    written = stripped if "." in stripped or "e" in stripped or "E" in stripped else stripped + "."
    return Number(value, True, written)


def _date_time(text: str) -> Value | None:
    stripped = text.strip()
    try:
        if _END_OF_DAY.match(stripped, 11):
            start = DateTime.parse(stripped[:11] + "00" + stripped[13:])
            return DateTime(start.value + _dt.timedelta(days=1), start.nanosecond)
        return DateTime.parse(stripped)
    except (ValueError, OverflowError):  # not the CAS spelling, out of range, or 9999-12-31T24:00:00
        return None


def _time(text: str) -> Value | None:
    stripped = text.strip()
    if _END_OF_DAY.match(stripped):
        stripped = "00" + stripped[2:]
    try:
        return Time.parse(stripped)
    except ValueError:
        return None


def _integer(text: str) -> Value | None:
    if text.isdigit() and text.isascii() and len(text) < 4000:  # the usual unsigned digits, quickly
        return Number(int(text), False, text)
    stripped = text.strip()
    if not _INTEGER_TEXT.fullmatch(stripped):
        return None
    try:
        return Number(int(stripped), False, stripped)
    except ValueError:  # past Python's limit on digits in int(): kept as text
        return None


_BOOLEANS = {"true": Boolean(True), "1": Boolean(True), "false": Boolean(False), "0": Boolean(False)}


def _boolean(text: str) -> Value | None:
    return _BOOLEANS.get(text.strip())


def _date(text: str) -> Value | None:
    stripped = text.strip()
    if not _DATE_TEXT.fullmatch(stripped):
        return None
    try:
        return Date(_dt.date.fromisoformat(stripped))
    except ValueError:
        return None


# Datatype IRI -> reader of the lexical form (None when the text is not valid for the type,
# and the literal then stays text). One table, so the docs and the reader cannot drift apart.
TYPED_LITERALS = {
    **{datatype: _integer for datatype in _INTEGER_TYPES},
    **{datatype: _real for datatype in _REAL_TYPES},
    XSD + "boolean": _boolean,
    XSD + "date": _date,
    XSD + "dateTime": _date_time,
    XSD + "time": _time,
}


def _typed_literal(text: str, datatype: str) -> Value | None:
    """The typed value of a literal with a datatype, or None to keep it as text."""
    reader = TYPED_LITERALS.get(datatype)
    return None if reader is None else reader(text)


# The datatype a literal's value written as a JSON number or boolean is read with.
_JSON_VALUE_TYPES = {bool: XSD + "boolean", int: XSD + "integer", float: XSD + "double", Decimal: XSD + "double"}


def _non_text_value(term: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The literal ``term`` with its JSON number or boolean ``value`` as text (and the datatype
    that value implies, unless it has one), or None when ``term`` is no such literal.

    Raises ``ValueError`` for a value that is not a finite number.
    """
    value: Any = term.get("value")
    datatype = _JSON_VALUE_TYPES.get(type(value))
    if datatype is None or term.get("type") not in ("literal", "typed-literal"):
        return None
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, Decimal):
        text = str(value)  # a JSON text's number: its digits as written (json.loads with Decimal)
    else:
        text = repr(value)  # a float of an already-decoded result
    if not (value.is_finite() if isinstance(value, Decimal) else math.isfinite(value)):
        shown = "NaN" if value != value else "infinity" if value > 0 else "-infinity"
        raise ValueError(f'a term\'s "value" must be text or a finite number, not {shown}')
    return {**term, "value": text, "datatype": term.get("datatype") or datatype}


def term_value(term: Mapping[str, Any]) -> Value:
    """The typed value of one RDF term of SPARQL results JSON (see the module docstring).

    Raises ``ValueError`` when ``term`` is not a term object.

    >>> term_value({"type": "literal", "value": "2.50", "datatype": XSD + "decimal"})
    Number(value=Decimal('2.50'), is_real=True, text='2.50')
    >>> term_value({"type": "literal", "value": 100}), term_value({"type": "literal", "value": True})
    (Number(value=100, is_real=False, text='100'), Boolean(value=True))
    """
    if not isinstance(term, Mapping):
        raise ValueError(f"a term must be an object, not {_kind(term)}")
    kind = term.get("type")
    if not isinstance(kind, str):
        raise ValueError(f'a term\'s "type" must be a string, not {_kind(kind)}')
    textual = _non_text_value(term)
    if textual is not None:
        term = textual
    text = term.get("value")
    if not isinstance(text, str):
        raise ValueError(f'a term\'s "value" must be a string, not {_kind(text)}')
    if kind == "uri":
        return String(f"<{text}>")
    if kind == "bnode":
        return String(f"_:{text}")
    if kind in ("literal", "typed-literal"):
        datatype = term.get("datatype")
        if datatype is not None and not isinstance(datatype, str):
            raise ValueError(f'a term\'s "datatype" must be a string, not {_kind(datatype)}')
        if datatype:
            value = _typed_literal(text, datatype)
            if value is not None:
                return value
        return _literal_text(text)
    raise ValueError(f"unknown term type {kind!r} (expected uri, literal, typed-literal or bnode)")


def _rdf_term_text(term: Mapping[str, Any]) -> String:
    """A term as N-Triples-like text: the representation of columns of mixed types."""
    kind, text = term["type"], term["value"]
    if kind == "uri":
        return String(f"<{text}>")
    if kind == "bnode":
        return String(f"_:{text}")
    datatype = term.get("datatype")
    if datatype:
        return String(f"{json.dumps(text, ensure_ascii=False)}^^<{datatype}>")
    return _literal_text(text)


def _rdf_term_text_or_nil(term: Mapping[str, Any] | None) -> Value:
    return NIL if term is None else _rdf_term_text(term)


def _uniform_column(terms: list) -> list[Value] | None:
    """The values of a column whose terms are all well-formed and of one kind and datatype,
    built with C-level maps rather than a Python step per term; None for any other column
    (the per-term reader then decides, and names any problem)."""
    if set(map(type, terms)) != {dict}:
        return None
    try:
        kinds = set(map(itemgetter("type"), terms))
        texts = list(map(itemgetter("value"), terms))
        datatypes = set(map(methodcaller("get", "datatype"), terms))
    except (KeyError, TypeError):  # a missing key, or an unhashable kind or datatype
        return None
    if len(kinds) != 1 or len(datatypes) != 1 or set(map(type, texts)) != {str}:
        return None
    kind, datatype = kinds.pop(), datatypes.pop()
    if kind == "uri":
        return list(map(String, map("<{}>".format, texts)))
    if kind not in ("literal", "typed-literal") or not (datatype is None or isinstance(datatype, str)):
        return None
    reader = TYPED_LITERALS.get(datatype) if datatype else None
    if reader is None:
        return list(map(_literal_text, texts))
    values = list(map(reader, texts))
    if type(None) in set(map(type, values)):  # texts not valid for the type stay text
        return [_literal_text(text) if value is None else value for value, text in zip(values, texts)]
    return values  # type: ignore[return-value]  # no None among them


class _NonText:
    """Counts the literals whose value is a JSON number or boolean, and places the first."""

    __slots__ = ("count", "first")

    def __init__(self) -> None:
        self.count = 0
        self.first = ""


def _column_by_term(terms: list[Any], name: str, fail: Callable[[str], InputError], non_text: _NonText) -> list[Value]:
    """The values of a column term by term. A literal whose value is a JSON number or boolean
    is replaced in ``terms`` by its text form (so a column of mixed kinds writes it as text) and
    counted in ``non_text``."""
    column: list[Value] = []
    for number, term in enumerate(terms, start=1):
        if term is None:
            column.append(NIL)
            continue
        try:
            if isinstance(term, Mapping) and not isinstance(term.get("value"), str):
                textual = _non_text_value(term)
                if textual is not None:
                    if not non_text.count:
                        non_text.first = f"binding {number}, variable {name!r}: {term['value']}"
                    non_text.count += 1
                    terms[number - 1] = term = textual
            column.append(term_value(term))
        except (ValueError, TypeError) as error:
            raise fail(f"binding {number}, variable {name!r}: {error}") from None
    return column


def _kind(obj: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(obj), "a number"
    )


def _load(obj_or_text: object, source: str | None) -> object:
    if isinstance(obj_or_text, (str, bytes, bytearray)):
        text = obj_or_text.decode("utf-8", "replace") if not isinstance(obj_or_text, str) else obj_or_text
        try:
            # Reals as Decimal: a term value written as a JSON number keeps its digits.
            return json.loads(text, parse_float=Decimal)
        except json.JSONDecodeError as error:
            hint = " (a DESCRIBE or CONSTRUCT result?)" if text.lstrip()[:1] not in ("{", "[") else ""
            raise InputError(
                f"not SPARQL results JSON{hint}: {error.msg}", source=source, line=error.lineno, column=error.colno
            ) from None
        except RecursionError:
            raise InputError("not SPARQL results JSON: nested too deeply", source=source) from None
        except ValueError:  # Python's limit on the digits of an int
            raise InputError("SPARQL results JSON with an integer of more than 4,300 digits", source=source) from None
    return obj_or_text


def read_sparql_results(obj_or_text: object, *, source: str | None = None) -> SparqlResults | bool:
    """Parse SPARQL results JSON (text or an already-decoded object): a ``SparqlResults`` for a
    SELECT result, a ``bool`` for an ASK result. Raises ``InputError`` for anything else."""
    return _read(_load(obj_or_text, source), source)


def _read(document: object, source: str | None) -> SparqlResults | bool:

    def fail(message: str) -> InputError:
        return InputError(message, source=source)

    if not isinstance(document, Mapping):
        raise fail(f"SPARQL results JSON must be an object, not {_kind(document)}")
    if "boolean" in document:
        if not isinstance(document["boolean"], bool):
            raise fail(f'"boolean" must be true or false, not {_kind(document["boolean"])}')
        return document["boolean"]
    results = document.get("results")
    if not isinstance(results, Mapping) or not isinstance(results.get("bindings"), list):
        raise fail('SPARQL results JSON needs "results": {"bindings": [...]} or "boolean"')
    bindings = results["bindings"]
    head = document.get("head", {})
    if not isinstance(head, Mapping):
        raise fail(f'"head" must be an object, not {_kind(head)}')
    declared = head.get("vars")
    if declared is None:
        # Without a head, the variables are those bound anywhere, in first-seen order.
        seen: dict[str, None] = {}
        for binding in bindings:
            if isinstance(binding, Mapping):
                seen.update(dict.fromkeys(binding))
        declared = list(seen)
    if not isinstance(declared, list) or not all(isinstance(name, str) for name in declared):
        raise fail('"head"."vars" must be a list of variable names')
    if len(set(declared)) != len(declared):
        raise fail('"head"."vars" names a variable twice')
    variables = tuple(declared)
    non_text = _NonText()
    if set(map(type, bindings)) - {dict}:
        for number, binding in enumerate(bindings, start=1):
            if not isinstance(binding, Mapping):
                raise fail(f"binding {number} must be an object, not {_kind(binding)}")
        bindings = [dict(binding) for binding in bindings]
    if not variables:
        return SparqlResults(variables, [() for _ in bindings])
    columns = []
    for name in variables:
        terms = list(map(methodcaller("get", name), bindings))
        column = _uniform_column(terms)
        if column is None:
            column = _column_by_term(terms, name, fail, non_text)
        kinds = set(map(type, column))
        kinds.discard(Nil)
        if len(kinds) > 1:
            column = list(map(_rdf_term_text_or_nil, terms))
        columns.append(column)
    rows = list(zip(*columns)) if bindings else []
    return SparqlResults(variables, rows, non_text.count, non_text.first)


def relation_from_sparql_results(
    obj_or_text: object,
    variables: Sequence[str] | None = None,
    *,
    ordered: bool = False,
    source: str | None = None,
) -> Relation | bool:
    """A SELECT result as a ``Relation`` over ``variables`` (default: all, in head order), or an
    ASK result as a ``bool``. Raises ``InputError`` for text that is not SPARQL results JSON
    (a DESCRIBE or CONSTRUCT result, say) and for a variable the result does not have."""
    results = read_sparql_results(obj_or_text, source=source)
    if isinstance(results, bool):
        return results
    try:
        return results.relation(variables, ordered=ordered)
    except KeyError as error:
        raise InputError(f"no variable {error.args[0]} in the SPARQL results", source=source) from None


def _term(value: Value) -> dict[str, str] | None:
    if isinstance(value, String):
        text = value.text
        if _TERM_SHAPE.fullmatch(text):
            if text.startswith("\\"):
                return {"type": "literal", "value": text[1:]}
            uri = _URI_SHAPE.fullmatch(text)
            if uri:
                return {"type": "uri", "value": uri.group(1)}
            return {"type": "bnode", "value": text[2:]}
        return {"type": "literal", "value": text}
    if isinstance(value, Number):
        if not value.is_real:
            return {"type": "literal", "value": str(value.value), "datatype": XSD + "integer"}
        # Decimal's own text: plain digits where it can, an exponent (xsd:double) where a plain
        # form would be huge (1E+999999).
        text = str(Decimal(value.value))
        datatype = "double" if "E" in text else "decimal"
        return {"type": "literal", "value": text, "datatype": XSD + datatype}
    if isinstance(value, Boolean):
        return {"type": "literal", "value": "true" if value.value else "false", "datatype": XSD + "boolean"}
    if isinstance(value, Date):
        return {"type": "literal", "value": value.value.isoformat(), "datatype": XSD + "date"}
    if isinstance(value, DateTime):
        return {"type": "literal", "value": value.isoformat(), "datatype": XSD + "dateTime"}
    if isinstance(value, Time):
        return {"type": "literal", "value": value.isoformat(), "datatype": XSD + "time"}
    if isinstance(value, Nil):
        return None
    raise ValueError(f"no SPARQL term for {value!r}")


def sparql_results_from_relation(relation: Relation | bool, variables: Sequence[str] | None = None) -> dict[str, Any]:
    """SPARQL results JSON (as a dict) for a relation, or for a bool as an ASK result.

    ``variables`` names the columns (default ``x1``, ``x2``, ...). Integers are written as
    ``xsd:integer``, reals as ``xsd:decimal`` (``xsd:double`` when they need an exponent),
    booleans, dates as ``xsd:date``, date-times as ``xsd:dateTime``, times as ``xsd:time``
    (their CAS spelling, offsets as held), strings of the URI or blank-node shape as those
    terms, other strings as plain literals, ``NIL`` as an
    unbound variable: reading the result back gives an equal relation. Raises ``ValueError``
    for a value with no SPARQL term (a failure token).

    >>> sparql_results_from_relation(True)
    {'head': {}, 'boolean': True}
    """
    if isinstance(relation, bool):
        return {"head": {}, "boolean": relation}
    names = list(variables) if variables is not None else [f"x{i + 1}" for i in range(relation.arity)]
    if relation.rows and len(names) != relation.arity:
        raise ValueError(f"{len(names)} variable names for a relation of arity {relation.arity}")
    if len(set(names)) != len(names):
        raise ValueError("variable names must be distinct")
    bindings = []
    for row in relation.rows:
        binding = {}
        for name, value in zip(names, row):
            term = _term(value)
            if term is not None:
                binding[name] = term
        bindings.append(binding)
    return {"head": {"vars": names}, "results": {"bindings": bindings}}
