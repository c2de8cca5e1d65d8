"""The file edges (answerkey.files): reading JSON, JSON Lines and YAML with located errors,
bounded expansion, and writing outputs safely to whatever the path is."""

import os
import stat
import subprocess
import sys
import threading

import pytest

from answerkey.errors import InputError
from answerkey.files import (
    OutputError,
    check_outputs,
    decode_json,
    json_positions,
    load_document,
    load_yaml,
    output_stream,
    read_jsonl,
    regular_files,
    write_output,
)
from answerkey.limits import MAX_YAML_NODES


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
    assert error.message == (
        f"aliases expand the document to more than {MAX_YAML_NODES:,} nodes: "
        "write repeated values out, or refer to them less often"
    )
    assert (error.source, error.line) == ("bomb.yaml", 7)  # the first level past two million nodes


def test_an_alias_of_a_long_value_used_many_times_is_rejected_by_size():
    """Expansion counts characters, not only nodes: 2,000 uses of one 1 MB value (2 GB) is refused."""
    text = "tag: &t " + "x" * 1_000_000 + "\nitems:\n" + "".join("- *t\n" for _ in range(2000))
    with pytest.raises(InputError) as caught:
        load_yaml(text, source="tags.yaml")
    assert caught.value.message.startswith("aliases expand the document to more than ")
    assert caught.value.message.split(" characters")[0].endswith(f"{4 * len(text) + 16 * 1024 * 1024:,}")


def test_aliases_below_the_limit_still_load():
    """Ordinary anchors and aliases keep working: only the expansion size is bounded."""
    document = load_yaml(_billion_laughs(levels=3, width=3), source="small.yaml")
    assert document.data["a2"] == [[["lol"] * 3] * 3] * 3


def test_duplicate_keys_are_reported_where_they_are():
    """A key given twice is an error at the second occurrence (YAML would keep the last silently)."""
    with pytest.raises(InputError) as caught:
        load_yaml("id: q1\nanswer: 5\nanswer: 6\n", source="corpus.yaml")
    assert str(caught.value) == "corpus.yaml:3:1: the key 'answer' is given twice"


def test_yaml_keys_are_text():
    """`yes:`, `1:` and `1.0:` are the keys "yes", "1" and "1.0" (YAML would read True, 1, 1.0)."""
    assert load_yaml("yes: a\n1: b\n1.0: c\nnull: d\n").data == {"yes": "a", "1": "b", "1.0": "c", "null": "d"}


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
    assert (caught.value.line, caught.value.column) == (2, 9)


@pytest.mark.parametrize(
    "text, column, message",
    [
        # Found by `answerkey fuzz self -n 5000 --seed 3`: PyYAML let a plain ValueError escape.
        ("answer: 2024-02-30\n", 9, "not a date: '2024-02-30' (day is out of range for month)"),
        ("- 0000-00-00\n", 3, "not a date: '0000-00-00' (year 0 is out of range)"),
        ("answer: " + "9" * 5000 + "\n", 9, "an integer of more than 4,300 digits"),
        ("epsilon: .inf\n", 10, ".inf is not a finite number"),
        ("- -.Inf\n", 3, "-.Inf is not a finite number"),
        ("x: !!float nan\n", 4, "nan is not a finite number"),
    ],
)
def test_a_yaml_scalar_python_cannot_build_is_a_located_input_error(text, column, message):
    """An impossible date or an over-long integer is an InputError at its place."""
    with pytest.raises(InputError) as caught:
        load_yaml(text, source="corpus.yaml")
    assert (caught.value.line, caught.value.column) == (1, column)
    assert caught.value.message.startswith(message)


@pytest.mark.parametrize(
    "text, where, message",
    [
        ('{"id": "q1",\n "id": "q2"}', (2, 2), "the key 'id' is given twice"),
        ('{"a": [1,\n NaN]}', (2, 2), "NaN is not a JSON number"),
        ('{"a": -Infinity}', (1, 7), "-Infinity is not a JSON number"),
        ('{"n": ' + "7" * 4301 + "}", (1, 7), "an integer of 4,301 digits (more than 4,300)"),
        ('["ok", "\\ud800"]', (1, 9), "the escape \\ud800 is half of a UTF-16 surrogate pair, not a character"),
        ('["\\udc00x"]', (1, 3), "the escape \\udc00 is half of a UTF-16 surrogate pair, not a character"),
        ("[" * 101 + "]" * 101, (1, 1), "nested deeper than 100 levels"),
        ('{"a": 1', (1, 8), "invalid JSON: Expecting ',' delimiter"),
    ],
)
def test_json_that_python_would_accept_or_crash_on_is_a_located_error(text, where, message):
    """Every JSON reader refuses duplicate keys, non-numbers, huge integers, lone surrogates
    and deep nesting with FILE:LINE:COL; Python's json would keep, crash or write garbage."""
    with pytest.raises(InputError) as caught:
        decode_json(text, source="in.json")
    assert ((caught.value.line, caught.value.column), caught.value.message) == (where, message)


