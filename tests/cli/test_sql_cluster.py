"""`answerkey sql --cluster ADDRESS` and `--executor dask`: the Spider example on a real Dask
LocalCluster gives the local output; bad addresses and option mixes exit 2 with one line."""

from __future__ import annotations

import json
import logging
import shutil
import socket
import sys
from pathlib import Path

import pytest
from distributed import LocalCluster

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sql"


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of two worker processes for the module; its scheduler's address."""
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
    ) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def spider(tmp_path_factory):
    """A copy of the Spider example (tests must not touch the examples)."""
    root = tmp_path_factory.mktemp("examples") / "spider"
    shutil.copytree(EXAMPLES / "spider", root)
    return root


def arguments(spider, *options):
    """The arguments of a run of the Spider example."""
    return ("sql", spider / "gold.sql", spider / "pred.sql", "--db", spider / "database", *options)


def free_port() -> int:
    """A TCP port nothing listens on (just now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_cluster_runs_give_the_local_output(run_cli, spider, cluster, tmp_path):
    """--cluster ADDRESS prints the summary and writes the JSON report of a local run, and nothing on standard error."""
    local = run_cli(*arguments(spider, "--json", tmp_path / "local.json"))
    remote = run_cli(*arguments(spider, "--cluster", cluster, "--json", tmp_path / "remote.json"))
    assert (remote.exit_code, remote.stderr) == (0, "")
    assert remote.stdout == local.stdout
    remote_report = json.loads((tmp_path / "remote.json").read_text(encoding="utf-8"))
    assert remote_report == json.loads((tmp_path / "local.json").read_text(encoding="utf-8"))
    assert [item["id"] for item in remote_report["items"]] == [str(n) for n in range(12)]


def test_executor_dask_starts_a_local_cluster_of_jobs_workers(run_cli, spider, tmp_path):
    """--executor dask -j 2 runs on a Dask cluster of two processes it starts (and stops): the local report."""
    assert run_cli(*arguments(spider, "-q", "--json", tmp_path / "local.json")).exit_code == 0
    result = run_cli(*arguments(spider, "-q", "--executor", "dask", "-j", "2", "--json", tmp_path / "dask.json"))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert (tmp_path / "dask.json").read_text(encoding="utf-8") == (tmp_path / "local.json").read_text(encoding="utf-8")


def test_an_address_nothing_answers_at_exits_2(run_cli, spider, within, tmp_path):
    """--cluster at a port nothing listens on: exit 2 with one line, at once, and no report written."""
    port = free_port()
    with within(30):
        result = run_cli(*arguments(spider, "--cluster", f"tcp://127.0.0.1:{port}", "--json", tmp_path / "r.json"))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: Connection refused\n",
    )
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ("--executor", "local", "--cluster", "tcp://127.0.0.1:8786"),
            "--cluster runs the work on a Dask cluster: it cannot be used with --executor local",
        ),
        (
            ("--cluster", "tcp://127.0.0.1:8786", "-j", "2"),
            "--jobs sets the worker processes of the local Dask cluster --executor dask starts; "
            "the cluster at --cluster has its own workers",
        ),
    ],
)
def test_options_that_contradict_each_other_are_usage_errors(run_cli, spider, options, message):
    """--executor local with --cluster, and --jobs with --cluster: a usage error (exit 2) saying why."""
    result = run_cli(*arguments(spider, *options))
    assert (result.exit_code, result.stderr) == (2, f"cli sql: {message} (see 'cli sql --help')\n")


def test_without_the_extra_the_message_names_the_install_command(run_cli, spider, monkeypatch):
    """Without dask installed, --executor dask exits 2 naming pip install 'answerkey[dask]', before any work."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    result = run_cli(*arguments(spider, "--executor", "dask"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(
        "running on a Dask cluster needs the optional extra: pip install 'answerkey[dask]' ("
    )
    assert result.stderr.count("\n") == 1


def test_help_names_the_cluster_options(run_cli):
    """--help lists --executor [local|dask] and --cluster ADDRESS with a cluster example."""
    result = run_cli("sql", "--help")
    assert result.exit_code == 0
    for text in (
        "--executor [local|dask]",
        "--cluster ADDRESS",
        "answerkey sql dev_gold.sql pred.txt --db /shared/spider/database --cluster tcp://scheduler:8786",
    ):
        assert text in result.stdout
