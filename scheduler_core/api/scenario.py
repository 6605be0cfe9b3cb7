"""A scenario: everything a run starts from, as the loader produced it from manifests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scheduler_core.api.errors import LoadWarning
from scheduler_core.api.storage_types import StorageObjects
from scheduler_core.api.types import (
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    WorkloadSelector,
)
from scheduler_core.config.types import KubeSchedulerConfiguration


@dataclass
class TimelineAction:
    """One action at a virtual time (seconds), e.g. ("addTaint", {"node": "n1", "taint": {...}}).

    `params` holds already-validated values: API objects (Pod, Node, Taint) where the action
    carries one, plain strings/dicts otherwise. See docs/timeline.md for the YAML format.
    """

    time: float
    action: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scenario:
    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)  # document order; bound ones have node_name
    priority_classes: list[PriorityClass] = field(default_factory=list)
    # kube-apiserver admission plugins this scenario turns off (APIServer document)
    disabled_admission_plugins: list[str] = field(default_factory=list)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    namespaces: list[Namespace] = field(default_factory=list)
    workloads: list[WorkloadSelector] = field(default_factory=list)
    # scheduling.k8s.io/v1alpha1 Workloads (pod groups for GangScheduling), document order.
    scheduling_workloads: list[Any] = field(default_factory=list)
    config: KubeSchedulerConfiguration = field(default_factory=KubeSchedulerConfiguration)
    timeline: list[TimelineAction] = field(default_factory=list)
    # resource.k8s.io/v1 (api.resource_types): DeviceClass, ResourceSlice, ResourceClaim,
    # ResourceClaimTemplate, in document order
    device_classes: list[Any] = field(default_factory=list)
    resource_slices: list[Any] = field(default_factory=list)
    resource_claims: list[Any] = field(default_factory=list)
    resource_claim_templates: list[Any] = field(default_factory=list)
    device_taint_rules: list[Any] = field(default_factory=list)  # resource.k8s.io/v1alpha3
    source: str = "<input>"
    # Fields accepted but not simulated (see loader.schema), one per kind and field.
    warnings: list[LoadWarning] = field(default_factory=list, compare=False, repr=False)
    # What loading did (controllers' pods created, dump objects dropped): a
    # scheduler_core.controllers.workloads.WorkloadSummary; None for scenarios built in code.
    load_summary: Any = field(default=None, compare=False, repr=False)
    # The located error for the first pod with spec.resources (pod-level resources): a run
    # whose gates leave PodLevelResources off refuses the scenario with it (v1.30 has no such
    # field). None when no pod sets them.
    pod_resources_error: Any = field(default=None, compare=False, repr=False)
    # Lesson documents (scheduler_core.api.lesson): captions for the web app, unused by the engine.
    lessons: list[Any] = field(default_factory=list, compare=False, repr=False)
    challenges: list[Any] = field(default_factory=list, compare=False, repr=False)  # api/challenge.py
    # The kube-scheduler release a run models unless the run says otherwise (features.gates_for).
    kubernetes_version: str = "v1.35"
    # PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes and CSIDrivers
    storage: StorageObjects = field(default_factory=StorageObjects)
    # The DeschedulerPolicy (scheduler_core.descheduler.policy), if the scenario has one.
    descheduler_policy: Any = field(default=None, compare=False, repr=False)
