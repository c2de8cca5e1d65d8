"""Reading SDMX test cases and selections: shapes accepted, every problem at FILE:LINE:COL in
answerkey's words, empty inputs refused, special files in a cases directory skipped (issue 15
defect 8, issue 19 item 6)."""

import json
import os
import textwrap

import pytest

from answerkey.errors import InputError, InputErrors, RunWarning
from answerkey.sdmx import Cases, Selections, case_files, load_cases, load_selections, load_suite, run_sdmx

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


def messages(error):
    """Every message of an InputError or InputErrors, as printed."""
    return [str(one) for one in (error.errors if isinstance(error, InputErrors) else [error])]


def test_one_case_per_file_and_unknown_keys_are_kept(tmp_path):
    """A file with one mapping is one case; keys outside the schema are kept, not rejected or warned about."""
    cases = load_cases(write(tmp_path / "c1.yaml", CASE))
    [case] = cases
    assert case.id == "c1"
    assert case.model_extra == {"owner": "data-team"}
    assert cases.origins == [f"{tmp_path / 'c1.yaml'}:1"]
    assert cases.warnings == []


def test_directory_is_read_recursively_in_sorted_order(tmp_path):
    """A directory yields the cases of every *.yaml / *.yml below it, hidden files and other suffixes passed over."""
    write(tmp_path / "b" / "z.yml", CASE.replace("id: c1", "id: c3"))
    write(tmp_path / "a.yaml", f"- {textwrap.indent(CASE, '  ')[2:]}- id: c2\n")
    write(tmp_path / ".hidden.yaml", "not: [valid")
    write(tmp_path / "notes.txt", "ignored")
    cases = load_cases(tmp_path)
    assert [case.id for case in cases] == ["c1", "c2", "c3"]
    assert cases.origins == [f"{tmp_path / 'a.yaml'}:1", f"{tmp_path / 'a.yaml'}:17", f"{tmp_path / 'b' / 'z.yml'}:1"]
    assert [path.name for path in case_files(tmp_path)] == ["a.yaml", "z.yml"]


def test_fifo_symlink_loop_and_dangling_link_are_skipped_with_warnings(tmp_path, within):
    """A FIFO, a symlink loop and a dangling link in the cases directory are not opened (opening
    the FIFO would wait for ever for a writer): the load finishes and each is a skipped-file
    warning carried into the run's warnings."""
    write(tmp_path / "a.yaml", CASE)
    os.mkfifo(tmp_path / "pipe.yaml")
    os.symlink("loop.yaml", tmp_path / "loop.yaml")
    os.symlink("gone.yaml", tmp_path / "dangling.yml")
    with within(60):  # a guard: the load would hang on the FIFO
        cases = load_cases(tmp_path)
    assert [case.id for case in cases] == ["c1"]
    assert cases.warnings == [
        RunWarning(
            f"{tmp_path / 'dangling.yml'}: skipped, not a regular file (no such file or directory)", "skipped-file"
        ),
        RunWarning(
            f"{tmp_path / 'loop.yaml'}: skipped, not a regular file (too many levels of symbolic links)", "skipped-file"
        ),
        RunWarning(f"{tmp_path / 'pipe.yaml'}: skipped, not a regular file (a FIFO)", "skipped-file"),
    ]
    suite = run_sdmx(cases, [{"id": "c1", "indicator_selection": []}])
    assert suite.warnings == tuple(cases.warnings)


def test_directory_of_special_files_only_is_an_empty_input(tmp_path):
    """A directory whose only YAML entry is a FIFO has no case file: refused, saying what was skipped."""
    os.mkfifo(tmp_path / "pipe.yaml")
    with pytest.raises(InputError) as caught:
        load_cases(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}: no *.yaml or *.yml test case files in this directory; 1 entry "
        "skipped, not regular files (an empty input is refused)"
    )


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "{dir}: no *.yaml or *.yml test case files in this directory (an empty input is refused)"),
        ({"c.yaml": ""}, "{dir}/c.yaml: no test cases in this file (an empty input is refused)"),
        ({"c.yaml": "[]\n"}, "{dir}/c.yaml: no test cases in this file (an empty input is refused)"),
        ({"a.yaml": "", "b.yml": "# nothing\n"}, "{dir}: no test cases in these files (an empty input is refused)"),
    ],
    ids=["empty directory", "empty file", "empty list", "directory of empty files"],
)
def test_empty_cases_are_refused(tmp_path, files, message):
    """An input without any test case is an error, not an empty suite scored."""
    for name, text in files.items():
        write(tmp_path / name, text)
    path = tmp_path / "c.yaml" if list(files) in (["c.yaml"],) else tmp_path
    with pytest.raises(InputError) as caught:
        load_cases(path)
    assert str(caught.value) == message.format(dir=tmp_path)


