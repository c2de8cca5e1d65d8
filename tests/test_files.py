"""Hardening of the file edges (issue 7): YAML, JSON Lines, Excel cells, atomic writes and
directories of answers. The implementations live in answerkey.files,
answerkey.report.excel and answerkey.score.load; these tests pin the promises."""

import os

import pytest

from answerkey.errors import InputError
from answerkey.files import MAX_YAML_NODES, atomic_path, atomic_write, load_yaml, read_jsonl


def _billion_laughs(levels: int = 9, width: int = 9) -> str:
    """The classic alias bomb: each level lists the previous one ``width`` times (9^9 leaves)."""
    lines = ["a0: &a0 [" + ", ".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_is_rejected_at_the_node_limit():
    """An alias bomb is refused with a located error naming the node limit, before expansion."""
    with pytest.raises(InputError) as caught:
        load_yaml(_billion_laughs(), source="bomb.yaml")
    error = caught.value
    assert error.message == f"aliases expand to more than {MAX_YAML_NODES} nodes (an alias bomb?)"
    assert (error.source, error.line) == ("bomb.yaml", 7)  # the first level past two million nodes


def test_aliases_below_the_limit_still_load():
    """Ordinary anchors and aliases keep working: only the expansion size is bounded."""
    document = load_yaml(_billion_laughs(levels=3, width=3), source="small.yaml")
    assert document.data["a2"] == [[["lol"] * 3] * 3] * 3


def test_duplicate_keys_are_reported_where_they_are():
    """A key given twice is an error at the second occurrence (YAML would keep the last silently)."""
    with pytest.raises(InputError) as caught:
        load_yaml("id: q1\nanswer: 5\nanswer: 6\n", source="corpus.yaml")
    assert str(caught.value) == "corpus.yaml:3:1: duplicate key 'answer'"


def test_yaml_tags_never_build_objects():
    """Safe loading only: a python/object tag is an error, nothing is called."""
    with pytest.raises(InputError) as caught:
        load_yaml("- !!python/object/apply:os.system ['true']\n", source="evil.yaml")
    assert "could not determine a constructor" in caught.value.message
    assert caught.value.line == 1


def test_deeply_nested_yaml_is_an_input_error():
    """Nesting a thousand levels deep is refused, not a RecursionError."""
    with pytest.raises(InputError) as caught:
        load_yaml("[" * 1000 + "]" * 1000, source="deep.yaml")
    assert "nested" in caught.value.message


def test_unprintable_characters_in_yaml_are_input_errors():
    """A control character in YAML is a located InputError, not a yaml.reader.ReaderError."""
    with pytest.raises(InputError) as caught:
        load_yaml("id: q1\nanswer: \x1f\n", source="corpus.yaml")
    assert caught.value.line == 2


@pytest.mark.parametrize(
    "text, column, message",
    [
        # Found by `answerkey fuzz self -n 5000 --seed 3`: PyYAML let a plain ValueError escape.
        ("answer: 2024-02-30\n", 9, "not a date: '2024-02-30' (day is out of range for month)"),
        ("- 0000-00-00\n", 3, "not a date: '0000-00-00' (year 0 is out of range)"),
        ("answer: " + "9" * 5000 + "\n", 9, "not a usable integer"),
    ],
)
def test_a_yaml_scalar_python_cannot_build_is_a_located_input_error(text, column, message):
    """An impossible date or an over-long integer is an InputError at its place."""
    with pytest.raises(InputError) as caught:
        load_yaml(text, source="corpus.yaml")
    assert (caught.value.line, caught.value.column) == (1, column)
    assert caught.value.message.startswith(message)


def test_a_bad_jsonl_line_is_reported_with_its_line_number_not_a_crash():
    """Good lines around a bad one are kept; the bad one becomes a located error entry."""
    entries = read_jsonl('{"id": "q1"}\n\n{"id": q2}\n{"id": "q3"}\n' + "[" * 100_000 + "\n", source="a.jsonl")
    assert [(entry.line, entry.value) for entry in entries if entry.error is None] == [
        (1, {"id": "q1"}), (4, {"id": "q3"})
    ]
    errors = [entry.error for entry in entries if entry.error is not None]
    assert [(error.source, error.line, error.column) for error in errors] == [("a.jsonl", 3, 8), ("a.jsonl", 5, 1)]
    assert str(errors[0]) == "a.jsonl:3:8: invalid JSON: Expecting value"


def test_a_bad_corpus_jsonl_line_is_a_problem_and_the_rest_loads(tmp_path):
    """load_corpus keeps the good items and lists the bad line with its number."""
    from answerkey.score.load import load_corpus

    path = tmp_path / "corpus.jsonl"
    path.write_text('{"id": "q1", "answer": "5"}\n{"id": "q2", answer}\n{"id": "q3", "answer": "6"}\n')
    corpus = load_corpus(path)
    assert [item.id for item in corpus.items] == ["q1", "q3"]
    assert [(problem.line, problem.column) for problem in corpus.problems] == [(2, 14)]


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1:A2)", "=HYPERLINK(\"http://x\")", "-", "=", "+-@="])
def test_excel_cells_from_input_stay_text(tmp_path, text):
    """Text starting with = + - @ is stored as a string cell and reads back unchanged."""
    from openpyxl import load_workbook

    from answerkey.report.excel import new_workbook, save_workbook, set_cell

    workbook = new_workbook()
    set_cell(workbook.create_sheet("answers")["A1"], text)
    path = tmp_path / "report.xlsx"
    save_workbook(workbook, path)
    cell = load_workbook(path)["answers"]["A1"]
    assert (cell.data_type, cell.value) == ("s", text)


