"""The registry of semantics is what runs: its names are the CLI's choices, the run's verdicts,
the report columns and the docs table; a semantics registered later (the worked example of
docs/semantics.md among them) is decided and shown only when it is the headline, and its
query rewrites and options go through the same hook as test-suite's."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import pytest

from answerkey.adapters.sql import QueryResult
from answerkey.execution import semantics as semantics_package
from answerkey.execution.load import SqlInputs, SqlItem
from answerkey.execution.run import SqlOptions, run_sql
from answerkey.execution.semantics import (
    DEFAULT_SEMANTICS,
    DESCRIPTIONS,
    SEMANTICS,
    Decision,
    Item,
    Rewritten,
    Semantics,
    decide,
    decide_all,
    decided_semantics,
    import_semantics_modules,
    names,
    register,
    semantics_named,
    unregister,
)
from answerkey.execution.semantics.answerkey import Answerkey
from answerkey.execution.semantics.bird import Bird
from answerkey.execution.semantics.spider2 import Spider2
from answerkey.execution.semantics.test_suite import TestSuite
from answerkey.model import Relation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "semantics" / "exact_bag.py"
BUILT_IN = ("answerkey", "test-suite", "bird", "spider2")


class SameCount(Semantics):
    """A semantics for these tests: correct when both results have as many rows."""

    name = "same-count"
    rule = "as many rows as the gold"
    default = False

    def decide(self, item: Item) -> Decision:
        same = len(item.gold_rows) == len(item.predicted_rows)
        return self.decision(same, f"{len(item.gold_rows)} and {len(item.predicted_rows)} rows")


class NoLimit(Semantics):
    """A semantics for these tests whose script drops ``LIMIT 1`` before running the queries
    (and, with its option ``lower``, writes them in lower case)."""

    name = "no-limit"
    rule = "the rows as a set, LIMIT 1 removed from both queries"
    default = False
    official = "no-limit's script"
    options: ClassVar[Mapping[str, str]] = {"lower": "the queries written in lower case"}

    def rewrite(self, sql: str, *, predicted: bool, options: frozenset[str] = frozenset()) -> Rewritten:
        changes = []
        if " LIMIT 1" in sql:
            sql, changes = sql.replace(" LIMIT 1", ""), ["LIMIT 1 removed"]
        if "lower" in options and sql != sql.lower():
            sql, changes = sql.lower(), [*changes, "lower case"]
        return Rewritten(sql, tuple(changes))

    def decide(self, item: Item) -> Decision:
        same = set(item.gold_rows) == set(item.predicted_rows)
        return self.decision(same, "same set of rows" if same else "the sets differ")


@pytest.fixture
def registered():
    """Register the given semantics for one test, and remove them after it."""
    added: list[str] = []

    def add(*chosen: Semantics) -> None:
        for semantics in chosen:
            register(semantics)
            added.append(semantics.name)

    yield add
    for name in added:
        unregister(name)


@pytest.fixture
def exact_bag():
    """The module of docs/semantics.md, imported from its file (it registers ``exact-bag``);
    unregistered after the test."""
    spec = importlib.util.spec_from_file_location("exact_bag_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    unregister("exact-bag")


@pytest.fixture
def command_line_modules():
    """Remove after the test what ANSWERKEY_SEMANTICS_MODULES imported and registered."""
    yield
    for name in set(names()) - set(BUILT_IN):
        unregister(name)
    sys.modules.pop("exact_bag", None)


def result(rows, *columns):
    typed = Relation.from_rows(rows).rows if rows else ()
    return QueryResult(rows=typed, columns=columns or tuple(f"c{i}" for i in range(len(rows[0]) if rows else 1)))


def items() -> list[SqlItem]:
    return [
        SqlItem("dup", "shop", "SELECT name FROM item WHERE qty > 3", "SELECT DISTINCT name FROM item WHERE qty > 3"),
        SqlItem("limit", "other", "SELECT n FROM t", "SELECT n FROM t LIMIT 1"),
        SqlItem("same", "other", "SELECT n FROM t", "SELECT n FROM t"),
    ]


def run(databases, **options):
    inputs = SqlInputs("answerkey", "gold.jsonl", "predictions.jsonl", items())
    return run_sql(inputs, SqlOptions(str(databases), **options))


def test_the_built_in_semantics_are_registered_in_report_order():
    """The four built-in semantics, answerkey first and the default, each decided by default,
    are the registry's, ``SEMANTICS`` and ``DESCRIPTIONS`` (their one-line rules)."""
    assert names() == SEMANTICS == BUILT_IN
    assert DEFAULT_SEMANTICS == "answerkey"
    assert [type(semantics_named(name)) for name in names()] == [Answerkey, TestSuite, Bird, Spider2]
    assert all(semantics_named(name).default for name in names())
    assert {name: semantics_named(name).rule for name in BUILT_IN} == DESCRIPTIONS
    assert "\n" not in "".join(DESCRIPTIONS.values())
    assert decided_semantics("bird") == BUILT_IN
    assert semantics_named("test-suite").options == {
        "keep_distinct": "DISTINCT kept in the queries (its --keep_distinct)",
        "plug_value": "the gold's values also tried in the prediction's value places (its --plug_value)",
    }


