"""The Kubernetes objects the scheduler reads, reduced to the fields it uses.

These mirror `k8s.io/api/core/v1` (and policy/v1, scheduling.k8s.io/v1) with snake_case names.
The manifest loader (`scheduler_core.loader`) is the only place that builds them from YAML,
after applying the apiserver's and kubelet's defaults, so everything downstream can rely on
defaults being filled in (e.g. `Toleration.operator` is never empty, `Pod.priority` is resolved).

Resource quantities (container requests/limits, overhead, node capacity/allocatable) are
exact `fractions.Fraction` values in base units (cores, bytes, counts), as Kubernetes'
`resource.Quantity` is exact. Sums are taken exactly; conversion to the integers upstream's
`framework.Resource` holds (MilliValue for cpu, Value for the rest, both rounding up) happens in
`scheduler_core.framework.types`. A resource absent from a dict was not set at all — upstream
treats "missing" and "0" differently (non-zero defaults for scoring).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

Quantity = Fraction

# Well-known names, as in k8s.io/api/core/v1.
RESOURCE_CPU = "cpu"
RESOURCE_MEMORY = "memory"
RESOURCE_EPHEMERAL_STORAGE = "ephemeral-storage"
RESOURCE_PODS = "pods"

TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
TAINT_EFFECT_PREFER_NO_SCHEDULE = "PreferNoSchedule"
TAINT_EFFECT_NO_EXECUTE = "NoExecute"

TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_REGION = "failure-domain.beta.kubernetes.io/region"

DEFAULT_SCHEDULER_NAME = "default-scheduler"
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"


@dataclass
class Taint:
    key: str
    value: str = ""
    effect: str = ""
    time_added: float | None = None  # virtual seconds; set for NoExecute taints when added

    def match_taint(self, other: Taint) -> bool:
        """Same key and effect: upstream's Taint.MatchTaint (value is not compared)."""
        return self.key == other.key and self.effect == other.effect

    def to_string(self) -> str:
        """`key=value:effect` as upstream's Taint.ToString prints it."""
        if not self.value:
            return f"{self.key}:{self.effect}"
        return f"{self.key}={self.value}:{self.effect}"


def _decimal_int64(v: str) -> int | None:
    """A decimal integer in int64 range ("-5", "300"; no "+", no leading zeros), else None."""
    if not v or v != v.strip():
        return None
    digits = v[1:] if v.startswith("-") else v
    if not digits.isdigit() or not digits.isascii() or (len(digits) > 1 and digits[0] == "0"):
        return None
    n = int(v)
    return n if -(2**63) <= n < 2**63 else None


