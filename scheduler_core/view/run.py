"""The run's view (`Simulation.view`): the state the web UI renders, as plain JSON, read off every
part of the engine (queues, nodes with their pods and nominees, pods, evictions, Permit waits,
Deployments, storage, the descheduler).

Why apart from the simulation: the view only reads engine state, it never drives the run, and it
is the one place the run page's shape is decided; the simulation's module keeps the loop, the
live actions and the checkpoints. `sim` is typed `Any`: this package sits below the simulation
and names none of it (tests/engine/test_import_graph.py).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.scale_deployment import deployments_view
from scheduler_core.controllers.tainteviction import TaintEvictionController
from scheduler_core.descheduler import schedule as desched_schedule
from scheduler_core.framework.events import event_label
from scheduler_core.framework.runtime.waiting_pods import waiting_pods_view
from scheduler_core.view.devices import DeviceView
from scheduler_core.view.pods import PodViewMemo, pods_view
from scheduler_core.view.storage import storage_view

__all__ = ["admitted_tolerations", "run_view"]


def run_view(sim: Any, queue_limit: int | None = None, node_memo: dict[str, Any] | None = None,
             pod_memo: PodViewMemo | None = None, events: bool = True) -> dict[str, Any]:
    """The run's current state as plain JSON: queues, nodes with their pods and nominated
    pods, pending evictions, Permit waits, every pod's status and "why pending" message.
    It only reads engine state; the web UI renders this and the event log, nothing else.
    `queue_limit`: list only each queue's first pods (their full lengths: `queues.counts`).
    `node_memo`: a dict the caller keeps between calls (one per simulation): a node whose
    NodeInfo generation and Node object did not change reuses its described resources,
    labels and taints (a step changes a node or two; a view describes all of them). The
    node entries are then shared between successive views: treat them as read-only.
    `pod_memo`: the same for pod entries (scheduler_core/view/pods.py), which then also says
    which pods' entries changed since the previous call. `events=False`: without the k8s
    events (a web frame stores them as rows of their own; listing them all every step cost
    the run's length)."""
    s = sim.scheduler
    cs = s.cluster
    nominated: dict[str, list[str]] = {}
    for node, refs in s.queue.nominator.nominated_pods.items():
        nominated[node] = [r.key for r in refs.values()]
    nodes = []
    memo = node_memo if node_memo is not None else {}
    assumed_keys = s.cache.assumed_pods
    # Devices (DRA) of the nodes ResourceSlices target; re-described when a claim changed.
    devices = DeviceView(cs, cs.nodes) if cs.resource_slices else None
    dra_rev = devices.revision if devices is not None else 0
    for name in s.cache.node_tree.list():
        ni = s.cache.nodes[name]
        node = ni.node
        assert node is not None
        seen = memo.get(name)
        if seen is None or seen[0] != ni.generation or seen[1] is not node or (
                devices is not None and name in devices.nodes and seen[3] != dra_rev):
            # Every change to a NodeInfo's pods or resources takes a new generation; a node
            # update replaces the Node object.
            pod_keys = [pi.pod.key for pi in ni.pods]
            entry = {
                "name": name,
                "labels": dict(node.labels),
                "taints": [t.to_string() for t in node.taints],
                "unschedulable": node.unschedulable,
                "allocatable": ni.allocatable.to_json(),
                "requested": ni.requested.to_json(),
                "pods": pod_keys,
                "assumed": [k for k in pod_keys if k in assumed_keys],
                # Deleted in the API, still counted by the scheduler until its informer
                # delivers the Delete event (asynchronous preemption: docs/async-edges.md).
                "deleting": [k for k in pod_keys if k not in cs.pods],
                "nominated": nominated.get(name, []),
            }
            if node.conditions:
                entry["conditions"] = dict(node.conditions)
            described = devices.describe(node) if devices is not None else None
            if described is not None:
                entry["devices"] = described
        else:
            # Assumed (a bind in flight), deleting and nominated pods change without a new
            # generation.
            entry = seen[2]
            assumed = [k for k in entry["pods"] if k in assumed_keys] if assumed_keys else []
            deleting = [k for k in entry["pods"] if k not in cs.pods]
            nominees = nominated.get(name, [])
            if assumed != entry["assumed"] or nominees != entry["nominated"] or deleting != entry["deleting"]:
                entry = {**entry, "assumed": assumed, "deleting": deleting, "nominated": nominees}
        if node_memo is not None:
            memo[name] = (ni.generation, node, entry, dra_rev)
        nodes.append(entry)
    pods = pods_view(cs, s.cache, s.profiles, pod_memo)
    queues = s.queue.pending_pods(queue_limit)
    for entry in queues["unschedulable"]:
        # What could move the pod: the cluster events its rejecting plugins registered.
        entry["movedBy"] = sorted({event_label(ev) for pl in entry["unschedulablePlugins"]
                                   for ev in s.queue.plugin_to_events.get(pl, [])})
    view = {
        "clock": sim.clock.now(),
        "cycle": s.queue.scheduling_cycle,
        "cycles": sim.cycles,
        "queues": queues,
        "nodes": nodes,
        "pods": pods,
        "evictions": [{"pod": w.pod, "node": w.node, "at": w.fire_at, "createdAt": w.created_at,
                       "taints": [t.to_string() for t in w.taints],
                       **admitted_tolerations(cs.pods.get(w.pod), w.taints)}
                      for w in sim.controller(TaintEvictionController).pending()],
        "waitingPods": waiting_pods_view(s),
        "nextWakeup": sim.next_wakeup(),
        "deployments": deployments_view(sim),
    }
    if events:
        view["events"] = [e.to_json() for e in cs.events]
    storage = storage_view(s)
    if storage is not None:
        view.update(storage)
    descheduler = desched_schedule.view(sim)
    if descheduler is not None:
        view["descheduler"] = descheduler
    return view


def admitted_tolerations(pod: Any, taints: Any) -> dict[str, Any]:
    """The tolerations an admission plugin added that time this eviction ({} when none):
    the UI says "added by admission" next to them."""
    if pod is None:
        return {}
    added = [f"{t.key}:{t.effect} for {t.toleration_seconds}s ({t.added_by})" for t in pod.tolerations
             if t.added_by and t.toleration_seconds is not None and any(t.tolerates_taint(x) for x in taints)]
    return {"admittedTolerations": added} if added else {}