def test_the_registry_refuses_taken_and_unusable_names(registered):
    """A name is registered once; it must be one --semantics and the signature can spell; a
    semantics needs a rule, and a suite rule and a text decoding the engine knows; an unknown name gets a
    suggestion."""
    with pytest.raises(ValueError, match=r"^a semantics named 'bird' is registered already$"):
        register(Bird())
    for name in ("", "two words", "a|b", "a:b"):
        bad = type("Bad", (SameCount,), {"name": name})
        with pytest.raises(ValueError, match=r"^a semantics needs a name without spaces"):
            register(bad())
    with pytest.raises(ValueError, match=r"^the semantics 'ruleless' needs a one-line rule$"):
        register(type("Ruleless", (SameCount,), {"name": "ruleless", "rule": ""})())
    with pytest.raises(ValueError, match=r"^the semantics 'globbing' lists a test suite's files as one of: ending, "):
        register(type("Globbing", (SameCount,), {"name": "globbing", "suite_files": "*.db"})())
    with pytest.raises(ValueError, match=r"^the semantics 'latin' reads text as one of: replace, ignore, strict$"):
        register(type("Latin", (SameCount,), {"name": "latin", "text_decoding": "latin-1"})())
    with pytest.raises(ValueError) as raised:
        semantics_named("same-cuont")
    assert str(raised.value) == ("unknown semantics 'same-cuont': known are answerkey, test-suite, bird, spider2")
    registered(SameCount())
    with pytest.raises(ValueError, match=r"^unknown semantics 'same-cuont' \(did you mean 'same-count'\?\)"):
        semantics_named("same-cuont")
    assert names() == (*BUILT_IN, "same-count")


def test_a_semantics_without_decide_says_so(registered):
    """The base class's decide names the semantics that lacks one."""
    registered(type("Undecided", (Semantics,), {"name": "undecided", "rule": "none", "default": False})())
    with pytest.raises(NotImplementedError, match=r"^the 'undecided' semantics does not say how it decides$"):
        decide("undecided", result([[1]]), result([[1]]), gold_sql="SELECT 1")


def test_decide_all_decides_the_default_ones_unless_named(registered):
    """A semantics not decided by default is left out of ``decide_all`` until it is named;
    named, it comes in registry order, after the built-in ones."""
    registered(SameCount())
    gold, predicted = result([[1], [2]]), result([[3], [4]])
    assert list(decide_all(gold, predicted, gold_sql="SELECT n FROM t")) == list(BUILT_IN)
    chosen = decide_all(gold, predicted, gold_sql="SELECT n FROM t", semantics=("same-count", "bird"))
    assert chosen == {
        "bird": Decision("bird", False, "the sets of rows differ: the prediction lacks 2 of the gold's rows and has 2 rows not in the gold"),
        "same-count": Decision("same-count", True, "2 and 2 rows"),
    }  # fmt: skip
    assert decided_semantics("same-count") == (*BUILT_IN, "same-count")
    assert decided_semantics("answerkey") == BUILT_IN


def test_the_cli_choices_are_the_registry(run_cli, registered):
    """--semantics offers the registered names, a semantics registered later too, and its
    help names those decided by default."""
    before = run_cli("sql", "--help").stdout
    assert "--semantics [answerkey|test-suite|bird|spider2]" in before
    assert "decided under each of answerkey, test-suite, bird, spider2 and under" in " ".join(before.split())
    registered(SameCount())
    after = run_cli("sql", "--help").stdout
    assert "[answerkey|test-suite|bird|spider2|same-count]" in " ".join(after.split()).replace("| ", "|")
    wrong = run_cli("sql", "g.sql", "p.sql", "--db", "nowhere", "--semantics", "same-cuont")
    assert wrong.exit_code == 2
    assert "'same-cuont' is not one of 'answerkey', 'test-suite', 'bird', 'spider2', 'same-count'" in wrong.stderr


