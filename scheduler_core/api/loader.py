"""The one parser of scenarios: Kubernetes manifests (YAML) -> `Scenario`.

Everything downstream (engine, CLI, web app) relies on this module having done what the
apiserver would have done before the scheduler ever sees an object:

* decoding with the apiserver's defaults (namespace "default", toleration operator Equal, port
  protocol TCP, schedulerName, termination grace 30 s, limits standing in for missing requests,
  ResourceList values rounded up to 1m, node allocatable copied from capacity, Namespace
  `kubernetes.io/metadata.name` label, ReplicationController selector from its template);
* the pod strategy's PrepareForCreate (matchLabelKeys / mismatchLabelKeys merged into the label
  selectors of pod (anti-)affinity terms and topology spread constraints);
* validation with upstream's rules and wording, one error at a time, naming document, object and
  field;
* the Priority admission plugin (priority and preemptionPolicy resolved from PriorityClasses);
* the kubelet's `pods: 110` default and the disruption controller's PDB status at time 0.

Input is guarded: more than 5 MB of text, 5,000 nodes, 20,000 pods or a YAML alias expansion
larger than the text could plausibly need is rejected before any work proportional to it.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.quantity import QuantityError, parse_quantity, round_up_milli
from scheduler_core.api.scenario import Scenario, TimelineAction
from scheduler_core.api.types import (
    DEFAULT_SCHEDULER_NAME,
    PREEMPT_LOWER_PRIORITY,
    PREEMPT_NEVER,
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PodDisruptionBudget,
    PreferredSchedulingTerm,
    PriorityClass,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
    WorkloadSelector,
)
from scheduler_core.api.validation import (
    dns1035_label_error,
    dns1123_label_error,
    dns1123_subdomain_error,
    label_value_error,
    qualified_name_error,
)
from scheduler_core.config.types import KubeSchedulerConfiguration

__all__ = [
    "ScenarioError",
    "load_scenario_file",
    "load_scenario_text",
    "parse_pod",
    "parse_node",
    "parse_taint",
    "stable_uid",
    "SYSTEM_PRIORITY_CLASSES",
    "MAX_INPUT_BYTES",
    "MAX_NODES",
    "MAX_PODS",
    "TIMELINE_API_VERSION",
]

MAX_INPUT_BYTES = 5 * 1024 * 1024
MAX_NODES = 5000
MAX_PODS = 20000
# An alias-expanded document may be larger than its text, but not by orders of magnitude.
MAX_EXPANDED_NODES = 2_000_000

TIMELINE_API_VERSION = "playground.kube-scheduler.dev/v1"
CONFIG_API_VERSION = "kubescheduler.config.k8s.io/v1"

DEFAULT_MAX_PODS = 110  # the kubelet's --max-pods default
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES: dict[str, PriorityClass] = {
    "system-node-critical": PriorityClass("system-node-critical", 2_000_001_000,
                                          description="Used for system critical pods that must "
                                          "not be moved from their current node."),
    "system-cluster-critical": PriorityClass("system-cluster-critical", 2_000_000_000,
                                             description="Used for system critical pods that "
                                             "must run in the cluster, but can be moved to "
                                             "another node if necessary."),
}

_KINDS: dict[str, tuple[str, ...]] = {
    "Node": ("v1",),
    "Pod": ("v1",),
    "Namespace": ("v1",),
    "Service": ("v1",),
    "ReplicationController": ("v1",),
    "PriorityClass": ("scheduling.k8s.io/v1",),
    "PodDisruptionBudget": ("policy/v1",),
    "ReplicaSet": ("apps/v1",),
    "StatefulSet": ("apps/v1",),
    "KubeSchedulerConfiguration": (CONFIG_API_VERSION,),
    "Timeline": (TIMELINE_API_VERSION,),
}

_UID_NAMESPACE = uuid.UUID("6f1d3c52-8c3e-4f0e-9a57-5c2b8d1e7a10")


def stable_uid(kind: str, namespace: str, name: str, salt: str = "") -> str:
    """A UID that depends only on the object's identity, so runs are reproducible."""
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{namespace}/{name}{salt}"))


# --------------------------------------------------------------------------------------------
# Error context


class _Doc:
    """Where we are: file, 1-based document index, object kind/name. Builds ScenarioErrors."""

    __slots__ = ("file", "index", "kind", "name")

    def __init__(self, file: str, index: int | None, kind: str | None = None,
                 name: str | None = None) -> None:
        self.file = file
        self.index = index
        self.kind = kind
        self.name = name

    def error(self, field: str | None, reason: str) -> ScenarioError:
        return ScenarioError(reason, file=self.file, document=self.index, kind=self.kind,
                             name=self.name, field=field or None)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


def _join(path: str, child: str) -> str:
    return f"{path}.{child}" if path else child


class _Reader:
    """Typed access to a decoded manifest, raising field-precise ScenarioErrors."""

    __slots__ = ("doc",)

    def __init__(self, doc: _Doc) -> None:
        self.doc = doc

    def err(self, path: str, reason: str) -> ScenarioError:
        return self.doc.error(path, reason)

    def mapping(self, obj: Any, path: str, *, required: bool = False) -> dict[str, Any]:
        if obj is None:
            if required:
                raise self.err(path, "Required value")
            return {}
        if not isinstance(obj, dict):
            raise self.err(path, f"expected an object, got {_type_name(obj)}")
        return obj

    def seq(self, obj: Any, path: str) -> list[Any]:
        if obj is None:
            return []
        if not isinstance(obj, list):
            raise self.err(path, f"expected an array, got {_type_name(obj)}")
        return obj

    def string(self, obj: Any, path: str, default: str = "") -> str:
        if obj is None:
            return default
        if not isinstance(obj, str):
            raise self.err(path, f"expected a string, got {_type_name(obj)} {obj!r}")
        return obj

    def boolean(self, obj: Any, path: str, default: bool = False) -> bool:
        if obj is None:
            return default
        if not isinstance(obj, bool):
            raise self.err(path, f"expected a boolean, got {_type_name(obj)} {obj!r}")
        return obj

    def integer(self, obj: Any, path: str, *, bits: int = 32) -> int:
        if isinstance(obj, bool) or not isinstance(obj, (int, float)):
            raise self.err(path, f"expected an integer, got {_type_name(obj)} {obj!r}")
        if isinstance(obj, float):
            if obj != obj or obj in (float("inf"), float("-inf")) or obj != int(obj):
                raise self.err(path, f"expected an integer, got {obj!r}")
            obj = int(obj)
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        if not lo <= obj <= hi:
            raise self.err(path, f"Invalid value: {obj}: out of range for int{bits}")
        return obj

    def opt_integer(self, obj: Any, path: str, *, bits: int = 32) -> int | None:
        return None if obj is None else self.integer(obj, path, bits=bits)

    def number(self, obj: Any, path: str) -> float:
        if isinstance(obj, bool) or not isinstance(obj, (int, float)):
            raise self.err(path, f"expected a number, got {_type_name(obj)} {obj!r}")
        if obj != obj or obj in (float("inf"), float("-inf")):
            raise self.err(path, f"expected a finite number, got {obj!r}")
        return float(obj)

    def string_list(self, obj: Any, path: str) -> list[str]:
        items = self.seq(obj, path)
        return [self.string(v, f"{path}[{i}]") for i, v in enumerate(items)]

    def string_map(self, obj: Any, path: str) -> dict[str, str]:
        m = self.mapping(obj, path)
        out: dict[str, str] = {}
        for k, v in m.items():
            if not isinstance(k, str):
                raise self.err(path, f"keys must be strings, got {_type_name(k)} {k!r}")
            if not isinstance(v, str):
                if v is None:
                    v = ""
                else:
                    raise self.err(f"{path}.{k}",
                                   f"expected a string, got {_type_name(v)} {v!r} (quote it)")
            out[k] = v
        return out

    def labels(self, obj: Any, path: str) -> dict[str, str]:
        labels = self.string_map(obj, path)
        for k, v in labels.items():
            e = qualified_name_error(k)
            if e:
                raise self.err(path, f'Invalid value: "{k}": {e}')
            e = label_value_error(v)
            if e:
                raise self.err(f"{path}.{k}", f'Invalid value: "{v}": {e}')
        return labels

    def quantity(self, obj: Any, path: str) -> Fraction:
        try:
            return parse_quantity(obj)
        except QuantityError as exc:
            shown = obj if isinstance(obj, str) else repr(obj)
            raise self.err(path, f'invalid quantity "{shown}": {exc}') from None


