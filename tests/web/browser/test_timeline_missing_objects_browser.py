"""The run page in headless Chromium (real worker, real websocket): a user deletes worker-2 of
node-not-ready, whose Timeline marks it not-ready at t=10 s; advancing the clock past t=10 s
works, and the event log says the Timeline action was refused with the API server's NotFound."""

from __future__ import annotations

import os
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.services.runs.test_runs_live import start_run

pytestmark = pytest.mark.live


def test_the_log_shows_a_timeline_action_refused_after_a_live_delete(page: Page, celery_worker: Any) -> None:
    start_run(page, "node-not-ready")
    page.locator("#cluster-actions summary").click()
    form = page.locator("#form-node-op")
    form.locator('input[name="node"]').fill("worker-2")
    form.locator('select[name="op"]').select_option("deleteNode")
    form.locator('button[type="submit"]').click()
    expect(page.locator('#run-cluster [data-node="worker-2"]')).to_have_count(0)
    page.locator("#btn-clock").click()  # t=10: the Timeline's two setNodeCondition actions
    expect(page.locator("#run-clock")).to_have_text("10s")
    row = page.locator("#run-log-rows .log-timeline_action_failed")
    expect(row).to_contain_text('Timeline setNodeCondition of node worker-2 skipped: the API server answered '
                                'NotFound: nodes "worker-2" not found')
    page.locator("#btn-clock").click()  # the run goes on: worker-1's NoExecute taint, the late pod...
    expect(page.locator("#run-clock")).not_to_have_text("10s")
    shots = os.environ.get("PLAYGROUND_SCREENSHOTS")  # where to keep screenshots, when asked
    if shots:
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            row.scroll_into_view_if_needed()
            page.screenshot(path=os.path.join(shots, f"timeline-refused-{width}.png"))
