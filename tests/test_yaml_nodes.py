"""The YAML node limit holds without an anchor too, counted from the parser's events before
any node is built (issue 30, item 3: a flow list of 3,000,000 numbers took 41 s and 3.2 GB
before it was refused, with 3,000,000 error lines)."""

import pytest

from answerkey.errors import InputError
from answerkey.files import _yaml, load_yaml


@pytest.fixture
def hundred_nodes(monkeypatch):
    """MAX_YAML_NODES at 100, so the tests stay small."""
    monkeypatch.setattr(_yaml, "MAX_YAML_NODES", 100)


def test_a_flow_list_past_the_limit_is_refused_at_the_first_node_beyond(hundred_nodes):
    """[1, 1, ...] with 100 numbers: the list and 99 numbers fit; the 100th number is the 101st node."""
    text = "[" + ", ".join("1" for _ in range(100)) + "]\n"
    with pytest.raises(InputError) as caught:
        load_yaml(text, source="flow.yaml")
    assert str(caught.value) == "flow.yaml:1:299: the document holds more than 100 values (YAML nodes); split it"


def test_a_block_mapping_past_the_limit_is_refused(hundred_nodes):
    """A mapping of 50 keys is 101 nodes (the mapping, 50 keys, 50 values)."""
    text = "".join(f"k{i}: {i}\n" for i in range(50))
    with pytest.raises(InputError, match="more than 100 values"):
        load_yaml(text, source="map.yaml")


def test_a_document_within_the_limit_loads_although_its_text_looks_large(hundred_nodes):
    """Many colons, commas and dashes inside one string overestimate the nodes; the exact count lets it load."""
    text = 'note: "' + ", - : ? [ {" * 50 + '"\n'
    assert load_yaml(text, source="note.yaml").data == {"note": ", - : ? [ {" * 50}


def test_a_malformed_text_keeps_the_parsers_own_error(hundred_nodes):
    """Counting stops quietly at a syntax error: the loader says what is wrong, where."""
    text = "[" + ", ".join("1" for _ in range(40)) + ", ]]\n" + "-" * 200
    with pytest.raises(InputError) as caught:
        load_yaml(text, source="bad.yaml")
    assert "more than 100 values" not in str(caught.value)
