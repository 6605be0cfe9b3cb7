"""The run's metrics page in real Chromium: the charts are there, a chart's tooltip and its
value table agree with the run's stored events, and a point opens the run at its step."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from playground.models import Run
from playground.services import gallery
from tests.web.browser.test_csp_browser import WATCH_VIOLATIONS

pytestmark = pytest.mark.live


def test_metrics_charts_match_the_events_and_link_to_the_scrubber(page: Page, celery_worker: Any) -> None:
    gallery.seed()
    page.add_init_script(WATCH_VIOLATIONS)
    page.goto("/gallery/priority-preemption/")
    page.locator("#start-run").click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator("#run-socket")).to_have_text("live")
    page.keyboard.press("p")
    expect(page.locator("#run-state")).to_have_text("settled")
    token = page.url.rstrip("/").rsplit("/", 1)[1]

    page.locator("#run-metrics-link").click()
    expect(page.locator("h1")).to_contain_text("Metrics of the run")
    for chart in ("#chart-queues svg", "#chart-attempts svg", "#hist-sli svg", "#chart-plugins svg",
                  "#chart-plugin-wall svg", "#chart-plugin-wall-steps svg"):
        expect(page.locator(chart)).to_be_visible()
    # The real Celery worker timed the plugins of the steps it executed (the engine's own time).
    fit = page.locator('#plugin-wall-table tr[data-plugin="NodeResourcesFit"][data-point="Filter"] .wall-seconds')
    assert float(fit.text_content() or "0") > 0
    assert page.evaluate("window.__cspViolations") == []  # server-drawn SVG: nothing to block
    # Step charts: every series is horizontal and vertical segments only; and no axis label,
    # tick or bar name is clipped: each text's box, as Chromium lays it out, is inside its chart.
    paths = page.eval_on_selector_all("svg.chart .series", "els => els.map(e => e.getAttribute('d'))")
    assert paths and all(re.fullmatch(r"M[\d.]+,[\d.]+( [HV][\d.]+)+", d) for d in paths), paths
    clipped = page.eval_on_selector_all("svg.chart", CLIPPED_TEXTS)
    assert clipped == [], clipped

    # The tooltip of the last point of "attempts by result" ...
    last = page.locator("#chart-attempts a.hit").last
    step = int(last.get_attribute("data-step") or "-1")
    tip = last.locator("title").text_content() or ""
    found = re.search(r"scheduled (\d+), unschedulable (\d+), error (\d+)", tip)
    assert found, tip
    scheduled, unschedulable, error = map(int, found.groups())
    # ... is what the run's events up to that step say.
    run = Run.objects.get(share_token=token)
    frame = run.frames.get(step=step)
    events = list(run.events.filter(seq__lte=frame.last_seq).values_list("data", flat=True))
    started = {e["pod"] for e in events if e["type"] == "cycle_started"}
    assert scheduled == sum(1 for e in events if e["type"] == "bound" and e["pod"] in started) > 0
    assert unschedulable + error == sum(1 for e in events
                                        if e["type"] == "k8s_event" and e["reason"] == "FailedScheduling") > 0

    # The value table says the same for that step.
    page.locator("#chart-attempts summary").click()
    row = page.locator(f'#chart-attempts tr[data-step="{step}"] td')
    expect(row.nth(3)).to_have_text(str(scheduled))
    expect(row.nth(4)).to_have_text(str(unschedulable))

    # A point of the queue chart opens the run page pinned at that step (the scrubber's link).
    first = page.locator("#chart-queues a.hit").nth(1)
    target = first.get_attribute("data-step")
    first.click()
    expect(page).to_have_url(re.compile(rf"/runs/{token}/\?step={target}$"))
    expect(page.locator("#pinned-notice")).to_contain_text(f"step {target}")


# The texts of each chart whose laid-out box leaves the chart's viewBox (half a unit of slack).
CLIPPED_TEXTS = """charts => charts.flatMap(svg => {
  const vb = svg.viewBox.baseVal;
  return Array.from(svg.querySelectorAll('text')).filter(t => {
    const b = t.getBBox();
    return b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5
      || b.y + b.height > vb.y + vb.height + 0.5;
  }).map(t => svg.closest('section').id + ': ' + t.textContent);
})"""
