"""The cluster map in Chromium, on gallery lessons: each Step changes the picture as the engine
decided. A bind carries the pod's chip from its queue into its node's box, a nomination puts a
ghost chip on the nominated node, a preemption's victims and an evicted pod leave their node;
the swap runs inside a View Transition unless the viewer asks for reduced motion."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from playground.models import Scenario
from playground.services import gallery

pytestmark = pytest.mark.live
WAIT = 60_000  # ms: a worker shared with other tests on two cores may take seconds per step

# Counts the View Transitions the page starts (the browser's own function still runs).
COUNT_TRANSITIONS = """
window.__transitions = 0;
if (document.startViewTransition) {
  const original = document.startViewTransition.bind(document);
  document.startViewTransition = function (callback) { window.__transitions += 1; return original(callback); };
}
"""

# What the map shows: the pods in each queue's row, on each node (bound, ghost, leaving).
MAP_STATE = """() => {
  const pairs = (selector, attribute) => Array.from(document.querySelectorAll('#run-map [data-node] ' + selector))
    .map(chip => [chip.getAttribute(attribute), chip.closest('[data-node]').getAttribute('data-node')]);
  return {
    queued: Array.from(document.querySelectorAll('#run-map [data-queue] [data-pod]')).map(c => c.getAttribute('data-pod')),
    bound: Object.fromEntries(pairs('[data-pod]', 'data-pod')),
    ghosts: Object.fromEntries(pairs('[data-ghost]', 'data-ghost')),
    left: Object.fromEntries(pairs('[data-left]', 'data-left')),
  };
}"""


def _start(page: Page, slug: str) -> list[str]:
    """Open a run of gallery lesson `slug`; the page's errors (a duplicate transition name
    aborts a transition with one) are collected in the list returned."""
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    gallery.seed()
    token = Scenario.objects.get(gallery_slug=slug).share_token
    page.goto(f"/scenarios/{token}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live", timeout=WAIT)
    expect(page.locator("#run-map [data-node]").first).to_be_visible()
    return errors


def _step_until(page: Page, found: Callable[[dict[str, Any], dict[str, Any]], Any], limit: int = 30) -> Any:
    """Step the run until `found(before, after)` (the map's state around one Step) is truthy."""
    for _ in range(limit):
        before = page.evaluate(MAP_STATE)
        step = int(page.locator("#run-step").inner_text())
        page.locator("#btn-step").click()
        expect(page.locator("#run-step")).to_have_text(str(step + 1), timeout=WAIT)
        expect(page.locator("#run-map-title")).to_have_attribute("data-step", str(step + 1), timeout=WAIT)
        result = found(before, page.evaluate(MAP_STATE))
        if result:
            return result
    raise AssertionError(f"not seen in {limit} steps")


def _bound(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, str] | None:
    return next(((p, after["bound"][p]) for p in before["queued"] if p in after["bound"]), None)


def _left(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, str] | None:
    return next(((p, n) for p, n in before["bound"].items() if p not in after["bound"]), None)


def test_a_bind_moves_the_chip_from_its_queue_into_its_node(page: Page, live_url: str, celery_worker: Any) -> None:
    page.add_init_script(COUNT_TRANSITIONS)
    errors = _start(page, "resource-fit")
    pod, node = _step_until(page, _bound)
    expect(page.locator(f'#run-map [data-node="{node}"] [data-pod="{pod}"]')).to_be_visible()
    expect(page.locator(f'#run-map [data-queue] [data-pod="{pod}"]')).to_have_count(0)
    assert errors == []
    assert page.evaluate("window.__transitions") > 0  # the swap ran inside a View Transition
    name = page.locator(f'#run-map [data-pod="{pod}"]').evaluate("c => getComputedStyle(c).viewTransitionName")
    assert name.startswith("p")
    # A click on the node's box opens its card in the Cluster panel; the box is reachable by keyboard.
    box = page.locator(f'#run-map [data-node="{node}"]')
    assert box.get_attribute("tabindex") == "0" and node in (box.get_attribute("aria-label") or "")
    box.locator(".mbars").click()
    expect(page).to_have_url(re.compile(rf"#node-{re.escape(node)}$"))


def test_a_preemption_nominates_then_its_victims_leave(page: Page, live_url: str, celery_worker: Any) -> None:
    errors = _start(page, "priority-preemption")
    pod, node, before, after = _step_until(
        page, lambda b, a: next(((p, n, b, a) for p, n in a["ghosts"].items() if p not in b["ghosts"]), None)
    )
    expect(page.locator(f'#run-map [data-node="{node}"] [data-ghost="{pod}"]')).to_be_visible()
    expect(page.locator(f'#run-map [data-queue] [data-pod="{pod}"]')).to_have_count(1)
    # The victims are marked on the step that chose them: still there (deleting), or fading out.
    marked = page.locator(f'#run-map [data-node="{node}"] .mchip.victim, #run-map [data-node="{node}"] [data-left]')
    expect(marked.first).to_be_visible()
    gone = [p for p, n in before["bound"].items() if n == node and p not in after["bound"]]
    victim = gone[0] if gone else _step_until(page, _left)[0]
    expect(page.locator(f'#run-map [data-node="{node}"] [data-pod="{victim}"]')).to_have_count(0)
    _step_until(page, lambda b, a: a["bound"].get(pod) == node)
    expect(page.locator(f'#run-map [data-node="{node}"] [data-pod="{pod}"]')).to_be_visible()
    expect(page.locator(f'#run-map [data-ghost="{pod}"]')).to_have_count(0)
    assert errors == []


def test_an_eviction_takes_the_chip_off_its_node(page: Page, live_url: str, celery_worker: Any) -> None:
    _start(page, "noexecute-eviction")
    pod, node = _step_until(page, _left)
    expect(page.locator(f'#run-map [data-node="{node}"] [data-pod="{pod}"]')).to_have_count(0)
    expect(page.locator(f'#run-map [data-node="{node}"] [data-left="{pod}"]')).to_be_visible()  # fading
    _step_until(page, lambda b, a: pod not in a["left"])  # and then gone
    expect(page.locator(f'#run-map [data-left="{pod}"]')).to_have_count(0)


def test_reduced_motion_swaps_without_a_transition(browser: Browser, live_url: str, celery_worker: Any,
                                                   transactional_db: None) -> None:
    context = browser.new_context(base_url=live_url, reduced_motion="reduce")
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        page.add_init_script(COUNT_TRANSITIONS)
        _start(page, "resource-fit")
        pod, node = _step_until(page, _bound)
        expect(page.locator(f'#run-map [data-node="{node}"] [data-pod="{pod}"]')).to_be_visible()
        assert page.evaluate("window.__transitions") == 0
    finally:
        context.close()


def _start_big(page: Page, nodes: int, pods: int) -> dict[str, list[Any]]:
    """Open a run of a generated cluster of `nodes` nodes (tests/web/scale.py) and `pods` pending
    pods; what the page then fetches of the map over HTTP, its websocket messages' sizes and its
    errors are collected in the lists returned."""
    from playground.ownership import Actor
    from playground.services.scenarios import scenario_create
    from tests.web.scale import big_cluster_yaml

    seen: dict[str, list[Any]] = {"fetches": [], "frames": [], "errors": []}
    page.on("console", lambda msg: seen["errors"].append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: seen["errors"].append(str(exc)))
    page.on("request", lambda request: seen["fetches"].append(request.url) if "/map/" in request.url else None)
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda payload: seen["frames"].append(len(payload.encode() if isinstance(payload, str) else payload))))
    scenario = scenario_create(actor=Actor(session_token="map-author"), name=f"{nodes} nodes",
                               yaml_text=big_cluster_yaml(nodes, pods))
    page.goto(f"/scenarios/{scenario.share_token}/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live", timeout=WAIT)
    expect(page.locator("#run-map [data-node]")).to_have_count(nodes, timeout=WAIT)
    return seen


