"""The challenge builder: a scenario's owner writes its Challenge document from a form (title,
task, goals as YAML, hints one per line). It is stored like any object, after the same whole-
scenario validation, so a bad goal is refused with the loader's located message; before that,
each name a goal uses is checked against the scenario's pods and nodes (challenge_goals.py), so
a goal no learner could meet is refused too, field by field, and nothing is saved.

A learner joins with a nickname (for the teacher's results page) and gets their own copy of the
scenario, a fork they own, to change and run; joining again leads back to that copy."""

from __future__ import annotations

import logging
from typing import Any

import yaml

from playground.limits import web_limits
from playground.models import ChallengeLearner, Scenario, ScenarioObject
from playground.ownership import Actor, ensure_has_identity
from playground.selectors.scenarios import scenario_yaml
from playground.services.challenge_goals import goal_problems, scenario_names
from playground.services.scenario_objects import scenario_object_save
from playground.services.scenario_validation import ScenarioInvalid
from playground.services.scenarios import scenario_fork
from scheduler_core.api.challenge import Challenge, parse_challenge
from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text

logger = logging.getLogger(__name__)

KIND = "Challenge"
NICKNAME_MAX = 40


class GoalsInvalid(ScenarioInvalid):
    """Goals that parse but name what the scenario lacks: `problems` is (field, why) for each,
    so the builder shows every one in place, not just the first."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{field}: {why}" for field, why in problems), field=problems[0][0],
                         kind=KIND)
        self.problems = problems


def challenge_manifest(*, name: str, title: str, task: str, goals_yaml: str, hints_text: str) -> dict[str, Any]:
    """The Challenge document the form describes (validated when saved)."""
    try:
        goals = yaml.safe_load(goals_yaml or "")
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ScenarioInvalid(f"goals: not YAML{where}: {getattr(error, 'problem', error)}", field="goals") from None
    except ValueError:  # an integer too long to convert: the engine's decoder says where and why
        from scheduler_core.loader.yaml_input import decode_yaml

        try:
            decode_yaml(goals_yaml, "goals")
        except ScenarioError as error:
            raise ScenarioInvalid(f"goals: {error.reason}" + (f" ({error.field})" if error.field else ""),
                                  field="goals") from None
        raise ScenarioInvalid("goals: a number is too large", field="goals") from None
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


def _parsed(manifest: dict[str, Any]) -> Challenge:
    try:
        return parse_challenge(manifest, source="challenge")
    except ScenarioError as error:
        raise ScenarioInvalid(f"{error.field}: {error.reason}" if error.field else error.reason,
                              field=error.field, kind=KIND) from None


def check_goals(*, scenario: Scenario, manifest: dict[str, Any]) -> None:
    """Refuse (GoalsInvalid) goals naming a pod or node the scenario does not have."""
    challenge = _parsed(manifest)
    try:
        loaded = load_scenario_text(scenario_yaml(scenario=scenario), source="scenario", limits=web_limits())
    except ScenarioError as error:
        raise ScenarioInvalid(f"the scenario itself does not load, so its goals cannot be checked: {error}",
                              field=error.field, kind=error.kind, name=error.name,
                              document=error.document) from None
    problems = goal_problems(challenge, scenario_names(loaded))
    if problems:
        raise GoalsInvalid(problems)


def challenge_save(*, scenario: Scenario, actor: Actor, manifest: dict[str, Any]) -> ScenarioObject:
    """Add the scenario's Challenge or replace the one it has (at most one per scenario), once
    its goals are checked against the scenario; its open results pages re-judge every attempt."""
    check_goals(scenario=scenario, manifest=manifest)
    existing = challenge_object(scenario=scenario)
    saved = scenario_object_save(scenario=scenario, actor=actor, manifest=manifest,
                                 object_id=existing.pk if existing else None)
    notify_results(scenario_id=scenario.pk)
    return saved


def learner_copy(*, scenario: Scenario, actor: Actor) -> Scenario | None:
    """The learner's own copy of the challenge scenario (their latest fork of it), if any."""
    if not actor.session_token:
        return None
    return (Scenario.objects.filter(forked_from=scenario, owner_token=actor.session_token)
            .order_by("-created_at", "-pk").first())


def challenge_join(*, scenario: Scenario, actor: Actor, nickname: str) -> tuple[ChallengeLearner, Scenario]:
    """Name the learner on the challenge and give them their own copy of the scenario (a fork
    they own, made once: joining again, or renaming, leads back to the same copy)."""
    ensure_has_identity(actor, "Joining a challenge")
    if challenge_object(scenario=scenario) is None:
        raise ScenarioInvalid("This scenario has no challenge to join.")
    nickname = " ".join((nickname or "").split())
    if not nickname or len(nickname) > NICKNAME_MAX:
        raise ScenarioInvalid(f"Choose a nickname (1 to {NICKNAME_MAX} characters).", field="nickname")
    learner, _ = ChallengeLearner.objects.update_or_create(
        scenario=scenario, owner_token=actor.session_token, defaults={"nickname": nickname})
    copy = learner_copy(scenario=scenario, actor=actor) or scenario_fork(scenario=scenario, actor=actor)
    notify_results(scenario_id=scenario.pk)
    return learner, copy


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
