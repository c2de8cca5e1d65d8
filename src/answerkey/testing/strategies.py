"""Hypothesis strategies for CAS values, relations, answers and texts (``answerkey[fuzz]``).

The same strategies answerkey's own tests use. A property test of your own formatter (here
the renderer stands in for it):

>>> from hypothesis import given, settings
>>> from answerkey import judge, parse, render
>>> @settings(max_examples=20, database=None)
... @given(relations())
... def test_my_formatter_round_trips(relation):
...     assert judge(relation, parse(render(relation)))
>>> test_my_formatter_round_trips()

- ``values()``, ``relations()``, ``answers()``, ``alternatives()``: typed model objects;
- ``sorted_relations()``: relations ordered by sort keys (``(ORDERED BY 2 ...)``) whose
  tuples tie;
- ``cas_texts()`` / ``cas_spellings(answer)``: valid CAS text in all the spellings the dialect
  allows (whitespace, comments, keyword case, bare or quoted strings, escapes, date forms,
  date-time and time fractions with trailing zeros, UTC as ``Z``, ``+00:00`` or ``-00:00``);
- ``invalid_cas_texts()``: near misses that must be rejected with a ``ParseError``;
- ``equivalent_pairs()`` / ``inequivalent_pairs()``: (canonical, system) answers that must
  judge correct / incorrect with the default options;
- ``DECLARED_TERMINALS``: strategies for the tokens cas.lark declares (``BY``, ``SORT_KEY``),
  to draw texts from the grammar itself: ``from_lark(grammar, explicit=DECLARED_TERMINALS)``.
"""

from __future__ import annotations

from hypothesis import strategies as st

from answerkey.testing._invalid import (
    INVALID_KINDS as INVALID_KINDS,
    invalid_cas_texts as invalid_cas_texts,
    mutated_texts as mutated_texts,
)
from answerkey.testing._pairs import (
    DEFAULT_EPSILON as DEFAULT_EPSILON,
    EQUIVALENT_KINDS as EQUIVALENT_KINDS,
    INEQUIVALENT_KINDS as INEQUIVALENT_KINDS,
    equivalent_pairs as equivalent_pairs,
    inequivalent_pairs as inequivalent_pairs,
)
from answerkey.testing._spellings import cas_spellings as cas_spellings, cas_texts as cas_texts
from answerkey.testing._values import (
    KEY_TYPES as KEY_TYPES,
    MODEL_STRATEGIES as MODEL_STRATEGIES,
    VALUE_TYPES as VALUE_TYPES,
    alternatives as alternatives,
    answers as answers,
    booleans as booleans,
    dates as dates,
    datetimes as datetimes,
    failures as failures,
    integers as integers,
    numbers as numbers,
    reals as reals,
    relations as relations,
    sorted_relations as sorted_relations,
    strings as strings,
    times as times,
    values as values,
)

# cas.lark declares BY and SORT_KEY (its post-lexer makes them from a bare word and numbers):
# hypothesis.extra.lark.from_lark needs strategies for them. Keys are mostly small column
# numbers, sometimes a number that is no column number.
DECLARED_TERMINALS: dict[str, st.SearchStrategy[str]] = {
    "BY": st.sampled_from(["BY", "by", "By"]),
    "SORT_KEY": st.one_of(
        st.sampled_from(["1", "2", "3", "01"]), st.sampled_from(["0", "9", "1.5", "-1", "+2", "1e0", "123456789012"])
    ),
}
