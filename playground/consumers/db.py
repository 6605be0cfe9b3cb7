"""The database work of the live pages' websockets, on a small pool of threads.

Channels runs every consumer's `database_sync_to_async` call on one thread per process, so a
page's render waits behind every other page's: a class's pushes (a few milliseconds each)
queued behind one big run's panels (a hundred or more at 500 nodes), and a student's step
reached the page a second late with the web process mostly idle. `consumer_db` runs them on
CONSUMER_DB_THREADS threads instead: short renders pass long ones (the interpreter shares
itself between the threads), while the number of database connections stays bounded (each
thread holds at most one, closed as Channels closes its own: before and after every call).

Callers that share state across consumers guard it with a lock (live_render's table does).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.db import DatabaseSyncToAsync

CONSUMER_DB_THREADS = max(1, int(os.environ.get("PLAYGROUND_CONSUMER_DB_THREADS", "4")))

_pool = ThreadPoolExecutor(max_workers=CONSUMER_DB_THREADS, thread_name_prefix="consumer-db")


class _PooledDatabaseCall(DatabaseSyncToAsync):
    """Channels' database call (old connections closed around it), on the consumers' pool."""

    def __init__(self, func: Callable[..., Any]) -> None:
        super().__init__(func, thread_sensitive=False, executor=_pool)


def consumer_db(func: Callable[..., Any]) -> Callable[..., Any]:
    """`database_sync_to_async(func)`, run on the consumers' thread pool."""
    return _PooledDatabaseCall(func)
