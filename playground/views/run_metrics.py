"""A run's metrics: the charts page and the Prometheus text exposition (anyone with the run's
link, like the run page), at the head, at `?step=N` or at `?cycle=N`.

Both are recomputed from the stored events up to that point, once per version of the run (the
key: its head and last event, and the address asked for), then served from the cache: a class
opening the same link costs one recomputation. The page and the text also carry the engine's own
wall time per plugin that the worker stored with each frame (not recomputed: measured once)."""

from __future__ import annotations

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from playground.models import Run, RunFrame
from playground.presenters.runs.metrics import metrics_page, wall_page
from playground.presenters.runs.paging import int_param
from playground.selectors import run_metrics as metrics_selectors
from playground.selectors import runs as run_selectors
from playground.views import read_cache
from scheduler_core.metrics import exposition

EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _at(request: HttpRequest, token: str) -> tuple[Run, RunFrame, bool]:
    run = run_selectors.run_by_share_token(token=token)
    step, cycle = int_param(request.GET, "step", -1), int_param(request.GET, "cycle", -1)
    frame = run_selectors.frame_for(run=run, step=None if step < 0 else step, cycle=None if cycle < 0 else cycle)
    return run, frame, step >= 0 or cycle >= 0


def _key(kind: str, request: HttpRequest, run: Run, frame: RunFrame) -> str:
    return read_cache.cache_key(kind, (run.pk, run.share_token, run.head_step, run.last_seq, frame.step,
                                       request.get_host(), request.get_full_path()))


@require_GET
def run_metrics(request: HttpRequest, token: str) -> HttpResponse:
    run, frame, pinned = _at(request, token)

    def page() -> HttpResponse:
        timeline = metrics_selectors.metrics_upto(run=run, frame=frame)
        run_url = reverse("playground:run", args=[run.share_token])
        wall = metrics_selectors.plugin_wall_upto(run=run, frame=frame)
        context = metrics_page(points=timeline.points, metrics=timeline.metrics, run_url=run_url,
                               steps=timeline.steps)
        context.update(wall_page(wall.points, wall.totals, run_url))
        context.update(run=run, frame=frame, pinned=pinned, run_url=run_url)
        return render(request, "playground/runs/metrics.html", context)

    return read_cache.serve(request, _key("run-metrics", request, run, frame), page)


@require_GET
def run_metrics_text(request: HttpRequest, token: str) -> HttpResponse:
    run, frame, _ = _at(request, token)
    key = _key("run-metrics-text", request, run, frame)
    text = cache.get(key)
    if text is None:
        wall = metrics_selectors.plugin_wall_upto(run=run, frame=frame, max_points=1).totals
        text = exposition(metrics_selectors.metrics_at(run=run, frame=frame), wall)
        cache.set(key, text, read_cache.TIMEOUT)
    return HttpResponse(text, content_type=EXPOSITION_CONTENT_TYPE)
