"""The run page: one view for the page and its actions (django-htmx-patterns), plus "start".

GET  /runs/<token>/                 live at the run's head (controls for its owner)
GET  /runs/<token>/?cycle=N|step=S  pinned, read-only: what a share link opens
GET  /runs/<token>/?follow=1         a classroom follower: the presenter's step, re-pinned live
POST /runs/<token>/  action=step|step_point|play|pause|speed|advance_clock|cluster|fork|predict|present
                                    |fast_forward (to=end|cycle|time, with cycle=N or time=T)
                                    (cluster, what=scaleDeployment: the scale form, answered with itself)
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

from playground.consumers import live_render
from playground.models import RunAction
from playground.ownership import actor_for_request, can_control, ensure_can_control
from playground.presenters.runs import lesson as lesson_panel
from playground.presenters.runs import run_screen
from playground.selectors import runs as run_selectors
from playground.selectors.scenarios import scenario_by_share_token
from playground.services import classroom, lesson_progress
from playground.services.runs import actions as run_service
from playground.services.runs import errors as run_errors
from playground.services.runs import fast_forward
from playground.services.runs import forms as run_forms
from playground.views import read_cache

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


def _position(request: HttpRequest) -> tuple[int | None, int | None, str]:
    """The step and cycle a GET asks for (the jump form, the scrubber, a share link), and the
    error to show next to the jump form when one is not a whole number from 0 (then the page is
    the live one instead of a 404 or a silent fallback)."""
    values: list[int | None] = []
    error = ""
    for name in ("step", "cycle"):
        raw = request.GET.get(name)
        value = _int_param(raw)
        if raw not in (None, "") and (value is None or value < 0):
            error = error or f"{name}: {raw!r} is not a whole number from 0."
            value = None
        values.append(value)
    return values[0], values[1], error


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
        run = run_service.run_start(
            scenario=scenario,
            actor=actor,
            kubernetes_version=request.POST.get("kubernetes_version"),
            feature_gates=request.POST.get("feature_gates"),
        )
    except run_errors.RunError as error:
        messages.error(request, error.message)
        return _go(request, reverse("playground:scenario", args=[scenario.share_token]))
    run_service.run_opened(run=run, actor=actor)  # its owner is sent there: build the engine meanwhile
    return _go(request, _run_url(run))


@require_http_methods(["GET", "POST"])
def run_detail(request: HttpRequest, token: str) -> HttpResponse:
    run = getattr(request, "playground_run", None)  # read by the quota check just before
    if run is None or run.share_token != token:
        run = run_selectors.run_by_share_token(token=token)
    if request.method == "POST":
        return _run_action(request, run)
    actor = actor_for_request(request)
    step, cycle, jump_error = _position(request)
    if jump_error:  # answered in place: the live page, the error beside the jump form
        return _run_page(request, run, actor, None, None, False, jump_error=jump_error)
    following = request.GET.get("follow") == "1"
    pinned = (step is not None or cycle is not None) and not following
    if (
        pinned
        and not can_control(run=run, actor=actor)
        and not lesson_panel.answers_for(request.session, run.share_token)
        and not classroom.is_presenting(request.session, run.share_token)
    ):
        # A read-only link to one step: the frame never changes; the head's step and status
        # (shown as "step N of M") are in the key.
        key = read_cache.cache_key(
            "run",
            (run.pk, run.share_token, run.head_step, run.last_seq, run.status, run.reveal, request.get_host(),
             request.get_full_path()),
        )
        return read_cache.serve(request, key, lambda: _run_page(request, run, actor, step, cycle, following))
    if (
        not pinned
        and not following
        and not can_control(run=run, actor=actor)
        and not lesson_panel.answers_for(request.session, run.share_token)
    ):
        # A read-only viewer of the live head: the page is the same for every such viewer until
        # the run moves (its state: head step, last event, status, the actions' counts), so a
        # hundred of them, or one reloading as fast as it can, cost one render per state.
        key = read_cache.cache_key(
            "run-live", (run.pk, *live_render.run_state(run), request.get_host(), request.get_full_path())
        )
        return read_cache.serve(request, key, lambda: _run_page(request, run, actor, step, cycle, following))
    return _run_page(request, run, actor, step, cycle, following)


def _run_page(
    request: HttpRequest,
    run: Any,
    actor: Any,
    step: int | None,
    cycle: int | None,
    following: bool,
    *,
    jump_error: str = "",
) -> HttpResponse:
    if following:  # a follower sees the presenter's step (None: the live head)
        led, presenter_at = classroom.presenter_step(run.pk)
        if led:
            step, cycle = presenter_at, None
    run_service.run_opened(run=run, actor=actor)  # a worker builds the engine while this page renders
    answers = lesson_panel.answers_for(request.session, run.share_token)
    screen = run_screen(run=run, actor=actor, step=step, cycle=cycle, params=request.GET, answers=answers)
    lesson_progress.run_page_seen(request.session, run, screen.lesson)  # a lesson's last stop: finished
    presenting = classroom.is_presenting(request.session, run.share_token) and can_control(run=run, actor=actor)
    if presenting and not following:
        classroom.publish(run.pk, screen.step if screen.pinned else None)
    log_after = screen.frame.first_seq - 1 if screen.pinned else 0
    log, omitted = run_selectors.log_rows(run=run, after_seq=log_after, upto_seq=screen.shown_seq)
    context = {
        "run": run,
        "screen": screen,
        "progress": run_selectors.run_progress(run=run),
        "log": log,
        "omitted": omitted,
        "gap_after": log_after,
        "seen": screen.shown_seq,
        "owner": can_control(run=run, actor=actor),
        "share_url": request.build_absolute_uri(_run_url(run, screen.share_query)),
        "speeds": run_service.SPEEDS,
        "taint_effects": run_forms.TAINT_EFFECTS,
        "max_replicas": run_forms.MAX_REPLICAS,
        "score_plugins": run_selectors.score_plugins(run=run),
        "filter_plugins": run_selectors.filter_plugins(run=run),
        "event_types": run_selectors.event_types(run=run),
        "log_limit": run_selectors.LOG_LIMIT,
        "following": following,
        "presenting": presenting,
        "follow_url": request.build_absolute_uri(_run_url(run, "follow=1")),
        "jump_error": jump_error,
    }
    return render(request, "playground/runs/detail.html", context, status=400 if jump_error else 200)


def _flash(
    request: HttpRequest,
    run: Any,
    text: str,
    *,
    error: bool = False,
    status: int = 200,
    field_errors: list[tuple[str, str]] | None = None,
    action: int | None = None,
) -> HttpResponse:
    """The status line under the controls; `field_errors` ((element id, message) pairs, "" to
    clear) also replaces the error next to each field of the form that was sent. `action`, the
    queued action's index, is an attribute for scripts and tests, not text: it means nothing to
    a learner."""
    if not request.htmx:
        (messages.error if error else messages.info)(request, text)
        return redirect(_run_url(run))
    context = {"text": text, "error": error, "field_errors": field_errors or [], "action": action}
    return render(request, "playground/runs/partials/flash.html", context, status=status)


# The run page's controls with one input each (not the cluster forms): the error span beside it.
CONTROL_FIELDS = {"run_clock": "run-clock-seconds-error", "speed": "speed-error"}


# The fast-forward inputs (Run to cycle / Run to time): the error span beside each.
FAST_FORWARD_FIELDS = {"cycle": "fast-forward-cycle-error", "time": "fast-forward-time-error"}


def _field_errors(request: HttpRequest, action: str, error: Any = None) -> list[tuple[str, str]]:
    """The error spans to set for the form that sent `action`: the message beside its field (or
    cleared, on success)."""
    if action == "cluster":
        return _cluster_field_errors(request, error)
    if action == "fast_forward":
        bad = getattr(error, "field", None)
        return [(span, error.message if name == bad else "") for name, span in FAST_FORWARD_FIELDS.items()]
    if action in CONTROL_FIELDS:
        message = "" if error is None else getattr(error, "message", None) or str(error)
        return [(CONTROL_FIELDS[action], message)]
    return []


def _cluster_field_errors(request: HttpRequest, error: Any = None) -> list[tuple[str, str]]:
    """The error spans of the cluster form that was sent: the message next to its field, the
    form's other spans cleared."""
    form = run_forms.FORMS.get(request.POST.get("what", ""))
    if form is None:
        return []
    form_id, fields = form
    bad = getattr(error, "field", None)
    return [(f"{form_id}-{name}-error", error.message if name == bad else "") for name in fields]


