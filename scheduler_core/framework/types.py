"""The scheduler's working data structures (upstream `framework/types.go` and
`k8s.io/kube-scheduler/framework/types.go`).

`NodeInfo` aggregates a node with the pods on it (their summed requests, host ports, pods with
(anti-)affinity) so that Filter plugins answer in O(1) per node instead of walking pods.
`PodInfo` pre-parses a pod's affinity terms once. `QueuedPodInfo` is what the scheduling queue
holds. Resources here are integers: millicores for cpu, bytes for memory, counts otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import count
from typing import Any

from scheduler_core.api.types import (
    RESOURCE_CPU,
    RESOURCE_EPHEMERAL_STORAGE,
    RESOURCE_MEMORY,
    RESOURCE_PODS,
    Container,
    LabelSelector,
    Node,
    Pod,
    PodAffinityTerm,
    WeightedPodAffinityTerm,
)
from scheduler_core.framework.requests_memo import memoised

# Requests assumed for scoring when a container sets none (upstream DefaultMilliCPURequest,
# DefaultMemoryRequest).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"

_generation = count(1)


def next_generation() -> int:
    """Monotonic NodeInfo generation, so snapshots can copy only what changed."""
    return next(_generation)


def milli_value(q: Fraction) -> int:
    """Quantity.MilliValue(): thousandths, rounded up. `math.ceil(q * 1000)`, on the quantity's
    numerator and denominator (ints have them too): no intermediate Fraction, whose construction
    (a gcd) was most of a pod's request computations."""
    try:
        n, d = q.numerator, q.denominator
    except AttributeError:  # a float
        return math.ceil(q * 1000)
    return -(-(n * 1000) // d)


def value(q: Fraction) -> int:
    """Quantity.Value(): whole units, rounded up (`math.ceil(q)`, as milli_value computes it)."""
    try:
        n, d = q.numerator, q.denominator
    except AttributeError:  # a float
        return math.ceil(q)
    return -(-n // d)


def is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource_name(name: str) -> bool:
    """upstream v1helper.IsExtendedResourceName: domain-qualified, not kubernetes.io/, no
    `requests.` prefix."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return True


def is_hugepage_resource_name(name: str) -> bool:
    return name.startswith("hugepages-")


def is_attachable_volume_resource_name(name: str) -> bool:
    return name.startswith("attachable-volumes-")


def is_scalar_resource_name(name: str) -> bool:
    """Resources kept in Resource.scalar_resources (upstream schedutil.IsScalarResourceName)."""
    return (
        is_extended_resource_name(name)
        or is_hugepage_resource_name(name)
        or "kubernetes.io/" in name  # v1helper.IsPrefixedNativeResource
        or is_attachable_volume_resource_name(name)
    )


_new_resource = object.__new__


class Resource:
    """Aggregated resources (upstream framework.Resource)."""

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "allowed_pod_number", "scalar_resources")

    def __init__(
        self,
        milli_cpu: int = 0,
        memory: int = 0,
        ephemeral_storage: int = 0,
        allowed_pod_number: int = 0,
        scalar_resources: dict[str, int] | None = None,
    ) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalar_resources: dict[str, int] = scalar_resources if scalar_resources is not None else {}

    @classmethod
    def from_list(cls, rl: dict[str, Fraction]) -> Resource:
        r = cls()
        r.add(rl)
        return r

    def add(self, rl: dict[str, Fraction]) -> None:
        """Resource.Add(ResourceList)."""
        for name, q in rl.items():
            if name == RESOURCE_CPU:
                self.milli_cpu += milli_value(q)
            elif name == RESOURCE_MEMORY:
                self.memory += value(q)
            elif name == RESOURCE_PODS:
                self.allowed_pod_number += value(q)
            elif name == RESOURCE_EPHEMERAL_STORAGE:
                self.ephemeral_storage += value(q)
            elif is_scalar_resource_name(name):
                self.scalar_resources[name] = self.scalar_resources.get(name, 0) + value(q)

    def get(self, name: str) -> int:
        """The amount of one named resource."""
        if name == RESOURCE_CPU:
            return self.milli_cpu
        if name == RESOURCE_MEMORY:
            return self.memory
        if name == RESOURCE_EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == RESOURCE_PODS:
            return self.allowed_pod_number
        return self.scalar_resources.get(name, 0)

    def clone(self) -> Resource:
        # Slots set directly (no __init__ call): two clones per changed node per cycle, and
        # every node's on the first snapshot.
        r = _new_resource(Resource)
        r.milli_cpu = self.milli_cpu
        r.memory = self.memory
        r.ephemeral_storage = self.ephemeral_storage
        r.allowed_pod_number = self.allowed_pod_number
        r.scalar_resources = dict(self.scalar_resources) if self.scalar_resources else {}
        return r

    def to_json(self) -> dict:
        d = {"cpu": self.milli_cpu, "memory": self.memory}
        if self.ephemeral_storage:
            d["ephemeral-storage"] = self.ephemeral_storage
        if self.allowed_pod_number:
            d["pods"] = self.allowed_pod_number
        d.update(self.scalar_resources)
        return d

    def __repr__(self) -> str:
        return f"Resource({self.to_json()})"


def pod_requests(pod: Pod, non_missing: dict[str, Fraction] | None = None) -> dict[str, Fraction]:
    """resourcehelper.PodRequests: max(sum of containers + restartable init containers, each
    init container on top of the sidecars started before it), with the pod-level requests in
    place of that for the resources they name (PodLevelResources), + overhead.

    `non_missing` supplies values for resources a container does not request at all (used for
    the non-zero requests scoring relies on; pass a dict that is never changed, e.g. a module
    constant). Returns a new dict each time: callers may change it. Answered from the requests
    memo (requests_memo.py) when this pod, or one with the same requests, was asked before.
    """
    return dict(memoised(pod, id(non_missing), non_missing, lambda p: _pod_requests(p, non_missing)))


def pod_requests_derived(pod: Pod, tag: Any, compute: Callable[[Pod], Any]) -> Any:
    """`compute(pod)` for a value derived from the pod's requests alone (e.g. a plugin's integer
    requests), kept in pod_requests' memo under `tag` (a str or a tuple starting with one, naming
    the computation) with the same rules. The kept value itself is returned: callers must not change it."""
    return memoised(pod, tag, None, compute)


def _pod_requests(pod: Pod, non_missing: dict[str, Fraction] | None) -> dict[str, Fraction]:
    """pod_requests, computed."""

    def creqs(c: Container) -> dict[str, Fraction]:
        if not non_missing:
            return c.requests
        r = dict(c.requests)
        for k, v in non_missing.items():
            if k not in r:
                r[k] = v
        return r

    reqs: dict[str, Fraction] = {}
    for c in pod.containers:
        for k, v in creqs(c).items():
            # Not `reqs.get(k, 0) + v`: 0 + Fraction builds a new Fraction for the same value.
            reqs[k] = reqs[k] + v if k in reqs else v
    restartable: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in pod.init_containers:
        cr = creqs(c)
        if c.restart_policy == "Always":
            for k, v in cr.items():
                reqs[k] = reqs.get(k, 0) + v
                restartable[k] = restartable.get(k, 0) + v
            cr = restartable
        else:
            tmp = dict(cr)
            for k, v in restartable.items():
                tmp[k] = tmp.get(k, 0) + v
            cr = tmp
        for k, v in cr.items():
            if v > init_max.get(k, -1):
                init_max[k] = v
    for k, v in init_max.items():
        if k not in reqs or v > reqs[k]:
            reqs[k] = v
    pod_resources = pod.pod_resources
    if pod_resources is not None:
        # PodLevelResources: pod-level requests (cpu, memory, hugepages) replace the containers'.
        for k, v in pod_resources.requests.items():
            reqs[k] = v
    for k, v in pod.overhead.items():
        if k in reqs:
            reqs[k] = reqs[k] + v
        else:
            reqs[k] = v
    return reqs


# The requests scoring assumes for a container that requests no cpu / memory (non-zero requests).
NON_ZERO_DEFAULTS: dict[str, Fraction] = {
    RESOURCE_CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
    RESOURCE_MEMORY: Fraction(DEFAULT_MEMORY_REQUEST),
}


@dataclass
class PodResource:
    resource: Resource
    non0_cpu: int
    non0_mem: int


def calculate_resource(pod: Pod) -> PodResource:
    """PodInfo.CalculateResource: the pod's requests and its non-zero cpu/memory for scoring."""
    requests = pod_requests(pod)
    non0 = pod_requests(pod, non_missing=NON_ZERO_DEFAULTS)
    res = Resource.from_list(requests)
    return PodResource(
        res,
        milli_value(non0.get(RESOURCE_CPU, 0)),
        value(non0.get(RESOURCE_MEMORY, 0)),
    )


