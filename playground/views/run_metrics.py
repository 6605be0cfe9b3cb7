"""A run's metrics: the charts page and the Prometheus text exposition (anyone with the run's
link, like the run page), at the head or at `?step=N`."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from playground.models import Run, RunFrame
from playground.presenters.runs.metrics import metrics_page
from playground.presenters.runs.paging import int_param
from playground.selectors import run_metrics as metrics_selectors
from playground.selectors import runs as run_selectors
from scheduler_core.metrics import exposition

EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _at(request: HttpRequest, token: str) -> tuple[Run, RunFrame, bool]:
    run = run_selectors.run_by_share_token(token=token)
    step = int_param(request.GET, "step", -1)
    frame = run_selectors.frame_for(run=run, step=None if step < 0 else step)
    return run, frame, step >= 0


@require_GET
def run_metrics(request: HttpRequest, token: str) -> HttpResponse:
    run, frame, pinned = _at(request, token)
    timeline = metrics_selectors.metrics_upto(run=run, frame=frame)
    run_url = reverse("playground:run", args=[run.share_token])
    context = metrics_page(points=timeline.points, metrics=timeline.metrics, run_url=run_url, steps=timeline.steps)
    context.update(run=run, frame=frame, pinned=pinned, run_url=run_url)
    return render(request, "playground/runs/metrics.html", context)


@require_GET
def run_metrics_text(request: HttpRequest, token: str) -> HttpResponse:
    run, frame, _ = _at(request, token)
    metrics = metrics_selectors.metrics_at(run=run, frame=frame)
    return HttpResponse(exposition(metrics), content_type=EXPOSITION_CONTENT_TYPE)
