"""Why pending, for a whole cluster: a run's pending pods grouped by how the scheduler failed them.

Reading forty FailedScheduling messages one by one is what this replaces. The collection during
the run is one dictionary entry per pod that failed (the cycle of its last FailedScheduling,
read off the Kubernetes events the engine records anyway); nothing per node is kept. After the
run each pending pod is grouped by:

- the plugins that rejected it in its last attempt (the queue's unschedulable plugins, upstream's
  `UnschedulablePlugins`), and
- the reasons of its last FailedScheduling message, without their node counts (upstream's
  aggregated text: "0/N nodes are available: 3 Insufficient cpu, 1 node(s) had untolerated
  taint {...}." gives "Insufficient cpu" and "node(s) had untolerated taint {...}").

Each group's **decisive reason** is the reason that rejected the most nodes in the group's most
recent message (ties: the first in the message's own sorted order). Its **closest nodes** are,
for the group's most recently tried pod, the nodes rejected by the fewest Filter plugins when
every Filter plugin is asked (the scheduler itself stops at a node's first rejection), in the
scheduler's node order among equals; up to CLOSEST_NODES of them, with the plugins and reasons
that still reject each. They are worked out after the run, once per group, on the final
cluster, for the MAX_DIAGNOSED_GROUPS largest groups. A pod rejected before any node was tried
(PreFilter) has no closest nodes; its group says which plugin rejected it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code
from scheduler_core.simulation import Simulation

__all__ = ["PendingCollector", "group_key", "split_reasons"]

CLOSEST_NODES = 3
MAX_DIAGNOSED_GROUPS = 20
EXAMPLES = 5
_HEAD = re.compile(r"^0/(\d+) nodes are available: ")
# Where the PostFilter part of a FailedScheduling message starts (DynamicResources, then
# DefaultPreemption).
_POST_FILTER = (" no new claims to deallocate", " preemption: ")
_COUNTED = re.compile(r"^(\d+) (.+)$")
_SPLIT = re.compile(r", (?=\d+ )")


def split_reasons(message: str) -> list[tuple[int, str]]:
    """The counted reasons of a FailedScheduling message as (nodes, reason), in the message's
    order. A PreFilter rejection ("0/3 nodes are available: <why>.") counts every node; a
    message of another shape (an error, a binding failure) is one reason, counted 0. A reason
    is taken to end at the first ". " (none of upstream's Filter reasons holds one)."""
    head = _HEAD.match(message)
    if head is None:
        return [(0, message)]
    total = int(head.group(1))
    body = message[head.end():]
    # The filter part ends with ". " before the PostFilter's words (whatever they are); the
    # known PostFilter openings also end it when a message lacks the full stop.
    cut = min((i for i in (*(body.find(m) for m in _POST_FILTER), body.find(". ")) if i >= 0),
              default=len(body))
    body = body[:cut].rstrip()
    if body.endswith("."):
        body = body[:-1]
    if not body:
        return []
    parts = _SPLIT.split(body)
    counted = [_COUNTED.match(p) for p in parts]
    if all(m is not None for m in counted):
        return [(int(m.group(1)), m.group(2)) for m in counted if m is not None]
    return [(total, body)]


def group_key(plugins: list[str], message: str | None, gate: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A pending pod's group: its rejecting plugins and its message's reasons (counts dropped)."""
    if not message:
        if gate:
            return ((gate,), ("waiting for its scheduling gates to be removed",))
        return ((), ("not tried yet (in the scheduling queue when the run ended)",))
    return (tuple(sorted(plugins)), tuple(sorted({r for _, r in split_reasons(message)})))


@dataclass
class _Group:
    plugins: tuple[str, ...]
    reasons: tuple[str, ...]
    pods: list[str] = field(default_factory=list)
    last_cycle: int | None = None
    last_pod: str | None = None
    message: str | None = None


class PendingCollector:
    """Runs a Simulation to its end while noting the cycle of each pod's last
    FailedScheduling; `report()` then groups the pods still pending."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.last_cycle: dict[str, int] = {}
        self._seen = len(sim.scheduler.cluster.events)

    def _note(self) -> None:
        events = self.sim.scheduler.cluster.events
        if len(events) == self._seen:
            return
        cycle = self.sim.scheduler.queue.scheduling_cycle
        for ev in events[self._seen:]:
            if ev.reason == "FailedScheduling":
                self.last_cycle[ev.object] = cycle
        self._seen = len(events)

    def run(self, max_time: float = 3600.0) -> bool:
        """Simulation.run, step for step, noting failures: True when settled."""
        while True:
            r = self.sim.step(max_time)
            self._note()
            if r == "settled":
                return True
            if r == "max-time":
                return False

    def report(self) -> dict[str, Any]:
        """The pending pods grouped (largest group first) with their decisive reason, counts,
        the cycle each group was last tried in and its closest nodes. Plain JSON."""
        s = self.sim.scheduler
        cs = s.cluster
        queued = {}
        for qpi in s.queue.unschedulable_pods.values():
            queued[qpi.pod.key] = qpi
        for qpi in list(s.queue.backoff_q.pod_backoff_q.pop_order(None)) + list(
                s.queue.backoff_q.pod_error_backoff_q.pop_order(None)):
            queued[qpi.pod.key] = qpi
        groups: dict[tuple[tuple[str, ...], tuple[str, ...]], _Group] = {}
        pending = 0
        for key in cs.all_pods:
            rec = cs.records[key]
            if rec.status != "Pending" or key not in cs.pods:
                continue
            pending += 1
            qpi = queued.get(key)
            plugins = sorted(qpi.unschedulable_plugins | qpi.pending_plugins) if qpi is not None else []
            gate = (qpi.gating_plugin or None) if qpi is not None else None
            gk = group_key(plugins, rec.message, gate)
            g = groups.get(gk)
            if g is None:
                g = groups[gk] = _Group(gk[0], gk[1])
            g.pods.append(key)
            cycle = self.last_cycle.get(key)
            if cycle is not None and (g.last_cycle is None or cycle >= g.last_cycle):
                g.last_cycle, g.last_pod, g.message = cycle, key, rec.message
            elif g.message is None:
                g.message = rec.message
        ordered = sorted(groups.values(), key=lambda g: (-len(g.pods), g.reasons, g.plugins))
        out = []
        for i, g in enumerate(ordered):
            counted = split_reasons(g.message) if g.message else []
            decisive = max(counted, key=lambda c: c[0])[1] if counted else g.reasons[0]
            entry: dict[str, Any] = {
                "reason": decisive,
                "plugins": list(g.plugins),
                "reasons": [{"reason": r, "nodes": n} for n, r in counted] or [
                    {"reason": r, "nodes": None} for r in g.reasons],
                "pods": len(g.pods),
                "examples": g.pods[:EXAMPLES],
                "lastTriedCycle": g.last_cycle,
                "lastTriedPod": g.last_pod,
                "message": g.message,
            }
            if g.message and i < MAX_DIAGNOSED_GROUPS:
                entry.update(self._closest(g.last_pod or g.pods[0]))
            else:
                entry["closestNodes"] = None
            out.append(entry)
        return {"pending": pending, "groups": out,
                "closestNodesRule": "fewest rejecting Filter plugins when all are asked, "
                                    "then the scheduler's node order"}

    def _closest(self, key: str) -> dict[str, Any]:
        """Every Filter plugin asked about every node for the pod `key` on the final cluster:
        the nodes the fewest plugins reject. Nothing in the engine changes but its snapshot,
        brought up to date as the next cycle would; no event is emitted."""
        s = self.sim.scheduler
        pod = s.cluster.pods[key]
        fwk = s.profiles.get(pod.scheduler_name)
        if fwk is None:
            return {"closestNodes": None}
        sink = self.sim.sink
        was = sink.enabled
        sink.enabled = False
        try:
            s.cache.update_snapshot(s.snapshot)
            state = CycleState()
            pre_res, st, _ = fwk.run_pre_filter_plugins(state, pod)
            if st is not None and st.code != Code.SUCCESS:
                return {"closestNodes": [], "preFilter": {"plugin": st.plugin, "message": st.message()}}
            wanted = None if pre_res is None or pre_res.all_nodes() else (pre_res.node_names or set())
            ranked: list[tuple[int, int, str, list[str], list[str]]] = []
            for order, ni in enumerate(s.snapshot.list()):
                if wanted is not None and ni.name not in wanted:
                    continue
                rejecting: list[str] = []
                reasons: list[str] = []
                for pl in fwk.filter_plugins:
                    if pl.name in state.skip_filter_plugins:
                        continue
                    r = pl.filter(state, pod, ni)
                    if r is not None and r.code != Code.SUCCESS:
                        rejecting.append(pl.name)
                        reasons.extend(r.reasons or [r.message()])
                ranked.append((len(rejecting), order, ni.name, rejecting, reasons))
            ranked.sort(key=lambda t: (t[0], t[1]))
            return {"closestNodes": [{"node": name, "rejectedBy": rej, "reasons": why}
                                     for _, _, name, rej, why in ranked[:CLOSEST_NODES]]}
        finally:
            sink.enabled = was
