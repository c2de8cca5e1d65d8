"""The names the workflows had before one naming scheme (``run_<workflow>``, ``<Workflow>Run``)
keep working for one release: each warns, naming its new name, and gives the new object."""

import importlib
import warnings

import pytest

# (module, old name, new name): every old name, in the module and the package that exported it.
RENAMED = [
    ("answerkey.score.run", "score_corpus", "run_score"),
    ("answerkey.qatch.run", "run_tests", "run_qatch"),
    ("answerkey.qatch", "run_tests", "run_qatch"),
    ("answerkey.sdmx.run", "evaluate", "run_sdmx"),
    ("answerkey.sdmx", "evaluate", "run_sdmx"),
    ("answerkey.sdmx.run", "SuiteResult", "SdmxRun"),
    ("answerkey.sdmx", "SuiteResult", "SdmxRun"),
    ("answerkey.steps.run", "evaluate_steps", "run_steps"),
    ("answerkey.steps", "evaluate_steps", "run_steps"),
    ("answerkey.steps.run", "EvaluationRun", "StepsRun"),
    ("answerkey.steps", "EvaluationRun", "StepsRun"),
    ("answerkey.steps.run", "AggregationRun", "StepsAggregationRun"),
    ("answerkey.steps", "AggregationRun", "StepsAggregationRun"),
    ("answerkey.answers.run", "judge_table", "run_answers"),
]


@pytest.mark.parametrize(("module_name", "old", "new"), RENAMED)
def test_an_old_name_warns_and_gives_the_new_object(module_name, old, new):
    """module.OLD gives module.NEW, with a DeprecationWarning that names both."""
    module = importlib.import_module(module_name)
    message = f"{module_name}.{old} is deprecated: use {module_name}.{new} (the old name goes in the next release)"
    with pytest.warns(DeprecationWarning) as caught:
        value = getattr(module, old)
    assert value is getattr(module, new)
    assert [str(warning.message) for warning in caught] == [message]


@pytest.mark.parametrize(("module_name", "old", "new"), RENAMED)
def test_only_the_new_name_is_exported(module_name, old, new):
    """The package's ``__all__`` lists the new name, not the old one (``import *`` brings only
    the new); its ``run`` module, an implementation module, has no ``__all__``."""
    package = importlib.import_module(module_name.removesuffix(".run"))
    assert new in package.__all__
    assert old not in package.__all__


def test_the_warning_points_at_the_import_that_used_the_old_name():
    """``from answerkey.qatch import run_tests`` warns on that line, so the user finds it
    (Python asks a package for the name twice: whether it has it, then the name itself)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from answerkey.qatch import run_tests  # noqa: F401
    assert caught
    assert {(warning.category, warning.filename) for warning in caught} == {(DeprecationWarning, __file__)}


def test_an_unknown_name_is_still_an_attribute_error():
    """A name that never existed raises AttributeError naming it, without a warning."""
    sdmx = importlib.import_module("answerkey.sdmx")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError) as raised:
            sdmx.evaluate_suite  # noqa: B018
        assert str(raised.value) == "module 'answerkey.sdmx' has no attribute 'evaluate_suite'"
        assert not hasattr(sdmx, "run_tests")
