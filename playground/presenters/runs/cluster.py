"""The cluster panel (partials/cluster.html, cluster_body.html, node_detail.html): each node with
its resource bars, its pods and the pods nominated to it.

Up to SMALL_CLUSTER nodes the panel shows every node as a card, as the gallery always did. A
bigger cluster gets a search and filters (`node_search`), a heatmap of every node, and the
matching nodes' cards a page at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from playground.presenters.runs import node_search
from playground.presenters.runs.moves import moved
from playground.presenters.runs.paging import int_param, paginate, param
from scheduler_core.events.compact import verdicts_by_node as verdict_map

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen


def _fmt_bytes(value: float) -> str:
    for unit, size in (("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024)):
        if value >= size:
            return f"{value / size:.3g}{unit}"
    return f"{value:g}"


def resource_bars(node: dict[str, Any]) -> list[dict[str, Any]]:
    bars = []
    alloc, req = node.get("allocatable", {}), node.get("requested", {})
    for name in ("cpu", "memory"):
        total = float(alloc.get(name) or 0)
        used = float(req.get(name) or 0)
        pct = min(100, round(used / total * 100)) if total else 0
        if name == "cpu":
            text = f"{used / 1000:g}/{total / 1000:g} cpu"
        else:
            text = f"{_fmt_bytes(used)}/{_fmt_bytes(total)} mem"
        bars.append({"name": name, "pct": pct, "text": text, "full": pct >= 100})
    pods_total = alloc.get("pods")
    if pods_total:
        bars.append(
            {
                "name": "pods",
                "pct": min(100, round(len(node.get("pods", [])) / pods_total * 100)),
                "text": f"{len(node.get('pods', []))}/{pods_total} pods",
                "full": False,
            }
        )
    return bars


SMALL_CLUSTER = 50  # up to this many nodes: every node's card, no search, no heatmap
NODE_PAGE = 24  # node cards per page in a bigger cluster


def is_large(screen: Screen) -> bool:
    return len(screen.view.get("nodes", [])) > SMALL_CLUSTER


def nodes(screen: Screen) -> list[dict[str, Any]]:
    """Every node's card (what a small cluster shows)."""
    return decorate(screen, screen.view.get("nodes", []))


def node(screen: Screen, name: str) -> dict[str, Any] | None:
    """One node's card and what this step's cycle said about it."""
    found = next((n for n in screen.view.get("nodes", []) if n["name"] == name), None)
    if found is None:
        return None
    card = decorate(screen, [found])[0]
    event = screen.first("filter_verdicts")
    verdicts = verdict_map(event).get(name) if event else None
    card["verdicts"] = sorted((verdicts or {}).items())
    card["evictions"] = [e for e in screen.view.get("evictions", []) if e.get("node") == name]
    return card


def cluster(screen: Screen, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The panel's body for a viewer's query: `q` (name or label, or key=value), `filter`,
    `plugin` (with filter=rejected), `page`."""
    all_nodes = screen.view.get("nodes", [])
    if not is_large(screen):
        return {"large": False, "page": paginate(nodes(screen), 1, max(1, len(all_nodes))), "total": len(all_nodes)}
    query = {k: param(params, k) for k in ("q", "filter", "plugin")}
    filtered = bool(query["q"] or query["filter"])
    matching = node_search.matching_nodes(screen, params)
    page = paginate(matching, int_param(params, "page"), NODE_PAGE)
    return {
        "large": True,
        "total": len(all_nodes),
        "query": query,
        "filtered": filtered,
        "matching": len(matching),
        "page": replace(page, items=decorate(screen, list(page.items))),
        "heatmap": node_search.heatmap(screen, matching, filtered=filtered),
        "filters": node_search.node_filters(screen),
    }


def decorate(screen: Screen, chosen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    result = []
    for node in chosen:
        here = "node:" + node["name"]
        result.append(
            dict(
                node,
                bars=resource_bars(node),
                pod_items=[
                    {"key": p, "moved": moved(screen, p, here), "assumed": p in node.get("assumed", []),
                     "deleting": p in node.get("deleting", [])}
                    for p in node.get("pods", [])
                ],
                nominated_items=[
                    {"key": p, "moved": moved(screen, p, "nominated:" + node["name"])}
                    for p in node.get("nominated", [])
                ],
            )
        )
    return result
