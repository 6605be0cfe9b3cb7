"""What a RunFrame stores of the engine's view, and how a frame's view is put back together.

A 5,000-node view is about 2 MB of JSON; storing it with every step made each step cost the
cluster's size. A frame now stores either

- a *keyframe*: the whole view (frame 0, then when `playground.keyframe_rule` says: at least
  KEYFRAME_EVERY frames apart, and once the deltas since the last one weigh as much), or
- a *delta* against the frame before: the nodes and pods whose entries changed, their order only
  when it changed, and the small parts whole (clock, cycle, the queues' heads and counts, ...).

Queues and pending evictions keep only their first QUEUE_HEAD entries (in pop order) with their
full counts: the page shows the head of each queue, and a 10,000-pod activeQ would otherwise be
most of every frame. Frames stored before this format (whole views, no "delta" key) still read.
"""

from __future__ import annotations

from typing import Any

KEYFRAME_EVERY = 50  # frames between whole views at least (playground/keyframe_rule.py says when)
QUEUE_HEAD = 100  # entries kept per queue (and of the pending evictions), in pop order

QUEUE_NAMES = ("activeQ", "backoffQ", "unschedulable")
_KEYED = (("nodes", "name"), ("pods", "key"), ("storageClaims", "key"), ("storageVolumes", "name"))
# Sections only runs with storage objects have (scheduler_core/view/storage.py).
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


def diff(before: dict[str, Any], after: dict[str, Any], *, base: int,
         changed: dict[str, Changes] | None = None) -> dict[str, Any]:
    """The delta that turns `before` (the view of frame `base`) into `after`.

    `changed`: per section, what the writer knows changed (see `Changes`); such a section is
    diffed at those keys only, with the same result as comparing every entry. Entries that are
    the same object in both views are equal without comparing their contents."""
    delta: dict[str, Any] = {"delta": base}
    for key, value in after.items():
        if key in _SECTIONS:
            continue
        delta[key] = value
    for section, id_key in _KEYED:
        if section in _OPTIONAL and section not in after and section not in before:
            continue
        hint = changed.get(section) if changed else None
        if hint is not None and section in before:
            _diff_known(delta, section, before[section], after.get(section, []), hint)
            continue
        old = {item[id_key]: item for item in before.get(section, [])}
        new = after.get(section, [])
        entries = {}
        for item in new:
            name = item[id_key]
            was = old.get(name)
            if was is not item and was != item:
                entries[name] = item
        order = [item[id_key] for item in new]
        delta[section] = entries
        if len(order) != len(old) or any(name not in old for name in entries) or order != list(old):
            delta[section + "Order"] = order
    return delta


class Changes:
    """What changed in a section between two views, as the writer knows it: `positions` maps
    the keys whose entries differ to their index in the new list; every other entry is the
    same, at the same index; keys were only added at the end, and only if `appended`."""

    __slots__ = ("appended", "positions")

    def __init__(self, positions: dict[str, int], appended: bool) -> None:
        self.positions, self.appended = positions, appended


def _diff_known(delta: dict[str, Any], section: str, old: list[dict[str, Any]], new: list[dict[str, Any]],
                hint: Changes) -> None:
    """`diff` of one section at the keys `hint` names (its contract: `Changes`)."""
    delta[section] = {name: new[i] for name, i in hint.positions.items()}
    if hint.appended or len(new) != len(old):
        id_key = dict(_KEYED)[section]
        delta[section + "Order"] = [item[id_key] for item in new]


def is_delta(stored: dict[str, Any]) -> bool:
    return "delta" in stored


def apply(before: dict[str, Any], delta: dict[str, Any],
          positions: dict[str, dict[str, int]] | None = None) -> dict[str, Any]:
    """The view after `delta`, given the view it was taken against (neither is modified).
    `positions`: `before`'s sections' entries by key -> index (see `apply_chain`)."""
    return apply_chain(before, [delta], positions)


def positions_of(view: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Each keyed section's entries of `view` by key -> index: what `apply_chain` needs to put a
    few changed entries in place without a pass over the section."""
    return {section: {item[id_key]: i for i, item in enumerate(view.get(section) or ())}
            for section, id_key in _KEYED if section in view}


def apply_chain(before: dict[str, Any], deltas: list[dict[str, Any]],
                positions: dict[str, dict[str, int]] | None = None) -> dict[str, Any]:
    """The view after the `deltas` (oldest first; each taken against the view the ones before
    it give), applied at once: a long chain costs its deltas plus one pass over the view, not a
    pass per delta. Same result as applying them one by one: a section's entries are the latest
    delta's that lists them, else `before`'s; its order is the latest order given, else
    `before`'s; the other parts are the last delta's whole.

    `positions` (`positions_of(before)`, which the caller keeps): a section whose order the
    deltas keep is `before`'s list copied with the changed entries put at their places, not a
    pass over every entry (150,000 pods at the envelope, on every Step's read)."""
    if not deltas:
        return before
    view = {k: v for k, v in deltas[-1].items() if k != "delta" and k not in _ORDERS}
    for section, id_key in _KEYED:
        if section in _OPTIONAL and section not in before and all(section not in d for d in deltas):
            continue
        changed: dict[str, Any] = {}
        order = None
        for delta in deltas:
            changed.update(delta.get(section) or {})
            order = delta.get(section + "Order", order)
        where = positions.get(section) if positions is not None else None
        if order is None and where is not None and all(name in where for name in changed):
            entries = list(before.get(section, []))
            for name, entry in changed.items():
                entries[where[name]] = entry
            view[section] = entries
        elif order is None:
            view[section] = [changed.get(item[id_key], item) for item in before.get(section, [])]
        else:
            old = {item[id_key]: item for item in before.get(section, [])}
            view[section] = [changed[name] if name in changed else old[name] for name in order]
    return view
