"""Where each pod is in a frame's view, to mark what moved since the frame before."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen


def where(view: dict[str, Any]) -> dict[str, str]:
    """pod -> where it is in a view (a queue, or a node), to show what moved between frames."""
    found: dict[str, str] = {}
    for queue in ("activeQ", "backoffQ", "unschedulable"):
        for item in view.get("queues", {}).get(queue, []):
            found[item["pod"]] = queue
    for node in view.get("nodes", []):
        for pod in node.get("pods", []):
            found[pod] = "node:" + node["name"]
        for pod in node.get("nominated", []):
            found.setdefault(pod, "nominated:" + node["name"])
    return found


def moved(screen: Screen, pod: str, here: str) -> str:
    """Where `pod` came from ("activeQ", "node", "new", ...), or "" if it did not move."""
    before = screen.previous_where.get(pod)
    if before == here:
        return ""
    return (before or "new").split(":")[0]
