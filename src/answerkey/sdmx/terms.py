"""Selections on the typed model: per (dataset, dimension), a relation of (id, name) terms.

A *selection* maps a dimension key ``(dataset_id, dimension_name)`` to a ``Relation`` of
``(String id, String name)`` tuples. Targets and system selections both become selections;
several turns (or tool calls) are merged by taking the union per dimension key.

>>> chosen = merge([[{"dataset_id": "IMF.RES:WEO", "dimensions": [
...     {"dimension_name": "COUNTRY", "values": [{"id": "MEX", "name": "Mexico"}]}]}]])
>>> [(key, [term.id for term in terms_of(rel)]) for key, rel in chosen.items()]
[(('IMF.RES:WEO', 'COUNTRY'), ['MEX'])]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from answerkey.errors import InputError
from answerkey.model import Relation, String
from answerkey.sdmx.schema import DatasetSelection, TestCase

DimensionKey = tuple[str, str]
Selection = dict[DimensionKey, Relation]
EMPTY = Relation(())


class TermPair(NamedTuple):
    """A term as plain text, for reports."""

    id: str
    name: str


class TermConflict(InputError):
    """One term id with two names in a target; ``path`` points at the second occurrence:
    ``(group index, dataset index, "dimensions", index, "values", index)`` in ``merge``'s groups."""

    def __init__(self, message: str, *, path: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.path = path


def _datasets(entries: Iterable[Any]) -> Iterable[tuple[int, DatasetSelection]]:
    for index, entry in enumerate(entries):
        yield index, entry if isinstance(entry, DatasetSelection) else DatasetSelection.model_validate(entry)


def merge(groups: Iterable[Iterable[Any]], *, strict: bool = False, case_id: str | None = None) -> Selection:
    """Union per dimension key of several ``indicator_selection`` lists (one per turn or
    record) of dicts or ``DatasetSelection``.

    With ``strict`` (targets), a term id named two ways in one dimension raises
    ``TermConflict`` naming ``case_id`` and the term, with ``path`` = (group index, dataset
    index, "dimensions", ..., "values", index); without it (system selections) both spellings
    are kept and scored: the wrong one is a false positive.
    """
    # Plain (id, name) strings while merging (hashing them is cheap); typed values at the end.
    rows: dict[DimensionKey, dict[tuple[str, str], None]] = {}
    names: dict[tuple[DimensionKey, str], str] = {}
    for group_index, entries in enumerate(groups):
        for d_index, dataset in _datasets(entries):
            for k_index, dimension in enumerate(dataset.dimensions):
                key = (dataset.dataset_id, dimension.dimension_name)
                bucket = rows.setdefault(key, {})
                for v_index, term in enumerate(dimension.values):
                    if strict:
                        known = names.setdefault((key, term.id), term.name)
                        if known != term.name:
                            where = f"case {case_id!r}: " if case_id is not None else ""
                            raise TermConflict(
                                f"{where}term {term.id!r} of {key[0]} / {key[1]} is named both "
                                f"{known!r} and {term.name!r}",
                                path=(group_index, d_index, "dimensions", k_index, "values", v_index),
                            )
                    bucket[(term.id, term.name)] = None
    return {key: _relation(bucket) for key, bucket in rows.items()}


def _relation(pairs: Iterable[tuple[str, str]]) -> Relation:
    """A relation of (String, String) tuples; built without re-checking the types just made."""
    rows = tuple((String(term_id), String(name)) for term_id, name in pairs)
    return Relation.checked(rows, 2 if rows else 0)


def as_selection(value: Any) -> Selection:
    """A selection from any accepted spelling: a ready selection, a mapping from dimension
    key to ``(id, name)`` pairs, or an ``indicator_selection`` list.

    >>> as_selection({("ds1", "d1"): [("t1", "first")]})[("ds1", "d1")].rows
    ((String(text='t1'), String(text='first')),)
    """
    if isinstance(value, Mapping):
        selection: Selection = {}
        for key, terms in value.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise TypeError(f"a dimension key is (dataset_id, dimension_name), not {key!r}")
            if isinstance(terms, Relation):
                relation = terms
            else:
                relation = _relation(dict.fromkeys((str(i), str(n)) for i, n in terms))
            if relation.arity not in (0, 2) or not all(
                isinstance(value, String) for row in relation.rows for value in row
            ):
                raise ValueError(f"terms of {key} must be (id, name) pairs of strings")
            selection[(str(key[0]), str(key[1]))] = relation
        return selection
    return merge([value or []])


def terms_of(relation: Relation) -> list[TermPair]:
    """The distinct terms of a dimension, in first-occurrence order, as plain text."""
    return [TermPair(_text(row[0]), _text(row[1])) for row in relation.distinct_rows()]


def _text(value: object) -> str:
    # Term relations hold String values only (``as_selection`` and ``merge`` make sure of it).
    return value.text if isinstance(value, String) else str(value)


def target_of(case: TestCase) -> Selection:
    """The union of the targets of all turns of ``case``.

    Raises ``TermConflict`` if one term id has two names in a dimension; its ``path`` is
    relative to the case (``("conversation", turn, "target", "indicator_selection", ...)``).

    >>> case = TestCase.model_validate({"id": "c1", "conversation": [{"role": "user", "target": {
    ...     "indicator_selection": [{"dataset_id": "ds", "dimensions": [{"dimension_name": "d", "values": [
    ...         {"id": "t", "name": "a term"}]}]}]}}]})
    >>> [(key, [term.id for term in terms_of(terms)]) for key, terms in target_of(case).items()]
    [(('ds', 'd'), ['t'])]
    """
    turns = [(index, turn.target) for index, turn in enumerate(case.conversation) if turn.target is not None]
    try:
        return merge((target.indicator_selection for _, target in turns), strict=True, case_id=case.id)
    except TermConflict as error:
        if error.path:
            error.path = ("conversation", turns[error.path[0]][0], "target", "indicator_selection", *error.path[1:])
        raise
