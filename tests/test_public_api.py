"""The public surface is small and documented: the public packages' ``__all__`` lists are the
only ones, they hold under 200 names that resolve and carry docstrings, and the API reference
pages show exactly those packages."""

import ast
import importlib
import inspect
import re
import warnings
from pathlib import Path

import pytest

SRC = Path(__file__).parents[1] / "src"
API_DOCS = Path(__file__).parents[1] / "docs" / "api"

# The modules users import from; every other module is implementation and has no ``__all__``.
PUBLIC = [
    "answerkey",
    "answerkey.model",
    "answerkey.grammar",
    "answerkey.comparator",
    "answerkey.metrics",
    "answerkey.adapters",
    "answerkey.adapters.engines",
    "answerkey.execution",
    "answerkey.execution.semantics",
    "answerkey.execution.spider_match",
    "answerkey.score",
    "answerkey.qatch",
    "answerkey.sdmx",
    "answerkey.steps",
    "answerkey.answers",
    "answerkey.compare",
    "answerkey.compat.qatch",
    "answerkey.compat.graphrag_eval",
    "answerkey.strategies",
    "answerkey.testing.assertions",
    "answerkey.errors",
    "answerkey.signature",
    "answerkey.limits",
    "answerkey.report",
]
MAX_EXPORTED = 200


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_with_all() -> set[str]:
    """The modules of src/answerkey that assign ``__all__`` at top level, read from the source."""
    found = set()
    for path in (SRC / "answerkey").rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
                found.add(module_name(path))
    return found


def exported(name: str) -> list[str]:
    return list(importlib.import_module(name).__all__)


def test_the_public_surface_is_under_200_names():
    """All the public packages together export fewer than 200 names, none twice in one list."""
    counts = {name: len(exported(name)) for name in PUBLIC}
    assert sum(counts.values()) < MAX_EXPORTED, counts
    assert all(len(set(exported(name))) == counts[name] for name in PUBLIC)


@pytest.mark.parametrize("name", PUBLIC)
def test_every_exported_name_resolves_without_a_warning(name):
    """Each name in a public package's ``__all__`` is an attribute of it, and none is a
    deprecated old name (those warn and stay out of ``__all__``)."""
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        missing = [export for export in module.__all__ if not hasattr(module, export)]
    assert missing == []


def test_only_the_public_modules_have_an_all():
    """No implementation module declares ``__all__``: a new one that does fails here, so the
    surface grows only by a decision (adding it to PUBLIC, the docs and this count)."""
    assert modules_with_all() == set(PUBLIC)


def test_the_api_reference_documents_exactly_the_public_modules():
    """The ``::: module`` blocks of docs/api/*.md name each public module once and nothing else."""
    targets = [
        target
        for page in sorted(API_DOCS.glob("*.md"))
        for target in re.findall(r"^::: *(\S+)", page.read_text(encoding="utf-8"), re.MULTILINE)
    ]
    assert sorted(targets) == sorted(PUBLIC)


def has_own_docstring(value: object) -> bool:
    """A written docstring: not inherited, nor the ``Name(field=...)`` line dataclasses make up."""
    if inspect.isclass(value):
        doc = value.__dict__.get("__doc__")
        return bool(doc) and not doc.startswith(f"{value.__name__}(")
    return bool(getattr(value, "__doc__", None))


def is_documented_by_its_name(value: object) -> bool:
    """A constant (numbers, strings, tuples, mappings, single instances such as ``NIL``) or a
    type alias: a runtime object whose ``__doc__`` is its type's, documented where it is assigned."""
    return not (inspect.isclass(value) or inspect.isroutine(value) or inspect.ismodule(value)) and (
        not callable(value) or type(value).__doc__ == getattr(value, "__doc__", None)
    )


@pytest.mark.parametrize("name", PUBLIC)
def test_every_exported_function_and_class_has_a_docstring(name):
    """Each exported function, class and strategy says what it does; only constants and type
    aliases may go without (their docstrings are attribute docstrings, seen by the reference)."""
    module = importlib.import_module(name)
    undocumented = [
        export
        for export in module.__all__
        if not is_documented_by_its_name(getattr(module, export)) and not has_own_docstring(getattr(module, export))
    ]
    assert undocumented == []


def test_the_check_catches_an_undocumented_function_and_a_made_up_dataclass_docstring():
    """The docstring check is not vacuous: a bare function and a dataclass without a docstring fail it."""
    from dataclasses import dataclass

    def bare():
        pass

    @dataclass
    class Bare:
        field: int

    assert not has_own_docstring(bare)
    assert not has_own_docstring(Bare)
    assert not is_documented_by_its_name(bare)
    assert is_documented_by_its_name((1, 2))
