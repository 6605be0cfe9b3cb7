"""The evictions panel (partials/evictions.html): NoExecute evictions pending with their
countdowns, and the timeline of evictions scheduled, cancelled and done, the descheduler's
included (its evictions, by strategy, and the ones the eviction API refused), and a drainNode's
lines in kubectl's words."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.models import Run, RunEvent

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

HISTORY_LIMIT = 200
_HISTORY_TYPES = ["evicted", "eviction_scheduled", "eviction_cancelled", "pod_deleted",
                  "descheduler_evicted", "descheduler_eviction_failed", "drain"]  # drain: kubectl's lines


def evictions(screen: Screen) -> list[dict[str, Any]]:
    clock = screen.clock
    items = []
    for ev in screen.view.get("evictions", []):
        at, created = float(ev["at"]), float(ev.get("createdAt", clock))
        span = max(at - created, 0.0)
        left = max(at - clock, 0.0)
        items.append(dict(ev, countdown=left, pct=100 if span == 0 else round((span - left) / span * 100)))
    return items


def eviction_history(*, run: Run, upto_seq: int) -> list[dict[str, Any]]:
    """The eviction events up to `upto_seq` (deletions only when the taint manager made them)."""
    return [
        e
        for e in RunEvent.objects.filter(run=run, type__in=_HISTORY_TYPES, seq__lte=upto_seq)
        .order_by("seq")
        .values_list("data", flat=True)[:HISTORY_LIMIT]
        if e["type"] != "pod_deleted" or e.get("by") == "TaintManagerEviction"
    ]