def _predict(request: HttpRequest, run: Any) -> HttpResponse:
    """A learner's prediction for a lesson step (anyone may answer: it is theirs, in their session)."""
    index = _int_param(request.POST.get("index"))
    answer = ", ".join(sorted(a for a in request.POST.getlist("answer") if a))
    step = _int_param(request.POST.get("at_step"))
    error = "" if index is not None and answer else "answer: choose one of the answers first."
    if not error:
        lesson_panel.record_answer(request.session, run.share_token, index, answer)
        lesson_progress.run_prediction_answered(request.session, run, index)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(_run_url(run, f"step={step}" if step is not None else ""))
    screen = run_screen(
        run=run,
        actor=actor_for_request(request),
        step=step,
        answers=lesson_panel.answers_for(request.session, run.share_token),
    )
    # The lesson panel is the form's target: a refusal is the same panel with the error in it.
    context = {"run": run, "screen": screen, "predict_error": error}
    return render(request, "playground/runs/partials/lesson.html", context, status=400 if error else 200)


def _scale(request: HttpRequest, run: Any, actor: Any) -> HttpResponse:
    """The scaleDeployment form: validated here (the Deployment must be one of the run's, the
    replicas a whole number in range), answered with the form itself, errors beside their
    fields; on success the form comes back cleared and the flash says what was queued."""
    ensure_can_control(run=run, actor=actor)
    deployments = run_selectors.scalable_deployments(run=run)
    values = {"deployment": request.POST.get("deployment", ""), "replicas": request.POST.get("replicas", "")}
    context: dict[str, Any] = {
        "run": run,
        "deployments": deployments,
        "max_replicas": run_forms.MAX_REPLICAS,
        "scale_values": values,
    }
    try:
        params = run_forms.scale_action_from_form(request.POST, [d["key"] for d in deployments])
    except run_errors.FieldError as error:
        if not request.htmx:
            messages.error(request, error.message)
            return redirect(_run_url(run))
        # htmx swaps 2xx only: the form with its errors is the answer, so it comes with 200.
        context["scale_errors"] = {error.field: error.message}
        return render(request, "playground/runs/partials/scale_form.html", context)
    run_service.run_enqueue(run=run, actor=actor, kind=RunAction.KIND_CLUSTER, params=params)
    text = f"Queued: scale {values['deployment']} to {params['replicas']}"
    if not request.htmx:
        messages.info(request, text)
        return redirect(_run_url(run))
    context.update(scale_values={"deployment": values["deployment"], "replicas": ""}, scale_flash=text)
    return render(request, "playground/runs/partials/scale_form.html", context)


