"""answerkey.metrics.registry: metrics by name, each with the kind of task it scores."""

from __future__ import annotations

import pytest

from answerkey.metrics import TABLE_METRICS, registry
from answerkey.metrics.efficiency import SQL_METRICS


@pytest.fixture
def empty(monkeypatch):
    """A registry of its own, so that test metrics never reach the real one."""
    monkeypatch.setattr(registry, "METRICS", {})
    monkeypatch.setattr(registry, "METRIC_KINDS", {})
    return registry


def test_every_metric_has_a_known_kind():
    """Every registered metric has a kind of KINDS, and kinds list them in registration order."""
    assert set(registry.METRIC_KINDS) == set(registry.METRICS)
    assert set(registry.METRIC_KINDS.values()) <= set(registry.KINDS)
    assert registry.metrics_of_kind("table") == TABLE_METRICS
    assert registry.metrics_of_kind("sql") == SQL_METRICS == ("valid_efficiency_score",)


def test_register_records_name_and_kind(empty):
    """register adds the function under its name with its kind (table by default)."""

    @empty.register("rows")
    def rows(target, prediction, *, rule=None):
        return 1.0

    @empty.register("speed", kind="sql")
    def speed(target_query, predicted_query, *, database):
        return 2.0

    assert dict(empty.METRICS) == {"rows": rows, "speed": speed}
    assert empty.METRIC_KINDS == {"rows": "table", "speed": "sql"}
    assert empty.metrics_of_kind("sql") == ("speed",)
    assert empty.metrics_of_kind("retrieval") == ()


def test_a_name_registers_once(empty):
    """A second metric under a taken name is refused."""
    empty.register("rows")(lambda target, prediction: 1.0)
    with pytest.raises(ValueError, match="metric 'rows' registered twice"):
        empty.register("rows", kind="sql")(lambda target, prediction: 0.0)
    assert empty.METRIC_KINDS == {"rows": "table"}


def test_unknown_kinds_are_refused(empty):
    """A kind that is not in KINDS is a ValueError naming the known ones, when registering and listing."""
    known = "known: table, sql, retrieval, answer"
    with pytest.raises(ValueError, match=f"unknown metric kind 'tables'; {known}"):
        empty.register("rows", kind="tables")
    with pytest.raises(ValueError, match=f"unknown metric kind 'SQL'; {known}"):
        empty.metrics_of_kind("SQL")
    assert empty.METRICS == {}
