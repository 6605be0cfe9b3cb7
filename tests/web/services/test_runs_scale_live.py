"""A 2,000-node run in real Chromium (the web server, a Celery worker, Redis): the page loads small,
Step updates it, every websocket message stays under the limit, and the paged parts follow.
Sizes are asserted; times are not (bench/ measures those)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.consumers.runs import MAX_MESSAGE_BYTES
from playground.ownership import Actor
from playground.services.scenarios import scenario_create
from tests.web.scale import big_cluster_yaml

pytestmark = pytest.mark.live

NODES, PODS = 2000, 200
MAX_PAGE_BYTES = 500 * 1024


def test_a_2000_node_run_steps_live_with_bounded_messages(page: Page, celery_worker: Any) -> None:
    page.set_default_timeout(60_000)
    scenario = scenario_create(
        actor=Actor(session_token="scale-author"), name="2,000 nodes", yaml_text=big_cluster_yaml(NODES, PODS)
    )
    frames: list[int] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived",
            lambda payload: frames.append(len(payload.encode() if isinstance(payload, str) else payload)),
        ),
    )
    page.goto(f"/scenarios/{scenario.share_token}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    html = page.request.get(page.url).body()
    assert len(html) < MAX_PAGE_BYTES, f"the run page is {len(html)} bytes"
    expect(page.locator(".heatmap i[title]")).to_have_count(NODES)

    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("1")
    expect(page.locator("#inspector-title")).to_contain_text("Cycle 1")
    expect(page.locator("#filter-groups > li").first).to_contain_text("feasible")
    page.locator("#pods-body").scroll_into_view_if_needed()  # fetched while on screen (run-page.js)
    expect(page.locator("#pod-table tr.status-Bound")).to_have_count(1)  # the pods table followed (GET)
    bound_to = page.locator("#selected strong").first.inner_text()

    # Search keeps working across pushes; a heatmap cell opens its node.
    page.locator("#cluster-q").fill("node-00007")
    expect(page.locator("#cluster-body .node")).to_have_count(1)
    page.locator(f'.heatmap i[title="{bound_to}"]').click()
    expect(page.locator("#node-detail-card")).to_contain_text(bound_to)
    expect(page.locator("#node-detail-card .pod-chip.bound")).to_have_count(1)

    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("2")
    expect(page.locator("#cluster-body .node")).to_have_count(1)  # the refresh kept the query
    page.locator("#pods-body").scroll_into_view_if_needed()
    expect(page.locator("#pod-table tr.status-Bound")).to_have_count(2)
    assert frames and max(frames) < MAX_MESSAGE_BYTES, f"largest websocket message: {max(frames, default=0)} bytes"
    print(f"\n2,000 nodes: page {len(html)} bytes, websocket messages {len(frames)}, largest {max(frames)} bytes")
