"""Downloads of a run's results (`presenters/runs/export.py`): JSON, and CSV for the pods and
the events. Anyone with the run's link may download them, at the head or at `?step=N`."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from playground.ownership import actor_for_request
from playground.presenters.runs import export
from playground.presenters.runs.paging import int_param
from playground.presenters.runs.picker import run_screen
from playground.presenters.runs.screen import Screen
from playground.selectors import runs as run_selectors


def _screen(request: HttpRequest, token: str) -> Screen:
    run = run_selectors.run_by_share_token(token=token)
    step = int_param(request.GET, "step", -1)
    return run_screen(run=run, actor=actor_for_request(request), step=None if step < 0 else step,
                      pinned=step >= 0)


def _filename(screen: Screen, what: str, ext: str) -> str:
    return f"{slugify(screen.run.scenario_name) or 'run'}-step-{screen.step}-{what}.{ext}"


@require_GET
def run_export_json(request: HttpRequest, token: str) -> HttpResponse:
    screen = _screen(request, token)
    response = HttpResponse(json.dumps(export.results(screen), indent=1), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{_filename(screen, "results", "json")}"'
    return response


@require_GET
def run_export_csv(request: HttpRequest, token: str, what: str) -> HttpResponse:
    screen = _screen(request, token)
    if what == "pods":
        lines = export.csv_text(export.pod_rows(screen), export.POD_COLUMNS)
    else:
        lines = export.csv_text(export.event_rows(screen), export.EVENT_COLUMNS)
    response = HttpResponse("".join(lines), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_filename(screen, what, "csv")}"'
    return response
