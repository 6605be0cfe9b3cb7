"""The scheduling queues panel (partials/queues.html): activeQ, backoffQ with countdowns, the
unschedulable pool, and the queue moves of this step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.frame_views import QUEUE_NAMES
from playground.presenters.runs.moves import moved

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen


QUEUE_SHOW = 25  # pods listed per queue, in pop order (the count says how many there are)


def queues(screen: Screen) -> dict[str, Any]:
    q = screen.view.get("queues", {})
    clock = screen.clock
    counts = {name: (q.get("counts") or {}).get(name, len(q.get(name, []))) for name in QUEUE_NAMES}
    active = [dict(p, moved=moved(screen, p["pod"], "activeQ")) for p in q.get("activeQ", [])[:QUEUE_SHOW]]
    backoff = []
    for p in q.get("backoffQ", [])[:QUEUE_SHOW]:
        expiry = p.get("backoffExpiry")
        backoff.append(
            dict(
                p,
                moved=moved(screen, p["pod"], "backoffQ"),
                countdown=None if expiry is None else max(0.0, float(expiry) - clock),
            )
        )
    unschedulable = [
        dict(p, moved=moved(screen, p["pod"], "unschedulable")) for p in q.get("unschedulable", [])[:QUEUE_SHOW]
    ]
    return {
        "counts": counts,
        "hidden": {name: counts[name] - min(counts[name], QUEUE_SHOW) for name in QUEUE_NAMES},
        "activeQ": active,
        "backoffQ": backoff,
        "unschedulable": unschedulable,
        "inFlight": q.get("inFlight", []),
        "summary": q.get("summary", ""),
    }


def moves(screen: Screen) -> list[dict[str, Any]]:
    return screen.all("queue_move")


def start_entries(screen: Screen) -> dict[str, Any] | None:
    """A big start's queue entries, which the web stores as one `start_summary` event (count,
    moves [{to, reason, count, pods: the first few}]) instead of one queue move per pod; None
    at any other frame, or when the start's moves are stored one by one (`moves`)."""
    return screen.first("start_summary")


def hint_skips(screen: Screen) -> list[dict[str, Any]]:
    """This step's cluster events whose queueing hints kept pods in the unschedulable pool."""
    return screen.all("queue_hints_skipped")
