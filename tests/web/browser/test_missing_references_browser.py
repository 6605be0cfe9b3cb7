"""The scenario page in headless Chromium: a file whose claim template names a DeviceClass the
scenario lacks is imported (as the API server accepts it), and the page lists the reference
apart from the ignored fields, saying what the scheduler will do."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page, expect

from tests.web.browser.test_editor_browser import create_scenario, upload
from tests.web.services.test_missing_references_web import MISSING

pytestmark = pytest.mark.live


def test_an_import_naming_a_missing_device_class_lists_what_the_scheduler_will_do(page: Page) -> None:
    scenario = create_scenario(page, "Missing class")
    upload(page, "dra.yaml", MISSING)
    listed = page.locator("#missing-references")
    expect(listed).to_contain_text("Accepted, as the API server accepts it: 1 reference to an object the "
                                   "scenario lacks", timeout=30_000)
    expect(listed).to_contain_text('DeviceClass "tpu" is not in the scenario')
    expect(listed).to_contain_text('"request accel: device class tpu does not exist"')
    expect(page.locator("#not-simulated")).to_have_count(0)
    assert scenario.kube_objects.filter(kind="ResourceClaimTemplate").count() == 1
    shots = os.environ.get("PLAYGROUND_SCREENSHOTS")  # where to keep screenshots, when asked
    if shots:
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            listed.scroll_into_view_if_needed()
            page.screenshot(path=os.path.join(shots, f"missing-references-{width}.png"))
