"""The storage panel (partials/storage.html, storage_body.html): the StorageClasses, then the
PersistentVolumeClaims (bound or pending, their volume, the node a WaitForFirstConsumer claim
was given, the pods using them) or the PersistentVolumes (capacity, phase, claim, where they
can be used), and the CSIStorageCapacities when the scenario has some. Shown only for runs with storage (the view's `storage*` sections). Up to
SMALL_ROWS rows a table lists them all; more are searched and paged like the pods."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from playground.presenters.runs.paging import int_param, paginate, param

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

SMALL_ROWS = 50
ROW_PAGE = 50
SHOWS = ("claims", "volumes")
_SEARCHED = {"claims": ("key", "class", "phase", "volume", "selectedNode", "usedBy"),
             "volumes": ("name", "class", "phase", "claim", "where", "source")}


def has_storage(screen: Screen) -> bool:
    return "storageClaims" in screen.view or "storageClasses" in screen.view


def storage_table(screen: Screen, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The classes, and a page of the claims or volumes matching `storage_q` (`storage_show`
    chooses which; claims by default)."""
    view = screen.view
    claims = view.get("storageClaims") or []
    volumes = view.get("storageVolumes") or []
    show = param(params, "storage_show") or "claims"
    if show not in SHOWS:
        show = "claims"
    rows = claims if show == "claims" else volumes
    text = param(params, "storage_q").lower()
    large = len(claims) + len(volumes) > SMALL_ROWS
    if text:
        rows = [r for r in rows if any(text in str(r.get(k) or "").lower() for k in _SEARCHED[show])]
    size = ROW_PAGE if large else max(1, len(rows))
    page = paginate(rows, int_param(params, "page", 1) if large else 1, size)
    bound = sum(1 for c in claims if c.get("phase") == "Bound")
    return {
        "large": large,
        "show": show,
        "query": {"q": param(params, "storage_q")},
        "classes": view.get("storageClasses") or [],
        "capacities": view.get("storageCapacities") or [],
        "page": page,
        "rows": page.items,
        "matching": len(rows),
        "counts": {"claims": len(claims), "bound": bound, "pending": len(claims) - bound, "volumes": len(volumes)},
    }
