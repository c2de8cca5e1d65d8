"""Adapters at the edges: every outside form of an answer becomes a ``Relation``.

- ``answerkey.adapters.rows``: JSON rows and CSV, and the registry of answer text formats;
- ``answerkey.adapters.sparql``: SPARQL 1.1 results JSON;
- ``answerkey.adapters.engines``: the SQL engines (SQLite, DuckDB, PostgreSQL) a query runs on;
- ``answerkey.adapters.sql``: SQL run read-only on SQLite databases.
"""

from answerkey.adapters.engines import (
    DuckDBEngine,
    Engine,
    PostgreSQLEngine,
    SQLiteEngine,
    open_engine,
)
from answerkey.adapters.rows import read_answer, read_csv, read_jsonrows, write_answer
from answerkey.adapters.sparql import read_sparql_results, relation_from_sparql_results
from answerkey.adapters.sql import QueryResult, run_query

__all__ = [
    "read_answer",
    "write_answer",
    "read_jsonrows",
    "read_csv",
    "read_sparql_results",
    "relation_from_sparql_results",
    "Engine",
    "SQLiteEngine",
    "DuckDBEngine",
    "PostgreSQLEngine",
    "open_engine",
    "run_query",
    "QueryResult",
]
