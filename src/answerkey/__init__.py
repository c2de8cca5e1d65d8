"""answerkey: judge and score answers of QA and NL-to-data systems against canonical answers.

>>> import answerkey
>>> bool(answerkey.judge("53200.0", "53198.8"))
True
>>> answerkey.render(answerkey.parse('( (2341 "SMITH") )'))
'((2341 "SMITH"))'
"""

from typing import TYPE_CHECKING

from answerkey.errors import AnswerkeyError, InputError, ParseError

# Bound eagerly: ``answerkey.render`` is also a submodule, and importing it (as any module that
# renders does) would otherwise rebind the package attribute to the module, not the function.
from answerkey.grammar.render import render
from answerkey.version import __version__

if TYPE_CHECKING:  # seen by type checkers and the API reference; loaded by __getattr__ below
    from answerkey.comparator._judge import Verdict, judge
    from answerkey.grammar import parse

__all__ = [
    "__version__",
    "AnswerkeyError",
    "InputError",
    "ParseError",
    "parse",
    "render",
    "judge",
    "Verdict",
]

# Loaded on first use so that `import answerkey` and `answerkey --help` stay fast.
_LAZY = {
    "parse": "answerkey.grammar",
    "judge": "answerkey.comparator",
    "Verdict": "answerkey.comparator",
}


def __getattr__(name: str):
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'answerkey' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
