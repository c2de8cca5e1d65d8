"""ordered_map: results in input order, workers forked with the parent's objects frozen, and
no worker left running when the run is killed."""

import contextlib
import json
import multiprocessing
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from answerkey.parallel import batched, ordered_map, shared


def test_results_come_in_input_order_whatever_the_jobs():
    """ordered_map yields results in the order of the items, with one job or two."""
    items = list(range(50))
    assert list(ordered_map(abs, [-i for i in items], jobs=2)) == items
    assert list(ordered_map(abs, [-i for i in items], jobs=1)) == items


def test_jobs_must_be_positive():
    """jobs=0 is a ValueError."""
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        list(ordered_map(abs, [1], jobs=0))


def test_batched():
    """batched cuts items into lists of at most the size, the last one shorter."""
    assert list(batched(range(5), 2)) == [[0, 1], [2, 3], [4]]


def shared_item(index: int) -> str:
    """The item at ``index`` of the shared value (a worker function: module level, picklable)."""
    return shared()[index]


@pytest.mark.parametrize("jobs", [1, 2])
def test_shared_value_reaches_every_worker_once_and_items_index_it(jobs):
    """The shared value reaches the workers (or this process), items index it, and it is
    reset after the run."""
    letters = list("abcdefgh")
    assert list(ordered_map(shared_item, range(8), jobs=jobs, shared=letters)) == letters
    assert shared() is None


# --------------------------------------------------------------------------- a killed parent leaves no worker

needs_proc = pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds processes through /proc (Linux)")


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie has ended)."""
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _parent(pid: int) -> int | None:
    try:
        return int(pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``, through /proc's parent links."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (parent := _parent(int(entry))) is not None:
            children.setdefault(parent, []).append(int(entry))
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def _kill_and_watch(
    process: subprocess.Popen, workers: int, *, grandchildren: bool = False, deadline: float = 60
) -> tuple[list[int], list[int]]:
    """Wait until ``process`` has ``workers`` workers (its children, or its grandchildren),
    kill it with SIGKILL, and return (all its descendants then, those alive a few seconds later)."""
    stop = time.monotonic() + deadline
    seen: list[int] = []
    while time.monotonic() < stop and process.poll() is None:
        below = [pid for pid in _descendants(process.pid) if _alive(pid)]
        # A process gone between the two reads of /proc has no parent: it counts as neither.
        parents = {pid: _parent(pid) for pid in below}
        seen = [
            pid for pid, parent in parents.items() if parent is not None and (parent != process.pid) == grandchildren
        ]
        if len(seen) >= workers:
            break
        time.sleep(0.02)
    assert process.poll() is None and len(seen) >= workers, "the run ended before its workers were seen"
    below = _descendants(process.pid)
    process.kill()
    process.wait()
    stop = time.monotonic() + 20  # a bound on a hang: on an idle machine they go in well under a second
    while (alive := [pid for pid in below if _alive(pid)]) and time.monotonic() < stop:
        time.sleep(0.05)
    for pid in alive:  # do not leave them to the rest of the suite
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return below, alive


@needs_proc
def test_kill_9_of_score_jobs_2_leaves_no_worker(tmp_path):
    """`answerkey score --jobs 2` killed with SIGKILL mid-run: its forked workers are gone
    within a few seconds (issue 19, item 14: they kept running)."""
    canonical = "(" + " ".join(f'({n} "name{n}" {n * 7.25})' for n in range(40)) + ")"
    system = "(" + " ".join(f'("name{n}" {n * 7.25} {n} 1)' for n in reversed(range(40))) + ")"
    corpus, answers = tmp_path / "corpus.jsonl", tmp_path / "answers.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"q{i}", "answer": canonical}) + "\n" for i in range(10_000)))
    answers.write_text("".join(json.dumps({"id": f"q{i}", "answer": system}) + "\n" for i in range(10_000)))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "answerkey",
            "score",
            str(corpus),
            str(answers),
            "--jobs",
            "2",
            "-q",
            "--metrics",
            "none",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    below, alive = _kill_and_watch(process, workers=2)
    assert len(below) >= 2 and alive == [], (below, alive)


FORKSERVER_RUN = """
import threading, time
from answerkey.parallel import ordered_map
# A second thread: ordered_map does not fork then, it asks the fork server for its workers.
threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
for _ in ordered_map(time.sleep, [60] * 4, jobs=2):  # busy workers: they read no end of input
    pass
"""


@needs_proc
@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_kill_9_of_a_run_whose_workers_come_from_the_fork_server(tmp_path):
    """With another thread alive the workers are the fork server's children, not ours: they
    go too when the owner is killed (the fork server exits, and their parent-death signal fires)."""
    process = subprocess.Popen([sys.executable, "-c", FORKSERVER_RUN], cwd=tmp_path)
    below, alive = _kill_and_watch(process, workers=2, grandchildren=True)
    assert len(below) >= 3 and alive == [], (below, alive)  # the fork server and its two workers, at least


def test_exit_with_parent_keeps_a_worker_whose_parent_is_there():
    """In a process whose parent is alive, exit_with_parent returns (and sets the signal)."""
    script = (
        "import os\nfrom answerkey.parallel import exit_with_parent\n"
        "exit_with_parent(os.getppid())\nexit_with_parent(os.getppid(), child_of_owner=False)\nprint('still here')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (0, "still here\n")


def test_exit_with_parent_ends_a_worker_whose_owner_is_gone():
    """A worker told that its owner is a process that is not its parent (it died before the
    worker set its signal, so it was adopted) exits at once with status 1."""
    script = "from answerkey.parallel import exit_with_parent\nexit_with_parent(1 << 22)\nprint('still here')\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (1, "")