class AffinityTerm:
    """A pod (anti-)affinity term with its selector and namespaces resolved (upstream
    fwk.AffinityTerm). `namespaces` empty and no namespace selector means the owner pod's own
    namespace, which the constructor fills in."""

    __slots__ = ("namespaces", "selector", "topology_key", "namespace_selector")

    def __init__(
        self,
        namespaces: set[str],
        selector: LabelSelector | None,
        topology_key: str,
        namespace_selector: LabelSelector | None,
    ) -> None:
        self.namespaces = namespaces
        self.selector = selector
        self.topology_key = topology_key
        self.namespace_selector = namespace_selector

    @classmethod
    def from_term(cls, owner: Pod, term: PodAffinityTerm) -> AffinityTerm:
        namespaces = set(term.namespaces)
        if not namespaces and term.namespace_selector is None:
            namespaces = {owner.namespace}
        # A nil namespaceSelector selects nothing; an empty one selects every namespace.
        return cls(namespaces, term.label_selector, term.topology_key, term.namespace_selector)

    def matches(self, pod: Pod, ns_labels: dict[str, str] | None) -> bool:
        """True when `pod` is in the term's namespaces and matches its label selector."""
        if pod.namespace in self.namespaces:
            pass
        elif self.namespace_selector is not None and self.namespace_selector.matches(ns_labels or {}):
            pass
        else:
            return False
        return self.selector is not None and self.selector.matches(pod.labels)


