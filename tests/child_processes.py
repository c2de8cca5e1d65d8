"""The live child processes of a process, read from /proc (Linux), for the tests that check
which helper processes start and end (``from child_processes import live_children``)."""

from __future__ import annotations

import os


def live_children(parent: int | None = None) -> set[int]:
    """The live (not zombie) child processes of ``parent`` (default: this process)."""
    parent = os.getpid() if parent is None else parent
    found = set()
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as file:
                state, of = file.read().rsplit(")", 1)[1].split()[:2]
        except (OSError, IndexError, ValueError):
            continue
        if int(of) == parent and state != "Z":
            found.add(int(entry))
    return found
