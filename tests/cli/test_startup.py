"""Start-up stays lean (issue 8, target 5): judging valid files imports no heavy package.

Timing lives in benchmarks/run.py; this pins the cause of a fast start: what gets imported.
"""

import subprocess
import sys

import pytest

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


# What judging and checking CAS files never calls: the SQL, SPARQL and DuckDB/PostgreSQL
# adapters, the SQL workflow (and its Dask executor), the metrics (which load the SQLite
# adapter), the Excel writer, and the packages only those use. (The one report writer,
# answerkey.report, writes their --json.)
UNUSED = (
    "answerkey.adapters",
    "answerkey.execution",
    "answerkey.metrics",
    "answerkey.report.excel",
    "sqlite3",
    "subprocess",
    "openpyxl",
    "pandas",
    "dask",
    "distributed",
    "duckdb",
    "psycopg",
    "sqlglot",
)

LOADED = """
import sys
from answerkey.cli import main
sys.argv = ["answerkey", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    status = exit.code
unused = {unused!r}
print("probe:", status, *sorted(name for name in sys.modules if any(name == p or name.startswith(p + ".") for p in unused)))
"""


@pytest.mark.parametrize(
    "arguments",
    [
        ["judge", "c.cas", "s.cas"],
        ["judge", "--json", "-", "--explain", "c.cas", "s.cas"],
        ["check", "c.cas", "s.cas"],
        ["check", "--json", "-", "c.cas"],
    ],
)
def test_judge_and_check_load_no_sql_excel_or_dask_module(tmp_path, arguments):
    """``judge`` and ``check`` import none of what they never call: no SQL or SPARQL adapter,
    no metric, no SQLite, helper process, Excel writer, openpyxl, pandas or Dask module."""
    (tmp_path / "c.cas").write_text('((2341 "SMITH") (5573 "JONES"))')
    (tmp_path / "s.cas").write_text('(("JONES" 5573) ("SMITH" 2341))')
    result = subprocess.run(
        [sys.executable, "-c", LOADED.format(unused=UNUSED), *arguments],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    probe = [line for line in result.stdout.splitlines() if line.startswith("probe:")]
    status, *loaded = probe[-1].split()[1:]
    assert (status, loaded) == ("0", [])


def test_the_sql_command_loads_dask_only_for_a_cluster():
    """``answerkey.execution`` (``DaskExecutor``, ``ClusterError``) and the ``sql`` command
    import Dask only when a cluster is asked for, so a local run never pays for it."""
    probe = (
        "import sys\n"
        "from answerkey.execution import ClusterError, DaskExecutor\n"
        "import answerkey.cli.sql\n"
        "print('probe:', *sorted(name for name in ('dask', 'distributed') if name in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[-1] == "probe:"