def _run_action(request: HttpRequest, run: Any) -> HttpResponse:
    action = request.POST.get("action", "")
    if action == "predict":
        return _predict(request, run)
    if action in ("present", "stop_presenting"):
        if not can_control(run=run, actor=actor_for_request(request)):
            return _flash(request, run, "Only the run's owner can present it; fork it to present your own.", error=True, status=403)
        classroom.set_presenting(request.session, run.share_token, action == "present")
        if action == "present":
            classroom.publish(run.pk, None)
        return _go(request, _run_url(run))
    actor = actor_for_request(request, create=action == "fork")
    try:
        if action == "fork":
            step = _int_param(request.POST.get("step"))
            fork = run_service.run_fork(run=run, actor=actor, step=run.head_step if step is None else step)
            return _go(request, _run_url(fork))
        if action in SIMPLE_ACTIONS:
            queued = run_service.run_enqueue(run=run, actor=actor, kind=SIMPLE_ACTIONS[action])
            if queued.state == RunAction.STATE_DONE:  # a settled run's Step or Play: recorded at once
                return _flash(request, run, f"{queued.get_kind_display()}: nothing to do, the run has settled.",
                              action=queued.index)
            return _flash(request, run, f"Queued: {queued.get_kind_display()}", action=queued.index)
        if action == "run_clock":
            params = {"seconds": request.POST.get("seconds", "")}
            queued = run_service.run_enqueue(run=run, actor=actor, kind=RunAction.KIND_ADVANCE_CLOCK, params=params)
            text = f"Queued: let the clock run {queued.params['seconds']:g} s"
            return _flash(request, run, text, field_errors=_field_errors(request, action), action=queued.index)
        if action == "fast_forward":  # Run to the end / to cycle N / to time T
            to = request.POST.get("to", "")
            params = {"to": to, "value": request.POST.get(to, "")}
            queued = run_service.run_enqueue(run=run, actor=actor, kind=RunAction.KIND_PLAY, params=params)
            if queued.state == RunAction.STATE_DONE:
                text = "Nothing to do: the run has settled."
            else:
                text = f"Queued: {fast_forward.describe(queued.params)}"
            return _flash(request, run, text, field_errors=_field_errors(request, action), action=queued.index)
        if action == "pause":
            paused = run_service.run_pause(run=run, actor=actor)
            return _flash(request, run, "Pausing after the current step…" if paused else "Nothing is playing.")
        if action == "speed":
            raw = request.POST.get("speed") or "0"
            try:
                speed = float(raw)
            except ValueError:
                raise run_errors.RunError(f"speed: {raw!r} is not a number of steps per second.") from None
            if speed not in run_service.SPEEDS:
                choices = ", ".join(f"{s:g}" for s in run_service.SPEEDS)
                raise run_errors.RunError(f"speed: {raw!r} is not one of the speeds ({choices}; 0 is max).")
            run_service.run_set_speed(run=run, actor=actor, speed=speed)
            text = "Speed: " + (f"{speed:g} steps/s" if speed else "as fast as possible")
            return _flash(request, run, text, field_errors=_field_errors(request, action))
        if action == "cluster" and request.POST.get("what") == "scaleDeployment":
            return _scale(request, run, actor)
        if action == "cluster":
            params = run_forms.cluster_action_from_form(request.POST)
            queued = run_service.run_enqueue(run=run, actor=actor, kind=RunAction.KIND_CLUSTER, params=params)
            return _flash(
                request, run, f"Queued: {params['action']}", field_errors=_cluster_field_errors(request),
                action=queued.index,
            )
    except PermissionDenied as error:
        return _flash(request, run, str(error), error=True, status=403)
    except (run_errors.RunError, ValueError) as error:
        fields = _field_errors(request, action, error)
        return _flash(request, run, getattr(error, "message", str(error)), error=True, status=400, field_errors=fields)
    return _flash(request, run, "Unknown action.", error=True, status=400)
