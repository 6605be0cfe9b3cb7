"""The scheduling.k8s.io/v1alpha1 Workload kind and pods' spec.workloadRef, decoded and
validated as the API server does (names, exactly one policy per group, minCount >= 1)."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.scheduling_workload import PodGroup, Workload
from scheduler_core.api.types import WorkloadReference
from scheduler_core.api.validation import dns1123_label_error, dns1123_subdomain_error
from scheduler_core.loader.metadata import parse_metadata
from scheduler_core.loader.reader import FieldReader

WORKLOAD_API_VERSION = "scheduling.k8s.io/v1alpha1"
MAX_POD_GROUPS = 8  # upstream WorkloadMaxPodGroups

WORKLOAD_SCHEMA_SPEC: dict[str, Any] = {
    "podGroups": [{"name": None, "policy": {"basic": None, "gang": {"minCount": None}}}],
    "controllerRef": "not simulated",
}
WORKLOAD_REF_SCHEMA: dict[str, Any] = {"name": None, "podGroup": None, "podGroupReplicaKey": None}


def parse_workload_v1alpha1(r: FieldReader, obj: dict[str, Any]) -> Workload:
    name, namespace, _, _ = parse_metadata(r, obj, namespaced=True)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    groups: list[PodGroup] = []
    raw_groups = r.seq(spec.get("podGroups"), "spec.podGroups")
    if not raw_groups:
        raise r.err("spec.podGroups", "Required value")
    if len(raw_groups) > MAX_POD_GROUPS:
        raise r.err("spec.podGroups", f"Too many: {len(raw_groups)}: must have at most {MAX_POD_GROUPS} items")
    seen: set[str] = set()
    for i, g in enumerate(raw_groups):
        p = f"spec.podGroups[{i}]"
        gm = r.mapping(g, p, required=True)
        gname = r.string(gm.get("name"), f"{p}.name")
        if not gname:
            raise r.err(f"{p}.name", "Required value")
        err = dns1123_label_error(gname)
        if err:
            raise r.err(f"{p}.name", f'Invalid value: "{gname}": {err}')
        if gname in seen:
            raise r.err(f"{p}.name", f'Duplicate value: "{gname}"')
        seen.add(gname)
        policy = r.mapping(gm.get("policy"), f"{p}.policy", required=True)
        has_basic = policy.get("basic") is not None
        has_gang = policy.get("gang") is not None
        if has_basic == has_gang:
            raise r.err(f"{p}.policy", "Invalid value: exactly one of `basic`, `gang` must be set")
        min_count = None
        if has_gang:
            gang = r.mapping(policy.get("gang"), f"{p}.policy.gang", required=True)
            min_count = r.integer(gang.get("minCount"), f"{p}.policy.gang.minCount", bits=32)
            if min_count < 1:
                raise r.err(f"{p}.policy.gang.minCount", f"Invalid value: {min_count}: must be greater than zero")
        groups.append(PodGroup(name=gname, gang_min_count=min_count))
    return Workload(name=name, namespace=namespace, pod_groups=tuple(groups))


def parse_workload_ref(r: FieldReader, raw: Any) -> WorkloadReference | None:
    """spec.workloadRef; None when absent."""
    if raw is None:
        return None
    m = r.mapping(raw, "spec.workloadRef", required=True)
    name = r.string(m.get("name"), "spec.workloadRef.name")
    if not name:
        raise r.err("spec.workloadRef.name", "Required value")
    err = dns1123_subdomain_error(name)
    if err:
        raise r.err("spec.workloadRef.name", f'Invalid value: "{name}": {err}')
    group = r.string(m.get("podGroup"), "spec.workloadRef.podGroup")
    if not group:
        raise r.err("spec.workloadRef.podGroup", "Required value")
    err = dns1123_label_error(group)
    if err:
        raise r.err("spec.workloadRef.podGroup", f'Invalid value: "{group}": {err}')
    key = r.string(m.get("podGroupReplicaKey"), "spec.workloadRef.podGroupReplicaKey")
    return WorkloadReference(name=name, pod_group=group, pod_group_replica_key=key)
