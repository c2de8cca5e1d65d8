"""Spider's tokenisation of a query, for exact-set-match (process_sql.py ``tokenize``).

The official rule is a sequence of string operations (process_sql.py lines 116-147 at
test-suite-sql-eval e97acc54): every single quote becomes a double quote; each pair of
double quotes, with what it encloses, is set aside as one value token; the rest is split by
NLTK's ``word_tokenize`` and lower-cased; a ``=`` after ``!``, ``>`` or ``<`` is glued to it.
We do the same operations. NLTK's word tokenizer is reproduced below as its list of
substitutions (NLTKWordTokenizer of nltk 3.10); the substitutions that only touch quote
characters are left out, because none is left in the text by then. NLTK's sentence splitter
(punkt) is not reproduced: the line is tokenised as one sentence (``preserve_line``), which
differs only where a ``.``, ``?`` or ``!`` followed by a space ends a "sentence" inside a query.

>>> tokenize("SELECT count(*) FROM singer WHERE name != 'Joe'")
['select', 'count', '(', '*', ')', 'from', 'singer', 'where', 'name', '!=', '"Joe"']
"""

from __future__ import annotations

import re

#: A query longer than this is not tokenised (untrusted predictions are bounded). Spider's
#: longest gold query has under 600 characters.
MAX_QUERY_CHARS = 100_000


class TokenizeError(ValueError):
    """The official tokenizer fails on this text (an odd number of quotes)."""


# NLTK's substitutions, in NLTK's order, for text without quote characters. Each entry is
# (pattern, replacement); they are applied one after the other to the whole text.
_WORD_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # opening quotes of other scripts and runs of backticks stand alone
    (re.compile("([«“‘„]|[`]+)"), r" \1 "),
    (re.compile(r"(``)"), r" \1 "),
    # a final period (with closing brackets after it) is split off
    (re.compile(r"([^\.])(\.)([\]\)}>\"'»”’ ]*+)\s*$"), r"\1 \2 \3 "),
    # a colon or comma before something other than a digit, or at the end
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.{2,}"), r" \g<0> "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile("[\u2012-\u2015]"), r" \g<0> "),
    (re.compile(r"([^\.])(\.)([\]\)}>\"']*)\s*$"), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"[*]"), r" \g<0> "),
    # brackets of every kind, and double dashes
    (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> "),
    (re.compile(r"--"), r" -- "),
)
_CLOSING_QUOTES = re.compile("([»”’])")
_SPACES = re.compile(r"\s+")
# English contractions NLTK splits ("cannot" -> "can not"), those without an apostrophe.
_CONTRACTIONS = tuple(
    re.compile(pattern)
    for pattern in (
        r"(?i)\b(can)(not)\b",
        r"(?i)\b(gim)(me)\b",
        r"(?i)\b(gon)(na)\b",
        r"(?i)\b(got)(ta)\b",
        r"(?i)\b(lem)(me)\b",
        r"(?i)\b(wan)(na)(?=\s)",
    )
)


def word_tokens(text: str) -> list[str]:
    """NLTK's word tokens of ``text`` (one sentence), for text without quote characters.

    >>> word_tokens("a>=1 AND b,c")
    ['a', '>', '=1', 'AND', 'b', ',', 'c']
    """
    for pattern, replacement in _WORD_RULES:
        text = pattern.sub(replacement, text)
    text = _CLOSING_QUOTES.sub(r" \1 ", " " + text + " ")
    text = _SPACES.sub(" ", text)
    for pattern in _CONTRACTIONS:
        text = pattern.sub(r" \1 \2 ", text)
    return text.split()


def tokenize(query: str) -> list[str]:
    """The official tokens of ``query``: lower-cased words, quoted values kept whole.

    Raises ``TokenizeError`` where the official tokenizer fails (an odd number of quotes,
    process_sql.py line 120) or the text is longer than ``MAX_QUERY_CHARS``.

    >>> tokenize('SELECT a FROM t WHERE b > = 3 AND c = "X y"')
    ['select', 'a', 'from', 't', 'where', 'b', '>=', '3', 'and', 'c', '=', '"X y"']
    """
    if len(query) > MAX_QUERY_CHARS:
        raise TokenizeError(f"the query is longer than {MAX_QUERY_CHARS} characters")
    text = query.replace("'", '"')
    quotes = [index for index, char in enumerate(text) if char == '"']
    if len(quotes) % 2:
        raise TokenizeError("an odd number of quotes")
    values: dict[str, str] = {}
    # Officially the pairs are replaced from the end, one string copy each; building the text
    # in one pass gives the same text (keys name positions in the original) in linear time.
    pieces: list[str] = []
    end = 0
    for pair in range(0, len(quotes), 2):
        first, last = quotes[pair], quotes[pair + 1]
        key = f"__val_{first}_{last}__"
        values[key] = text[first : last + 1]
        pieces += [text[end:first], key]
        end = last + 1
    text = "".join([*pieces, text[end:]])
    tokens = [word.lower() for word in word_tokens(text)]
    tokens = [values.get(token, token) for token in tokens]
    return _glue_equals(tokens)


_PREFIXES = ("!", ">", "<")


def _glue_equals(tokens: list[str]) -> list[str]:
    """Glue each "=" to a preceding "!", ">" or "<" (process_sql.py lines 138-145).

    Officially the "="s are taken last first, each glue copying the list. A glue at position
    i >= 1 only merges positions i-1 and i, so the others do not move: one pass gives the same
    list. The "=" at position 0, taken last, looks at the last token (Python's index -1) and,
    when that is a prefix, the official slicing duplicates the middle of the list; kept.
    """
    glued: list[str] = []
    for index, token in enumerate(tokens):
        if token == "=" and index >= 1 and tokens[index - 1] in _PREFIXES:
            glued[-1] += "="
        else:
            glued.append(token)
    if tokens and tokens[0] == "=" and glued[-1] in _PREFIXES:
        glued = glued[:-1] + [glued[-1] + "="] + glued[1:]
    return glued
