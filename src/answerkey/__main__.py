"""``python -m answerkey``: the same as the ``answerkey`` command."""

from answerkey.cli import main

if __name__ == "__main__":
    main()
