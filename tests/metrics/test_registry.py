"""answerkey.metrics.registry: metrics by name, each with the kind of task it scores, what it
needs and the workflows it is a default of; the registry's answers pin today's defaults."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import answerkey.metrics
from answerkey.metrics import TABLE_METRICS, registry
from answerkey.metrics.efficiency import SQL_METRICS

ROOT = Path(__file__).resolve().parents[2]
TABLE_SIX = (
    "cell_precision",
    "cell_recall",
    "tuple_cardinality",
    "tuple_constraint",
    "tuple_order",
    "execution_accuracy",
)


@pytest.fixture
def empty(monkeypatch):
    """A registry of its own, so that test metrics never reach the real one."""
    monkeypatch.setattr(registry, "METRICS", {})
    monkeypatch.setattr(registry, "METRIC_KINDS", {})
    monkeypatch.setattr(registry, "DECLARATIONS", {})
    return registry


def test_every_metric_has_a_known_kind():
    """Every registered metric has a kind of KINDS, and kinds list them in registration order."""
    assert set(registry.METRIC_KINDS) == set(registry.METRICS) == set(registry.DECLARATIONS)
    assert set(registry.METRIC_KINDS.values()) <= set(registry.KINDS)
    assert registry.metrics_of_kind("table") == TABLE_METRICS
    assert registry.metrics_of_kind("sql") == SQL_METRICS == ("valid_efficiency_score",)
    assert registry.metrics_of_kind("result") == ("soft_f1",)
    assert registry.metrics_of_kind("retrieval") == (
        "recall_at_k",
        "precision_at_k",
        "average_precision",
        "reciprocal_rank",
        "ndcg_at_k",
    )


def test_each_workflow_computes_today_s_defaults():
    """The defaults (--metrics all) of every workflow, in the order of its reports, as they
    were when each workflow kept its own list."""
    assert registry.defaults_for("score") == TABLE_SIX
    assert registry.defaults_for("qatch") == TABLE_SIX
    assert registry.defaults_for("sql") == (*TABLE_SIX, "soft_f1")
    assert registry.defaults_for("qatch-evaluator") == TABLE_SIX[:5]


def test_each_workflow_offers_today_s_choices():
    """The --metrics choices of every workflow, in order: its kinds one after the other."""
    assert registry.metrics_for("score") == TABLE_SIX
    assert registry.metrics_for("qatch") == (*TABLE_SIX, "valid_efficiency_score")
    assert registry.metrics_for("sql") == (*TABLE_SIX, "soft_f1", "valid_efficiency_score")
    assert registry.metrics_for("qatch-evaluator") == TABLE_SIX


def test_what_each_metric_needs():
    """Tuple order needs an ordered gold, VES timed runs, soft F1 the driver's values; no other needs anything."""
    needing = {name: registry.needs(name) for name in registry.METRICS if registry.needs(name)}
    assert needing == {
        "tuple_order": {"order"},
        "valid_efficiency_score": {"timing"},
        "soft_f1": {"driver_values"},
    }
    assert [name for name in registry.METRICS if registry.needs_order(name)] == ["tuple_order"]
    assert registry.needs("bleu") == frozenset()  # not registered: nothing


def test_register_records_the_declaration(empty):
    """register adds the function under its name with its kind (table by default), needs and defaults."""

    @empty.register("rows")
    def rows(target, prediction, *, rule=None):
        return 1.0

    @empty.register("speed", kind="sql", needs=["timing"], default_in=["qatch", "sql"])
    def speed(target_query, predicted_query, *, database):
        return 2.0

    assert dict(empty.METRICS) == {"rows": rows, "speed": speed}
    assert empty.METRIC_KINDS == {"rows": "table", "speed": "sql"}
    assert dict(empty.DECLARATIONS) == {
        "rows": registry.Declaration("table"),
        "speed": registry.Declaration("sql", frozenset({"timing"}), frozenset({"qatch", "sql"})),
    }
    assert empty.metrics_of_kind("sql") == ("speed",)
    assert empty.metrics_of_kind("retrieval") == ()
    assert empty.defaults_for("sql") == ("speed",)
    assert empty.defaults_for("score") == ()
    assert empty.metrics_for("score") == ("rows",)


def test_choices_follow_the_workflow_s_kinds_then_registration(empty):
    """A workflow lists its metrics kind by kind in its own order, whatever order they were registered in."""
    for name, kind in [("late_sql", "sql"), ("driver", "result"), ("rows", "table"), ("more_rows", "table")]:
        empty.register(name, kind=kind, default_in=["sql"])(lambda *args, **kwargs: 0.0)
    assert empty.metrics_for("sql") == ("rows", "more_rows", "driver", "late_sql")
    assert empty.defaults_for("sql") == ("rows", "more_rows", "driver", "late_sql")
    assert empty.metrics_for("qatch") == ("rows", "more_rows", "late_sql")


def test_a_name_registers_once(empty):
    """A second metric under a taken name is refused."""
    empty.register("rows")(lambda target, prediction: 1.0)
    with pytest.raises(ValueError, match="metric 'rows' registered twice"):
        empty.register("rows", kind="sql")(lambda target, prediction: 0.0)
    assert empty.METRIC_KINDS == {"rows": "table"}


