"""End to end: browser -> web server -> Celery worker -> Redis channel layer -> websocket -> browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from playground.models import DiagnosticPing

pytestmark = pytest.mark.live


def test_ping_is_answered_by_the_worker_and_pushed_to_every_open_page(page: Page, celery_worker) -> None:
    watcher = page.context.new_page()  # a second viewer of the same page
    for viewer in (page, watcher):
        viewer.goto("/diagnostics/")
        expect(viewer.locator("#socket-status")).to_have_text("connected")

    page.get_by_role("button", name="Send ping").click()

    expect(page.locator("#ping-queued")).to_contain_text("queued")
    for viewer in (page, watcher):
        answers = viewer.locator("#ping-results li")
        expect(answers).to_have_count(1)
        expect(answers.first).to_contain_text(f"pong from {celery_worker.hostname}")

    ping = DiagnosticPing.objects.get()  # the worker wrote to the test database
    assert ping.answered_by == celery_worker.hostname
    assert ping.round_trip_ms is not None

    page.reload()  # answers are persisted, not only pushed
    expect(page.locator("#ping-results li")).to_have_count(1)
