"""Ctrl-C while a workbook is written: the exit status and outputs were right, but openpyxl's
half-written sheets, finalized at exit, printed "Exception ignored ... I/O operation on closed
file" (issue 30, item 14). The interruption is made to land between two rows of a sheet, where
the signal landed in those runs."""

import json
import subprocess
import sys

INTERRUPTED_RUN = """
import sys
from openpyxl.worksheet._write_only import WriteOnlyWorksheet
from answerkey.cli import main

appended = 0
append = WriteOnlyWorksheet.append

def append_then_interrupt(self, row):
    global appended
    appended += 1
    if appended == 300:  # Ctrl-C between two rows of the Overview sheet
        raise KeyboardInterrupt
    return append(self, row)

WriteOnlyWorksheet.append = append_then_interrupt
sys.argv = ["answerkey", *sys.argv[1:]]
main()
"""


def test_ctrl_c_while_a_workbook_is_written_says_interrupted_and_nothing_else(tmp_path):
    """Exit 130, "interrupted" alone on standard error, no workbook left."""
    corpus, answers = tmp_path / "corpus.jsonl", tmp_path / "answers.jsonl"
    lines = "".join(json.dumps({"id": f"q{i}", "answer": f"(({i} x))"}) + "\n" for i in range(1000))
    corpus.write_text(lines)
    answers.write_text(lines)
    workbook = tmp_path / "report.xlsx"
    result = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_RUN, "score", corpus, answers, "-q", "--xlsx", workbook],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (result.returncode, result.stderr) == (130, "interrupted\n")
    assert not workbook.exists()
