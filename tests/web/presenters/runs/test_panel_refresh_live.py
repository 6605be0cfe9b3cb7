"""A step's follow-up fetches stay bounded at a big size, in real Chromium on the real stack (the
web server, a Celery worker, Redis): the Cluster panel's body (its heatmap, ~200 KB at 5,000
nodes) and the Pods panel's (a grouping of every pod: 150,000 at the envelope) are not fetched
while the panel is off screen, the newest state is fetched once when it scrolls into view, and a
marker of the state the body already shows fetches nothing.
Counts are asserted; times are not (bench/web.py measures those)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, Request, expect

from playground.ownership import Actor
from playground.services.scenarios import scenario_create
from tests.web.scale import big_cluster_yaml

pytestmark = pytest.mark.live

NODES, PODS = 120, 60  # past the small cluster (50 nodes) and table (50 pods): both panels are paged


def _step(page: Page, to: int) -> None:
    """Click Step and wait for the live update and its events-body fetch (the markers of one
    update are handled together, so a cluster fetch it causes has been sent by then)."""
    with page.expect_response(lambda r: "/events/" in r.url and f"step={to}" in r.url):
        page.evaluate("document.getElementById('btn-step').click()")  # where the viewer scrolled to
    expect(page.locator("#run-step")).to_have_text(str(to))


def test_the_cluster_body_is_fetched_only_when_on_screen_and_changed(page: Page, celery_worker: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 600})
    scenario = scenario_create(
        actor=Actor(session_token="refresh-author"), name="120 nodes", yaml_text=big_cluster_yaml(NODES, PODS)
    )
    page.goto(f"/scenarios/{scenario.share_token}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    expect(page.locator("#heatmap i[title]")).to_have_count(NODES)

    cluster_reads: list[str] = []
    pods_reads: list[str] = []

    def on_request(request: Request) -> None:
        if request.method == "GET" and re.search(r"/runs/[^/]+/cluster/", request.url):
            cluster_reads.append(request.url)
        if request.method == "GET" and re.search(r"/runs/[^/]+/pods/", request.url):
            pods_reads.append(request.url)

    page.on("request", on_request)
    page.evaluate("window.scrollTo(0, 0)")
    below = page.evaluate("document.getElementById('cluster-body').getBoundingClientRect().top - window.innerHeight")
    assert below > 200, "the Cluster panel should start off screen in this viewport"

    _step(page, 1)
    _step(page, 2)
    assert cluster_reads == [], "the off-screen Cluster panel was fetched on a step"
    assert pods_reads == [], "the off-screen Pods panel was fetched on a step"

    with page.expect_response(lambda r: "/cluster/" in r.url):
        page.locator("#cluster-body").scroll_into_view_if_needed()
    assert len(cluster_reads) == 1 and "step=2" in cluster_reads[0], cluster_reads
    expect(page.locator("#cluster-summary")).to_be_visible()

    _step(page, 3)  # on screen: followed on every step
    expect(page.locator("#cluster-summary")).to_be_visible()
    assert len(cluster_reads) == 2 and "step=3" in cluster_reads[1], cluster_reads

    # A re-sync (what the page sends whenever its socket opens) gets the same state's markers
    # again: the page counts the cluster marker's arrival, and nothing is fetched for it.
    page.evaluate("""() => { window.clusterMarkers = 0; document.addEventListener('htmx:confirm', (e) => {
        if (e.detail.elt.parentElement && e.detail.elt.parentElement.id === 'cluster-refresh') window.clusterMarkers++; }); }""")
    page.evaluate("htmx.trigger(document.body, 'htmx:wsOpen')")
    page.wait_for_function("() => window.clusterMarkers >= 1")
    _step(page, 4)  # a later step's fetch is the next one: the re-sync's marker fetched nothing
    expect(page.locator("#cluster-summary")).to_be_visible()
    assert len(cluster_reads) == 3 and "step=4" in cluster_reads[2], cluster_reads

    assert pods_reads == [], "the off-screen Pods panel was fetched on a step"
    with page.expect_response(lambda r: "/pods/" in r.url):
        page.locator("#pods-body").scroll_into_view_if_needed()
    assert len(pods_reads) == 1 and "step=4" in pods_reads[0], pods_reads
    expect(page.locator("#pods-summary")).to_have_text(f"{PODS} pods")
