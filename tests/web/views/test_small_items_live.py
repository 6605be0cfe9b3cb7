"""Small things a learner meets in Chromium: the scenario editor logs no console error while
objects are added and deleted; "Jump to cycle" follows the run instead of keeping the cycle the
page was loaded at; the status line never shows an internal action number ("#16")."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.browser.test_editor_browser import add_node, create_scenario
from tests.web.services.runs.test_runs_live import start_run

pytestmark = pytest.mark.live


def test_the_scenario_editor_logs_no_console_error(page: Page) -> None:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    create_scenario(page, "quiet editor")
    add_node(page, "n1")
    expect(page.locator("#node-list")).to_contain_text("n1")
    add_node(page, "n2")
    expect(page.locator("#node-list")).to_contain_text("n2")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#node-list form.inline button").first.click()
    expect(page.locator("#node-list")).not_to_contain_text("n1")
    page.reload()
    expect(page.locator("#node-list")).to_contain_text("n2")
    assert errors == []


def test_jump_to_cycle_follows_the_run_and_no_action_number_shows(page: Page, celery_worker: Any) -> None:
    start_run(page, "resource-fit")
    expect(page.locator("#jump-cycle")).to_have_value("0")
    for cycle in ("1", "2"):
        page.locator("#btn-step").click()
        expect(page.locator("#run-cycle")).to_have_text(cycle)
        expect(page.locator("#jump-cycle")).to_have_value(cycle)
        expect(page.locator("#run-flash")).to_contain_text(re.compile(r"Done: step|Queued: step"))
        assert not re.search(r"#\d", page.locator("#run-flash").inner_text())
    page.locator("#jump-cycle").fill("1")  # typed by the learner: a live update does not overwrite it
    page.locator("#btn-step").click()
    expect(page.locator("#run-cycle")).to_have_text("3")
    expect(page.locator("#jump-cycle")).to_have_value("1")
    page.locator("#jump-button").click()
    expect(page).to_have_url(re.compile(r"\?cycle=1$"))
    expect(page.locator("#jump-cycle")).to_have_value("1")


# Every element the page cuts with an ellipsis, and whether its full text is on hover (its own
# title, or the nearest titled ancestor's, starts with the text's first word: a plugin's name).
CUT_NAMES = """() => {
  const cut = [];
  for (const el of document.querySelectorAll("body *")) {
    if (!el.offsetParent || getComputedStyle(el).textOverflow !== "ellipsis") continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const name = el.textContent.trim().split(/\\s+/)[0];
    const titled = el.title ? el : el.closest("[title]");
    cut.push({name: name, hover: Boolean(titled && titled.title.startsWith(name))});
  }
  return cut;
}"""


def test_every_name_cut_with_an_ellipsis_has_its_full_name_on_hover(
    browser: Browser, live_url: str, celery_worker: Any, transactional_db: None
) -> None:
    context = browser.new_context(base_url=live_url, viewport={"width": 390, "height": 844})
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        start_run(page, "resource-fit")
        page.locator("#btn-step").click()
        expect(page.locator("#run-step")).to_have_text("1")
        cut = page.evaluate(CUT_NAMES)
        assert any(c["name"] == "NodeResourcesBalancedAllocation" for c in cut)  # the phone cuts it
        assert [c["name"] for c in cut if not c["hover"]] == []
    finally:
        context.close()
