"""Reads limited per client (playground/middleware.py ReadLimitMiddleware), counted in the real
Redis: a client over PLAYGROUND_READS_PER_SECOND gets HTTP 429 with Retry-After and nothing is
rendered, while another client is still served. The client is its session when that session
exists, else its address (a made-up session cookie does not make a new client).

Each test reads from an address of its own, so the counts of two tests never meet."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from playground.ownership import SESSION_KEY
from tests.web.services.runs.test_runs_services import OWNER, start

pytestmark = pytest.mark.django_db
LIMIT = 2
# LIMIT per one-second window: 2 * LIMIT + 1 reads within two windows cannot all be allowed.
READS = 2 * LIMIT + 1


@pytest.fixture
def limited(settings: Any, redis_url: str) -> None:
    settings.REDIS_URL = redis_url
    settings.PLAYGROUND_READS_PER_SECOND = LIMIT


def statuses(client: Client, url: str, address: str, reads: int = READS) -> list[Any]:
    return [client.get(url, REMOTE_ADDR=address) for _ in range(reads)]


def test_a_flooding_client_gets_429_with_retry_after_and_another_is_served(limited: None) -> None:
    run = start("priority-preemption")
    url = f"/runs/{run.share_token}/"
    flood = statuses(Client(), url, "10.38.5.1")
    refused = [r for r in flood if r.status_code == 429]
    assert refused and all(r.status_code in (200, 429) for r in flood)
    first = refused[0]
    assert first["Retry-After"] == "1"  # whole seconds to the end of the one-second window
    text = first.content.decode()
    assert "PLAYGROUND_READS_PER_SECOND" in text and f"at most {LIMIT}" in text
    assert first["Content-Type"].startswith("text/plain")
    # Another client, on the same address but with a session of its own, is still served.
    owner = Client()
    session = owner.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    assert owner.get(url, REMOTE_ADDR="10.38.5.1").status_code == 200


def test_a_made_up_session_cookie_is_counted_by_its_address(limited: None) -> None:
    run = start("priority-preemption")
    url = f"/runs/{run.share_token}/"
    answers = []
    for i in range(READS):
        client = Client()
        client.cookies["sessionid"] = f"made-up-{i}"  # a new one every time: still one client
        answers.append(client.get(url, REMOTE_ADDR="10.38.5.2").status_code)
    assert 429 in answers


def test_panels_count_too_and_posts_do_not(limited: None) -> None:
    run = start("priority-preemption")
    panel = f"/runs/{run.share_token}/events/"
    assert 429 in [r.status_code for r in statuses(Client(), panel, "10.38.5.3")]
    # An htmx panel request gets the same answer (swapped into the panel: it says why).
    htmx = [Client().get(panel, REMOTE_ADDR="10.38.5.4", HTTP_HX_REQUEST="true") for _ in range(READS)]
    assert [r for r in htmx if r.status_code == 429][0]["Retry-After"] == "1"
    # Writes are the quotas' business: a burst of posts is never refused by the read limit.
    posts = [Client().post(f"/runs/{run.share_token}/", {"action": "nothing"}, REMOTE_ADDR="10.38.5.5")
             for _ in range(READS)]
    assert 429 not in [r.status_code for r in posts]


def test_zero_means_not_limited(settings: Any, redis_url: str) -> None:
    settings.REDIS_URL = redis_url
    settings.PLAYGROUND_READS_PER_SECOND = 0
    run = start("priority-preemption")
    assert {r.status_code for r in statuses(Client(), f"/runs/{run.share_token}/", "10.38.5.6")} == {200}


def test_a_real_session_is_a_client_of_its_own() -> None:
    from playground.services.rate_limit import known_client_key

    store = SessionStore()
    store["x"] = 1
    store.create()

    class Request:
        META = {"REMOTE_ADDR": "10.38.5.7"}

        def __init__(self, key: str) -> None:
            self.session = SessionStore(session_key=key)

    assert known_client_key(Request(store.session_key)) == f"s:{store.session_key}"
    assert known_client_key(Request("no-such-session-key-0123456789")) == "ip:10.38.5.7"


def test_a_refused_client_is_refused_from_memory_until_its_window_ends(limited: None, settings: Any) -> None:
    """A flood is mostly refusals: after the first, the rest of the window is answered without
    asking Redis (here Redis is then out of reach: a new client is let through, as always
    without Redis; the refused one is still refused, with the time left)."""
    from playground.services import rate_limit

    key = "test:memory:10.38.5.8"
    assert rate_limit.hit(key, limit=1, window_seconds=60) == 0
    first = rate_limit.hit(key, limit=1, window_seconds=60)
    assert 1 <= first <= 60
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    rate_limit._limiters.clear()
    try:
        assert 1 <= rate_limit.hit(key, limit=1, window_seconds=60) <= first
        assert rate_limit.hit("test:memory:10.38.5.9", limit=1, window_seconds=60) == 0
    finally:
        rate_limit._limiters.clear()
        rate_limit._redis_down_until = 0.0


def test_redis_out_of_reach_is_not_asked_again_at_once(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    """Without Redis every read is let through (the app cannot run then anyway), and only the
    first read in REDIS_RETRY_SECONDS tries to reach it (and says so in the log)."""
    from playground.services import rate_limit

    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    rate_limit._limiters.clear()
    try:
        with caplog.at_level("WARNING", logger="playground.services.rate_limit"):
            answers = [rate_limit.hit(f"test:down:{i}", limit=1) for i in range(5)]
        assert answers == [0] * 5
        assert len([r for r in caplog.records if "Redis unreachable" in r.getMessage()]) == 1
    finally:
        rate_limit._limiters.clear()
        rate_limit._redis_down_until = 0.0


def test_the_gate_refuses_a_refused_client_before_django(limited: None, settings: Any) -> None:
    """config/asgi.py puts RefusedReadsGate in front of Django: a GET from an address this
    process has just refused, without a session cookie, is answered 429 there; with a session
    cookie (only Django can tell whether it is real), for a static file, or from another
    address, the request goes on."""
    import asyncio

    from playground.middleware import RefusedReadsGate
    from playground.services import rate_limit

    settings.PLAYGROUND_READS_PER_SECOND = 1
    key = "read:ip:10.38.5.10"
    assert rate_limit.hit(key, limit=1, window_seconds=60) == 0
    assert rate_limit.hit(key, limit=1, window_seconds=60) >= 1  # refused: remembered

    passed: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        passed.append(scope["path"])

    def call(address: str, path: str = "/runs/x/", cookie: bytes = b"") -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        headers = [(b"cookie", cookie)] if cookie else []
        scope = {"type": "http", "method": "GET", "path": path, "client": (address, 5000), "headers": headers}
        asyncio.run(RefusedReadsGate(app)(scope, None, send))
        return sent

    refused = call("10.38.5.10")
    assert refused[0]["status"] == 429 and dict(refused[0]["headers"])[b"retry-after"].isdigit()
    assert b"PLAYGROUND_READS_PER_SECOND" in refused[1]["body"] and passed == []
    assert call("10.38.5.10", cookie=b"sessionid=abc") == [] and passed == ["/runs/x/"]
    assert call("10.38.5.10", path="/static/css/playground.css") == []
    assert call("10.38.5.11") == [] and len(passed) == 3