# --------------------------------------------------------------------------------------------
# Resources

_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_INTEGER_RESOURCES = frozenset({
    "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
})
_STANDARD_RESOURCES = _STANDARD_CONTAINER_RESOURCES | _INTEGER_RESOURCES | {"storage"}


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_extended(name: str) -> bool:
    if _is_native(name) or name.startswith("requests."):
        return False
    return qualified_name_error("requests." + name) is None


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not _is_hugepages(name)


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or _is_extended(name)


def _resource_name_error(name: str, container: bool) -> str | None:
    e = qualified_name_error(name)
    if e:
        return e
    if "/" not in name:
        if container:
            if name not in _STANDARD_CONTAINER_RESOURCES and not _is_hugepages(name):
                return "must be a standard resource for containers"
        elif name not in _STANDARD_RESOURCES and not _is_hugepages(name):
            return "must be a standard resource type or fully qualified"
    elif container and not _is_native(name) and not _is_extended(name):
        return "doesn't follow extended resource name standard"
    return None


def _resource_list(r: _Reader, obj: Any, path: str, *, container: bool) -> dict[str, Fraction]:
    m = r.mapping(obj, path)
    out: dict[str, Fraction] = {}
    for name, raw in m.items():
        if not isinstance(name, str):
            raise r.err(path, f"resource names must be strings, got {name!r}")
        fpath = f"{path}.{name}"
        e = _resource_name_error(name, container)
        if e:
            raise r.err(fpath, f'Invalid value: "{name}": {e}')
        q = round_up_milli(r.quantity(raw, fpath))
        if q < 0:
            raise r.err(fpath, f'Invalid value: "{raw}": must be greater than or equal to 0')
        if _is_integer_resource(name) and q.denominator != 1:
            raise r.err(fpath, f'Invalid value: "{raw}": must be an integer')
        out[name] = q
    return out


def _fmt_q(q: Fraction) -> str:
    from scheduler_core.api.quantity import format_quantity

    return format_quantity(q)


# --------------------------------------------------------------------------------------------
# Selectors


def _requirement(r: _Reader, e: Any, p: str, *, allow_invalid_values: bool,
                 numeric_ops: bool) -> tuple[str, str, list[str]]:
    """One matchExpressions entry (label or node selector): key, operator and values validated
    as the apiserver does. Node selectors also allow Gt/Lt with a single value."""
    em = r.mapping(e, p, required=True)
    key = r.string(em.get("key"), f"{p}.key")
    op = r.string(em.get("operator"), f"{p}.operator")
    values = r.string_list(em.get("values"), f"{p}.values")
    if op in ("In", "NotIn"):
        if not values:
            raise r.err(f"{p}.values",
                        "Required value: must be specified when `operator` is 'In' or 'NotIn'")
    elif op in ("Exists", "DoesNotExist"):
        if values:
            raise r.err(f"{p}.values", "Forbidden: may not be specified when `operator` is "
                                       "'Exists' or 'DoesNotExist'")
    elif numeric_ops and op in ("Gt", "Lt"):
        # Admission only checks the count; a non-integer value simply never matches.
        if len(values) != 1:
            raise r.err(f"{p}.values", "Required value: must be specified single value when "
                                       "`operator` is 'Lt' or 'Gt'")
    else:
        raise r.err(f"{p}.operator", f'Invalid value: "{op}": not a valid selector operator')
    err = qualified_name_error(key)
    if err:
        raise r.err(f"{p}.key", f'Invalid value: "{key}": {err}')
    if not allow_invalid_values:
        for j, v in enumerate(values):
            err = label_value_error(v)
            if err:
                raise r.err(f"{p}.values[{j}]", f'Invalid value: "{v}": {err}')
    return key, op, values


def _label_selector(r: _Reader, obj: Any, path: str, *, allow_invalid_values: bool = False,
                    ) -> LabelSelector | None:
    """metav1.LabelSelector; None when absent (matches nothing), empty when `{}` (everything)."""
    if obj is None:
        return None
    m = r.mapping(obj, path)
    match_labels = r.labels(m.get("matchLabels"), _join(path, "matchLabels"))
    exprs: list[LabelSelectorRequirement] = []
    epath = _join(path, "matchExpressions")
    for i, e in enumerate(r.seq(m.get("matchExpressions"), epath)):
        key, op, values = _requirement(r, e, f"{epath}[{i}]", allow_invalid_values=allow_invalid_values,
                                       numeric_ops=False)
        exprs.append(LabelSelectorRequirement(key, op, tuple(values)))
    return LabelSelector(match_labels=match_labels, match_expressions=exprs)


def _node_selector_term(r: _Reader, obj: Any, path: str, *, allow_invalid_values: bool,
                        ) -> NodeSelectorTerm:
    m = r.mapping(obj, path)
    exprs: list[NodeSelectorRequirement] = []
    epath = _join(path, "matchExpressions")
    for i, e in enumerate(r.seq(m.get("matchExpressions"), epath)):
        key, op, values = _requirement(r, e, f"{epath}[{i}]", allow_invalid_values=allow_invalid_values,
                                       numeric_ops=True)
        exprs.append(NodeSelectorRequirement(key, op, tuple(values)))
    fields: list[NodeSelectorRequirement] = []
    fpath = _join(path, "matchFields")
    for i, e in enumerate(r.seq(m.get("matchFields"), fpath)):
        p = f"{fpath}[{i}]"
        em = r.mapping(e, p, required=True)
        key = r.string(em.get("key"), f"{p}.key")
        op = r.string(em.get("operator"), f"{p}.operator")
        values = r.string_list(em.get("values"), f"{p}.values")
        if op in ("In", "NotIn"):
            if len(values) != 1:
                raise r.err(f"{p}.values", "Required value: must be only one value when "
                                           "`operator` is 'In' or 'NotIn' for node field selector")
        else:
            raise r.err(f"{p}.operator", f'Invalid value: "{op}": not a valid selector operator')
        if key != "metadata.name":
            raise r.err(f"{p}.key", f'Invalid value: "{key}": not a valid field selector key')
        for j, v in enumerate(values):
            err = dns1123_subdomain_error(v)
            if err:
                raise r.err(f"{p}.values[{j}]", f'Invalid value: "{v}": {err}')
        fields.append(NodeSelectorRequirement(key, op, tuple(values)))
    return NodeSelectorTerm(match_expressions=exprs, match_fields=fields)


# --------------------------------------------------------------------------------------------
# Metadata


def _metadata(r: _Reader, obj: dict[str, Any], *, namespaced: bool,
              name_check: Callable[[str], str | None] = dns1123_subdomain_error,
              ) -> tuple[str, str, dict[str, str], dict[str, str]]:
    meta = r.mapping(obj.get("metadata"), "metadata", required=True)
    name = r.string(meta.get("name"), "metadata.name")
    if not name:
        if meta.get("generateName"):
            raise r.err("metadata.name", "Required value: generateName is not supported; give "
                                         "every object a name")
        raise r.err("metadata.name", "Required value: name or generateName is required")
    namespace = ""
    if namespaced:
        namespace = r.string(meta.get("namespace"), "metadata.namespace") or "default"
        err = dns1123_label_error(namespace)
        if err:
            raise r.err("metadata.namespace", f'Invalid value: "{namespace}": {err}')
        r.doc.name = f"{namespace}/{name}"
    else:
        r.doc.name = name
    err = name_check(name)
    if err:
        raise r.err("metadata.name", f'Invalid value: "{name}": {err}')
    labels = r.labels(meta.get("labels"), "metadata.labels")
    annotations = r.string_map(meta.get("annotations"), "metadata.annotations")
    return name, namespace, labels, annotations


# --------------------------------------------------------------------------------------------
# Node


