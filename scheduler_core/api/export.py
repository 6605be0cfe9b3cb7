"""Scenario -> plain Kubernetes manifests (multi-document YAML).

Why: the web app lets people edit a scenario and download it; the file must load back into the
same Scenario (every field the engine reads), and read like something `kubectl apply` takes.
Defaults are written out explicitly where that keeps the round trip exact (node allocatable,
pod priority and preemptionPolicy); selectors have the matchLabelKeys expressions the loader
merged in removed again, since loading merges them anew.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import yaml

from scheduler_core.api.api_versions import CONFIG_API_VERSION, TIMELINE_API_VERSION
from scheduler_core.api.export_meta import object_meta
from scheduler_core.api.export_resource import (
    pod_resource_claim_statuses,
    pod_resource_claims,
    resource_manifests,
)
from scheduler_core.api.quantity import format_quantity
from scheduler_core.api.scenario import Scenario, TimelineAction
from scheduler_core.api.types import (
    Affinity,
    Container,
    LabelSelector,
    Namespace,
    Node,
    NodeSelectorTerm,
    Pod,
    PodAffinityTerm,
    PodDisruptionBudget,
    PriorityClass,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WorkloadSelector,
)
from scheduler_core.config.types import KubeSchedulerConfiguration, Plugins, Profile

__all__ = ["dump_scenario", "scenario_manifests", "pod_manifest", "node_manifest"]


from scheduler_core.api.storage_export import storage_manifests, volume_manifest  # noqa: E402


def _resources(rl: dict[str, Fraction]) -> dict[str, str]:
    return {k: format_quantity(v) for k, v in rl.items()}


def _selector(sel: LabelSelector | None, strip: list[tuple[str, str, str]] | None = None,
              ) -> dict[str, Any] | None:
    if sel is None:
        return None
    exprs = list(sel.match_expressions)
    if strip:
        # Drop the expressions the pod strategy appended (they are re-derived on load).
        n = len(strip)
        tail = exprs[-n:] if n <= len(exprs) else []
        if [(e.key, e.operator, e.values) for e in tail] == [(k, op, (v,)) for k, op, v in strip]:
            exprs = exprs[:-n]
    out: dict[str, Any] = {}
    if sel.match_labels:
        out["matchLabels"] = dict(sel.match_labels)
    if exprs:
        out["matchExpressions"] = [_requirement(e.key, e.operator, e.values) for e in exprs]
    return out


def _requirement(key: str, op: str, values: tuple[str, ...]) -> dict[str, Any]:
    d: dict[str, Any] = {"key": key, "operator": op}
    if values:
        d["values"] = list(values)
    return d


def _merged(keys: list[str], op: str, labels: dict[str, str]) -> list[tuple[str, str, str]]:
    return [(k, op, labels[k]) for k in keys if k in labels]


def _term(t: NodeSelectorTerm) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if t.match_expressions:
        d["matchExpressions"] = [_requirement(e.key, e.operator, e.values)
                                 for e in t.match_expressions]
    if t.match_fields:
        d["matchFields"] = [_requirement(e.key, e.operator, e.values) for e in t.match_fields]
    return d


def _pod_affinity_term(t: PodAffinityTerm, labels: dict[str, str]) -> dict[str, Any]:
    d: dict[str, Any] = {}
    strip = (_merged(t.match_label_keys, "In", labels)
             + _merged(t.mismatch_label_keys, "NotIn", labels))
    sel = _selector(t.label_selector, strip)
    if sel is not None:
        d["labelSelector"] = sel
    if t.namespaces:
        d["namespaces"] = list(t.namespaces)
    if t.namespace_selector is not None:
        d["namespaceSelector"] = _selector(t.namespace_selector)
    d["topologyKey"] = t.topology_key
    if t.match_label_keys:
        d["matchLabelKeys"] = list(t.match_label_keys)
    if t.mismatch_label_keys:
        d["mismatchLabelKeys"] = list(t.mismatch_label_keys)
    return d


def _affinity(a: Affinity, labels: dict[str, str]) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if a.node_affinity is not None:
        na: dict[str, Any] = {}
        if a.node_affinity.required is not None:
            na["requiredDuringSchedulingIgnoredDuringExecution"] = {
                "nodeSelectorTerms": [_term(t) for t in a.node_affinity.required.node_selector_terms]
            }
        if a.node_affinity.preferred:
            na["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": p.weight, "preference": _term(p.preference)}
                for p in a.node_affinity.preferred
            ]
        d["nodeAffinity"] = na
    for key, pa in (("podAffinity", a.pod_affinity), ("podAntiAffinity", a.pod_anti_affinity)):
        if pa is None:
            continue
        m: dict[str, Any] = {}
        if pa.required:
            m["requiredDuringSchedulingIgnoredDuringExecution"] = [
                _pod_affinity_term(t, labels) for t in pa.required
            ]
        if pa.preferred:
            m["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": w.weight, "podAffinityTerm": _pod_affinity_term(w.pod_affinity_term,
                                                                           labels)}
                for w in pa.preferred
            ]
        d[key] = m
    return d


def _toleration(t: Toleration) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if t.key:
        d["key"] = t.key
    d["operator"] = t.operator
    if t.value:
        d["value"] = t.value
    if t.effect:
        d["effect"] = t.effect
    if t.toleration_seconds is not None:
        d["tolerationSeconds"] = t.toleration_seconds
    return d


def _tsc(c: TopologySpreadConstraint, labels: dict[str, str]) -> dict[str, Any]:
    d: dict[str, Any] = {"maxSkew": c.max_skew, "topologyKey": c.topology_key,
                         "whenUnsatisfiable": c.when_unsatisfiable}
    sel = _selector(c.label_selector, _merged(c.match_label_keys, "In", labels))
    if sel is not None:
        d["labelSelector"] = sel
    if c.min_domains is not None:
        d["minDomains"] = c.min_domains
    if c.node_affinity_policy is not None:
        d["nodeAffinityPolicy"] = c.node_affinity_policy
    if c.node_taints_policy is not None:
        d["nodeTaintsPolicy"] = c.node_taints_policy
    if c.match_label_keys:
        d["matchLabelKeys"] = list(c.match_label_keys)
    return d


def _container(c: Container, host_network: bool) -> dict[str, Any]:
    d: dict[str, Any] = {"name": c.name}
    if c.image:
        d["image"] = c.image
    res: dict[str, Any] = {}
    # Requests that merely repeat the limit were defaulted from it; writing them is harmless
    # and keeps the file explicit.
    if c.requests:
        res["requests"] = _resources(c.requests)
    if c.limits:
        res["limits"] = _resources(c.limits)
    if c.claims:
        res["claims"] = [{"name": n, **({"request": rq} if rq else {})} for n, rq in c.claims]
    if res:
        d["resources"] = res
    if c.ports:
        ports = []
        for p in c.ports:
            pd: dict[str, Any] = {"containerPort": p.container_port}
            if p.host_port:
                pd["hostPort"] = p.host_port
            pd["protocol"] = p.protocol
            if p.host_ip:
                pd["hostIP"] = p.host_ip
            ports.append(pd)
        d["ports"] = ports
    if c.restart_policy:
        d["restartPolicy"] = c.restart_policy
    return d



def pod_manifest(p: Pod) -> dict[str, Any]:
    """A v1 Pod manifest for `p` that loads back to an equal Pod."""
    spec: dict[str, Any] = {}
    if p.node_name:
        spec["nodeName"] = p.node_name
    if p.scheduler_name != "default-scheduler":
        spec["schedulerName"] = p.scheduler_name
    if p.priority_class_name:
        spec["priorityClassName"] = p.priority_class_name
    spec["priority"] = p.priority
    spec["preemptionPolicy"] = p.preemption_policy
    if p.host_network:
        spec["hostNetwork"] = True
    if p.termination_grace_period_seconds != 30:
        spec["terminationGracePeriodSeconds"] = p.termination_grace_period_seconds
    if p.node_selector:
        spec["nodeSelector"] = dict(p.node_selector)
    if p.affinity is not None:
        spec["affinity"] = _affinity(p.affinity, p.labels)
    if p.tolerations:
        spec["tolerations"] = [_toleration(t) for t in p.tolerations]
    if p.topology_spread_constraints:
        spec["topologySpreadConstraints"] = [_tsc(c, p.labels)
                                             for c in p.topology_spread_constraints]
    if p.scheduling_gates:
        spec["schedulingGates"] = [{"name": g} for g in p.scheduling_gates]
    if p.init_containers:
        spec["initContainers"] = [_container(c, p.host_network) for c in p.init_containers]
    spec["containers"] = [_container(c, p.host_network) for c in p.containers]
    if p.overhead:
        spec["overhead"] = _resources(p.overhead)
    if p.pod_resources is not None:
        pr = p.pod_resources
        spec["resources"] = {k: _resources(v) for k, v in (("requests", pr.requests), ("limits", pr.limits)) if v}
    if p.resource_claims:
        spec["resourceClaims"] = pod_resource_claims(p)
    if p.volumes:
        spec["volumes"] = [volume_manifest(v) for v in p.volumes]
    meta = object_meta(p.name, p.namespace, p.labels, p.annotations)
    if p.owner_references:
        meta["ownerReferences"] = [
            {"apiVersion": o.api_version, "kind": o.kind, "name": o.name,
             **({"uid": o.uid} if o.uid else {}), **({"controller": True} if o.controller else {})}
            for o in p.owner_references]
    out = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if p.resource_claim_statuses:
        out["status"] = {"resourceClaimStatuses": pod_resource_claim_statuses(p)}
    return out


def _taint(t: Taint) -> dict[str, Any]:
    d: dict[str, Any] = {"key": t.key}
    if t.value:
        d["value"] = t.value
    d["effect"] = t.effect
    return d


def node_manifest(n: Node) -> dict[str, Any]:
    """A v1 Node manifest for `n` that loads back to an equal Node."""
    d: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                         "metadata": object_meta(n.name, None, n.labels, n.annotations)}
    spec: dict[str, Any] = {}
    if n.unschedulable:
        spec["unschedulable"] = True
    if n.taints:
        spec["taints"] = [_taint(t) for t in n.taints]
    if spec:
        d["spec"] = spec
    status: dict[str, Any] = {"capacity": _resources(n.capacity)}
    if n.allocatable != n.capacity:
        status["allocatable"] = _resources(n.allocatable)
    if n.images:
        status["images"] = [{"names": list(i.names), "sizeBytes": i.size_bytes} for i in n.images]
    d["status"] = status
    return d


def _priority_class(pc: PriorityClass) -> dict[str, Any]:
    d: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                         "metadata": {"name": pc.name}, "value": pc.value}
    if pc.global_default:
        d["globalDefault"] = True
    if pc.preemption_policy != "PreemptLowerPriority":
        d["preemptionPolicy"] = pc.preemption_policy
    if pc.description:
        d["description"] = pc.description
    return d


def _pdb(p: PodDisruptionBudget) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if p.selector is not None:
        spec["selector"] = _selector(p.selector)
    if p.min_available is not None:
        spec["minAvailable"] = p.min_available
    if p.max_unavailable is not None:
        spec["maxUnavailable"] = p.max_unavailable
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": object_meta(p.name, p.namespace), "spec": spec}


def _namespace(ns: Namespace) -> dict[str, Any]:
    labels = {k: v for k, v in ns.labels.items()
              if not (k == "kubernetes.io/metadata.name" and v == ns.name)}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": object_meta(ns.name, None, labels)}


def _workload(w: WorkloadSelector) -> dict[str, Any]:
    api = "apps/v1" if w.kind in ("ReplicaSet", "StatefulSet") else "v1"
    spec: dict[str, Any] = {}
    if w.selector is not None:
        if w.kind in ("Service", "ReplicationController"):
            spec["selector"] = dict(w.selector.match_labels)
        else:
            spec["selector"] = _selector(w.selector)
    return {"apiVersion": api, "kind": w.kind, "metadata": object_meta(w.name, w.namespace),
            "spec": spec}


def _plugins(p: Plugins) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for point, ps in p.sets.items():
        d: dict[str, Any] = {}
        if ps.enabled:
            d["enabled"] = [{"name": r.name} if r.weight is None
                            else {"name": r.name, "weight": r.weight} for r in ps.enabled]
        if ps.disabled:
            d["disabled"] = [{"name": r.name} for r in ps.disabled]
        out[point] = d
    return out


def _profile(p: Profile) -> dict[str, Any]:
    d: dict[str, Any] = {"schedulerName": p.scheduler_name}
    if p.percentage_of_nodes_to_score is not None:
        d["percentageOfNodesToScore"] = p.percentage_of_nodes_to_score
    if p.plugins is not None:
        d["plugins"] = _plugins(p.plugins)
    if p.plugin_config:
        d["pluginConfig"] = [{"name": k, "args": v} for k, v in p.plugin_config.items()]
    return d


def _config(c: KubeSchedulerConfiguration) -> dict[str, Any]:
    d: dict[str, Any] = {"apiVersion": CONFIG_API_VERSION, "kind": "KubeSchedulerConfiguration",
                         "parallelism": c.parallelism,
                         "percentageOfNodesToScore": c.percentage_of_nodes_to_score,
                         "podInitialBackoffSeconds": c.pod_initial_backoff_seconds,
                         "podMaxBackoffSeconds": c.pod_max_backoff_seconds,
                         "profiles": [_profile(p) for p in c.profiles]}
    if c.extenders:
        exts = []
        for e in c.extenders:
            ed: dict[str, Any] = {"urlPrefix": e.url_prefix}
            for key, val in (("filterVerb", e.filter_verb), ("preemptVerb", e.preempt_verb),
                             ("prioritizeVerb", e.prioritize_verb), ("bindVerb", e.bind_verb)):
                if val:
                    ed[key] = val
            ed["weight"] = e.weight
            ed["enableHTTPS"] = e.enable_https
            ed["httpTimeout"] = f"{e.http_timeout!r}s"
            ed["nodeCacheCapable"] = e.node_cache_capable
            if e.managed_resources:
                ed["managedResources"] = [dict(m) for m in e.managed_resources]
            ed["ignorable"] = e.ignorable
            exts.append(ed)
        d["extenders"] = exts
    return d


def _action(a: TimelineAction) -> dict[str, Any]:
    d: dict[str, Any] = {"at": a.time, "action": a.action}
    for k, v in a.params.items():
        if isinstance(v, Pod):
            d[k] = pod_manifest(v)
        elif isinstance(v, Node):
            d[k] = node_manifest(v)
        elif isinstance(v, Taint):
            d[k] = _taint(v)
        elif v is None:
            continue
        else:
            d[k] = v
    return d


def scenario_manifests(sc: Scenario) -> list[dict[str, Any]]:
    """The scenario as a list of manifests, config first, in an order that loads back equal."""
    docs: list[dict[str, Any]] = []
    if sc.config != KubeSchedulerConfiguration():
        docs.append(_config(sc.config))
    docs += [_priority_class(pc) for pc in sc.priority_classes]
    docs += [_namespace(ns) for ns in sc.namespaces]
    docs += storage_manifests(sc.storage)
    # Nodes and pods keep their relative creation order (creation_index is document order).
    objs: list[tuple[int, dict[str, Any]]] = [(n.creation_index, node_manifest(n))
                                              for n in sc.nodes]
    objs += [(p.creation_index, pod_manifest(p)) for p in sc.pods]
    objs.sort(key=lambda t: t[0])
    docs += [o for _, o in objs]
    docs += [_workload(w) for w in sc.workloads]
    docs += [_pdb(p) for p in sc.pdbs]
    docs += resource_manifests(sc)
    if sc.timeline:
        docs.append({"apiVersion": TIMELINE_API_VERSION, "kind": "Timeline",
                     "actions": [_action(a) for a in sc.timeline]})
    return docs


def dump_scenario(scenario: Scenario) -> str:
    """Multi-document YAML that `load_scenario_text` reads back to an equal Scenario.

    (creation_index values are renumbered by position on reload; relative order is kept.)
    """
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump_all(scenario_manifests(scenario), Dumper=dumper, sort_keys=False,
                         default_flow_style=False, allow_unicode=True)
