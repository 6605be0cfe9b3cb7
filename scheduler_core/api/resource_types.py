"""resource.k8s.io/v1 objects (Dynamic Resource Allocation), as the loader produces them.

DeviceClass, ResourceSlice, ResourceClaim and ResourceClaimTemplate carry the fields the
DynamicResources plugin and the structured allocator read; the pod side (`PodResourceClaim`) is
referenced from `api.types.Pod.resource_claims`. Attribute and capacity names are kept as written
(a bare name belongs to the slice's driver domain, see `qualified`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from scheduler_core.api.types import NodeSelector, OwnerReference, Pod

__all__ = [
    "DeviceAttribute", "DeviceTaint", "DeviceToleration", "CounterSet", "DeviceCounterConsumption",
    "CapacityRequestPolicy", "DeviceTaintRule", "Device", "ResourceSlice", "DeviceSelector", "DeviceClass",
    "DeviceSubRequest", "ExactDeviceRequest", "DeviceRequest", "DeviceConstraint",
    "DeviceClaimSpec", "DeviceRequestAllocationResult", "AllocationResult",
    "ResourceClaimConsumerReference", "ResourceClaim", "ResourceClaimTemplate",
    "PodResourceClaim", "PodClaims", "ClaimingPod", "ALLOCATION_MODE_EXACT_COUNT", "ALLOCATION_MODE_ALL",
    "ALLOCATION_RESULTS_MAX_SIZE", "FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE", "qualified",
    "RESOURCE_DEVICE_CLASS_PREFIX", "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "ContainerExtendedResourceRequest", "PodExtendedResourceClaimStatus",
]

ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
ALLOCATION_MODE_ALL = "All"
ALLOCATION_RESULTS_MAX_SIZE = 32  # resourceapi.AllocationResultsMaxSize
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize
# DRAExtendedResource: every DeviceClass also answers to this prefix plus its name (the implicit
# extended resource name), and the claim the scheduler makes for such requests carries this
# annotation set to "true".
RESOURCE_DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"


def qualified(name: str, driver: str) -> tuple[str, str]:
    """(domain, id) of an attribute/capacity name: a bare name is in the driver's domain."""
    if "/" in name:
        domain, _, ident = name.partition("/")
        return domain, ident
    return driver, name


@dataclass
class DeviceAttribute:
    """Exactly one of the four values is set (`kind` says which)."""

    kind: str  # string | int | bool | version
    value: str | int | bool

    def to_json(self) -> dict[str, str | int | bool]:
        return {self.kind: self.value}


@dataclass(frozen=True)
class DeviceTaint:
    """A device's taint (DRADeviceTaints): NoSchedule and NoExecute keep untolerating claims off
    the device; None and effects this release does not know are informational."""

    key: str
    value: str = ""
    effect: str = ""
    time_added: str = ""  # as written (RFC 3339), for export


@dataclass(frozen=True)
class DeviceToleration:
    """A device request's toleration (resourceclaim.ToleratesTaint semantics)."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: DeviceTaint) -> bool:
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return self.operator == "Exists"

    def to_json(self) -> dict[str, str | int]:
        out: dict[str, str | int] = {}
        if self.key:
            out["key"] = self.key
        out["operator"] = self.operator
        if self.value:
            out["value"] = self.value
        if self.effect:
            out["effect"] = self.effect
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out


@dataclass
class CounterSet:
    """A ResourceSlice's sharedCounters entry (DRAPartitionableDevices): counters the pool's
    devices draw on; not allocatable by themselves."""

    name: str
    counters: dict[str, Fraction] = field(default_factory=dict)
    counters_text: dict[str, str] = field(default_factory=dict)  # as written, for export


@dataclass
class DeviceCounterConsumption:
    """A device's consumesCounters entry: how much of each counter of one set it uses."""

    counter_set: str
    counters: dict[str, Fraction] = field(default_factory=dict)
    counters_text: dict[str, str] = field(default_factory=dict)


@dataclass
class DeviceTaintRule:
    """resource.k8s.io/v1alpha3 DeviceTaintRule (DRADeviceTaintRules): one taint for every
    device its selector matches (driver, pool and device name, each optional; without a
    selector, no device), as if the driver had published it in the ResourceSlice."""

    name: str
    taint: DeviceTaint
    has_selector: bool = False
    driver: str | None = None
    pool: str | None = None
    device: str | None = None
    uid: str = ""

    def matches(self, driver: str, pool: str, device: str) -> bool:
        return self.has_selector and self.driver in (None, driver) and self.pool in (None, pool) \
            and self.device in (None, device)


@dataclass
class CapacityRequestPolicy:
    """How shares of a capacity are requested (DRAConsumableCapacity): a default amount, and at
    most one of a list of valid values (ascending) or a valid range (min, optional max and step).
    Quantities are kept with the text they were written as, for export."""

    default: Fraction | None = None
    valid_values: list[Fraction] = field(default_factory=list)
    range_min: Fraction | None = None
    range_max: Fraction | None = None
    range_step: Fraction | None = None
    text: dict[str, Any] = field(default_factory=dict)  # the policy as written


