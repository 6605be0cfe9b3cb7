"""The cluster map (partials/cluster_map.html, cluster_map_body.html): the run as one picture.

Nodes are boxes grouped by topology (region, then zone, from the well-known labels), each with
its cpu, memory and pod fill, its marks (cordoned, tainted, NotReady) and its bound pods as chips
coloured by owner; the scheduling queues sit beside them as rows of chips. What the shown step
did is marked on the same picture: the pods a preemption or an eviction removed leave a fading
chip where they were, nominated pods show as ghost chips on their node, and during a cycle the
nodes Filter rejected are dimmed (the rejecting plugins in their label), the scored ones tinted
by their total score, the chosen one outlined.

Every chip carries a `view-transition-name` derived from its pod, so the page's View Transition
(static/js/run-page.js) moves a chip from its queue to its node when the pod binds.

The map's size is bounded: each node shows at most a few chips ("+N more"), each queue its first
pods. From AGGREGATE_AT nodes every node is a compact cell (`data-node`, shaded by its cpu and
memory fill, cordoned/tainted/NotReady/chosen as classes) grouped by zone, with its bound pods
as tiny chips (`<i data-pod>`) while the map stays within MAP_BYTES; past it a cell shows its
pod count instead. A zone's button opens its nodes as full boxes a page at a time
(`map_zone`, `map_page`); a click on a cell opens that node's details. A cell's tooltip is built
by the page's script from its classes (a title per cell would double the map's bytes).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from playground.frame_views import QUEUE_NAMES
from playground.presenters.runs.cluster import SMALL_CLUSTER
from playground.presenters.runs.node_search import NOT_REJECTING
from playground.presenters.runs.paging import int_param, paginate, param
from playground.selectors.frame_views import pods_by_key
from scheduler_core.events.compact import iter_verdicts, score_totals

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

REGION_LABEL = "topology.kubernetes.io/region"
ZONE_LABEL = "topology.kubernetes.io/zone"
NO_ZONE = ""  # the group of nodes without a zone label
AGGREGATE_AT = 500  # from this many nodes: one cell per zone, drill down to its nodes
# A compact map draws its chips while its estimated bytes stay within MAP_BYTES (a cell ~48 bytes
# plus its name, a chip ~50): 2,000 nodes x 4,000 pods do, 5,000 x 10,000 show counts instead.
MAP_BYTES = 400_000
CELL_BYTES, CHIP_BYTES = 48, 50
CELL_CHIPS = 60  # chips in one compact cell at most (past it: that cell shows its count)
MAP_PAGE = 24  # nodes per page of a zone's drill-down
CHIPS_PER_NODE = 12  # bound pods drawn per node box (the rest: "+N more")
CHIPS_PER_NODE_LARGE = 5  # ... in a large cluster's drill-down
QUEUE_CHIPS = 20  # pods drawn per queue row
PALETTE = 10  # owner colours (.own-0 ... .own-9 in playground.css)
HEAT_STEPS = 5  # score tints (.heat-1 ... .heat-5)

_SUFFIX = re.compile(r"(-[0-9]+|-[a-z0-9]{5})$")


def transition_name(key: str) -> str:
    """A CSS <custom-ident> for the pod `key` ("namespace/name"), for view-transition-name: two
    checksums of the key (64 bits: no two pods of a page share one), short because a page of a
    big cluster draws hundreds of chips, and free of the characters an ident cannot hold."""
    data = key.encode()
    return f"p{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def owner_colour(pod_key: str, owner: str | None) -> int:
    """A stable palette index for the pod's workload: its owner ("Kind/name") when it has one,
    else its name without a replica-like suffix ("web-1" and "web-2" share a colour)."""
    namespace, _, name = pod_key.partition("/")
    basis = f"{namespace}/{owner}" if owner else f"{namespace}/{_SUFFIX.sub('', name)}"
    return zlib.crc32(basis.encode()) % PALETTE


def _pct(used: float, total: float) -> int:
    return min(100, round(used / total * 100)) if total else 0


def _bars(node: dict[str, Any]) -> list[dict[str, Any]]:
    alloc, req = node.get("allocatable") or {}, node.get("requested") or {}
    bars = []
    for name in ("cpu", "memory"):
        total, used = float(alloc.get(name) or 0), float(req.get(name) or 0)
        bars.append({"name": name, "pct": _pct(used, total)})
    pods_total = float(alloc.get("pods") or 0)
    if pods_total:
        bars.append({"name": "pods", "pct": _pct(len(node.get("pods") or ()), pods_total)})
    devices = node.get("devices")
    if devices and devices.get("total"):
        total = devices["total"]
        used = total - devices.get("free", 0)
        bars.append({"name": "devices", "pct": _pct(used, total), "text": f"{used}/{total}"})
    for bar in bars:
        bar.setdefault("text", f"{bar['pct']}%")
    return bars


def _not_ready(node: dict[str, Any]) -> bool:
    conditions = node.get("conditions") or {}
    return "Ready" in conditions and conditions["Ready"] != "True"


def topology(node: dict[str, Any]) -> tuple[str, str]:
    labels = node.get("labels") or {}
    return labels.get(REGION_LABEL, ""), labels.get(ZONE_LABEL, NO_ZONE)


class _Cycle:
    """What the shown step's scheduling cycle said about each node. `per_node`: the nodes Filter
    rejected and the scores are marked on each node; past SMALL_CLUSTER nodes they are not (a
    cycle touches every node, so a live update would carry them all: the cycle inspector shows
    them), only the chosen node, the node preemption makes room on and the victims."""

    def __init__(self, screen: Screen, per_node: bool = True) -> None:
        self.rejected: dict[str, list[str]] = {}
        verdicts = screen.first("filter_verdicts") if per_node else None
        for node, by_plugin in iter_verdicts(verdicts) if verdicts else ():
            plugins = [p for p, v in by_plugin.items() if (v or {}).get("code") not in NOT_REJECTING]
            if plugins:
                self.rejected[node] = sorted(plugins)
        self.heat: dict[str, int] = {}
        self.score: dict[str, int] = {}
        scores = screen.first("scores") if per_node else None
        if scores:
            totals = score_totals(scores)
            if totals:
                low, high = min(totals.values()), max(totals.values())
                for node, total in totals.items():
                    share = (total - low) / (high - low) if high > low else 1.0
                    self.heat[node] = 1 + round(share * (HEAT_STEPS - 1))
                    self.score[node] = total
        selected = screen.first("selected")
        self.chosen = (selected or {}).get("node") or ""
        preemption = screen.first("preemption") or {}
        self.victims: set[str] = set()
        for candidate in preemption.get("candidates") or ():
            if candidate.get("node") == preemption.get("chosen"):
                self.victims.update(candidate.get("victims") or ())
        self.victims.update(e.get("pod") for e in screen.all("victim_deleted"))
        self.preempted = preemption.get("chosen") or ""  # the node preemption makes room on
        self.preemptor = preemption.get("pod") or ""
        self.evicting = {e.get("pod") for e in screen.view.get("evictions") or ()}  # a taint's timer runs
        self.active = bool(verdicts or scores or selected or preemption)
        self.per_node = per_node


class _Pods:
    """The view's pod entries by key, and the claims each pod uses, read once per map."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.by_key = pods_by_key(view)  # kept per view, and built from the view before it
        self.claims: dict[str, list[str]] = {}
        for claim in view.get("storageClaims") or ():
            for user in claim.get("usedBy") or ():
                self.claims.setdefault(user, []).append(claim["key"])

    def status(self, key: str) -> str:
        return str((self.by_key.get(key) or {}).get("status") or "")

    def chip(self, key: str, **marks: Any) -> dict[str, Any]:
        entry = self.by_key.get(key) or {}
        owner = entry.get("owner")
        priority = entry.get("priority")
        namespace, _, name = key.partition("/")
        title = [key, f"owner {owner}" if owner else "no owner"]
        if priority:
            title.append(f"priority {priority}")
        title += [label for label, on in marks.items() if on]
        return {
            "key": key,
            "name": name,
            "colour": owner_colour(key, owner),
            "priority": priority or 0,
            "vt": transition_name(key),
            "title": " · ".join(title),
            **marks,
        }