def parse_taint(r: _Reader, obj: Any, path: str) -> Taint:
    """A node taint (also used by the timeline's addTaint action)."""
    m = r.mapping(obj, path, required=True)
    key = r.string(m.get("key"), f"{path}.key")
    value = r.string(m.get("value"), f"{path}.value")
    effect = r.string(m.get("effect"), f"{path}.effect")
    if not key:
        raise r.err(f"{path}.key", "Required value")
    err = qualified_name_error(key)
    if err:
        raise r.err(f"{path}.key", f'Invalid value: "{key}": {err}')
    err = label_value_error(value)
    if err:
        raise r.err(f"{path}.value", f'Invalid value: "{value}": {err}')
    if not effect:
        raise r.err(f"{path}.effect", "Required value")
    if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise r.err(f"{path}.effect", f'Unsupported value: "{effect}": supported values: '
                                      '"NoSchedule", "PreferNoSchedule", "NoExecute"')
    return Taint(key=key, value=value, effect=effect)


def parse_node(r: _Reader, obj: dict[str, Any], index: int, uid_salt: str = "") -> Node:
    """A v1 Node with the kubelet/apiserver defaults for allocatable and pods applied."""
    name, _, labels, annotations = _metadata(r, obj, namespaced=False)
    spec = r.mapping(obj.get("spec"), "spec")
    status = r.mapping(obj.get("status"), "status")
    taints: list[Taint] = []
    seen: set[tuple[str, str]] = set()
    for i, t in enumerate(r.seq(spec.get("taints"), "spec.taints")):
        taint = parse_taint(r, t, f"spec.taints[{i}]")
        if (taint.key, taint.effect) in seen:
            raise r.err(f"spec.taints[{i}]", "Duplicate value: taints must be unique by key "
                                             "and effect pair")
        seen.add((taint.key, taint.effect))
        taints.append(taint)
    unschedulable = r.boolean(spec.get("unschedulable"), "spec.unschedulable")
    capacity = _resource_list(r, status.get("capacity"), "status.capacity", container=False)
    if status.get("allocatable") is not None:
        allocatable = _resource_list(r, status.get("allocatable"), "status.allocatable",
                                     container=False)
    else:
        allocatable = dict(capacity)
    if "pods" not in capacity:
        capacity["pods"] = Fraction(DEFAULT_MAX_PODS)
    if "pods" not in allocatable:
        allocatable["pods"] = capacity["pods"]
    images: list[ContainerImage] = []
    for i, im in enumerate(r.seq(status.get("images"), "status.images")):
        p = f"status.images[{i}]"
        imm = r.mapping(im, p, required=True)
        names = r.string_list(imm.get("names"), f"{p}.names")
        size = imm.get("sizeBytes")
        size_bytes = 0 if size is None else r.integer(size, f"{p}.sizeBytes", bits=64)
        if size_bytes < 0:
            raise r.err(f"{p}.sizeBytes", "must be greater than or equal to 0")
        images.append(ContainerImage(names=names, size_bytes=size_bytes))
    return Node(
        name=name, uid=stable_uid("Node", "", name, uid_salt), labels=labels,
        annotations=annotations, unschedulable=unschedulable, taints=taints, capacity=capacity,
        allocatable=allocatable, images=images, creation_index=index,
    )


# --------------------------------------------------------------------------------------------
# Pod


def _container(r: _Reader, obj: Any, path: str, *, init: bool, host_network: bool) -> Container:
    m = r.mapping(obj, path, required=True)
    name = r.string(m.get("name"), f"{path}.name")
    if not name:
        raise r.err(f"{path}.name", "Required value")
    err = dns1123_label_error(name)
    if err:
        raise r.err(f"{path}.name", f'Invalid value: "{name}": {err}')
    image = r.string(m.get("image"), f"{path}.image")
    res = r.mapping(m.get("resources"), f"{path}.resources")
    rpath = f"{path}.resources"
    limits = _resource_list(r, res.get("limits"), f"{rpath}.limits", container=True)
    requests = _resource_list(r, res.get("requests"), f"{rpath}.requests", container=True)
    # Upstream also demands request == limit (and a limit at all) for extended resources; the
    # recordings' API server did not enforce that, so only the universal rule is kept.
    for rname, q in requests.items():
        lim = limits.get(rname)
        if lim is not None and q > lim:
            raise r.err(f"{rpath}.requests", f'Invalid value: "{_fmt_q(q)}": must be less '
                                             f"than or equal to {rname} limit of {_fmt_q(lim)}")
    # SetDefaults_Pod: a limit stands in for a missing request, resource by resource.
    for rname, q in limits.items():
        requests.setdefault(rname, q)
    ports: list[ContainerPort] = []
    for i, pt in enumerate(r.seq(m.get("ports"), f"{path}.ports")):
        p = f"{path}.ports[{i}]"
        pm = r.mapping(pt, p, required=True)
        cport = pm.get("containerPort")
        if cport is None or cport == 0:
            raise r.err(f"{p}.containerPort", "Required value")
        cport = r.integer(cport, f"{p}.containerPort")
        if not 1 <= cport <= 65535:
            raise r.err(f"{p}.containerPort",
                        f"Invalid value: {cport}: must be between 1 and 65535, inclusive")
        hport = r.integer(pm.get("hostPort", 0) or 0, f"{p}.hostPort")
        if hport and not 1 <= hport <= 65535:
            raise r.err(f"{p}.hostPort",
                        f"Invalid value: {hport}: must be between 1 and 65535, inclusive")
        if host_network:
            if hport == 0:
                hport = cport
            elif hport != cport:
                raise r.err(f"{p}.hostPort", f"Invalid value: {hport}: must match "
                                             "`containerPort` when `hostNetwork` is true")
        proto = r.string(pm.get("protocol"), f"{p}.protocol") or "TCP"
        if proto not in ("TCP", "UDP", "SCTP"):
            raise r.err(f"{p}.protocol", f'Unsupported value: "{proto}": supported values: '
                                         '"SCTP", "TCP", "UDP"')
        host_ip = r.string(pm.get("hostIP"), f"{p}.hostIP")
        ports.append(ContainerPort(container_port=cport, host_port=hport, protocol=proto,
                                   host_ip=host_ip))
    restart_policy = None
    if m.get("restartPolicy") is not None:
        restart_policy = r.string(m.get("restartPolicy"), f"{path}.restartPolicy")
        if not init:
            raise r.err(f"{path}.restartPolicy", "Forbidden: may not be set for non-init "
                                                 "containers")
        if restart_policy != "Always":
            raise r.err(f"{path}.restartPolicy", f'Unsupported value: "{restart_policy}": '
                                                 'supported values: "Always"')
    return Container(name=name, image=image, requests=requests, limits=limits, ports=ports,
                     restart_policy=restart_policy)


def _tolerations(r: _Reader, obj: Any, path: str) -> list[Toleration]:
    out: list[Toleration] = []
    for i, t in enumerate(r.seq(obj, path)):
        p = f"{path}[{i}]"
        m = r.mapping(t, p, required=True)
        key = r.string(m.get("key"), f"{p}.key")
        op = r.string(m.get("operator"), f"{p}.operator")
        value = r.string(m.get("value"), f"{p}.value")
        effect = r.string(m.get("effect"), f"{p}.effect")
        seconds = r.opt_integer(m.get("tolerationSeconds"), f"{p}.tolerationSeconds", bits=64)
        if key:
            err = qualified_name_error(key)
            if err:
                raise r.err(f"{p}.key", f'Invalid value: "{key}": {err}')
        if not key and op != "Exists":
            raise r.err(f"{p}.operator", f'Invalid value: "{op}": operator must be Exists when '
                                         '`key` is empty, which means "match all values and all '
                                         'keys"')
        # (Upstream requires effect NoExecute with tolerationSeconds; the recorded cases rely on
        # an empty effect being accepted, which the taint manager then treats as NoExecute.)
        if op in ("Equal", ""):
            err = label_value_error(value)
            if err:
                raise r.err(f"{p}.operator", f'Invalid value: "{value}": {err}')
            op = "Equal"
        elif op == "Exists":
            if value:
                raise r.err(f"{p}.operator", f'Invalid value: "{value}": value must be empty '
                                             "when `operator` is 'Exists'")
        else:
            raise r.err(f"{p}.operator", f'Unsupported value: "{op}": supported values: '
                                         '"Equal", "Exists"')
        if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            raise r.err(f"{p}.effect", f'Unsupported value: "{effect}": supported values: '
                                       '"NoSchedule", "PreferNoSchedule", "NoExecute"')
        out.append(Toleration(key=key, operator=op, value=value, effect=effect,
                              toleration_seconds=seconds))
    return out


