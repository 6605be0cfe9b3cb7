"""The preemption panel (partials/preemption.html): the candidates, the chosen node and why,
the victims deleted and the nomination."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.selectors.frame_views import pods_by_key

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen


def preemption(screen: Screen) -> dict[str, Any] | None:
    event = screen.first("preemption")
    if event is None:
        return None
    # The victims as they were before this cycle deleted them: priority and status.startTime are
    # what DefaultPreemption compared ("latest start time of highest-priority victims").
    known = pods_by_key(screen.before)
    candidates = []
    for candidate in event.get("candidates", []):
        victims = []
        for key in candidate.get("victims", []):
            record = known.get(key, {})
            victims.append({"key": key, "priority": record.get("priority"), "start_time": record.get("startTime")})
        candidates.append({**candidate, "victim_items": victims})
    return {
        "event": event,
        "preemptor": event.get("pod"),
        "preemptor_priority": (screen.first("cycle_started") or {}).get("priority"),
        "candidates": candidates,
        "chosen": event.get("chosen"),
        "why": event.get("why", ""),
        "why_note": start_time_note(event.get("why", ""), candidates),
        "victims_deleted": screen.all("victim_deleted"),
        "nominated": [e for e in screen.all("nominated") if e.get("pod") == event.get("pod")],
    }


START_TIME_CRITERION = "latest start time of highest-priority victims"  # the engine's "why" text


def start_time_note(why: str, candidates: list[dict[str, Any]]) -> str:
    """When the start-time criterion decided but victims had no status.startTime: upstream's
    GetPodStartTime answers "now" for them, read at each comparison, so the node compared last
    looks latest and the order of evaluation decided, not a real start time. Kept as upstream
    does it (a cluster without kubelets behaves the same); said here so nobody reads more into it."""
    if why != START_TIME_CRITERION:
        return ""
    top = [
        [v for v in c["victim_items"] if v["priority"] == max((x["priority"] or 0) for x in c["victim_items"])]
        for c in candidates if c["victim_items"]
    ]
    missing = [all(v["start_time"] is None for v in victims) for victims in top]
    if missing and all(missing):
        return ("No victim here has a start time (no kubelet sets status.startTime in the playground), so "
                "upstream counts each one as “now”, read when it is compared: the node compared last looks "
                "latest. The order of evaluation decided, not when the pods started. Give running pods "
                "status.startTime in the scenario to make real start times decide.")
    if any(missing):
        return ("Victims without a start time (status.startTime) count as “now”: later than any real start time.")
    return ""
