"""Cached pages for read-only links: a shared scenario page, a run page pinned to a step.

Such a link can be opened by a whole class at once; rendering the page is most of the cost of
the request, and for a read-only viewer it depends only on what the link shows. The page is
rendered once per version of what it shows (the key: the scenario's `updated_at` and objects,
or the run's pinned step and head) and kept in Django's cache (each process's memory by
default). The only per-viewer bytes of such a page, the CSRF tokens of its forms (fork) and of
htmx's header, are cut out when storing and the viewer's own token is put in when serving.

Never cached: owners, viewers with flash messages or lesson answers, anything but a 200.

One render per key and process: viewers who ask for a page that is being rendered wait for that
rendering instead of each starting their own (a class opening a link at once, or the live page
of a run that just moved, read by a hundred viewers).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token

TIMEOUT = 300  # seconds: a bound on memory, not on freshness (the key carries the version)
SENTINEL = "__viewer_csrf_token__"
TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")([A-Za-z0-9]+)(")')
HEADER = "X-Read-Cache"  # hit or miss: what the load benchmark and the tests look at
# Striped locks: a key's renders take turns (a bounded set; two keys may share a lock).
_RENDER_LOCKS = [threading.Lock() for _ in range(64)]


def cache_key(kind: str, parts: Iterable[Any]) -> str:
    digest = hashlib.sha256(repr(tuple(parts)).encode()).hexdigest()[:40]
    return f"read-only:{kind}:{digest}"


def has_messages(request: HttpRequest) -> bool:
    """The viewer has flash messages waiting (len() does not consume them)."""
    try:
        return len(get_messages(request)) > 0
    except Exception:  # no message storage on this request
        return False


def serve(request: HttpRequest, key: str, render: Callable[[], HttpResponse]) -> HttpResponse:
    """The cached page under `key` with this viewer's CSRF token, or `render()` (then stored)."""
    if request.method != "GET" or has_messages(request):
        return render()
    hit = _cached(request, key)
    if hit is not None:
        return hit
    with _RENDER_LOCKS[hash(key) % len(_RENDER_LOCKS)]:
        hit = _cached(request, key)  # rendered while this one waited
        if hit is not None:
            return hit
        response = render()
        if response.status_code == 200 and not response.streaming and not response.cookies:
            text = response.content.decode(response.charset or "utf-8")
            cache.set(key, TOKEN.sub(lambda m: m.group(1) + SENTINEL + m.group(3), text), TIMEOUT)
            response[HEADER] = "miss"
    return response


def _cached(request: HttpRequest, key: str) -> HttpResponse | None:
    body = cache.get(key)
    if body is None:
        return None
    response = HttpResponse(body.replace(SENTINEL, get_token(request)))
    response[HEADER] = "hit"
    return response
