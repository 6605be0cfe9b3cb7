"""The waiting stage panel (partials/waiting.html): pods parked at Permit (who, on which node,
since when, for which plugin), their pod group's progress toward minCount, the countdown to the
group's deadline on the virtual clock, and the Permit timeout rejections so far.

No default plugin waits at Permit; with the GangScheduling gate a gang's members do, which makes
the binding cycle's waiting stage visible."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

TIMEOUT_MARK = "rejected due to timeout after waiting"


def waiting(screen: Screen) -> list[dict[str, Any]]:
    clock = screen.clock
    items = []
    for w in screen.view.get("waitingPods", []):
        deadline = w.get("deadline")
        since = w.get("since", clock)
        item = dict(w, waited=max(clock - since, 0.0), plugin_names=sorted(w.get("plugins", {})))
        if deadline is not None:
            span = max(deadline - since, 0.0)
            left = max(deadline - clock, 0.0)
            item.update(countdown=left, pct=100 if span == 0 else round((span - left) / span * 100))
        g = w.get("group")
        if g and g.get("minCount"):
            have = g.get("assumed", 0) + g.get("bound", 0)
            item["progress"] = {"have": have, "need": g["minCount"],
                                "pct": min(100, round(have / g["minCount"] * 100))}
        items.append(item)
    return items


def waiting_groups(screen: Screen) -> list[dict[str, Any]]:
    """One line per pod group with members waiting (the members, progress and deadline)."""
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for item in screen.waiting:
        g = item.get("group")
        if not g:
            continue
        key = (g["workload"], g["podGroup"], g.get("replicaKey", ""))
        entry = groups.setdefault(key, {**g, "waiting": [], "progress": item.get("progress"),
                                        "countdown": item.get("countdown"), "deadline": item.get("deadline")})
        entry["waiting"].append(item["pod"])
    return list(groups.values())


def permit_rejections(screen: Screen) -> list[dict[str, Any]]:
    """The FailedScheduling events of Permit timeouts so far, newest first."""
    return [e for e in screen.k8s_events if e.get("reason") == "FailedScheduling"
            and TIMEOUT_MARK in e.get("message", "")]
