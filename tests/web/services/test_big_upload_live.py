"""A big upload through the real stack (web server, Redis, a Celery worker, Chromium): the request
answers with the "checking" page at once and the worker's load makes the scenario appear; a big
invalid upload ends on the loader's located error and creates nothing (services/scenario_uploads.py)."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.models import Scenario, ScenarioUpload
from tests.web.services.runs.test_big_upload_checked_by_worker import big_timeline

pytestmark = pytest.mark.live


def _create(page: Page, name: str, text: str) -> str:
    """Send the new-scenario form with `text` as its file; returns where its POST redirected."""
    page.goto("/scenarios/")
    page.fill("#id_name", name)
    page.set_input_files("#id_file", files=[{"name": "long.yaml", "mimeType": "application/yaml",
                                             "buffer": text.encode()}])
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Create scenario").click()
    assert answer.value.status == 302
    return answer.value.headers["location"]


def test_a_big_upload_is_created_by_the_worker(page: Page, celery_worker: Any) -> None:
    page.set_default_timeout(120_000)
    location = _create(page, "Long timeline", big_timeline())
    assert location.startswith("/scenarios/checking/")  # the request loaded nothing
    expect(page.locator("#scenario-name")).to_have_text("Long timeline", timeout=120_000)  # the page moved on by itself
    scenario = Scenario.objects.get(share_token=re.search(r"/scenarios/([^/]+)/$", page.url).group(1))
    assert list(scenario.kube_objects.values_list("kind", flat=True)) == ["Node", "Pod", "Timeline"]
    assert ScenarioUpload.objects.get(scenario=scenario).status == ScenarioUpload.DONE


def test_a_big_invalid_upload_shows_where_it_is_wrong_and_creates_nothing(page: Page, celery_worker: Any) -> None:
    page.set_default_timeout(120_000)
    location = _create(page, "Broken timeline", big_timeline(bad_at=20_000))
    assert location.startswith("/scenarios/checking/")
    error = page.locator("#upload-error")
    expect(error).to_contain_text("document 3", timeout=120_000)
    expect(error).to_contain_text("actions[20000]")
    expect(page.locator("#upload-where")).to_contain_text("Document")
    expect(page.locator("#upload-status")).to_contain_text("Nothing was created")
    assert not Scenario.objects.filter(name="Broken timeline").exists()
    assert ScenarioUpload.objects.get(name="Broken timeline").status == ScenarioUpload.FAILED


def test_screenshots_of_the_checking_and_refused_pages(page: Page) -> None:
    """The "checking" page as its uploader sees it while a worker loads the file, then the
    refusal, at a phone's and a desktop's width (kept as screenshots when PLAYGROUND_SCREENSHOTS
    names a folder). The upload is stored here, as the request stores one, and queued nowhere:
    it stays "checking" for as long as the test looks at it."""
    page.goto("/scenarios/")
    page.fill("#id_name", "Mine")
    page.get_by_role("button", name="Create scenario").click()
    expect(page.locator("#scenario-name")).to_have_text("Mine")
    owner = Scenario.objects.get(name="Mine").owner_token  # the browser's session
    upload = ScenarioUpload.objects.create(owner_token=owner, name="Long timeline", source="long.yaml",
                                           text=big_timeline())
    location = f"/scenarios/checking/{upload.token}/"
    shots = os.environ.get("PLAYGROUND_SCREENSHOTS")
    for width in (390, 1440):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(location)
        expect(page.locator("#upload-checking")).to_contain_text("a worker checks it and creates the scenario")
        expect(page.locator("#upload-status")).to_have_attribute("hx-trigger", "every 500ms")
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing wider than a phone
        if shots:
            page.screenshot(path=os.path.join(shots, f"upload-checking-{width}.png"))
    ScenarioUpload.objects.filter(pk=upload.pk).update(
        status=ScenarioUpload.FAILED, text="", error='long.yaml: document 3 (Timeline): actions[30000].action: '
        'unsupported value "explode"', error_where={"document": 3, "kind": "Timeline", "field": "actions[30000].action"})
    for width in (390, 1440):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(location)
        expect(page.locator("#upload-error")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if shots:
            page.screenshot(path=os.path.join(shots, f"upload-refused-{width}.png"))