@dataclass
class Toleration:
    key: str = ""
    operator: str = "Equal"  # Equal | Exists (Equal is the apiserver default)
    value: str = ""
    effect: str = ""  # empty matches every effect
    toleration_seconds: int | None = None
    # Which admission plugin added it ("" when the pod's manifest has it): for the UI only.
    added_by: str = field(default="", compare=False, repr=False)

    def tolerates_taint(self, taint: Taint) -> bool:
        """upstream v1.Toleration.ToleratesTaint with comparison operators off (the default)."""
        return self.tolerates_taint_with(taint, False)

    def tolerates_taint_with(self, taint: Taint, comparison_operators: bool) -> bool:
        """upstream v1.Toleration.ToleratesTaint: Gt/Lt (TaintTolerationComparisonOperators,
        alpha) compare the taint's value with the toleration's as 64-bit decimal integers; a
        value that is not one is never tolerated."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("Equal", ""):
            return self.value == taint.value
        if self.operator in ("Gt", "Lt") and comparison_operators:
            tol, tnt = _decimal_int64(self.value), _decimal_int64(taint.value)
            if tol is None or tnt is None:
                return False
            return tnt > tol if self.operator == "Gt" else tnt < tol
        return False


@dataclass
class LabelSelectorRequirement:
    key: str
    operator: str  # In | NotIn | Exists | DoesNotExist
    values: tuple[str, ...] = ()


@dataclass
class LabelSelector:
    """metav1.LabelSelector. An empty selector matches everything; a missing one (None) nothing."""

    match_labels: dict[str, str] = field(default_factory=dict)
    match_expressions: list[LabelSelectorRequirement] = field(default_factory=list)

    def matches(self, labels: dict[str, str]) -> bool:
        for k, v in self.match_labels.items():
            if labels.get(k) != v:
                return False
        for req in self.match_expressions:
            op = req.operator
            present = req.key in labels
            if op == "In":
                if not present or labels[req.key] not in req.values:
                    return False
            elif op == "NotIn":
                if present and labels[req.key] in req.values:
                    return False
            elif op == "Exists":
                if not present:
                    return False
            elif op == "DoesNotExist":
                if present:
                    return False
            else:
                return False
        return True

    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions


@dataclass
class NodeSelectorRequirement:
    key: str
    operator: str  # In | NotIn | Exists | DoesNotExist | Gt | Lt
    values: tuple[str, ...] = ()


@dataclass
class NodeSelectorTerm:
    match_expressions: list[NodeSelectorRequirement] = field(default_factory=list)
    match_fields: list[NodeSelectorRequirement] = field(default_factory=list)


@dataclass
class NodeSelector:
    node_selector_terms: list[NodeSelectorTerm] = field(default_factory=list)


@dataclass
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


@dataclass
class NodeAffinity:
    required: NodeSelector | None = None  # requiredDuringSchedulingIgnoredDuringExecution
    preferred: list[PreferredSchedulingTerm] = field(default_factory=list)


@dataclass
class PodAffinityTerm:
    label_selector: LabelSelector | None = None
    namespaces: list[str] = field(default_factory=list)
    topology_key: str = ""
    namespace_selector: LabelSelector | None = None
    match_label_keys: list[str] = field(default_factory=list)
    mismatch_label_keys: list[str] = field(default_factory=list)


@dataclass
class WeightedPodAffinityTerm:
    weight: int
    pod_affinity_term: PodAffinityTerm


@dataclass
class PodAffinity:
    required: list[PodAffinityTerm] = field(default_factory=list)
    preferred: list[WeightedPodAffinityTerm] = field(default_factory=list)


@dataclass
class PodAntiAffinity:
    required: list[PodAffinityTerm] = field(default_factory=list)
    preferred: list[WeightedPodAffinityTerm] = field(default_factory=list)


@dataclass
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAntiAffinity | None = None


@dataclass
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule | ScheduleAnyway
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None  # Honor (default) | Ignore
    node_taints_policy: str | None = None  # Ignore (default) | Honor
    match_label_keys: list[str] = field(default_factory=list)


@dataclass
class ContainerPort:
    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""


@dataclass(frozen=True)
class PodResources:
    """A pod's spec.resources (PodLevelResources) after the apiserver's defaults: requests and
    limits for cpu, memory and hugepages-* only."""

    requests: dict[str, Quantity] = field(default_factory=dict)
    limits: dict[str, Quantity] = field(default_factory=dict)


@dataclass
class Container:
    name: str
    image: str = ""
    requests: dict[str, Quantity] = field(default_factory=dict)  # limits copied in as defaults
    limits: dict[str, Quantity] = field(default_factory=dict)
    ports: list[ContainerPort] = field(default_factory=list)
    restart_policy: str | None = None  # "Always" marks a sidecar init container
    claims: list[tuple[str, str]] = field(default_factory=list)  # resources.claims: (name, request)
    # The actions of restartPolicyRules (ContainerRestartRules): "RestartAllContainers" makes
    # NodeDeclaredFeatures require the node feature RestartAllContainersOnContainerExits.
    restart_rule_actions: tuple[str, ...] = ()


@dataclass(frozen=True)
class WorkloadReference:
    """spec.workloadRef (GenericWorkload, v1.35 alpha): the scheduling.k8s.io/v1alpha1 Workload
    and pod group a pod belongs to; immutable once set."""

    name: str
    pod_group: str
    pod_group_replica_key: str = ""


@dataclass
class OwnerReference:
    kind: str
    name: str
    api_version: str = "v1"
    uid: str = ""
    controller: bool = False


_NO_STATUSES: dict[str, str | None] = {}


@dataclass
class Pod:
    name: str
    namespace: str = "default"
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    creation_index: int = 0  # document order; stands in for creationTimestamp ordering
    creation_time: float = 0.0  # virtual seconds
    node_name: str = ""
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    priority: int = 0
    priority_class_name: str = ""
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    containers: list[Container] = field(default_factory=list)
    init_containers: list[Container] = field(default_factory=list)
    overhead: dict[str, Quantity] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: Affinity | None = None
    tolerations: list[Toleration] = field(default_factory=list)
    topology_spread_constraints: list[TopologySpreadConstraint] = field(default_factory=list)
    scheduling_gates: list[str] = field(default_factory=list)
    host_network: bool = False
    termination_grace_period_seconds: int = 30
    # status
    phase: str = "Pending"
    nominated_node_name: str = ""
    deletion_timestamp: float | None = None  # set while terminating (graceful deletion)
    conditions: dict[str, str] = field(default_factory=dict)  # condition type -> status
    owner_references: list[OwnerReference] = field(default_factory=list)
    # condition type -> reason (e.g. DisruptionTarget -> PreemptionByScheduler on a preempted pod)
    condition_reasons: dict[str, str] = field(default_factory=dict)
    # status.startTime in virtual seconds, set when a kubelet would start the pod; None = not
    # reported (upstream's GetPodStartTime then answers "now")
    start_time: float | None = None
    # A pod with spec.resourceClaims is an api.resource_types.ClaimingPod, which adds them (and
    # status.resourceClaimStatuses) as its one extra field, and a pod with spec.volumes is an
    # api.storage_types.VolumePod (api.pod_kinds picks the class): a plain Pod keeps 29
    # attributes, the most CPython (3.11) lets instances share one key table (30 would make
    # every pod's attribute dict five times larger).

    @property
    def resource_claims(self) -> Any:
        """spec.resourceClaims (api.resource_types.PodResourceClaim): none on a plain Pod."""
        return ()

    @property
    def resource_claim_statuses(self) -> dict[str, str | None]:
        """status.resourceClaimStatuses: pod claim name -> generated claim name (None: none)."""
        return _NO_STATUSES

    @property
    def workload_ref(self) -> WorkloadReference | None:
        """spec.workloadRef (GenericWorkload): none on a plain Pod (see api.pod_kinds)."""
        return None

    @property
    def volumes(self) -> Any:
        """spec.volumes (api.storage_types.Volume): none on a plain Pod."""
        return ()

    @property
    def pod_resources(self) -> PodResources | None:
        """spec.resources, the pod-level requests and limits (PodLevelResources): none on a plain
        Pod (see api.pod_kinds)."""
        return None

    @property
    def key(self) -> str:
        """`namespace/name`, the key upstream's caches and events use. Interned: the store's
        maps, its record of every pod, the queue's heap and the load summary then hold one
        string per pod, which a checkpoint writes (and a restore makes) once, not four times."""
        return sys.intern(f"{self.namespace}/{self.name}")


@dataclass
class ContainerImage:
    names: list[str]
    size_bytes: int = 0


@dataclass
class Node:
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    unschedulable: bool = False
    taints: list[Taint] = field(default_factory=list)
    capacity: dict[str, Quantity] = field(default_factory=dict)
    allocatable: dict[str, Quantity] = field(default_factory=dict)  # defaulted from capacity
    images: list[ContainerImage] = field(default_factory=list)
    # status.declaredFeatures (NodeDeclaredFeatures, v1.35 alpha), as the kubelet reports them.
    declared_features: tuple[str, ...] = ()
    creation_index: int = 0
    # status.conditions as type -> status, once a kubelet or the node lifecycle controller set
    # one (a setNodeCondition action); empty: healthy (Ready True), as the recordings assume.
    conditions: dict[str, str] = field(default_factory=dict)



@dataclass
class PriorityClass:
    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    description: str = ""


@dataclass
class PodDisruptionBudget:
    name: str
    namespace: str = "default"
    selector: LabelSelector | None = None
    min_available: int | str | None = None  # int or percentage string
    max_unavailable: int | str | None = None
    disruptions_allowed: int = 0  # status.disruptionsAllowed, computed as the controller would

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass
class Namespace:
    name: str
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class WorkloadSelector:
    """A Service, ReplicationController, ReplicaSet or StatefulSet: only its selector matters.

    The system-default topology spreading (helper.DefaultSelector upstream) groups pods by the
    objects of these kinds whose selector matches them.
    """

    kind: str  # Service | ReplicationController | ReplicaSet | StatefulSet
    name: str
    namespace: str = "default"
    selector: LabelSelector | None = None  # Service/RC map selectors become match_labels