def test_a_semantics_not_decided_by_default_changes_no_other_report(databases, registered):
    """Registered, a non-default semantics leaves every report of another headline as it was
    (document, summary table, workbook); as the headline it is a verdict, an accuracy and a
    column of each table, after the built-in ones."""
    before = run(databases)
    registered(SameCount())
    after = run(databases)
    assert after.document() == before.document()
    assert after.summary_table() == before.summary_table()
    assert after.workbook() == before.workbook()
    chosen = run(databases, semantics="same-count")
    document = chosen.document()
    assert document["signature"].startswith("semantics:same-count|eps:")
    assert list(document["summary"]["accuracy_by_semantics"]) == [*BUILT_IN, "same-count"]
    assert [item["verdicts"]["same-count"] for item in document["items"]] == ["incorrect", "incorrect", "correct"]
    assert [item["reason"] for item in document["items"]] == ["on 'shop': 3 and 2 rows", "2 and 1 rows", "2 and 2 rows"]
    header = chosen.summary_table().splitlines()[0].split()
    assert header[-5:] == ["answerkey", "test-suite", "bird", "spider2", "same-count*"]
    workbook = chosen.workbook()
    overview, statistics, (disagreements,) = workbook.overview, workbook.statistics, workbook.task_sheets
    assert [column.header for column in overview.columns][10:15] == [*BUILT_IN, "same-count"]
    assert [column.header for column in statistics.columns][7:12] == [*BUILT_IN, "same-count"]
    assert [column.header for column in disagreements.columns][2:7] == [*BUILT_IN, "same-count"]


def test_a_semantics_rewrite_runs_through_the_hook(databases, registered):
    """A registered semantics that rewrites the queries decides on the rewritten ones, as
    test-suite does: its reason says so, its options are chosen by name and go into the
    signature, and an option it does not have is refused."""
    registered(NoLimit())
    document = run(databases, semantics="no-limit").document()
    assert [item["verdicts"]["no-limit"] for item in document["items"]] == ["correct", "correct", "correct"]
    assert (
        document["items"][1]["reason"]
        == "same set of rows (queries run with LIMIT 1 removed, as no-limit's script runs them) "
        "(the prediction is the gold's text: not run, the gold's result is its result)"
    )
    assert document["items"][1]["verdicts"]["bird"] == "incorrect"
    lowered = run(databases, semantics="no-limit", semantics_options=("no-limit:lower",)).document()
    assert lowered["signature"].startswith("semantics:no-limit|no_limit:lower|eps:")
    assert (
        lowered["items"][2]["reason"]
        == "same set of rows (queries run with lower case, as no-limit's script runs them) "
        "(the prediction is the gold's text: not run, the gold's result is its result)"
    )
    with pytest.raises(ValueError, match=r"^the no-limit semantics has no option 'upper'; it has: lower$"):
        SqlOptions(str(databases), semantics_options=("no-limit:upper",))
    with pytest.raises(ValueError, match=r"^unknown semantics 'nope'"):
        SqlOptions(str(databases), semantics_options=("nope:x",))


def test_keep_distinct_is_test_suites_option_under_both_spellings(databases):
    """``test_suite_keep_distinct`` and the option ``test-suite:keep_distinct`` are one
    choice: either sets the other, and the signature is the same."""
    flag = SqlOptions(str(databases), test_suite_keep_distinct=True)
    option = SqlOptions(str(databases), semantics_options=("test-suite:keep_distinct",))
    assert flag == option
    assert (flag.semantics_options, option.test_suite_keep_distinct) == (("test-suite:keep_distinct",), True)
    assert flag.options_of("test-suite") == frozenset({"keep_distinct"})
    assert str(flag.signature).startswith("semantics:answerkey|test_suite:keep_distinct|eps:")
    assert SqlOptions(str(databases)).semantics_options == ()


# The worked example of docs/semantics.md, decided on results (driver values compared by ==).
EXACT_BAG_CASES = [
    ([[1], [1], [2]], [[2], [1], [1]], True, "the same bag of rows"),
    ([[1], [1], [2]], [[1], [2]], False, "the prediction lacks 1 of the gold's rows and has 0 rows not in it"),
    ([[1], [2]], [[1], [2], [2]], False, "the prediction lacks 0 of the gold's rows and has 1 rows not in it"),
    ([[1]], [[1.0]], True, "the same bag of rows"),
    ([], [], True, "the same bag of rows"),
    ([[1, "a"]], [["a", 1]], False, "the prediction lacks 1 of the gold's rows and has 1 rows not in it"),
]


@pytest.mark.parametrize(("gold", "predicted", "correct", "reason"), EXACT_BAG_CASES)
def test_the_worked_example_decides_bags(exact_bag, gold, predicted, correct, reason):
    """exact-bag (docs/semantics.md): the rows as a multiset, order ignored, columns in order."""
    decision = decide("exact-bag", result(gold), result(predicted), gold_sql="SELECT n FROM t")
    assert decision == Decision("exact-bag", correct, reason)
    assert exact_bag.ExactBag().decide(Item(result(gold), result(predicted), "SELECT n FROM t")) == decision