def test_atomic_write_replaces_the_whole_file(tmp_path):
    """A successful write replaces the old content and leaves no temporary file."""
    path = tmp_path / "out.json"
    path.write_text("old")
    atomic_write(path, "new")
    assert path.read_text() == "new"
    assert sorted(os.listdir(tmp_path)) == ["out.json"]


def test_a_failed_write_leaves_the_old_file_intact(tmp_path):
    """When writing fails midway the old file is untouched and the temporary file is gone."""
    path = tmp_path / "out.json"
    path.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(path) as temporary:
        temporary.write_text("half")
        raise RuntimeError("disk full")
    assert path.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["out.json"]


def test_content_that_cannot_be_encoded_never_reaches_the_file(tmp_path):
    """Text that is not valid Unicode fails before the target is touched."""
    path = tmp_path / "out.cas"
    path.write_text("((1))")
    with pytest.raises(UnicodeEncodeError):
        atomic_write(path, "\ud800")
    assert path.read_text() == "((1))"
    assert sorted(os.listdir(tmp_path)) == ["out.cas"]


def test_a_directory_of_answers_reports_files_it_does_not_read(tmp_path):
    """A stray file in an answers directory is an error naming it, not silently ignored."""
    from answerkey.score.load import load_answers

    (tmp_path / "q1.cas").write_text("((1))")
    (tmp_path / "q2.txt").write_text("((2))")
    with pytest.raises(InputError) as caught:
        load_answers(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path / 'q2.txt'}: not a <id>.cas file: an answers directory holds only <id>.cas files "
        "(hidden ones are skipped)"
    )


def test_an_unreadable_answer_file_in_a_directory_is_reported(tmp_path):
    """A .cas file that is not UTF-8 is an error naming the file, not a skipped answer."""
    from answerkey.score.load import load_answers

    (tmp_path / "q1.cas").write_text("((1))")
    (tmp_path / "q2.cas").write_bytes(b"((\xff))")
    with pytest.raises(InputError) as caught:
        load_answers(tmp_path)
    assert "q2.cas:1:3: not valid UTF-8 (byte 0xff)" in str(caught.value)