def test_a_mid_size_map_moves_like_the_small_one(page: Page, live_url: str, celery_worker: Any) -> None:
    """60 nodes: each Step's change comes over the websocket and is swapped in inside a View
    Transition (the chip moves from its queue into its node), not fetched over HTTP."""
    page.add_init_script(COUNT_TRANSITIONS)
    seen = _start_big(page, 60, 8)
    fetched = len(seen["fetches"])
    pod, node = _step_until(page, _bound)
    pod, node = _step_until(page, _bound)  # a second step: the first delta was applied in place
    expect(page.locator(f'#run-map [data-node="{node}"] [data-pod="{pod}"]')).to_be_visible()
    expect(page.locator(f'#run-map [data-queue] [data-pod="{pod}"]')).to_have_count(0)
    assert len(seen["fetches"]) == fetched, seen["fetches"]
    assert page.evaluate("window.__transitions") >= 2
    assert seen["errors"] == []


def test_a_600_node_map_shows_every_node_and_follows_each_step(page: Page, live_url: str, celery_worker: Any) -> None:
    """600 nodes: every node is a compact cell (data-node) with its bound pods' chips inside; a
    Step's change comes as the changed cells only; a click on a cell opens the node's details."""
    page.add_init_script(COUNT_TRANSITIONS)
    seen = _start_big(page, 600, 12)
    fetched = len(seen["fetches"])
    first = len(seen["frames"])
    for _ in range(2):
        pod, node = _step_until(page, _bound)
    expect(page.locator(f'#run-map .mcells [data-node="{node}"] [data-pod="{pod}"]')).to_have_count(1)
    state = page.evaluate(MAP_STATE)
    assert len(state["bound"]) == 2 and all(n for n in state["bound"].values())
    assert len(seen["fetches"]) == fetched, seen["fetches"]
    assert max(seen["frames"][first:]) < 40_000, seen["frames"]
    page.locator(f'#run-map .mcells [data-node="{node}"]').click()
    expect(page.locator("#node-detail-card")).to_contain_text(node)
    page.locator('#run-map .mcells [data-node="node-00002"]').hover()
    expect(page.locator('#run-map .mcells [data-node="node-00002"]')).to_have_attribute("title", re.compile(r"^node-00002 · 0 pods · cpu ~0%"))
    # A zone opened node by node stays open across a Step: its page is fetched again, not patched.
    page.locator('#run-map .mgroup[data-zone="/zone-1"] button').click()
    expect(page.locator("#run-map .map-crumb")).to_contain_text("zone zone-1")
    step = int(page.locator("#run-step").inner_text())
    page.locator("#btn-step").click()
    expect(page.locator("#run-map-title")).to_have_attribute("data-step", str(step + 1), timeout=WAIT)
    expect(page.locator("#run-map .map-crumb")).to_contain_text("zone zone-1")
    expect(page.locator("#run-map .mnode[data-node]")).to_have_count(24)
    assert seen["errors"] == []
