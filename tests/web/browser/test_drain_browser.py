"""drainNode in headless Chromium (real worker, real websocket): the run page's Drain control
drains worker-2 of the drain-pdb lesson, then the scenario's own Timeline drains worker-1 at
t=10 s, whose second eviction a PodDisruptionBudget refuses until the retry 5 s later; the
evictions panel says each step in kubectl's words."""

from __future__ import annotations

import os
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.services.runs.test_runs_live import start_run

pytestmark = pytest.mark.live


def test_a_drain_from_the_run_page_and_one_from_the_timeline(page: Page, celery_worker: Any) -> None:
    start_run(page, "drain-pdb")
    page.locator("#cluster-actions summary").click()
    form = page.locator("#form-drain")
    form.locator('input[name="node"]').fill("worker-2")
    form.locator('button[type="submit"]').click()
    expect(page.locator("#run-flash")).to_contain_text("Queued: drainNode")
    panel = page.locator("#run-evictions")
    expect(panel).to_contain_text("node/worker-2 cordoned")
    expect(panel).to_contain_text("evicting pod default/web-c")
    expect(panel).to_contain_text("node/worker-2 drained")

    form.locator('input[name="node"]').fill("worker-9")  # refused in the request, beside its field
    form.locator('button[type="submit"]').click()
    expect(page.locator("#form-drain-node-error")).to_contain_text('node "worker-9" does not exist')

    page.locator("#btn-clock").click()  # to the next timer: the Timeline's drain at t=10 s
    expect(page.locator("#run-clock")).to_have_text("10s")
    expect(panel).to_contain_text('error when evicting pods/"web-b" -n "default" (will retry after 5s): '
                                  "Cannot evict pod as it would violate the pod's disruption budget.")
    page.locator("#btn-clock").click()  # t=15 s: the retry
    expect(page.locator("#run-clock")).to_have_text("15s")
    expect(panel).to_contain_text("node/worker-1 drained")
    shots = os.environ.get("PLAYGROUND_SCREENSHOTS")  # where to keep screenshots, when asked
    if shots:
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            panel.scroll_into_view_if_needed()
            page.screenshot(path=os.path.join(shots, f"drain-evictions-{width}.png"))
            form.scroll_into_view_if_needed()
            page.screenshot(path=os.path.join(shots, f"drain-form-{width}.png"))
