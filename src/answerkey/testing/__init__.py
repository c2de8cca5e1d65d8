"""Testing support: public Hypothesis strategies (``answerkey.testing.strategies``), the
Hypothesis plugin that teaches ``st.from_type`` answerkey's types, and the fuzzers behind
``answerkey fuzz`` (``answerkey.testing.fuzz``).

Nothing is imported here: Hypothesis loads the plugin while it is itself being imported.
"""
