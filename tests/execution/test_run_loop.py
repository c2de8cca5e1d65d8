"""The run loop's shortcuts (issue 25) give what the long way gives: an item's rewritten
queries are asked only of the semantics that may rewrite them (``_may_rewrite``)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from answerkey.execution._batches import _may_rewrite
from answerkey.execution.semantics import Semantics, names, semantics_named
from answerkey.execution.semantics._base import Rewritten

QUERIES = st.sampled_from(
    [
        "SELECT DISTINCT a FROM t",
        "SELECT count(DISTINCT a) FROM t WHERE b ! = 1",
        "SELECT a FROM t WHERE b = 'x' ORDER BY a",
        "SELECT a FROM t GROUP BY a HAVING count(*) > 2",
        "select distinct T1.a from t as T1 join u as T2 on T1.id = T2.id",
    ]
) | st.text(max_size=60)


@given(gold=QUERIES, predicted=QUERIES)
def test_a_semantics_left_out_never_rewrites(gold: str, predicted: str) -> None:
    for name in names():
        semantics = semantics_named(name)
        if not _may_rewrite(semantics):
            assert semantics.rewritten_pair(gold, predicted) is None, name


def test_the_built_in_semantics_that_may_rewrite() -> None:
    assert [name for name in names() if _may_rewrite(semantics_named(name))] == ["test-suite"]


def test_a_semantics_of_its_own_that_rewrites_is_asked() -> None:
    class Upper(Semantics):
        name = "upper"

        def rewrite(self, sql: str, *, predicted: bool, options: frozenset[str] = frozenset()) -> Rewritten:
            return Rewritten(sql.upper(), ("upper case",))

    class Plain(Semantics):
        name = "plain"

    assert _may_rewrite(Upper()) and not _may_rewrite(Plain())
    assert Upper().rewritten_pair("select 1", "select 2") is not None