def _check_label_keys(r: _Reader, path: str, match_keys: list[str], mismatch_keys: list[str],
                      selector: LabelSelector | None) -> None:
    """ValidateMatchLabelKeysAndMismatchLabelKeys, run on the already-merged selector."""
    for field, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        if keys and selector is None:
            raise r.err(f"{path}.{field}",
                        "Forbidden: must not be specified when labelSelector is not set")
        for i, k in enumerate(keys):
            err = qualified_name_error(k)
            if err:
                raise r.err(f"{path}.{field}[{i}]", f'Invalid value: "{k}": {err}')
    if selector is not None and match_keys:
        index = {k: i for i, k in enumerate(match_keys)}
        seen = set(selector.match_labels)
        for expr in selector.match_expressions:
            if expr.key in index and expr.key in seen:
                raise r.err(f"{path}[{index[expr.key]}]", f'Invalid value: "{expr.key}": exists '
                                                          "in both matchLabelKeys and "
                                                          "labelSelector")
            seen.add(expr.key)
    mismatch = set(mismatch_keys)
    for i, k in enumerate(match_keys):
        if k in mismatch:
            raise r.err(f"{path}.matchLabelKeys[{i}]", f'Invalid value: "{k}": exists in both '
                                                       "matchLabelKeys and mismatchLabelKeys")


def _merge_label_keys(selector: LabelSelector | None, keys: list[str], op: str,
                      labels: dict[str, str]) -> None:
    """The pod strategy's applyLabelKeysToLabelSelector (PrepareForCreate)."""
    if selector is None:
        return
    for k in keys:
        if k in labels:
            selector.match_expressions.append(LabelSelectorRequirement(k, op, (labels[k],)))


def _pod_affinity_term(r: _Reader, obj: Any, path: str, labels: dict[str, str],
                       ) -> PodAffinityTerm:
    m = r.mapping(obj, path, required=True)
    sel = _label_selector(r, m.get("labelSelector"), f"{path}.labelSelector")
    ns_sel = _label_selector(r, m.get("namespaceSelector"), f"{path}.namespaceSelector")
    namespaces = r.string_list(m.get("namespaces"), f"{path}.namespaces")
    for ns in namespaces:
        err = dns1123_label_error(ns)
        if err:
            raise r.err(f"{path}.namespace", f'Invalid value: "{ns}": {err}')
    match_keys = r.string_list(m.get("matchLabelKeys"), f"{path}.matchLabelKeys")
    mismatch_keys = r.string_list(m.get("mismatchLabelKeys"), f"{path}.mismatchLabelKeys")
    if match_keys or mismatch_keys:
        _merge_label_keys(sel, match_keys, "In", labels)
        _merge_label_keys(sel, mismatch_keys, "NotIn", labels)
        _check_label_keys(r, path, match_keys, mismatch_keys, sel)
    topology_key = r.string(m.get("topologyKey"), f"{path}.topologyKey")
    if not topology_key:
        raise r.err(f"{path}.topologyKey", "Required value: can not be empty")
    err = qualified_name_error(topology_key)
    if err:
        raise r.err(f"{path}.topologyKey", f'Invalid value: "{topology_key}": {err}')
    return PodAffinityTerm(label_selector=sel, namespaces=namespaces, topology_key=topology_key,
                           namespace_selector=ns_sel, match_label_keys=match_keys,
                           mismatch_label_keys=mismatch_keys)


def _pod_affinity_terms(r: _Reader, m: dict[str, Any], path: str, labels: dict[str, str],
                        ) -> tuple[list[PodAffinityTerm], list[WeightedPodAffinityTerm]]:
    req_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    required = [
        _pod_affinity_term(r, t, f"{req_path}[{i}]", labels)
        for i, t in enumerate(r.seq(m.get("requiredDuringSchedulingIgnoredDuringExecution"),
                                    req_path))
    ]
    pref_path = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    preferred: list[WeightedPodAffinityTerm] = []
    for i, t in enumerate(r.seq(m.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                pref_path)):
        p = f"{pref_path}[{i}]"
        tm = r.mapping(t, p, required=True)
        weight = r.integer(tm.get("weight", 0), f"{p}.weight")
        if not 1 <= weight <= 100:
            raise r.err(f"{p}.weight", f"Invalid value: {weight}: must be in the range 1-100")
        term = _pod_affinity_term(r, tm.get("podAffinityTerm"), f"{p}.podAffinityTerm", labels)
        preferred.append(WeightedPodAffinityTerm(weight=weight, pod_affinity_term=term))
    return required, preferred


def _affinity(r: _Reader, obj: Any, path: str, labels: dict[str, str]) -> Affinity | None:
    if obj is None:
        return None
    m = r.mapping(obj, path)
    out = Affinity()
    if m.get("nodeAffinity") is not None:
        p = f"{path}.nodeAffinity"
        na = r.mapping(m["nodeAffinity"], p)
        node_aff = NodeAffinity()
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        if req is not None:
            rp = f"{p}.requiredDuringSchedulingIgnoredDuringExecution"
            rm = r.mapping(req, rp)
            terms_path = f"{rp}.nodeSelectorTerms"
            raw_terms = r.seq(rm.get("nodeSelectorTerms"), terms_path)
            if not raw_terms:
                raise r.err(terms_path, "Required value: must have at least one node selector "
                                        "term")
            node_aff.required = NodeSelector([
                _node_selector_term(r, t, f"{terms_path}[{i}]", allow_invalid_values=False)
                for i, t in enumerate(raw_terms)
            ])
        pp = f"{p}.preferredDuringSchedulingIgnoredDuringExecution"
        for i, t in enumerate(r.seq(na.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                    pp)):
            tp = f"{pp}[{i}]"
            tm = r.mapping(t, tp, required=True)
            weight = r.integer(tm.get("weight", 0), f"{tp}.weight")
            if not 1 <= weight <= 100:
                raise r.err(f"{tp}.weight", f"Invalid value: {weight}: must be in the range 1-100")
            term = _node_selector_term(r, tm.get("preference"), f"{tp}.preference",
                                       allow_invalid_values=True)
            node_aff.preferred.append(PreferredSchedulingTerm(weight=weight, preference=term))
        out.node_affinity = node_aff
    if m.get("podAffinity") is not None:
        p = f"{path}.podAffinity"
        req, pref = _pod_affinity_terms(r, r.mapping(m["podAffinity"], p), p, labels)
        out.pod_affinity = PodAffinity(required=req, preferred=pref)
    if m.get("podAntiAffinity") is not None:
        p = f"{path}.podAntiAffinity"
        req, pref = _pod_affinity_terms(r, r.mapping(m["podAntiAffinity"], p), p, labels)
        out.pod_anti_affinity = PodAntiAffinity(required=req, preferred=pref)
    return out