def _node_box(node: dict[str, Any], pods: _Pods, cycle: _Cycle, gone: dict[str, list[str]], cap: int) -> dict[str, Any]:
    name = node["name"]
    deleting = set(node.get("deleting") or ())
    assumed = set(node.get("assumed") or ())
    keys = list(node.get("pods") or ())
    # Victims and leaving pods first, so a cap never hides what this step is about.
    keys.sort(key=lambda k: 0 if (k in cycle.victims or k in deleting) else 1)
    chips = [
        pods.chip(k, victim=k in cycle.victims, deleting=k in deleting, assumed=k in assumed,
                  evicting=k in cycle.evicting)
        for k in keys[:cap]
    ]
    marks = []
    if node.get("unschedulable"):
        marks.append(("cordoned", "cordoned (unschedulable)"))
    if node.get("taints"):
        marks.append(("tainted", "taints: " + ", ".join(node["taints"])))
    if _not_ready(node):
        marks.append(("notready", "NotReady"))
    volumes = sorted({c for k in keys for c in pods.claims.get(k, ())})
    rejected = cycle.rejected.get(name, [])
    label = [name, f"{len(keys)} pods"] + [text for _, text in marks]
    if volumes:
        label.append("volumes: " + ", ".join(volumes))
    if rejected:
        label.append("filtered out by " + ", ".join(rejected))
    if name in cycle.score:
        label.append(f"score {cycle.score[name]}")
    if name == cycle.chosen:
        label.append("chosen")
    if name == cycle.preempted:
        marks.append(("preempt", f"preemption makes room here for {cycle.preemptor}"))
        label.append(marks[-1][1])
    return {
        "name": name,
        "bars": _bars(node),
        "marks": marks,
        "chips": chips,
        "more": max(0, len(keys) - cap),
        "ghosts": [pods.chip(k, ghost=True) for k in (node.get("nominated") or ())[:cap]],
        "gone": [pods.chip(k, leaving=True) for k in gone.get(name, ())],
        "rejected": rejected,
        "volumes": volumes,
        "heat": cycle.heat.get(name, 0),
        "chosen": name == cycle.chosen,
        "label": " · ".join(label),
        "vt": transition_name(name)[1:],  # a node added or removed fades, a moved one slides
    }


