"""A learner's first visit in real Chromium: phone width, the lesson, predict then reveal, the
framework strip, the screen-reader announcement, the timeline, dark mode, the favicon."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.services.runs.test_runs_live import start_run

pytestmark = pytest.mark.live


def _no_overflow(page: Page) -> None:
    width = page.evaluate("document.scrollingElement.scrollWidth")
    if width > 390:
        wide = page.evaluate(
            "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391)"
            ".slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className)"
        )
        raise AssertionError(f"{page.url} is {width}px wide at a 390px viewport: {wide}")


def test_a_phone_sized_lesson_predict_step_reveal_and_timeline(
    browser: Browser, live_url: str, celery_worker: Any, transactional_db: None
) -> None:
    context = browser.new_context(base_url=live_url, viewport={"width": 390, "height": 844})
    context.set_default_timeout(15_000)
    page = context.new_page()
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    try:
        page.goto("/")
        expect(page.locator("#next-lesson")).to_be_visible()
        _no_overflow(page)
        assert page.request.get("/favicon.ico").ok

        start_run(page, "resource-fit")
        _no_overflow(page)
        expect(page.locator("#lesson-caption")).to_contain_text("Eight pods wait in activeQ")
        outline = page.locator("#run-queues").evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline == "solid"  # the panel to watch is highlighted
        page.locator('#predict-form input[value="medium"]').check()
        page.locator("#predict-submit").click()
        expect(page.locator("#predict-locked")).to_contain_text("medium")

        page.locator("#btn-step").click()
        expect(page.locator("#run-step")).to_have_text("1")
        expect(page.locator("#lesson-reveal")).to_contain_text("You predicted medium")
        expect(page.locator("#lesson-reveal")).to_contain_text("the answer is large")
        expect(page.locator("#lesson-score")).to_contain_text("1 of 4 answered · 0 right")
        expect(page.locator("#story-text")).to_contain_text("large won")
        expect(page.locator("#run-announce")).to_contain_text("web-1 → large")
        assert page.locator("#run-announce").get_attribute("aria-live") == "polite"
        expect(page.locator('#fw-strip .fw-point[data-point="Bind"].reached')).to_have_count(1)
        assert page.locator("#score-table").evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
        _no_overflow(page)

        page.locator("#btn-play").click()
        expect(page.locator("#run-state")).to_have_text("settled")
        page.locator("#btn-step").click()  # stepping a settled run says why nothing happens
        expect(page.locator("#run-settled")).to_contain_text("The run has settled")

        # Every cluster-change input has a label; a long real node name breaks nothing.
        assert page.locator("#cluster-actions input:not([type=hidden]):not([aria-label])").count() == 0
        assert page.locator("#cluster-actions select:not([aria-label])").count() == 0
        long_name = "ip-10-0-113-42.eu-west-1.compute.internal-pool-b-x7k2q"  # 54 characters
        page.locator("#cluster-actions summary").click()
        page.locator('#form-add-node input[name="name"]').fill(long_name)
        page.locator('#form-add-node input[name="cpu"]').fill("16")
        page.locator('#form-add-node input[name="memory"]').fill("32Gi")
        page.locator("#form-add-node button").click()
        expect(page.locator(f'.node[data-node="{long_name}"]')).to_be_visible()
        page.locator("#btn-step").click()  # too-big fits the new node now
        expect(page.locator(f'#filter-matrix tr[data-node="{long_name}"].feasible')).to_be_visible()
        name_cell = page.locator(f'#filter-matrix tr[data-node="{long_name}"] th')
        assert name_cell.evaluate("e => e.getBoundingClientRect().width") <= 210
        _no_overflow(page)

        page.locator("#scrub").fill("3")  # the timeline: a range input; change opens the step
        page.locator("#scrub").dispatch_event("change")
        expect(page).to_have_url(re.compile(r"\?step=3$"))
        expect(page.locator("#pinned-notice")).to_contain_text("step 3")
        expect(page.locator("#lesson-caption")).to_contain_text("medium wins this time")
        expect(page.locator('.mark-failed[style]')).to_have_count(1)

        page.emulate_media(color_scheme="dark")
        background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        assert background == "rgb(20, 24, 29)", background
        assert not missing, missing
    finally:
        context.close()


def test_classroom_followers_follow_the_presenter_until_they_explore(
    page: Page, browser: Browser, live_url: str, celery_worker: Any
) -> None:
    url = start_run(page, "priority-preemption")
    page.locator("#present-button").click()
    expect(page.locator("#presenting-bar")).to_contain_text("Presenting")
    follow_url = page.locator("#follow-link").get_attribute("href")
    assert follow_url and follow_url.endswith("?follow=1") and follow_url.startswith(url)

    context = browser.new_context(base_url=live_url)
    context.set_default_timeout(15_000)
    learner = context.new_page()
    try:
        learner.goto(follow_url)
        expect(learner.locator("#run-socket")).to_have_text("live")
        expect(learner.locator("#follow-bar")).to_contain_text("live")

        page.locator("#btn-step").click()  # the presenter steps: the class sees cycle 1
        expect(page.locator("#run-step")).to_have_text("1")
        expect(learner.locator("#run-step")).to_have_text("1")
        expect(learner.locator("#preemption-summary")).to_contain_text("preempts on node-1")

        page.locator("#rewind").click()  # the presenter looks back at step 0: so does the class
        expect(page).to_have_url(re.compile(r"\?step=0$"))
        expect(learner.locator("#follow-bar")).to_contain_text("step 0")
        expect(learner.locator("#run-step")).to_have_text("0")
        expect(learner.locator("#pinned-notice")).to_contain_text("looking at step 0")  # the scope, too
        expect(learner.locator("#no-preemption")).to_be_visible()

        learner.locator("#explore-own").click()  # the learner leaves: the presenter no longer moves them
        expect(learner).to_have_url(re.compile(r"\?step=0$"))
        expect(learner.locator("#run-socket")).to_have_text("live")
        page.locator("#back-live").click()
        expect(page.locator("#run-step")).to_have_text("1")
        expect(page.locator("#pinned-notice")).to_have_count(0)
        learner.wait_for_timeout(1000)
        expect(learner.locator("#run-step")).to_have_text("0")
        expect(learner.locator("#follow-bar")).to_have_count(0)
    finally:
        context.close()
