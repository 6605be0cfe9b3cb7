"""A live step's change to the cluster map, for clusters past the small map (> SMALL_CLUSTER nodes).

A small map is pushed whole on every step. A bigger one pushed whole grows with the cluster
(5,000 nodes and 10,000 pods weigh ~0.5 MB, past the websocket's message limit), so a live
update carries only what this step changed against the frame before it: the nodes whose drawing
differs (compact cells from AGGREGATE_AT nodes, full boxes below), the queues' rows and the
heading. The page (static/js/run-page.js) swaps those in by `data-node` when its map shows the
frame before (`from`, that frame's last event); otherwise it fetches the map's body over HTTP,
as it does when there is no delta (None): a partly revealed cycle, a node added or removed, the
chips appearing or turning into counts, or more than DELTA_NODES nodes changed at once. So a
message's size is bounded by DELTA_NODES, whatever the cluster's size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playground.presenters.runs.cluster_map import (
    AGGREGATE_AT,
    CHIPS_PER_NODE,
    _cell,
    _Cycle,
    _gone,
    _node_box,
    _Pods,
    _queues,
    chips_fit,
)
from playground.selectors.runs import frame_for

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

DELTA_NODES = 48  # changed nodes one update carries at most (more: the page fetches the map)
# The events a map past SMALL_CLUSTER nodes draws from (`_Cycle(per_node=False)`): only these are
# read of the frame before (a fast-forward's frame holds its whole slice's events: 140,000 at
# 5,000 x 10,000).
CYCLE_TYPES = ("selected", "preemption", "victim_deleted")


@dataclass
class _Frame:
    """The frame before the shown one, as much of a Screen as `_Cycle` reads."""

    view: dict[str, Any]
    frame_events: list[dict[str, Any]] = field(default_factory=list)

    def first(self, type_: str) -> dict[str, Any] | None:
        return next((e for e in self.frame_events if e["type"] == type_), None)

    def all(self, type_: str) -> list[dict[str, Any]]:
        return [e for e in self.frame_events if e["type"] == type_]


def _touched(cycle: _Cycle, nodes: list[dict[str, Any]]) -> set[str]:
    """The nodes a cycle marks (rejected, scored, chosen, preempted on, holding a victim or a pod
    whose eviction timer runs): drawn differently from their plain state."""
    names = set(cycle.rejected) | set(cycle.heat) | {cycle.chosen, cycle.preempted}
    pods = cycle.victims | cycle.evicting
    if pods:
        names.update(n["name"] for n in nodes if pods.intersection(n.get("pods") or ()))
    return names


def map_delta(screen: Screen) -> dict[str, Any] | None:
    """What the shown step changed on the map, or None when the page must fetch the map whole."""
    nodes = screen.view.get("nodes") or []
    before_nodes = (screen.previous or {}).get("nodes") or []
    if screen.reveal is not None or screen.step == 0 or not before_nodes:
        return None
    if len(nodes) != len(before_nodes) or any(a["name"] != b["name"] for a, b in zip(nodes, before_nodes, strict=True)):
        return None
    run = screen.run
    before_frame = frame_for(run=run, step=screen.step - 1)
    if before_frame.step != screen.step - 1:
        return None
    marks = list(run.events.filter(step=before_frame.step, type__in=CYCLE_TYPES).order_by("seq")
                 .values_list("data", flat=True))
    before = _Frame(view=screen.previous, frame_events=marks)
    cycle, old_cycle = _Cycle(screen, per_node=False), _Cycle(before, per_node=False)  # type: ignore[arg-type]
    pods = _Pods(screen.view)
    large = len(nodes) >= AGGREGATE_AT
    bound = sum(len(n.get("pods") or ()) for n in nodes)
    chips = chips_fit(len(nodes), bound)
    if large and chips != chips_fit(len(nodes), sum(len(n.get("pods") or ()) for n in before_nodes)):
        return None
    gone = {} if large else _gone(screen, pods)
    touched = _touched(cycle, nodes) | _touched(old_cycle, before_nodes) | set(gone)
    changed = []
    for node, old in zip(nodes, before_nodes, strict=True):
        if node == old and node["name"] not in touched:
            continue
        if large:
            now, then = _cell(node, pods, cycle, chips), _cell(old, pods, old_cycle, chips)
        else:
            now = _node_box(node, pods, cycle, gone, CHIPS_PER_NODE)
            then = _node_box(old, pods, old_cycle, {}, CHIPS_PER_NODE)
        if now != then:
            changed.append(now)
            if len(changed) > DELTA_NODES:
                return None
    return {
        "from": before_frame.last_seq,
        "to": screen.shown_seq,
        "large": large,
        "nodes": changed,
        "queues": _queues(screen, pods),
        "total": len(nodes),
        "pods": bound,
    }
