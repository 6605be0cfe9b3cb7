"""The challenge builder page, /scenarios/<token>/challenge/: the owner writes the scenario's
Challenge (services/challenges.py); anyone with the link reads it and is sent to fork the
scenario and run it."""

from __future__ import annotations

import yaml
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from playground.models import ChallengeLearner
from playground.ownership import actor_for_request, can_edit
from playground.selectors.challenge_results import challenge_results
from playground.selectors.scenarios import scenario_by_share_token
from playground.services import challenges as challenge_service
from playground.services.scenarios import ScenarioInvalid

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
    scenario = scenario_by_share_token(token=token)
    actor = actor_for_request(request)
    editable = can_edit(scenario=scenario, actor=actor)
    existing = challenge_service.challenge_object(scenario=scenario)
    values, error = _initial(existing), None
    if request.method == "POST" and request.POST.get("action") == "nickname":
        return _set_nickname(request, scenario)
    if request.method == "POST":
        if not editable:
            raise PermissionDenied("Only the scenario's owner can write its challenge; fork it first.")
        values = {k: request.POST.get(k, "") for k in ("title", "task", "goals", "hints")}
        try:
            manifest = challenge_service.challenge_manifest(
                name=getattr(existing, "name", "") or "challenge", title=values["title"], task=values["task"],
                goals_yaml=values["goals"], hints_text=values["hints"])
            challenge_service.challenge_save(scenario=scenario, actor=actor, manifest=manifest)
        except ScenarioInvalid as invalid:
            error = invalid.message
        else:
            messages.success(request, "Challenge saved. Share the scenario's link: learners fork it, run it, "
                                      "and the run page checks the goals.")
            return redirect(reverse("playground:scenario", args=[scenario.share_token]))
    return render(request, "playground/scenarios/challenge.html", {
        "scenario": scenario, "can_edit": editable, "values": values, "error": error, "existing": existing,
        "nickname": _nickname(scenario, actor),
        "share_url": request.build_absolute_uri(reverse("playground:scenario", args=[scenario.share_token])),
    }, status=400 if error else 200)


NICKNAME_MAX = 40


def _nickname(scenario: object, actor: object) -> str:
    token = getattr(actor, "session_token", "")
    learner = ChallengeLearner.objects.filter(scenario=scenario, owner_token=token).first() if token else None
    return learner.nickname if learner else ""


def _set_nickname(request: HttpRequest, scenario: object) -> HttpResponse:
    """A learner names themself for the teacher's results page (one nickname per session)."""
    nickname = " ".join((request.POST.get("nickname") or "").split())[:NICKNAME_MAX]
    if not nickname:
        messages.error(request, "Choose a nickname (1 to 40 characters).")
    else:
        actor = actor_for_request(request, create=True)
        ChallengeLearner.objects.update_or_create(scenario=scenario, owner_token=actor.session_token,
                                                  defaults={"nickname": nickname})
        challenge_service.notify_results(scenario_id=scenario.pk)  # type: ignore[attr-defined]
        messages.success(request, f"You are {nickname} on this challenge. Now fork the scenario and run it.")
    return redirect(reverse("playground:scenario", args=[scenario.share_token]))  # type: ignore[attr-defined]


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
