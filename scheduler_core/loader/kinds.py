"""The kinds a scenario may contain and the apiVersion each is read at."""

from __future__ import annotations

from scheduler_core.api.api_versions import CONFIG_API_VERSION, TIMELINE_API_VERSION
from scheduler_core.loader.resource_schema import RESOURCE_KINDS

__all__ = ["KINDS", "TIMELINE_API_VERSION", "CONFIG_API_VERSION"]


KINDS: dict[str, tuple[str, ...]] = {
    "Node": ("v1",),
    "Pod": ("v1",),
    "Namespace": ("v1",),
    "Service": ("v1",),
    "ReplicationController": ("v1",),
    "PriorityClass": ("scheduling.k8s.io/v1",),
    "Workload": ("scheduling.k8s.io/v1alpha1",),
    "PodDisruptionBudget": ("policy/v1",),
    "ReplicaSet": ("apps/v1",),
    "StatefulSet": ("apps/v1",),
    "PersistentVolume": ("v1",),
    "PersistentVolumeClaim": ("v1",),
    "StorageClass": ("storage.k8s.io/v1",),
    "CSINode": ("storage.k8s.io/v1",),
    "CSIDriver": ("storage.k8s.io/v1",),
    "CSIStorageCapacity": ("storage.k8s.io/v1",),
    "KubeSchedulerConfiguration": (CONFIG_API_VERSION,),
    "Timeline": (TIMELINE_API_VERSION,),
    "APIServer": (TIMELINE_API_VERSION,),
}
# resource.k8s.io/v1: DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate.
KINDS.update(RESOURCE_KINDS)