@dataclass
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


# What a PodInfo holds for the terms of a pod without pod (anti-)affinity (see PodInfo.update).
NO_TERMS: tuple[Any, ...] = ()
NO_PLUGINS: frozenset[str] = frozenset()  # QueuedPodInfo's rejecting plugins when none did


class PodInfo:
    """A pod plus its pre-parsed (anti-)affinity terms and cached resource requests."""

    __slots__ = (
        "pod",
        "required_affinity_terms",
        "required_anti_affinity_terms",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "_resource",
    )

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        self._resource: PodResource | None = None
        self.update(pod)

    def update(self, pod: Pod) -> None:
        self.pod = pod
        self._resource = None
        aff = pod.affinity
        pa = aff.pod_affinity if aff else None
        paa = aff.pod_anti_affinity if aff else None
        if pa is None and paa is None:  # most pods: no terms, without the helpers
            # One empty tuple for all four (the term lists are only read, never changed in
            # place): four empty lists a pod were 224 bytes each for 150,000 queued pods,
            # and four objects a checkpoint's restore made.
            self.required_affinity_terms = NO_TERMS
            self.required_anti_affinity_terms = NO_TERMS
            self.preferred_affinity_terms = NO_TERMS
            self.preferred_anti_affinity_terms = NO_TERMS
            return
        self.required_affinity_terms = [AffinityTerm.from_term(pod, t) for t in (pa.required if pa else [])]
        self.required_anti_affinity_terms = [
            AffinityTerm.from_term(pod, t) for t in (paa.required if paa else [])
        ]
        self.preferred_affinity_terms = _weighted(pod, pa.preferred if pa else [])
        self.preferred_anti_affinity_terms = _weighted(pod, paa.preferred if paa else [])

    def calculate_resource(self) -> PodResource:
        if self._resource is None:
            # The same pod's PodInfos (queued, assumed, bound) share one, never changed.
            self._resource = pod_requests_derived(self.pod, "framework/pod-resource", calculate_resource)
        return self._resource

    def __repr__(self) -> str:
        return f"PodInfo({self.pod.key})"


