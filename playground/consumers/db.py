"""The database work of the live pages' websockets, on a small pool of threads.

Channels runs every consumer's `database_sync_to_async` call on one thread per process, so a
page's render waits behind every other page's: a class's pushes (a few milliseconds each)
queued behind one big run's panels (a hundred or more at 500 nodes), and a student's step
reached the page a second late with the web process mostly idle. `consumer_db` runs them on
CONSUMER_DB_THREADS threads instead: short renders pass long ones (the interpreter shares
itself between the threads), while the number of database connections stays bounded (each
thread holds at most one).

On SQLite each pool thread keeps its connection between calls (for KEEP_SECONDS at most, and
never after an error or inside a transaction): Channels closes old connections before and after
every call, and with no persistent connections (CONN_MAX_AGE 0, needed for the HTTP requests,
each on a thread of its own under ASGI) every push opened the database file again, about a tenth
of a class's web CPU. Other databases keep Channels' rule (PostgreSQL's pool already makes a
connection cheap to take, and a kept one would hold a pool slot).

Callers that share state across consumers guard it with a lock (live_render's table does).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import SyncToAsync
from channels.db import DatabaseSyncToAsync
from django.db import connections

CONSUMER_DB_THREADS = max(1, int(os.environ.get("PLAYGROUND_CONSUMER_DB_THREADS", "4")))
KEEP_SECONDS = 60.0  # a pool thread's SQLite connection is opened afresh after this long

_pool = ThreadPoolExecutor(max_workers=CONSUMER_DB_THREADS, thread_name_prefix="consumer-db")


class _PooledDatabaseCall(DatabaseSyncToAsync):
    """Channels' database call (old connections closed around it), on the consumers' pool."""

    def __init__(self, func: Callable[..., Any]) -> None:
        super().__init__(func, thread_sensitive=False, executor=_pool)

    def thread_handler(self, loop: Any, *args: Any, **kwargs: Any) -> Any:
        _close_unless_kept()
        try:
            return SyncToAsync.thread_handler(self, loop, *args, **kwargs)
        finally:
            _close_unless_kept()


_kept = threading.local()  # per pool thread: `connection` (the SQLite connection kept) and `since`


def _close_unless_kept() -> None:
    """Close this thread's connections as Channels would, except a healthy SQLite connection
    younger than KEEP_SECONDS outside any transaction."""
    now = time.monotonic()
    for conn in connections.all(initialized_only=True):
        if conn.vendor != "sqlite" or conn.connection is None:
            conn.close_if_unusable_or_obsolete()
            continue
        if getattr(_kept, "connection", None) is not conn.connection:
            _kept.connection, _kept.since = conn.connection, now
        opened = _kept.since
        if conn.errors_occurred or conn.in_atomic_block or not conn.get_autocommit() or now - opened > KEEP_SECONDS:
            conn.close()


def consumer_db(func: Callable[..., Any]) -> Callable[..., Any]:
    """`database_sync_to_async(func)`, run on the consumers' thread pool."""
    return _PooledDatabaseCall(func)
