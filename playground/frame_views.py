"""What a RunFrame stores of the engine's view, and how a frame's view is put back together.

A 5,000-node view is about 2 MB of JSON; storing it with every step made each step cost the
cluster's size. A frame now stores either

- a *keyframe*: the whole view (every KEYFRAME_EVERY frames, and frame 0), or
- a *delta* against the frame before: the nodes and pods whose entries changed, their order only
  when it changed, and the small parts whole (clock, cycle, the queues' heads and counts, ...).

Queues and pending evictions keep only their first QUEUE_HEAD entries (in pop order) with their
full counts: the page shows the head of each queue, and a 10,000-pod activeQ would otherwise be
most of every frame. Frames stored before this format (whole views, no "delta" key) still read.
"""

from __future__ import annotations

from typing import Any

KEYFRAME_EVERY = 50  # frames between whole views (a view is the keyframe plus at most 49 deltas)
QUEUE_HEAD = 100  # entries kept per queue (and of the pending evictions), in pop order

QUEUE_NAMES = ("activeQ", "backoffQ", "unschedulable")
_KEYED = (("nodes", "name"), ("pods", "key"), ("storageClaims", "key"), ("storageVolumes", "name"))
# Sections only runs with storage objects have (scheduler_core/storage_view.py).
_OPTIONAL = frozenset({"storageClaims", "storageVolumes"})
_SECTIONS = frozenset(s for s, _ in _KEYED)
_ORDERS = frozenset(s + "Order" for s, _ in _KEYED)


def compact_view(view: dict[str, Any]) -> dict[str, Any]:
    """The engine's view as frames keep it: the queues and pending evictions cut to their heads,
    with the full counts under `counts` (`queues.counts`, `evictionsTotal`)."""
    queues = dict(view.get("queues") or {})
    known = queues.get("counts") or {}  # the engine's full lengths when it listed heads only
    counts = {}
    for name in QUEUE_NAMES:
        items = queues.get(name) or []
        counts[name] = known.get(name, len(items))
        queues[name] = items[:QUEUE_HEAD]
    queues["counts"] = counts
    evictions = view.get("evictions") or []
    return {**view, "queues": queues, "evictions": evictions[:QUEUE_HEAD], "evictionsTotal": len(evictions)}


def keyframe(view: dict[str, Any]) -> dict[str, Any]:
    return dict(view)


def diff(before: dict[str, Any], after: dict[str, Any], *, base: int) -> dict[str, Any]:
    """The delta that turns `before` (the view of frame `base`) into `after`."""
    delta: dict[str, Any] = {"delta": base}
    for key, value in after.items():
        if key in _SECTIONS:
            continue
        delta[key] = value
    for section, id_key in _KEYED:
        if section in _OPTIONAL and section not in after and section not in before:
            continue
        old = {item[id_key]: item for item in before.get(section, [])}
        new = after.get(section, [])
        changed = {item[id_key]: item for item in new if old.get(item[id_key]) != item}
        order = [item[id_key] for item in new]
        delta[section] = changed
        if len(order) != len(old) or any(name not in old for name in changed) or order != list(old):
            delta[section + "Order"] = order
    return delta


def is_delta(stored: dict[str, Any]) -> bool:
    return "delta" in stored


def apply(before: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The view after `delta`, given the view it was taken against (neither is modified)."""
    view = {k: v for k, v in delta.items() if k != "delta" and k not in _ORDERS}
    for section, id_key in _KEYED:
        if section in _OPTIONAL and section not in delta and section not in before:
            continue
        changed = delta.get(section) or {}
        order = delta.get(section + "Order")
        if order is None:
            view[section] = [changed.get(item[id_key], item) for item in before.get(section, [])]
        else:
            old = {item[id_key]: item for item in before.get(section, [])}
            view[section] = [changed[name] if name in changed else old[name] for name in order]
    return view
