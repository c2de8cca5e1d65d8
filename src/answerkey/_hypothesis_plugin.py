"""Hypothesis entry point (``answerkey[fuzz]``): ``st.from_type`` knows answerkey's types.

Hypothesis calls ``_hypothesis_setup_hook`` while it is itself being imported, possibly from
inside ``answerkey.strategies``; registrations are therefore deferred until first use.
"""

from __future__ import annotations


def _hypothesis_setup_hook() -> None:
    from hypothesis import strategies as st

    from answerkey import model

    def deferred(name: str):
        def build():
            from answerkey import strategies

            return getattr(strategies, name)()

        return st.deferred(build)

    st.register_type_strategy(model.Relation, deferred("relations"))
    st.register_type_strategy(model.Alternatives, deferred("alternatives"))
    for value_type in (model.Boolean, model.Number, model.String, model.Date):
        st.register_type_strategy(value_type, deferred(f"_{value_type.__name__.lower()}_values"))