def test_the_worked_example_runs_and_shows_only_as_headline(databases, exact_bag):
    """Imported, exact-bag is a choice; a run with another headline does not decide it; a run
    under it counts duplicates, which the set semantics ignore."""
    assert names() == (*BUILT_IN, "exact-bag")
    assert "exact-bag" not in run(databases).document()["summary"]["accuracy_by_semantics"]
    document = run(databases, semantics="exact-bag").document()
    assert [item["verdicts"]["exact-bag"] for item in document["items"]] == ["incorrect", "incorrect", "correct"]
    assert document["items"][0]["reason"] == (
        "on 'shop': the prediction lacks 1 of the gold's rows and has 0 rows not in it"
    )
    assert document["items"][0]["verdicts"]["bird"] == "correct"


def test_the_worked_example_from_the_environment(command_line_modules):
    """ANSWERKEY_SEMANTICS_MODULES names modules (a file or a module name, comma-separated)
    whose semantics every command then knows; a file that is not there is an ImportError
    naming the variable."""
    variable = {"ANSWERKEY_SEMANTICS_MODULES": f" {EXAMPLE} , "}
    assert import_semantics_modules(variable) == [str(EXAMPLE)]
    assert names() == (*BUILT_IN, "exact-bag")
    assert import_semantics_modules(variable) == [str(EXAMPLE)]  # imported once: registered once
    assert import_semantics_modules({}) == []
    with pytest.raises(ImportError, match=r"^ANSWERKEY_SEMANTICS_MODULES: no Python file at nowhere/gone\.py$"):
        import_semantics_modules({"ANSWERKEY_SEMANTICS_MODULES": "nowhere/gone.py"})
    with pytest.raises(ModuleNotFoundError, match="no_such_module_here"):
        import_semantics_modules({"ANSWERKEY_SEMANTICS_MODULES": "no_such_module_here"})


def test_the_command_line_offers_the_semantics_the_environment_names(examples_root, tmp_path):
    """``answerkey sql`` with ANSWERKEY_SEMANTICS_MODULES: the module's semantics is a choice
    of --semantics, listed in --help, and decides as the headline."""
    environment = {**os.environ, "ANSWERKEY_SEMANTICS_MODULES": str(EXAMPLE), "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "answerkey", "sql"]
    shown = subprocess.run([*command, "--help"], env=environment, capture_output=True, text=True, check=True)
    assert "[answerkey|test-suite|bird|spider2|exact-bag]" in "".join(shown.stdout.split())
    spider = examples_root / "sql" / "spider"
    arguments = [spider / "gold.sql", spider / "pred.sql", "--db", spider / "database", "--semantics", "exact-bag"]
    ran = subprocess.run(
        [*command, *map(str, arguments), "--json", "-", "-q"], env=environment, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["summary"]["accuracy_by_semantics"]["exact-bag"] == 0.25


@pytest.fixture
def examples_root() -> Path:
    return ROOT / "examples"


def table_rows(page: str, heading: str) -> list[list[str]]:
    """The cells of the first Markdown table after ``heading`` in ``docs/page``."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    lines = [line for line in section.split("\n\n|", 1)[1].splitlines()]
    rows = []
    for line in ["|" + lines[0], *lines[1:]]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_docs_tables_list_the_registered_semantics():
    """docs/sql.md's table of --semantics and its side-by-side comparison list exactly the
    semantics decided by default, in registry order."""
    decided = [name for name in names() if semantics_named(name).default]
    rows = table_rows("sql.md", "## Semantics: which comparison rule")
    assert [re.sub(r"`", "", row[0]) for row in rows[2:]] == decided
    header = table_rows("sql.md", "### The four semantics side by side")[0]
    assert [re.search(r"`([^`]+)`", cell).group(1) for cell in header[1:]] == decided
    assert f"### The {['one', 'two', 'three', 'four', 'five', 'six'][len(decided) - 1]} semantics side by side" in (
        ROOT / "docs" / "sql.md"
    ).read_text(encoding="utf-8")


def test_the_package_modules_hold_one_semantics_each():
    """Each public module of the package is one semantics, registered under its name."""
    modules = {name: getattr(semantics_package, name) for name in ("answerkey", "test_suite", "bird", "spider2")}
    found = {
        module.__name__.rsplit(".", 1)[1]: [
            value.name for value in vars(module).values() if isinstance(value, type) and issubclass(value, Semantics) and value is not Semantics
        ]
        for module in modules.values()
    }  # fmt: skip
    assert found == {"answerkey": ["answerkey"], "test_suite": ["test-suite"], "bird": ["bird"], "spider2": ["spider2"]}
