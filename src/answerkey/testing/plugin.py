"""Hypothesis entry point (``answerkey[fuzz]``): ``st.from_type`` knows answerkey's types.

Hypothesis calls ``_hypothesis_setup_hook`` (the name its entry points use) while it is
itself being imported, possibly from inside ``answerkey.testing.strategies``; registrations
are therefore deferred until first use, and this module imports nothing from answerkey at
import time. The strategies come from ``answerkey.testing.strategies.MODEL_STRATEGIES``.

>>> from hypothesis import given, settings, strategies as st
>>> from answerkey.model import Relation
>>> @settings(max_examples=5, database=None)
... @given(st.from_type(Relation))
... def test_relations_render(relation):
...     assert isinstance(relation, Relation)
>>> test_relations_render()
"""

from __future__ import annotations

from typing import Any

# The model types registered with a strategy of MODEL_STRATEGIES (a test checks the two agree).
MODEL_TYPES = ("Relation", "Alternatives", "Boolean", "Number", "String", "Date", "DateTime", "Time", "Failure")


def _hypothesis_setup_hook() -> None:
    from hypothesis import strategies as st

    from answerkey import model

    def deferred(type_name: str) -> Any:
        def build() -> Any:
            from answerkey.testing.strategies import MODEL_STRATEGIES

            return MODEL_STRATEGIES[type_name]()

        return st.deferred(build)

    for type_name in MODEL_TYPES:
        st.register_type_strategy(getattr(model, type_name), deferred(type_name))
    st.register_type_strategy(model.Nil, st.just(model.NIL))
    st.register_type_strategy(model.NoAnswer, st.just(model.NO_ANSWER))
