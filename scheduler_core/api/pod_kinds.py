"""Which Pod class a manifest becomes, by the rarely used fields it carries.

A plain `Pod` carries neither spec.volumes, spec.resourceClaims, spec.workloadRef nor
spec.resources (pod-level resources) as attributes (they read as empty), so that it keeps 29 attributes, the most CPython 3.11 lets
instances share one key table: one more would make every pod's attribute dict five times larger
(296 -> 1,584 bytes), in every scenario, for fields most pods never set. Each subclass adds one
field; a pod with several of them gets the class that combines them. `dataclasses.replace` keeps
the class, so every copy of a pod keeps its fields. Whoever builds a pod from a manifest asks here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler_core.api.resource_types import ClaimingPod
from scheduler_core.api.storage_types import VolumePod
from scheduler_core.api.types import Pod, PodResources, WorkloadReference


@dataclass
class WorkloadPod(Pod):
    """A Pod with spec.workloadRef (GenericWorkload): the Workload and pod group it belongs to."""

    pod_workload_ref: WorkloadReference | None = None

    @property
    def workload_ref(self) -> WorkloadReference | None:
        return self.pod_workload_ref


@dataclass
class VolumeClaimingPod(ClaimingPod, VolumePod):
    """Volumes and device claims."""


@dataclass
class ClaimingWorkloadPod(ClaimingPod, WorkloadPod):
    """Device claims and a workloadRef."""


@dataclass
class VolumeWorkloadPod(VolumePod, WorkloadPod):
    """Volumes and a workloadRef."""


@dataclass
class VolumeClaimingWorkloadPod(ClaimingPod, VolumePod, WorkloadPod):
    """Volumes, device claims and a workloadRef."""


_CLASSES: dict[tuple[bool, bool, bool], type[Pod]] = {
    (False, False, False): Pod,
    (True, False, False): VolumePod,
    (False, True, False): ClaimingPod,
    (False, False, True): WorkloadPod,
    (True, True, False): VolumeClaimingPod,
    (False, True, True): ClaimingWorkloadPod,
    (True, False, True): VolumeWorkloadPod,
    (True, True, True): VolumeClaimingWorkloadPod,
}


@dataclass
class PodLevelResourcesPod(Pod):
    """A Pod with spec.resources (PodLevelResources): pod-level requests replace the containers'
    sum for cpu, memory and hugepages in the scheduler's accounting."""

    pod_level_resources: PodResources = field(default_factory=PodResources)

    @property
    def pod_resources(self) -> PodResources | None:
        return self.pod_level_resources


def _with_pod_resources(base: type[Pod]) -> type[Pod]:
    """`base` plus spec.resources, as a module-level class (checkpoints pickle pods by name)."""
    if base is Pod:
        return PodLevelResourcesPod
    name = f"PodLevelResources{base.__name__}"
    cls = dataclass(type(name, (PodLevelResourcesPod, base), {"__module__": __name__, "__qualname__": name,
                                                              "__doc__": f"{base.__doc__} With spec.resources."}))
    globals()[name] = cls
    return cls


_WITH_POD_RESOURCES: dict[tuple[bool, bool, bool], type[Pod]] = {
    k: _with_pod_resources(v) for k, v in _CLASSES.items()}


def pod_class_for(has_volumes: bool, has_claims: bool, has_workload_ref: bool = False,
                  has_pod_resources: bool = False) -> type[Pod]:
    """The class for a pod with (or without) volumes, device claims, a workloadRef and
    pod-level resources."""
    table = _WITH_POD_RESOURCES if has_pod_resources else _CLASSES
    return table[(has_volumes, has_claims, has_workload_ref)]