def _weighted(pod: Pod, terms: list[WeightedPodAffinityTerm]) -> list[WeightedAffinityTerm]:
    return [WeightedAffinityTerm(AffinityTerm.from_term(pod, t.pod_affinity_term), t.weight) for t in terms]


class HostPortInfo:
    """Host ports in use on a node: ip -> {(protocol, port)} (upstream fwk.HostPortInfo)."""

    __slots__ = ("ports",)

    def __init__(self) -> None:
        self.ports: dict[str, set[tuple[str, int]]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return (ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP")

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        self.ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        m = self.ports.get(ip)
        if m is not None:
            m.discard((protocol, port))
            if not m:
                del self.ports[ip]

    def __len__(self) -> int:
        return sum(len(m) for m in self.ports.values())

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in m for m in self.ports.values())
        for key in (DEFAULT_BIND_ALL_HOST_IP, ip):
            m = self.ports.get(key)
            if m is not None and pp in m:
                return True
        return False

    def clone(self) -> HostPortInfo:
        h = HostPortInfo.__new__(HostPortInfo)
        h.ports = {k: set(v) for k, v in self.ports.items()} if self.ports else {}
        return h


@dataclass
class ImageStateSummary:
    """An image's size and how many nodes hold it (upstream keeps the node set)."""

    size: int
    num_nodes: int


def pod_with_affinity(pod: Pod) -> bool:
    a = pod.affinity
    return a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None)


def pod_with_required_anti_affinity(pod: Pod) -> bool:
    a = pod.affinity
    return a is not None and a.pod_anti_affinity is not None and bool(a.pod_anti_affinity.required)


