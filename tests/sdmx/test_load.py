"""Reading SDMX test cases and selections: shapes accepted, errors at FILE:LINE:COL (issue #5, Inputs)."""

import json
import textwrap

import pytest

from answerkey.errors import InputError
from answerkey.sdmx import evaluate, load_cases, load_selections

CASE = """\
id: c1
name: population_of_mexico
tags: [imf]
comments: ''
owner: data-team
conversation:
- role: user
  content: Could you give me the population numbers for Mexico?
  target:
    indicator_selection:
    - dataset_id: IMF.RES:WEO
      dimensions:
      - dimension_name: COUNTRY
        values:
        - id: MEX
          name: Mexico
"""


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_one_case_per_file_and_unknown_keys_are_kept(tmp_path):
    """A file with one mapping is one case; keys outside the schema are kept, not rejected."""
    [case] = load_cases(write(tmp_path / "c1.yaml", CASE))
    assert case.id == "c1"
    assert case.model_extra == {"owner": "data-team"}


def test_directory_is_read_recursively_in_sorted_order(tmp_path):
    """A directory yields the cases of every *.yaml / *.yml below it, hidden files skipped."""
    write(tmp_path / "b" / "z.yml", CASE.replace("id: c1", "id: c3"))
    write(tmp_path / "a.yaml", f"- {textwrap.indent(CASE, '  ')[2:]}- id: c2\n")
    write(tmp_path / ".hidden.yaml", "not: [valid")
    write(tmp_path / "notes.txt", "ignored")
    assert [case.id for case in load_cases(tmp_path)] == ["c1", "c2", "c3"]


def test_empty_directory_is_an_error(tmp_path):
    """A directory without YAML files is reported, not scored as an empty suite."""
    with pytest.raises(InputError, match="no \\*.yaml or \\*.yml test case files"):
        load_cases(tmp_path)


def test_numeric_ids_are_text(tmp_path):
    """YAML reads `id: 2024` as a number; ids are compared as text."""
    [case] = load_cases(write(tmp_path / "n.yaml", "id: 2024\nconversation: []\n"))
    assert case.id == "2024"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id: c1\nconversation:\n- content: hi\n", "c.yaml:3:3: conversation.0.role: Field required"),
        ("id: c1\ntags: imf\n", "c.yaml:2:7: tags: Input should be a valid list"),
        ("- 5\n", "c.yaml:1:3: expected a mapping, found a number"),
        ("just text\n", "c.yaml:1:1: expected a test case or a list of them, found a string"),
        ("id: c1\nid: c2\n", "c.yaml:2:1: duplicate key 'id'"),
        (
            "- id: c1\n- id: c1\n",
            "c.yaml:2:7: duplicate case id 'c1' (first in {dir}/c.yaml:1)",
        ),
    ],
    ids=["missing role", "tags not a list", "item not a mapping", "scalar document", "duplicate key", "duplicate id"],
)
def test_case_errors_are_located(tmp_path, text, message):
    """Every invalid case is reported at FILE:LINE:COL."""
    path = write(tmp_path / "c.yaml", text)
    with pytest.raises(InputError) as caught:
        load_cases(path)
    assert str(caught.value).replace(str(tmp_path), "{dir}") == "{dir}/" + message


def test_target_term_conflict_is_located_at_the_second_name(tmp_path):
    """A term id named twice differently in one case's targets is an error at the second place."""
    text = CASE + textwrap.dedent("""\
        - role: user
          content: and again
          target:
            indicator_selection:
            - dataset_id: IMF.RES:WEO
              dimensions:
              - dimension_name: COUNTRY
                values:
                - id: MEX
                  name: United Mexican States
        """)
    path = write(tmp_path / "c.yaml", text)
    with pytest.raises(InputError) as caught:
        load_cases(path)
    assert str(caught.value) == (
        f"{path}:25:11: case 'c1': term 'MEX' of IMF.RES:WEO / COUNTRY is named both "
        "'Mexico' and 'United Mexican States'"
    )


def test_errors_list_collects_all_and_keeps_valid_cases(tmp_path):
    """With an errors list every problem is reported and valid cases still load."""
    path = write(tmp_path / "c.yaml", "- id: ok\n- id: ''\n- role: x\n")
    errors = []
    assert [case.id for case in load_cases(path, errors=errors)] == ["ok"]
    assert [(e.line, e.column) for e in errors] == [(2, 7), (3, 3)]
    assert errors[0].message == "id: String should have at least 1 character"


SELECTION = {"id": "c1", "indicator_selection": [
    {"dataset_id": "IMF.RES:WEO", "dimensions": [{"dimension_name": "COUNTRY", "values": [{"id": "MEX", "name": "Mexico"}]}]}]}


def test_jsonl_yaml_and_json_selections_are_equivalent(tmp_path):
    """The same records as JSON Lines, a YAML list and a JSON array load the same."""
    jsonl = write(tmp_path / "s.jsonl", json.dumps(SELECTION) + "\n\n" + json.dumps({**SELECTION, "id": "c2"}) + "\n")
    yaml_list = write(tmp_path / "s.yaml", json.dumps([SELECTION, {**SELECTION, "id": "c2"}], indent=1))
    json_array = write(tmp_path / "s.json", json.dumps([SELECTION, {**SELECTION, "id": "c2"}]))
    loaded = [load_selections(path) for path in (jsonl, yaml_list, json_array)]
    assert loaded[0] == loaded[1] == loaded[2]
    assert [r.id for r in loaded[0]] == ["c1", "c2"]


def test_selection_errors_are_located(tmp_path):
    """A bad JSON line and a record without indicator_selection are both reported with their line."""
    path = write(tmp_path / "s.jsonl", json.dumps(SELECTION) + "\n{\"id\": \n" + '{"id": "c3"}\n')
    errors = []
    assert len(load_selections(path, errors=errors)) == 1
    assert [str(e) for e in errors] == [
        f"{path}:2:8: invalid JSON: Expecting value",
        f"{path}:3:1: indicator_selection: Field required",
    ]


def test_selection_for_missing_case_scores_as_nothing_selected(tmp_path):
    """A case without a selection record scores recall 0 and precision NaN."""
    [case] = load_cases(write(tmp_path / "c1.yaml", CASE))
    suite = evaluate([case], load_selections(write(tmp_path / "s.jsonl", "")))
    assert suite.cases[0].macro_recall == 0.0
    assert suite.summary.cases == 1
