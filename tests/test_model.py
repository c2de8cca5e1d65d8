"""The typed model: immutable, hashable, validated."""

import datetime as dt
from decimal import Decimal

import pytest

from answerkey.model import NIL, Boolean, Date, Number, Relation, String, value_of


def test_relations_compare_as_sets_unless_ordered():
    """Order and duplicates do not matter for plain relations; they do for ordered ones."""
    a = Relation.from_rows([[1], [2], [2]])
    b = Relation.from_rows([[2], [1]])
    assert a == b and hash(a) == hash(b)
    assert Relation.from_rows([[1], [2]], ordered=True) != Relation.from_rows([[2], [1]], ordered=True)


def test_relations_are_immutable_and_validated():
    """No attribute can be set; arity and column types are checked."""
    relation = Relation.from_rows([[1]])
    with pytest.raises(AttributeError):
        relation.rows = ()
    with pytest.raises(ValueError, match="tuple 2 has 2 values; expected 1"):
        Relation.from_rows([[1], [1, 2]])
    with pytest.raises(ValueError, match="tuple 2, column 1: a string in a column of numbers"):
        Relation.from_rows([[1], ["a"]])
    assert Relation.from_rows([[None], [1], [2.5]]).arity == 1  # nil fits; ints and reals are numbers


def test_numbers_keep_kind_and_text():
    """Integers and reals are different kinds; reals compare by exact value, not spelling."""
    assert Number.parse("5") != Number.parse("5.")
    assert Number.parse("5.") == Number.parse("5.00")
    assert Number.parse("2.9999999999").value == Decimal("2.9999999999")
    assert Number.of(0.1).text == "0.1"
    with pytest.raises(ValueError):
        Number.parse("nan")


def test_value_of_maps_python_values():
    """None, bool, int, float, str and date map to typed values."""
    assert [value_of(v) for v in [None, True, 3, "x", dt.date(2020, 1, 2)]] == [
        NIL,
        Boolean(True),
        Number(3, False, "3"),
        String("x"),
        Date(dt.date(2020, 1, 2)),
    ]
    with pytest.raises(TypeError):
        value_of(object())


def test_answerkey_render_is_the_function_even_after_its_module_is_imported():
    """`import answerkey.grammar.render` (done by every module that renders) keeps answerkey.render callable."""
    import importlib

    import answerkey

    importlib.import_module("answerkey.grammar.render")
    importlib.import_module("answerkey.adapters.rows")
    assert answerkey.render(Relation.from_rows([[1]])) == "((1))"
