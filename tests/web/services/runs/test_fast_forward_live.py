"""Fast-forward end to end: real Chromium, the web server, a real Celery worker, Redis.

"Run to cycle" refuses a bad cycle beside its field, runs to a given cycle from the keyboard,
and "Run to end" (the f key) settles the run with the placements `simulate` gives; the page
lands on the final state, every bound pod's chip inside its node on the cluster map."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from playground.models import Run, RunAction, RunFrame
from tests.web.services.runs.test_fast_forward import placements, simulated
from tests.web.services.runs.test_runs_live import start_run

pytestmark = pytest.mark.live

LESSON = "deployments-daemonsets"


def test_run_to_cycle_then_run_to_end_from_the_keyboard_lands_on_the_settled_state(
    page: Page, browser: Browser, live_url: str, celery_worker: Any
) -> None:
    url = start_run(page, LESSON)
    run = Run.objects.get(share_token=url.rstrip("/").rsplit("/", 1)[-1])

    # A bad cycle: the error beside the field, nothing queued.
    page.locator("#ff-cycle").fill("-2")
    page.locator("#btn-run-cycle").click()
    expect(page.locator("#fast-forward-cycle-error")).to_contain_text("out of range")
    assert not run.actions.exists()

    # Run to cycle 3, from the keyboard: type the cycle, Tab to the button, Enter.
    page.locator("#ff-cycle").fill("3")
    page.locator("#ff-cycle").press("Tab")
    expect(page.locator("#btn-run-cycle")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#fast-forward-cycle-error")).to_have_text("")
    expect(page.locator("#run-cycle")).to_have_text("3")
    action = run.actions.get()
    expect(page.locator("#run-state")).not_to_have_text("playing")
    action.refresh_from_db()
    assert action.kind == RunAction.KIND_PLAY and action.state == RunAction.STATE_DONE and action.result == "cycle 3"

    # Run to end with its key (the focus is on a button, not in a field).
    page.keyboard.press("f")
    expect(page.locator("#run-state")).to_have_text("settled", timeout=60_000)
    run.refresh_from_db()
    assert run.status == Run.STATUS_SETTLED
    expect(page.locator("#run-flash")).to_contain_text(f"settled at cycle {run.cycle}")
    expect(page.locator("#run-settled")).to_have_count(0)  # the notice of a Play that had nothing to do
    assert RunFrame.objects.filter(run=run, unit__op="steps").exists()  # steps stored as one frame
    final = placements(run)
    assert final == simulated(run)
    expect(page.locator("#run-step")).to_have_text(str(run.head_step))
    expect(page.locator("#run-cycle")).to_have_text(str(run.cycle))

    # The map shows the final state: every bound pod's chip inside its node.
    page.reload()
    bound = {key: node for key, (status, node) in final.items() if status == "Bound"}
    assert bound
    for key, node in bound.items():
        expect(page.locator(f'#run-map [data-node="{node}"] [data-pod="{key}"]').first).to_be_attached()
