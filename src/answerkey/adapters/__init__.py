"""Adapters at the edges: every outside form of an answer becomes a ``Relation``.

- ``answerkey.adapters.rows``: JSON rows and CSV, and the registry of answer text formats;
- ``answerkey.adapters.sparql``: SPARQL 1.1 results JSON;
- ``answerkey.adapters.engines`` (a public module of its own, so that reading rows loads no
  SQL engine): the SQL engines (SQLite, DuckDB, PostgreSQL) a query runs on, read-only, and
  ``run_query``.
"""

from answerkey.adapters.rows import read_answer, read_csv, read_jsonrows, write_answer
from answerkey.adapters.sparql import read_sparql_results, relation_from_sparql_results

__all__ = [
    "read_answer",
    "write_answer",
    "read_jsonrows",
    "read_csv",
    "read_sparql_results",
    "relation_from_sparql_results",
]
