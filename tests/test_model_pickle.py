"""Relations travel between processes (--jobs workers, Dask): pickling keeps every attribute."""

import pickle

import pytest

from answerkey.grammar import parse


@pytest.mark.parametrize(
    "text", ['((1 "a") (2 "b"))', "(ORDERED (1) (2))", "(ORDERED BY 2 (1 2) (3 2) (4 5))", "5.0", "()"]
)
def test_a_relation_survives_pickling(text):
    """A pickled relation comes back equal, with its order, sort keys and scalar flag."""
    relation = parse(text)
    copy = pickle.loads(pickle.dumps(relation))
    assert copy == relation
    assert (copy.rows, copy.arity, copy.ordered, copy.scalar, copy.order_by) == (
        relation.rows,
        relation.arity,
        relation.ordered,
        relation.scalar,
        relation.order_by,
    )
