"""A 2,000-node run in real Chromium logs no htmx error: every out-of-band fragment a push or a
panel request carries finds its target. The page inputs (#cluster-page, #pods-page, #events-page)
were out-of-band parts of the panels' GET responses; while playing, a push replaced the element
that had sent the GET before its answer came, and htmx then looked for the targets in the
detached element (htmx:oobErrorNoTarget on a viewer's page). They are now part of the body."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from playground.ownership import Actor
from playground.services.scenarios import scenario_create
from tests.web.scale import big_cluster_yaml

pytestmark = pytest.mark.live


def test_a_large_run_logs_no_oob_target_errors(page: Page, browser: Browser, live_url: str, celery_worker: Any) -> None:
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    scenario = scenario_create(
        actor=Actor(session_token="oob-author"), name="2,000 nodes", yaml_text=big_cluster_yaml(2000, 120)
    )
    page.goto(f"/scenarios/{scenario.share_token}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    viewer_context = browser.new_context(base_url=live_url)
    viewer = viewer_context.new_page()
    viewer.set_default_timeout(60_000)
    viewer_errors: list[str] = []
    viewer.on("console", lambda msg: viewer_errors.append(msg.text) if msg.type == "error" else None)
    viewer.goto(page.url)
    expect(viewer.locator("#run-socket")).to_have_text("live")
    for step in ("1", "2"):
        page.locator("#btn-step").click()
        expect(page.locator("#run-step")).to_have_text(step)
        page.locator("#pods-body").scroll_into_view_if_needed()  # fetched while on screen (run-page.js)
        expect(page.locator("#pod-table tr.status-Bound")).to_have_count(int(step))
    page.locator("#cluster-body .pager button").last.click()  # next page of nodes
    expect(page.locator("#cluster-body .pager")).to_contain_text("page 2")
    page.locator("#cluster-filter").select_option("rejected")
    page.locator("#pod-table").scroll_into_view_if_needed()
    page.locator("#pods-body .pager button").last.click()
    expect(page.locator("#pods-body .pager")).to_contain_text("page 2")
    page.locator("#filter-groups details summary").first.click()
    page.locator(".heatmap i[title]").nth(5).click()
    expect(page.locator("#node-detail-card")).to_be_visible()
    page.locator("#cluster-q").fill("node-0001")
    expect(page.locator("#cluster-body .node").first).to_be_visible()
    page.locator("#events-q").fill("Scheduled")
    expect(page.locator("#events-table")).to_contain_text("Scheduled")
    page.locator("#pods-q").fill("pod-0000")
    expect(page.locator("#pod-table")).to_contain_text("pod-00000")
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("3")
    expect(viewer.locator("#run-step")).to_have_text("3")
    page.locator("#btn-play").click()  # pushes in quick succession, each followed by the panels' GETs
    page.wait_for_timeout(8000)
    page.locator("#btn-pause").click()
    page.reload()
    expect(page.locator("#run-socket")).to_have_text("live")
    page.goto(page.url + "?step=2")
    page.wait_for_timeout(1500)  # the panels' follow-up GETs after the push
    viewer_context.close()
    assert not [e for e in errors if "oob" in e.lower() or "htmx" in e.lower()], errors
    assert not [e for e in viewer_errors if "oob" in e.lower() or "htmx" in e.lower()], viewer_errors
