"""`answerkey sql`'s SQLite helper starts as the command is looked up, before the command's
module loads (``EARLY_STARTS``), and ends at once when the run does not need it (issue 25)."""

from __future__ import annotations

import sqlite3
import sys

import click
import pytest
from click.testing import CliRunner

from answerkey.adapters.sql import stop_query_processes
from answerkey.cli import EARLY_STARTS, cli
from child_processes import live_children

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="lists child processes in /proc")


@pytest.fixture
def suite(tmp_path):
    database = tmp_path / "database" / "shop" / "shop.sqlite"
    database.parent.mkdir(parents=True)
    with sqlite3.connect(database) as connection:
        connection.executescript("CREATE TABLE item (qty INTEGER); INSERT INTO item VALUES (10), (4), (7);")
    connection.close()
    (tmp_path / "gold.sql").write_text("SELECT count(*) FROM item\tshop\nSELECT max(qty) FROM item\tshop\n")
    (tmp_path / "pred.sql").write_text("SELECT count(qty) FROM item\nSELECT min(qty) FROM item\n")
    return tmp_path


def test_looking_up_sql_starts_its_helper_and_no_other_command_does():
    assert EARLY_STARTS == {"sql": "answerkey.adapters.sql:start_query_process"}
    stop_query_processes()
    before = live_children()
    with click.Context(cli) as context:
        cli.get_command(context, "judge")
        assert live_children() == before
        cli.get_command(context, "sql")
    (helper,) = live_children() - before
    stop_query_processes()
    assert helper not in live_children()


@pytest.mark.parametrize(("jobs", "kept"), [("1", True), ("2", False)])
def test_a_run_keeps_the_early_helper_only_when_it_runs_its_queries_here(suite, jobs, kept):
    """-j 1 runs its queries through the helper started at the lookup (kept idle after, for
    the next queries); -j 2 runs them in workers: that helper is ended before the run."""
    stop_query_processes()
    before = live_children()
    with click.Context(cli) as context:
        cli.get_command(context, "sql")
    (helper,) = live_children() - before
    arguments = ["sql", str(suite / "gold.sql"), str(suite / "pred.sql"), "--db", str(suite / "database")]
    result = CliRunner().invoke(cli, [*arguments, "-j", jobs, "--quiet"])
    assert result.exit_code == 0, result.output
    assert (helper in live_children()) is kept
    stop_query_processes()
