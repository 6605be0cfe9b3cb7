"""The events panel (partials/events.html, events_body.html): the Kubernetes events, like
kubectl get events; newest first, searched and paged in the database."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import TextField
from django.db.models.functions import Cast

from playground.models import Run, RunEvent
from playground.presenters.runs.paging import Page, int_param, param

EVENTS_TABLE_LIMIT = 50  # rows per page


def k8s_events(*, run: Run, upto_seq: int) -> list[dict[str, Any]]:
    """The newest Kubernetes events up to `upto_seq`, newest first, with preemptor names."""
    events = list(
        RunEvent.objects.filter(run=run, type="k8s_event", seq__lte=upto_seq)
        .order_by("-seq")
        .values_list("data", flat=True)[:EVENTS_TABLE_LIMIT]
    )
    return with_preemptors(run=run, events=events)


def with_preemptors(*, run: Run, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Preempted event names its preemptor by UID, as upstream's does (the victim's event
    message is upstream's text); `preemptor` adds the name, from the `victim_deleted` event that
    follows it in the same cycle (the first one for that pod after the Preempted event)."""
    victims = {e.get("object") for e in events if e.get("reason") == "Preempted"}
    if not victims:
        return events
    deletions: dict[str, list[tuple[int, str]]] = {}
    for d in RunEvent.objects.filter(run=run, type="victim_deleted").order_by("seq").values_list("data", flat=True):
        if d.get("pod") in victims and d.get("preemptor"):
            deletions.setdefault(d["pod"], []).append((int(d.get("seq") or 0), d["preemptor"]))

    def preemptor(event: dict[str, Any]) -> str | None:
        seq = int(event.get("seq") or 0)
        return next((name for s, name in deletions.get(event.get("object"), []) if s > seq), None)

    return [{**e, "preemptor": preemptor(e)} if e.get("reason") == "Preempted" else e for e in events]


def search_events(
    *,
    run: Run,
    upto_seq: int,
    params: Mapping[str, Any] | None,
    types: tuple[str, ...] | None = ("k8s_event",),
    size: int = EVENTS_TABLE_LIMIT,
) -> tuple[Page, dict[str, str]]:
    """A page (newest first) of the run's events up to `upto_seq` whose text contains `q`
    (`types`: which event types; None: all, optionally narrowed by the `type` parameter)."""
    rows = RunEvent.objects.filter(run=run, seq__lte=upto_seq)
    query = {"q": param(params, "q"), "type": param(params, "type")}
    if types is not None:
        rows = rows.filter(type__in=types)
    elif query["type"]:
        rows = rows.filter(type=query["type"])
    if query["q"]:
        rows = rows.annotate(text=Cast("data", TextField())).filter(text__icontains=query["q"])
    total = rows.count()
    pages = max(1, -(-total // size))
    number = min(max(1, int_param(params, "page")), pages)
    data = list(rows.order_by("-seq").values_list("data", flat=True)[(number - 1) * size : number * size])
    data = with_preemptors(run=run, events=data)
    return Page(items=data, number=number, pages=pages, total=total, size=size), query
