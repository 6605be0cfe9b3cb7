"""The devices panel (partials/devices.html, devices_body.html): Dynamic Resource Allocation as
the engine's view has it — each node's ResourceSlices, its devices with their attributes and
capacity, which ResourceClaim holds which device, and free counts.

Only nodes that slices target carry devices; a run without any shows no panel. The nodes are
listed a page at a time (searchable by node, device, attribute or claim), so a 5,000-node
cluster costs one page of cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from playground.presenters.runs.paging import int_param, paginate, param
from playground.selectors.run_notes import dra_not_simulated

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

DEVICE_NODE_PAGE = 12  # node cards per page


def _card(node: dict[str, Any]) -> dict[str, Any]:
    d = node["devices"]
    return {
        "name": node["name"],
        "slices": d.get("slices", []),
        "total": d.get("total", 0),
        "free": d.get("free", 0),
        "devices": [{"name": n, "driver": drv, "summary": summary, "claim": claim}
                    for n, drv, summary, claim in d.get("items", [])],
        "more": max(0, d.get("total", 0) - len(d.get("items", []))),
    }


def _matches(node: dict[str, Any], q: str) -> bool:
    if q in node["name"].lower():
        return True
    return any(q in " ".join(str(x) for x in item).lower() for item in node["devices"].get("items", []))


def has_devices(screen: Screen) -> bool:
    """Whether any node carries devices (the panel is shown), without building the panel: every
    live update asks, and the panel reads the run's notes and pages the nodes."""
    return any(n.get("devices") for n in screen.view.get("nodes", []))


def devices(screen: Screen, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The panel for this viewer's query: `q` (node, device, attribute or claim), `free`
    ("1": only nodes with a free device), `dpage`."""
    with_devices = [n for n in screen.view.get("nodes", []) if n.get("devices")]
    q = param(params, "dq").lower()
    only_free = param(params, "free") == "1"
    matching = [n for n in with_devices if (not q or _matches(n, q)) and (not only_free or n["devices"].get("free"))]
    page = paginate(matching, int_param(params, "dpage"), DEVICE_NODE_PAGE)
    total = sum(n["devices"].get("total", 0) for n in with_devices)
    free = sum(n["devices"].get("free", 0) for n in with_devices)
    return {
        "present": bool(with_devices),
        # Under a release with DRA off no claim is ever allocated: every device reads free.
        "not_simulated": dra_not_simulated(screen.version_notes),
        "nodes": len(with_devices),
        "total": total,
        "free": free,
        "held": total - free,
        "query": {"q": param(params, "dq"), "free": only_free},
        "matching": len(matching),
        "page": page,
        "cards": [_card(n) for n in page.items],
    }
