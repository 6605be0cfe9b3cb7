"""The capacity page's count of a big scenario is made by a real Celery worker, not the request.

The first GET answers "Counting…" at once (this process counts nothing: checked below), the
page's poll shows the answer once the worker (its own process, on the session's Redis and
database) has stored it.
"""

from __future__ import annotations

import re
import time
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from playground.services import capacity as capacity_service
from playground.services.scenarios import scenario_create
from tests.web.broker import switch_broker
from tests.web.services.runs.test_runs_services import OWNER
from tests.web.services.test_capacity_page import CLUSTER
from tests.web.services.test_capacity_queued import forget_counts

pytestmark = [pytest.mark.live]


def test_the_worker_counts_and_the_page_shows_the_answer(
    transactional_db: None, client: Any, celery_worker: Any, redis_url: str, settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from config.celery import app

    settings.REDIS_URL = redis_url
    forget_counts()
    monkeypatch.setattr(capacity_service, "MAX_NODES", 2)  # this request's bound: the 3 nodes are "big"
    counted_here: list[str] = []
    monkeypatch.setattr(capacity_service, "count_capacity", lambda *a, **k: counted_here.append("request"))
    before = switch_broker(app, redis_url)
    try:
        scenario = scenario_create(actor=OWNER, name="three nodes", yaml_text=CLUSTER)
        deployment = scenario.kube_objects.get(kind="Deployment")
        url = reverse("playground:scenario_capacity", args=[scenario.share_token]) + f"?pod={deployment.pk}&max=50"
        first = client.get(url).content.decode()
        assert 'id="capacity-pending"' in first and 'hx-trigger="every 1s"' in first and "Counting…" in first
        deadline = time.monotonic() + 120
        polled = first
        while 'id="capacity-pending"' in polled:
            assert time.monotonic() < deadline, "the worker stored no answer"
            time.sleep(0.3)
            polled = client.get(url, HTTP_HX_REQUEST="true").content.decode()
        page = " ".join(unescape(polled).split())
        assert 'id="capacity-answer"' in page, page[:2000]
        assert re.search(r'id="capacity-count"[^>]*>6 copies of default/api fit<', page)
        assert "1 node(s) had untolerated taint(s), 2 Insufficient cpu" in page
        assert counted_here == []  # the worker counted them
    finally:
        switch_broker(app, before)