class NodeInfo:
    """A node and the aggregate of the pods on it (upstream framework.NodeInfo)."""

    __slots__ = (
        "node",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "used_ports",
        "requested",
        "non_zero_requested",
        "allocatable",
        "image_states",
        "generation",
        "name",
        "volume_count",
    )

    def __init__(self, node: Node | None = None) -> None:
        self.node: Node | None = None
        # The node's name, kept as a plain attribute (read for every node in every cycle).
        self.name = ""
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = Resource()
        self.image_states: dict[str, ImageStateSummary] = {}
        # The volumes of the pods on the node, all kinds: at least the unique volumes they attach,
        # so NodeVolumeLimits needs the exact count only when this comes near a driver's limit.
        self.volume_count = 0
        self.generation = next_generation()
        if node is not None:
            self.set_node(node)

    def set_node(self, node: Node) -> None:
        self.node = node
        self.name = node.name
        self.allocatable = Resource.from_list(node.allocatable)
        self.generation = next_generation()

    def add_pod_info(self, pi: PodInfo) -> None:
        self.pods.append(pi)
        if pod_with_affinity(pi.pod):
            self.pods_with_affinity.append(pi)
        if pod_with_required_anti_affinity(pi.pod):
            self.pods_with_required_anti_affinity.append(pi)
        self._update(pi, 1)

    def add_pod(self, pod: Pod) -> None:
        self.add_pod_info(PodInfo(pod))

    def remove_pod(self, pod: Pod) -> bool:
        """Remove by namespace/name key; False if the pod was not on this node.

        Uses upstream's swap-with-last removal so pod order after removals matches upstream.
        """
        k = pod.key
        if pod_with_affinity(pod):
            _remove_from(self.pods_with_affinity, k)
        if pod_with_required_anti_affinity(pod):
            _remove_from(self.pods_with_required_anti_affinity, k)
        removed = _remove_from(self.pods, k)
        if removed is None:
            return False
        self._update(removed, -1)
        return True

    def _update(self, pi: PodInfo, sign: int) -> None:
        pr = pi.calculate_resource()
        r = pr.resource
        req = self.requested
        req.milli_cpu += sign * r.milli_cpu
        req.memory += sign * r.memory
        req.ephemeral_storage += sign * r.ephemeral_storage
        for name, q in r.scalar_resources.items():
            req.scalar_resources[name] = req.scalar_resources.get(name, 0) + sign * q
        self.non_zero_requested.milli_cpu += sign * pr.non0_cpu
        self.non_zero_requested.memory += sign * pr.non0_mem
        self.volume_count += sign * len(pi.pod.volumes)
        # util.GetHostPorts: sidecar (restartPolicy Always) init containers' ports count too, first.
        pod = pi.pod
        for c in pod.init_containers:
            if c.ports and c.restart_policy == "Always":
                self._use_ports(c.ports, sign)
        for c in pod.containers:
            if c.ports:  # most containers declare none: no tuple of them built per pod
                self._use_ports(c.ports, sign)
        self.generation = next_generation()

    def _use_ports(self, ports: list[Any], sign: int) -> None:
        for p in ports:
            if sign > 0:
                self.used_ports.add(p.host_ip, p.protocol, p.host_port)
            else:
                self.used_ports.remove(p.host_ip, p.protocol, p.host_port)

    def snapshot(self) -> NodeInfo:
        """A copy whose lists and aggregates can change without touching this one."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.name = self.name
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.used_ports = self.used_ports.clone()
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.volume_count = self.volume_count
        # Shared, not copied: a NodeInfo's allocatable is only ever replaced whole (set_node),
        # never changed in place, so the copy cannot see a later change through it.
        c.allocatable = self.allocatable
        # Upstream snapshots each image's node count when the node is cloned (only nodes that
        # changed are cloned), so counts seen by ImageLocality lag behind other nodes' changes.
        c.image_states = {k: ImageStateSummary(v.size, v.num_nodes) for k, v in self.image_states.items()} \
            if self.image_states else self.image_states
        c.generation = self.generation
        return c

    def __setstate__(self, state: Any) -> None:
        """Unpickled (a checkpoint restored, often by another process than the one that took
        it): the saved fields, with a generation from this process's counter. Generations are
        compared only with others this process handed out (the run view's memo of described
        nodes, per-row kept values); a saved one can be any number, which this process's
        counter may give later to another change of the same node, which then looks unchanged
        (a stored frame kept an evicted pod on its node, issue 39)."""
        slots = state[1] if isinstance(state, tuple) else state
        for name, value in slots.items():
            setattr(self, name, value)
        self.generation = next_generation()

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={[p.pod.key for p in self.pods]})"


def _remove_from(lst: list[PodInfo], key: str) -> PodInfo | None:
    for i, pi in enumerate(lst):
        if pi.pod.key == key:
            lst[i] = lst[-1]
            lst.pop()
            return pi
    return None


@dataclass
class QueuedPodInfo:
    """What the scheduling queue holds for a pod (upstream framework.QueuedPodInfo)."""

    pod_info: PodInfo
    timestamp: float = 0.0  # when added to / last moved in the queue (virtual seconds)
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_count: int = 0
    consecutive_errors_count: int = 0
    # The plugins that rejected the pod's last attempt. Replaced, never changed in place (the
    # queue's Pop and PreEnqueue, schedule_one's failure handling), so a pod none rejected shares
    # the one empty NO_PLUGINS: 150,000 queued pods hold no 300,000 empty sets (~65 MB).
    unschedulable_plugins: set[str] | frozenset[str] = NO_PLUGINS
    pending_plugins: set[str] | frozenset[str] = NO_PLUGINS
    gating_plugin: str = ""
    backoff_expiration: float | None = None  # cached upstream too
    # Events registered by the gating PreEnqueue plugin (upstream GatingPluginEvents); replaced,
    # never changed in place, so an ungated pod shares the empty tuple (no list per queued pod).
    gating_plugin_events: list | tuple = ()
    # Order in which `timestamp` was assigned: the virtual clock gives many pods the same
    # timestamp, whereas upstream's wall-clock timestamps are always distinct; the queue breaks
    # equal-timestamp ties with this so that "earlier" means "earlier event", as upstream.
    timestamp_seq: int = 0

    @property
    def pod(self) -> Pod:
        return self.pod_info.pod

    @property
    def gated(self) -> bool:
        return bool(self.gating_plugin)


@dataclass
class NodeScore:
    name: str
    score: int


@dataclass
class PreFilterResult:
    """PreFilter's optional narrowing of the nodes to evaluate; None node_names means all."""

    node_names: set[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return PreFilterResult(set(other.node_names or ()))
        return PreFilterResult(self.node_names & other.node_names)  # type: ignore[operator]


# Cluster events (upstream fwk.ClusterEvent): what changed, to decide which pods to requeue.
class ActionType:
    """Bit values exactly as upstream's fwk.ActionType (their order matters to event matching)."""

    NONE = 0
    ADD = 1
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_NODE_DECLARED_FEATURE = 1 << 7
    UPDATE_POD_LABEL = 1 << 8
    UPDATE_POD_SCALE_DOWN = 1 << 9
    UPDATE_POD_TOLERATIONS = 1 << 10
    UPDATE_POD_TOLERATION = UPDATE_POD_TOLERATIONS  # upstream's spelling
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 11
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 12
    UPDATE = (
        UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION
        | UPDATE_NODE_ANNOTATION | UPDATE_POD_LABEL | UPDATE_POD_SCALE_DOWN | UPDATE_POD_TOLERATIONS
        | UPDATE_POD_SCHEDULING_GATES_ELIMINATED | UPDATE_POD_GENERATED_RESOURCE_CLAIM
        | UPDATE_NODE_DECLARED_FEATURE
    )
    ALL = (1 << 13) - 1


class EventResource:
    POD = "Pod"
    ASSIGNED_POD = "AssignedPod"
    UNSCHEDULED_POD = "UnschedulablePod"  # upstream's internal resource name
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    CSI_NODE = "CSINode"
    CSI_DRIVER = "CSIDriver"
    STORAGE_CLASS = "StorageClass"
    RESOURCE_CLAIM = "ResourceClaim"
    RESOURCE_SLICE = "ResourceSlice"
    DEVICE_CLASS = "DeviceClass"
    WILDCARD = "*"


@dataclass(frozen=True)
class ClusterEvent:
    resource: str
    action_type: int
    label: str = ""

    def match(self, incoming: ClusterEvent) -> bool:
        """Upstream MatchClusterEvents(self, incoming): self is a wildcard event, or the resources
        match (Pod matches AssignedPod/UnschedulablePod), the action types overlap and the
        incoming one is not broader than self's (Node/Update does not match Node/UpdateNodeLabel)."""
        if self.resource == EventResource.WILDCARD and self.action_type == ActionType.ALL:
            return True
        r = self.resource
        res_ok = r == EventResource.WILDCARD or r == incoming.resource or (
            r == EventResource.POD
            and incoming.resource in (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD)
        )
        return res_ok and (self.action_type & incoming.action_type) != 0 and incoming.action_type <= self.action_type


class QueueingHint:
    SKIP = 0
    QUEUE = 1
