"""test-suite-sql-eval's ``--plug_value``: the predictions made by putting the gold's values
into the value places of a prediction (commit e97acc5: ``parse.py`` lines 34-136, called at
``exec_eval.py`` lines 207-211).

The official code reads both queries as text. Each is first respaced: stripped, every ``;``
and tab removed, then its first statement cut into sqlparse's tokens and joined by single
spaces, sqlparse's white-space tokens left out (a line break is a token of its own, kept), and
``t1.*`` ... ``T3.*`` written ``*`` (``reformat_query``, lines 83-89). In the respaced text a
``T`` + digits + ``.`` loses the white space after it (line 95). Then its values are found, in
this order (``strip_query``, lines 36-80):

1. its quoted strings (sqlparse's ``'...'`` and ``"..."`` tokens), each replaced, everywhere
   in the text, by a place marker;
2. the words (cut at white space) that are one of the text's decimal numbers
   (``[-+]?\\d*\\.\\d+``), each replaced by a marker;
3. in the text joined again, the words that are one of its integers (``[^tT]\\d+``, spaces
   stripped: a number not after a ``t``), each replaced by a marker.

The gold's values are the set of what was found; the prediction becomes its list of words,
lowercased (a word with ``t`` + digits + ``.`` cut at its dots), with a value place at each
marker. Every way of filling the places with the gold's values, repeats allowed, is one
prediction: ``len(values) ** places`` of them (one when there are no places, none when the gold
has no value but the prediction has places), each its words joined by spaces. The official
code then runs the prediction as written first, then these, and the item is correct when one
of them is correct on every database (``exec_eval.py`` lines 203-242).

Differences, both documented (docs/sql.md): the official code goes through the gold's values
in the order of a Python ``set`` of strings (it changes from run to run); here they are taken
in the order they are found, so the verdict is the same and the prediction named as the one
that matched is the first in that order. And it writes sqlparse's keywords in capitals before
step 1, which changes nothing found except where a string's own text, quotes included, also
appears in the query across a keyword (``' or '`` in ``'a' or 'b'``); that is not done here.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from answerkey.execution.semantics._sqlparse import statement_tokens

# The marker put where a value was (parse.py line 10), lowercased with the prediction's words.
_MARKER = "VALUERARE"
_PLACE = _MARKER.lower()
# Written '*' in the respaced text (parse.py line 86).
_STARS = ("t1.*", "t2.*", "t3.*", "T1.*", "T2.*", "T3.*")
_TABLE_DOT_SPACE = re.compile(r"(T\d+\.)\s")
_DECIMAL = re.compile(r"[-+]?\d*\.\d+")
_INTEGER = re.compile(r"[^tT]\d+")
_TABLE_PREFIX = re.compile(r"[Tt]\d+\.")


def _respaced(query: str) -> str | None:
    """``reformat_query`` and the first step of ``replace_values``; None where the official
    code fails (nothing left to read)."""
    text = query.strip().replace(";", "").replace("\t", "")
    tokens = statement_tokens(text)
    if tokens is None:
        return None
    joined = " ".join(token for token, kind in tokens if kind != "space")
    for star in _STARS:
        joined = joined.replace(star, "*")
    return _TABLE_DOT_SPACE.sub(r"\1", joined)


def _words_and_values(query: str) -> tuple[list[str], list[str]] | None:
    """The words of ``query`` with each value replaced by the marker, and the values found, in
    the order found (``strip_query``); None where the official code fails."""
    text = _respaced(query)
    if text is None:
        return None
    tokens = statement_tokens(text) or []
    values: list[str] = []
    for token, kind in tokens:
        if kind in ("string", "symbol"):
            values.append(token)
            text = text.replace(token.strip(), _MARKER)
    words = text.split()
    decimals = set(_DECIMAL.findall(text))
    values.extend(word for word in words if word in decimals)
    words = [_MARKER if word in decimals else word for word in words]
    integers = {found.strip() for found in _INTEGER.findall(" ".join(words))}
    values.extend(word for word in words if word in integers)
    words = [_MARKER if word in integers else word for word in words]
    lowered: list[str] = []
    for word in words:
        if "." in word and _TABLE_PREFIX.search(word):
            lowered.extend(part.lower() for part in word.replace(".", " . ").split())
        else:
            lowered.append(word.lower())
    return lowered, values


def plugged_predictions(gold: str, predicted: str) -> tuple[int, Iterator[str]]:
    """How many predictions test-suite-sql-eval's ``--plug_value`` makes of ``predicted`` with
    ``gold``'s values, and those predictions, in order (the gold's values in the order found,
    the first place varying slowest). Both are the texts the official code runs (``DISTINCT``
    removed, ``> =`` closed up), before ``YEAR(CURDATE())`` is replaced.

    >>> count, predictions = plugged_predictions(
    ...     "SELECT name FROM singer WHERE age > 30 AND country = 'France'",
    ...     "SELECT Name FROM singer WHERE country = 'FR' AND age < 1")
    >>> count
    4
    >>> for prediction in list(predictions)[:2]:
    ...     print(prediction)
    select name from singer where country = 'France' and age < 'France'
    select name from singer where country = 'France' and age < 30
    """
    found_gold = _words_and_values(gold)
    found_predicted = _words_and_values(predicted)
    if found_gold is None or found_predicted is None:
        return 0, iter(())
    values = list(dict.fromkeys(found_gold[1]))
    words = found_predicted[0]
    places = [index for index, word in enumerate(words) if word == _PLACE]

    def filled() -> Iterator[str]:
        for chosen in itertools.product(values, repeat=len(places)):
            filling = list(words)
            for index, value in zip(places, chosen):
                filling[index] = value
            yield " ".join(filling)

    return _power(len(values), len(places)), filled()


def _power(base: int, exponent: int) -> int:
    # len(values) ** places, computed only while it stays small enough to say in a reason.
    if base <= 1 or exponent == 0:
        return base**exponent if exponent else 1
    if exponent * base.bit_length() > 256:
        return 2**256
    return base**exponent
