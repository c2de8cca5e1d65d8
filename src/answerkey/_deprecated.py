"""Old public names that keep working for one release after a rename, with a warning.

A module that renamed public names calls ``keep_old_names(globals(), {OLD: NEW, ...})``: an old
name then gives the object under its new name, with a ``DeprecationWarning`` that names it.

>>> import warnings
>>> namespace = {"__name__": "answerkey.qatch", "run_qatch": len}
>>> keep_old_names(namespace, {"run_tests": "run_qatch"})
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     namespace["__getattr__"]("run_tests") is len
True
>>> print(caught[0].message)
answerkey.qatch.run_tests is deprecated: use answerkey.qatch.run_qatch (the old name goes in the next release)
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, MutableMapping


def keep_old_names(namespace: MutableMapping[str, object], names: Mapping[str, str]) -> None:
    """Give the module whose ``globals()`` is ``namespace`` a module ``__getattr__`` under
    which each old name of ``names`` (old name -> new name) returns the object of the new
    name, with a ``DeprecationWarning``; any other missing name raises ``AttributeError``.

    Set this way, the ``__getattr__`` is unseen by type checkers: code they check is told
    that an old name is gone (and a misspelt name stays an error), while old code runs."""
    module = namespace["__name__"]

    def __getattr__(name: str) -> object:
        new = names.get(name)
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(
            f"{module}.{name} is deprecated: use {module}.{new} (the old name goes in the next release)",
            DeprecationWarning,
            stacklevel=2,  # the line that used the old name
        )
        return namespace[new]

    namespace["__getattr__"] = __getattr__
