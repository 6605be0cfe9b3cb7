"""One writer at a time on a SQLite file, handed to the next waiter the moment it is free.

SQLite lets one connection write at a time. A connection that finds the file locked waits in
SQLite's busy handler, which sleeps and looks again: 1, 2, 5, 10 ms at first, then every 100 ms
once a writer has waited a quarter of a second. Under a class's load (two workers committing a
step every few milliseconds, thirty students posting Steps) a waiting writer kept waking just
after another had taken the lock again: a Step post's `BEGIN IMMEDIATE` waited 0.6 s at p90 and
up to 2.4 s for a few milliseconds of writing (bench/history/2026-11-22_to_2026-11-28.md, "Issue 22: the SQLite writers'
turn"). Here every writer of the file first takes this lock: threads of one process queue on a
`threading.Lock`, processes on an exclusive `flock` of a file beside the database, and the kernel
wakes a waiting process as soon as the holder lets go. SQLite's own lock then never makes a
writer of this project wait; its busy handler is left for writers outside it (the `sqlite3`
shell, a backup).

A process that dies holding the lock releases it with its file descriptor. Threads of one
process give up after the connection's timeout with SQLite's own error ("database is locked");
a process waits for another process's writer as long as it writes.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

_registry: dict[str, WriteLock] = {}
_registry_lock = threading.Lock()


class WriteLock:
    """The write turn of one database file, for every connection of this process."""

    def __init__(self, database: str) -> None:
        self.path = f"{database}-writer.lock"
        self._threads = threading.Lock()
        self._fd: int | None = None

    def acquire(self, timeout: float) -> bool:
        """Wait for the turn (at most `timeout` seconds behind this process's other threads).
        False: another thread of this process held it all that time."""
        if not self._threads.acquire(timeout=max(timeout, 0.0)):
            return False
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            fcntl.flock(self._fd, fcntl.LOCK_EX)  # the interpreter is free while this waits
        except BaseException:
            self._threads.release()
            raise
        return True

    def release(self) -> None:
        try:
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._threads.release()


def write_lock(database: str) -> WriteLock:
    """The lock of `database` (a file path) for this process."""
    key = str(Path(database).resolve())
    with _registry_lock:
        lock = _registry.get(key)
        if lock is None:
            lock = _registry[key] = WriteLock(key)
        return lock


_forks = [0]  # how many forks this process descends from (a lock kept by a caller is stale after one)


def forks() -> int:
    """Changes in a forked child: a lock kept from before (with the parent's descriptor, which
    shares the parent's flock) must be looked up again with `write_lock`."""
    return _forks[0]


def _forget_after_fork() -> None:
    """A forked child starts with no turn held: the parent's locks and descriptor are not its own."""
    global _registry_lock
    _registry.clear()
    _registry_lock = threading.Lock()
    _forks[0] += 1


os.register_at_fork(after_in_child=_forget_after_fork)
