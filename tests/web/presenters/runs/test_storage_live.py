"""The storage lesson in real Chromium: the run page's storage panel follows the steps (a
WaitForFirstConsumer claim bound to the local disk, a provisioned one with its selected node,
an Immediate one left unbound) and switches to the PersistentVolumes."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.services.runs.test_runs_live import start_run

pytestmark = pytest.mark.live


def test_storage_panel_follows_the_wait_for_first_consumer_lesson(page: Page, celery_worker: Any) -> None:
    start_run(page, "wait-for-first-consumer")
    panel = page.locator("#run-storage")
    expect(panel).to_contain_text("3 claims (0 bound, 3 not bound)")
    expect(panel.locator('tr[data-class="zonal-late"]')).to_contain_text("topology.kubernetes.io/zone in zone-b")

    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("1")
    expect(panel.locator('tr[data-claim="default/cache-data"]')).to_contain_text("ssd-a1")
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("2")
    db = panel.locator('tr[data-claim="default/db-data"]')
    expect(db).to_contain_text("Bound")
    expect(db).to_contain_text("b1")
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("3")
    expect(panel.locator('tr[data-claim="default/reports-data"]')).to_contain_text("Pending")
    expect(panel).to_contain_text("3 claims (2 bound, 1 not bound)")

    page.locator("#storage-show").select_option("volumes")
    expect(panel.locator('tr[data-volume="ssd-a1"]')).to_contain_text("default/cache-data")
    expect(panel.locator("#storage-volumes")).to_contain_text("ebs.csi.aws.com")
