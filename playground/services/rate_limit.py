"""A per-minute rate limit in Redis, shared by every web process (e.g. diagnostics pings: each
one costs a Celery task and a broadcast, so an anonymous loop must not be free). The counting is
the `limits` library's fixed window (the quotas in services/quotas.py use its sliding window)."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

_limiters: dict[str, Any] = {}


def _limiter() -> Any:
    from limits.strategies import FixedWindowRateLimiter

    from playground.infra import redis_client

    url = settings.REDIS_URL
    limiter = _limiters.get(url)
    if limiter is None:
        limiter = _limiters[url] = FixedWindowRateLimiter(redis_client.limits_storage("playground-rate", url))
    return limiter


def allow(key: str, *, limit: int, window_seconds: int = 60) -> bool:
    """Count one hit for `key`; False once `limit` hits happened in the current window.
    When Redis cannot be reached the hit is allowed: what it protects (a Celery task through the
    same Redis) cannot happen then anyway, and the page should say that, not "too many"."""
    import redis
    from limits import RateLimitItemPerSecond

    try:
        return bool(_limiter().hit(RateLimitItemPerSecond(limit, window_seconds), key))
    except (redis.RedisError, OSError):
        logger.warning("rate limit %s: Redis unreachable; not counted", key)
        return True


# Clients refused until their window ends, in this process: (key, limit) -> time.monotonic() of
# the end. A flooding client's next requests in that window are refused from memory, without a
# Redis round trip (a flood is mostly refusals: they must cost next to nothing).
_refused: dict[tuple[str, int], float] = {}
_REFUSED_MAX = 10_000
# Redis out of reach: not asked again (and not logged again) before this time.monotonic(); a
# read limit is asked on every page, and each try would cost a refused connection and a log line.
_redis_down_until = 0.0
REDIS_RETRY_SECONDS = 1.0


def refused_for(key: str, *, limit: int) -> int:
    """The whole seconds `key` is still refused for, from this process's memory alone (0: not
    known to be refused; ask `hit`). Cheap enough to ask before a request reaches Django."""
    import math
    import time

    until = _refused.get((key, limit))
    left = 0.0 if until is None else until - time.monotonic()
    return max(1, math.ceil(left)) if left > 0 else 0


def hit(key: str, *, limit: int, window_seconds: int = 1) -> int:
    """Count one hit for `key` in a fixed window of `window_seconds`: 0 when it is allowed, else
    the whole seconds until the window ends (an HTTP Retry-After, at least 1). Redis out of
    reach: allowed, as in `allow`."""
    import math
    import time

    import redis
    from limits import RateLimitItemPerSecond

    now = time.monotonic()
    until = _refused.get((key, limit))
    if until is not None:
        if now < until:
            return max(1, math.ceil(until - now))
        _refused.pop((key, limit), None)
    global _redis_down_until
    if now < _redis_down_until:
        return 0
    item = RateLimitItemPerSecond(limit, window_seconds)
    try:
        limiter = _limiter()
        if limiter.hit(item, key):
            return 0
        left = max(0.0, limiter.get_window_stats(item, key).reset_time - time.time())
    except (redis.RedisError, OSError):
        _redis_down_until = now + REDIS_RETRY_SECONDS
        logger.warning("rate limit %s: Redis unreachable; not counted for %g s", key, REDIS_RETRY_SECONDS)
        return 0
    if len(_refused) >= _REFUSED_MAX:
        for stale in [k for k, end in _refused.items() if end <= now]:
            _refused.pop(stale, None)
        if len(_refused) >= _REFUSED_MAX:
            _refused.clear()
    _refused[(key, limit)] = now + left
    return max(1, math.ceil(left))


def known_client_key(request: object) -> str:
    """Like `client_key`, but a session counts only if it exists: a made-up or expired session
    cookie (free to change on every request) is counted by the client's address instead."""
    session = getattr(request, "session", None)
    if session is not None and getattr(session, "session_key", None):
        session.keys()  # loads it (the view would anyway); an unknown key is dropped by the load
    return client_key(request)


def client_key(request: object) -> str:
    """Who is asking: the session when there is one, else the client address."""
    session = getattr(request, "session", None)
    session_key = getattr(session, "session_key", None)
    if session_key:
        return f"s:{session_key}"
    meta = getattr(request, "META", {})
    return f"ip:{meta.get('REMOTE_ADDR', '?')}"
