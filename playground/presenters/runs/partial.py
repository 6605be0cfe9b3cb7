"""The state as of an extension point: while "Step extension point" reveals a cycle, every panel
must show the cluster and the queues as they are at the point reached, nothing later.

The engine stores one view per frame (the state after the whole cycle); the state at a point in
between is the view before the cycle with the revealed events applied: the pod leaves its queue
when it is popped, victims leave their nodes when PostFilter deletes them, the preemptor
appears as a nominated ghost, the pod lands on its node when Reserve assumes it."""

from __future__ import annotations

import copy
from typing import Any


def _pods_by_key(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["key"]: p for p in view.get("pods", [])}


def _pop(view: dict[str, Any], move: dict[str, Any]) -> None:
    queues = view.setdefault("queues", {})
    pod = move["pod"]
    for name in ("activeQ", "backoffQ", "unschedulable"):
        queues[name] = [p for p in queues.get(name, []) if p.get("pod") != pod]
    in_flight = queues.setdefault("inFlight", [])
    if pod not in in_flight:
        in_flight.append(pod)
    queues["summary"] = (
        f"activeQ:{len(queues.get('activeQ', []))}; backoffQ:{len(queues.get('backoffQ', []))}; "
        f"unschedulablePods:{len(queues.get('unschedulable', []))}"
    )


def _remove_from_nodes(view: dict[str, Any], pod: str) -> None:
    for node in view.get("nodes", []):
        node["pods"] = [p for p in node.get("pods", []) if p != pod]
        node["assumed"] = [p for p in node.get("assumed", []) if p != pod]


def _nominate(view: dict[str, Any], pod: str, node_name: str) -> None:
    for node in view.get("nodes", []):
        node["nominated"] = [p for p in node.get("nominated", []) if p != pod]
        if node["name"] == node_name:
            node["nominated"].append(pod)
    record = _pods_by_key(view).get(pod)
    if record is not None:
        record["nominatedNodeName"] = node_name


def _place(view: dict[str, Any], pod: str, node_name: str, *, assumed: bool) -> None:
    for node in view.get("nodes", []):
        node["nominated"] = [p for p in node.get("nominated", []) if p != pod]
        if node["name"] == node_name:
            if pod not in node.setdefault("pods", []):
                node["pods"].append(pod)
            if assumed and pod not in node.setdefault("assumed", []):
                node["assumed"].append(pod)
            if not assumed:
                node["assumed"] = [p for p in node.get("assumed", []) if p != pod]


def view_at_point(before: dict[str, Any], after: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """`before` (the view before the frame) with the revealed `events` applied. A pod deleted at
    the point reached takes its final record from `after` (the frame's own view): a deletion is
    final within a cycle. The engine alone sums requests, so a node that lost or gained a pod
    takes its resource bars from `after` (within one cycle only preemption removes pods from a
    node, and a placement is only revealed with the last point)."""
    view = copy.deepcopy(before)
    view["clock"] = after.get("clock", before.get("clock", 0.0))
    final_pods = _pods_by_key(after)
    touched: set[str] = set()
    for event in events:
        kind = event.get("type")
        pod = event.get("pod", "")
        if kind == "queue_move" and event.get("to") == "none":
            _pop(view, event)
        elif kind in ("victim_deleted", "pod_deleted"):
            node_name = event.get("node") or ""
            _remove_from_nodes(view, pod)
            touched.add(node_name)
            records = view.get("pods", [])
            for i, record in enumerate(records):
                if record["key"] == pod and pod in final_pods:
                    records[i] = final_pods[pod]
        elif kind == "nominated":
            _nominate(view, pod, event.get("node") or "")
        elif kind in ("assumed", "bound"):
            _place(view, pod, event.get("node") or "", assumed=kind == "assumed")
            touched.add(event.get("node") or "")
            if kind == "bound" and pod in final_pods:
                records = view.get("pods", [])
                view["pods"] = [final_pods[pod] if r["key"] == pod else r for r in records]
    after_nodes = {n["name"]: n for n in after.get("nodes", [])}
    for node in view.get("nodes", []):
        if node["name"] in touched and node["name"] in after_nodes:
            node["requested"] = after_nodes[node["name"]].get("requested", node.get("requested"))
    return view
