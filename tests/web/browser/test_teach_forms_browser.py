"""In real Chromium: the run page's "Fail the bind of pod" form (Unreserve and ForgetPod in the
cycle view, the pod's cache state) and the node form's kubelet choice (Ready=False becomes the
node lifecycle controller's not-ready taints on the node card), pushed live to the page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.browser.test_editor_browser import create_scenario, upload

pytestmark = pytest.mark.live

CLUSTER = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, resources: {requests: {cpu: '1'}}}]
"""


def test_fail_bind_and_node_not_ready_from_the_run_page(page: Page, celery_worker: Any) -> None:
    page.set_default_timeout(30_000)
    create_scenario(page, "Teach forms")
    upload(page, "cluster.yaml", CLUSTER)
    expect(page.locator("#pod-count")).to_have_text("1")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")

    page.locator("#cluster-actions summary").click()
    page.fill("#form-fail-bind input[name=pod]", "default/web")
    page.locator("#form-fail-bind button[type=submit]").click()
    # "Queued", or already "Done" when the worker was quicker than this check (the live update replaces it)
    expect(page.locator("#run-flash")).to_contain_text(re.compile(r"Queued|Done: cluster action"))
    page.locator("#btn-step").click()
    inspector = page.locator("#run-inspector")
    expect(inspector).to_contain_text('running Bind plugin "DefaultBinder"')
    expect(inspector).to_contain_text("ForgetPod: the scheduler cache drops default/web's assumption on n1")
    expect(inspector).to_contain_text("Snapshot generation 1")
    expect(page.locator("#pod-table")).to_contain_text("cache: forgotten")

    page.fill("#form-node-op input[name=node]", "n1")
    page.select_option("#form-node-op select[name=op]", "readyFalse")
    page.locator("#form-node-op button[type=submit]").click()
    card = page.locator("#node-n1")
    expect(card).to_contain_text("Ready=False")
    expect(card).to_contain_text("node.kubernetes.io/not-ready:NoSchedule")
