"""The compare page's two headless runs are made by a real Celery worker, not the request.

The first GET answers "Comparing…" at once (this process runs no headless run: counted below),
the page's poll shows the first difference once the worker (its own process, on the session's
Redis) has stored the comparison.
"""

from __future__ import annotations

import time
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from playground.models import Scenario
from playground.services import gallery
from playground.services.versions import compare
from tests.web.broker import switch_broker
from tests.web.compare_here import forget_comparisons

pytestmark = [pytest.mark.live]


@pytest.fixture
def runs_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The headless runs made in this (the web's) process."""
    calls: list[str] = []
    real = compare.run_headless

    def counted(text: str, seed: int, version: str, gates: str = "") -> Any:
        calls.append(version)
        return real(text, seed, version, gates)

    monkeypatch.setattr(compare, "run_headless", counted)
    return calls


def test_the_worker_compares_and_the_page_shows_the_first_difference(
    transactional_db: None, client: Any, celery_worker: Any, redis_url: str, settings: Any, runs_here: list[str]
) -> None:
    from config.celery import app

    settings.REDIS_URL = redis_url
    forget_comparisons()
    before = switch_broker(app, redis_url)
    try:
        gallery.seed()
        scenario = Scenario.objects.get(gallery_slug="gang-scheduling")
        url = reverse("playground:scenario_compare", args=[scenario.share_token]) + "?seed=1&gates="
        first = client.get(url).content.decode()
        assert 'id="compare-pending"' in first and 'hx-trigger="every 1s"' in first
        assert "Comparing…" in first and 'id="compare-first"' not in first
        deadline = time.monotonic() + 120
        polled = first
        while 'id="compare-pending"' in polled:
            assert time.monotonic() < deadline, "the worker stored no comparison"
            time.sleep(0.3)
            polled = client.get(url, HTTP_HX_REQUEST="true").content.decode()
        page = unescape(polled)
        assert 'id="compare-first"' in page, page[:2000]
        assert "default/worker-1 is bound to node-1 at t=120 s against t=0 s" in " ".join(
            page.replace("<", " <").split())
        assert runs_here == []  # the worker made both runs
    finally:
        switch_broker(app, before)
