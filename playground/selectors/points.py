"""A scheduling cycle's events grouped by extension point, in the order the cycle reaches them.

"Step extension point" reveals a cycle one group at a time: the worker counts the groups of the
head frame (`point_groups`), the run page shows the groups revealed so far.
"""

from __future__ import annotations

from typing import Any

POINT_LABELS = {
    "queue": "Pop from activeQ",
    "prefilter": "PreFilter",
    "filter": "Filter",
    "postfilter": "PostFilter (preemption)",
    "score": "PreScore / Score / Normalize",
    "select": "Select host",
    "bind": "Reserve / Permit / Bind",
}
POINT_ORDER = list(POINT_LABELS)
_GROUP_OF_TYPE = {
    "cycle_started": "queue",
    "prefilter": "prefilter",
    "node_list": "filter",
    "filter_verdicts": "filter",
    "nominated_node_tried": "filter",
    "postfilter": "postfilter",
    "preemption": "postfilter",
    "victim_deleted": "postfilter",
    "scores": "score",
    "selected": "select",
    "assumed": "bind",
    "extension_point": "bind",
    "bound": "bind",
    "permit_wait": "bind",
}


def event_groups(events: list[dict[str, Any]]) -> list[str]:
    """Each event's extension-point group: its own, or the group of the event before it."""
    current = "queue"
    groups = []
    for event in events:
        group = _GROUP_OF_TYPE.get(event["type"])
        if group is not None and POINT_ORDER.index(group) >= POINT_ORDER.index(current):
            current = group
        groups.append(current)
    return groups


def point_groups(events: list[dict[str, Any]]) -> list[str]:
    """The groups a frame's events fall into, in order (empty when the frame ran no cycle)."""
    if not any(e["type"] == "cycle_started" for e in events):
        return []
    return [g for g in POINT_ORDER if g in set(event_groups(events))]
