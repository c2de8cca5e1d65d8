"""A user's own registry entries (metrics, semantics), in modules named by an environment
variable, so that every command and every process of a run (``--jobs`` workers, Dask workers)
imports them with the registry that they register in.

>>> import_modules("ANSWERKEY_NO_SUCH_VARIABLE", {})
[]
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Mapping


def import_modules(variable: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """Import the modules the environment variable ``variable`` names (comma-separated: each a
    module name, or the path of a ``.py`` file, imported once as the module named by its file
    name); the names imported. A file that is not there is an ``ImportError`` naming
    ``variable``."""
    environ = os.environ if environ is None else environ
    names = [name.strip() for name in environ.get(variable, "").split(",") if name.strip()]
    for name in names:
        if name.endswith(".py"):
            _import_file(variable, name)
        else:
            importlib.import_module(name)
    return names


def _import_file(variable: str, path: str) -> None:
    module_name = os.path.splitext(os.path.basename(path))[0]
    if module_name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None or not os.path.isfile(path):
        raise ImportError(f"{variable}: no Python file at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
