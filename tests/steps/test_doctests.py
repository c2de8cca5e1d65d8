"""The runnable examples in the steps, SPARQL adapter and retrieval metric docstrings hold."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", [
    "answerkey.steps.run", "answerkey.steps.aggregates", "answerkey.steps.matching",
    "answerkey.steps.outputs", "answerkey.steps.answers", "answerkey.adapters.sparql",
    "answerkey.metrics.retrieval",
])
def test_docstring_examples(name):
    """Each module's `>>>` examples run and print what they show."""
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