def test_surrogate_pairs_and_escaped_backslashes_are_text():
    """A high and a low escape are one character (JSON's way to write U+1F600); "\\\\ud800" is text."""
    assert decode_json('["\\ud83d\\ude00", "\\\\ud800"]') == ["\U0001f600", "\\ud800"]


def test_a_lone_surrogate_in_yaml_is_refused():
    """YAML's double-quoted escapes can write a lone surrogate too: refused where it is."""
    with pytest.raises(InputError) as caught:
        load_yaml('- id: q1\n  tags: ["\\ud800"]\n', source="c.yaml")
    assert (caught.value.line, caught.value.column) == (2, 11)


def test_json_positions_point_at_keys_and_elements():
    """Errors in a JSON document are located from the key path of the value."""
    positions = json_positions('[{"id": "q1"},\n {"id": "q2", "tags": [1, 2]}]')
    assert positions[(1, "tags", 1)] == (2, 27)
    assert positions[(1,)] == (2, 2)


def test_documents_are_read_by_suffix_and_located(tmp_path):
    """load_document reads .json, .jsonl and .yaml, and locates a path in each."""
    for name, text, place in [
        ("a.json", '[{"id": "q1"},\n {"id": "q2"}]', (2, 3)),
        ("a.jsonl", '{"id": "q1"}\n{"id": "q2"}\n', (2, 2)),
        ("a.yaml", "- id: q1\n- id: q2\n", (2, 7)),
    ]:
        path = tmp_path / name
        path.write_text(text)
        document = load_document(path)
        assert document.data == [{"id": "q1"}, {"id": "q2"}]
        assert document.locate((1, "id")) == place, name


def test_a_bad_jsonl_line_is_reported_with_its_line_number_not_a_crash():
    """Good lines around a bad one are kept; the bad one becomes a located error entry."""
    entries = list(read_jsonl('{"id": "q1"}\n\n{"id": q2}\n{"id": "q3"}\n' + "[" * 100_000 + "\n", source="a.jsonl"))
    assert [(entry.line, entry.value) for entry in entries if entry.error is None] == [
        (1, {"id": "q1"}),
        (4, {"id": "q3"}),
    ]
    errors = [entry.error for entry in entries if entry.error is not None]
    assert [(error.source, error.line, error.column) for error in errors] == [("a.jsonl", 3, 8), ("a.jsonl", 5, 1)]
    assert str(errors[0]) == "a.jsonl:3:8: invalid JSON: Expecting value"


def test_regular_files_skip_fifos_and_link_loops_without_hanging(tmp_path):
    """A FIFO or a symlink loop in an input directory is named as skipped; reading stays instant."""
    (tmp_path / "a.yaml").write_text("x: 1\n")
    os.mkfifo(tmp_path / "b.yaml")
    os.symlink("c.yaml", tmp_path / "c.yaml")
    os.symlink("nowhere", tmp_path / "d.yaml")
    found, skipped = regular_files(tmp_path, [".yaml"])
    assert [path.name for path in found] == ["a.yaml"]
    assert [(path.name, why) for path, why in skipped] == [
        ("b.yaml", "a FIFO"),
        ("c.yaml", "Too many levels of symbolic links"),
        ("d.yaml", "No such file or directory"),
    ]


# ---------------------------------------------------------------------------- writing


