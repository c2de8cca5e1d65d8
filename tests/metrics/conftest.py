"""The metrics tests' fixtures."""

from __future__ import annotations

import pytest

from answerkey.metrics import registry


@pytest.fixture
def restored():
    """The real registry, put back as it was after the test: metrics a test registers reach
    the workflows (they hold the registry's dicts), and leave with the test."""
    saved = [(table, dict(table)) for table in (registry.METRICS, registry.METRIC_KINDS, registry.DECLARATIONS)]
    yield registry
    for table, contents in saved:
        table.clear()
        table.update(contents)
