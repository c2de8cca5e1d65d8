"""Every bound on untrusted input, in one place.

Readers, the grammar, the SQL adapter and the CLI take their limits from here, and the docs
list them from ``LIMITS`` (a test checks that each one is documented with its option). A
limit that a user may need to raise has a command-line option, named in ``Limit.option``.

>>> LIMITS["cas_chars"].value == MAX_CAS_CHARS
True
>>> print(LIMITS["columns"].describe())
columns per tuple: 2,000 (refused beyond)
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = [
    "Limit",
    "LIMITS",
]

# Files.
MAX_INPUT_BYTES = 512 * 1024 * 1024
MAX_JSON_DEPTH = 100
MAX_YAML_NODES = 2_000_000
# A YAML document's aliases may expand it (values counted each time they are used, in
# characters) to at most this many times its own size, plus YAML_EXPANSION_FLOOR characters.
YAML_EXPANSION = 4
YAML_EXPANSION_FLOOR = 16 * 1024 * 1024

# CAS text.
MAX_CAS_CHARS = 256 * 1024 * 1024
CLI_MAX_CAS_CHARS = 128 * 1024 * 1024
MAX_NUMBER_CHARS = 1000
MAX_EXPONENT = 1_000_000
# SQLite's own default (SQLITE_MAX_COLUMN): a wider answer is refused at once.
MAX_COLUMNS = 2000
# Readings of one ambiguous canonical answer, (A OR B ...): ATIS's had a handful; 100,000 of
# them (1.3 MB) took 5 s and 136 MB to judge.
MAX_ALTERNATIVES = 1000

# Tables given as JSON text (QATCH predictions).
MAX_TABLE_CHARS = 16 * 1024 * 1024

# SQL run on databases.
SQL_TIMEOUT = 30.0
SQL_MAX_ROWS = 1_000_000
SQL_MAX_RESULT_BYTES = 64 * 1024 * 1024
# SQLite's heap while one query runs (in its helper process): this many times the result
# byte limit, and at least SQL_HEAP_FLOOR bytes.
SQL_HEAP_FACTOR = 4
SQL_HEAP_FLOOR = 256 * 1024 * 1024
MAX_QUERY_CHARS = 1_000_000
# Predictions tried with the gold's values plugged in (test-suite --plug-value): the official
# script makes len(values) ** places of them; 4 values in 6 places are 4,096.
MAX_PLUGGED_PREDICTIONS = 4096
# Golds of one SQL item (a corpus item's list, or defog's {...} alternatives): the prediction is
# correct when it matches any of them.
MAX_GOLDS = 100
MAX_DB_ID_CHARS = 128
# DuckDB's memory (its buffer manager; nothing spills to disk) and threads while one query
# runs: one thread, as --jobs runs queries side by side.
DUCKDB_MEMORY_LIMIT = 1024 * 1024 * 1024
DUCKDB_THREADS = 1
# Seconds to reach a Dask scheduler (answerkey sql --cluster), and to wait for a worker when
# the cluster has none.
DASK_CONNECT_TIMEOUT = 10.0

# Formatters under `answerkey fuzz roundtrip`.
FUZZ_TIMEOUT = 10.0
FUZZ_MAX_OUTPUT_BYTES = 16 * 1024 * 1024

# Warnings of one kind printed before the rest are only counted.
WARNINGS_SHOWN = 5
# Input errors printed before the rest are only counted (every one is found; a file of
# 3,000,000 bad values printed 3,000,000 lines).
ERRORS_SHOWN = 100

# Counts the machine must carry out: worker processes (--jobs, a local Dask cluster's workers)
# and DuckDB threads per query, at most this many per CPU (-j 100000 forked until the system
# refused). Timed runs per correct prediction (BIRD's VES): each is a real execution.
PER_CPU = 4
MAX_JOBS = MAX_THREADS = PER_CPU * (os.cpu_count() or 1)
MAX_VES_RUNS = 1000
# A relative tolerance above 100% makes a real match any number of its sign and up to twice it.
MAX_EPSILON = 1.0
# An absolute floor for reals' tolerance (--abs-epsilon): beyond a million, every answer's
# small numbers would all match each other, which no evaluation means.
MAX_ABS_EPSILON = 1_000_000


@dataclass(frozen=True)
class Limit:
    """One documented bound: what it bounds, its value and unit, the option that sets it."""

    what: str
    value: int | float
    unit: str = ""
    option: str = ""
    behaviour: str = "refused beyond"

    def describe(self) -> str:
        """``what: value unit (behaviour; option)`` as the docs list it."""
        value = f"{self.value:,}" if isinstance(self.value, int) else f"{self.value:g}"
        unit = f" {self.unit}" if self.unit else ""
        option = f"; {self.option}" if self.option else ""
        return f"{self.what}: {value}{unit} ({self.behaviour}{option})"


LIMITS: dict[str, Limit] = {
    "input_bytes": Limit("input file size", MAX_INPUT_BYTES, "bytes"),
    "json_depth": Limit("nesting of JSON and YAML values", MAX_JSON_DEPTH, "levels"),
    "yaml_nodes": Limit("YAML nodes, aliases counted each time used", MAX_YAML_NODES, "nodes"),
    "yaml_expansion": Limit("YAML size after alias expansion", YAML_EXPANSION, "x the file size + 16 MiB"),
    "cas_chars": Limit("CAS answer, Python API", MAX_CAS_CHARS, "characters", "parse(max_chars=...)"),
    "cli_cas_chars": Limit("CAS answer file, judge and check", CLI_MAX_CAS_CHARS, "characters", "--max-chars"),
    "number_chars": Limit("digits of a number", MAX_NUMBER_CHARS, "characters"),
    "exponent": Limit("exponent of a number", MAX_EXPONENT, "(absolute value)"),
    "columns": Limit("columns per tuple", MAX_COLUMNS),
    "alternatives": Limit("alternatives of one canonical answer (OR)", MAX_ALTERNATIVES),
    "table_chars": Limit(
        "a QATCH table given as JSON text", MAX_TABLE_CHARS, "characters", behaviour="scored as malformed beyond"
    ),
    "sql_timeout": Limit("one SQL query", SQL_TIMEOUT, "seconds", "--timeout", "stopped, scored 0, beyond"),
    "sql_rows": Limit("rows of a query result", SQL_MAX_ROWS, "rows", "--max-rows", "stopped, scored 0, beyond"),
    "sql_bytes": Limit(
        "bytes of a query result (8 a value, NULL and empty text included, and a text's UTF-8 "
        "or a blob's length on top)",
        SQL_MAX_RESULT_BYTES,
        "bytes",
        "--max-result-bytes",
        "stopped, scored 0, beyond",
    ),
    "sql_heap": Limit(
        "SQLite memory while one query runs",
        SQL_HEAP_FACTOR,
        "x the result byte limit, at least 256 MiB",
        "--max-result-bytes",
        "stopped, scored 0, beyond",
    ),
    "query_chars": Limit("SQL query text", MAX_QUERY_CHARS, "characters", behaviour="scored 0 beyond"),
    "plugged_predictions": Limit(
        "predictions tried with the gold's values plugged in (--plug-value)",
        MAX_PLUGGED_PREDICTIONS,
        "per item",
        behaviour="the first ones tried beyond",
    ),
    "duckdb_memory": Limit(
        "DuckDB memory while one query runs",
        DUCKDB_MEMORY_LIMIT,
        "bytes",
        "--memory-limit",
        "stopped, scored 0, beyond",
    ),
    "duckdb_threads": Limit("DuckDB threads per query", DUCKDB_THREADS, "", "--threads", "at most"),
    "dask_connect": Limit(
        "reaching a Dask scheduler, or a worker on it", DASK_CONNECT_TIMEOUT, "seconds", behaviour="refused beyond"
    ),
    "db_id_chars": Limit("a db_id", MAX_DB_ID_CHARS, "characters", behaviour="scored 0 beyond"),
    "fuzz_timeout": Limit("one call of a formatter", FUZZ_TIMEOUT, "seconds", "--timeout", "killed beyond"),
    "fuzz_output": Limit(
        "output of one call of a formatter", FUZZ_MAX_OUTPUT_BYTES, "bytes", behaviour="killed beyond"
    ),
    "warnings_shown": Limit("warnings of one kind printed", WARNINGS_SHOWN, behaviour="counted beyond"),
    "errors_shown": Limit("input errors printed", ERRORS_SHOWN, behaviour="counted beyond"),
    "jobs": Limit("worker processes", PER_CPU, "per CPU of the machine", "--jobs"),
    "threads": Limit("DuckDB threads per query, as set", PER_CPU, "per CPU of the machine", "--threads"),
    "ves_runs": Limit("timed runs of a correct prediction (VES)", MAX_VES_RUNS, "runs", "--ves-runs"),
    "epsilon": Limit("relative tolerance for reals", MAX_EPSILON, "", "--epsilon"),
    "abs_epsilon": Limit("absolute tolerance floor for reals", MAX_ABS_EPSILON, "", "--abs-epsilon"),
}
"""Every documented limit by name (the docs' table of limits lists each one)."""
