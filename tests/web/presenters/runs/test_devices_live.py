"""The devices panel in real Chromium, on the live stack: the DRA gallery run, stepped by the
owner; the panel follows the steps over the websocket and its search works."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.services.runs.test_runs_live import start_run

pytestmark = pytest.mark.live


def test_devices_panel_follows_the_run_and_searches(page: Page, celery_worker: Any) -> None:
    start_run(page, "dra-gpus")
    panel = page.locator("#run-devices")
    expect(panel).to_be_visible()
    expect(page.locator("#devices-summary")).to_contain_text("4 of 4 devices free on 2 nodes")
    expect(panel.locator("article.device-node")).to_have_count(2)  # cpu-c has no slice

    page.locator("#btn-step").click()  # cycle 1: finetune takes gpu-b's H100
    expect(page.locator("#run-step")).to_have_text("1")
    gpu_b = panel.locator('article.device-node[data-node="gpu-b"]')
    expect(gpu_b.locator('[data-claim="default/finetune-gpu"]')).to_be_visible()
    expect(page.locator("#devices-summary")).to_contain_text("3 of 4 devices free")
    expect(page.locator("ul.binding")).to_contain_text("ResourceClaim default/finetune-gpu allocated")

    page.locator("#devices-q").fill("A100")
    expect(panel.locator("article.device-node")).to_have_count(1)
    expect(panel.locator("article.device-node")).to_have_attribute("data-node", "gpu-a")
    expect(page.locator("#devices-summary")).to_contain_text(re.compile(r"1 node match"))


def test_devices_panel_shows_a_device_taint_and_the_gate_keeps_the_claim_off_it(
        page: Page, celery_worker: Any) -> None:
    start_run(page, "dra-device-taints")  # the gallery scenario starts with DRADeviceTaints=true
    panel = page.locator("#run-devices")
    gpu_a = panel.locator('article.device-node[data-node="gpu-a"]')
    expect(gpu_a.locator('tr[data-device="gpu-0"]')).to_contain_text(
        "taint example.com/maintenance=firmware:NoSchedule")
    expect(panel.locator('article.device-node[data-node="gpu-b"] tr[data-device="gpu-0"]')).to_contain_text(
        "taint example.com/ecc-errors:NoExecute")

    page.locator("#btn-step").click()  # cycle 1: job-1 tolerates nothing, so it gets the untainted gpu-1
    expect(page.locator("#run-step")).to_have_text("1")
    expect(gpu_a.locator('tr[data-device="gpu-1"] [data-claim="default/job-1-gpu"]')).to_be_visible()
    expect(gpu_a.locator('tr[data-device="gpu-0"]')).to_contain_text("free")
