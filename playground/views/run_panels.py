"""The run page's searchable, paged parts, fetched with htmx GETs (never pushed whole over the
websocket): they keep the viewer's query and page across live updates.

GET /runs/<token>/cluster/?q=&filter=&plugin=&page=      the cluster panel's body (heatmap + cards)
GET /runs/<token>/map/?map_zone=&map_page=                the cluster map's body (a zone's nodes at 500+ nodes)
GET /runs/<token>/node/?node=<name>                       one node's detail
GET /runs/<token>/pods/?q=&status=&page=                  the pods table
GET /runs/<token>/storage/?storage_q=&storage_show=&page= the storage panel's table (claims or volumes)
GET /runs/<token>/devices/?dq=&free=&dpage=               the devices (DRA) panel's node cards
GET /runs/<token>/events/?q=&page=                        the Kubernetes events
GET /runs/<token>/log/?q=&type=&page=                     a search of the engine's event log
GET /runs/<token>/log/gap/?after=&upto=                 the log rows a live viewer's log skipped, a page at a time
GET /runs/<token>/filter-group/?group=<i>&page=           one Filter outcome group's nodes
GET /runs/<token>/scores/?page=                           the whole score table, a page at a time
Each takes `step` (the step the viewer's page shows; default: the head) and `pinned=1` for a
read-only viewer of a past step. The panels' pages (cluster, map, pods, storage, devices, events)
are one view, `run_panel`, with one URL per paged panel of the panel registry
(presenters/runs/panels.py).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from playground.ownership import actor_for_request
from playground.presenters.runs import Screen, cycle_groups, panels, run_screen
from playground.presenters.runs import cluster as cluster_panel
from playground.presenters.runs.events import search_events
from playground.presenters.runs.paging import int_param, param
from playground.selectors import runs as run_selectors

PARTIALS = "playground/runs/partials/"


def _screen(request: HttpRequest, token: str) -> tuple[Any, Screen]:
    run = run_selectors.run_by_share_token(token=token)
    step = int_param(request.GET, "step", -1)
    pinned = param(request.GET, "pinned") == "1"
    if step < 0 or (not pinned and step >= run.head_step):
        step = None  # the head
    screen = run_screen(run=run, actor=actor_for_request(request), step=step, params=request.GET, pinned=pinned)
    return run, screen


def _context(run: Any, screen: Screen, **extra: Any) -> dict[str, Any]:
    return {"run": run, "screen": screen, "oob": True, **extra}


@require_GET
def run_panel(request: HttpRequest, token: str, key: str) -> HttpResponse:
    """A paged panel's body (cluster, map, devices, pods, storage, events, ...: every panel of the
    registry with `paged`), for the viewer's query and page."""
    panel = panels.REGISTRY[key]
    assert panel.paged is not None  # the URL exists for paged panels only (playground/urls.py)
    run, screen = _screen(request, token)
    return render(request, PARTIALS + panel.paged.body, _context(run, screen, **panel.paged.context(screen)))


@require_GET
def run_node(request: HttpRequest, token: str) -> HttpResponse:
    run, screen = _screen(request, token)
    name = param(request.GET, "node")
    if not name:  # a click between the heatmap's cells
        return HttpResponse("")
    card = cluster_panel.node(screen, name)
    return render(request, PARTIALS + "node_detail.html", _context(run, screen, n=card, name=name))


@require_GET
def run_log(request: HttpRequest, token: str) -> HttpResponse:
    run, screen = _screen(request, token)
    page, query = search_events(run=run, upto_seq=screen.shown_seq, params=request.GET, types=None, size=100)
    return render(request, PARTIALS + "log_search.html", _context(run, screen, page=page, query=query))


@require_GET
def run_log_gap(request: HttpRequest, token: str) -> HttpResponse:
    """Fill a gap of a viewer's event log in place: the oldest LOG_LIMIT rows of it, followed by
    another gap marker if more remain, so the log is complete after enough clicks."""
    run = run_selectors.run_by_share_token(token=token)
    after = max(0, int_param(request.GET, "after", 0))
    upto = min(int_param(request.GET, "upto", run.last_seq), run.last_seq)
    log, rest = run_selectors.log_range(run=run, after_seq=after, upto_seq=upto)
    context = {"run": run, "log": log, "omitted": 0, "rest": rest, "rest_upto": upto}
    context["rest_after"] = log[-1]["seq"] if log else after
    return render(request, PARTIALS + "log_rows.html", context)


@require_GET
def run_filter_group(request: HttpRequest, token: str) -> HttpResponse:
    run, screen = _screen(request, token)
    index = int_param(request.GET, "group", -2)
    group, page = cycle_groups.group_nodes(screen, index, int_param(request.GET, "page"))
    context = _context(
        run,
        screen,
        group=group,
        page=page,
        group_url=reverse("playground:run_filter_group", args=[run.share_token]),
    )
    return render(request, PARTIALS + "group_nodes.html", context)


@require_GET
def run_scores(request: HttpRequest, token: str) -> HttpResponse:
    run, screen = _screen(request, token)
    page = cycle_groups.score_page(screen.scores, int_param(request.GET, "page"))
    context = _context(
        run,
        screen,
        scores=screen.scores,
        page=page,
        step=screen.step,
        scores_url=reverse("playground:run_scores", args=[run.share_token]),
    )
    return render(request, PARTIALS + "score_page.html", context)
