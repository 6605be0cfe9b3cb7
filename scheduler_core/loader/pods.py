"""v1 Pod as the apiserver stores it: defaults, strategy, validation, then Priority admission.

The pods of one template share what their spec parses to (containers, tolerations, affinity...),
their label and annotation maps, their (empty) condition maps and their namespace string:
parsed once per distinct content, never changed in place afterwards (a changed pod is a new Pod
with new parts), which also lets the requests memo answer every replica from the first, and a
checkpoint write each shared object once."""

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
from scheduler_core.loader.memo import ParseMemo, content_bytes
from scheduler_core.loader.metadata import parse_metadata, parse_owner_references, stable_uid
from scheduler_core.loader.pod_resources import parse_pod_resources
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.resource_claim import check_container_claims, parse_pod_resource_claims
from scheduler_core.loader.resources import resource_list
from scheduler_core.loader.storage import parse_volumes
from scheduler_core.loader.workload_v1alpha1 import parse_workload_ref

__all__ = ["parse_pod"]


class _SpecParts:
    """What a pod's spec (and its status's claim statuses) parses to, apart from spec.nodeName:
    the same for every replica of a template. Shared by all the pods parsed from the same
    content, so nothing here is ever changed in place (the engine replaces a pod's parts, it
    never edits them: see requests_memo.py)."""

    __slots__ = ("host_network", "containers", "init_containers", "overhead", "node_selector",
                 "affinity", "tolerations", "spread", "gates", "scheduler_name", "pc_name", "raw",
                 "grace", "extra", "pod_class", "defaulted", "conditions", "condition_reasons")

    def __init__(self, **fields: Any) -> None:
        for name, value in fields.items():
            setattr(self, name, value)
        # The tolerations after DefaultTolerationSeconds admission, made once (parse_pod).
        self.defaulted: list[Any] | None = None
        # A loaded pod has no conditions yet: its replicas share the two empty maps (a
        # condition is set by a new Pod with new maps: the API server's DisruptionTarget).
        self.conditions: dict[str, str] = {}
        self.condition_reasons: dict[str, str] = {}


# Specs parsed already, by their content (see memo.py): a dump's 150,000 pods come from a few
# hundred templates, and parsing each replica's spec again was most of the loader's per-pod work.
_SPECS: ParseMemo[_SpecParts] = ParseMemo()


def _spec_key(spec: dict[str, Any], labels: dict[str, str], status: Any) -> bytes | None:
    """What the spec's parse depends on, as a content key (None: parse it, do not remember):
    the spec without spec.nodeName (checked per pod), the pod's labels where matchLabelKeys can
    read them (affinity, spread constraints), and status.resourceClaimStatuses."""
    if "nodeName" in spec:
        spec = {k: v for k, v in spec.items() if k != "nodeName"}
    reads_labels = "affinity" in spec or "topologySpreadConstraints" in spec
    claim_statuses = status.get("resourceClaimStatuses") if isinstance(status, dict) else None
    return content_bytes((spec, labels if reads_labels else None, claim_statuses))


# The parts of specs that had an affinity, by their content without it (spec.nodeName left out
# too; see `_with_own_affinity`).
_SPECS_BUT_AFFINITY: ParseMemo[_SpecParts] = ParseMemo()


def _but_affinity_key(spec: dict[str, Any], labels: dict[str, str], status: Any) -> bytes | None:
    """`_spec_key` of the spec without its affinity (and without spec.nodeName)."""
    rest = {k: v for k, v in spec.items() if k != "affinity" and k != "nodeName"}
    claim_statuses = status.get("resourceClaimStatuses") if isinstance(status, dict) else None
    return content_bytes((rest, labels if "topologySpreadConstraints" in rest else None,
                          claim_statuses))


def _with_own_affinity(r: FieldReader, spec: dict[str, Any], labels: dict[str, str],
                       status: Any) -> _SpecParts:
    """The parts of a spec that differs from one parsed before only in its affinity: a
    DaemonSet's pods, each with the required node affinity of its own node. The rest is shared
    with that spec's parts and only the affinity is parsed. The same result, or error, as the
    full parse: the rest parsed without error there (its parse reads neither the affinity nor,
    without spread constraints, the labels), so the affinity's parse, which reads only the
    affinity and the labels, is the one check left that could fail."""
    key = _but_affinity_key(spec, labels, status)
    base = _SPECS_BUT_AFFINITY.get(key) if key is not None else None
    if base is None:
        parts = _parse_spec_parts(r, spec, labels, status)
        if key is not None:
            _SPECS_BUT_AFFINITY.put(key, parts)
        return parts
    affinity = parse_affinity(r, spec.get("affinity"), "spec.affinity", labels)
    parts = _SpecParts.__new__(_SpecParts)
    for name in _SpecParts.__slots__:
        setattr(parts, name, getattr(base, name))
    parts.affinity = affinity
    return parts


