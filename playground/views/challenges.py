"""The challenge page, /scenarios/<token>/challenge/: the owner writes the scenario's Challenge
(services/challenges.py), each refusal shown under the box it is about; it is also the link the
owner shares: anyone else reads the task there and joins with a nickname, which gives them their
own copy of the scenario. /results/ is the owner's table of the class's attempts."""

from __future__ import annotations

import yaml
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from playground.models import ChallengeLearner, Scenario
from playground.ownership import actor_for_request, can_edit
from playground.presenters.challenge_results import challenge_results
from playground.selectors.challenge_results import current_challenge
from playground.selectors.scenarios import scenario_by_share_token
from playground.services import challenges as challenge_service
from playground.services.scenario_validation import ScenarioInvalid

EXAMPLE_GOALS = "- podOn: {pod: web-3, node: b}\n- nodeEmpty: a\n"


def _initial(obj: object | None) -> dict[str, str]:
    manifest = getattr(obj, "manifest", None) or {}
    goals = manifest.get("goals")
    return {
        "title": manifest.get("title", ""),
        "task": manifest.get("task", ""),
        "goals": yaml.safe_dump(goals, sort_keys=False, default_flow_style=None) if goals else EXAMPLE_GOALS,
        "hints": "\n".join(manifest.get("hints") or []),
    }


@require_http_methods(["GET", "POST"])
def challenge_builder(request: HttpRequest, token: str) -> HttpResponse:
    """The owner's builder, or everyone else's join form: the challenge's share link."""
    scenario = scenario_by_share_token(token=token)
    actor = actor_for_request(request)
    editable = can_edit(scenario=scenario, actor=actor)
    existing = challenge_service.challenge_object(scenario=scenario)
    values, error, problems = _initial(existing), None, []
    if request.method == "POST" and request.POST.get("action") in ("join", "nickname"):
        return _join(request, scenario)
    if request.method == "POST":
        if not editable:
            raise PermissionDenied("Only the scenario's owner can write its challenge; fork it first.")
        values = {k: request.POST.get(k, "") for k in ("title", "task", "goals", "hints")}
        try:
            manifest = challenge_service.challenge_manifest(
                name=getattr(existing, "name", "") or "challenge", title=values["title"], task=values["task"],
                goals_yaml=values["goals"], hints_text=values["hints"])
            challenge_service.challenge_save(scenario=scenario, actor=actor, manifest=manifest)
        except challenge_service.GoalsInvalid as invalid:
            problems = invalid.problems
        except ScenarioInvalid as invalid:
            field = invalid.field or ""
            why = invalid.message.removeprefix(f"{field}: ") if field else invalid.message
            error = {"field": field, "why": why}
        else:
            messages.success(request, "Challenge saved. Send learners the share link below: it opens the join "
                                      "form, and joining gives each their own copy to change and run.")
            return redirect(reverse("playground:challenge_builder", args=[scenario.share_token]))
    copy = challenge_service.learner_copy(scenario=scenario, actor=actor) if not editable else None
    return render(request, "playground/scenarios/challenge.html", {
        "scenario": scenario, "can_edit": editable, "values": values, "existing": existing,
        "error": error, "problems": problems, "error_field": _error_area(error, problems),
        "flashed": list(messages.get_messages(request)),
        "challenge": current_challenge(scenario=scenario) if existing else None,
        "nickname": _nickname(scenario, actor), "copy": copy,
        "share_url": request.build_absolute_uri(reverse("playground:challenge_builder", args=[scenario.share_token])),
    }, status=400 if error or problems else 200)


def _error_area(error: dict[str, str] | None, problems: list[tuple[str, str]]) -> str:
    """Which of the form's boxes the refusal is about (it is shown under that box)."""
    field = problems[0][0] if problems else (error or {}).get("field") or ""
    head = field.split(".")[0].split("[")[0]
    return head if head in ("title", "task", "hints") else "goals"


def _nickname(scenario: object, actor: object) -> str:
    token = getattr(actor, "session_token", "")
    learner = ChallengeLearner.objects.filter(scenario=scenario, owner_token=token).first() if token else None
    return learner.nickname if learner else ""


def _join(request: HttpRequest, scenario: Scenario) -> HttpResponse:
    """A learner names themself for the teacher's results page and is sent to their own copy."""
    actor = actor_for_request(request, create=True)
    try:
        learner, copy = challenge_service.challenge_join(scenario=scenario, actor=actor,
                                                         nickname=request.POST.get("nickname", ""))
    except ScenarioInvalid as invalid:
        messages.error(request, invalid.message)
        return redirect(reverse("playground:challenge_builder", args=[scenario.share_token]))
    messages.success(request, f"You are {learner.nickname} on this challenge. This copy is yours: change it, "
                              "then Start run and Play; the run page checks the goals.")
    return redirect(reverse("playground:scenario", args=[copy.share_token]))


@require_http_methods(["GET"])
def challenge_results_page(request: HttpRequest, token: str) -> HttpResponse:
    """The teacher's page: who solved it, attempts, the most common wrong answer. Owner only;
    the table is pushed again over the websocket (consumers/challenges.py) as learners join and
    run; ?part=table is the table alone."""
    scenario = scenario_by_share_token(token=token)
    if not can_edit(scenario=scenario, actor=actor_for_request(request)):
        raise PermissionDenied("Only the challenge's owner sees its results.")
    context = {"scenario": scenario, "results": challenge_results(scenario=scenario)}
    if request.GET.get("part") == "table":
        return render(request, "playground/scenarios/partials/challenge_results.html", context)
    return render(request, "playground/scenarios/challenge_results.html", context)
