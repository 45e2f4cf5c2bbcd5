"""Folders made once in a cache shared by processes: one makes, the others wait.

A player's adapted model, the bundled model's copy for the tools, and the
benchmark's heard takes are each a folder made in seconds of CPU and kept
under a name that says what it holds. Two processes asking for one at once
(a live table and a replay, the test suite's workers) would make it twice;
a making cut short (the power went, the process was killed) would leave its
work folder behind for good. A folder no longer wanted is removed under the
same lock (``remove``), never while it is being made.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def making(root: Path, name: str) -> Iterator[Path]:
    """Hold the lock of the folder ``name`` under ``root`` while it is made
    (``fcntl.flock`` on ``root/.<name>.lock``, released when the file is
    closed: one process at a time; the others wait, then find it made).
    Yields the work folder ``root/.<name>.part``, new and empty (one a
    making cut short left is removed first: nobody else holds the lock),
    which the maker fills and renames to ``name`` in one step; what is
    left of it is removed when the block ends, however it ends. ``root``
    is created. Raises ``OSError`` if it, the lock file or the work folder
    cannot be."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        work = root / f".{name}.part"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        try:
            yield work
        finally:
            shutil.rmtree(work, ignore_errors=True)


def remove(root: Path, name: str) -> bool:
    """Remove the folder ``name`` under ``root`` unless it is being made
    (its lock, as ``making`` takes it, held by another process or thread)
    or is already gone (another process removed it first): whether this
    call removed it. The lock file stays: a process waiting on it holds it
    open, and a new one under the same name would let two makers in at
    once. Raises ``OSError`` if the lock file cannot be opened or the
    folder not removed."""
    with open(root / f".{name}.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        if not (root / name).exists():
            return False
        shutil.rmtree(root / name)
        return True
