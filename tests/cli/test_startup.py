"""Start-up stays lean (issue 8, target 5): judging valid files imports no heavy package.

Timing lives in benchmarks/run.py; this pins the cause of a fast start: what gets imported.
"""

import subprocess
import sys

HEAVY = ("lark", "hypothesis", "openpyxl", "pandas", "pydantic", "yaml", "duckdb", "psycopg", "dask", "distributed")

PROBE = """
import sys
from answerkey.cli import main
sys.argv = ["answerkey", "judge", sys.argv[1], sys.argv[2]]
try:
    main()
except SystemExit as exit:
    status = exit.code
print("probe:", status, *sorted(name for name in {heavy!r} if name in sys.modules))
"""


def run_judge(tmp_path, canonical: str, system: str) -> list[str]:
    (tmp_path / "c.cas").write_text(canonical)
    (tmp_path / "s.cas").write_text(system)
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), str(tmp_path / "c.cas"), str(tmp_path / "s.cas")],
        capture_output=True,
        text=True,
        check=True,
    )
    probe = [line for line in result.stdout.splitlines() if line.startswith("probe:")]
    return probe[-1].split()[1:]


def test_judge_of_valid_files_imports_no_heavy_package(tmp_path):
    """Valid CAS files are read by the fast path: Lark (and every optional package) stays unloaded."""
    assert run_judge(tmp_path, '((2341 "SMITH") (5573 "JONES"))', '(("JONES" 5573) ("SMITH" 2341))') == ["0"]


def test_judge_of_invalid_file_loads_the_grammar_for_the_message(tmp_path):
    """Only a text the fast path refuses brings in Lark, to word the error (exit 2)."""
    assert run_judge(tmp_path, "((1) (2 3))", "((1))") == ["2", "lark"]
