"""The node lifecycle controller (kube-controller-manager's node-lifecycle-controller), as far as
node health turns into taints, on the virtual clock.

Why it exists: the scheduler never reads a node's Ready condition. A node that stops being
healthy reaches it as taints: this controller adds `node.kubernetes.io/not-ready` (Ready False)
or `node.kubernetes.io/unreachable` (Ready Unknown), NoSchedule so no new pod goes there and
NoExecute so the taint-eviction controller (controllers/tainteviction.py) deletes the pods
there once their tolerations run out (300 s: the DefaultTolerationSeconds admission's).

What a `setNodeCondition` action means, and what follows (kube-controller-manager v1.35
defaults: --node-monitor-period 5s, --node-monitor-grace-period 50s):

- status False: the kubelet posts Ready=False (reason KubeletNotReady). The controller's
  node-update handler adds not-ready:NoSchedule at once (its NoSchedule tainting pass runs on
  every node update); its health pass, every 5 s from its start, then sees Ready False and adds
  not-ready:NoExecute (replacing unreachable:NoExecute if the node had it).
- status Unknown: the kubelet stops posting status (a crashed node, a network partition). Ready
  stays True until the first health pass more than 50 s after the last heartbeat (taken to be
  the moment of the action); that pass sets Ready, MemoryPressure, DiskPressure and PIDPressure
  to Unknown (reason NodeStatusUnknown, "Kubelet stopped posting node status."), and the
  unreachable taints follow: NoSchedule from the update, NoExecute from the same pass.
- status True: the kubelet posts Ready=True again. The NoSchedule taint goes at once, the
  NoExecute taints at the next health pass.

A Ready change away from True is recorded as upstream's Normal NodeNotReady event ("Node n1
status is now: NodeNotReady"), a change back as NodeReady.

Simplifications, each said where it shows: upstream's NoExecute tainting pass runs every 100 ms
behind a per-zone rate limiter (0.1 nodes/s, the first node at once); here it is folded into the
health pass that decided it. Only nodes a setNodeCondition action touched are watched; every
other node is healthy and its kubelet posting, and the controller's other taints
(node.kubernetes.io/unschedulable for a cordoned node, the pressure conditions) are not added:
the recorded cases were made without them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scheduler_core.api.types import Node, Taint
from scheduler_core.controllers.timers import Controller

NODE_MONITOR_PERIOD = 5.0
NODE_MONITOR_GRACE_PERIOD = 50.0

TAINT_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"
NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"

READY = "Ready"
CONDITION_STATUSES = ("True", "False", "Unknown")
# The conditions the health pass sets to Unknown when the kubelet stops posting.
KUBELET_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
NODE_STATUS_UNKNOWN_REASON = "NodeStatusUnknown"
NODE_STATUS_UNKNOWN_MESSAGE = "Kubelet stopped posting node status."
KUBELET_NOT_READY_REASON = "KubeletNotReady"
KUBELET_READY_REASON = "KubeletReady"
CONTROLLER = "node-lifecycle-controller"

_EPS = 1e-9


def taint_key_for(status: str) -> str | None:
    """The taint key a Ready status maps to (upstream's nodeConditionToTaintKeyStatusMap)."""
    return {"False": TAINT_NOT_READY, "Unknown": TAINT_UNREACHABLE}.get(status)


@dataclass
class NodeHealth:
    """What the controller knows of one node's kubelet."""

    posting: bool = True  # the kubelet still posts status (heartbeats)
    last_heartbeat: float = 0.0
    # The NoExecute taint the next health pass must leave on the node: a key, "" for none,
    # None when nothing is pending.
    want_no_execute: str | None = None
    since: float = 0.0  # when want_no_execute was decided (a pass at or after it applies it)


def next_pass(after: float, strictly: bool = False) -> float:
    """The first health pass at or after `after` (strictly after with `strictly`): passes run
    every NODE_MONITOR_PERIOD from the controller's start at 0."""
    k = math.floor(after / NODE_MONITOR_PERIOD + _EPS) + 1 if strictly else math.ceil(after / NODE_MONITOR_PERIOD - _EPS)
    return max(0, k) * NODE_MONITOR_PERIOD


class NodeLifecycleController(Controller):
    """Node health -> taints. `api` is the run's API server (apiserver/server.py): the node
    objects, `update_node`, `add_taint`, `remove_taint` and the event recorder."""

    name = CONTROLLER

    def __init__(self) -> None:
        self.nodes: dict[str, NodeHealth] = {}

    @classmethod
    def for_run(cls, api: Any) -> NodeLifecycleController:
        return cls()

    # ---- as one of the run's controllers (controllers/timers.py) --------------------------------
    def next_wakeup(self, sim: Any) -> float | None:
        return self.next_fire_time(sim.apiserver) if self.nodes else None

    def run_due(self, sim: Any, now: float) -> bool:
        """The health passes due now; a pass that changed something is news (settle anew)."""
        return bool(self.nodes) and self.fire_due(sim.apiserver, now)

    def on_node_delete(self, api: Any, node: Node) -> None:
        self.forget(node.name)

    def on_kubelet_status(self, api: Any, node_name: str, status: str) -> None:
        self.kubelet_reports(api, node_name, status, api.clock.now())

    # ---- the kubelet's side (what a setNodeCondition action says) -----------------------------
    def kubelet_reports(self, api: Any, node_name: str, status: str, now: float) -> None:
        """The kubelet of `node_name` posts Ready=`status` ("True"/"False"), or stops posting
        ("Unknown")."""
        health = self.nodes.setdefault(node_name, NodeHealth(last_heartbeat=now))
        if status == "Unknown":
            if health.posting:
                health.posting = False
                health.last_heartbeat = now
            api.node_lifecycle_note(node_name, f"the kubelet stops posting status: Ready turns Unknown at the first "
                                               f"health pass more than {NODE_MONITOR_GRACE_PERIOD:g}s later "
                                               f"(t={self.unknown_at(health):g}s)", "kubelet")
            return
        health.posting = True
        health.last_heartbeat = now
        reason = KUBELET_READY_REASON if status == "True" else KUBELET_NOT_READY_REASON
        self._set_conditions(api, node_name, {READY: status}, reason, "kubelet")
        self._no_schedule_pass(api, node_name, status)
        health.want_no_execute = taint_key_for(status) or ""
        health.since = now

    def forget(self, node_name: str) -> None:
        self.nodes.pop(node_name, None)

    # ---- the controller's side ------------------------------------------------------------------
    @staticmethod
    def unknown_at(health: NodeHealth) -> float:
        return next_pass(health.last_heartbeat + NODE_MONITOR_GRACE_PERIOD, strictly=True)

    def _due(self, health: NodeHealth, ready: str) -> float | None:
        times = []
        if not health.posting and ready != "Unknown":
            times.append(self.unknown_at(health))
        if health.want_no_execute is not None:
            times.append(next_pass(health.since))
        return min(times) if times else None

    def next_fire_time(self, api: Any) -> float | None:
        """When the next health pass changes something; None when none would."""
        best = None
        for name, health in self.nodes.items():
            node = api.cluster.nodes.get(name)
            if node is None:
                continue
            t = self._due(health, node.conditions.get(READY, "True"))
            if t is not None and (best is None or t < best):
                best = t
        return best

    def fire_due(self, api: Any, now: float) -> bool:
        """Run the health pass for every node it is due on at `now` (name order, as the
        controller lists nodes). True when something changed."""
        changed = False
        for name in sorted(self.nodes):
            health = self.nodes[name]
            node = api.cluster.nodes.get(name)
            if node is None:
                continue
            t = self._due(health, node.conditions.get(READY, "True"))
            if t is None or t > now + _EPS:
                continue
            changed = True
            if not health.posting and node.conditions.get(READY, "True") != "Unknown" and self.unknown_at(health) <= now + _EPS:
                self._set_conditions(api, name, dict.fromkeys(KUBELET_CONDITIONS, "Unknown"),
                                     NODE_STATUS_UNKNOWN_REASON, CONTROLLER, NODE_STATUS_UNKNOWN_MESSAGE)
                self._no_schedule_pass(api, name, "Unknown")
                health.want_no_execute, health.since = TAINT_UNREACHABLE, now
            if health.want_no_execute is not None and next_pass(health.since) <= now + _EPS:
                self._no_execute_pass(api, name, health.want_no_execute)
                health.want_no_execute = None
        return changed

    # ---- the API writes -----------------------------------------------------------------------
    def _set_conditions(self, api: Any, name: str, statuses: dict[str, str], reason: str, by: str,
                        message: str = "") -> None:
        node = api.cluster.nodes[name]
        before = node.conditions.get(READY, "True")
        conditions = {**node.conditions, **statuses}
        if conditions == node.conditions:
            return
        api.update_node_conditions(name, conditions)
        shown = ", ".join(f"{k}={v}" for k, v in statuses.items())
        api.node_lifecycle_note(name, f"{shown} (reason {reason}{': ' + message if message else ''})", by)
        after = statuses.get(READY, before)
        if before == "True" and after != "True":
            api.node_status_event(name, "NodeNotReady")
        elif before != "True" and after == "True":
            api.node_status_event(name, "NodeReady")

    def _no_schedule_pass(self, api: Any, name: str, ready: str) -> None:
        """Upstream's doNoScheduleTaintingPass for the Ready condition: exactly the NoSchedule
        taint the status maps to."""
        want = taint_key_for(ready)
        self._reconcile(api, name, NO_SCHEDULE, want)

    def _no_execute_pass(self, api: Any, name: str, want: str) -> None:
        """Upstream's NoExecute tainting (markNodeForTainting / markNodeAsReachable): the one
        NoExecute taint the status maps to, swapping the other out."""
        self._reconcile(api, name, NO_EXECUTE, want or None)

    @staticmethod
    def _reconcile(api: Any, name: str, effect: str, want: str | None) -> None:
        node = api.cluster.nodes[name]
        for key in (TAINT_NOT_READY, TAINT_UNREACHABLE):
            has = any(t.key == key and t.effect == effect for t in node.taints)
            if key == want and not has:
                api.node_lifecycle_note(name, f"taint {key}:{effect} added", CONTROLLER)
                api.add_taint(name, Taint(key=key, effect=effect))
            elif key != want and has:
                api.node_lifecycle_note(name, f"taint {key}:{effect} removed", CONTROLLER)
                api.remove_taint(name, key, effect)
            node = api.cluster.nodes[name]
