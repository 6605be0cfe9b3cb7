"""Chromium: the "How many more fit?" page, a workload picked, counted, the answer swapped in."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page, expect

from playground.services.scenarios import scenario_create
from tests.web.services.runs.test_runs_services import OWNER
from tests.web.services.test_capacity_page import CLUSTER

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


def _big_cluster(nodes: int) -> str:
    """`nodes` nodes of 1 cpu (past the request's bound of capacity_service.MAX_NODES) and a
    Deployment of one 1-cpu replica."""
    docs = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: n-{i:03d}}}\n"
            "status: {capacity: {cpu: '1', memory: 4Gi, pods: '110'}}\n" for i in range(nodes)]
    docs.append("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  replicas: 1\n"
                "  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n"
                "    spec:\n      containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]\n")
    return "---\n".join(docs)


def test_a_big_scenario_is_counted_by_the_worker_and_the_answer_replaces_counting(
    page: Page, live_url: str, celery_worker: object
) -> None:
    from playground.presenters.capacity import PER_NODE_ROWS
    from playground.services.capacity import MAX_NODES

    nodes = MAX_NODES + 10
    scenario = scenario_create(actor=OWNER, name="big", yaml_text=_big_cluster(nodes))
    shots = os.environ.get("CAPACITY_SHOTS")
    for width, height in ((390, 844), (1440, 900)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"/scenarios/{scenario.share_token}/capacity/")
        page.locator("#capacity-pod").select_option(label="Deployment default/api")
        page.locator("#capacity-max").fill(str(nodes))
        page.locator("#capacity-button").click()
        if width == 390:  # the first ask: the worker has not answered yet
            expect(page.locator("#capacity-pending")).to_contain_text("Counting…")
            if shots:
                page.screenshot(path=f"{shots}/capacity-big-pending-{width}.png", full_page=True)
        expect(page.locator("#capacity-count")).to_have_text(f"{nodes - 1} copies of default/api fit", timeout=120_000)
        expect(page.locator("#capacity-reason")).to_contain_text(f"0/{nodes} nodes are available: {nodes} Insufficient cpu")
        expect(page.locator("#capacity-pending")).to_have_count(0)
        # One copy on each node but the replica's: the table lists the first PER_NODE_ROWS of them.
        expect(page.locator("#capacity-per-node tbody tr")).to_have_count(PER_NODE_ROWS)
        expect(page.locator("#capacity-per-node-more")).to_contain_text(
            f"…and {nodes - 1 - PER_NODE_ROWS} more nodes ({nodes - 1} in all took copies")
        if shots:
            page.screenshot(path=f"{shots}/capacity-big-{width}.png", full_page=True)