@dataclass
class Device:
    name: str
    attributes: dict[str, DeviceAttribute] = field(default_factory=dict)
    capacity: dict[str, Fraction] = field(default_factory=dict)
    capacity_text: dict[str, str] = field(default_factory=dict)  # as written, for export
    # Alpha fields (used only when the run's gate is on; with it off the engine behaves as the
    # apiserver with the gate off, which drops them).
    taints: list[DeviceTaint] = field(default_factory=list)  # DRADeviceTaints
    consumes_counters: list[DeviceCounterConsumption] = field(default_factory=list)  # DRAPartitionableDevices
    # Where the device is available, when its slice has perDeviceNodeSelection (exactly one set).
    node_name: str = ""
    node_selector: NodeSelector | None = None
    all_nodes: bool = False
    # DRAConsumableCapacity: the device may be shared by several allocations, each consuming
    # part of its capacities (per capacity, an optional request policy).
    allow_multiple_allocations: bool | None = None
    request_policies: dict[str, CapacityRequestPolicy] = field(default_factory=dict)


@dataclass
class ResourceSlice:
    name: str
    driver: str
    pool_name: str
    pool_generation: int = 0
    resource_slice_count: int = 1
    node_name: str = ""
    node_selector: NodeSelector | None = None
    all_nodes: bool = False
    devices: list[Device] = field(default_factory=list)
    uid: str = ""
    shared_counters: list[CounterSet] = field(default_factory=list)  # DRAPartitionableDevices
    per_device_node_selection: bool = False  # DRAPartitionableDevices


@dataclass
class DeviceSelector:
    cel: str  # the CEL expression


@dataclass
class DeviceClass:
    name: str
    selectors: list[DeviceSelector] = field(default_factory=list)
    config: list[dict] = field(default_factory=list)  # opaque driver configuration, copied
    uid: str = ""
    # spec.extendedResourceName (DRAExtendedResource): pods may ask for the class's devices as
    # this extended resource. Read whatever the gates; only a run with the gate uses it.
    extended_resource_name: str | None = None


@dataclass
class DeviceSubRequest:
    """One alternative of a firstAvailable list (also the shape of `exactly`)."""

    name: str
    device_class_name: str
    selectors: list[DeviceSelector] = field(default_factory=list)
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    tolerations: list[DeviceToleration] = field(default_factory=list)  # DRADeviceTaints
    capacity_requests: dict[str, Fraction] = field(default_factory=dict)  # DRAConsumableCapacity
    capacity_requests_text: dict[str, str] = field(default_factory=dict)


@dataclass
class ExactDeviceRequest(DeviceSubRequest):
    admin_access: bool | None = None


@dataclass
class DeviceRequest:
    name: str
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] = field(default_factory=list)


@dataclass
class DeviceConstraint:
    requests: list[str] = field(default_factory=list)
    match_attribute: str = ""
    distinct_attribute: str = ""  # DRAConsumableCapacity


@dataclass
class DeviceClaimSpec:
    requests: list[DeviceRequest] = field(default_factory=list)
    constraints: list[DeviceConstraint] = field(default_factory=list)
    config: list[dict] = field(default_factory=list)


@dataclass
class DeviceRequestAllocationResult:
    request: str  # "<request>" or "<request>/<subrequest>"
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] = field(default_factory=list)
    share_id: str | None = None  # DRAConsumableCapacity: one share of a multi-allocatable device
    consumed_capacity: dict[str, Fraction] = field(default_factory=dict)


@dataclass
class AllocationResult:
    results: list[DeviceRequestAllocationResult] = field(default_factory=list)
    node_selector: NodeSelector | None = None
    config: list[dict] = field(default_factory=list)


@dataclass
class ResourceClaimConsumerReference:
    resource: str
    name: str
    uid: str = ""
    api_group: str = ""


@dataclass
class ResourceClaim:
    name: str
    namespace: str = "default"
    uid: str = ""
    spec: DeviceClaimSpec = field(default_factory=DeviceClaimSpec)
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] = field(default_factory=list)
    owner_references: list[OwnerReference] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    deletion_timestamp: float | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass
class ResourceClaimTemplate:
    name: str
    namespace: str = "default"
    uid: str = ""
    spec: DeviceClaimSpec = field(default_factory=DeviceClaimSpec)
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass
class PodResourceClaim:
    """pod.spec.resourceClaims[]: exactly one of the two sources is set."""

    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


@dataclass
class PodClaims:
    """A pod's DRA fields: spec.resourceClaims and status.resourceClaimStatuses."""

    claims: list[PodResourceClaim] = field(default_factory=list)
    statuses: dict[str, str | None] = field(default_factory=dict)


@dataclass
class ClaimingPod(Pod):
    """A Pod with spec.resourceClaims (see `Pod.resource_claims`). `dataclasses.replace` keeps
    the class, so every copy of the pod keeps its claims."""

    claims: PodClaims = field(default_factory=PodClaims)

    @property
    def resource_claims(self) -> list[PodResourceClaim]:
        return self.claims.claims

    @property
    def resource_claim_statuses(self) -> dict[str, str | None]:
        return self.claims.statuses


@dataclass(frozen=True)
class ContainerExtendedResourceRequest:
    """One entry of a pod's status.extendedResourceClaimStatus.requestMappings: which request of
    the scheduler's claim serves one container's extended resource."""

    container_name: str
    resource_name: str
    request_name: str


@dataclass(frozen=True)
class PodExtendedResourceClaimStatus:
    """status.extendedResourceClaimStatus (DRAExtendedResource): the claim the scheduler created
    for the pod's extended resources backed by DRA, and how its requests map to containers."""

    request_mappings: tuple[ContainerExtendedResourceRequest, ...]
    resource_claim_name: str