def test_numeric_ids_are_text(tmp_path):
    """YAML reads `id: 2024` as a number; ids are compared as text."""
    [case] = load_cases(write(tmp_path / "n.yaml", "id: 2024\nconversation: []\n"))
    assert case.id == "2024"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id: c1\nconversation:\n- content: hi\n", "c.yaml:3:3: conversation.0.role: missing; this field is required"),
        ("id: c1\ntags: imf\n", "c.yaml:2:7: tags: should be a list, not a string"),
        ("- 5\n", "c.yaml:1:3: a test case is a mapping, not an integer"),
        ("just text\n", "c.yaml:1:1: a cases file holds a test case or a list of them, not a string"),
        ("id: c1\nid: c2\n", "c.yaml:2:1: the key 'id' is given twice"),
        ("- id: c1\n- id: c1\n", "c.yaml:2:7: duplicate case id 'c1' (first in {dir}/c.yaml:1)"),
        ("id: yes\n", "c.yaml:1:5: id: should be a string, not a boolean"),
        ("- idd: c1\n", "c.yaml:1:3: id: missing; this field is required (the record has 'idd': did you mean 'id'?)"),
        (
            'id: "\\ud800"\n',
            "c.yaml:1:6: an escape in a quoted string is not a character (half of a UTF-16 surrogate pair?)",
        ),
        ("id: [c1\n", "c.yaml:2:1: while parsing a flow sequence did not find expected ',' or ']'"),
    ],
    ids=[
        "missing role",
        "tags not a list",
        "item not a mapping",
        "scalar document",
        "duplicate key",
        "duplicate id",
        "boolean id",
        "misspelt id",
        "lone surrogate",
        "bad YAML",
    ],
)
def test_case_errors_are_located_in_answerkeys_words(tmp_path, text, message):
    """Every invalid case is reported at FILE:LINE:COL, without pydantic jargon or Python type names."""
    path = write(tmp_path / "c.yaml", text)
    with pytest.raises(InputError) as caught:
        load_cases(path)
    assert messages(caught.value) == [f"{tmp_path}/" + message.format(dir=tmp_path)]


def test_duplicate_case_id_across_files_names_the_first(tmp_path):
    """One id in two files of a directory is an error at the second, naming the first place."""
    write(tmp_path / "a.yaml", "id: c1\n")
    write(tmp_path / "b.yaml", "\n- id: c1\n")
    with pytest.raises(InputError) as caught:
        load_cases(tmp_path)
    assert messages(caught.value) == [f"{tmp_path}/b.yaml:2:7: duplicate case id 'c1' (first in {tmp_path}/a.yaml:1)"]


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
    assert messages(caught.value) == [
        f"{path}:25:11: case 'c1': term 'MEX' of IMF.RES:WEO / COUNTRY is named both "
        "'Mexico' and 'United Mexican States'"
    ]


def test_every_problem_of_every_file_is_listed(tmp_path):
    """All problems are collected, in file and line order, and nothing is returned."""
    write(tmp_path / "a.yaml", "- id: ok\n- id: ''\n- role: x\n")
    write(tmp_path / "b.yaml", "tags: 5\n")
    with pytest.raises(InputErrors) as caught:
        load_cases(tmp_path)
    assert caught.value.message == "4 errors in input"
    assert messages(caught.value) == [
        f"{tmp_path}/a.yaml:2:7: id: should not be empty",
        f"{tmp_path}/a.yaml:3:3: id: missing; this field is required",
        f"{tmp_path}/b.yaml:1:1: id: missing; this field is required",
        f"{tmp_path}/b.yaml:1:7: tags: should be a list, not an integer",
    ]


def test_misspelt_unknown_keys_are_warned_about(tmp_path):
    """An unknown key close to a field name is kept but warned about at its line: the field it
    was meant for stays empty (a misspelt conversation would score the case as having no target)."""
    path = write(
        tmp_path / "c.yaml", CASE.replace("comments:", "comment:").replace("        values:", "        value:")
    )
    cases = load_cases(path)
    assert [str(warning) for warning in cases.warnings] == [
        f"{path}:4: unknown key 'comment' is not read (did you mean 'comments'?)",
        f"{path}:15: unknown key 'value' is not read (did you mean 'values'?)",
    ]
    assert {warning.kind for warning in cases.warnings} == {"unknown-key"}


SELECTION = {
    "id": "c1",
    "indicator_selection": [
        {
            "dataset_id": "IMF.RES:WEO",
            "dimensions": [{"dimension_name": "COUNTRY", "values": [{"id": "MEX", "name": "Mexico"}]}],
        }
    ],
}


def test_jsonl_yaml_and_json_selections_are_equivalent(tmp_path):
    """The same records as JSON Lines, a YAML list and a JSON array load the same, each with its line."""
    second = {**SELECTION, "id": "c2"}
    jsonl = write(tmp_path / "s.jsonl", json.dumps(SELECTION) + "\n\n" + json.dumps(second) + "\n")
    yaml_list = write(tmp_path / "s.yaml", json.dumps([SELECTION, second], indent=1))
    json_array = write(tmp_path / "s.json", json.dumps([SELECTION, second]))
    loaded = [load_selections(path) for path in (jsonl, yaml_list, json_array)]
    assert loaded[0].records == loaded[1].records == loaded[2].records
    assert [r.id for r in loaded[0]] == ["c1", "c2"]
    assert loaded[0].origins == [f"{jsonl}:1", f"{jsonl}:3"]
    assert loaded[1].origins == [f"{yaml_list}:3", f"{yaml_list}:22"]
    assert loaded[2].origins == [f"{json_array}:1", f"{json_array}:1"]


