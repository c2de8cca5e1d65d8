"""What must hold before a SQL query runs, and the words of every limit's error
(``answerkey.adapters.sql``): the query is text, the db_id a name, the limits numbers, the
database file inside its root and at rest.
"""

from __future__ import annotations

import os
import re
import stat

from answerkey.errors import kind_of
from answerkey.limits import (
    MAX_DB_ID_CHARS,
    MAX_QUERY_CHARS,
)

# The first 8 bytes of a rollback journal that is "hot" (holds a transaction to roll back).
_HOT_JOURNAL = bytes.fromhex("d9d505f920a163d7")


# A db_id names one directory under the root: no separators, no "." or "..".
_DB_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\- ]*")


def db_id_problem(db_id: object) -> str | None:
    """Why ``db_id`` cannot name a database (a directory under a root, a database on a
    server), or None: at most ``MAX_DB_ID_CHARS`` characters, letters, digits, ``_``, ``.``,
    ``-`` and spaces, not starting with a dot.

    >>> db_id_problem("concert_singer") is None, db_id_problem("../etc")
    (True, "not a database name: '../etc'")
    """
    return _db_id_problem(db_id)


def query_problem(query: object) -> str | None:
    """Why ``query`` cannot be run (not text, too long, a lone surrogate), or None.

    >>> query_problem(3)
    'the query is an integer, not text'
    """
    return _query_problem(query)


def limits_problem(timeout: object, max_rows: object, max_result_bytes: object) -> str | None:
    """Why the limits cannot bound a query, or None (an infinite timeout is no time limit).

    >>> limits_problem(0, 10, 10)
    'the time limit must be a number of seconds above 0, not 0'
    """
    return _limits_problem(timeout, max_rows, max_result_bytes)


def inside_root(root: str, real: str) -> bool:
    """Whether the real path ``real`` lies inside the real directory ``root``.

    >>> inside_root("/data", "/data/x/x.sqlite"), inside_root("/data", "/database/x.sqlite")
    (True, False)
    """
    return _inside(root, real)


def past_time_limit(timeout: float) -> str:
    """The error of a query stopped at its time limit, the same for every engine.

    >>> past_time_limit(2.5)
    'the query ran past the time limit of 2.5 s'
    """
    return _past_time_limit(timeout)


def too_many_rows(max_rows: int) -> str:
    """The error of a query that returned more rows than ``max_rows``, the same for every engine.

    >>> too_many_rows(10)
    'the query returned more than 10 rows'
    """
    return f"the query returned more than {max_rows} rows"


def too_many_bytes(max_result_bytes: int) -> str:
    """The error of a result larger than ``max_result_bytes``, the same for every engine.

    >>> too_many_bytes(1000)
    "the query's result is larger than the limit of 1,000 bytes (--max-result-bytes raises it)"
    """
    return f"the query's result is larger than {byte_limit(max_result_bytes)}"


def _inside(root: str, real: str) -> bool:
    """Whether the real path ``real`` lies inside the real directory ``root``."""
    try:
        return os.path.commonpath([root, real]) == root
    except ValueError:  # on different drives (Windows)
        return False


def _db_id_problem(db_id: object) -> str | None:
    """Why ``db_id`` cannot name a database under a root, or None."""
    if not isinstance(db_id, str):
        return f"not a database name: {db_id!r}"
    problem = _not_text(db_id, "the db_id")
    if problem is not None:
        return problem
    if len(db_id) > MAX_DB_ID_CHARS:
        return f"the db_id is longer than {MAX_DB_ID_CHARS:,} characters (it has {len(db_id):,})"
    if not _DB_ID.fullmatch(db_id):
        return f"not a database name: {db_id!r}"
    return None


def _query_problem(query: object) -> str | None:
    """Why ``query`` cannot be given to SQLite, or None."""
    if not isinstance(query, str):
        return f"the query is {kind_of(query)}, not text"
    if len(query) > MAX_QUERY_CHARS:
        return f"the query is longer than {MAX_QUERY_CHARS:,} characters (it has {len(query):,})"
    return _not_text(query, "the query")


def _not_text(text: str, what: str) -> str | None:
    """Why ``text`` cannot be encoded as UTF-8 (a lone surrogate, which is not a character), or None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"{what} is not valid text: it holds half of a UTF-16 surrogate pair at character {error.start + 1:,}"
    return None


def _limits_problem(timeout: object, max_rows: object, max_result_bytes: object) -> str | None:
    """Why the limits cannot bound a query, or None (an infinite timeout is no time limit)."""
    if not isinstance(timeout, (int, float)) or not timeout > 0:
        return f"the time limit must be a number of seconds above 0, not {timeout!r}"
    if not isinstance(max_rows, int) or max_rows < 0:
        return f"the row limit must be a whole number, 0 or more, not {max_rows!r}"
    if not isinstance(max_result_bytes, int) or max_result_bytes < 1:
        return f"the byte limit must be a whole number above 0, not {max_result_bytes!r}"
    return None


def os_reason(error: Exception) -> str:
    """An OS error's reason without Python's decoration."""
    return getattr(error, "strerror", None) or str(error) or "unreadable"


def being_written(real: str, label: str) -> str | None:
    """Why the database file ``real`` is not at rest (a -wal file with changes, a hot
    -journal), or None. Opened immutable, SQLite would not look at either."""
    try:
        wal = os.stat(real + "-wal")
        if stat.S_ISREG(wal.st_mode) and wal.st_size > 0:
            return (
                f"the database {label} is being written, or was not closed cleanly: its -wal file holds "
                "changes not in the database file (checkpoint it, or copy it, first)"
            )
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as error:
        return f"cannot check the -wal file of the database {label}: {os_reason(error)}"
    try:
        journal = os.stat(real + "-journal")
        if stat.S_ISREG(journal.st_mode) and journal.st_size >= len(_HOT_JOURNAL):
            with open(real + "-journal", "rb") as file:
                if file.read(len(_HOT_JOURNAL)) == _HOT_JOURNAL:
                    return (
                        f"the database {label} is being written, or a write was interrupted: it has a hot "
                        "-journal file (open it once with sqlite3 to roll it back, or copy it, first)"
                    )
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as error:
        return f"cannot check the -journal file of the database {label}: {os_reason(error)}"
    return None


def byte_limit(limit: int) -> str:
    """How the errors name a byte limit, with the option that raises it."""
    return f"the limit of {limit:,} bytes (--max-result-bytes raises it)"


def _past_time_limit(timeout: float) -> str:
    return f"the query ran past the time limit of {timeout:g} s"
