"""The documented import path ``answerkey.strategies``, kept: the code is in ``answerkey.testing.strategies``."""

from answerkey.testing.strategies import *  # noqa: F403
from answerkey.testing.strategies import __all__  # noqa: F401
