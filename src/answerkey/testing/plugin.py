"""Hypothesis entry point (``answerkey[fuzz]``): ``st.from_type`` knows answerkey's types.

Hypothesis calls ``_hypothesis_setup_hook`` while it is itself being imported, possibly from
inside ``answerkey.testing.strategies``; registrations are therefore deferred until first use, and
this module imports nothing from answerkey at import time.

>>> from hypothesis import given, settings, strategies as st
>>> from answerkey.model import Relation
>>> @settings(max_examples=5, database=None)
... @given(st.from_type(Relation))
... def test_relations_render(relation):
...     assert isinstance(relation, Relation)
>>> test_relations_render()
"""

from __future__ import annotations

# Model type name -> name of the answerkey.testing.strategies function that draws it.
_STRATEGIES = {
    "Relation": "relations",
    "Alternatives": "alternatives",
    "Boolean": "_boolean_values",
    "Number": "_number_values",
    "String": "_string_values",
    "Date": "_date_values",
    "Failure": "_failure_values",
}


def _hypothesis_setup_hook() -> None:
    from hypothesis import strategies as st

    from answerkey import model

    def deferred(name: str):
        def build():
            from answerkey.testing import strategies

            return getattr(strategies, name)()

        return st.deferred(build)

    for type_name, strategy_name in _STRATEGIES.items():
        st.register_type_strategy(getattr(model, type_name), deferred(strategy_name))
    st.register_type_strategy(model.Nil, st.just(model.NIL))
    st.register_type_strategy(model.NoAnswer, st.just(model.NO_ANSWER))
