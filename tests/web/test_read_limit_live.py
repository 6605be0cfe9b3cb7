"""The read limit on the real web server (its processes, the real Redis, the test database): one
client reading the live run page as fast as it can, from many connections at once, gets HTTP 429
with Retry-After, while another client (the run's owner, on the same address) is served its page
every time. The figures under load (200 requests/s for 30 s) are bench/read_flood.py's."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore

from playground.launcher import free_port, http_ok, spawn, stop_process_group, wait_until, web_server_argv
from playground.ownership import SESSION_KEY
from tests.web.services.runs.test_runs_services import OWNER, start

pytestmark = pytest.mark.live
LIMIT = 5
FLOOD = 120  # reads, 12 at a time: far more than LIMIT a second however fast the server is


@pytest.fixture
def limited_server(live_env: dict[str, str], live_logs_dir: Path) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (live_logs_dir / "read-limit-web.log").open("wb")
    process = spawn(web_server_argv("127.0.0.1", port), env=dict(live_env, PLAYGROUND_READS_PER_SECOND=str(LIMIT)),
                    output=log)
    try:
        wait_until(lambda: http_ok(url + "/"), timeout=60, what="web server", alive=lambda: process.poll() is None)
        yield url
    finally:
        stop_process_group(process)
        log.close()


def get(url: str, cookie: str = "") -> tuple[int, dict[str, str], str]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read().decode()


def test_a_flooding_client_gets_429_while_another_is_served(transactional_db: None, limited_server: str) -> None:
    run = start("priority-preemption")
    page = f"{limited_server}/runs/{run.share_token}/"
    store = SessionStore()
    store[SESSION_KEY] = OWNER.session_token
    store.create()
    owner_cookie = f"sessionid={store.session_key}"

    def owner_reads() -> list[tuple[int, str]]:
        answers = []
        for _ in range(LIMIT - 1):  # within its own limit, whatever the timing
            status, _, body = get(page, owner_cookie)
            answers.append((status, body))
        return answers

    with ThreadPoolExecutor(max_workers=13) as pool:
        flood = [pool.submit(get, page) for _ in range(FLOOD)]
        owner = pool.submit(owner_reads)
        flooded: list[Any] = [f.result() for f in flood]
        served = owner.result()

    refused = [(headers, body) for status, headers, body in flooded if status == 429]
    assert refused, "the flood was never refused"
    assert {status for status, _, _ in flooded} <= {200, 429}
    headers, body = refused[0]
    assert headers["retry-after"].isdigit() and int(headers["retry-after"]) >= 1
    assert "PLAYGROUND_READS_PER_SECOND" in body
    # The owner, meanwhile: every read answered with its page and its controls.
    assert [status for status, _ in served] == [200] * (LIMIT - 1)
    assert all('id="btn-step"' in body for _, body in served)
