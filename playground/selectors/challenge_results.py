"""A challenge scenario's goals as they read now (`current_challenge`): what every learner's
attempt is judged against, on the teacher's results page (presenters/challenge_results.py) and
on the learner's run page (presenters/runs/challenge.py)."""

from __future__ import annotations

from playground.models import Scenario
from scheduler_core.api.challenge import Challenge, parse_challenge
from scheduler_core.api.errors import ScenarioError


def current_challenge(*, scenario: Scenario) -> Challenge | None:
    """The scenario's Challenge as it reads now (None when it has none): what learners' attempts
    are judged against, so a goal the teacher fixed stops failing them at once."""
    manifest = scenario.kube_objects.filter(kind="Challenge").values_list("manifest", flat=True).first()
    if manifest is None:
        return None
    try:
        return parse_challenge(manifest, source="challenge")
    except ScenarioError:
        return None  # stored after validation; a later, stricter format must not break the page
