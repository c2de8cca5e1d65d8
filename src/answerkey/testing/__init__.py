"""Testing support: public Hypothesis strategies (``answerkey.testing.strategies``), the
Hypothesis plugin that teaches ``st.from_type`` answerkey's types (``plugin``), and the
fuzzers behind ``answerkey fuzz`` (``fuzz``, which gathers ``commands``: running a formatter
safely, ``parsers``: fuzzing answerkey's readers, and ``runs``: deterministic Hypothesis runs).

Nothing is imported here: Hypothesis loads the plugin while it is itself being imported.
"""