def _spread_constraints(r: _Reader, obj: Any, path: str, labels: dict[str, str],
                        ) -> list[TopologySpreadConstraint]:
    out: list[TopologySpreadConstraint] = []
    raw = r.seq(obj, path)
    for i, c in enumerate(raw):
        p = f"{path}[{i}]"
        m = r.mapping(c, p, required=True)
        max_skew = r.integer(m.get("maxSkew", 0), f"{p}.maxSkew")
        if max_skew <= 0:
            raise r.err(f"{p}.maxSkew", f"Invalid value: {max_skew}: must be greater than zero")
        topology_key = r.string(m.get("topologyKey"), f"{p}.topologyKey")
        if not topology_key:
            raise r.err(f"{p}.topologyKey", "Required value: can not be empty")
        when = r.string(m.get("whenUnsatisfiable"), f"{p}.whenUnsatisfiable")
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            raise r.err(f"{p}.whenUnsatisfiable", f'Unsupported value: "{when}": supported '
                                                  'values: "DoNotSchedule", "ScheduleAnyway"')
        for other in raw[i + 1:]:
            if (isinstance(other, dict) and other.get("topologyKey") == topology_key
                    and other.get("whenUnsatisfiable") == when):
                raise r.err(f"{p}.{{topologyKey, whenUnsatisfiable}}",
                            f'Duplicate value: "{{{topology_key}, {when}}}"')
        min_domains = r.opt_integer(m.get("minDomains"), f"{p}.minDomains")
        if min_domains is not None:
            if min_domains <= 0:
                raise r.err(f"{p}.minDomains",
                            f"Invalid value: {min_domains}: must be greater than zero")
            if when != "DoNotSchedule":
                raise r.err(f"{p}.minDomains", f"Invalid value: {min_domains}: can only use "
                                               "minDomains if whenUnsatisfiable=DoNotSchedule, "
                                               f"not {when}")
        policies: list[str | None] = []
        for fld in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            v = m.get(fld)
            if v is not None:
                v = r.string(v, f"{p}.{fld}")
                if v not in ("Honor", "Ignore"):
                    raise r.err(f"{p}.{fld}", f'Unsupported value: "{v}": supported values: '
                                              '"Honor", "Ignore"')
            policies.append(v)
        sel = _label_selector(r, m.get("labelSelector"), f"{p}.labelSelector")
        match_keys = r.string_list(m.get("matchLabelKeys"), f"{p}.matchLabelKeys")
        if match_keys:
            # MatchLabelKeysInPodTopologySpreadSelectorMerge (beta, on in v1.35).
            _merge_label_keys(sel, match_keys, "In", labels)
            _check_label_keys(r, p, match_keys, [], sel)
        out.append(TopologySpreadConstraint(
            max_skew=max_skew, topology_key=topology_key, when_unsatisfiable=when,
            label_selector=sel, min_domains=min_domains, node_affinity_policy=policies[0],
            node_taints_policy=policies[1], match_label_keys=match_keys,
        ))
    return out


class _PodRaw:
    """What admission needs besides the Pod: whether priority/preemptionPolicy were given."""

    __slots__ = ("priority", "preemption_policy")

    def __init__(self, priority: int | None, preemption_policy: str | None) -> None:
        self.priority = priority
        self.preemption_policy = preemption_policy


