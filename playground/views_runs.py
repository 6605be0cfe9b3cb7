"""The run page: one view for the page and its actions (django-htmx-patterns), plus "start".

GET  /runs/<token>/                 live at the run's head (controls for its owner)
GET  /runs/<token>/?cycle=N|step=S  pinned, read-only: what a share link opens
POST /runs/<token>/  action=step|step_point|play|pause|speed|advance_clock|cluster|fork
POST /scenarios/<token>/runs/       start a run of that scenario
Actions only queue work: the page learns the outcome from the websocket push.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from playground.models import RunAction
from playground.selectors import runs as run_selectors
from playground.selectors.scenarios import scenario_by_share_token
from playground.services import runs as run_service
from playground.services.ownership import actor_for_request

SIMPLE_ACTIONS = {
    "step": RunAction.KIND_STEP,
    "step_point": RunAction.KIND_STEP_POINT,
    "play": RunAction.KIND_PLAY,
    "advance_clock": RunAction.KIND_ADVANCE_CLOCK,
}


def _int_param(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


def _run_url(run: Any, query: str = "") -> str:
    url = reverse("playground:run", args=[run.share_token])
    return f"{url}?{query}" if query else url


def _go(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_POST
def run_start(request: HttpRequest, token: str) -> HttpResponse:
    scenario = scenario_by_share_token(token=token)
    actor = actor_for_request(request, create=True)
    try:
        run = run_service.run_start(scenario=scenario, actor=actor)
    except run_service.RunError as error:
        messages.error(request, error.message)
        return _go(request, reverse("playground:scenario", args=[scenario.share_token]))
    return _go(request, _run_url(run))


@require_http_methods(["GET", "POST"])
def run_detail(request: HttpRequest, token: str) -> HttpResponse:
    run = run_selectors.run_by_share_token(token=token)
    if request.method == "POST":
        return _run_action(request, run)
    actor = actor_for_request(request)
    step, cycle = _int_param(request.GET.get("step")), _int_param(request.GET.get("cycle"))
    screen = run_selectors.run_screen(run=run, actor=actor, step=step, cycle=cycle)
    log, omitted = run_selectors.log_rows(
        run=run, after_seq=screen.frame.first_seq - 1 if screen.pinned else 0, upto_seq=screen.shown_seq
    )
    context = {
        "run": run,
        "screen": screen,
        "progress": run_selectors.run_progress(run=run),
        "log": log,
        "omitted": omitted,
        "seen": screen.shown_seq,
        "owner": run_selectors.can_control(run=run, actor=actor),
        "share_url": request.build_absolute_uri(_run_url(run, screen.share_query)),
        "speeds": run_service.SPEEDS,
        "taint_effects": run_service.TAINT_EFFECTS,
        "score_plugins": run_selectors.score_plugins(run=run),
    }
    return render(request, "playground/runs/run.html", context)


def _flash(request: HttpRequest, run: Any, text: str, *, error: bool = False, status: int = 200) -> HttpResponse:
    if not request.htmx:
        (messages.error if error else messages.info)(request, text)
        return redirect(_run_url(run))
    return render(request, "playground/runs/_flash.html", {"text": text, "error": error}, status=status)


def _run_action(request: HttpRequest, run: Any) -> HttpResponse:
    action = request.POST.get("action", "")
    actor = actor_for_request(request, create=action == "fork")
    try:
        if action == "fork":
            step = _int_param(request.POST.get("step"))
            fork = run_service.run_fork(run=run, actor=actor, step=run.head_step if step is None else step)
            return _go(request, _run_url(fork))
        if action in SIMPLE_ACTIONS:
            queued = run_service.run_enqueue(run=run, actor=actor, kind=SIMPLE_ACTIONS[action])
            return _flash(request, run, f"Queued: {queued.get_kind_display()} (#{queued.index})")
        if action == "pause":
            paused = run_service.run_pause(run=run, actor=actor)
            return _flash(request, run, "Pausing after the current step…" if paused else "Nothing is playing.")
        if action == "speed":
            speed = float(request.POST.get("speed") or 0)
            run_service.run_set_speed(run=run, actor=actor, speed=speed)
            return _flash(request, run, "Speed: " + (f"{speed:g} steps/s" if speed else "as fast as possible"))
        if action == "cluster":
            params = run_service.cluster_action_from_form(request.POST)
            queued = run_service.run_enqueue(run=run, actor=actor, kind=RunAction.KIND_CLUSTER, params=params)
            return _flash(request, run, f"Queued: {params['action']} (#{queued.index})")
    except PermissionDenied as error:
        return _flash(request, run, str(error), error=True, status=403)
    except (run_service.RunError, ValueError) as error:
        return _flash(request, run, getattr(error, "message", str(error)), error=True, status=400)
    return _flash(request, run, "Unknown action.", error=True, status=400)
