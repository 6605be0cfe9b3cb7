"""A challenge built in the UI works through its share link, in real Chromium: the author writes
it on the builder page (a goal naming a pod the scenario lacks is refused in place), shares the
link the builder shows, a learner (another browser) opens it on the join form, joins and lands on
their own copy, runs, and the run page says not solved; after the learner's fix, solved, and the
teacher's live table links the learner's latest run."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.browser.test_editor_browser import create_scenario, upload

pytestmark = pytest.mark.live

CLUSTER = """apiVersion: v1
kind: Node
metadata: {name: a}
status: {capacity: {cpu: '8', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: b}
status: {capacity: {cpu: '8', memory: 8Gi, pods: '110'}}
---
""" + "---\n".join(
    f"apiVersion: v1\nkind: Pod\nmetadata: {{name: web-{i}}}\nspec:\n  containers: [{{name: c, resources: {{requests: {{cpu: '1'}}}}}}]\n"
    for i in (1, 2, 3))


def _run_to_the_end(page: Page) -> None:
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    expect(page.locator("#challenge-verdict")).to_contain_text("Not yet")
    page.locator("#btn-play").click()
    expect(page.locator("#challenge-verdict")).not_to_contain_text("Not yet", timeout=30_000)


def test_a_challenge_built_in_the_ui_works_through_its_share_link(
    page: Page, browser: Browser, live_url: str, celery_worker: Any
) -> None:
    page.set_default_timeout(30_000)
    create_scenario(page, "Keep a empty")
    upload(page, "cluster.yaml", CLUSTER)
    expect(page.locator("#pod-count")).to_have_text("3")
    page.locator("#challenge-link").click()
    page.fill("#challenge-title", "keep node a empty")
    page.fill("#challenge-task-input", "Run every web pod on b; keep a empty.")
    page.fill("#challenge-goals-input", "- nodeEmpty: a\n- allBound: tru\n")
    page.locator("#challenge-save").click()
    expect(page.locator("#challenge-error")).to_contain_text("goals[1].allBound: expected true")
    page.fill("#challenge-goals-input", "- nodeEmpty: a\n- podOn: {pod: web-9, node: b}\n")
    page.locator("#challenge-save").click()
    expect(page.locator("#challenge-problems")).to_contain_text(
        'goals[1].podOn.pod: no pod "web-9" in this scenario (it has web-1, web-2, web-3)')
    expect(page.locator("#challenge-share-link")).to_have_count(0)  # nothing saved, nothing to share
    page.fill("#challenge-goals-input", "- nodeEmpty: a\n- allBound: true\n")
    page.fill("#challenge-hints-input", "A taint keeps pods off a node.")
    page.locator("#challenge-save").click()
    expect(page.locator("#challenge-message")).to_contain_text("Challenge saved")
    share = page.locator("#challenge-share-link").input_value()
    assert share.endswith("/challenge/")

    # The teacher keeps the results page open: it is pushed over its websocket, never reloaded.
    page.locator("#challenge-results-link").click()
    expect(page.locator("#results-table")).to_contain_text("Nobody has joined yet.")
    page.evaluate("window.__notReloaded = true")

    learner_context = browser.new_context(base_url=live_url)
    learner = learner_context.new_page()
    learner.set_default_timeout(30_000)
    learner.goto(share)
    expect(learner.locator("#challenge-task")).to_have_text("Run every web pod on b; keep a empty.")
    learner.fill("#nickname", "Ada")
    learner.locator("#nickname-save").click()
    expect(page.locator("#results-table")).to_contain_text("Ada")
    # Joining forked the scenario: the learner is on their own, editable copy.
    expect(learner.locator("#editor-messages")).to_contain_text("This copy is yours")
    expect(learner.locator("#scenario-name")).to_contain_text("Keep a empty")
    expect(learner.locator("#readonly-notice")).to_have_count(0)
    fork_url = learner.url
    assert "/challenge/" not in fork_url and learner.locator("#share-link").input_value() != share
    _run_to_the_end(learner)
    expect(learner.locator("#challenge-verdict")).to_contain_text("Not solved")
    expect(learner.locator("#challenge-goals")).to_contain_text("node a runs default/web-")
    learner.locator("#run-challenge details.hints summary").click()
    expect(learner.locator("#run-challenge .hints")).to_contain_text("A taint keeps pods off a node.")

    # The learner's fix, in their fork: taint node a, run again.
    learner.goto(fork_url)
    text = CLUSTER.replace("metadata: {name: a}\n", "metadata: {name: a}\nspec:\n  taints: [{key: maintenance, effect: NoSchedule}]\n", 1)
    challenge = ("---\napiVersion: playground.kube-scheduler.dev/v1\nkind: Challenge\nmetadata: {name: challenge}\n"
                 "task: x\ngoals: [{nodeEmpty: a}, {allBound: true}]\n")
    upload(learner, "fixed.yaml", text + challenge)
    _run_to_the_end(learner)
    expect(learner.locator("#challenge-verdict")).to_contain_text("Solved")
    expect(page.locator("#results-summary")).to_contain_text("1 of 1 learner solved it.")
    expect(page.locator("#results-table tr.solved td").first).to_have_text("Ada")
    assert page.evaluate("window.__notReloaded") is True
    # The teacher opens the learner's latest run (the solved one) from the table.
    expect(page.locator("#results-table a.latest-run")).to_have_text("run #2")
    latest_run = learner.url
    page.locator("#results-table a.latest-run").click()
    expect(page).to_have_url(latest_run)
    expect(page.locator("#challenge-verdict")).to_contain_text("Solved")
    learner_context.close()