def test_a_write_replaces_the_whole_file_and_keeps_its_mode(tmp_path):
    """A report over an existing 0600 file replaces it, stays 0600, and leaves no temporary file."""
    path = tmp_path / "out.json"
    path.write_text("old")
    os.chmod(path, 0o600)
    write_output(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert sorted(os.listdir(tmp_path)) == ["out.json"]


def test_a_new_file_gets_the_usual_mode(tmp_path):
    """A new report is 0666 less the umask, like any file a program creates."""
    umask = os.umask(0o022)
    try:
        write_output(tmp_path / "new.json", "{}")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o644


def test_a_failed_write_leaves_the_old_file_intact(tmp_path):
    """When writing fails midway the old file is untouched and the temporary file is gone."""
    path = tmp_path / "out.json"
    path.write_text("old")
    with pytest.raises(RuntimeError), output_stream(path) as stream:
        stream.write(b"half")
        raise RuntimeError("disk full")
    assert path.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["out.json"]


def test_content_that_cannot_be_encoded_never_reaches_the_file(tmp_path):
    """Text that is not valid Unicode fails before the target is touched."""
    path = tmp_path / "out.cas"
    path.write_text("((1))")
    with pytest.raises(UnicodeEncodeError):
        write_output(path, "\ud800")
    assert path.read_text() == "((1))"
    assert sorted(os.listdir(tmp_path)) == ["out.cas"]


def test_a_character_device_is_written_to_not_replaced(tmp_path):
    """`--json /dev/null` writes to the device; it never becomes a regular file."""
    write_output("/dev/null", "{}\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_fifo_is_written_to_not_replaced(tmp_path):
    """A FIFO output gets the bytes through the pipe and stays a FIFO."""
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_output(fifo, "through the pipe")
    reader.join(timeout=10)
    assert received == [b"through the pipe"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_symlink_is_followed_and_kept(tmp_path):
    """A link to a report file: the file is replaced, the link stays a link."""
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    os.symlink(target, link)
    write_output(link, "new")
    assert os.path.islink(link) and target.read_text() == "new"


def test_a_symlink_to_standard_output_reaches_it(tmp_path):
    """A link to /proc/self/fd/1 writes to the process's standard output, not over the link."""
    script = (
        "import os, sys; from answerkey.files import write_output; "
        f"os.symlink('/proc/self/fd/1', {str(tmp_path / 'out')!r}); write_output({str(tmp_path / 'out')!r}, 'hello')"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True)
    assert result.stdout == b"hello"
    assert os.path.islink(tmp_path / "out")


def test_a_temporary_file_left_by_a_killed_write_is_removed(tmp_path):
    """A temporary file of a process that is gone is cleaned up by the next write to the path."""
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    ).stdout.strip()
    stale = tmp_path / f".report.json.{dead}-0.answerkey-tmp"
    stale.write_text("half a report")
    write_output(tmp_path / "report.json", "{}")
    assert sorted(os.listdir(tmp_path)) == ["report.json"]


def test_output_errors_name_the_users_path(tmp_path):
    """A path that cannot be written is named in the error, never a hidden temporary file."""
    with pytest.raises(OutputError) as caught:
        write_output(tmp_path / "missing" / "x.yaml", "a: 1\n")
    assert caught.value.message == f"cannot write {tmp_path / 'missing' / 'x.yaml'}: No such file or directory"


def test_outputs_that_are_inputs_are_refused_before_the_run(tmp_path):
    """An output path naming an input (also through a link) is refused, and so is a bad directory."""
    corpus = tmp_path / "c.yaml"
    corpus.write_text("- {id: q1, answer: 1}\n")
    os.symlink(corpus, tmp_path / "alias.yaml")
    inputs = {"CORPUS": str(corpus)}
    for path in (str(corpus), str(tmp_path / "alias.yaml")):
        with pytest.raises(OutputError, match="this is the input CORPUS; refusing to overwrite it"):
            check_outputs({"--yaml": (path, "yaml")}, inputs)
    with pytest.raises(OutputError, match="no such directory"):
        check_outputs({"--json": (str(tmp_path / "nope" / "r.json"), "json")}, inputs)
    with pytest.raises(OutputError, match="both write to"):
        check_outputs({"--json": (str(tmp_path / "r"), "json"), "--yaml": (str(tmp_path / "r"), "yaml")}, inputs)
    with pytest.raises(OutputError, match="a workbook cannot go to standard output"):
        check_outputs({"--xlsx": ("-", "xlsx")}, inputs)


def test_a_suffix_of_another_format_is_a_warning(tmp_path):
    """Excel bytes into report.json is allowed but said; /dev/null has no suffix to check."""
    warnings = check_outputs({"--xlsx": (str(tmp_path / "report.json"), "xlsx"), "--json": ("/dev/null", "json")})
    assert [warning.message for warning in warnings] == [
        f"--xlsx {tmp_path / 'report.json'}: the file name ends in .json, but an Excel workbook is written"
    ]
