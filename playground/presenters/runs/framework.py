"""The scheduling framework, live (partials/framework.html): the extension points in the order
a cycle reaches them, the point the screen has reached lit, and each plugin's status in this
frame as the engine recorded it (plugins the profile enables, from the run_started event)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scheduler_core.events.compact import iter_verdicts, prefilter_results, score_table

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

# (extension point, key in run_started's profile, the inspector's point group that reaches it)
POINTS: list[tuple[str, str, str]] = [
    ("PreEnqueue", "preEnqueue", "queue"),
    ("QueueSort", "queueSort", "queue"),
    ("PreFilter", "preFilter", "prefilter"),
    ("Filter", "filter", "filter"),
    ("PostFilter", "postFilter", "postfilter"),
    ("PreScore", "preScore", "score"),
    ("Score", "score", "score"),
    ("NormalizeScore", "score", "score"),
    ("Reserve", "reserve", "bind"),
    ("Permit", "permit", "bind"),
    ("PreBind", "preBind", "bind"),
    ("Bind", "bind", "bind"),
    ("PostBind", "postBind", "bind"),
]


def _filter_status(screen: Screen) -> dict[str, str]:
    event = screen.first("filter_verdicts")
    if event is None:
        return {}
    status: dict[str, str] = {}
    for _node, verdicts in iter_verdicts(event):
        for plugin, verdict in verdicts.items():
            code = verdict.get("code")
            if code in ("Unschedulable", "UnschedulableAndUnresolvable", "Error"):
                status[plugin] = "rejected"
            elif code == "Success" and status.get(plugin) != "rejected":
                status[plugin] = "passed"
            elif code == "Skip":
                status.setdefault(plugin, "skipped")
    return status


def _statuses(screen: Screen) -> dict[str, dict[str, str]]:
    """point -> plugin -> "passed" | "rejected" | "skipped" | "ran" | "waiting", for this frame."""
    out: dict[str, dict[str, str]] = {name: {} for name, _, _ in POINTS}
    for e in prefilter_results(screen.all("prefilter")):
        out["PreFilter"][e["plugin"]] = {"Success": "passed", "Skip": "skipped"}.get(e.get("code"), "rejected")
    out["Filter"] = _filter_status(screen)
    for e in screen.all("postfilter"):
        out["PostFilter"][e["plugin"]] = "passed" if e.get("code") == "Success" else "no help"
    preemption = screen.first("preemption")
    if preemption is not None:
        out["PostFilter"][preemption.get("plugin") or "DefaultPreemption"] = (
            "preempted" if preemption.get("chosen") else "no help"
        )
    scores = screen.first("scores")
    if scores is not None:
        for plugin in score_table(scores).plugins:
            out["Score"][plugin] = "ran"
            out["NormalizeScore"][plugin] = "ran"
    for e in screen.all("extension_point"):
        point = e.get("point")
        if point in out:
            out[point][e.get("plugin") or "(all)"] = "passed" if e.get("code") == "Success" else e.get("code", "")
    for e in screen.all("permit_wait"):
        out["Permit"][e.get("plugin", "")] = "waiting"
    return out


def framework(screen: Screen) -> list[dict[str, Any]]:
    """One entry per extension point: its plugins with their status, reached or lit."""
    profile_name = (screen.first("cycle_started") or {}).get("profile") or "default-scheduler"
    profiles = (screen.profiles or {}).get(profile_name) or {}
    statuses = _statuses(screen)
    reached = set(screen.groups[: screen.reveal] if screen.reveal is not None else screen.groups)
    current_group = screen.point_reached
    lit = [name for name, _, group in POINTS if group == current_group]
    if current_group == "bind":
        ran = [e.get("point") for e in screen.all("extension_point")]
        lit = [ran[-1]] if ran else lit[:1]
    elif current_group == "score":
        lit = ["Score", "NormalizeScore"] if screen.first("scores") else lit
    elif current_group == "queue":
        lit = ["QueueSort"]
    points = []
    for name, key, group in POINTS:
        plugins = []
        for plugin in profiles.get(key) or []:
            plugins.append({"name": plugin, "status": statuses[name].get(plugin, "")})
        for plugin, status in statuses[name].items():
            if plugin not in (profiles.get(key) or []):
                plugins.append({"name": plugin, "status": status})
        points.append(
            {"name": name, "plugins": plugins, "reached": group in reached, "current": name in lit}
        )
    return points