# Node names found valid (a dump binds its pods to a few thousand nodes, each named again and
# again); bounded like the memos, cleared when full.
_VALID_NODE_NAMES: set[str] = set()
_VALID_NODE_NAMES_MAX = 65536


def _node_name(r: FieldReader, spec: dict[str, Any], gates: list[str]) -> str:
    """spec.nodeName, checked (per pod: the one field of a template's spec each replica has
    its own of)."""
    node_name = r.string(spec.get("nodeName"), "spec.nodeName")
    if node_name:
        if node_name not in _VALID_NODE_NAMES:
            err = dns1123_subdomain_error(node_name)
            if err:
                raise r.err("spec.nodeName", f'Invalid value: "{node_name}": {err}')
            if len(_VALID_NODE_NAMES) >= _VALID_NODE_NAMES_MAX:
                _VALID_NODE_NAMES.clear()
            _VALID_NODE_NAMES.add(node_name)
        if gates:
            raise r.err("spec.nodeName", "Forbidden: cannot be set until all schedulingGates "
                                         "have been cleared")
    return node_name


def _parse_spec_parts(r: FieldReader, spec: dict[str, Any], labels: dict[str, str],
                      status: Any) -> _SpecParts:
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
    _node_name(r, spec, gates)  # checked here too, so a spec's first error is the one reported
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
    resource_claims, claim_statuses = parse_pod_resource_claims(r, spec, status)
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
    return _SpecParts(host_network=host_network, containers=containers,
                      init_containers=init_containers, overhead=overhead,
                      node_selector=node_selector, affinity=affinity, tolerations=tolerations,
                      spread=tscs, gates=gates, scheduler_name=scheduler_name, pc_name=pc_name,
                      raw=PodRaw(priority, policy), grace=grace, extra=extra, pod_class=pod_class)


def _parse_pod_spec(r: FieldReader, obj: dict[str, Any], index: int, uid_salt: str,
                    ) -> tuple[Pod, _SpecParts]:
    name, namespace, labels, annotations = parse_metadata(r, obj, namespaced=True, shared=True)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    status = obj.get("status")
    key = _spec_key(spec, labels, status)
    parts = _SPECS.get(key) if key is not None else None
    if parts is None:
        parts = (_with_own_affinity(r, spec, labels, status) if "affinity" in spec
                 else _parse_spec_parts(r, spec, labels, status))
        if key is not None:
            _SPECS.put(key, parts)
    node_name = _node_name(r, spec, parts.gates)
    pod = parts.pod_class(
        name=name, namespace=namespace, uid=stable_uid("Pod", namespace, name, uid_salt),
        labels=labels, annotations=annotations, creation_index=index, node_name=node_name,
        scheduler_name=parts.scheduler_name, priority=0, priority_class_name=parts.pc_name,
        preemption_policy=PREEMPT_LOWER_PRIORITY, containers=parts.containers,
        init_containers=parts.init_containers, overhead=parts.overhead,
        node_selector=parts.node_selector, affinity=parts.affinity, tolerations=parts.tolerations,
        topology_spread_constraints=parts.spread, scheduling_gates=parts.gates,
        host_network=parts.host_network, termination_grace_period_seconds=parts.grace,
        owner_references=parse_owner_references(r, obj.get("metadata") or {}),
        conditions=parts.conditions, condition_reasons=parts.condition_reasons,
        **parts.extra,
    )
    return pod, parts


POD_RESOURCES_GATE_OFF = ("Forbidden: pod-level resources need the PodLevelResources feature gate, which is "
                          "off in this run")


def parse_pod(r: FieldReader, obj: dict[str, Any], index: int, admission: PriorityAdmission,
              uid_salt: str = "") -> Pod:
    """A v1 Pod as the apiserver would store it (defaults, strategy, validation, admission)."""
    pod, parts = _parse_pod_spec(r, obj, index, uid_salt)
    if pod.pod_resources is not None and admission.pod_resources_error is None:
        admission.pod_resources_error = r.err("spec.resources", POD_RESOURCES_GATE_OFF)
    admission.admit(r, pod, parts.raw)
    if admission.default_toleration_seconds:
        if parts.defaulted is None:
            parts.defaulted = with_default_tolerations(parts.tolerations)
        pod.tolerations = parts.defaulted
    return pod

