"""In real Chromium, against the real web server (DEBUG, as `./dev run` serves it) and worker:
every run-page form answers bad input in place. The error is shown next to the form, naming
the field and why; the run page and its controls stay. Before, a refused cluster action (HTTP
400) replaced the whole document with the bare error text (django-htmx's DEBUG script shows
any 400/403 response as a page), until a reload.

The browser's own checks (required, min, max) are switched off in the test, as a hand-made
request would bypass them: the server's answer is what is under test."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.ownership import Actor
from playground.services import scenarios as scenario_service

pytestmark = pytest.mark.live

SCENARIO = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
"""

# (form, {input name: value}, error span, what the error must say: the field, then why)
CLUSTER_CASES = [
    ("#form-add-pod", {"name": "extra", "cpu": "lots"}, "#form-add-pod-cpu-error", ("cpu", 'invalid quantity "lots"')),
    ("#form-delete-pod", {"pod": "default/ghost"}, "#form-delete-pod-pod-error", ("pod", "does not exist")),
    ("#form-fail-bind", {"pod": "default/ghost"}, "#form-fail-bind-pod-error", ("pod", "does not exist")),
    ("#form-add-node", {"name": "n1"}, "#form-add-node-name-error", ("name", 'node "n1" already exists')),
    ("#form-add-node", {"name": "n2", "cpu": "-3"}, "#form-add-node-cpu-error", ("cpu", "")),
    ("#form-node-op", {"node": "n9"}, "#form-node-op-node-error", ("node", 'node "n9" does not exist')),
    ("#form-taint", {"node": "n1", "key": "bad key!"}, "#form-taint-key-error", ("key", "")),
    ("#form-score-weight", {"weight": "500"}, "#form-score-weight-weight-error", ("weight", "between 1 and 100")),
]


def no_browser_checks(page: Page) -> None:
    page.evaluate("document.querySelectorAll('form').forEach(function (f) { f.noValidate = true; })")


def controls_still_there(page: Page) -> None:
    expect(page.locator("#run-page")).to_be_visible()
    expect(page.locator("#btn-step")).to_be_visible()
    expect(page.locator("#cluster-actions")).to_be_visible()
    expect(page.locator("#run-log")).to_be_attached()
    expect(page).to_have_title(re.compile(r"Run of"))


def test_every_run_page_form_answers_bad_input_in_place(page: Page, celery_worker: Any) -> None:
    page.set_default_timeout(30_000)
    scenario = scenario_service.scenario_create(actor=Actor(session_token="inline-author"), name="inline", yaml_text=SCENARIO)
    page.goto(f"/scenarios/{scenario.share_token}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    run_url = page.url
    expect(page.locator("#run-socket")).to_have_text("live")
    page.locator("#cluster-actions summary").click()
    no_browser_checks(page)

    for form, values, span, (field, why) in CLUSTER_CASES:
        for name, value in values.items():
            page.locator(f"{form} [name={name}]").fill(value)
        if form == "#form-taint":
            page.locator("#form-taint button[value=addTaint]").click()
        else:
            page.locator(f"{form} button[type=submit]").click()
        error = page.locator(span)
        expect(error).to_contain_text(f"{field}:")
        expect(error).to_contain_text(why)
        expect(page.locator("#run-flash")).to_have_class(re.compile("error"))
        controls_still_there(page)

    # The scale form answers with itself; replicas out of range.
    page.locator("#scale-replicas").fill("5000")
    page.locator("#scale-button").click()
    expect(page.locator("#scale-replicas-error")).to_contain_text("Replicas must be from 0 to 1000, not 5000")
    controls_still_there(page)

    # "Let the clock run": the seconds beside their input.
    page.locator("#clock-seconds").fill("0")
    page.locator("#btn-run-clock").click()
    expect(page.locator("#run-clock-seconds-error")).to_contain_text("seconds: '0' is out of range")
    controls_still_there(page)
    # A good value clears it.
    page.locator("#clock-seconds").fill("5")
    page.locator("#btn-run-clock").click()
    expect(page.locator("#run-clock-seconds-error")).to_be_empty()

    # The speed menu, sent a value it does not offer (a hand-made request).
    page.evaluate("(function () { var o = document.createElement('option'); o.value = '7'; o.textContent = '7';"
                  " document.getElementById('speed').appendChild(o); })()")
    page.locator("#speed").select_option("7")
    expect(page.locator("#speed-error")).to_contain_text("speed: '7' is not one of the speeds")
    controls_still_there(page)

    # Jump to a cycle that cannot be: the live page, the error beside the jump form (was a 404).
    page.locator("#jump-cycle").fill("-1")
    page.locator("#jump-button").click()
    expect(page.locator("#jump-cycle-error")).to_contain_text("cycle: '-1' is not a whole number from 0")
    controls_still_there(page)
    expect(page.locator("#run-socket")).to_have_text("live")

    shots = os.environ.get("INLINE_ERROR_SCREENSHOTS")  # where to put the screenshots, when asked
    if shots:
        page.goto(run_url)
        page.locator("#cluster-actions summary").click()
        page.locator("#form-add-pod [name=name]").fill("extra")
        page.locator("#form-add-pod [name=cpu]").fill("lots")
        page.locator("#form-add-pod button[type=submit]").click()
        expect(page.locator("#form-add-pod-cpu-error")).to_contain_text("cpu:")
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.locator("#cluster-actions").scroll_into_view_if_needed()
            page.screenshot(path=os.path.join(shots, f"inline-error-{width}.png"))
