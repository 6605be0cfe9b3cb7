"""The version selector, the compare page and scaling a Deployment, end to end: real Chromium,
the web server, a Celery worker and Redis."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.models import Run
from playground.ownership import Actor
from playground.services import gallery
from playground.services import scenarios as scenario_service

pytestmark = pytest.mark.live

WORKLOADS = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: lonely}
spec: {containers: [{name: c, image: nginx}]}
"""


def test_a_v130_run_and_the_compare_view(page: Page, celery_worker: Any) -> None:
    gallery.seed()
    page.goto("/gallery/taints-tolerations/")
    page.locator("#start-version").select_option("v1.30")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    expect(page.locator("#run-version")).to_have_text("v1.30")
    page.locator("#btn-play").click()
    expect(page.locator("#run-state")).to_have_text("settled")
    # v1.30's wording names the taint; v1.35 would say "untolerated taint(s)".
    expect(page.locator('#pod-table tr[data-pod="default/bigger-web"] .why')).to_contain_text(
        "untolerated taint {nvidia.com/gpu: }"
    )
    assert Run.objects.get().kubernetes_version == "v1.30"

    page.locator("#run-compare-link").click()
    expect(page).to_have_url(re.compile(r"/compare/\?seed=\d+$"))
    row = page.locator('#compare-table tr[data-pod="default/bigger-web"][data-aspect="message"]')
    expect(row).to_contain_text("untolerated taint(s)")
    expect(row).to_contain_text("untolerated taint {nvidia.com/gpu: }")
    expect(page.locator('#compare-table li[data-gate="taint_toleration_single_reason"]')).to_contain_text(
        "taint wording"
    )
    # Another seed through the form (htmx swaps the result in, the address follows).
    page.locator("#compare-seed").fill("7")
    page.locator("#compare-button").click()
    expect(page.locator("#compare-count")).to_contain_text("(seed 7)")
    expect(page).to_have_url(re.compile(r"seed=7"))


def test_scaling_a_deployment_adds_its_pods_to_its_group(page: Page, celery_worker: Any) -> None:
    scenario = scenario_service.scenario_create(
        actor=Actor(session_token="scale-author"), name="workloads", yaml_text=WORKLOADS
    )
    page.goto(f"/scenarios/{scenario.share_token}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    group = page.locator('#pod-table tr.owner-group[data-owner="Deployment/shop/web"]')
    expect(group).to_contain_text("2 pods")
    expect(page.locator('#pod-table tr[data-pod^="shop/web-"]')).to_have_count(2)

    page.locator("#cluster-actions summary").click()
    page.locator("#scale-deployment").select_option("shop/web")
    page.locator("#scale-replicas").fill("5")
    page.locator("#scale-button").click()
    # The answer says it was queued; the worker's push may already say it is done.
    expect(page.locator("#run-flash")).to_have_text(re.compile(r"Queued: scale shop/web to 5|Done: cluster action"))
    expect(page.locator('#pod-table tr[data-pod^="shop/web-"]')).to_have_count(5)
    expect(group).to_contain_text("5 pods")
    page.locator("#btn-play").click()
    expect(page.locator("#run-state")).to_have_text("settled")
    expect(page.locator('#pod-table tr.status-Bound[data-pod^="shop/web-"]')).to_have_count(5)
    expect(page.locator('#pod-table tr.owner-group[data-owner="bare"]')).to_contain_text("Pods without an owner")
