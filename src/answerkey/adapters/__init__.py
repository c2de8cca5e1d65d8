"""Adapters at the edges: every outside form of an answer becomes a ``Relation``.

- ``answerkey.adapters.rows``: JSON rows and CSV, and the registry of answer text formats;
- ``answerkey.adapters.sparql``: SPARQL 1.1 results JSON;
- ``answerkey.adapters.sql``: SQL run read-only on SQLite databases.
"""
