"""The one place that makes Redis clients.

Every Redis the app talks to is settings.REDIS_URL (the broker, the channel layer, leases,
marks, quotas and metrics share it), so a process needs one client and one connection pool
for it: `shared()` keeps them per process and URL, and redis-py's pool starts afresh in a
forked child (a Celery pool process) by itself. `connect()` is for the rare caller that
wants a client of its own, with its own timeout (the launcher asking whether a Redis it
started answers yet); `limits_storage()` is the counters' storage of the `limits` library (the
quotas and rate limits), which holds a client of its own.

Every client has short socket timeouts: Redis holds only what can be rebuilt or retried (the
database is the truth), so a Redis that does not answer must cost a request two seconds at
most, never hang it. Callers catch `redis.RedisError`/`OSError` and go on without it.
"""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings

TIMEOUT = 2.0  # s for a connection and for each answer

_clients: dict[str, Any] = {}
_lock = threading.Lock()


def connect(url: str | None = None, *, timeout: float = TIMEOUT) -> Any:
    """A new client of its own (and pool) for `url` (default settings.REDIS_URL); the caller
    closes it when done."""
    import redis

    return redis.Redis.from_url(url or settings.REDIS_URL, socket_timeout=timeout, socket_connect_timeout=timeout)


def limits_storage(prefix: str, url: str | None = None) -> Any:
    """The `limits` library's Redis storage for counters under `prefix` (the quotas', the rate
    limits'), one per process, URL and prefix; it keeps its own client, with the same timeouts."""
    from limits.storage import RedisStorage

    url = url or settings.REDIS_URL
    key = f"limits:{prefix}:{url}"
    found = _clients.get(key)
    if found is None:
        with _lock:
            found = _clients.get(key)
            if found is None:
                found = _clients[key] = RedisStorage(url, key_prefix=prefix, socket_timeout=TIMEOUT,
                                                     socket_connect_timeout=TIMEOUT)
    return found


def shared(url: str | None = None) -> Any:
    """The process's client for `url` (default settings.REDIS_URL), made on first use: the
    frequent small lookups (a run's home, its lease, a quota) share its connection pool
    instead of setting up a connection each."""
    url = url or settings.REDIS_URL
    found = _clients.get(url)
    if found is None:
        with _lock:
            found = _clients.get(url)
            if found is None:
                found = _clients[url] = connect(url)
    return found
