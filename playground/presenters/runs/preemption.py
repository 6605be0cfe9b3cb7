"""The preemption panel (partials/preemption.html): the candidates, the chosen node and why,
the victims deleted and the nomination."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen


def preemption(screen: Screen) -> dict[str, Any] | None:
    event = screen.first("preemption")
    if event is None:
        return None
    # The victims as they were before this cycle deleted them: priority and status.startTime are
    # what DefaultPreemption compared ("latest start time of highest-priority victims").
    known = {p["key"]: p for p in screen.before.get("pods", [])}
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
        "victims_deleted": screen.all("victim_deleted"),
        "nominated": [e for e in screen.all("nominated") if e.get("pod") == event.get("pod")],
    }