def _parse_pod_spec(r: _Reader, obj: dict[str, Any], index: int, uid_salt: str,
                    ) -> tuple[Pod, _PodRaw]:
    name, namespace, labels, annotations = _metadata(r, obj, namespaced=True)
    spec = r.mapping(obj.get("spec"), "spec", required=True)
    host_network = r.boolean(spec.get("hostNetwork"), "spec.hostNetwork")
    raw_containers = r.seq(spec.get("containers"), "spec.containers")
    if not raw_containers:
        raise r.err("spec.containers", "Required value")
    containers = [_container(r, c, f"spec.containers[{i}]", init=False,
                             host_network=host_network) for i, c in enumerate(raw_containers)]
    init_containers = [_container(r, c, f"spec.initContainers[{i}]", init=True,
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
    overhead = _resource_list(r, spec.get("overhead"), "spec.overhead", container=True)
    if spec.get("resources") is not None:
        raise r.err("spec.resources", "pod-level resources are not supported by this engine; "
                                      "set requests on the containers")
    node_selector = r.labels(spec.get("nodeSelector"), "spec.nodeSelector")
    affinity = _affinity(r, spec.get("affinity"), "spec.affinity", labels)
    tolerations = _tolerations(r, spec.get("tolerations"), "spec.tolerations")
    tscs = _spread_constraints(r, spec.get("topologySpreadConstraints"),
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
    pod = Pod(
        name=name, namespace=namespace, uid=stable_uid("Pod", namespace, name, uid_salt),
        labels=labels, annotations=annotations, creation_index=index, node_name=node_name,
        scheduler_name=scheduler_name, priority=0, priority_class_name=pc_name,
        preemption_policy=PREEMPT_LOWER_PRIORITY, containers=containers,
        init_containers=init_containers, overhead=overhead, node_selector=node_selector,
        affinity=affinity, tolerations=tolerations, topology_spread_constraints=tscs,
        scheduling_gates=gates, host_network=host_network,
        termination_grace_period_seconds=grace,
        owner_references=_owner_references(r, obj.get("metadata") or {}),
    )
    return pod, _PodRaw(priority, policy)


def _owner_references(r: _Reader, meta: dict[str, Any]) -> list[OwnerReference]:
    """metadata.ownerReferences: which ReplicaSet/StatefulSet/RC controls the pod (the
    system-default topology spreading follows the controller's selector)."""
    out = []
    for i, ref in enumerate(r.seq(meta.get("ownerReferences"), "metadata.ownerReferences")):
        p = f"metadata.ownerReferences[{i}]"
        m = r.mapping(ref, p, required=True)
        kind = r.string(m.get("kind"), f"{p}.kind")
        name = r.string(m.get("name"), f"{p}.name")
        if not kind or not name:
            raise r.err(p, "Required value: kind and name")
        out.append(OwnerReference(
            kind=kind, name=name, api_version=r.string(m.get("apiVersion"), f"{p}.apiVersion") or "v1",
            uid=r.string(m.get("uid"), f"{p}.uid"),
            controller=r.boolean(m.get("controller"), f"{p}.controller")))
    return out


class _PriorityAdmission:
    """The Priority admission plugin over the scenario's PriorityClasses."""

    def __init__(self, classes: Iterable[PriorityClass]) -> None:
        self.classes: dict[str, PriorityClass] = dict(SYSTEM_PRIORITY_CLASSES)
        for pc in classes:
            self.classes[pc.name] = pc
        defaults = [pc for pc in self.classes.values() if pc.global_default]
        # Upstream picks the lowest value if a race ever created two defaults.
        self.default = min(defaults, key=lambda pc: pc.value) if defaults else None

    def admit(self, r: _Reader, pod: Pod, raw: _PodRaw) -> None:
        """Resolve priority and preemptionPolicy as the Priority admission plugin does.

        One deliberate leniency, because the conformance recordings were made against an API
        server that kept it: a pod naming no PriorityClass but giving `spec.priority` keeps that
        priority (and its own preemptionPolicy) instead of being rejected.
        """
        explicit_policy = raw.preemption_policy
        if not pod.priority_class_name:
            if raw.priority is not None:
                pod.priority = raw.priority
                pod.preemption_policy = explicit_policy or PREEMPT_LOWER_PRIORITY
                return
            if self.default is None:
                pod.priority = 0
                pod.preemption_policy = explicit_policy or PREEMPT_LOWER_PRIORITY
                return
            pod.priority_class_name = self.default.name
            value, policy = self.default.value, self.default.preemption_policy
        else:
            pc = self.classes.get(pod.priority_class_name)
            if pc is None:
                raise r.err("spec.priorityClassName", "Forbidden: no PriorityClass with name "
                                                      f"{pod.priority_class_name} was found")
            value, policy = pc.value, pc.preemption_policy
        if raw.priority is not None and raw.priority != value:
            raise r.err("spec.priority", f"Forbidden: the integer value of priority "
                                         f"({raw.priority}) must not be provided in pod spec; "
                                         f"priority admission controller computed {value} from "
                                         "the given PriorityClass name")
        if explicit_policy is not None and explicit_policy != policy:
            raise r.err("spec.preemptionPolicy", "Forbidden: the string value of "
                                                 f"PreemptionPolicy ({explicit_policy}) "
                                                 "must not be provided in pod spec; priority "
                                                 f"admission controller computed {policy} from "
                                                 "the given PriorityClass name")
        pod.priority = value
        pod.preemption_policy = policy


def parse_pod(r: _Reader, obj: dict[str, Any], index: int, admission: _PriorityAdmission,
              uid_salt: str = "") -> Pod:
    """A v1 Pod as the apiserver would store it (defaults, strategy, validation, admission)."""
    pod, raw = _parse_pod_spec(r, obj, index, uid_salt)
    admission.admit(r, pod, raw)
    return pod


# --------------------------------------------------------------------------------------------
# Other kinds


def _priority_class(r: _Reader, obj: dict[str, Any]) -> PriorityClass:
    name, _, _, _ = _metadata(r, obj, namespaced=False)
    if obj.get("value") is None:
        raise r.err("value", "Required value")
    value = r.integer(obj.get("value"), "value")
    global_default = r.boolean(obj.get("globalDefault"), "globalDefault")
    policy = r.string(obj.get("preemptionPolicy"), "preemptionPolicy") or PREEMPT_LOWER_PRIORITY
    if policy not in (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER):
        raise r.err("preemptionPolicy", f'Unsupported value: "{policy}": supported values: '
                                        '"Never", "PreemptLowerPriority"')
    description = r.string(obj.get("description"), "description")
    if name.startswith("system-"):
        known = SYSTEM_PRIORITY_CLASSES.get(name)
        if known is None or known.value != value or global_default:
            raise r.err("metadata.name", f'Invalid value: "{name}": priority class names with '
                                         "'system-' prefix are reserved for system use only")
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        raise r.err("value", "Forbidden: maximum allowed value of a user defined priority is "
                             f"{HIGHEST_USER_DEFINABLE_PRIORITY}")
    return PriorityClass(name=name, value=value, global_default=global_default,
                         preemption_policy=policy, description=description)


_PERCENT_RE = re.compile(r"^[0-9]+%$")


def _int_or_percent(r: _Reader, obj: Any, path: str) -> int | str | None:
    if obj is None:
        return None
    if isinstance(obj, str):
        if not _PERCENT_RE.match(obj):
            raise r.err(path, f'Invalid value: "{obj}": a valid percent string must be a '
                              "numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
                              "regex used for validation is '[0-9]+%')")
        if int(obj[:-1]) > 100:
            raise r.err(path, f'Invalid value: "{obj}": must not be greater than 100%')
        return obj
    v = r.integer(obj, path)
    if v < 0:
        raise r.err(path, f"Invalid value: {v}: must be greater than or equal to 0")
    return v


def _pdb(r: _Reader, obj: dict[str, Any]) -> PodDisruptionBudget:
    name, namespace, _, _ = _metadata(r, obj, namespaced=True)
    spec = r.mapping(obj.get("spec"), "spec")
    selector = _label_selector(r, spec.get("selector"), "spec.selector")
    min_available = _int_or_percent(r, spec.get("minAvailable"), "spec.minAvailable")
    max_unavailable = _int_or_percent(r, spec.get("maxUnavailable"), "spec.maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        raise r.err("spec", "Invalid value: minAvailable and maxUnavailable cannot be both set")
    return PodDisruptionBudget(name=name, namespace=namespace, selector=selector,
                               min_available=min_available, max_unavailable=max_unavailable)


def _namespace(r: _Reader, obj: dict[str, Any]) -> Namespace:
    name, _, labels, _ = _metadata(r, obj, namespaced=False, name_check=dns1123_label_error)
    labels = dict(labels)
    labels["kubernetes.io/metadata.name"] = name
    return Namespace(name=name, labels=labels)


def _workload(r: _Reader, obj: dict[str, Any], kind: str) -> WorkloadSelector:
    check = dns1035_label_error if kind == "Service" else dns1123_subdomain_error
    name, namespace, _, _ = _metadata(r, obj, namespaced=True, name_check=check)
    spec = r.mapping(obj.get("spec"), "spec")
    selector: LabelSelector | None
    if kind in ("Service", "ReplicationController"):
        raw = spec.get("selector")
        if kind == "ReplicationController" and not raw:
            tmpl = r.mapping(spec.get("template"), "spec.template")
            tmeta = r.mapping(tmpl.get("metadata"), "spec.template.metadata")
            raw = tmeta.get("labels")
            path = "spec.template.metadata.labels"
        else:
            path = "spec.selector"
        selector = None if raw is None else LabelSelector(match_labels=r.labels(raw, path))
        if kind == "ReplicationController" and (selector is None or selector.is_empty()):
            raise r.err("spec.selector", "Required value")
    else:
        if spec.get("selector") is None:
            raise r.err("spec.selector", "Required value")
        selector = _label_selector(r, spec.get("selector"), "spec.selector")
        if selector is not None and selector.is_empty():
            raise r.err("spec.selector", "Invalid value: empty selector is invalid for "
                                         "deployment")
    return WorkloadSelector(kind=kind, name=name, namespace=namespace, selector=selector)


# --------------------------------------------------------------------------------------------
# Timeline

_TIMELINE_ACTIONS = ("addPod", "deletePod", "addNode", "deleteNode", "cordon", "uncordon",
                     "addTaint", "removeTaint", "setNodeLabels", "setScoreWeight")


def _pod_ref(r: _Reader, obj: Any, path: str) -> str:
    """`ns/name` or `name` (namespace default) -> `ns/name`."""
    ref = r.string(obj, path)
    if not ref:
        raise r.err(path, "Required value")
    ns, _, name = ref.rpartition("/")
    return f"{ns or 'default'}/{name}"


# --------------------------------------------------------------------------------------------
# YAML reading


class _Limits(Exception):
    pass


def _check_expansion(docs: list[Any], limit: int) -> None:
    """Reject alias bombs and recursive aliases before anything walks the data.

    PyYAML shares one object for every use of an anchor, so loading is cheap; walking the result
    is what explodes. The expanded size is computed over the shared structure (memoized by id),
    which is linear in the number of distinct objects.
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(o: Any) -> int:
        if not isinstance(o, (dict, list)):
            return 1
        k = id(o)
        s = sizes.get(k)
        if s is not None:
            return s
        if k in active:
            raise _Limits("recursive YAML alias")
        active.add(k)
        total = 1
        items = o.items() if isinstance(o, dict) else enumerate(o)
        for key, v in items:
            total += size(v)
            if isinstance(o, dict) and isinstance(key, (dict, list)):
                total += size(key)
            if total > limit:
                raise _Limits("YAML alias expansion is too large")
        active.discard(k)
        sizes[k] = total
        return total

    grand = 0
    for d in docs:
        grand += size(d)
        if grand > limit:
            raise _Limits("YAML alias expansion is too large")


_ALIAS_RE = re.compile(r"(^|[\s\[{,:\-?])[*&][^\s,\[\]{}]")


def _document_of_line(text: str, line0: int) -> int:
    doc = 1
    for i, ln in enumerate(text.split("\n")):
        if i >= line0:
            break
        if ln.startswith("---") and i > 0:
            doc += 1
    return doc


def _load_yaml(text: str, source: str) -> list[Any]:
    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        docs = list(yaml.load_all(text, Loader=loader_cls))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        col = mark.column + 1 if mark is not None else None
        what = exc.problem or exc.context or "invalid YAML"
        doc = _document_of_line(text, mark.line) if mark is not None else None
        where = f", column {col}" if col else ""
        raise ScenarioError(f"YAML syntax error{where}: {what}", file=source, line=line,
                            document=doc) from None
    except yaml.YAMLError as exc:
        raise ScenarioError(f"YAML error: {exc}", file=source) from None
    except RecursionError:
        raise ScenarioError("YAML nesting is too deep", file=source) from None
    if _ALIAS_RE.search(text):
        try:
            _check_expansion(docs, MAX_EXPANDED_NODES)
        except _Limits as exc:
            raise ScenarioError(str(exc), file=source) from None
        except RecursionError:
            raise ScenarioError("YAML nesting is too deep", file=source) from None
    return docs


# --------------------------------------------------------------------------------------------
# Scenario assembly


class _Entry:
    __slots__ = ("doc", "kind", "api_version", "obj")

    def __init__(self, doc: int, kind: str, api_version: str, obj: dict[str, Any]) -> None:
        self.doc = doc
        self.kind = kind
        self.api_version = api_version
        self.obj = obj


def _flatten(docs: list[Any], source: str) -> list[_Entry]:
    out: list[_Entry] = []
    for i, d in enumerate(docs, start=1):
        if d is None:
            continue
        ctx = _Doc(source, i)
        if not isinstance(d, dict):
            raise ctx.error(None, f"expected a Kubernetes object (a mapping), got {_type_name(d)}")
        items: list[tuple[Any, str | None]]
        if d.get("kind") == "List" or (d.get("kind") is None and "items" in d
                                       and d.get("apiVersion") in (None, "v1")):
            raw_items = d.get("items")
            if raw_items is None:
                raw_items = []
            if not isinstance(raw_items, list):
                raise ctx.error("items", f"expected an array, got {_type_name(raw_items)}")
            items = [(it, f"items[{j}]") for j, it in enumerate(raw_items)]
        else:
            items = [(d, None)]
        for it, prefix in items:
            if it is None:
                continue
            if not isinstance(it, dict):
                raise ctx.error(prefix, f"expected a Kubernetes object, got {_type_name(it)}")
            kind = it.get("kind")
            api_version = it.get("apiVersion")
            if not kind or not isinstance(kind, str):
                raise ctx.error(_join(prefix or "", "kind"), "Required value: object has no kind")
            if not api_version or not isinstance(api_version, str):
                raise _Doc(source, i, kind).error(_join(prefix or "", "apiVersion"),
                                                  "Required value: object has no apiVersion")
            allowed = _KINDS.get(kind)
            if allowed is None:
                raise _Doc(source, i, kind).error(
                    _join(prefix or "", "kind"),
                    f'unsupported kind "{kind}" (supported: {", ".join(sorted(_KINDS))})')
            if api_version not in allowed:
                raise _Doc(source, i, kind).error(
                    _join(prefix or "", "apiVersion"),
                    f'unsupported apiVersion "{api_version}" for kind {kind} '
                    f'(expected {" or ".join(allowed)})')
            out.append(_Entry(i, kind, api_version, it))
    return out


def load_scenario_file(path: str | Path) -> Scenario:
    """Read and load a scenario file; errors name the file as given."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise ScenarioError(f"cannot read file: {exc.strerror or exc}", file=str(path)) from None
    if size > MAX_INPUT_BYTES:
        raise ScenarioError(f"input is too large ({size} bytes; the limit is "
                            f"{MAX_INPUT_BYTES} bytes)", file=str(path))
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"cannot read file: {exc.strerror or exc}", file=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"file is not UTF-8 text: {exc.reason} at byte {exc.start}",
                            file=str(path)) from None
    return load_scenario_text(text, source=str(path))


def load_scenario_text(text: str, source: str = "<input>") -> Scenario:
    """Load a multi-document YAML scenario into a validated, defaulted Scenario.

    Raises ScenarioError (one, the first found in document order) when anything is wrong.
    """
    if len(text) > MAX_INPUT_BYTES or len(text.encode("utf-8")) > MAX_INPUT_BYTES:
        raise ScenarioError(f"input is too large (the limit is {MAX_INPUT_BYTES} bytes)",
                            file=source)
    docs = _load_yaml(text, source)
    entries = _flatten(docs, source)
    return _build(entries, source)


def _count_limits(entries: list[_Entry], source: str) -> None:
    nodes = sum(1 for e in entries if e.kind == "Node")
    pods = sum(1 for e in entries if e.kind == "Pod")
    for e in entries:
        if e.kind == "Timeline":
            for a in e.obj.get("actions") or []:
                if isinstance(a, dict):
                    if a.get("action") == "addNode":
                        nodes += 1
                    elif a.get("action") == "addPod":
                        pods += 1
    if nodes > MAX_NODES:
        raise ScenarioError(f"too many nodes ({nodes}; the limit is {MAX_NODES})", file=source)
    if pods > MAX_PODS:
        raise ScenarioError(f"too many pods ({pods}; the limit is {MAX_PODS})", file=source)


def _build(entries: list[_Entry], source: str) -> Scenario:
    _count_limits(entries, source)
    sc = Scenario(source=source)
    seen: dict[tuple[str, str, str], int] = {}

    def reader(e: _Entry) -> _Reader:
        return _Reader(_Doc(source, e.doc, e.kind))

    def unique(r: _Reader, e: _Entry, ns: str, name: str) -> None:
        key = (e.kind, ns, name)
        if key in seen:
            raise r.err("metadata.name", f'Duplicate value: {e.kind} "{ns + "/" if ns else ""}'
                                         f'{name}" is already defined in document {seen[key]}')
        seen[key] = e.doc

    # PriorityClasses first: admission of every pod depends on all of them (as if they had
    # been created before the pods, which is how such a scenario would be applied).
    classes: list[PriorityClass] = []
    default_doc: tuple[str, int] | None = None
    for e in entries:
        if e.kind != "PriorityClass":
            continue
        r = reader(e)
        pc = _priority_class(r, e.obj)
        if pc.name in SYSTEM_PRIORITY_CLASSES:
            continue  # re-declaring a built-in class identically is a no-op
        unique(r, e, "", pc.name)
        if pc.global_default:
            if default_doc is not None:
                raise r.err("globalDefault", f"Forbidden: PriorityClass {default_doc[0]} is "
                                             "already marked as default. Only one default can "
                                             "exist")
            default_doc = (pc.name, e.doc)
        classes.append(pc)
    sc.priority_classes = classes
    admission = _PriorityAdmission(classes)

    configs = 0
    timeline_entry: _Entry | None = None
    pod_raws: list[tuple[_Reader, Pod]] = []
    index = 0  # creation order shared by Nodes and Pods (document order)
    for e in entries:
        kind = e.kind
        if kind == "PriorityClass":
            continue
        r = reader(e)
        if kind == "Pod":
            pod = parse_pod(r, e.obj, index, admission)
            index += 1
            unique(r, e, pod.namespace, pod.name)
            sc.pods.append(pod)
            pod_raws.append((r, pod))
        elif kind == "Node":
            node = parse_node(r, e.obj, index)
            index += 1
            unique(r, e, "", node.name)
            sc.nodes.append(node)
        elif kind == "PodDisruptionBudget":
            pdb = _pdb(r, e.obj)
            unique(r, e, pdb.namespace, pdb.name)
            sc.pdbs.append(pdb)
        elif kind == "Namespace":
            ns = _namespace(r, e.obj)
            unique(r, e, "", ns.name)
            sc.namespaces.append(ns)
        elif kind in ("Service", "ReplicationController", "ReplicaSet", "StatefulSet"):
            w = _workload(r, e.obj, kind)
            unique(r, e, w.namespace, w.name)
            sc.workloads.append(w)
        elif kind == "KubeSchedulerConfiguration":
            configs += 1
            if configs > 1:
                raise r.err(None, "only one KubeSchedulerConfiguration document is allowed")
            sc.config = _config(r, e.obj)
        elif kind == "Timeline":
            if timeline_entry is not None:
                raise r.err(None, f"only one Timeline document is allowed (the first is "
                                  f"document {timeline_entry.doc})")
            timeline_entry = e

    node_names = {n.name for n in sc.nodes}
    for r, pod in pod_raws:
        if pod.node_name and pod.node_name not in node_names:
            raise r.err("spec.nodeName", f'pod is bound to node "{pod.node_name}", which is not '
                                         "defined in the scenario")

    _add_implicit_namespaces(sc)
    _compute_pdb_status(sc)

    if timeline_entry is not None:
        sc.timeline = _timeline(reader(timeline_entry), timeline_entry.obj, admission, sc,
                                index)
    return sc


def _add_implicit_namespaces(sc: Scenario) -> None:
    """Namespaces used but not declared exist in any real cluster the scenario was applied to."""
    declared = {ns.name for ns in sc.namespaces}
    used: list[str] = ["default"]
    used += [p.namespace for p in sc.pods]
    used += [p.namespace for p in sc.pdbs]
    used += [w.namespace for w in sc.workloads]
    for name in used:
        if name not in declared:
            declared.add(name)
            sc.namespaces.append(Namespace(name=name,
                                           labels={"kubernetes.io/metadata.name": name}))


def _compute_pdb_status(sc: Scenario) -> None:
    """status.disruptionsAllowed as the disruption controller computes it at time 0.

    Healthy pods are the matching pods already bound to a node. Only an integer minAvailable can
    be evaluated without a controller behind the pods; maxUnavailable and percentages need the
    controller's scale, which fails here, and upstream then allows no disruption.
    """
    for pdb in sc.pdbs:
        if pdb.selector is None or not isinstance(pdb.min_available, int) \
                or pdb.max_unavailable is not None:
            pdb.disruptions_allowed = 0
            continue
        matching = [p for p in sc.pods
                    if p.namespace == pdb.namespace and pdb.selector.matches(p.labels)]
        healthy = sum(1 for p in matching if p.node_name)
        allowed = healthy - pdb.min_available
        pdb.disruptions_allowed = allowed if (matching and allowed > 0) else 0


def _config(r: _Reader, obj: dict[str, Any]) -> KubeSchedulerConfiguration:
    from scheduler_core.config.loader import ConfigError, parse_config

    try:
        return parse_config(obj)
    except ConfigError as exc:
        raise r.err(exc.field, exc.reason) from None


def _timeline(r: _Reader, obj: dict[str, Any], admission: _PriorityAdmission, sc: Scenario,
              base_index: int, check: bool = True) -> list[TimelineAction]:
    r.doc.name = None
    raw_actions = r.seq(obj.get("actions"), "actions")
    parsed: list[tuple[float, int, TimelineAction]] = []
    for i, a in enumerate(raw_actions):
        p = f"actions[{i}]"
        m = r.mapping(a, p, required=True)
        if m.get("at") is None:
            raise r.err(f"{p}.at", "Required value: the virtual time in seconds")
        at = r.number(m.get("at"), f"{p}.at")
        if at < 0:
            raise r.err(f"{p}.at", f"Invalid value: {at}: must be greater than or equal to 0")
        action = r.string(m.get("action"), f"{p}.action")
        if action not in _TIMELINE_ACTIONS:
            raise r.err(f"{p}.action", f'Unsupported value: "{action}": supported values: '
                                       + ", ".join(f'"{x}"' for x in _TIMELINE_ACTIONS))
        params: dict[str, Any] = {}
        allowed_keys = {"at", "action"}
        if action in ("addPod", "addNode"):
            key = "pod" if action == "addPod" else "node"
            allowed_keys.add(key)
            manifest = r.mapping(m.get(key), f"{p}.{key}", required=True)
            sub = _Reader(_Doc(r.doc.file, r.doc.index, "Pod" if key == "pod" else "Node"))
            sub_prefix = f"{p}.{key}"
            try:
                if key == "pod":
                    params["pod"] = parse_pod(sub, manifest, base_index + i, admission,
                                              uid_salt=f"@timeline[{i}]")
                else:
                    params["node"] = parse_node(sub, manifest, base_index + i,
                                                uid_salt=f"@timeline[{i}]")
            except ScenarioError as exc:
                exc.field = f"{sub_prefix}.{exc.field}" if exc.field else sub_prefix
                exc.args = (str(exc),)
                raise
            kind = manifest.get("kind")
            expected = "Pod" if key == "pod" else "Node"
            if kind is not None and kind != expected:
                raise r.err(f"{p}.{key}.kind", f'Invalid value: "{kind}": expected {expected}')
        elif action == "deletePod":
            allowed_keys.add("pod")
            params["pod"] = _pod_ref(r, m.get("pod"), f"{p}.pod")
        elif action == "setScoreWeight":
            allowed_keys.update(("plugin", "weight", "profile"))
            plugin = r.string(m.get("plugin"), f"{p}.plugin")
            if not plugin:
                raise r.err(f"{p}.plugin", "Required value: a Score plugin's name")
            if m.get("weight") is None:
                raise r.err(f"{p}.weight", "Required value")
            weight = r.integer(m.get("weight"), f"{p}.weight")
            if not 1 <= weight <= 100:
                raise r.err(f"{p}.weight", f"Invalid value: {weight}: must be between 1 and 100")
            params.update(plugin=plugin, weight=weight,
                          profile=r.string(m.get("profile"), f"{p}.profile") or DEFAULT_SCHEDULER_NAME)
        else:
            allowed_keys.add("node")
            node = r.string(m.get("node"), f"{p}.node")
            if not node:
                raise r.err(f"{p}.node", "Required value")
            params["node"] = node
            if action == "addTaint":
                allowed_keys.add("taint")
                params["taint"] = parse_taint(r, m.get("taint"), f"{p}.taint")
            elif action == "removeTaint":
                allowed_keys.update(("key", "effect"))
                key = r.string(m.get("key"), f"{p}.key")
                if not key:
                    raise r.err(f"{p}.key", "Required value")
                params["key"] = key
                effect = r.string(m.get("effect"), f"{p}.effect")
                if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
                    raise r.err(f"{p}.effect", f'Unsupported value: "{effect}": supported '
                                               'values: "NoSchedule", "PreferNoSchedule", '
                                               '"NoExecute"')
                params["effect"] = effect or None
            elif action == "setNodeLabels":
                allowed_keys.add("labels")
                lm = r.mapping(m.get("labels"), f"{p}.labels", required=True)
                labels: dict[str, str | None] = {}
                for k, v in lm.items():
                    if not isinstance(k, str):
                        raise r.err(f"{p}.labels", f"keys must be strings, got {k!r}")
                    err = qualified_name_error(k)
                    if err:
                        raise r.err(f"{p}.labels", f'Invalid value: "{k}": {err}')
                    if v is not None:
                        v = r.string(v, f"{p}.labels.{k}")
                        err = label_value_error(v)
                        if err:
                            raise r.err(f"{p}.labels.{k}", f'Invalid value: "{v}": {err}')
                    labels[k] = v
                params["labels"] = labels
        extra = sorted(str(k) for k in m if k not in allowed_keys)
        if extra:
            raise r.err(f"{p}.{extra[0]}", f'unknown field for action "{action}"')
        parsed.append((at, i, TimelineAction(time=at, action=action, params=params)))
    parsed.sort(key=lambda t: (t[0], t[1]))
    # Identities follow the (stable) time order, so a dumped and reloaded timeline is equal.
    for pos, (_, _, act) in enumerate(parsed):
        obj = act.params.get("pod") if act.action == "addPod" else act.params.get("node")
        if isinstance(obj, Pod):
            obj.creation_index = base_index + pos
            obj.uid = stable_uid("Pod", obj.namespace, obj.name, f"@timeline[{pos}]")
        elif isinstance(obj, Node):
            obj.creation_index = base_index + pos
            obj.uid = stable_uid("Node", "", obj.name, f"@timeline[{pos}]")
    if check:
        _check_timeline(r, parsed, sc)
    return [t[2] for t in parsed]


def parse_action(obj: dict[str, Any], scenario: Scenario, at: float = 0.0, index: int = 0,
                 source: str = "<action>") -> TimelineAction:
    """One live action (a Timeline action mapping without `at`, e.g. {"action": "addPod",
    "pod": {...}}) validated exactly as a timeline action, with the scenario's PriorityClasses
    for admission. Whether the pod or node it names exists is the engine's check at apply time.
    `index` makes the created object's uid/creation_index unique within the run."""
    r = _Reader(_Doc(source, 1, "Timeline"))
    if not isinstance(obj, dict):
        raise r.err(None, f"expected an action (a mapping), got {_type_name(obj)}")
    admission = _PriorityAdmission(scenario.priority_classes)
    base = len(scenario.nodes) + len(scenario.pods) + len(scenario.timeline) + index
    acts = _timeline(r, {"actions": [{**obj, "at": at}]}, admission, Scenario(), base, check=False)
    act = acts[0]
    target = act.params.get("pod") if act.action == "addPod" else act.params.get("node")
    if isinstance(target, (Pod, Node)):
        kind = "Pod" if isinstance(target, Pod) else "Node"
        target.uid = stable_uid(kind, getattr(target, "namespace", ""), target.name, f"@action[{index}]")
    return act


def _check_timeline(r: _Reader, parsed: list[tuple[float, int, TimelineAction]],
                    sc: Scenario) -> None:
    """Replay the actions on names only: objects must exist when an action refers to them."""
    nodes = {n.name for n in sc.nodes}
    pods = {p.key for p in sc.pods}
    for _, i, act in parsed:
        p = f"actions[{i}]"
        a = act.action
        if a == "addPod":
            pod = act.params["pod"]
            if pod.key in pods:
                raise r.err(f"{p}.pod", f'pod "{pod.key}" already exists at t={act.time:g}')
            if pod.node_name and pod.node_name not in nodes:
                raise r.err(f"{p}.pod.spec.nodeName", f'node "{pod.node_name}" does not exist '
                                                      f"at t={act.time:g}")
            pods.add(pod.key)
        elif a == "deletePod":
            key = act.params["pod"]
            if key not in pods:
                raise r.err(f"{p}.pod", f'pod "{key}" does not exist at t={act.time:g}')
            pods.discard(key)
        elif a == "addNode":
            node = act.params["node"]
            if node.name in nodes:
                raise r.err(f"{p}.node", f'node "{node.name}" already exists at t={act.time:g}')
            nodes.add(node.name)
        else:
            name = act.params["node"]
            if name not in nodes:
                raise r.err(f"{p}.node", f'node "{name}" does not exist at t={act.time:g}')
            if a == "deleteNode":
                nodes.discard(name)