def _gone(screen: Screen, pods: _Pods, names: set[str] | None = None) -> dict[str, list[str]]:
    """node -> the pods bound there in the frame before and deleted now (a preemption victim,
    an eviction), to fade out where they were; `names`: only these nodes'."""
    before = screen.previous.get("nodes") or []
    if not before:
        return {}
    now = {p for n in screen.view.get("nodes") or () for p in n.get("pods") or ()}
    result: dict[str, list[str]] = {}
    for node in before:
        if names is not None and node["name"] not in names:
            continue
        left = [p for p in node.get("pods") or () if p not in now and pods.status(p) == "Deleted"]
        if left:
            result[node["name"]] = left
    return result


def _queues(screen: Screen, pods: _Pods) -> list[dict[str, Any]]:
    q = screen.view.get("queues") or {}
    rows = []
    for name in QUEUE_NAMES:
        items = q.get(name) or []
        count = (q.get("counts") or {}).get(name, len(items))
        chips = [pods.chip(item["pod"]) for item in items[:QUEUE_CHIPS]]
        rows.append({"name": name, "count": count, "chips": chips, "more": max(0, count - len(chips))})
    return rows


def _zone_groups(boxes: list[tuple[dict[str, Any], dict[str, Any]]], view: dict[str, Any]) -> list[dict[str, Any]]:
    """[(node, box)] -> regions, each with its zones, each with its boxes (sorted by name) and the
    persistent volumes labelled with that zone (a zonal disk only nodes of its zone can mount)."""
    regions: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for node, box in boxes:
        region, zone = topology(node)
        regions.setdefault(region, {}).setdefault(zone, []).append(box)
    zonal: dict[str, list[dict[str, Any]]] = {}
    for pv in view.get("storageVolumes") or ():
        if pv.get("zone"):
            zonal.setdefault(pv["zone"], []).append(
                {"name": pv["name"], "phase": pv.get("phase", ""), "claim": pv.get("claim", "")}
            )
    return [
        {
            "region": region,
            "zones": [{"zone": zone, "nodes": zones[zone], "volumes": zonal.get(zone, []) if zone else []}
                      for zone in sorted(zones)],
        }
        for region, zones in sorted(regions.items())
    ]


def _zone_key(region: str, zone: str) -> str:
    return f"{region}/{zone}"


