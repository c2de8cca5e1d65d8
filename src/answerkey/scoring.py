"""The documented import path ``answerkey.scoring``, kept: the code is in ``answerkey.score.run``."""

from answerkey.score.run import *  # noqa: F403
