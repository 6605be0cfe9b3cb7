"""Chromium: the "How many more fit?" page, a workload picked, counted, the answer swapped in."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page, expect

from playground.services.scenarios import scenario_create
from tests.web.test_capacity_page import CLUSTER
from tests.web.test_runs_services import OWNER

pytestmark = pytest.mark.live


def test_pick_count_and_read_the_schedulers_message(page: Page, live_url: str) -> None:
    scenario = scenario_create(actor=OWNER, name="three nodes", yaml_text=CLUSTER)
    shots = os.environ.get("CAPACITY_SHOTS")  # a directory: screenshots to look at
    for width, height in ((390, 844), (1440, 900)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"/scenarios/{scenario.share_token}/")
        if shots:
            page.screenshot(path=f"{shots}/scenario-{width}.png")
        page.locator("#capacity-link").click()
        expect(page.locator("#capacity-form")).to_be_visible()
        page.locator("#capacity-pod").select_option(label="Deployment default/api")
        page.locator("#capacity-button").click()
        expect(page.locator("#capacity-count")).to_have_text("6 copies of default/api fit")
        expect(page.locator("#capacity-reason")).to_contain_text("2 Insufficient cpu")
        expect(page.locator("#capacity-per-node")).to_contain_text("node-b")
        if shots:
            page.screenshot(path=f"{shots}/capacity-{width}.png", full_page=True)
