"""The cluster panel at scale: find nodes by name or label, filter them, see every node at once.

- `node_filters`: what the filter menu offers (tainted, cordoned, has nominated pods, pending
  eviction, rejected by plugin X in this step's cycle), with how many nodes each matches;
- `matching_nodes`: the nodes a query selects, in the engine's node order;
- `heatmap`: one cell per node (utilisation bucket, status marks, whether it matches the query).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from playground.presenters.runs.paging import param
from scheduler_core.events.compact import iter_verdicts

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

FILTERS = {
    "": "all nodes",
    "tainted": "tainted",
    "cordoned": "cordoned",
    "nominated": "has nominated pods",
    "evicting": "pending eviction",
    "rejected": "rejected this cycle by…",
}
# Verdicts that are no rejection: passed, skipped by PreFilter, never run (an earlier plugin had
# already rejected the node), or cancelled (the node passed after the search had enough).
NOT_REJECTING = ("Success", "Skip", "NotEvaluated", "Cancelled")


def rejected_by(screen: Screen) -> dict[str, set[str]]:
    """plugin -> the nodes it rejected in this step's scheduling cycle. A plugin that never ran
    on a node (NotEvaluated) did not reject it, whatever rejected it first."""
    event = screen.first("filter_verdicts")
    result: dict[str, set[str]] = {}
    for node, verdicts in (iter_verdicts(event) if event else ()):
        for plugin, verdict in verdicts.items():
            if (verdict or {}).get("code") not in NOT_REJECTING:
                result.setdefault(plugin, set()).add(node)
    return result


def _evicting(screen: Screen) -> set[str]:
    return {e.get("node") for e in screen.view.get("evictions", [])}


def _test(screen: Screen, kind: str, plugin: str) -> Any:
    if kind == "tainted":
        return lambda n: bool(n.get("taints"))
    if kind == "cordoned":
        return lambda n: bool(n.get("unschedulable"))
    if kind == "nominated":
        return lambda n: bool(n.get("nominated"))
    if kind == "evicting":
        evicting = _evicting(screen)
        return lambda n: n["name"] in evicting
    if kind == "rejected":
        rejected = rejected_by(screen).get(plugin, set()) if plugin else set().union(*rejected_by(screen).values())
        return lambda n: n["name"] in rejected
    return lambda n: True


def _text_test(text: str) -> Any:
    """Name or label match, case-insensitive: `zone-1` finds a name or any label key or value
    containing it; `key=value` matches that label exactly."""
    needle = text.lower()
    if "=" in needle:
        key, _, value = text.partition("=")
        return lambda n: (n.get("labels") or {}).get(key.strip()) == value.strip()
    return lambda n: (
        needle in n["name"].lower()
        or any(needle in k.lower() or needle in str(v).lower() for k, v in (n.get("labels") or {}).items())
    )


def matching_nodes(screen: Screen, params: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    nodes = screen.view.get("nodes", [])
    kind, plugin, text = param(params, "filter"), param(params, "plugin"), param(params, "q")
    if kind in FILTERS and kind:
        test = _test(screen, kind, plugin)
        nodes = [n for n in nodes if test(n)]
    if text:
        test = _text_test(text)
        nodes = [n for n in nodes if test(n)]
    return nodes


def node_filters(screen: Screen) -> dict[str, Any]:
    nodes = screen.view.get("nodes", [])
    evicting = _evicting(screen)
    rejected = rejected_by(screen)
    return {
        "choices": list(FILTERS.items()),
        "counts": {
            "": len(nodes),
            "tainted": sum(1 for n in nodes if n.get("taints")),
            "cordoned": sum(1 for n in nodes if n.get("unschedulable")),
            "nominated": sum(1 for n in nodes if n.get("nominated")),
            "evicting": sum(1 for n in nodes if n["name"] in evicting),
            "rejected": len(set().union(*rejected.values())) if rejected else 0,
        },
        "plugins": sorted((p, len(ns)) for p, ns in rejected.items()),
    }


def utilisation(node: dict[str, Any]) -> int:
    """The node's fullest resource (cpu, memory, pods), 0-100. Called for every node of the
    heatmap on every render, hence written out by hand."""
    alloc, req = node.get("allocatable") or {}, node.get("requested") or {}
    top = 0.0
    for resource in ("cpu", "memory"):
        capacity = float(alloc.get(resource) or 0)
        if capacity:
            used = float(req.get(resource) or 0) / capacity
            if used > top:
                top = used
    pods = alloc.get("pods")
    if pods:
        used = len(node.get("pods") or ()) / float(pods)
        if used > top:
            top = used
    return min(100, round(top * 100))


def heatmap(screen: Screen, matching: list[dict[str, Any]], *, filtered: bool) -> list[dict[str, Any]]:
    """A cell per node: `u` the utilisation bucket 0-9, `cls` marks (x cordoned, t tainted,
    m matches the query when one is set)."""
    chosen = {n["name"] for n in matching} if filtered else set()
    cells = []
    for node in screen.view.get("nodes", []):
        marks = []
        if node.get("unschedulable"):
            marks.append("x")
        if node.get("taints"):
            marks.append("t")
        if node["name"] in chosen:
            marks.append("m")
        pct = utilisation(node)
        cells.append({"name": node["name"], "u": min(9, pct // 10), "pct": pct, "cls": " ".join(marks)})
    return cells
