"""Schema validation errors worded for users, and the one rule for ids (``answerkey.files``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from answerkey.errors import InputError, closest, did_you_mean, kind_of


def _schema_names(model: Any) -> set[str]:
    """Every property name in a pydantic model's JSON Schema (for "did you mean")."""
    names: set[str] = set()
    try:
        schema = model.model_json_schema()
    except Exception:  # noqa: BLE001 - a schema that cannot be printed only loses suggestions
        return names
    stack: list[Any] = [schema]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            properties = current.get("properties")
            if isinstance(properties, dict):
                names.update(properties)
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return names


_EXPECTED = {
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "tuple_type": "a list",
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
}


def _message(detail: Mapping[str, Any], known: set[str]) -> str:
    """One pydantic error in answerkey's words (no "Input should be", no Python type names)."""
    kind = detail.get("type", "")
    loc = detail.get("loc", ())
    given = detail.get("input")
    if kind == "missing":
        # A key the record gives that is no field and close to this one: a misspelling of it.
        name = str(loc[-1]) if loc else ""
        given_keys = [str(key) for key in given if str(key) not in known] if isinstance(given, Mapping) else []
        typo = closest(name, given_keys) if name else None
        hint = f" (the record has {typo!r}: did you mean {name!r}?)" if typo is not None else ""
        return "missing; this field is required" + hint
    if kind == "extra_forbidden":
        name = str(loc[-1]) if loc else ""
        return "unknown field" + did_you_mean(name, sorted(known))
    if kind in _EXPECTED:
        return f"should be {_EXPECTED[kind]}, not {kind_of(given)}"
    if kind == "string_too_short" and detail.get("ctx", {}).get("min_length") == 1:
        return "should not be empty"
    message = str(detail.get("msg", "invalid"))
    for prefix in ("Value error, ", "Assertion failed, "):
        if message.startswith(prefix):
            message = message[len(prefix) :]
    if message.startswith("Input should be"):
        message = "should be" + message[len("Input should be") :]
    return message


def validation_errors(
    error: Any,
    *,
    source: str,
    locate: Callable[[tuple[Any, ...]], tuple[int | None, int | None]],
    model: Any = None,
    prefix: tuple[Any, ...] = (),
) -> list[InputError]:
    """A pydantic ``ValidationError`` as located ``InputError`` values, in answerkey's words.

    ``locate`` maps a key path to a position (``Document.locate``); ``prefix`` is the path of
    the validated value in the document; ``model``, when given, supplies field names for
    "did you mean" hints.
    """
    known = _schema_names(model) if model is not None else set()
    found = []
    for detail in error.errors(include_url=False):
        loc = tuple(part for part in detail.get("loc", ()) if not (isinstance(part, str) and "[" in part))
        line, column = locate((*prefix, *loc))
        where = ".".join(str(part) for part in loc)
        message = _message(detail, known)
        found.append(InputError(f"{where}: {message}" if where else message, source=source, line=line, column=column))
    return found


def id_text(value: object) -> str | None:
    """The text of an id (an item, test, case or db id): text as given, an integer as its
    digits; None for anything else (``1.0`` or ``true`` would not read back as written).

    >>> id_text(7), id_text("q1"), id_text(1.0), id_text(True)
    ('7', 'q1', None, None)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) else None


def read_id(value: Any, what: str = "an id") -> Any:
    """``id_text`` as a schema validator (a pydantic ``BeforeValidator``): null stays null,
    anything else that is not an id is a ``ValueError`` worded for the user, the same rule in
    every file format.

    >>> read_id(7), read_id(None)
    ('7', None)
    >>> read_id(1.0)
    Traceback (most recent call last):
    ...
    ValueError: an id is a string or an integer, not a number
    """
    text = id_text(value)
    if text is not None or value is None:
        return text
    raise ValueError(f"{what} is a string or an integer, not {kind_of(value)}")
