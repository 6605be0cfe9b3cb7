"""The simulated API server: the objects that exist, and what happened to each pod.

Upstream the scheduler watches an API server through informers; here `ClusterState` is that
store, and the `Scheduler` applies changes to it and then calls its own event handlers, the way
an informer would deliver them. It also answers the ClusterLister questions plugins ask
(namespace labels, PDBs, Services/ReplicaSets selecting a pod).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scheduler_core.api.scenario import Scenario
from scheduler_core.api.types import (
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    WorkloadSelector,
)
from scheduler_core.apiserver.store.storage_state import StorageState


@dataclass
class PodRecord:
    """A pod's fate, as `simulate` reports it."""

    status: str = "Pending"  # Pending | Bound | Deleted
    node: str | None = None
    deleted_by: str | None = None
    deleted_at: float | None = None
    message: str | None = None  # last FailedScheduling message
    bound_at: float | None = None
    owner: str | None = None  # "Kind/name" of the pod's controller (ownerReferences), for the UI


@dataclass
class K8sEvent:
    time: float
    type: str  # Normal | Warning
    reason: str
    object: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"time": self.time, "type": self.type, "reason": self.reason, "object": self.object,
                "message": self.message}


@dataclass
class ClusterState:
    nodes: dict[str, Node] = field(default_factory=dict)
    pods: dict[str, Pod] = field(default_factory=dict)  # key -> current object
    all_pods: list[str] = field(default_factory=list)  # every pod key ever created, in order
    records: dict[str, PodRecord] = field(default_factory=dict)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    pdb_list: list[PodDisruptionBudget] = field(default_factory=list)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    workloads: list[WorkloadSelector] = field(default_factory=list)
    events: list[K8sEvent] = field(default_factory=list)
    storage: StorageState = field(default_factory=StorageState)
    # resource.k8s.io/v1 (api.resource_types): classes by name, slices in creation order,
    # claims and templates by "namespace/name"
    device_classes: dict[str, Any] = field(default_factory=dict)
    resource_slices: list[Any] = field(default_factory=list)
    resource_claims: dict[str, Any] = field(default_factory=dict)
    resource_claim_templates: dict[str, Any] = field(default_factory=dict)
    device_taint_rules: list[Any] = field(default_factory=list)  # DRADeviceTaintRules
    # DynamicResources' allocations between Reserve and PreBind (claim uid -> allocated claim)
    dra_in_flight: dict[str, Any] = field(default_factory=dict)
    dra_revision: int = 0  # counts claim writes (views re-describe devices when it moves)
    # scheduling.k8s.io/v1alpha1 Workloads by "namespace/name" (the Workload informer's lister).
    scheduling_workloads: dict[str, Any] = field(default_factory=dict)
    # Pods' status.extendedResourceClaimStatus (DRAExtendedResource) by pod key: kept beside the
    # pods so a plain Pod keeps the few attributes it has (see api.pod_kinds). Read it through
    # `extended_claim_statuses()`.
    extended_resource_claim_statuses: dict[str, Any] = field(default_factory=dict)
    # Keys of the current pods that have volumes (dict as an ordered set), so the storage view
    # finds the pods naming claims without walking every pod of a 150,000-pod cluster. Kept by
    # `put_pod` / `pop_pod`, the only writers of `pods`; pickled with the state in checkpoints.
    volume_pods: dict[str, None] = field(default_factory=dict)

    # Pods whose record or current object changed since a view last looked (scheduler_core/
    # view/pods.py); None until a view memo asks for it (a class default: not a dataclass field,
    # so comparisons and reprs of the state leave it out).
    pods_touched = None

    def touched(self, key: str) -> None:
        """Note a change of pod `key`'s record or object, for the view (see `pods_touched`)."""
        if self.pods_touched is not None:
            self.pods_touched.add(key)

    def put_pod(self, pod: Pod) -> None:
        """Store `pod` as the current object of its key (an add or a replacement), keeping
        `volume_pods` in step: a replacement without volumes leaves it."""
        key = pod.key
        self.pods[key] = pod
        if pod.volumes:
            self.volume_pods[key] = None
        else:
            self.volume_pods.pop(key, None)

    def pop_pod(self, key: str) -> Pod | None:
        """Remove and return the current pod `key` (None if there is none), and its index entry."""
        self.volume_pods.pop(key, None)
        return self.pods.pop(key, None)

    @classmethod
    def from_scenario(cls, sc: Scenario) -> ClusterState:
        cs = cls()
        cs.priority_classes = {pc.name: pc for pc in sc.priority_classes}
        cs.pdb_list = list(sc.pdbs)
        cs.namespaces = {ns.name: ns for ns in sc.namespaces}
        cs.workloads = list(sc.workloads)
        cs.storage = StorageState.from_objects(sc.storage)
        cs.device_classes = {c.name: c for c in sc.device_classes}
        cs.resource_slices = list(sc.resource_slices)
        cs.resource_claims = {c.key: c for c in sc.resource_claims}
        cs.resource_claim_templates = {t.key: t for t in sc.resource_claim_templates}
        cs.device_taint_rules = list(sc.device_taint_rules)
        cs.scheduling_workloads = {w.key: w for w in sc.scheduling_workloads}
        return cs

    def get_workload(self, namespace: str, name: str) -> Any:
        """The Workload `namespace/name`, or None (upstream: a NotFound error)."""
        return self.scheduling_workloads.get(f"{namespace}/{name}")

    # ---- ClusterLister ----------------------------------------------------------------
    def namespace_labels(self, namespace: str) -> dict[str, str]:
        ns = self.namespaces.get(namespace)
        labels = dict(ns.labels) if ns else {}
        # The apiserver labels every namespace with its own name.
        labels.setdefault("kubernetes.io/metadata.name", namespace)
        return labels

    def pdbs(self) -> list[PodDisruptionBudget]:
        return self.pdb_list

    def workload_selectors(self, namespace: str) -> list[WorkloadSelector]:
        return [w for w in self.workloads if w.namespace == namespace]

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        return self.pods.get(f"{namespace}/{name}")

    def extended_claim_statuses(self) -> dict[str, Any]:
        """Pod key -> PodExtendedResourceClaimStatus, for pods the scheduler made one for."""
        return self.extended_resource_claim_statuses

    # ---- bookkeeping ------------------------------------------------------------------
    def record_event(self, time: float, type_: str, reason: str, obj: str, message: str) -> K8sEvent:
        ev = K8sEvent(time, type_, reason, obj, message)
        self.events.append(ev)
        return ev
