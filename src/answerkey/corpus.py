"""The documented import path ``answerkey.corpus``, kept: the code is in ``answerkey.score.load``."""

from answerkey.score.load import *  # noqa: F403
