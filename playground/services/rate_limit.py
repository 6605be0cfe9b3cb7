"""A fixed-window rate limit in Redis, shared by every web process (e.g. diagnostics pings:
each one costs a Celery task and a broadcast, so an anonymous loop must not be free)."""

from __future__ import annotations

import logging

from django.conf import settings

logger = logging.getLogger(__name__)


def allow(key: str, *, limit: int, window_seconds: int = 60) -> bool:
    """Count one hit for `key`; False once `limit` hits happened in the current window.
    When Redis cannot be reached the hit is allowed: what it protects (a Celery task through the
    same Redis) cannot happen then anyway, and the page should say that, not "too many"."""
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    name = f"playground:rate:{key}"
    try:
        with client.pipeline() as pipe:
            pipe.set(name, 0, ex=window_seconds, nx=True)  # a new window (Redis 6 has no EXPIRE NX)
            pipe.incr(name)
            _, count = pipe.execute()
    except (redis.RedisError, OSError):
        logger.warning("rate limit %s: Redis unreachable; not counted", key)
        return True
    finally:
        client.close()
    return int(count) <= limit


def client_key(request: object) -> str:
    """Who is asking: the session when there is one, else the client address."""
    session = getattr(request, "session", None)
    session_key = getattr(session, "session_key", None)
    if session_key:
        return f"s:{session_key}"
    meta = getattr(request, "META", {})
    return f"ip:{meta.get('REMOTE_ADDR', '?')}"
