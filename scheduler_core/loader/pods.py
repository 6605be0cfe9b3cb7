"""v1 Pod as the apiserver stores it: defaults, strategy, validation, then Priority admission."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.default_toleration_seconds import with_default_tolerations
from scheduler_core.api.pod_kinds import pod_class_for
from scheduler_core.api.resource_types import PodClaims
from scheduler_core.api.types import (
    DEFAULT_SCHEDULER_NAME,
    PREEMPT_LOWER_PRIORITY,
    PREEMPT_NEVER,
    Pod,
)
from scheduler_core.api.validation import dns1123_subdomain_error, qualified_name_error
from scheduler_core.loader.admission import PodRaw, PriorityAdmission
from scheduler_core.loader.affinity import parse_affinity, parse_spread_constraints
from scheduler_core.loader.containers import parse_container, parse_tolerations
from scheduler_core.loader.metadata import parse_metadata, parse_owner_references, stable_uid
from scheduler_core.loader.pod_resources import parse_pod_resources
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.resource_claim import check_container_claims, parse_pod_resource_claims
from scheduler_core.loader.resources import resource_list
from scheduler_core.loader.storage import parse_volumes
from scheduler_core.loader.workload_v1alpha1 import parse_workload_ref

__all__ = ["parse_pod"]


def _parse_pod_spec(r: FieldReader, obj: dict[str, Any], index: int, uid_salt: str,
                    ) -> tuple[Pod, PodRaw]:
    name, namespace, labels, annotations = parse_metadata(r, obj, namespaced=True)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    host_network = r.boolean(spec.get("hostNetwork"), "spec.hostNetwork")
    raw_containers = r.seq(spec.get("containers"), "spec.containers")
    if not raw_containers:
        raise r.err("spec.containers", "Required value")
    containers = [parse_container(r, c, f"spec.containers[{i}]", init=False,
                             host_network=host_network) for i, c in enumerate(raw_containers)]
    init_containers = [parse_container(r, c, f"spec.initContainers[{i}]", init=True,
                                  host_network=host_network)
                       for i, c in enumerate(r.seq(spec.get("initContainers"),
                                                   "spec.initContainers"))]
    seen_names: set[str] = set()
    for group, items in (("initContainers", init_containers), ("containers", containers)):
        for i, c in enumerate(items):
            if c.name in seen_names:
                raise r.err(f"spec.{group}[{i}].name", f'Duplicate value: "{c.name}"')
            seen_names.add(c.name)
    seen_ports: set[tuple[str, int, str]] = set()
    for group, items in (("containers", containers), ("initContainers", init_containers)):
        for i, c in enumerate(items):
            for j, pt in enumerate(c.ports):
                if pt.host_port == 0:
                    continue
                k = (pt.protocol, pt.host_port, pt.host_ip)
                if k in seen_ports:
                    raise r.err(f"spec.{group}[{i}].ports[{j}].hostPort",
                                f'Duplicate value: "{pt.host_port}/{pt.protocol}"')
                seen_ports.add(k)
    overhead = resource_list(r, spec.get("overhead"), "spec.overhead", container=True)
    pod_resources = parse_pod_resources(r, spec.get("resources"), containers, init_containers)
    node_selector = r.labels(spec.get("nodeSelector"), "spec.nodeSelector")
    affinity = parse_affinity(r, spec.get("affinity"), "spec.affinity", labels)
    tolerations = parse_tolerations(r, spec.get("tolerations"), "spec.tolerations")
    tscs = parse_spread_constraints(r, spec.get("topologySpreadConstraints"),
                               "spec.topologySpreadConstraints", labels)
    gates: list[str] = []
    for i, g in enumerate(r.seq(spec.get("schedulingGates"), "spec.schedulingGates")):
        p = f"spec.schedulingGates[{i}]"
        gm = r.mapping(g, p, required=True)
        gname = r.string(gm.get("name"), f"{p}.name")
        err = qualified_name_error(gname)
        if err:
            raise r.err(p, f'Invalid value: "{gname}": {err}')
        if gname in gates:
            raise r.err(p, f'Duplicate value: "{gname}"')
        gates.append(gname)
    node_name = r.string(spec.get("nodeName"), "spec.nodeName")
    if node_name:
        err = dns1123_subdomain_error(node_name)
        if err:
            raise r.err("spec.nodeName", f'Invalid value: "{node_name}": {err}')
        if gates:
            raise r.err("spec.nodeName", "Forbidden: cannot be set until all schedulingGates "
                                         "have been cleared")
    scheduler_name = r.string(spec.get("schedulerName"), "spec.schedulerName") \
        or DEFAULT_SCHEDULER_NAME
    pc_name = r.string(spec.get("priorityClassName"), "spec.priorityClassName")
    priority = r.opt_integer(spec.get("priority"), "spec.priority")
    policy = spec.get("preemptionPolicy")
    if policy is not None:
        policy = r.string(policy, "spec.preemptionPolicy")
        if policy not in (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER):
            raise r.err("spec.preemptionPolicy", f'Unsupported value: "{policy}": supported '
                                                 'values: "Never", "PreemptLowerPriority"')
    grace = spec.get("terminationGracePeriodSeconds")
    grace = 30 if grace is None else r.integer(grace, "spec.terminationGracePeriodSeconds",
                                               bits=64)
    if grace < 0:
        grace = 1  # the apiserver turns negative grace periods into 1 s
    resource_claims, claim_statuses = parse_pod_resource_claims(r, spec, obj.get("status"))
    check_container_claims(r, spec, resource_claims)
    volumes = parse_volumes(r, spec.get("volumes"), "spec.volumes")
    extra: dict[str, Any] = {}
    if resource_claims or claim_statuses:
        extra["claims"] = PodClaims(resource_claims, claim_statuses)
    if volumes:
        extra["pod_volumes"] = volumes
    workload_ref = parse_workload_ref(r, spec.get("workloadRef"))
    if workload_ref is not None:
        extra["pod_workload_ref"] = workload_ref
    if pod_resources is not None:
        extra["pod_level_resources"] = pod_resources
    pod_class = pod_class_for(bool(volumes), "claims" in extra, workload_ref is not None,
                              pod_resources is not None)
    pod = pod_class(
        name=name, namespace=namespace, uid=stable_uid("Pod", namespace, name, uid_salt),
        labels=labels, annotations=annotations, creation_index=index, node_name=node_name,
        scheduler_name=scheduler_name, priority=0, priority_class_name=pc_name,
        preemption_policy=PREEMPT_LOWER_PRIORITY, containers=containers,
        init_containers=init_containers, overhead=overhead, node_selector=node_selector,
        affinity=affinity, tolerations=tolerations, topology_spread_constraints=tscs,
        scheduling_gates=gates, host_network=host_network,
        termination_grace_period_seconds=grace,
        owner_references=parse_owner_references(r, obj.get("metadata") or {}),
        **extra,
    )
    return pod, PodRaw(priority, policy)




POD_RESOURCES_GATE_OFF = ("Forbidden: pod-level resources need the PodLevelResources feature gate, which is "
                          "off in this run")


def parse_pod(r: FieldReader, obj: dict[str, Any], index: int, admission: PriorityAdmission,
              uid_salt: str = "") -> Pod:
    """A v1 Pod as the apiserver would store it (defaults, strategy, validation, admission)."""
    pod, raw = _parse_pod_spec(r, obj, index, uid_salt)
    if pod.pod_resources is not None and admission.pod_resources_error is None:
        admission.pod_resources_error = r.err("spec.resources", POD_RESOURCES_GATE_OFF)
    admission.admit(r, pod, raw)
    if admission.default_toleration_seconds:
        pod.tolerations = with_default_tolerations(pod.tolerations)
    return pod

