"""The waiting stage on screen, end to end (real Chromium, the web server, a Celery worker and
Redis): a gang lesson started with its prefilled feature gates shows its members waiting at
Permit, the group's progress toward minCount and the deadline countdown, then binding together."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.models import Run
from playground.services import gallery

pytestmark = pytest.mark.live


def test_gang_members_wait_at_permit_then_bind_together(page: Page, celery_worker: Any) -> None:
    gallery.seed()
    page.goto("/gallery/gang-scheduling/")
    expect(page.locator("#start-gates")).to_have_value("GenericWorkload=true,GangScheduling=true")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    expect(page.locator("#run-gates")).to_have_text("GangScheduling=true,GenericWorkload=true")
    expect(page.locator("#no-waiting")).to_be_visible()
    for n in range(1, 4):
        page.locator("#btn-step").click()
        expect(page.locator("#run-waiting li.waiting-pod")).to_have_count(n)
    panel = page.locator("#run-waiting")
    expect(panel.locator('li.waiting-pod[data-pod="default/worker-1"]')).to_contain_text(
        "reserved on node-1, waiting for GangScheduling")
    expect(panel.locator(".gang-progress")).to_have_text("3 of minCount 4 reserved or bound")
    expect(panel.locator(".gang .countdown")).to_contain_text("rejected in 300s unless the gang completes")
    # The fourth member finds no room: the waiting ones hold their nodes.
    page.locator("#btn-step").click()
    expect(page.locator('#pod-table tr[data-pod="default/worker-4"] .why')).to_contain_text("Insufficient cpu")
    expect(panel.locator("li.waiting-pod")).to_have_count(3)
    page.locator("#btn-play").click()
    expect(page.locator("#run-state")).to_have_text("settled")
    expect(page.locator("#no-waiting")).to_be_visible()
    run = Run.objects.get()
    assert run.feature_gates == "GangScheduling=true,GenericWorkload=true"
