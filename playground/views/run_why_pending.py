"""GET /runs/<token>/why-pending/: the run's pending pods grouped by reason, at its head (the
last stored frame), each group linking to the cycle where one of its pods was last tried."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from playground.presenters.runs.why_pending import pending_keys, why_pending
from playground.selectors.frame_views import view_at
from playground.selectors.run_why_pending import last_tried_cycles
from playground.selectors.runs import run_by_share_token


@require_GET
def run_why_pending(request: HttpRequest, token: str) -> HttpResponse:
    run = run_by_share_token(token=token)
    view = view_at(run=run, step=run.head_step)
    cycles = last_tried_cycles(run=run, pods=set(pending_keys(view)))
    report = why_pending(view, cycles)
    return render(request, "playground/runs/why_pending.html",
                  {"run": run, "step": run.head_step, "report": report})
