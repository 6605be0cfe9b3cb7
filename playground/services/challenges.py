"""The challenge builder: a scenario's owner writes its Challenge document from a form (title,
task, goals as YAML, hints one per line). It is stored like any object, after the same whole-
scenario validation, so a bad goal is refused with the loader's located message."""

from __future__ import annotations

import logging
from typing import Any

import yaml

from playground.models import Scenario, ScenarioObject
from playground.ownership import Actor
from playground.services.scenarios import ScenarioInvalid, scenario_object_save

logger = logging.getLogger(__name__)

KIND = "Challenge"


def challenge_manifest(*, name: str, title: str, task: str, goals_yaml: str, hints_text: str) -> dict[str, Any]:
    """The Challenge document the form describes (validated when saved)."""
    try:
        goals = yaml.safe_load(goals_yaml or "")
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ScenarioInvalid(f"goals: not YAML{where}: {getattr(error, 'problem', error)}", field="goals") from None
    manifest: dict[str, Any] = {
        "apiVersion": "playground.kube-scheduler.dev/v1",
        "kind": KIND,
        "metadata": {"name": name or "challenge"},
        "task": task.strip(),
        "goals": goals,
    }
    if title.strip():
        manifest["title"] = title.strip()
    hints = [line.strip() for line in (hints_text or "").splitlines() if line.strip()]
    if hints:
        manifest["hints"] = hints
    return manifest


def challenge_object(*, scenario: Scenario) -> ScenarioObject | None:
    return scenario.kube_objects.filter(kind=KIND).first()


def challenge_save(*, scenario: Scenario, actor: Actor, manifest: dict[str, Any]) -> ScenarioObject:
    """Add the scenario's Challenge or replace the one it has (at most one per scenario)."""
    existing = challenge_object(scenario=scenario)
    return scenario_object_save(scenario=scenario, actor=actor, manifest=manifest,
                                object_id=existing.pk if existing else None)


def notify_results(*, scenario_id: int) -> None:
    """Tell the challenge's open results pages that something changed (they re-render the table)."""
    from playground.groups import CHALLENGE_CHANGED_EVENT, challenge_group, send_to_group

    try:
        send_to_group(challenge_group(scenario_id), CHALLENGE_CHANGED_EVENT)
    except Exception:  # the page reads the database on reconnect: a lost notification is caught up
        logger.warning("challenge %s: results notification failed", scenario_id, exc_info=True)


def notify_results_for_run(*, run_id: int) -> None:
    """A run moved: if its owner is a learner of the challenge it was started from (the scenario
    itself or the scenario it forked), tell that challenge's results pages."""
    from playground.models import ChallengeLearner, Run

    row = Run.objects.filter(pk=run_id).values_list("owner_token", "scenario_id", "scenario__forked_from_id").first()
    if row is None or not row[0]:
        return
    ids = [i for i in row[1:] if i]
    for scenario_id in ChallengeLearner.objects.filter(scenario_id__in=ids, owner_token=row[0]).values_list(
            "scenario_id", flat=True):
        notify_results(scenario_id=scenario_id)
