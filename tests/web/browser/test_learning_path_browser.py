"""The learning path in real Chromium: the gallery's search and chapter filter swapped in by
htmx (each filtered list keeps an address), a lesson opened from its card telling what it
teaches and hiding what happens, a prediction locked in then revealed, and the home page
suggesting the lesson in progress."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.services import gallery

pytestmark = pytest.mark.live


def test_search_filter_open_predict_reveal_and_continue(page: Page, celery_worker: Any) -> None:
    gallery.seed()
    page.goto("/gallery/")
    expect(page.locator("section.chapter")).to_have_count(9)
    page.locator("#lesson-q").fill("volume")  # htmx, as one types: the results alone are swapped
    expect(page).to_have_url(re.compile(r"/gallery/\?q=volume"))
    expect(page.locator("#lesson-count")).to_contain_text("lessons match")
    slugs = page.locator(".lesson-card").evaluate_all("cards => cards.map(c => c.dataset.lesson)")
    assert slugs and "zone-bound-volume" in slugs and "resource-fit" not in slugs, slugs
    page.locator("#lesson-q").fill("")
    page.locator("#lesson-chapter").select_option("filters-scores")
    expect(page).to_have_url(re.compile(r"chapter=filters-scores"))
    expect(page.locator("section.chapter")).to_have_count(1)
    expect(page.locator("#chapter-filters-scores-title")).to_contain_text("Filters and scores")

    page.locator('.lesson-card[data-lesson="resource-fit"] h3 a').click()
    expect(page.locator("#scenario-teaches")).to_contain_text("This lesson teaches")
    expect(page.locator("#scenario-explanation")).not_to_have_attribute("open", "")
    explanation = page.locator("#scenario-explanation").inner_text()
    assert "NodeResourcesFit" not in explanation  # closed: only its summary is shown

    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    expect(page.locator("#lesson-score")).to_contain_text("none of 4 questions answered yet")
    expect(page.locator("#lesson-reveal")).to_have_count(0)
    page.locator(".lesson-steps summary").click()
    expect(page.locator(".lesson-steps")).to_contain_text("not reached yet")
    assert "large wins" not in page.locator("#run-lesson").inner_text()

    page.locator('#predict-form input[value="large"]').check()
    page.locator("#predict-submit").click()
    expect(page.locator("#predict-locked")).to_contain_text("large")
    page.locator("#btn-step").click()
    expect(page.locator("#run-step")).to_have_text("1")
    expect(page.locator("#lesson-reveal")).to_contain_text("You predicted large: right ✓")
    expect(page.locator("#lesson-score")).to_contain_text("1 of 4 answered · 1 right")

    page.goto("/")
    expect(page.locator("#next-up-title")).to_have_text("Continue")
    expect(page.locator("#next-lesson")).to_have_attribute("data-lesson", "resource-fit")
    card = page.locator('#learning-path [data-lesson="resource-fit"]')
    expect(card).to_have_class(re.compile("status-started"))
    expect(card).to_contain_text("1 answered")
    # Keyboard: from the top of the page, Tab reaches the suggested lesson, then the cards.
    reached = []
    for _ in range(30):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id || document.activeElement.closest('[data-lesson]')?.dataset.lesson || ''"))
    assert "next-lesson" in reached and "lesson-q" not in reached, reached
    first_card = page.locator("#learning-path [data-lesson]").first.get_attribute("data-lesson")
    assert first_card in reached[reached.index("next-lesson") + 1:], reached
