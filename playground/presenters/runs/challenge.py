"""The challenge panel (partials/challenge.html): when the run's scenario carries a Challenge
document, each goal checked against this step (pods from the frame's view, preemptions from the
run's `victim_deleted` events), pass or not and why, and the hints. Solved means every goal
holds once the run has settled."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from playground.models import RunEvent
from scheduler_core.api.challenge import Challenge, challenges_of_text, check
from scheduler_core.api.errors import ScenarioError

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

FINAL = ("settled", "max-time")


@lru_cache(maxsize=32)
def challenge_of_text(text: str) -> Challenge | None:
    try:
        found = challenges_of_text(text, source="run")
    except ScenarioError:
        return None  # the snapshot was validated when the run started; never fail the page here
    return found[0] if found else None


def challenge(screen: Screen) -> dict[str, Any] | None:
    run = screen.run
    found = challenge_of_text(run.scenario_yaml) if run is not None and run.scenario_yaml else None
    if found is None:
        return None
    events = RunEvent.objects.filter(run=run, type="victim_deleted", seq__lte=screen.shown_seq).values_list(
        "data", flat=True)
    results = check(found, screen.view.get("pods", []), events)
    final = screen.frame.result in FINAL
    passed = all(r.passed for r in results)
    failing = sum(1 for r in results if not r.passed)
    return {"challenge": found, "results": results, "final": final, "passed": passed, "solved": passed and final,
            "failing": failing}
