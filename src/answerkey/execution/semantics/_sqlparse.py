"""sqlparse's tokens and statement splitting, as far as test-suite-sql-eval's DISTINCT removal
depends on them (its ``parse.remove_distinct``: ``sqlparse.parse(s)[0].flatten()``, then every
token that is the word ``distinct`` dropped; commit e97acc5, ``parse.py`` lines 139-141, called
at ``exec_eval.py`` lines 188-190). answerkey does not use sqlparse.

This is the one place answerkey reads SQL text by rules of its own rather than with sqlglot:
the official rule is defined as operations on sqlparse's tokens, so the same operations are
done on the same tokens (checked against the official code on 50,000 generated texts).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import lru_cache

from answerkey.limits import MAX_QUERY_CHARS

# test-suite-sql-eval removes DISTINCT by reading the query with sqlparse, keeping its first
# statement, and dropping each token that is the word "distinct" in any case. So what counts
# is where sqlparse's tokens start and end. These are its rules, in its order of priority
# (the first that matches at a position makes the token), as far as they place token ends;
# its rules joining keywords ("GROUP BY", "LEFT OUTER JOIN") end where the words end anyway.
# Comments /* */ and $tag$ strings are found apart (_Delimited): a regular expression would
# take quadratic time on many unclosed ones. Letters are [A-ZÀ-Ü] in any case, as sqlparse's.
_SQLPARSE_RULES = (
    r"(?P<comment>(?:--|\# ).*?(?:\r\n|\r|\n|$))",  # to the end of the line
    r"(?P<newline>\r\n|\r|\n)",
    r"(?P<space>[^\S\r\n]+)",  # sqlparse takes one character at a time: the same ends
    r":=|::|\*",
    r"`(?:``|[^`])*`|´(?:´´|[^´])*´",  # quoted names
    r"\?|%(?:\(\w+\))?s|(?<!\w)[$:?]\w+|\\\w+",  # placeholders and commands
    r"(?P<keyword>(?:CASE|IN|VALUES|USING|FROM|AS)\b)",
    r"(?:@|\#\#|\#)[A-ZÀ-Ü]\w+",
    r"[A-ZÀ-Ü]\w*(?=\s*\.(?!\d))|(?<=\.)[A-ZÀ-Ü]\w*|[A-ZÀ-Ü]\w*(?=\()",  # a name by a dot or before (
    r"-?0x[\dA-F]+|-?\d+(?:\.\d+)?E-?\d+",
    r"(?![_A-ZÀ-Ü])-?(?:\d+\.\d*|\.\d+)(?![_A-ZÀ-Ü])|(?![_A-ZÀ-Ü])-?\d+(?![_A-ZÀ-Ü])",
    r"(?P<string>'(?:''|\\'|[^'])*')",  # sqlparse's String.Single
    r'(?P<symbol>"(?:""|\\"|[^"])*"|""|".*?[^\\]")',  # its String.Symbol
    r"(?<![\w\])])\[[^\]\[]+\]",  # a [name] (after a word or a bracket: an index)
    # Keywords of more than one word that name a block or hide a word that does.
    r"(?P<compound>END(?:\s+IF|\s+LOOP|\s+WHILE|\s+FOR|\s+CASE)?\b|IF\s+(?:NOT\s+)?EXISTS\b|HANDLER\s+FOR\b|GO\s\d+\b)",
    r"(?P<create>CREATE(?:\s+OR\s+REPLACE)?\b)",
    r"(?P<word>\w[$#\w]*)",  # a keyword or a name
    r"(?P<punctuation>[;:()\[\],.])",
    r"->>?|\#>>?|@>|<@|\?\|?|\?&|-|\#-|[<>=~!]+|[+/@\#%^&|-]+",  # operators
    r"[\s\S]",  # anything else, one character
)
_SQLPARSE_TOKEN = re.compile("|".join(f"(?:{rule})" for rule in _SQLPARSE_RULES), re.IGNORECASE)
_DOLLAR_OPENING = re.compile(r'(?<![\w"$])\$(?:[_A-ZÀ-Ü]\w*)?\$', re.IGNORECASE)
_DOLLAR_TAGS = re.compile(r"(?=(\$(?:[_A-ZÀ-Ü]\w*)?\$))", re.IGNORECASE)  # overlapping ones too
# Keywords a transaction's BEGIN may be followed by (sqlparse reads TRAN and DISTRIBUTED as names).
_TRANSACTION_WORDS = frozenset({"TRANSACTION", "WORK", "DEFERRED", "IMMEDIATE", "EXCLUSIVE"})
# The one-word keywords that open or close a block, or end a statement (CASE and END have rules).
_BLOCK_KEYWORDS = frozenset({"BEGIN", "DECLARE", "FOR", "WHILE", "LOOP", "DO", "IF", "GO"}) | _TRANSACTION_WORDS
# The blocks each END ... closes (a bare END closes any).
_CLOSING = {
    "END IF": ("IF",),
    "END FOR": ("FOR",),
    "END WHILE": ("WHILE",),
    "END CASE": ("CASE",),
    "END LOOP": ("LOOP", "FOR", "WHILE"),
}


class _Delimited:
    """Where each ``/* */`` comment and ``$tag$`` string of a text ends, found as sqlparse
    finds them: from an opening ``/*`` (or ``$tag$`` not after a word character, ``"`` or
    ``$``) to the first closing ``*/`` (the same tag) that starts after it; unclosed, none."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.comment_ends = [match.start() for match in re.finditer(r"\*/", text)] if "/*" in text else []
        self.tags: dict[str, list[int]] = {}
        if "$" in text:
            for match in _DOLLAR_TAGS.finditer(text):
                self.tags.setdefault(match.group(1), []).append(match.start())

    def end(self, position: int) -> int | None:
        """Where the comment or string opening at ``position`` ends (None: none opens there)."""
        text = self.text
        if text.startswith("/*", position):
            return self._after(self.comment_ends, position + 2, 2)
        if text.startswith("$", position) and self.tags:
            tag = _DOLLAR_OPENING.match(text, position)
            if tag is not None:
                return self._after(self.tags[tag.group()], tag.end(), len(tag.group()))
        return None

    @staticmethod
    def _after(starts: list[int], position: int, width: int) -> int | None:
        index = bisect.bisect_left(starts, position)
        return starts[index] + width if index < len(starts) else None


def _sqlparse_tokens(text: str) -> Iterator[tuple[int, int, str | None]]:
    """Each token of ``text`` as sqlparse cuts it: its start, its end, and the kind of token
    that splitting statements depends on (None for the others): ``space``, ``newline``,
    ``comment`` (a ``--`` one), ``block`` (a ``/* */`` one), ``hint`` (``--+`` or ``/*+``),
    ``punctuation``, ``keyword`` (those that open or close a block, which need the token's
    text), ``create``, and ``string`` and ``symbol`` (a ``'...'`` and a ``"..."`` string: the
    tokens test-suite-sql-eval's plug_value takes for values)."""
    delimited = _Delimited(text)
    position = 0
    while position < len(text):
        end = delimited.end(position)
        if end is not None:
            kind = None if text[position] == "$" else "hint" if text.startswith("/*+", position) else "block"
        else:
            match = _SQLPARSE_TOKEN.match(text, position)
            assert match is not None  # the last rule matches any character
            end = match.end()
            kind = match.lastgroup
            if kind == "comment" and text.startswith(("--+", "# +"), position):
                kind = "hint"
            elif kind == "compound":
                kind = "keyword"
            elif kind == "word":
                kind = "keyword" if match.group().upper() in _BLOCK_KEYWORDS else None
        yield position, end, kind
        position = end


class _Statements:
    """sqlparse's statement splitter (its 0.5 and 0.6 versions), to find where the first
    statement ends: a ``;`` ends it outside parentheses and blocks, where a ``BEGIN`` opens a
    block (unless a transaction's: ``BEGIN;``, ``BEGIN TRANSACTION``), an ``END`` closes one
    and counts as a closing parenthesis even without one (the ``END`` of a CASE), and, within
    a BEGIN block, ``IF``, ``CASE``, ``LOOP`` and ``FOR``/``WHILE`` ... ``LOOP``/``DO``
    open blocks; a ``DECLARE`` after CREATE opens one too. A ``GO`` (in capitals) ends it
    as well."""

    def __init__(self) -> None:
        self.level = 0
        self.blocks: list[str] = []
        self.loop: str | None = None  # a FOR or WHILE until its LOOP or DO
        self.creating = False
        self.after_begin = False

    def ends(self, kind: str | None, value: str) -> bool:
        """Take the next token; whether the statement ends with it."""
        self.level += self._change(kind, value)
        if kind == "punctuation" and value == ";":
            self.after_begin = False
            return self.level <= 0 and "BEGIN" not in self.blocks
        if kind == "keyword" and value.split(maxsplit=1)[0] == "GO":
            return True
        if kind not in ("space", "newline", "comment", "block") and not (
            kind == "keyword" and value.upper() == "BEGIN"
        ):
            self.after_begin = False
        return False

    def _change(self, kind: str | None, value: str) -> int:
        """How the token changes the level."""
        if kind == "punctuation":
            if value == ";":
                self.loop = None
                if self.after_begin:
                    self.after_begin = False
                    if self.blocks and self.blocks[-1] == "BEGIN":
                        self.blocks.pop()
                        return -1
                return 0
            return {"(": 1, ")": -1}.get(value, 0)
        if kind == "create":
            self.creating = True
            return 0
        if kind != "keyword":
            return 0
        word = value.upper()
        if word == "DECLARE" and self.creating and not self.blocks:
            self.blocks.append("DECLARE")
            return 1
        if word == "BEGIN":
            self.after_begin = True
            if self.blocks and self.blocks[-1] == "DECLARE":
                self.blocks[-1] = "BEGIN"
                return 0
            self.blocks.append("BEGIN")
            return 1
        if self.after_begin and word in _TRANSACTION_WORDS:
            self.after_begin = False
            if self.blocks and self.blocks[-1] == "BEGIN":
                self.blocks.pop()
                return -1
            return 0
        if "BEGIN" in self.blocks:
            if word in ("FOR", "WHILE"):
                self.loop = word
                return 0
            if word in ("LOOP", "DO") and self.loop is not None:
                self.blocks.append(self.loop)
                self.loop = None
                return 1
            if word in ("LOOP", "IF", "CASE"):
                self.blocks.append(word)
                return 1
        if word == "END":
            if self.blocks:
                self.blocks.pop()
            return -1
        if word in _CLOSING and self.blocks and self.blocks[-1] in _CLOSING[word]:
            self.blocks.pop()
            return -1
        return 0


def _first_statement(text: str) -> list[tuple[int, int, str | None]] | None:
    """The tokens of the first statement of ``text`` as sqlparse splits statements: up to
    where ``_Statements`` ends it, with the spaces and ``--`` comments after that on its line
    (None when the text is only white space: test-suite-sql-eval then fails on an empty list)."""
    tokens: list[tuple[int, int, str | None]] = []
    statements = _Statements()
    ended = False
    for token in _sqlparse_tokens(text):
        start, end, kind = token
        if ended:
            if kind in ("space", "comment"):
                tokens.append(token)
                continue
            return tokens
        tokens.append(token)
        ended = statements.ends(kind, text[start:end])
    if all(kind in ("space", "newline") for _, _, kind in tokens):
        return None
    return tokens


def statement_tokens(text: str) -> list[tuple[str, str | None]] | None:
    """The tokens of ``text``'s first statement as sqlparse cuts them (``sqlparse.parse(text)[0]
    .flatten()``), each its text and its kind (``_sqlparse_tokens``); None for a text that is
    only white space, on which the official code fails."""
    tokens = _first_statement(text)
    return None if tokens is None else [(text[start:end], kind) for start, end, kind in tokens]


def statement_and_distinct(text: str) -> tuple[str, str]:
    """What test-suite-sql-eval's DISTINCT removal makes of ``text``, in two steps: its first
    statement, then that statement without its tokens that are the word ``distinct`` in any
    case (in ``COUNT(DISTINCT x)`` too; not in a string, a quoted name or a comment). A text
    that is only white space is left as it is."""
    if len(text) > MAX_QUERY_CHARS:
        return text, text  # no engine runs it: not worth reading
    if ";" not in text and "GO" not in text and "distinct" not in text.lower():
        return text, text  # one statement without the word: nothing to remove (most queries)
    if len(text) <= _KEPT_CHARS:
        return _kept_statement_and_distinct(text)
    return _statement_and_distinct(text)


# Texts this long at most have their reading kept (the last _KEPT of them): the same gold
# and predicted texts come back in many items of a run (on the benchmark suite, 216 texts
# with DISTINCT are 42 distinct ones).
_KEPT_CHARS = 20_000
_KEPT = 512


def _statement_and_distinct(text: str) -> tuple[str, str]:
    """``statement_and_distinct`` of a text that may hold a statement after the first or the word."""
    tokens = _first_statement(text)
    if tokens is None:
        return text, text
    first = text[: tokens[-1][1]]
    return first, "".join(first[start:end] for start, end, _ in tokens if first[start:end].lower() != "distinct")


_kept_statement_and_distinct = lru_cache(maxsize=_KEPT)(_statement_and_distinct)
