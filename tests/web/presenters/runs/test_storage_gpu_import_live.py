"""A real cluster with zone-bound volumes and GPUs, end to end in headless Chromium: the kubectl
dump (a StatefulSet with volumeClaimTemplates on a WaitForFirstConsumer class limited to zone-a
and zone-b; a GPU Deployment whose ResourceClaimTemplate asks a CEL-selected DeviceClass for an
A100) is imported on the scenario page, a run is started and played to the end, and the run
page shows the claims bound in the allowed zones, the two A100s held by trainer claims and the
third trainer pending with the DynamicResources reason."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.browser.test_editor_browser import create_scenario, upload

pytestmark = pytest.mark.live

DUMP = Path(__file__).resolve().parents[3] / "fixtures" / "kubectl-storage-gpu.yaml"


def test_storage_and_gpu_dump_imports_runs_and_shows(page: Page, celery_worker: Any) -> None:
    create_scenario(page, "Shop and trainer")
    upload(page, "cluster.yaml", DUMP.read_text())
    expect(page.locator("#notice")).to_contain_text("Imported a kubectl-list cluster dump", timeout=30_000)
    expect(page.locator("#import-errors")).to_have_count(0)

    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    expect(page.locator("#run-storage")).to_be_visible()
    expect(page.locator("#devices-summary")).to_contain_text("0 held by claims")

    page.locator("#btn-play").click()
    expect(page.locator("#run-state")).to_have_text("settled", timeout=60_000)

    # Storage: the three claims are bound, each to a volume provisioned in zone-a or zone-b.
    claims = page.locator("#storage-claims")
    for i in range(3):
        row = claims.locator(f'tr[data-claim="shop/data-db-{i}"]')
        expect(row).to_contain_text("Bound")
        expect(row).to_contain_text(f"shop/db-{i}")
        expect(row).not_to_contain_text("worker-c")
    expect(page.locator("#storage-summary")).to_contain_text("3 claims (3 bound, 0 not bound)")
    page.locator("#storage-show").select_option("volumes")
    volumes = page.locator("#storage-volumes")
    expect(volumes.locator("tr[data-volume]")).to_have_count(3)
    for i in range(3):  # the provisioner's node affinity: the selected node's zone, an allowed one
        row = volumes.locator("tr[data-volume]", has_text=f"shop/data-db-{i}")
        expect(row.locator("td").nth(5)).to_have_text(re.compile(r"^topology\.kubernetes\.io/zone in zone-[ab]$"))
    expect(volumes).not_to_contain_text("zone-c")

    # Devices: gpu-a's two A100s are held by trainer claims; gpu-b's device is not an A100.
    gpu_a = page.locator('#run-devices article.device-node[data-node="gpu-a"]')
    held = gpu_a.locator("tr.device-held [data-claim]")
    expect(held).to_have_count(2)
    for claim in held.all_inner_texts():
        assert claim.startswith("ml/trainer-"), claim
    expect(page.locator("#devices-summary")).to_contain_text("2 held by claims")

    # The third trainer waits, and says why.
    pending = page.locator('#pod-table tr.status-Pending[data-pod^="ml/trainer-"]')
    expect(pending).to_have_count(1)
    expect(pending.locator(".why")).to_contain_text("cannot allocate all claims")
    expect(pending.locator(".why .why-notes")).to_contain_text("DynamicResources: the allocator found no free devices")
    expect(page.locator('#pod-table tr.status-Bound[data-pod^="ml/trainer-"]')).to_have_count(2)
    expect(page.locator('#pod-table tr.status-Bound[data-pod^="shop/db-"]')).to_have_count(3)
