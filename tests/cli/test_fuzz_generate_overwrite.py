"""`fuzz generate -o DIR/` never replaces answer files already in DIR unless --force (issue 27,
item 4: it silently overwrote answer-0001.cas and the rest)."""


def test_existing_answer_files_are_not_replaced(run_cli, tmp_path):
    """A second run into the same directory is refused before anything is written, naming the files."""
    out = tmp_path / "fuzzed"
    first = run_cli("fuzz", "generate", "-n", "3", "--seed", "1", "-o", f"{out}/", "-q")
    assert first.exit_code == 0, first.stderr
    (out / "answer-0002.cas").write_text("((mine))\n")
    second = run_cli("fuzz", "generate", "-n", "5", "--seed", "2", "-o", f"{out}/", "-q")
    assert second.exit_code == 2
    assert second.stderr == (
        f"-o {out}/: 3 of the 5 answer files are there already (answer-0001.cas, answer-0002.cas, "
        "answer-0003.cas); refusing to replace them (--force replaces them)\n"
    )
    assert (out / "answer-0002.cas").read_text() == "((mine))\n"
    assert sorted(path.name for path in out.iterdir()) == ["answer-0001.cas", "answer-0002.cas", "answer-0003.cas"]


def test_force_replaces_them_and_other_names_are_free(run_cli, tmp_path):
    """--force writes over them; another format's names (answer-0001.csv) never clash with .cas files."""
    out = tmp_path / "fuzzed"
    out.mkdir()
    (out / "answer-0001.cas").write_text("((mine))\n")
    assert run_cli("fuzz", "generate", "-n", "2", "--format", "csv", "-o", f"{out}/", "-q").exit_code == 0
    forced = run_cli("fuzz", "generate", "-n", "2", "--seed", "3", "-o", f"{out}/", "--force", "-q")
    assert forced.exit_code == 0, forced.stderr
    assert (out / "answer-0001.cas").read_text() != "((mine))\n"
