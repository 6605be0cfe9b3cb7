"""The timeline (partials/timeline.html): a scrubber over every step of the run, with markers where
something a learner looks for happened: a FailedScheduling event, a preemption, an eviction, a
cluster change. Going to a step opens it pinned and read-only (?step=), where it can be forked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.models import RunEvent

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

MARKERS_PER_KIND = 150
_KINDS = {
    "failed": "FailedScheduling",
    "preemption": "preemption",
    "eviction": "eviction",
    "change": "cluster change",
}


def _kind(data: dict[str, Any]) -> str | None:
    kind = data.get("type")
    if kind == "k8s_event" and data.get("reason") == "FailedScheduling":
        return "failed"
    if kind == "preemption" and data.get("chosen"):
        return "preemption"
    if kind == "pod_deleted" and data.get("by") == "TaintManagerEviction":
        return "eviction"
    if kind == "cluster_action":
        return "change"
    return None


def _label(kind: str, data: dict[str, Any]) -> str:
    pod = str(data.get("object") or data.get("pod") or "")
    if kind == "failed":
        return f"FailedScheduling {pod}"
    if kind == "preemption":
        return f"{pod} preempts on {data.get('chosen')}"
    if kind == "eviction":
        return f"{pod} evicted"
    return f"cluster change: {data.get('action')}"


def timeline(screen: Screen) -> dict[str, Any]:
    """The scrubber's range (0..head) and its markers, at most MARKERS_PER_KIND of each kind."""
    run = screen.run
    head = max(int(run.head_step), 1)
    markers: list[dict[str, Any]] = []
    counts = dict.fromkeys(_KINDS, 0)
    events = RunEvent.objects.filter(run=run)
    queries = {
        "failed": events.filter(type="k8s_event", data__reason="FailedScheduling"),
        "preemption": events.filter(type="preemption"),
        "eviction": events.filter(type="pod_deleted", data__by="TaintManagerEviction"),
        "change": events.filter(type="cluster_action"),
    }
    for kind, query in queries.items():
        for step, data in query.order_by("seq").values_list("step", "data")[:MARKERS_PER_KIND]:
            if _kind(data) != kind:
                continue
            counts[kind] += 1
            markers.append(
                {"step": step, "kind": kind, "label": _label(kind, data), "pct": round(step / head * 100, 2)}
            )
    markers.sort(key=lambda m: m["step"])
    return {
        "head": int(run.head_step),
        "markers": markers,
        "legend": [{"kind": k, "text": t, "count": counts[k]} for k, t in _KINDS.items()],
        "steps": sorted({m["step"] for m in markers}),
    }
