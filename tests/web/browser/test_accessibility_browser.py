"""Accessibility in real Chromium: axe-core (the axe-playwright-python package, which ships
axe-core's script: nothing is fetched at run time) finds no serious or critical violation on the
home, gallery, scenario, run (a lesson's and a plain one) and run-metrics pages, and the run
page's controls are all reachable with the Tab key, each showing where the focus is."""

from __future__ import annotations

import re
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from playground.services import gallery
from playground.services.scenarios import scenario_create
from tests.web.services.runs.test_runs_services import OWNER
from tests.web.services.test_capacity_page import CLUSTER

pytestmark = pytest.mark.live

BLOCKING = ("serious", "critical")
AXE = Axe()


def serious_violations(page: Page) -> list[str]:
    """One line per serious or critical axe-core violation on the page as it is now: the rule,
    its impact, what it means and the first few elements it found (their selectors and HTML)."""
    results = AXE.run(page)
    lines = []
    for v in results.response["violations"]:
        if v.get("impact") not in BLOCKING:
            continue
        nodes = "; ".join(f"{n['target']} {n['html'][:120]} ({_why(n)})" for n in v["nodes"][:12])
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} elements): {v['help']} -> {nodes}")
    return lines


def _why(node: dict[str, Any]) -> str:
    """axe-core's own sentence for the first check that failed on the element (colours and ratio
    for contrast, the missing name for a control)."""
    for group in ("any", "all", "none"):
        for c in node.get(group) or []:
            if c.get("message"):
                return str(c["message"])[:200]
    return ""


def check(page: Page, what: str, found: dict[str, list[str]]) -> None:
    """axe-core on the page once its entrance animations have ended (a chip fading in is
    briefly pale by design; what stays on screen is what must read)."""
    for _ in range(20):  # a late websocket update may swap a panel in, and its chips animate again
        page.evaluate(ANIMATIONS_DONE)
        page.wait_for_timeout(200)
        if page.evaluate("document.getAnimations().length") == 0:
            break
    found[what] = serious_violations(page)


def report(found: dict[str, list[str]]) -> str:
    return "\n".join(f"[{what}] {line}" for what, lines in found.items() for line in lines)


def start_run(page: Page) -> str:
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    return page.url.rstrip("/").rsplit("/", 1)[1]


@pytest.mark.parametrize("width", [1440, 390])
def test_axe_finds_nothing_serious_on_the_five_page_kinds(page: Page, celery_worker: Any, width: int) -> None:
    gallery.seed()
    page.set_viewport_size({"width": width, "height": 900})
    found: dict[str, list[str]] = {}
    page.goto("/")
    check(page, "home", found)
    page.goto("/gallery/")
    check(page, "gallery", found)

    # A lesson, and its run page once a few steps have been taken (the lesson's panels showing).
    page.goto("/gallery/priority-preemption/")
    check(page, "lesson scenario", found)
    start_run(page)
    for n in range(1, 4):
        page.locator("#btn-step").click()
        expect(page.locator("#run-step")).to_have_text(str(n))
    check(page, "lesson run", found)

    # A plain scenario, its run played to the end, and that run's metrics.
    scenario = scenario_create(actor=OWNER, name="three nodes", yaml_text=CLUSTER)
    page.goto(f"/scenarios/{scenario.share_token}/")
    check(page, "scenario", found)
    start_run(page)
    page.keyboard.press("p")
    expect(page.locator("#run-state")).to_have_text("settled")
    check(page, "run", found)
    page.locator("#run-metrics-link").click()
    expect(page.locator("h1")).to_contain_text("Metrics of the run")
    check(page, "run metrics", found)
    assert not any(found.values()), "axe-core found serious or critical violations:\n" + report(found)


def test_every_control_of_the_run_page_is_reachable_by_tab_with_a_visible_focus(
        page: Page, celery_worker: Any) -> None:
    gallery.seed()
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto("/gallery/priority-preemption/")
    start_run(page)
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).not_to_have_text("0")
    # The run page's visible, enabled controls, as the browser sees them.
    controls = page.evaluate(TABBABLE_CONTROLS)
    assert len(controls) > 10, controls
    page.locator("body").focus()
    page.evaluate("document.activeElement && document.activeElement.blur()")
    reached: set[str] = set()
    unmarked: list[str] = []
    for _ in range(len(controls) * 3 + 50):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None:
            continue
        if focused["key"] in reached:
            if set(controls) <= reached:
                break
            continue
        reached.add(focused["key"])
        if not focused["marked"]:
            unmarked.append(focused["key"])
    missing = [c for c in controls if c not in reached]
    assert not missing, f"not reachable with Tab: {missing}"
    assert not unmarked, f"focused without a visible focus indicator: {unmarked}"


ANIMATIONS_DONE = """() => Promise.all(document.getAnimations()
  .filter(a => Number.isFinite(a.effect && a.effect.getComputedTiming().endTime))
  .map(a => a.finished.catch(() => null)))"""

# Every visible, enabled link, button and form field (not inside a closed <details>, not
# tabindex=-1), keyed the same way FOCUSED keys the element that has the focus; a group of radio
# buttons is one key (Tab reaches the group, the arrow keys move inside it).
KEY_JS = """(el) => {
  const path = [];
  for (let e = el; e && e !== document.body; e = e.parentElement) {
    const i = e.parentElement ? Array.prototype.indexOf.call(e.parentElement.children, e) : 0;
    path.unshift(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ':' + i);
  }
  if (el.type === 'radio' && el.name) return 'radio group ' + (el.form ? el.form.id : '') + '/' + el.name;
  return path.join('>') + ' "' + (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 30) + '"';
}"""

TABBABLE_CONTROLS = f"""() => {{
  const key = {KEY_JS};
  const all = document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]');
  return Array.from(all).filter((el) => {{
    if (el.disabled || el.getAttribute('tabindex') === '-1' || el.type === 'hidden') return false;
    if (el.closest('details:not([open])') && el.tagName !== 'SUMMARY') return false;
    if (el.tagName === 'SUMMARY' && el.parentElement.closest('details:not([open])')) return false;
    if (el.closest('[inert], [hidden]')) return false;
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  }}).map(key).filter((k, i, all) => all.indexOf(k) === i);
}}"""

# The focused element, and whether something shows it: an outline, a box shadow or a border
# that differs from the same element without the focus.
FOCUSED = f"""() => {{
  const key = {KEY_JS};
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const s = getComputedStyle(el);
  const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
  const shadow = s.boxShadow && s.boxShadow !== 'none';
  return {{key: key(el), marked: outline || shadow}};
}}"""
