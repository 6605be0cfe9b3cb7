"""The DaemonSet controller at load time: one pod for every eligible node that has none.

As pkg/controller/daemon does it: a node is eligible when the template (with the daemon
tolerations added, spec.nodeName set to the node) passes nodeName, the required node affinity /
nodeSelector and the NoSchedule/NoExecute taints. The pod created for a node carries those
tolerations and a required node affinity replaced by a single `matchFields metadata.name In
[node]` term, so the scheduler itself places it, as it does in a real cluster.
"""

from __future__ import annotations

import copy
from typing import Any

from scheduler_core.controllers.workloads.context import ExpansionContext, Located
from scheduler_core.controllers.workloads.naming import (
    NameGenerator,
    compute_hash,
    object_uid,
    pods_prefix,
)
from scheduler_core.controllers.workloads.selectors import (
    NO_EXECUTE,
    NO_SCHEDULE,
    required_node_affinity_matches,
    untolerated_taint,
)
from scheduler_core.controllers.workloads.template import (
    checked_template,
    owner_reference,
    pod_from_template,
)

REVISION_LABEL = "controller-revision-hash"
TEMPLATE_GENERATION_LABEL = "pod-template-generation"

# AddOrUpdateDaemonPodTolerations: (key, effect); all with operator Exists and no time limit.
DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", NO_EXECUTE),
    ("node.kubernetes.io/unreachable", NO_EXECUTE),
    ("node.kubernetes.io/disk-pressure", NO_SCHEDULE),
    ("node.kubernetes.io/memory-pressure", NO_SCHEDULE),
    ("node.kubernetes.io/pid-pressure", NO_SCHEDULE),
    ("node.kubernetes.io/unschedulable", NO_SCHEDULE),
)
HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", NO_SCHEDULE)


def _same_toleration(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Toleration.MatchToleration: same key, operator, value and effect."""
    return ((a.get("key") or "") == (b.get("key") or "")
            and (a.get("operator") or "Equal") == (b.get("operator") or "Equal")
            and (a.get("value") or "") == (b.get("value") or "")
            and (a.get("effect") or "") == (b.get("effect") or ""))


def add_daemon_tolerations(spec: dict[str, Any]) -> None:
    """AddOrUpdateTolerationInPodSpec for each daemon toleration: an existing toleration
    matching it is replaced (dropping its tolerationSeconds), otherwise it is appended."""
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(HOST_NETWORK_TOLERATION)
    tolerations = list(spec.get("tolerations") or [])
    for key, effect in wanted:
        new = {"key": key, "operator": "Exists", "effect": effect}
        for i, old in enumerate(tolerations):
            if _same_toleration(old, new):
                tolerations[i] = new
                break
        else:
            tolerations.append(new)
    spec["tolerations"] = tolerations


def replace_node_name_affinity(spec: dict[str, Any], node_name: str) -> None:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes one term
    selecting the node by metadata.name (preferred terms stay)."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    affinity = spec.setdefault("affinity", {}) or {}
    spec["affinity"] = affinity
    node_affinity = affinity.setdefault("nodeAffinity", {}) or {}
    affinity["nodeAffinity"] = node_affinity
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}


def _node_pod_spec(base: dict[str, Any], node_name: str) -> dict[str, Any] | None:
    """`base` (the template's spec with the daemon tolerations, copied once per DaemonSet) as
    replace_node_name_affinity leaves it for `node_name`: the affinity and its nodeAffinity are
    new dicts, every other value is base's own, shared by the DaemonSet's pods (nothing changes
    a manifest in place after the controllers: the loader only reads them). None when the
    affinity is not a mapping: the copying path then fails where it always did."""
    affinity = base.get("affinity") or {}
    node_affinity = (affinity.get("nodeAffinity") or {}) if isinstance(affinity, dict) else None
    if not isinstance(node_affinity, dict):
        return None
    spec = dict(base)
    spec["affinity"] = affinity = dict(affinity)
    affinity["nodeAffinity"] = node_affinity = dict(node_affinity)
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}
    return spec


def should_run(template_spec: dict[str, Any], node: dict[str, Any]) -> bool:
    """NodeShouldRunDaemonPod's predicates for a pod of this template on this node."""
    return bool(eligible_nodes(template_spec, [node]))


def eligible_nodes(template_spec: dict[str, Any], nodes: list[dict[str, Any]],
                   ) -> list[dict[str, Any]]:
    """The nodes (in name order) a pod of this template should run on: `should_run` for each,
    with the template's daemon tolerations added once rather than once per node."""
    spec = copy.deepcopy(template_spec)
    add_daemon_tolerations(spec)
    wanted_node = spec.get("nodeName")
    out: list[dict[str, Any]] = []
    for node in sorted(nodes, key=lambda n: str((n.get("metadata") or {}).get("name", ""))):
        node_name = (node.get("metadata") or {}).get("name", "")
        if wanted_node and wanted_node != node_name:
            continue
        if not required_node_affinity_matches(spec, node):
            continue
        taints = (node.get("spec") or {}).get("taints") or []
        if untolerated_taint(taints, spec["tolerations"]) is None:
            out.append(node)
    return out


def target_node(pod: dict[str, Any]) -> str:
    """GetTargetNodeName: spec.nodeName, else the matchFields metadata.name of a pending pod."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or []:
        for f in (term or {}).get("matchFields") or []:
            if f.get("key") == "metadata.name" and f.get("operator") == "In" \
                    and len(f.get("values") or []) == 1:
                return str(f["values"][0])
    return ""


def expand_daemon_set(ctx: ExpansionContext, where: Located) -> tuple[list[dict[str, Any]], str]:
    template = checked_template(ctx, where)
    covered = {target_node(p) for p in ctx.owned("DaemonSet", where.namespace, where.name)}
    generation = (where.obj.get("metadata") or {}).get("generation", 1)
    collisions = (where.obj.get("status") or {}).get("collisionCount")
    labels = {REVISION_LABEL: compute_hash(template, collisions if isinstance(collisions, int) else None),
              TEMPLATE_GENERATION_LABEL: str(generation)}
    owner = owner_reference("apps/v1", "DaemonSet", where.name, object_uid("DaemonSet", where.obj))
    gen = NameGenerator(f"DaemonSet/{where.key}", ctx.names("Pod", where.namespace))
    prefix = pods_prefix(where.name)
    eligible = eligible_nodes(template["spec"], ctx.nodes)
    # One copy of the template's spec for all the DaemonSet's pods (a deep copy per node was
    # most of the expansion of a 5,000-node cluster's DaemonSets); each pod's own part is its
    # node affinity (_node_pod_spec).
    base = copy.deepcopy(template["spec"])
    add_daemon_tolerations(base)
    shared = {**template, "spec": {}}
    pods: list[dict[str, Any]] = []
    for node in eligible:
        node_name = str((node.get("metadata") or {}).get("name", ""))
        if node_name in covered:
            continue
        spec = _node_pod_spec(base, node_name)
        pod = pod_from_template(template if spec is None else shared, name=gen.generate(prefix),
                                namespace=where.namespace, owner=owner, labels=labels,
                                generate_name=prefix)
        if spec is None:
            add_daemon_tolerations(pod["spec"])
            replace_node_name_affinity(pod["spec"], node_name)
        else:
            pod["spec"] = spec
        ctx.register(pod)
        pods.append(pod)
    eligible_count = len(eligible)
    return pods, (f"{eligible_count} of {len(ctx.nodes)} nodes eligible; created {len(pods)} pods"
                  + (f" ({eligible_count - len(pods)} existed)" if eligible_count - len(pods) else ""))
