"""The pages work under the Content-Security-Policy in real Chromium, and nothing is blocked:
keyboard shortcuts, buttons, the run's websocket, the diagnostics ping."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.services import gallery

pytestmark = pytest.mark.live

WATCH_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push(
  e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sample || '')));
"""


def test_run_page_and_diagnostics_work_under_the_policy(page: Page, celery_worker: Any) -> None:
    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text))
    page.add_init_script(WATCH_VIOLATIONS)
    gallery.seed()
    response = page.goto("/gallery/priority-preemption/")
    assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")  # the websocket (connect-src 'self')
    page.keyboard.press("s")  # a shortcut: no eval needed any more
    expect(page.locator("#run-step")).to_have_text("1")
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("2")
    page.keyboard.press("p")
    expect(page.locator("#run-state")).to_have_text("settled")
    page.goto("/diagnostics/")
    page.locator("#send-ping").click()
    expect(page.locator("body")).to_contain_text("pong from", timeout=20_000)
    assert page.evaluate("window.__cspViolations") == []
    assert not [m for m in console if "Content Security Policy" in m], console


KEEP_SOCKETS = """
window.__sockets = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = function (...args) {
  const socket = new NativeWebSocket(...args);
  window.__sockets.push(socket);
  return socket;
};
window.WebSocket.prototype = NativeWebSocket.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""


def test_new_page_behaviours_work_without_eval(page: Page, celery_worker: Any) -> None:
    """Home, the scenario page and a run page with the heatmap, the timeline scrubber and the
    status badge (all of them hx-on / js: attributes once, which need eval): 0 violations."""
    from playground.ownership import Actor
    from playground.services.scenarios import scenario_create
    from tests.web.scale import big_cluster_yaml

    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text))
    page.add_init_script(WATCH_VIOLATIONS)
    page.add_init_script(KEEP_SOCKETS)
    page.goto("/")
    expect(page.locator("body")).to_contain_text("Scheduler playground")
    scenario = scenario_create(actor=Actor(session_token="csp"), name="60 nodes", yaml_text=big_cluster_yaml(60, 6))
    page.goto(f"/scenarios/{scenario.share_token}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    for step in ("1", "2", "3"):
        page.keyboard.press("s")
        expect(page.locator("#run-step")).to_have_text(step)

    # The heatmap: a click on a cell opens that node (the listener names it in the request).
    page.locator('.heatmap i[title="node-00005"]').click()
    expect(page.locator("#node-detail-card")).to_contain_text("node-00005")

    # The status badge: the page's socket closes, the badge says so at once.
    page.evaluate("window.__sockets.filter(s => s.readyState === 1).forEach(s => s.close())")
    expect(page.locator("#run-socket")).to_contain_text("disconnected")

    # The timeline scrubber: dragging shows the step, letting go opens it read-only.
    page.locator("#scrub").fill("2")
    expect(page.locator("#scrub-out")).to_have_text("2")
    page.locator("#scrub").dispatch_event("change")
    expect(page).to_have_url(re.compile(r"\?step=2$"))
    expect(page.locator("#pinned-notice")).to_contain_text("step 2")
    assert page.evaluate("window.__cspViolations") == []
    assert not [m for m in console if "Content Security Policy" in m or "eval" in m.lower()], console
