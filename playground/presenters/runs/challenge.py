"""The challenge panel (partials/challenge.html): when the run's scenario carries a Challenge
document, each goal checked against this step (pods from the frame's view, preemptions from the
run's `victim_deleted` events), pass or not and why, and the hints. Solved means every goal
holds once the run has settled."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from playground.models import RunEvent
from playground.selectors.runs import snapshot_may_hold
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


def joined_challenge(run: Any) -> Challenge | None:
    """The goals of the challenge this run is an attempt at, as they read now, when its owner
    joined that challenge and the run is of their copy: the teacher's fixed goals judge it here
    as on the results page (selectors/challenge_results.py), not the copy the run started with."""
    from playground.models import ChallengeLearner, Scenario
    from playground.selectors.challenge_results import current_challenge

    if not run.scenario_id or not run.owner_token:
        return None
    origin = Scenario.objects.filter(forks__pk=run.scenario_id).only("pk").first()
    if origin is None or not ChallengeLearner.objects.filter(scenario=origin, owner_token=run.owner_token).exists():
        return None
    return current_challenge(scenario=origin)


def challenge(screen: Screen) -> dict[str, Any] | None:
    run = screen.run
    if run is None or not snapshot_may_hold(run=run, kind="Challenge"):
        return None
    found = challenge_of_text(run.scenario_yaml) if run.scenario_yaml else None
    if found is None:
        return None
    found = joined_challenge(run) or found
    events = RunEvent.objects.filter(run=run, type="victim_deleted", seq__lte=screen.shown_seq).values_list(
        "data", flat=True)
    results = check(found, screen.view.get("pods", []), events)
    final = screen.frame.result in FINAL
    passed = all(r.passed for r in results)
    failing = sum(1 for r in results if not r.passed)
    return {"challenge": found, "results": results, "final": final, "passed": passed, "solved": passed and final,
            "failing": failing}
