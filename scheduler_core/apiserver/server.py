"""The simulated API server: the objects that exist (`ClusterState`) and the writes users,
timelines, controllers, the kubelet, the garbage collector and the scheduler make, each
delivered to those who watch, as an informer would.

Upstream the scheduler is a client of the API server: it watches through informers and writes
through its clientset (the binding, a nomination, a preemption's victim). Here both live in one
process, as peers owned by the simulation: every write changes `ClusterState`, then goes to the
scheduler's informer handlers (`EventHandlers`, `informer`) and to the controllers that watch
(`scheduler_core/controllers/timers.py`), in a fixed order: the scheduler first, except for a
pod's deletion, which the controllers hear first (a cancelled eviction is reported before the
queue's moves). Binding, graceful termination (deletionTimestamp, then deletion after
terminationGracePeriodSeconds on the virtual clock), the eviction subresource and the Events
API (`record_event`) live here; PV/PVC and ResourceClaim writes are its parts in storage.py and
resource.py.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from scheduler_core.api.types import Node, Pod, PodDisruptionBudget, Taint
from scheduler_core.apiserver.resource import ResourceAPIServer
from scheduler_core.apiserver.storage import StorageAPI
from scheduler_core.apiserver.store.cluster import ClusterState, PodRecord
from scheduler_core.controllers.resourceclaim import claims_after_pod_deleted, claims_for_new_pod
from scheduler_core.controllers.tainteviction import TaintEvictionController
from scheduler_core.controllers.timers import WATCH_METHODS, Controller, watchers
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import ClusterEvent

__all__ = ["APIServer", "current_disruptions_allowed"]


class APIServer(StorageAPI, ResourceAPIServer):
    """The API server of one run: its store, its writes, and who hears of them."""

    def __init__(self, cluster: ClusterState, clock: Any, sink: Any, feature_gates: Any,
                 graceful_termination: bool = False) -> None:
        self.cluster = cluster
        self.clock = clock
        self.sink = sink
        self.feature_gates = feature_gates
        self.graceful_termination = graceful_termination
        self.pending_deletions: dict[str, tuple[float, str]] = {}  # pod key -> (when, deleted by)
        # failBind actions: pod key -> the API error its next binding gets.
        self.bind_failures: dict[str, str] = {}
        self.informer: Any = None  # the scheduler's informer handlers (`connect`)
        self.controllers: list[Controller] = []
        self._watch: dict[str, tuple[Controller, ...]] = {}

    def connect(self, informer: Any, controllers: list[Controller]) -> None:
        """Deliver every write to the scheduler's handlers, then to the controllers that watch."""
        self.informer = informer
        self.controllers = controllers
        self._index_watchers()

    def _index_watchers(self) -> None:
        self._watch = {m: watchers(self.controllers, m) for m in WATCH_METHODS}
        for c in self.controllers:
            if isinstance(c, TaintEvictionController):
                c.set_event_callback(self.controller_event)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_watch"] = {}  # derived from the controllers
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Re-index the watchers and re-attach the callbacks controllers drop when pickled."""
        self.__dict__.update(state)
        self._index_watchers()

    # ---- informer delivery ------------------------------------------------------------------
    def deliver_pod_update(self, old: Pod, new: Pod) -> None:
        """A pod update reaches the scheduler, then the controllers that watch pods."""
        self.informer.on_pod_update(old, new)
        for c in self._watch["on_pod_update"]:
            c.on_pod_update(self, old, new)

    def _cluster_event(self, event: ClusterEvent, old: Any, new: Any) -> None:
        """A write of a kind only the scheduling queue's hints look at (PV, PVC, ResourceClaim)."""
        self.informer.on_cluster_event(event, old, new)

    # ---- API changes (each followed by the informer handler upstream would run) -------------
    def create_node(self, node: Node) -> None:
        self.cluster.nodes[node.name] = node
        self.informer.on_node_add(node)
        for c in self._watch["on_node_add"]:
            c.on_node_add(self, node)

    def update_node(self, new: Node) -> None:
        old = self.cluster.nodes[new.name]
        self.cluster.nodes[new.name] = new
        self.informer.on_node_update(old, new)
        for c in self._watch["on_node_update"]:
            c.on_node_update(self, old, new)

    def delete_node(self, name: str) -> None:
        node = self.cluster.nodes.pop(name)
        self.informer.on_node_delete(node)
        for c in self._watch["on_node_delete"]:
            c.on_node_delete(self, node)
        # Pods bound to a deleted node are removed (pod garbage collection).
        for key in [k for k, p in self.cluster.pods.items() if p.node_name == name]:
            self.delete_pod(key, by="NodeDeleted")

    def create_pod(self, pod: Pod) -> None:
        key = pod.key
        cluster = self.cluster
        if key not in cluster.records:
            cluster.all_pods.append(key)
        now = self.clock.now()
        if pod.creation_time != now:
            pod = dataclasses.replace(pod, creation_time=now)
        # else the pod is stored as given (a scenario's pod at the start, already stamped 0):
        # pods are never changed in place (a change is a new Pod), so sharing it is safe, and
        # a 150,000-pod start no longer copies every pod.
        if pod.resource_claims and self.feature_gates.dynamic_resource_allocation:
            pod = claims_for_new_pod(self, pod)  # the resourceclaim controller acts first
        cluster.put_pod(pod)
        rec = PodRecord(owner=_owner_of(pod))
        if pod.node_name:
            rec.status, rec.node, rec.bound_at = "Bound", pod.node_name, now
        cluster.records[key] = rec
        cluster.touched(key)
        if pod.volumes:
            self.create_ephemeral_claims(pod)
        self.informer.on_pod_add(pod)
        for c in self._watch["on_pod_add"]:
            c.on_pod_add(self, pod)

    def update_pod(self, new: Pod) -> None:
        old = self.cluster.pods.get(new.key)
        if old is None:
            return
        self.cluster.put_pod(new)
        self.cluster.touched(new.key)
        self.deliver_pod_update(old, new)

    def delete_pod(self, key: str, by: str | None = None) -> Pod | None:
        pod = self.cluster.pop_pod(key)
        if pod is None:
            return None
        self.pending_deletions.pop(key, None)
        rec = self.cluster.records[key]
        rec.status, rec.node, rec.deleted_by, rec.deleted_at = "Deleted", None, by, self.clock.now()
        self.cluster.touched(key)
        self.sink.emit("pod_deleted", pod=key, by=by, node=pod.node_name)
        for c in self._watch["on_pod_delete"]:
            c.on_pod_delete(self, pod)
        if by == "Preempted" and self.feature_gates.scheduler_async_preemption:
            # prepareCandidateAsync's API deletions: the informer reports them after the next Pop.
            self.informer.on_pod_delete_after_pop(pod)
        else:
            self.informer.on_pod_delete(pod)
        if pod.volumes:
            self.delete_owned_claims(pod)
        extended = self.cluster.extended_claim_statuses()  # DRAExtendedResource
        extended_status = extended.pop(key, None) if extended else None
        if (pod.resource_claims or extended_status is not None) and self.feature_gates.dynamic_resource_allocation:
            claims_after_pod_deleted(self, pod, extended_status.resource_claim_name if extended_status else None)
        return pod

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        """Patch status.nominatedNodeName (an API update the informer then delivers)."""
        cur = self.cluster.pods.get(pod.key)
        if cur is None or cur.nominated_node_name == node_name:
            return
        new = dataclasses.replace(cur, nominated_node_name=node_name)
        self.sink.emit("nominated", pod=pod.key, node=node_name)
        self.update_pod(new)

    def bind_pod(self, pod: Pod, node_name: str) -> Status | None:
        """The API binding (DefaultBinder's call): the pod now runs on node_name."""
        if node_name not in self.cluster.nodes:
            return Status.error(f'nodes "{node_name}" not found')
        failures = self.bind_failures
        if failures and pod.key in failures:
            # A failBind action: the API server refuses this one binding.
            return Status.error(failures.pop(pod.key))
        rec = self.cluster.records[pod.key]
        rec.status, rec.node, rec.bound_at = "Bound", node_name, self.clock.now()
        self.cluster.touched(pod.key)
        self.sink.emit("bound", pod=pod.key, node=node_name)
        return None

    def fail_next_bind(self, pod_key: str, message: str) -> None:
        """Refuse the pod's next binding with `message` (a failBind action): the binding cycle
        then runs Unreserve, forgets the assumed pod and requeues it."""
        self.bind_failures[pod_key] = message

    # ---- the Events API ----------------------------------------------------------------------------
    def record_event(self, type_: str, reason: str, obj: str, message: str) -> None:
        """An Event about a pod (the scheduler's and the controllers' recorders write them here)."""
        self.cluster.record_event(self.clock.now(), type_, reason, obj, message)
        self.sink.emit("k8s_event", eventType=type_, reason=reason, object=obj, message=message)

    def controller_event(self, kind: str, **fields: Any) -> None:
        """What a controller reports: an Event (recorded like the scheduler's), or its own step."""
        if kind == "k8s_event":
            self.record_event(fields["eventType"], fields["reason"], fields["object"], fields["message"])
        else:
            self.sink.emit(kind, **fields)

    # ---- graceful termination (optional, for teaching) -----------------------------------------
    def terminate(self, key: str, by: str, reason: str) -> None:
        """Mark the pod terminating (deletionTimestamp, DisruptionTarget condition) and delete it
        when its terminationGracePeriodSeconds have passed on the virtual clock, as a kubelet
        would. The recordings ran without kubelets, so `simulate` deletes at once by default."""
        cur = self.cluster.pods.get(key)
        if cur is None or cur.deletion_timestamp is not None:
            return
        now = self.clock.now()
        new = dataclasses.replace(
            cur, deletion_timestamp=now,
            conditions={**cur.conditions, "DisruptionTarget": "True"},
            condition_reasons={**cur.condition_reasons, "DisruptionTarget": reason})
        self.update_pod(new)
        self.pending_deletions[key] = (now + max(0, cur.termination_grace_period_seconds), by)
        self.sink.emit("pod_terminating", pod=key, by=by,
                       until=now + max(0, cur.termination_grace_period_seconds))

    def next_deletion_time(self) -> float | None:
        return min((t for t, _ in self.pending_deletions.values()), default=None)

    def finish_terminations(self) -> None:
        if not self.pending_deletions:  # the usual case, asked before every step
            return
        now = self.clock.now()
        for key, (t, by) in sorted(self.pending_deletions.items(), key=lambda kv: (kv[1][0], kv[0])):
            if t <= now:
                del self.pending_deletions[key]
                self.delete_pod(key, by=by)

    # ---- the eviction subresource (pods/eviction: the descheduler's, kubectl drain's way) ------
    def evict_pod(self, key: str) -> str | None:
        """POST pods/{name}/eviction: refused (the API's message returned) when the pod's
        PodDisruptionBudget allows no disruption now, else the pod is deleted (gracefully, with
        the DisruptionTarget reason EvictionByEvictionAPI, under the graceful option)."""
        pod = self.cluster.pods.get(key)
        if pod is None:
            return f'pods "{key.split("/", 1)[1]}" not found'
        pdbs = [p for p in self.cluster.pdbs()
                if p.namespace == pod.namespace and p.selector is not None and p.selector.matches(pod.labels)]
        if len(pdbs) > 1:
            return ("This pod has more than one PodDisruptionBudget, which the eviction subresource "
                    "does not support.")
        if pdbs and self.cluster.records[key].status == "Bound" and pod.deletion_timestamp is None:
            if current_disruptions_allowed(self.cluster, pdbs[0]) <= 0:
                return "Cannot evict pod as it would violate the pod's disruption budget."
        if self.graceful_termination:
            self.terminate(key, "Evicted", "EvictionByEvictionAPI")
        else:
            self.delete_pod(key, by="Evicted")
        return None

    # ---- node actions (what users and timelines do) ---------------------------------------------------
    def update_node_conditions(self, node_name: str, conditions: dict[str, str]) -> None:
        """A node status update of its conditions (the kubelet's or the node lifecycle controller's)."""
        node = self.cluster.nodes[node_name]
        self.update_node(dataclasses.replace(node, conditions=conditions))

    def set_node_condition(self, node_name: str, status: str) -> None:
        """A setNodeCondition action: the node's kubelet reports Ready=`status` (Unknown: it
        stops posting). The controllers that watch kubelet heartbeats (node lifecycle) take it
        from there."""
        for c in self._watch["on_kubelet_status"]:
            c.on_kubelet_status(self, node_name, status)

    def node_lifecycle_note(self, node_name: str, change: str, by: str) -> None:
        self.sink.emit("node_lifecycle", node=node_name, change=change, by=by)

    def node_status_event(self, node_name: str, status: str) -> None:
        """Upstream's RecordNodeStatusChange: a Normal event on the Node named after the new status."""
        message = f"Node {node_name} status is now: {status}"
        self.cluster.record_event(self.clock.now(), "Normal", status, node_name, message)
        self.sink.emit("k8s_event", eventType="Normal", reason=status, object=node_name, message=message, kind="Node")

    def set_unschedulable(self, node_name: str, value: bool) -> None:
        node = self.cluster.nodes[node_name]
        self.update_node(dataclasses.replace(node, unschedulable=value))

    def add_taint(self, node_name: str, taint: Taint) -> None:
        node = self.cluster.nodes[node_name]
        taints = [t for t in node.taints if not t.match_taint(taint)]
        taints.append(dataclasses.replace(taint, time_added=self.clock.now()))
        self.update_node(dataclasses.replace(node, taints=taints))

    def remove_taint(self, node_name: str, key: str, effect: str = "") -> None:
        node = self.cluster.nodes[node_name]
        taints = [t for t in node.taints if not (t.key == key and (not effect or t.effect == effect))]
        self.update_node(dataclasses.replace(node, taints=taints))

    def set_node_labels(self, node_name: str, labels: dict[str, str | None]) -> None:
        node = self.cluster.nodes[node_name]
        new_labels = dict(node.labels)
        for k, v in labels.items():
            if v is None:
                new_labels.pop(k, None)
            else:
                new_labels[k] = v
        self.update_node(dataclasses.replace(node, labels=new_labels))


def current_disruptions_allowed(cluster: ClusterState, pdb: PodDisruptionBudget) -> int:
    """status.disruptionsAllowed as the disruption controller would compute it now, by the
    loader's rule (loader.build: an integer minAvailable; maxUnavailable and percentages
    allow none): healthy pods are the matching pods bound to a node and not terminating."""
    if pdb.selector is None or not isinstance(pdb.min_available, int) or pdb.max_unavailable is not None:
        return 0
    healthy = 0
    for k, p in cluster.pods.items():
        if p.namespace == pdb.namespace and pdb.selector.matches(p.labels) and p.deletion_timestamp is None \
                and cluster.records[k].status == "Bound":
            healthy += 1
    return max(0, healthy - pdb.min_available)


def _owner_of(pod: Pod) -> str | None:
    """"Kind/name" of the pod's controlling owner (the first owner when none is marked
    controller), kept in its record so a deleted pod still shows where it came from."""
    refs = pod.owner_references
    if not refs:
        return None
    ref = next((o for o in refs if o.controller), refs[0])
    return sys.intern(f"{ref.kind}/{ref.name}")  # one string per owner, not one per replica's record