def test_one_record_is_a_selections_file(tmp_path):
    """A YAML or JSON file holding one record is a file of one record."""
    selections = load_selections(write(tmp_path / "s.json", json.dumps(SELECTION)))
    assert isinstance(selections, Selections) and len(selections) == 1 and selections[0].id == "c1"


def test_selection_errors_are_located(tmp_path):
    """Bad JSON, a record that is not a mapping and one without indicator_selection are all reported at their line."""
    path = write(
        tmp_path / "s.jsonl", json.dumps(SELECTION) + '\n{"id": \n[1]\n{"id": "c3", "indicator_selections": []}\n'
    )
    with pytest.raises(InputErrors) as caught:
        load_selections(path)
    assert messages(caught.value) == [
        f"{path}:2:8: invalid JSON: Expecting value",
        f"{path}:3:1: a selection record is a mapping, not a list",
        f"{path}:4:1: indicator_selection: missing; this field is required "
        "(the record has 'indicator_selections': did you mean 'indicator_selection'?)",
    ]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("s.jsonl", "", "{s}: no selection records in this file (an empty input is refused)"),
        ("s.jsonl", "\n\n", "{s}: no selection records in this file (an empty input is refused)"),
        ("s.yaml", "[]\n", "{s}: no selection records in this file (an empty input is refused)"),
        ("s.json", "5", "{s}:1:1: a selections file holds selection records (a list of them, or one), not an integer"),
        ("s.json", '{"id": "a", "indicator_selection": [], "id": "b"}', "{s}:1:40: the key 'id' is given twice"),
    ],
    ids=["empty", "blank lines", "empty list", "a number", "duplicate key"],
)
def test_empty_or_odd_selections_are_refused(tmp_path, name, text, message):
    """An empty selections file is an error (one rule for every command), as are files of no records."""
    path = write(tmp_path / name, text)
    with pytest.raises(InputError) as caught:
        load_selections(path)
    assert messages(caught.value) == [message.format(s=path)]


def test_load_suite_lists_the_problems_of_both_files(tmp_path):
    """Problems in the cases and in the selections are reported together."""
    cases = write(tmp_path / "c.yaml", "- id: a\n  tags: x\n")
    selections = write(tmp_path / "s.jsonl", '{"id": "a"}\n')
    with pytest.raises(InputErrors) as caught:
        load_suite(cases, selections)
    assert messages(caught.value) == [
        f"{cases}:2:9: tags: should be a list, not a string",
        f"{selections}:1:1: indicator_selection: missing; this field is required",
    ]


def test_load_suite_returns_both(tmp_path):
    """Good files load into Cases and Selections."""
    loaded_cases, loaded_selections = load_suite(
        write(tmp_path / "c.yaml", CASE), write(tmp_path / "s.jsonl", json.dumps(SELECTION))
    )
    assert isinstance(loaded_cases, Cases) and [case.id for case in loaded_cases] == ["c1"]
    assert [record.id for record in loaded_selections] == ["c1"]


def test_selections_keep_the_decoded_records_and_make_models_when_read(tmp_path):
    """Each record is held once, as decoded; its model is made when read, equal every time."""
    second = {**SELECTION, "id": 7}
    path = write(tmp_path / "s.jsonl", json.dumps(SELECTION) + "\n" + json.dumps(second) + "\n")
    selections = load_selections(path)
    assert selections.decoded == [SELECTION, second]
    assert len(selections) == 2 and len(selections.records) == 2
    assert [record.id for record in selections.records] == ["c1", "7"]  # numbers are text, as before
    assert selections[1] == selections.records[1] == selections.records[-1]
    assert selections.records[0:1] == [selections[0]]
    assert selections.records == list(selections) and selections.records != [selections[0]]


def test_short_texts_of_json_lines_are_shared_between_records(tmp_path):
    """A JSON Lines file of many small records holds each short key and value once, not once a
    line (the memory factor of many small records; a long text is not shared)."""
    long_name = "x" * 65
    lines = [
        json.dumps({"id": f"c{n}", "indicator_selection": [{**SELECTION["indicator_selection"][0], "note": long_name}]})
        for n in range(2)
    ]
    selections = load_selections(write(tmp_path / "s.jsonl", "\n".join(lines) + "\n"))
    first, second = (record["indicator_selection"][0] for record in selections.decoded)
    assert first["dataset_id"] is second["dataset_id"]
    assert next(iter(first)) is next(iter(second))  # the keys
    assert first["note"] == second["note"] and first["note"] is not second["note"]