def test_unknown_kinds_are_refused(empty):
    """A kind that is not in KINDS is a ValueError naming the known ones, when registering and listing."""
    known = "known: table, sql, retrieval, answer, result$"
    with pytest.raises(ValueError, match=f"unknown metric kind 'tables'; {known}"):
        empty.register("rows", kind="tables")
    with pytest.raises(ValueError, match=f"unknown metric kind 'SQL'; {known}"):
        empty.metrics_of_kind("SQL")
    assert empty.METRICS == {}


@pytest.mark.parametrize(
    "declaration, message",
    [
        ({"needs": ["ordered"]}, "unknown need 'ordered'; known: order, timing, driver_values"),
        ({"default_in": ["judge"]}, "unknown workflow 'judge'; known: score, qatch, sql, qatch-evaluator"),
        (
            {"kind": "result", "default_in": ["qatch"]},
            "a result metric cannot be a default of qatch: it computes ('table', 'sql')",
        ),
        ({"kind": "retrieval", "default_in": ["score"]}, "a retrieval metric cannot be a default of score"),
    ],
)
def test_declarations_are_checked_when_registering(empty, declaration, message):
    """An unknown need or workflow, or a default in a workflow that does not compute the kind, is refused."""
    with pytest.raises(ValueError, match=re.escape(message)):
        empty.register("rows", **declaration)
    assert empty.METRICS == {}


def test_unknown_workflows_are_refused():
    """Asking for the metrics of a workflow the registry does not know names the known ones."""
    with pytest.raises(ValueError, match="unknown workflow 'steps'; known: score, qatch, sql, qatch-evaluator"):
        registry.defaults_for("steps")


def test_every_registered_metric_imports_from_answerkey_metrics():
    """`from answerkey.metrics import NAME` gives the registered function, for every name."""
    assert len(registry.METRICS) == 13
    for name, function in registry.METRICS.items():
        namespace: dict[str, object] = {}
        exec(f"from answerkey.metrics import {name}", namespace)
        assert namespace[name] is function, name
        assert name in answerkey.metrics.__all__


def test_a_name_that_is_no_metric_does_not_import():
    """answerkey.metrics has no attribute for a name nothing registered."""
    with pytest.raises(ImportError, match="cannot import name 'bleu'"):
        exec("from answerkey.metrics import bleu", {})


def test_the_docs_table_is_the_registry():
    """docs/metrics.md lists every registered metric with its kind, needs and defaults, as declared."""
    page = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (\w+) \|\s*([\w, ]*?)\s*\|\s*([\w, -]*?)\s*\|$", page, re.MULTILINE)
    documented = {
        name: (kind, set(needs.replace(",", " ").split()), set(defaults.replace(",", " ").split()))
        for name, kind, needs, defaults in rows
    }
    declared = {
        name: (declaration.kind, set(declaration.needs), set(declaration.default_in))
        for name, declaration in registry.DECLARATIONS.items()
    }
    assert documented == declared
    assert [name for name, *_ in rows] == list(registry.METRICS)


def test_modules_named_in_the_environment_register_their_metrics(restored, tmp_path, monkeypatch, request):
    """ANSWERKEY_METRIC_MODULES names modules (on the path) and .py files; importing them registers their
    metrics, which answerkey.metrics then gives by name."""
    (tmp_path / "by_name.py").write_text(
        "from answerkey.metrics import register\n"
        "@register('by_name', default_in=('score',))\n"
        "def by_name(target, prediction, *, rule=None):\n"
        "    return 0.25\n",
        encoding="utf-8",
    )
    by_path = tmp_path / "elsewhere" / "by_path.py"
    by_path.parent.mkdir()
    by_path.write_text(
        "from answerkey.metrics import register\n"
        "@register('by_path', kind='result', default_in=('sql',))\n"
        "def by_path(gold, predicted):\n"
        "    return 0.5\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    request.addfinalizer(lambda: [sys.modules.pop(name, None) for name in ("by_name", "by_path")])
    environ = {registry.MODULES_VARIABLE: f" by_name , {by_path},"}
    assert registry.import_metric_modules(environ) == ["by_name", str(by_path)]
    assert registry.defaults_for("score") == (*TABLE_SIX, "by_name")
    assert registry.defaults_for("sql") == (*TABLE_SIX, "soft_f1", "by_path")
    assert answerkey.metrics.by_name(None, None) == 0.25
    assert answerkey.metrics.by_path(None, None) == 0.5
    assert registry.import_metric_modules({}) == []


def test_a_missing_module_file_is_an_import_error(tmp_path):
    """A .py path that is no file is an ImportError naming the variable and the path."""
    missing = tmp_path / "nowhere.py"
    with pytest.raises(ImportError, match=f"ANSWERKEY_METRIC_MODULES: no Python file at {re.escape(str(missing))}"):
        registry.import_metric_modules({"ANSWERKEY_METRIC_MODULES": str(missing)})


def test_the_qatch_page_lists_the_table_metrics():
    """docs/qatch.md's table of metrics names the registered table metrics, in registry order."""
    page = (ROOT / "docs" / "qatch.md").read_text(encoding="utf-8")
    table = page.split("| metric | what it measures |", 1)[1].split("\n\n", 1)[0]
    assert tuple(re.findall(r"^\| `(\w+)` \|", table, re.MULTILINE)) == registry.metrics_of_kind("table")
