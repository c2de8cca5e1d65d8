"""Databases the execution tests build: a Spider-layout root of SQLite files where ``shop`` is a
test suite of two databases and ``other`` a single one (the PostgreSQL server is tests/conftest.py's)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

SHOP_SCHEMA = "CREATE TABLE item (name TEXT, price REAL, qty INTEGER);"
SHOP_ROWS = "INSERT INTO item VALUES ('pen', 1.5, 10), ('ink', 7.25, 3), ('pad', 2.0, 10), ('pen', 1.5, 4);"
SHOP2_ROWS = "INSERT INTO item VALUES ('cap', 1.5, 20), ('pen', 9.0, 1);"
OTHER = "CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2);"


def make_database(path: Path, script: str) -> Path:
    """A new SQLite file at ``path`` made by ``script``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.executescript(script)
    db.close()
    return path


@pytest.fixture
def databases(tmp_path) -> Path:
    """``ROOT/shop/shop.sqlite`` and ``shop2.sqlite`` (a suite), ``ROOT/other/other.sqlite``."""
    root = tmp_path / "databases"
    make_database(root / "shop" / "shop.sqlite", SHOP_SCHEMA + SHOP_ROWS)
    make_database(root / "shop" / "shop2.sqlite", SHOP_SCHEMA + SHOP2_ROWS)
    make_database(root / "other" / "other.sqlite", OTHER)
    return root
