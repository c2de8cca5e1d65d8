"""Every module's docstring examples run: collected by walking the package, never from a
hand-kept list (a module added tomorrow is tested tomorrow)."""

import doctest
import importlib
import pkgutil

import pytest

import answerkey

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(answerkey.__path__, prefix="answerkey.")
    if info.name != "answerkey.__main__"
)


def test_the_walk_finds_the_package():
    """The walk sees every layer, so an empty list cannot pass silently."""
    for expected in ("answerkey.model", "answerkey.grammar.fast", "answerkey.score.run", "answerkey.cli.options"):
        assert expected in MODULES


@pytest.mark.parametrize("name", ["answerkey", *MODULES])
def test_docstring_examples(name):
    """The module's `>>>` examples run and print what they show."""
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
