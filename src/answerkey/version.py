"""The version of answerkey, in every signature and in `answerkey --version`."""

__version__ = "0.1.0"
"""answerkey's version."""
