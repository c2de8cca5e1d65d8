"""ordered_map when a worker dies (kill -9, the out-of-memory killer, a crash): the items it had
not returned run again once in fresh workers; a second death is one WorkerDied error, which the
command line prints as one line with exit status 2, never a BrokenProcessPool traceback."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from answerkey.parallel import WorkerDied, ordered_map, shared


def die_once_at_seven(item: int) -> int:
    """Twice ``item``; the first worker to reach item 7 kills itself (a flag file in the shared
    directory says it happened). Module level: pickled by name."""
    flag = Path(shared()) / "died"
    if item == 7 and not flag.exists():
        flag.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return item * 2


def die_at_seven(item: int) -> int:
    """Twice ``item``; a worker that reaches item 7 kills itself, every time."""
    if item == 7:
        os.kill(os.getpid(), signal.SIGKILL)
    return item * 2


def exit_at_seven(item: int) -> int:
    """Twice ``item``; a worker that reaches item 7 exits with status 3 (no exception: a crash)."""
    if item == 7:
        os._exit(3)
    return item * 2


def test_a_worker_killed_once_costs_no_result(tmp_path):
    """Every result, in input order, although the worker running item 7 was killed."""
    assert list(ordered_map(die_once_at_seven, list(range(40)), jobs=2, chunk=2, shared=str(tmp_path))) == [
        item * 2 for item in range(40)
    ]
    assert (tmp_path / "died").exists()


def test_a_worker_killed_again_is_one_error_saying_which_how_and_what_was_left():
    """The results before item 7's chunk come; then WorkerDied names the process, the signal and the items left."""
    results = []
    with pytest.raises(WorkerDied) as caught:
        for result in ordered_map(die_at_seven, list(range(40)), jobs=2, chunk=2):
            results.append(result)
    assert results == [item * 2 for item in range(len(results))] and len(results) <= 7
    assert re.fullmatch(
        # How it died is told when the pool has not reaped the worker first.
        rf"a worker process (?:\(pid \d+\) was killed by SIGKILL \(out of memory\?\)|died) while running items"
        rf" {len(results) + 1}-40 of 40, and again when they ran in fresh workers",
        str(caught.value),
    ), str(caught.value)


def test_a_worker_that_exits_is_named_with_its_status():
    """A worker that ends with an exit status (not a signal) is reported with that status."""
    with pytest.raises(
        WorkerDied, match=r"a worker process (?:\(pid \d+\) exited with status 3|died) while running items"
    ):
        list(ordered_map(exit_at_seven, list(range(40)), jobs=2, chunk=2))


def _children(pid: int) -> list[int]:
    """The children of ``pid`` (Linux /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_score_jobs_2_finishes_with_every_item_when_a_worker_is_killed(tmp_path):
    """`answerkey score --jobs 2` with one worker killed by SIGKILL mid-run: exit status 0 and
    the same report as a run with one job (before: a BrokenProcessPool traceback, exit 1)."""
    canonical = "(" + " ".join(f'({n} "name{n}" {n * 7.25})' for n in range(40)) + ")"
    system = "(" + " ".join(f'("name{n}" {n * 7.25} {n} 1)' for n in reversed(range(40))) + ")"
    corpus, answers = tmp_path / "corpus.jsonl", tmp_path / "answers.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"q{i}", "answer": canonical}) + "\n" for i in range(10_000)))
    answers.write_text("".join(json.dumps({"id": f"q{i}", "answer": system}) + "\n" for i in range(10_000)))
    command = [sys.executable, "-m", "answerkey", "score", str(corpus), str(answers), "-q", "--metrics", "none"]
    process = subprocess.Popen(
        [*command, "--jobs", "2", "--json", str(tmp_path / "two.json")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120  # a bound on a hang, not a measure: workers appear within seconds
    while not (workers := _children(process.pid)) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert workers and process.poll() is None, "the run ended before its workers were seen"
    os.kill(workers[0], signal.SIGKILL)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr.decode()
    assert "Traceback" not in stderr.decode()
    subprocess.run([*command, "--json", str(tmp_path / "one.json")], check=True, stdout=subprocess.DEVNULL)
    assert json.loads((tmp_path / "two.json").read_text()) == json.loads((tmp_path / "one.json").read_text())
