"""A canonical answer has at most MAX_ALTERNATIVES readings (issue 30, item 3: 100,000 `OR`
alternatives, 1.3 MB, took 5 s and 136 MB to judge)."""

import pytest

from answerkey.errors import ParseError
from answerkey.grammar import parse, parse_with_grammar
from answerkey.limits import MAX_ALTERNATIVES
from answerkey.model import Alternatives


def _alternatives(count):
    return "; ambiguous\n  (" + " OR ".join(f"(({i}))" for i in range(count)) + ")"


def test_the_limit_itself_is_accepted():
    """Exactly MAX_ALTERNATIVES readings parse, by the fast path and by the grammar alike."""
    answer = parse(_alternatives(MAX_ALTERNATIVES))
    assert isinstance(answer, Alternatives) and len(answer.options) == MAX_ALTERNATIVES
    assert parse_with_grammar(_alternatives(MAX_ALTERNATIVES)) == answer


@pytest.mark.parametrize("count", [MAX_ALTERNATIVES + 1, 100_000])
def test_more_are_refused_at_the_opening_parenthesis(count):
    """One more, or 100,000: a ParseError at the answer's opening parenthesis, line 2 column 3."""
    with pytest.raises(ParseError) as caught:
        parse(_alternatives(count), source="canonical.cas")
    assert str(caught.value).splitlines()[0] == (
        f"canonical.cas:2:3: {count:,} alternatives (OR); the limit is {MAX_ALTERNATIVES:,}"
    )


def test_the_grammar_path_is_bounded_too(monkeypatch):
    """Text the fast path hands to the grammar is held to the same limit."""
    from answerkey.grammar import fast

    def defer(text):
        raise fast.Defer

    monkeypatch.setattr(fast, "parse", defer)
    with pytest.raises(ParseError, match="alternatives \\(OR\\); the limit is"):
        parse(_alternatives(MAX_ALTERNATIVES + 1))
    assert len(parse(_alternatives(3)).options) == 3