def chips_fit(nodes: int, pods: int) -> bool:
    """Whether a compact map of `nodes` nodes draws its `pods` bound pods as chips."""
    return nodes * CELL_BYTES + pods * CHIP_BYTES <= MAP_BYTES


def _decile(pct: int) -> int:
    return min(10, round(pct / 10))


def _cell(node: dict[str, Any], pods: _Pods, cycle: _Cycle, chips: bool) -> dict[str, Any]:
    """A node's compact cell: its fill deciles, its marks as one-letter classes, and its bound
    pods (as (key, owner colour, priority) when drawn, else just their count)."""
    name = node["name"]
    keys = list(node.get("pods") or ())
    cpu, memory = (bar["pct"] for bar in _bars(node)[:2])
    marks = "".join(
        letter for letter, on in (
            ("x", node.get("unschedulable")), ("t", node.get("taints")), ("n", _not_ready(node)),
            ("s", name == cycle.chosen), ("k", name == cycle.preempted), ("g", node.get("nominated")),
        ) if on
    )
    drawn = chips and len(keys) <= CELL_CHIPS
    return {
        "name": name,
        "cpu": _decile(cpu),
        "memory": _decile(memory),
        "marks": marks,
        "count": len(keys),
        "chips": [
            (k, owner_colour(k, (pods.by_key.get(k) or {}).get("owner")),
             ((pods.by_key.get(k) or {}).get("priority") or 0) > 0)
            for k in keys
        ] if drawn else None,
    }


def _zone_key(region: str, zone: str) -> str:
    return f"{region}/{zone}"


def compact_groups(screen: Screen, cycle: _Cycle, pods: _Pods) -> list[dict[str, Any]]:
    """Every node as a compact cell, grouped by (region, zone) in name order; chips drawn when
    the cluster's bound pods fit (`chips_fit`)."""
    nodes = screen.view.get("nodes") or []
    chips = chips_fit(len(nodes), sum(len(n.get("pods") or ()) for n in nodes))
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for node in nodes:
        region, zone = topology(node)
        group = groups.get((region, zone))
        if group is None:
            group = groups[(region, zone)] = {
                "region": region, "zone": zone, "key": _zone_key(region, zone), "cells": [], "pods": 0,
            }
        group["cells"].append(_cell(node, pods, cycle, chips))
        group["pods"] += len(node.get("pods") or ())
    return [groups[k] for k in sorted(groups)]


def cluster_map(screen: Screen, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The map for this viewer: every node grouped by zone below AGGREGATE_AT nodes; above it,
    the zone cells, or the nodes of the zone the viewer opened (`map_zone`, a page at a time:
    `map_page`)."""
    nodes = screen.view.get("nodes") or []
    cycle = _Cycle(screen, per_node=len(nodes) <= SMALL_CLUSTER)
    pods = _Pods(screen.view)
    result: dict[str, Any] = {
        "total": len(nodes),
        "pods": sum(len(n.get("pods") or ()) for n in nodes),
        "queues": _queues(screen, pods),
        "cycle": cycle.active,
        "chosen": cycle.chosen,
        "large": len(nodes) >= AGGREGATE_AT,
        "zone": None,
    }
    if not result["large"]:
        gone = _gone(screen, pods)
        boxes = [(n, _node_box(n, pods, cycle, gone, CHIPS_PER_NODE)) for n in nodes]
        result["regions"] = _zone_groups(boxes, screen.view)
        result["zoned"] = any(topology(n) != ("", NO_ZONE) for n in nodes)
        return result
    zone = param(params, "map_zone") if params is not None else ""
    groups = compact_groups(screen, cycle, pods)
    result["zoned"] = any(g["zone"] or g["region"] for g in groups)
    chosen = next((g for g in groups if g["key"] == zone), None)
    if chosen is None:
        result["groups"] = groups
        result["chips"] = chips_fit(len(nodes), result["pods"])
        return result
    members = [n for n in nodes if _zone_key(*topology(n)) == zone]
    page = paginate(members, int_param(params, "map_page"), MAP_PAGE)
    gone = _gone(screen, pods, {n["name"] for n in page.items})
    result["zone"] = {k: v for k, v in chosen.items() if k != "cells"} | {"nodes": len(members)}
    result["page"] = page
    result["boxes"] = [_node_box(n, pods, cycle, gone, CHIPS_PER_NODE_LARGE) for n in page.items]
    return result
