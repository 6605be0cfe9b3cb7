""""Run the descheduler" in real Chromium (the web server, a Celery worker, Redis): the button
runs a pass; the evictions, the Kubernetes events and the replacements in activeQ reach the page
over the websocket, and stepping places the replacements on the new node."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.ownership import Actor
from playground.services.scenarios import scenario_create

pytestmark = pytest.mark.live

LESSON = Path(__file__).resolve().parents[3] / "playground" / "gallery" / "descheduler-rebalance.yaml"


def test_the_button_rebalances_the_new_node(page: Page, celery_worker: Any) -> None:
    page.set_default_timeout(60_000)
    scenario = scenario_create(actor=Actor(session_token="desched-author"), name="rebalance",
                               yaml_text=LESSON.read_text())
    page.goto(f"/scenarios/{scenario.share_token}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("1")
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("2")  # node-6 has joined; the clock is at 60 s

    page.locator("#btn-descheduler").click()
    evictions = page.locator("#run-evictions")
    expect(evictions).to_contain_text("default/web-1 evicted from node-1 by the descheduler (LowNodeUtilization")
    expect(evictions).to_contain_text("default/web-4 evicted from node-2 by the descheduler")
    expect(page.locator("#run-events")).to_contain_text("pod evicted from node-1 node by sigs.k8s.io/descheduler")
    queue = page.locator("#run-queues")
    expect(queue).to_contain_text("web-", timeout=30_000)
    replacements = sorted(set(re.findall(r"web-[a-z0-9]{5}", queue.inner_text())))
    assert len(replacements) == 2, replacements

    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("4")  # the pass's frame, then the first cycle
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("5")
    for name in replacements:
        expect(page.locator("#pod-table tr", has_text=name)).to_contain_text("node-6")
